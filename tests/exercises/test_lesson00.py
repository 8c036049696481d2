"""Lesson 00's warm-up exercise: right answers pass, typical mistakes and bad input get a message that names the fault."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import lesson00 as ex
from .checking import assert_refused, boom

R = tf.data.Dataset.range
#: Signs of raw exception text, which must never reach a learner's message.
CORRECT = [
    R(5),
    tf.data.Dataset.from_tensor_slices([0, 1, 2, 3, 4]),
    tf.data.Dataset.from_tensor_slices(np.arange(5)),
    R(10).take(5),
    R(0, 5, 1),
    tf.data.Dataset.from_tensor_slices([0.0, 1.0, 2.0, 3.0, 4.0]),
    R(20).filter(lambda x: x < 5),
]


@pytest.mark.parametrize("answer", CORRECT)
def test_other_right_answers_pass(answer):
    result = ex.q1.check(answer)
    assert result.passed, str(result)


MISTAKES = [
    (R(1, 6), "starts at 1"),
    (R(4), "stops at 3"),
    (R(6), "goes past 4"),
    (R(5).repeat(2), "leave repeat() out"),
    (tf.data.Dataset.from_tensor_slices([4, 3, 2, 1, 0]), "different order"),
    (R(5).batch(5), "Leave batch() out"),
    (R(5).batch(2), "Leave batch() out"),
    (tf.data.Dataset.from_tensors([0, 1, 2, 3, 4]), "from_tensors keeps its input whole"),
    (tf.data.Dataset.from_tensor_slices(["0", "1", "2", "3", "4"]), "text"),
    (tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5))), "a tuple of 2 parts"),
    (R(0), "empty"),
    (iter(R(5)), "an iterator"),
    (R, "you passed the function range itself, without calling it"),
]


@pytest.mark.parametrize("answer, fragment", MISTAKES, ids=[m for _, m in MISTAKES])
def test_mistakes_are_named(answer, fragment):
    assert_refused(ex.q1.check(answer), fragment)


def test_bad_input_messages_say_what_happened(short_deadline):
    assert_refused(ex.q1.check(R(5).repeat()), "repeat() with no count")
    assert_refused(ex.q1.check(R(5).repeat().filter(lambda x: x < 0)), "produced no element")
    assert_refused(ex.q1.check(R(5).map(lambda x: tf.py_function(boom, [x], tf.int64))), "map()", "ValueError")
    assert_refused(ex.q1.check([0, 1, 2]), "from_tensor_slices")


@pytest.mark.parametrize("batched", [R(5).batch(5), R(5).batch(1), tf.data.Dataset.from_tensor_slices([0, 1, 2, 3, 4]).batch(2)],
                         ids=["range-batch5", "range-batch1", "slices-batch2"])
def test_a_batched_answer_is_told_to_leave_batch_out_not_about_from_tensors(batched):
    message = ex.q1.check(batched).message
    assert "each element is a batch" in message and "Leave batch() out" in message
    assert "from_tensors" not in message and "the whole input" not in message


def test_messages_name_bools_and_whole_numbers_in_plain_words():
    bools = ex.q1.check(tf.data.Dataset.from_tensor_slices([True, False])).message
    assert "a single bool (True or False)" in bools and "expected whole numbers." in bools
    halves = ex.q1.check(tf.data.Dataset.from_tensor_slices([0.5, 1.0])).message
    assert "expected the whole numbers [0, 1, 2, 3, 4]" in halves
    assert "_read" not in bools + halves and "bool number" not in bools
