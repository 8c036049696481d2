"""Lesson 05 exercises: solutions and other right answers pass; typical mistakes and bad input get a message
that names the fault, never raw exception text, and never a hang."""
import numpy as np
import pytest
import tensorflow as tf

from tutor.checks import lesson05 as ex
from .checking import boom, passes, refused


def images(n=64):
    rng = np.random.default_rng(0)
    x = np.zeros((n, 28, 28), np.uint8)
    for k in range(n):
        r, c = rng.integers(2, 20, 2)
        x[k, r:r + 5, c:c + 7] = 255
        x[k, 26, 1] = 128
    return x


def source(n=256):
    return tf.data.Dataset.from_tensor_slices(images(n))


def pairs(n=256):
    return tf.data.Dataset.from_tensor_slices((images(n), np.arange(n) % 10))


BAD_INPUTS = {
    "a list": [1, 2, 3],
    "None": None,
    "a string": "ds.batch(32)",
    "an endless dataset": lambda: source().repeat().batch(32).map(lambda x: tf.reverse(x, [2])),
    "a dataset that never yields": lambda: tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0),
    "a dataset of strings": lambda: tf.data.Dataset.from_tensor_slices(["a", "b"]).batch(2).map(tf.strings.upper),
    "a map that raises": lambda: source().batch(32).map(lambda x: tf.py_function(boom, [x], tf.uint8)),
}


@pytest.mark.parametrize("q", [ex.q1, ex.q2, ex.q3], ids=["q1", "q2", "q3"])
@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_gets_a_message(q, name, short_deadline):
    value = BAD_INPUTS[name]
    refused(q, value() if callable(value) else value)


def test_a_pipeline_that_stalls_while_read_stops_at_the_deadline(short_deadline):
    # every stage the checker looks for is in place, but after 8 batches the input waits forever
    # (an endless random source filtered to nothing): the read gives up at the deadline with a sentence.
    never = tf.data.Dataset.random(seed=0).filter(lambda v: v < 0).map(lambda v: tf.zeros([32, 28, 28], tf.uint8))
    stalled = source().batch(32).concatenate(never).map(lambda x: tf.reverse(x, [2]))
    result = refused(ex.q1, stalled, "produced only 8 elements", "filter()")
    assert "1 s" in result.message


# --------------------------------------------------------------------------- q1
def test_q1_other_right_answers():
    passes(ex.q1, source().batch(32).map(lambda x: tf.reverse(x, axis=[2])))
    passes(ex.q1, source().batch(32).map(lambda x: x[:, :, ::-1]))
    passes(ex.q1, source().batch(32).map(lambda x: tf.image.flip_left_right(x[..., None])[..., 0]))
    passes(ex.q1, source().batch(32, drop_remainder=True).map(lambda x: tf.reverse(x, [-1]),
                                                              num_parallel_calls=tf.data.AUTOTUNE).prefetch(1))


def test_q1_typical_mistakes_name_the_fault():
    refused(ex.q1, source().map(ex.mirror).batch(32), "map before batch", "once per image")
    refused(ex.q1, source().batch(32).map(lambda x: tf.reverse(x, axis=[1])), "batch 0, image 0", "axis 2")
    refused(ex.q1, source().batch(32).map(lambda x: x), "not mirrored")
    refused(ex.q1, source().map(ex.mirror), "no batch()")
    refused(ex.q1, source().batch(32), "no map()")
    refused(ex.q1, source().batch(16).map(lambda x: tf.reverse(x, axis=[2])), "batch(32)", "batch(16)")
    refused(ex.q1, source().shuffle(256, seed=0).batch(32).map(lambda x: tf.reverse(x, [2])), "shuffle() out")
    refused(ex.q1, source(100).batch(32).map(lambda x: tf.reverse(x, [2])), "images[:256]", "100")


def test_q1_no_map_is_not_blamed_on_map_placement():
    result = refused(ex.q1, source().batch(32), "no map()")
    assert "before batch" not in result.message


# --------------------------------------------------------------------------- q2
def small():
    return tf.data.Dataset.from_tensor_slices(images(64))


def test_q2_other_right_answers():
    passes(ex.q2, small().cache().map(ex.random_rotate).batch(16))
    passes(ex.q2, small().cache().map(ex.random_rotate, num_parallel_calls=tf.data.AUTOTUNE).batch(16).prefetch(2))
    passes(ex.q2, small().map(lambda x: x + 0).cache().map(lambda x: ex.random_rotate(x)).batch(16))
    passes(ex.q2, small().cache().shuffle(64, seed=0).map(ex.random_rotate).batch(16))


def test_q2_typical_mistakes_name_the_fault():
    refused(ex.q2, ex.broken_cache_pipeline(images(64)), "after the random rotation", "Move cache() before")
    refused(ex.q2, small().cache().batch(16), "no random rotation")  # the augmentation was dropped
    refused(ex.q2, small().map(ex.random_rotate).batch(16), "cache() is gone")
    refused(ex.q2, small().map(ex.random_rotate).batch(16).cache(), "after the random rotation")
    refused(ex.q2, small().map(ex.random_rotate).cache().shuffle(64, seed=0).batch(16), "after the random rotation")
    refused(ex.q2, small().cache().batch(16).map(ex.random_rotate), "ONE image", "Map before batch")
    refused(ex.q2, small().cache().map(ex.random_rotate).batch(32), "batch(16)", "batch(32)")
    refused(ex.q2, small().cache().map(ex.random_rotate), "no batch()")
    refused(ex.q2, small().cache().map(ex.random_rotate).batch(16).repeat(), "repeat() out")
    refused(ex.q2, small().take(32).cache().map(ex.random_rotate).batch(16), "64", "32")


def test_q2_a_dropped_augmentation_is_not_called_frozen():
    result = refused(ex.q2, small().cache().batch(16), "no random rotation")
    assert "Move cache() before" not in result.message


# --------------------------------------------------------------------------- q3
def test_q3_other_right_answers():
    passes(ex.q3, pairs().shuffle(256, seed=0).batch(32).map(ex.rotate_batch))
    passes(ex.q3, pairs().shuffle(1000).batch(32).map(ex.rotate_batch, num_parallel_calls=tf.data.AUTOTUNE))
    passes(ex.q3, pairs().shuffle(256, seed=1, reshuffle_each_iteration=False).batch(32, drop_remainder=True)
           .map(lambda x, y: ex.rotate_batch(x, y)).prefetch(tf.data.AUTOTUNE))
    passes(ex.q3, pairs().cache().shuffle(256, seed=0).batch(32).map(ex.rotate_batch))


def test_q3_typical_mistakes_name_the_fault():
    refused(ex.q3, pairs().batch(32).shuffle(8, seed=0).map(ex.rotate_batch), "shuffles whole batches")
    refused(ex.q3, pairs().batch(32).map(ex.rotate_batch), "no shuffle")
    refused(ex.q3, pairs().shuffle(2, seed=0).batch(32).map(ex.rotate_batch), "shuffle(2)", "shuffle(256)")
    refused(ex.q3, pairs().shuffle(64, seed=0).batch(32).map(ex.rotate_batch), "shuffle(64)", "lesson 03")
    refused(ex.q3, pairs().shuffle(256, seed=0).batch(32), "no map(ex.rotate_batch)")
    refused(ex.q3, pairs().shuffle(256, seed=0).batch(64).map(ex.rotate_batch), "batch(32)", "batch(64)")
    refused(ex.q3, pairs().shuffle(256, seed=0).repeat(2).batch(32).map(ex.rotate_batch), "repeat() out")
    refused(ex.q3, source().shuffle(256, seed=0).batch(32).map(ex.rotate_batch), "(images [batch, 28, 28], labels [batch])")
    refused(ex.q3, pairs(100).shuffle(100, seed=0).batch(32).map(ex.rotate_batch), "images[:256]")
    with pytest.raises(ValueError, match="batch must come before"):
        pairs().shuffle(256).map(ex.rotate_batch)  # the per-image placement fails where the learner writes it


def test_q3_transform_is_vectorized_and_keeps_labels():
    x, y = ex.rotate_batch(tf.constant(images(8)), tf.range(8))
    assert x.shape == (8, 28, 28) and y.numpy().tolist() == list(range(8))
    assert not np.array_equal(x.numpy(), images(8))
