"""The facts lesson 12 (Training end to end) states, checked on real TensorFlow (and Keras).

Keras makes a new iterator for every epoch and cannot end an epoch of an endless dataset on its own;
batch().repeat() keeps a short batch per pass; a traced step gets its batch with IteratorGetNext; the lesson's
split never leaks; the JPEG pipeline crops anew each epoch; a model built with weights=None downloads nothing.
"""
import os

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import training

from .helpers import R, recording


# ----------------------------------------------------------------- model.fit on a pipeline: one new iterator per epoch
def test_fit_makes_a_new_iterator_for_every_epoch():
    seen = []
    training.small_cnn(filters=(2, 2)).fit(recording(R(6), seen).batch(2), epochs=3, verbose=0)
    assert seen == [0, 1, 2, 3, 4, 5] * 3  # every epoch starts the dataset again from the beginning


def test_fit_reshuffles_every_epoch_because_each_epoch_is_a_new_iterator():
    seen = []
    ds = recording(R(40).shuffle(40, seed=0), seen).batch(8)
    training.small_cnn(filters=(2, 2)).fit(ds, epochs=2, verbose=0)
    first, second = seen[:40], seen[40:]
    assert sorted(first) == sorted(second) == list(range(40)) and first != second


def test_model_evaluate_and_predict_take_datasets_and_predict_ignores_labels():
    x = np.random.default_rng(0).random((40, 28, 28, 1)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, np.arange(40) % 10)).batch(16)
    model = training.small_cnn(filters=(2, 2), seed=0)
    loss, accuracy = model.evaluate(ds, verbose=0)
    assert np.isfinite(loss) and 0.0 <= accuracy <= 1.0
    images_only = model.predict(ds.map(lambda a, b: a), verbose=0)
    assert images_only.shape == (40, 10)
    assert np.allclose(images_only, model.predict(ds, verbose=0))  # (images, labels): the labels are ignored
    with pytest.raises(ValueError):
        model.evaluate(ds.map(lambda a, b: a), verbose=0)  # evaluate needs the labels


# ------------------------------------------------------------------ steps_per_epoch and repeat()
def test_repeat_after_batch_keeps_a_short_batch_at_the_end_of_every_pass():
    sizes = [int(b.shape[0]) for b in R(2500).batch(64).repeat().take(82)]
    assert [k for k, n in enumerate(sizes, start=1) if n < 64] == [40, 80]
    assert sizes[39] == sizes[79] == 2500 - 39 * 64 == 4


def test_repeat_before_batch_gives_full_batches_across_the_epoch_boundary():
    batches = [b.tolist() for b in R(2500).repeat().batch(64).take(80).as_numpy_iterator()]
    assert all(len(b) == 64 for b in batches)
    crossing = batches[39]  # ids 2496..2499 of the first pass, then 0..59 of the second
    assert crossing[:4] == [2496, 2497, 2498, 2499] and crossing[4] == 0


def test_an_endless_dataset_never_ends_an_epoch_without_steps_per_epoch():
    import keras

    class StopAfter(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.steps, self.epochs_ended = 0, 0

        def on_train_batch_end(self, batch, logs=None):
            self.steps += 1
            if self.steps == 30:
                self.model.stop_training = True

        def on_epoch_end(self, epoch, logs=None):
            self.epochs_ended += 1

    x, y = np.zeros((32, 28, 28, 1), np.uint8), np.zeros(32, np.int64)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()  # 4 batches per pass, forever
    stop = StopAfter()
    training.small_cnn(filters=(2, 2)).fit(ds, epochs=5, verbose=0, callbacks=[stop])
    assert stop.steps == 30 and stop.epochs_ended == 1  # 30 steps (7.5 passes) were all in the first epoch


def test_steps_per_epoch_closes_the_epochs_of_an_endless_dataset():
    x, y = np.zeros((32, 28, 28, 1), np.uint8), np.zeros(32, np.int64)
    timer = training.StepTimer()
    history = training.small_cnn(filters=(2, 2)).fit(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat(), epochs=2, steps_per_epoch=5, verbose=0,
        callbacks=[timer])
    assert len(timer.step_seconds) == 10 and len(history.history["loss"]) == 2


# ------------------------------------------------------------------ input-bound or compute-bound?
def test_train_on_batch_traces_on_the_first_call_and_when_the_input_type_changes():
    """Why the first consumer step of each profiled run is long: Python in the model runs only while tracing."""
    import keras

    traces = []

    def note(t):
        traces.append(1)
        return t

    model = keras.Sequential([keras.Input((4,)), keras.layers.Lambda(note), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.zeros((8, 4), np.float32), np.zeros((8, 2), np.float32)
    built = len(traces)
    model.train_on_batch(x, y)
    model.train_on_batch(x, y)
    assert len(traces) == built + 1  # traced once, then reused
    model.train_on_batch(x.astype(np.float64), y)
    model.train_on_batch(x.astype(np.float64), y)
    assert len(traces) == built + 2  # a new input type: traced once more


def test_a_traced_step_gets_its_batch_with_the_iteratorgetnext_op():
    iterator = iter(R(8).batch(2))

    @tf.function
    def step(it):
        return next(it)

    ops = [op.type for op in step.get_concrete_function(iterator).graph.get_operations()]
    assert "IteratorGetNext" in ops


def test_without_auto_speedups_removes_the_injected_prefetch():
    plain = R(16).map(lambda x: tf.py_function(lambda v: v, [x], tf.int64))
    assert "Prefetch" in tutor.profile(plain, steps=8).stages  # inject_prefetch, on by default
    assert "Prefetch" not in tutor.profile(training.without_auto_speedups(plain), steps=8).stages


# ------------------------------------------------------------------ validation without leakage
def test_a_shuffles_order_depends_on_its_seed_and_size_not_on_the_elements():
    def rule(ds, n):
        return ds.shuffle(n, seed=0, reshuffle_each_iteration=False).skip(50).shuffle(n - 50, seed=1)

    positions = rule(R(300), 300)
    digits = rule(tf.data.Dataset.from_tensor_slices(np.arange(300) * 7 + 3), 300)
    for _ in range(2):  # two epochs, each a new order, the same for both
        assert [int(v) for v in positions] == [(int(v) - 3) // 7 for v in digits]
    first, second = [int(v) for v in positions.take(8)], [int(v) for v in positions.take(8)]
    assert first != second


def test_the_lessons_split_never_leaks_and_reshuffles_training():
    ds = tf.data.Dataset.from_tensor_slices({"id": tf.range(300, dtype=tf.int64)})
    fixed = ds.shuffle(300, seed=0, reshuffle_each_iteration=False)
    train = fixed.skip(50).shuffle(250, seed=1).batch(64).prefetch(2)
    val = fixed.take(50).batch(25)
    report = tutor.check_leakage(train, val)
    assert not report.leaked and not report.val_changed
    assert report.train_epochs[0] != report.train_epochs[1]  # a new training order every epoch
    assert sorted(report.train_epochs[0]) == sorted(report.train_epochs[1])  # the same training set


# ------------------------------------------------------------------ the file-based path: JPEG files to a model
def test_generator_seeded_stateless_crops_differ_between_epochs_after_a_global_seed():
    import keras

    keras.utils.set_random_seed(0)
    images = np.random.default_rng(0).integers(0, 255, (12, 16, 16, 3), dtype=np.uint8)
    crop_rng = tf.random.Generator.from_seed(0)

    def random_crop(image, label):
        seed = crop_rng.make_seeds(1)[:, 0]
        return tf.image.stateless_random_crop(image, (12, 12, 3), seed=seed), label

    ds = (tf.data.Dataset.from_tensor_slices((images, np.arange(12)))
          .cache().shuffle(12, seed=0).map(random_crop, num_parallel_calls=tf.data.AUTOTUNE).batch(4))
    epochs = [{int(i): c for x, y in ds for c, i in zip(x.numpy(), y.numpy())} for _ in range(2)]
    changed = [not np.array_equal(epochs[0][i], epochs[1][i]) for i in range(12)]
    assert sum(changed) >= 9  # 25 possible crops each: a few may repeat by chance, not most

    stateful = (tf.data.Dataset.from_tensor_slices((images, np.arange(12)))
                .map(lambda im, i: (tf.image.random_crop(im, (12, 12, 3)), i)))
    again = [[c.numpy() for c, _ in stateful] for _ in range(2)]
    assert all(np.array_equal(a, b) for a, b in zip(*again))  # the stateful op repeats its crops every epoch


def test_a_keras_application_built_with_weights_none_downloads_nothing():
    import keras

    cache = os.path.join(os.path.expanduser(os.environ.get("KERAS_HOME", "~/.keras")), "models")
    before = set(os.listdir(cache)) if os.path.isdir(cache) else set()
    mobilenet = keras.applications.MobileNetV2(weights=None, input_shape=(80, 80, 3), alpha=0.35, classes=10)
    after = set(os.listdir(cache)) if os.path.isdir(cache) else set()
    assert after == before  # no weight file was fetched
    assert mobilenet.output_shape == (None, 10)
