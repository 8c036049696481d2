"""The facts lessons 12 and 13 state, checked on real TensorFlow (and Keras).

Lesson 12: batch().repeat() keeps a short batch per pass; Keras makes a new iterator per epoch and cannot end an
epoch of an endless dataset on its own; the splitting rule; what TensorFlow parallelizes on its own; cache and
random augmentation. Lesson 13: the stale file cache, snapshot's fingerprint, save/load. (The service's own facts
are in test_service.py.)
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import augment, training

R = tf.data.Dataset.range


# ------------------------------------------------------------------ lesson 12: batch and repeat
def test_repeat_after_batch_keeps_a_short_batch_at_the_end_of_every_pass():
    sizes = [int(b.shape[0]) for b in R(2500).batch(64).repeat().take(82)]
    assert [k for k, n in enumerate(sizes, start=1) if n < 64] == [40, 80]
    assert sizes[39] == sizes[79] == 2500 - 39 * 64 == 4


def test_repeat_before_batch_gives_full_batches_across_the_epoch_boundary():
    batches = [b.tolist() for b in R(2500).repeat().batch(64).take(80).as_numpy_iterator()]
    assert all(len(b) == 64 for b in batches)
    crossing = batches[39]  # ids 2496..2499 of the first pass, then 0..59 of the second
    assert crossing[:4] == [2496, 2497, 2498, 2499] and crossing[4] == 0


def test_drop_remainder_leaves_out_a_different_few_each_epoch_when_the_data_reshuffles():
    ds = R(100).shuffle(100, seed=1).batch(32, drop_remainder=True)
    left_out = [set(range(100)) - {int(i) for b in ds for i in b} for _ in range(2)]
    assert [len(s) for s in left_out] == [4, 4] and left_out[0] != left_out[1]
    assert ds.element_spec.shape.as_list() == [32]


# ------------------------------------------------------------------ lesson 12: Keras and iterators
def _recording(ids: tf.data.Dataset, seen: list) -> tf.data.Dataset:
    """(image, label) pairs whose ids are noted, in the order the pipeline produces them."""
    def note(x):
        seen.append(int(x))
        return x

    images = tf.zeros([28, 28, 1], tf.uint8)
    return ids.map(lambda i: (images, tf.ensure_shape(tf.py_function(note, [i], tf.int64), []) % 10))


def test_fit_makes_a_new_iterator_for_every_epoch():
    seen = []
    training.small_cnn(filters=(2, 2)).fit(_recording(R(6), seen).batch(2), epochs=3, verbose=0)
    assert seen == [0, 1, 2, 3, 4, 5] * 3  # every epoch starts the dataset again from the beginning


def test_fit_reshuffles_every_epoch_because_each_epoch_is_a_new_iterator():
    seen = []
    ds = _recording(R(40).shuffle(40, seed=0), seen).batch(8)
    training.small_cnn(filters=(2, 2)).fit(ds, epochs=2, verbose=0)
    first, second = seen[:40], seen[40:]
    assert sorted(first) == sorted(second) == list(range(40)) and first != second


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


def test_with_steps_per_epoch_keras_keeps_one_iterator_across_epochs():
    """Lesson 05: only without steps_per_epoch is every epoch a new pass (a new iterator)."""
    seen = []
    training.small_cnn(filters=(2, 2)).fit(_recording(R(6), seen).batch(1), epochs=2, steps_per_epoch=3, verbose=0)
    assert seen == [0, 1, 2, 3, 4, 5]  # epoch 2 went on where epoch 1 stopped


def test_a_repeat_inside_one_iterator_does_not_restart_a_seeded_random_op():
    tf.random.set_seed(0)
    draws = R(3).map(lambda i: tf.random.uniform([]))
    one_pass = [float(v) for v in draws]
    repeated = [float(v) for v in draws.repeat(2)]
    assert repeated[:3] == one_pass and repeated[3:] != one_pass  # the second pass of repeat moved on
    assert [float(v) for v in draws.repeat(2)] == repeated  # a new iterator starts it all again


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


def test_a_traced_step_gets_its_batch_with_the_iteratorgetnext_op():
    iterator = iter(R(8).batch(2))

    @tf.function
    def step(it):
        return next(it)

    ops = [op.type for op in step.get_concrete_function(iterator).graph.get_operations()]
    assert "IteratorGetNext" in ops


# ------------------------------------------------------------------ lesson 12: the splitting rule
def test_a_shuffles_order_depends_on_its_seed_and_size_not_on_the_elements():
    def rule(ds, n):
        return ds.shuffle(n, seed=0, reshuffle_each_iteration=False).skip(50).shuffle(n - 50, seed=1)

    positions = rule(R(300), 300)
    digits = rule(tf.data.Dataset.from_tensor_slices(np.arange(300) * 7 + 3), 300)
    for _ in range(2):  # two epochs, each a new order, the same for both
        assert [int(v) for v in positions] == [(int(v) - 3) // 7 for v in digits]
    first, second = [int(v) for v in positions.take(8)], [int(v) for v in positions.take(8)]
    assert first != second


# ------------------------------------------------------------------ lesson 12: the JPEG pipeline crops anew each epoch
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


def test_the_lessons_split_never_leaks_and_reshuffles_training():
    ds = tf.data.Dataset.from_tensor_slices({"id": tf.range(300, dtype=tf.int64)})
    fixed = ds.shuffle(300, seed=0, reshuffle_each_iteration=False)
    train = fixed.skip(50).shuffle(250, seed=1).batch(64).prefetch(2)
    val = fixed.take(50).batch(25)
    report = tutor.check_leakage(train, val)
    assert not report.leaked and not report.val_changed
    assert report.train_epochs[0] != report.train_epochs[1]  # a new training order every epoch
    assert sorted(report.train_epochs[0]) == sorted(report.train_epochs[1])  # the same training set


def test_the_splitting_rule_is_random_whatever_the_source_order():
    ordered = R(1000)  # sorted, like a file sorted by class
    fixed = ordered.shuffle(1000, seed=0, reshuffle_each_iteration=False)
    val = [int(v) for v in fixed.take(100)]
    assert max(val) > 900 and min(val) < 100  # not a slice of the sorted source
    assert [int(v) for v in ordered.take(100)] == list(range(100))  # what splitting the raw source would give


# ------------------------------------------------------------------ lesson 12: what TensorFlow speeds up on its own
def test_map_parallelization_rewrites_a_stateless_map_but_never_a_py_function_map():
    stateless = tutor.profile(R(16).map(lambda x: x * 2), steps=8)
    python = tutor.profile(R(16).map(lambda x: tf.py_function(lambda v: v * 2, [x], tf.int64)), steps=8)
    assert "ParallelMapV2" in stateless.stages
    assert "Map" in python.stages and "ParallelMapV2" not in python.stages


def test_without_auto_speedups_removes_the_injected_prefetch():
    plain = R(16).map(lambda x: tf.py_function(lambda v: v, [x], tf.int64))
    assert "Prefetch" in tutor.profile(plain, steps=8).stages  # inject_prefetch, on by default
    assert "Prefetch" not in tutor.profile(training.without_auto_speedups(plain), steps=8).stages


# ------------------------------------------------------------------ lesson 12: cache and random augmentation
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


def test_a_seeded_random_op_restarts_per_iterator_and_a_generator_moves_on():
    tf.random.set_seed(0)
    plain = R(4).map(lambda i: tf.random.uniform([]))
    assert [float(v) for v in plain] == [float(v) for v in plain]
    generator = tf.random.Generator.from_seed(0)
    moving = R(4).map(lambda i: generator.uniform([]))
    assert [float(v) for v in moving] != [float(v) for v in moving]


# ------------------------------------------------------------------ lesson 13: files that outlive the run
def test_a_file_cache_serves_stale_data_to_a_changed_pipeline_until_deleted(tmp_path):
    path = str(tmp_path / "preprocessed")
    old = R(5).map(lambda x: x * 1).cache(path)
    assert [int(v) for v in old] == [0, 1, 2, 3, 4]
    fixed = R(5).map(lambda x: x * 10).cache(path)
    assert [int(v) for v in fixed] == [0, 1, 2, 3, 4]  # the first pass of the changed pipeline reads the old files
    for name in tf.io.gfile.glob(path + ".*"):
        tf.io.gfile.remove(name)
    assert [int(v) for v in fixed] == [0, 10, 20, 30, 40]


def test_a_file_cache_persists_across_runs(tmp_path):
    """Another Python process (a new run) writes the cache; this one, with a changed pipeline, reads it."""
    path = str(tmp_path / "cache")
    program = textwrap.dedent(f"""
        import os
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        import tensorflow as tf
        list(tf.data.Dataset.range(3).map(lambda x: x + 100).cache({path!r}))
    """)
    subprocess.run([sys.executable, "-c", program], check=True, timeout=300, capture_output=True)
    assert any(name.startswith("cache.") for name in os.listdir(tmp_path))
    assert [int(v) for v in R(3).cache(path)] == [100, 101, 102]


def test_a_partly_read_file_cache_is_not_kept(tmp_path):
    path = str(tmp_path / "partial")
    iterator = iter(R(5).cache(path))
    next(iterator)
    del iterator
    assert [int(v) for v in R(5).map(lambda x: x + 1).cache(path)] == [1, 2, 3, 4, 5]


def test_snapshot_writes_a_new_snapshot_for_a_changed_pipeline(tmp_path):
    path = str(tmp_path / "snap")
    assert [int(v) for v in R(5).map(lambda x: x * 1).snapshot(path)] == [0, 1, 2, 3, 4]
    assert [int(v) for v in R(5).map(lambda x: x * 10).snapshot(path)] == [0, 10, 20, 30, 40]
    assert len(os.listdir(path)) == 2  # one folder per pipeline fingerprint


def test_snapshot_reads_instead_of_recomputing_on_later_passes(tmp_path):
    calls = []

    def count(x):
        calls.append(1)
        return x

    snapped = R(6).map(lambda x: tf.py_function(count, [x], tf.int64)).snapshot(str(tmp_path / "s"))
    assert [int(v) for v in snapped] == [int(v) for v in snapped] == list(range(6))
    assert len(calls) == 6


def test_load_reads_what_was_saved_until_you_save_again(tmp_path):
    path = str(tmp_path / "saved")
    R(4).map(lambda x: x * 1).save(path)
    R(4).map(lambda x: x * 10)  # a changed pipeline, not saved
    assert [int(v) for v in tf.data.Dataset.load(path)] == [0, 1, 2, 3]
    R(4).map(lambda x: x * 10).save(path)
    assert [int(v) for v in tf.data.Dataset.load(path)] == [0, 10, 20, 30]


@pytest.mark.parametrize("name", ["load", "snapshot"])
def test_the_loaded_pipeline_holds_no_map(tmp_path, name):
    work = R(4).map(lambda x: x * x)
    if name == "load":
        work.save(str(tmp_path / "s"))
        stages = tutor.doctor.read_pipeline(tf.data.Dataset.load(str(tmp_path / "s")))
        assert [s.kind for s in stages] == ["source"] and stages[0].op == "LoadDataset"
    else:
        stages = tutor.doctor.read_pipeline(work.snapshot(str(tmp_path / "t")))
        assert "snapshot" in [s.kind for s in stages] and "map" in [s.kind for s in stages]


def test_a_keras_application_built_with_weights_none_downloads_nothing():
    import keras

    cache = os.path.join(os.path.expanduser(os.environ.get("KERAS_HOME", "~/.keras")), "models")
    before = set(os.listdir(cache)) if os.path.isdir(cache) else set()
    mobilenet = keras.applications.MobileNetV2(weights=None, input_shape=(80, 80, 3), alpha=0.35, classes=10)
    after = set(os.listdir(cache)) if os.path.isdir(cache) else set()
    assert after == before  # no weight file was fetched
    assert mobilenet.output_shape == (None, 10)
