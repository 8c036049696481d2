"""Lesson 05 exercises: every solution passes, typical wrong answers fail with a useful message."""
import numpy as np
import pytest
import tensorflow as tf

from tutor.checks import lesson05 as ex


def images(n=64):
    rng = np.random.default_rng(0)
    x = np.zeros((n, 28, 28), np.uint8)
    for k in range(n):
        r, c = rng.integers(2, 20, 2)
        x[k, r : r + 5, c : c + 7] = 255
        x[k, 26, 1] = 128
    return x


@pytest.mark.parametrize("q", [ex.q1, ex.q2, ex.q3])
def test_solutions_pass(q):
    result = q.check(q.solution_answer())
    assert result.passed, result.message


@pytest.mark.parametrize("q", [ex.q1, ex.q2, ex.q3])
def test_placeholder_and_wrong_type(q):
    assert q.check(...).status == "unattempted"
    result = q.check([1, 2, 3])
    assert not result.passed and "tf.data.Dataset" in result.message


def source():
    return tf.data.Dataset.from_tensor_slices(images())


def test_q1_wrong_answers():
    per_element = ex.q1.check(source().map(ex.mirror).batch(32))
    assert not per_element.passed and "before batch" in per_element.message
    wrong_axis = ex.q1.check(source().batch(32).map(lambda x: tf.reverse(x, axis=[1])))
    assert not wrong_axis.passed and "batch 0, image 0" in wrong_axis.message and "axis 2" in wrong_axis.message
    no_change = ex.q1.check(source().batch(32).map(lambda x: x))
    assert not no_change.passed and "not mirrored" in no_change.message
    no_batch = ex.q1.check(source().map(ex.mirror))
    assert not no_batch.passed and "no batch()" in no_batch.message
    assert ex.q1.check(source().batch(16).map(lambda x: tf.reverse(x, axis=[2]))).passed  # any batch size works


def test_q2_wrong_answers():
    frozen = ex.q2.check(ex.broken_cache_pipeline(images()))
    assert not frozen.passed and "repeated epoch 1 exactly" in frozen.message
    no_cache = ex.q2.check(source().map(ex.random_rotate).batch(16))
    assert not no_cache.passed and "cache() is gone" in no_cache.message
    endless = ex.q2.check(source().cache().map(ex.random_rotate).batch(16).repeat())
    assert not endless.passed and "repeat" in endless.message
    assert ex.q2.check(source().cache().map(ex.random_rotate)).passed  # unbatched is fine too


def test_q3_wrong_answers():
    pairs = tf.data.Dataset.from_tensor_slices((images(), np.arange(64) % 10))
    batches_shuffled = ex.q3.check(pairs.batch(32).shuffle(4, seed=0).map(ex.rotate_batch))
    assert not batches_shuffled.passed and "shuffles whole batches" in batches_shuffled.message
    no_shuffle = ex.q3.check(pairs.batch(32).map(ex.rotate_batch))
    assert not no_shuffle.passed and "no shuffle()" in no_shuffle.message
    with pytest.raises(ValueError, match="batch must come before"):
        pairs.shuffle(64).map(ex.rotate_batch)  # the per-image placement fails where the learner writes it
    tiny_buffer = ex.q3.check(pairs.shuffle(1).batch(32).map(ex.rotate_batch))
    assert not tiny_buffer.passed and "original order" in tiny_buffer.message


def test_q3_transform_is_vectorized_and_keeps_labels():
    x, y = ex.rotate_batch(tf.constant(images(8)), tf.range(8))
    assert x.shape == (8, 28, 28) and y.numpy().tolist() == list(range(8))
    assert not np.array_equal(x.numpy(), images(8))


def test_hints_and_solutions_are_there():
    for q in (ex.q1, ex.q2, ex.q3):
        assert len(q.hints) >= 2 and "answer" in q.solution_code
