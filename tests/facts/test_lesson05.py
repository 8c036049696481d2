"""The facts lesson 05 (Augmentation) states, checked on real TensorFlow.

* a random map before cache() is frozen after the first epoch; after it, every epoch draws anew;
* a seeded stateful random op restarts with every new iterator (every Keras epoch too, unless steps_per_epoch
  keeps one iterator running; a repeat() inside the pipeline does not restart it); a Generator moves on;
  stateless ops give the same result for the same seed;
* SciPy's ndimage interpolation releases the GIL while it computes.
"""
import threading

import numpy as np
import tensorflow as tf

from tutor import augment, training
from tutor.bench import CallRecorder

from .helpers import R, recording


# ------------------------------------------------------------------ cache in the wrong place freezes the augmentation
def test_random_augmentation_before_cache_is_frozen_after_the_first_epoch():
    tf.random.set_seed(0)
    noisy = lambda x: tf.cast(x, tf.float32) + tf.random.uniform(())
    frozen = tf.data.Dataset.range(4).map(noisy).cache().repeat(2)
    values = np.array(list(frozen.as_numpy_iterator()))
    assert np.array_equal(values[:4], values[4:])
    fresh = tf.data.Dataset.range(4).cache().map(noisy).repeat(2)
    values = np.array(list(fresh.as_numpy_iterator()))
    assert not np.allclose(values[:4], values[4:])


def _image_sets(ds, epochs=2):
    return [{np.asarray(im, np.float32).tobytes() for x, _ in ds for im in x} for _ in range(epochs)]


def test_cache_before_the_random_rotation_keeps_it_fresh_and_after_it_freezes_it():
    x = np.random.default_rng(0).integers(0, 255, (64, 28, 28, 1), dtype=np.uint8)
    source = tf.data.Dataset.from_tensor_slices((x, np.zeros(64, np.int64)))
    fresh = source.cache().batch(16).map(augment.rotate_batch)
    frozen = source.batch(16).map(augment.rotate_batch).cache()
    a, b = _image_sets(fresh)
    assert not a & b  # every image rotated anew in epoch 2
    c, d = _image_sets(frozen)
    assert c == d  # epoch 2 replays epoch 1's rotations


# ------------------------------------- random numbers: what restarts with every iterator, what moves on, stateless ops
def test_a_seeded_stateful_op_restarts_with_every_iterator_a_generator_moves_on():
    tf.random.set_seed(0)
    seeded = tf.data.Dataset.range(4).map(lambda i: tf.random.uniform([]))
    assert list(seeded.as_numpy_iterator()) == list(seeded.as_numpy_iterator())
    op_seed_only = tf.data.Dataset.range(4).map(lambda i: tf.random.uniform([], seed=3))
    assert list(op_seed_only.as_numpy_iterator()) == list(op_seed_only.as_numpy_iterator())
    gen = tf.random.Generator.from_seed(0)
    moving = tf.data.Dataset.range(4).map(lambda i: gen.uniform([]))
    assert list(moving.as_numpy_iterator()) != list(moving.as_numpy_iterator())


def test_a_seeded_random_op_restarts_per_iterator_and_a_generator_moves_on():
    tf.random.set_seed(0)
    plain = R(4).map(lambda i: tf.random.uniform([]))
    assert [float(v) for v in plain] == [float(v) for v in plain]
    generator = tf.random.Generator.from_seed(0)
    moving = R(4).map(lambda i: generator.uniform([]))
    assert [float(v) for v in moving] != [float(v) for v in moving]


def test_a_repeat_inside_one_iterator_does_not_restart_a_seeded_random_op():
    tf.random.set_seed(0)
    draws = R(3).map(lambda i: tf.random.uniform([]))
    one_pass = [float(v) for v in draws]
    repeated = [float(v) for v in draws.repeat(2)]
    assert repeated[:3] == one_pass and repeated[3:] != one_pass  # the second pass of repeat moved on
    assert [float(v) for v in draws.repeat(2)] == repeated  # a new iterator starts it all again


def test_keras_fit_replays_a_seeded_random_map_in_every_epoch():
    import keras

    tf.random.set_seed(0)
    seen = CallRecorder(lambda u: u)
    values = []
    ds = (tf.data.Dataset.range(4).map(lambda i: tf.random.uniform([], seed=1))
          .map(lambda u: tf.py_function(lambda v: values.append(float(v)) or seen(v), [u], tf.float32))
          .map(lambda u: (tf.reshape(u, [1]), tf.reshape(u, [1]))).batch(2))
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(ds, epochs=2, verbose=0)
    assert len(values) == 8 and values[:4] == values[4:]  # epoch 2 drew the same "random" numbers


def test_with_steps_per_epoch_keras_keeps_one_iterator_across_epochs():
    """Lesson 05: only without steps_per_epoch is every epoch a new pass (a new iterator)."""
    seen = []
    training.small_cnn(filters=(2, 2)).fit(recording(R(6), seen).batch(1), epochs=2, steps_per_epoch=3, verbose=0)
    assert seen == [0, 1, 2, 3, 4, 5]  # epoch 2 went on where epoch 1 stopped


def test_stateless_ops_give_the_same_result_for_the_same_seed():
    x = tf.reshape(tf.range(28 * 28, dtype=tf.float32) / 784.0, [28, 28, 1])
    a = tf.image.stateless_random_brightness(x, 0.3, seed=[7, 1])
    b = tf.image.stateless_random_brightness(x, 0.3, seed=[7, 1])
    c = tf.image.stateless_random_brightness(x, 0.3, seed=[7, 2])
    assert np.array_equal(a.numpy(), b.numpy()) and not np.array_equal(a.numpy(), c.numpy())


# ------------------------------------------------------------------ under the hood: SciPy and the GIL
def steps_of_another_thread_during(fn) -> int:
    """How many loop steps another Python thread makes while ``fn()`` runs in this one.

    The switch interval is raised to 1 s, so this thread is never asked to hand over the GIL while ``fn`` runs:
    the other thread can only run if ``fn`` itself releases the GIL. It then keeps the GIL until the interval
    forces it back, so the count is huge; a function that holds the GIL all along gives exactly 0.
    """
    import sys

    counter = [0]
    go, done = threading.Event(), threading.Event()

    def other():
        go.wait()
        while not done.is_set():
            counter[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    thread = threading.Thread(target=other)
    thread.start()
    try:
        go.set()
        before = counter[0]
        fn()
        after = counter[0]
    finally:
        done.set()
        thread.join()
        sys.setswitchinterval(old)
    return after - before


def test_scipy_ndimage_rotate_releases_the_gil_while_it_interpolates():
    from scipy import ndimage

    image = np.random.default_rng(0).random((1500, 1500)).astype(np.float32)
    assert steps_of_another_thread_during(lambda: sum(range(2_000_000))) == 0  # control: C code holding the GIL
    assert steps_of_another_thread_during(lambda: ndimage.rotate(image, 17.0, reshape=False, order=1)) > 1000
