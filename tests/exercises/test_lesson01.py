"""Lesson 01 exercises: right answers pass, typical mistakes and bad input get a message that names the fault."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import lesson01 as ex
from .checking import assert_refused, boom

R = tf.data.Dataset.range
S = tf.data.Dataset.from_tensor_slices
WORDS = ["cat", "dog", "fish"]
ROWS = [[1, 2], [3], [4, 5, 6]]
QUESTIONS = [ex.q1, ex.q2, ex.q3]


def _xs():
    return S(tf.range(-5, 0))


CORRECT = [
    # q1: (word, length)
    (ex.q1, S((WORDS, [3, 3, 4]))),
    (ex.q1, S(WORDS).map(lambda w: (w, tf.strings.length(w)))),
    (ex.q1, tf.data.Dataset.zip((S(WORDS), S([len(w) for w in WORDS])))),
    (ex.q1, S((tf.constant(WORDS), tf.constant([3, 3, 4], tf.int64)))),
    (ex.q1, S((np.array(WORDS), np.array([len(w) for w in WORDS])))),
    # q2: ragged rows
    (ex.q2, S(tf.ragged.constant(ROWS, dtype=tf.int64))),
    (ex.q2, tf.data.Dataset.from_generator(lambda: iter(ROWS), output_signature=tf.TensorSpec([None], tf.int32))),
    (ex.q2, S(tf.RaggedTensor.from_row_lengths([1, 2, 3, 4, 5, 6], [2, 1, 3]))),
    (ex.q2, tf.data.Dataset.from_tensors([1, 2]).concatenate(tf.data.Dataset.from_tensors([3]))
        .concatenate(tf.data.Dataset.from_tensors([4, 5, 6]))),
    (ex.q2, S(tf.ragged.constant([[1.0, 2.0], [3.0], [4.0, 5.0, 6.0]]))),
    # q3: (x, (y1, y2))
    (ex.q3, S((tf.range(-5, 0), (tf.range(5), tf.range(10, 15))))),
    (ex.q3, R(5).map(lambda i: (i - 5, (i, i + 10)))),
    (ex.q3, tf.data.Dataset.zip(_xs(), S((tf.range(5), tf.range(10, 15))))),
    (ex.q3, tf.data.Dataset.zip((R(-5, 0), tf.data.Dataset.zip((R(5), R(10, 15)))))),
    (ex.q3, tf.data.Dataset.zip((R(-5, 1), S((tf.range(5), tf.range(10, 15)))))),  # zip stops at the shorter
]


@pytest.mark.parametrize("question, answer", CORRECT, ids=[f"{q.title}-{k}" for k, (q, _) in enumerate(CORRECT)])
def test_other_right_answers_pass(question, answer):
    result = question.check(answer)
    assert result.passed, str(result)


MISTAKES = [
    # q1
    (ex.q1, S(([3, 3, 4], WORDS)), "the tuple is swapped"),
    (ex.q1, S((WORDS, [3, 3, 3])), "'fish' has 4 letters"),
    (ex.q1, S(WORDS), "a single word, without its length"),
    (ex.q1, S((WORDS, ["3", "3", "4"])), "the length is text"),
    (ex.q1, tf.data.Dataset.from_tensors((WORDS, [3, 3, 4])), "from_tensor_slices"),
    (ex.q1, S((WORDS, [3, 3, 4])).batch(3), "Leave batch() out"),
    (ex.q1, S({"word": WORDS, "length": [3, 3, 4]}), "a dict"),
    (ex.q1, S((WORDS[::-1], [4, 3, 3])), "in a different order"),
    (ex.q1, S((WORDS, [3, 3, 4])).repeat(2), "expected 3 elements, one per word, got 6"),
    (ex.q1, S((WORDS, [3, 3, 4], [0, 1, 2])), "expected 2 parts"),
    # q2
    (ex.q2, S([[1, 2, 0], [3, 0, 0], [4, 5, 6]]), "padding added zeros"),
    (ex.q2, S([1, 2, 3, 4, 5, 6]), "flattened"),
    (ex.q2, tf.data.Dataset.from_tensors(tf.ragged.constant(ROWS)), "from_tensors keeps its input whole"),
    (ex.q2, S(tf.ragged.constant(ROWS)).batch(3), "Leave batch() out"),
    (ex.q2, S(tf.ragged.constant(ROWS[::-1])), "different order"),
    (ex.q2, S(tf.ragged.constant(ROWS[:2])), "expected 3 elements"),
    (ex.q2, S(["1 2", "3", "4 5 6"]), "text"),
    (ex.q2, S(tf.ragged.constant([[1, 2], [3], [4, 5, 7]])), "element 2 is [4, 5, 7]"),
    # q3
    (ex.q3, S((tf.range(-5, 0), tf.range(5), tf.range(10, 15))), "flat triple"),
    (ex.q3, S(((tf.range(-5, 0), tf.range(5)), tf.range(10, 15))), "grouped as ((a, b), c)"),
    (ex.q3, tf.data.Dataset.zip((S((tf.range(5), tf.range(10, 15))), _xs())), "the tuple is swapped"),
    (ex.q3, tf.data.Dataset.zip((_xs(), R(5))), "one output"),
    (ex.q3, S((tf.range(-4, 1), (tf.range(5), tf.range(10, 15)))), "x runs over [-4, -3, -2, -1, 0]"),
    (ex.q3, S((tf.range(-5, 0), (tf.range(-5, 0) + 5, tf.range(11, 16)))), "y2 runs over"),
    (ex.q3, S((tf.range(5), (tf.range(-5, 0), tf.range(10, 15)))), "x and y1 are swapped"),
    (ex.q3, S((tf.range(-5, 0), {"y1": tf.range(5), "y2": tf.range(10, 15)})), "tuples"),
    (ex.q3, S((tf.range(-5, 0), (tf.range(5), tf.range(10, 15)))).batch(5), "a single number"),
    (ex.q3, S((tf.range(-5, 1), (tf.range(6), tf.range(10, 16)))), "expected 5 elements, got 6"),
]


@pytest.mark.parametrize("question, answer, fragment", MISTAKES, ids=[f"{q.title}-{m}" for q, _, m in MISTAKES])
def test_mistakes_are_named(question, answer, fragment):
    assert_refused(question.check(answer), fragment)


def test_a_raising_function_is_named_by_its_stage():  # the real deadline: the error comes with the first read
    words = S(WORDS).map(lambda w: (w, tf.py_function(boom, [w], tf.int64)))
    assert_refused(ex.q1.check(words), "map()", "raised ValueError")
    filtered = S((WORDS, [3, 3, 4])).filter(lambda w, n: tf.py_function(boom, [n], tf.bool))
    assert_refused(ex.q1.check(filtered), "filter()")


def test_an_iterator_is_not_a_dataset():
    assert_refused(ex.q2.check(iter(S(tf.ragged.constant(ROWS)))), "an iterator", "Pass the dataset itself")


RIGHT_SHAPE = [
    (ex.q1, lambda: S((WORDS, [3, 3, 4]))),
    (ex.q2, lambda: S(tf.ragged.constant(ROWS))),
    (ex.q3, lambda: S((tf.range(-5, 0), (tf.range(5), tf.range(10, 15))))),
]


@pytest.mark.parametrize("question, build", RIGHT_SHAPE, ids=[q.title for q, _ in RIGHT_SHAPE])
def test_endless_or_silent_answers_of_the_right_shape(question, build, short_deadline):
    assert_refused(question.check(build().repeat()), "repeat() with no count")
    assert_refused(question.check(build().repeat().filter(lambda *parts: tf.constant(False))), "produced no element")


def test_no_message_leaks_a_module_name_or_calls_a_bool_a_number():
    length_bool = ex.q1.check(S((WORDS, [True, True, True]))).message
    assert "a single bool (True or False)" in length_bool and "a whole number" in length_bool
    assert "_read" not in length_bool and "bool number" not in length_bool
    assert "_read" not in ex.q2.check(S([1, 2, 3, 4, 5, 6])).message


@pytest.mark.parametrize("answer", [
    tf.data.Dataset.from_generator(lambda: iter(ROWS), output_signature=tf.TensorSpec([None], tf.int32)),
    S(tf.RaggedTensor.from_row_lengths([1, 2, 3, 4, 5, 6], [2, 1, 3])),
    S(tf.ragged.constant(ROWS)),
], ids=["generator", "row_lengths", "ragged_constant"])
def test_q2_praise_is_true_of_every_accepted_answer(answer):
    result = ex.q2.check(answer)
    assert result.passed and "ragged.constant" not in result.message, result.message
