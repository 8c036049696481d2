"""Lesson 02 exercises: right answers pass, typical mistakes and bad input get a message that names the fault."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import lesson02 as ex
from .checking import assert_refused, boom

R = tf.data.Dataset.range
S = tf.data.Dataset.from_tensor_slices


def sequences():
    return R(1, 5).map(lambda n: tf.fill([n], n))


QUESTIONS = [ex.predict_sizes, ex.q1, ex.q2, ex.q3]


CORRECT = [
    (ex.predict_sizes, [7, 7, 7, 7, 2]),
    (ex.predict_sizes, (7, 7, 7, 7, 2)),
    (ex.predict_sizes, np.array([7, 7, 7, 7, 2])),
    (ex.predict_sizes, [7.0, 7.0, 7.0, 7.0, 2.0]),
    (ex.q1, R(10).batch(4).repeat(3).prefetch(1)),
    (ex.q1, S(list(range(10))).batch(4).repeat(3)),
    (ex.q1, R(10).shuffle(10, seed=0).batch(4).repeat(3)),
    (ex.q1, R(10).batch(4).cache().repeat(3)),
    (ex.q1, R(10).batch(4, drop_remainder=False).repeat(3)),
    (ex.q2, R(10).batch(3, True)),
    (ex.q2, R(10).batch(3, drop_remainder=True).prefetch(2)),
    (ex.q2, R(9).batch(3, drop_remainder=True)),
    (ex.q2, S(np.arange(9).reshape(3, 3))),
    (ex.q2, R(10).batch(3).filter(lambda b: tf.size(b) == 3).map(lambda b: tf.reshape(b, [3]))),
    (ex.q3, sequences().padded_batch(2, padded_shapes=[None])),
    (ex.q3, sequences().padded_batch(2, padding_values=tf.constant(0, tf.int64))),
    (ex.q3, sequences().ragged_batch(2).map(lambda r: r.to_tensor())),
    (ex.q3, sequences().padded_batch(2, drop_remainder=True)),
]


@pytest.mark.parametrize("question, answer", CORRECT, ids=[f"{q.title}-{k}" for k, (q, _) in enumerate(CORRECT)])
def test_other_right_answers_pass(question, answer):
    result = question.check(answer)
    assert result.passed, str(result)


MISTAKES = [
    (ex.predict_sizes, [7, 3, 7, 3, 7, 3], "[3, 3, 3] are not in it"),
    (ex.predict_sizes, [7, 7, 7, 7], "1 item of the answer is missing"),
    (ex.predict_sizes, [7, 7, 7, 7, 2, 0], "0 is not in it"),
    (ex.predict_sizes, [2, 7, 7, 7, 7], "different order: position 0 holds 7"),
    (ex.predict_sizes, "7, 7, 7, 7, 2", "a list of 5 items"),
    (ex.q1, R(10).repeat(3).batch(4), "batch 2 is [8, 9, 0, 1]: it holds ids of epoch 1 and epoch 2"),
    (ex.q1, R(10).repeat(3).batch(4), "Your repeat() comes before batch()"),
    (ex.q1, R(10).batch(4).repeat(2), "every id appears 2 times"),
    (ex.q1, R(10).batch(5).repeat(3), "use batches of 4"),
    (ex.q1, R(10).batch(4, drop_remainder=True).repeat(3), "drop_remainder=True dropped"),
    (ex.q1, R(10).repeat(3), "a single id, not a batch"),
    (ex.q1, R(10).batch(2).repeat(3), "the batch sizes are [2, 2"),
    (ex.q1, R(1, 11).batch(4).repeat(3), "id 10 is not in range(10)"),
    (ex.q1, R(10).batch(4).repeat(), "repeat() with no count"),
    (ex.q1, R(10).batch(4).batch(2).repeat(3), "batches of batches"),
    (ex.q2, R(10).batch(3), "drop_remainder=True"),
    (ex.q2, R(10).batch(4, drop_remainder=True), "the static batch dimension is 4"),
    (ex.q2, R(10).batch(3, drop_remainder=True).repeat(2), "Leave repeat() out"),
    (ex.q2, R(10).shuffle(10, seed=1).batch(3, drop_remainder=True), "out of order"),
    (ex.q2, R(10), "a single id, not a batch"),
    (ex.q2, R(1, 11).batch(3, drop_remainder=True), "expected [[0, 1, 2], [3, 4, 5], [6, 7, 8]]"),
    (ex.q3, sequences().ragged_batch(2), "ragged"),
    (ex.q3, sequences().batch(2), "batch() cannot stack sequences of different lengths"),
    (ex.q3, sequences().padded_batch(4), "your batches hold [4] sequences"),
    (ex.q3, sequences().padded_batch(3), "your batches hold [3, 1] sequences"),
    (ex.q3, sequences().padded_batch(2, padded_shapes=[4]), "batch 0 is padded to length 4"),
    (ex.q3, sequences().padded_batch(2, padding_values=tf.constant(-1, tf.int64)), "padded with -1"),
    (ex.q3, sequences(), "one sequence, not a batch"),
    (ex.q3, R(0, 4).map(lambda n: tf.fill([n + 1], n)).padded_batch(2), "batch 0 is [[0, 0], [1, 1]]"),
]


@pytest.mark.parametrize("question, answer, fragment", MISTAKES, ids=[f"{q.title}-{m}" for q, _, m in MISTAKES])
def test_mistakes_are_named(question, answer, fragment):
    assert_refused(question.check(answer), fragment)


RIGHT_SHAPE = [
    (ex.q1, lambda: R(10).batch(4)),
    (ex.q2, lambda: R(10).batch(3, drop_remainder=True)),
    (ex.q3, lambda: sequences().padded_batch(2)),
]


@pytest.mark.parametrize("question, build", RIGHT_SHAPE, ids=[q.title for q, _ in RIGHT_SHAPE])
def test_endless_or_silent_answers_of_the_right_shape(question, build, short_deadline):
    assert_refused(question.check(build().repeat()), "repeat() with no count")
    assert_refused(question.check(build().repeat().filter(lambda b: tf.constant(False))), "produced no element")


@pytest.mark.parametrize("question, build", RIGHT_SHAPE, ids=[q.title for q, _ in RIGHT_SHAPE])
def test_an_answer_of_the_right_shape_that_raises_is_named(question, build):
    """With the real deadline: the error comes when the first element is read, later on a busy machine."""
    raising = build().map(lambda b: tf.ensure_shape(tf.py_function(boom, [b], b.dtype), b.shape))
    assert_refused(question.check(raising), "map()", "raised ValueError")


def test_a_prediction_is_not_a_pipeline():
    assert_refused(ex.predict_sizes.check(R(10).repeat(3).batch(7)), "not a pipeline")


def test_predicted_sizes_as_a_range_or_generator_read_like_a_list():
    right = ex.predict_sizes.solution_answer()
    assert ex.predict_sizes.check(tuple(right)).passed and ex.predict_sizes.check(iter(right)).passed


def test_q2_names_the_real_leftover():
    assert "the leftover 9 was dropped" in ex.q2.check(R(10).batch(3, drop_remainder=True)).message
    none_left = ex.q2.check(R(9).batch(3, drop_remainder=True))
    assert none_left.passed and "leftover 9" not in none_left.message and "no leftover" in none_left.message
