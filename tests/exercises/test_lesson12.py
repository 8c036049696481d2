"""Lesson 12 exercises: right answers pass, typical mistakes and bad input get a message that names the fault.

No verdict depends on time: the checks read structure, counts and images, so a busy machine cannot change them.
"""
import keras
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import augment
from tutor.checks import lesson12 as ex
from .checking import assert_refused, bad_inputs

R = tf.data.Dataset.range
S = tf.data.Dataset.from_tensor_slices
AUTOTUNE = tf.data.AUTOTUNE


# ------------------------------------------------------------------ q1
X, Y = ex.exercise_digits()


def digits():
    return S((X, Y))


def fixed(seed=0):
    return ex.id_dataset().shuffle(500, seed=seed, reshuffle_each_iteration=False)


def keras_rotation():
    layer = keras.layers.RandomRotation(0.08, seed=3)
    return lambda x, y: (layer(tf.cast(x, tf.float32), training=True), y)


CORRECT_Q1 = [
    digits().shuffle(1024).batch(64).map(augment.rotate_batch).prefetch(AUTOTUNE),
    digits().shuffle(1024, seed=5).batch(64, num_parallel_calls=AUTOTUNE)
    .map(augment.rotate_batch, num_parallel_calls=AUTOTUNE).prefetch(1),
    digits().cache().shuffle(2000).batch(64).map(lambda x, y: augment.rotate_batch(x, y, degrees=20),
                                                 num_parallel_calls=AUTOTUNE).prefetch(AUTOTUNE),
    digits().map(lambda x, y: (tf.cast(x, tf.float32), y)).cache().shuffle(1024).batch(64)
    .map(augment.rotate_batch).prefetch(2),
    digits().shuffle(1024).batch(64).map(keras_rotation()).prefetch(AUTOTUNE),
]


@pytest.mark.parametrize("answer", CORRECT_Q1, ids=range(len(CORRECT_Q1)))
def test_q1_other_right_answers_pass(answer):
    result = ex.q1.check(answer)
    assert result.passed, str(result)


MISTAKES_Q1 = [
    (ex.slow_pipeline(X, Y), "still runs Python"),
    (digits().shuffle(1024).map(augment.rotate_slow, num_parallel_calls=AUTOTUNE).batch(64).prefetch(1),
     "still runs Python"),
    (digits().shuffle(1024).batch(64).prefetch(AUTOTUNE), "the random rotation is missing"),
    (digits().batch(64).map(augment.rotate_batch).cache().shuffle(16).prefetch(1), "cache() comes after the rotation"),
    (digits().shuffle(1024).batch(64).map(lambda x, y: (augment.rotate(x, 0.3), y)).prefetch(1),
     "every epoch gets the same angles"),
    (digits().shuffle(1024).map(lambda x, y: (augment.random_rotate(x), y)).batch(64).prefetch(AUTOTUNE),
     "runs once per image, before batch"),
    (digits().batch(64).map(augment.rotate_batch).prefetch(1), "the examples are not shuffled"),
    (digits().batch(64).shuffle(16).map(augment.rotate_batch).prefetch(1), "shuffles whole batches"),
    (digits().shuffle(100).batch(64).map(augment.rotate_batch).prefetch(1), "shuffle(buffer_size=100)"),
    (digits().shuffle(1024, reshuffle_each_iteration=False).batch(64).map(augment.rotate_batch).prefetch(1),
     "reshuffle_each_iteration=False"),
    (digits().shuffle(1024).cache().batch(64).map(augment.rotate_batch).prefetch(1),
     "cache() after shuffle stores the first order"),
    (digits().shuffle(1024).batch(64).map(augment.rotate_batch), "end it with prefetch"),
    (digits().shuffle(1024).batch(32).map(augment.rotate_batch).prefetch(1), "use batches of 64"),
    (digits().shuffle(1024).batch(64).map(augment.rotate_batch).prefetch(1).repeat(), "never ends"),
    (digits().repeat(2).shuffle(1024).batch(64).map(augment.rotate_batch).prefetch(1), "2,048 images"),
    (digits().take(512).shuffle(1024).batch(64).map(augment.rotate_batch).prefetch(1), "512 images"),
    (S((X, (Y + 1) % 10)).shuffle(1024).batch(64).map(augment.rotate_batch).prefetch(1), "not those of"),
    (digits().shuffle(1024).map(augment.rotate_batch).prefetch(1), "not a batch: add batch(64)"),
    (S(X).batch(64), "expected a pair (images, labels)"),
    (S((X[..., 0], Y)).batch(64), "shape (None, 28, 28)"),
]


@pytest.mark.parametrize("answer, fragment", MISTAKES_Q1, ids=[m for _, m in MISTAKES_Q1])
def test_q1_mistakes_are_named(answer, fragment):
    assert_refused(ex.q1.check(answer), fragment)


def test_q1_the_shuffle_alone_does_not_fool_the_augmentation_probe():
    # two passes of this pipeline differ (the shuffle), yet no image was rotated
    no_rotation = digits().shuffle(1024).batch(64).map(lambda x, y: (tf.cast(x, tf.float32), y)).prefetch(1)
    assert_refused(ex.q1.check(no_rotation), "the random rotation is missing")


# ------------------------------------------------------------------ q2
CORRECT_Q2 = [
    (fixed().skip(100).shuffle(400), fixed().take(100)),
    (fixed(7).take(400).shuffle(400, seed=2), fixed(7).skip(400)),
    [fixed().skip(100).shuffle(400).batch(32).prefetch(1), fixed().take(100).batch(50)],
    (ex.id_dataset().shuffle(5000, seed=1, reshuffle_each_iteration=False).skip(100).shuffle(1000),
     ex.id_dataset().shuffle(5000, seed=1, reshuffle_each_iteration=False).take(100)),
    (fixed().skip(100).shuffle(400, reshuffle_each_iteration=True), fixed().take(100).shuffle(100)),
    # split another correct way, then shuffle the training part only
    "keras",
    "numpy",
    "enumerate",
]


def other_split(how):
    """A correct split made without take and skip: keras.utils.split_dataset, a NumPy permutation, enumerate/filter."""
    if how == "keras":
        import keras

        val, train = keras.utils.split_dataset(ex.id_dataset(), left_size=100, shuffle=True, seed=0)
        return train.shuffle(400), val
    if how == "numpy":
        images, labels = ex.exercise_digits(500)
        order = np.argsort(labels, kind="stable")
        columns = {"id": np.arange(500), "image": images[order], "label": labels[order]}
        perm = np.random.default_rng(0).permutation(500)
        part = [tf.data.Dataset.from_tensor_slices({k: v[idx] for k, v in columns.items()})
                for idx in (perm[100:], perm[:100])]
        return part[0].shuffle(400), part[1]
    numbered = fixed().enumerate()
    part = [numbered.filter(lambda i, e: (i >= 100) == keep).map(lambda i, e: e) for keep in (True, False)]
    return part[0].shuffle(400), part[1]


@pytest.mark.parametrize("answer", CORRECT_Q2, ids=range(len(CORRECT_Q2)))
def test_q2_other_right_answers_pass(answer):
    result = ex.q2.check(other_split(answer) if isinstance(answer, str) else answer)
    assert result.passed, str(result)


def reshuffling():
    return ex.id_dataset().shuffle(500, seed=0)


MISTAKES_Q2 = [
    ((reshuffling().skip(100), reshuffling().take(100)), "take() and skip() each make their own iterator"),
    ((ex.id_dataset().skip(100).shuffle(400), ex.id_dataset().take(100)), "sorted by label"),
    ((ex.id_dataset().take(400).shuffle(400), ex.id_dataset().skip(400)), "sorted by label"),
    ((fixed().take(100), fixed().skip(100).shuffle(400)), "the pair is swapped"),
    ((fixed().skip(100), fixed().take(100)), "same order in both epochs"),
    ((fixed().skip(100).shuffle(400, reshuffle_each_iteration=False), fixed().take(100)), "same order in both epochs"),
    ((ex.id_dataset().shuffle(50, seed=0, reshuffle_each_iteration=False).skip(100).shuffle(400),
      ex.id_dataset().shuffle(50, seed=0, reshuffle_each_iteration=False).take(100)), "buffer_size=50"),
    ((fixed().skip(150).shuffle(350), fixed().take(150)), "expected 400 and 100"),
    ((fixed().skip(100).shuffle(400), fixed().skip(300).take(100)), "are in train and in val"),
    ((fixed().skip(100).map(lambda e: e["image"]), fixed().take(100)), "keep the elements of id_dataset()"),
    ((fixed().skip(100).shuffle(400).repeat(), fixed().take(100)), "never ends"),
    ((fixed().skip(100).repeat(2).shuffle(800), fixed().take(100)), "800 elements"),
    ((ex.id_dataset().filter(lambda e: e["id"] % 5 != 0).shuffle(400),
      ex.id_dataset().filter(lambda e: e["id"] % 5 == 0)), "a regular slice"),
    ((fixed().skip(100).shuffle(400), ex.id_dataset().filter(lambda e: e["id"] % 5 == 0)), "leakage"),
    (fixed(), "got one dataset"),
    ((fixed(), fixed(), fixed()), "a tuple of 3"),
]


@pytest.mark.parametrize("answer, fragment", MISTAKES_Q2, ids=[m for _, m in MISTAKES_Q2])
def test_q2_mistakes_are_named(answer, fragment):
    assert_refused(ex.q2.check(answer), fragment)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("name, bad", bad_inputs()[3:], ids=[n for n, _ in bad_inputs()[3:]])
def test_a_bad_half_of_the_split_gets_a_sentence(name, bad, short_deadline):
    assert_refused(ex.q2.check((bad, fixed().take(100))))
    assert_refused(ex.q2.check((fixed().skip(100).shuffle(400), bad)))


def _failing(x):
    return tf.debugging.assert_less(tf.reduce_sum(tf.cast(x, tf.float32)), -1.0)


def test_q1_endless_silent_or_failing_answers_of_the_right_shape(short_deadline):
    good = digits().shuffle(1024).batch(64).map(augment.rotate_batch)
    assert_refused(ex.q1.check(good.repeat().prefetch(1)), "never ends")
    assert_refused(ex.q1.check(good.repeat().filter(lambda x, y: False).prefetch(1)), "produced no element")

    def fail_inside(x, y):
        with tf.control_dependencies([_failing(x)]):
            return tf.identity(x), y

    assert_refused(ex.q1.check(good.map(fail_inside).prefetch(1)), "map()", "assertion")


def test_q2_endless_silent_or_failing_answers_of_the_right_shape(short_deadline):
    val = fixed().take(100)
    silent = fixed().skip(100).repeat().filter(lambda e: e["id"] < 0)
    assert_refused(ex.q2.check((silent, val)), "produced no element")

    def fail_inside(e):
        with tf.control_dependencies([_failing(e["label"])]):
            return {k: tf.identity(v) for k, v in e.items()}

    assert_refused(ex.q2.check((fixed().skip(100).map(fail_inside), val)), "map()", "assertion")


def test_a_huge_answer_is_not_echoed_in_full():
    result = ex.q1.check("x" * 100_000)
    assert result.status == "not yet" and len(result.message) < 400
