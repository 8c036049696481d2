"""The facts lesson 14 (tf.data outside TensorFlow) states, on the real libraries: Grain's order and state,
tf.data's checkpoint, Keras on JAX, the Displays.

Facts that need ``KERAS_BACKEND=jax`` run in a child process (one for all of them): Keras picks its backend once,
at import.
"""
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import BatchOrderDisplay, ShuffleDisplay
from tutor.reading import is_grain_dataset


grain = pytest.importorskip("grain")


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository


def child(code: str, **env) -> str:
    """Run ``code`` in a fresh Python with extra environment variables; return its stdout (fail on an error)."""
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **env}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=ROOT, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


# ------------------------------------------------------------------ Grain's shuffle
def test_grain_shuffle_is_a_permutation_reproducible_by_seed():
    first = list(grain.MapDataset.range(100).shuffle(seed=0))
    assert sorted(first) == list(range(100)) and first != list(range(100))
    assert list(grain.MapDataset.range(100).shuffle(seed=0)) == first
    assert list(grain.MapDataset.range(100).shuffle(seed=1)) != first


def test_grain_shuffle_then_repeat_gives_every_epoch_its_own_permutation():
    order = list(grain.MapDataset.range(20).shuffle(seed=0).repeat(2))
    assert sorted(order[:20]) == sorted(order[20:]) == list(range(20))
    assert order[:20] != order[20:]
    assert list(grain.MapDataset.range(20).shuffle(seed=0).repeat(2)) == order  # and the same in every run


def test_grain_repeat_then_shuffle_mixes_the_epochs():
    order = list(grain.MapDataset.range(20).repeat(2).shuffle(seed=0))
    assert sorted(order) == sorted(list(range(20)) * 2)
    assert sorted(order[:20]) != list(range(20))


def test_any_id_can_come_first_in_grain_but_not_after_a_tf_data_buffer():
    firsts = {int(grain.MapDataset.range(50).shuffle(seed=s)[0]) for s in range(300)}
    assert firsts == set(range(50))
    tf_firsts = {int(next(iter(tf.data.Dataset.range(50).shuffle(10, seed=s)))) for s in range(100)}
    assert tf_firsts <= set(range(10))


def test_grain_displacement_is_not_bounded_like_a_buffer():
    grain_order = ShuffleDisplay.from_dataset(grain.MapDataset.range(100).shuffle(seed=0)).order
    tf_disp = ShuffleDisplay.from_dataset(tf.data.Dataset.range(100).shuffle(10, seed=0))
    assert tf_disp.stats["max_moved_earlier"] <= 9
    assert ShuffleDisplay(grain_order, n_elements=100).stats["max_moved_earlier"] > 9


# ------------------------------------------------------------------ resuming mid-epoch
def test_grain_iterator_restored_from_its_state_continues_with_the_same_elements():
    def pipeline():
        return grain.MapDataset.range(30).shuffle(seed=3).map(lambda x: x * 10).batch(4)

    it = iter(pipeline())
    for _ in range(3):
        next(it)
    state = it.get_state()
    rest = [b.tolist() for b in it]
    resumed = iter(pipeline())
    resumed.set_state(state)
    assert [b.tolist() for b in resumed] == rest
    assert state == {"next_index": 3}  # a few numbers: where to go on, not the data


def test_grain_iter_dataset_state_resumes_too():
    def pipeline():
        return grain.MapDataset.range(30).shuffle(seed=3).to_iter_dataset().batch(4)

    it = iter(pipeline())
    next(it), next(it)
    state = it.get_state()
    rest = [b.tolist() for b in it]
    resumed = iter(pipeline())
    resumed.set_state(state)
    assert [b.tolist() for b in resumed] == rest


def test_tf_data_iterator_restored_from_a_checkpoint_continues_with_the_same_elements(tmp_path):
    def pipeline():
        return tf.data.Dataset.range(30).shuffle(10, seed=3).batch(4)

    it = iter(pipeline())
    next(it), next(it)
    path = tf.train.Checkpoint(iterator=it).save(str(tmp_path / "ckpt"))
    rest = [b.numpy().tolist() for b in it]
    resumed = iter(pipeline())
    tf.train.Checkpoint(iterator=resumed).restore(path)
    assert [b.numpy().tolist() for b in resumed] == rest
    # The checkpoint holds the shuffle buffer's elements, so it grows with the buffer (lesson 11).
    small = tf.train.Checkpoint(iterator=iter(tf.data.Dataset.range(10**5).shuffle(10))).save(str(tmp_path / "s"))
    large_it = iter(tf.data.Dataset.range(10**5).shuffle(50_000))
    next(large_it)
    large = tf.train.Checkpoint(iterator=large_it).save(str(tmp_path / "l"))

    def size(prefix):
        return sum(os.path.getsize(os.path.join(tmp_path, f)) for f in os.listdir(tmp_path)
                   if f.startswith(os.path.basename(prefix) + "."))
    assert size(large) > size(small) + 50_000 * 8 // 2


# ------------------------------------------------------------------ the Displays read Grain
def test_displays_read_grain_map_and_iter_datasets():
    ds = grain.MapDataset.range(12).shuffle(seed=0)
    assert ShuffleDisplay.from_dataset(ds).order.tolist() == list(ds)
    batches = BatchOrderDisplay.from_dataset(ds.batch(5).to_iter_dataset())
    assert batches.batches == [b.tolist() for b in ds.batch(5)] and batches.batched
    flat = ShuffleDisplay.from_dataset(ds.batch(5))
    assert flat.order.tolist() == list(ds) and not flat.truncated
    assert not BatchOrderDisplay.from_dataset(grain.MapDataset.range(3)).batched


def test_empty_grain_dataset_and_non_datasets_get_the_same_sentences_as_tf_data():
    with pytest.raises(ValueError, match="empty"):
        ShuffleDisplay.from_dataset(grain.MapDataset.range(0))
    with pytest.raises(TypeError, match="expects a tf.data.Dataset, got list"):
        ShuffleDisplay.from_dataset([0, 1, 2])
    assert not is_grain_dataset(tf.data.Dataset.range(3)) and is_grain_dataset(grain.MapDataset.range(3))


# ------------------------------------------------------------------ tf.data feeding other libraries
def test_as_numpy_iterator_gives_numpy_arrays_that_jax_copies():
    jnp = pytest.importorskip("jax.numpy")
    import jax

    batch = next(tf.data.Dataset.range(8).batch(4).as_numpy_iterator())
    assert isinstance(batch, np.ndarray)
    on_device = jax.device_put(batch)
    assert isinstance(on_device, jax.Array) and jnp.array_equal(on_device, batch)


def test_a_tf_data_map_runs_in_tensorflow_threads_not_the_caller():
    names = []

    def record(x):
        names.append(threading.current_thread() is threading.main_thread())
        return x

    ds = tf.data.Dataset.range(4).map(lambda x: tf.py_function(record, [x], tf.int64))
    list(ds.as_numpy_iterator())
    assert names == [False] * 4


@pytest.fixture(scope="module")
def on_jax() -> dict:
    """What one fresh Python with ``KERAS_BACKEND=jax`` saw, set up as lesson 14 is: ``import tutor`` first.

    One child for all the JAX facts below: each child imports TensorFlow and JAX, which costs more CPU time
    than the facts themselves.
    """
    out = child("""
        import json, sys
        import tutor
        seen = {"grain loaded": "grain" in sys.modules, "keras loaded": "keras" in sys.modules}
        import numpy as np, tensorflow as tf, keras
        seen["backend"] = keras.backend.backend()

        images = tf.data.Dataset.from_tensor_slices(np.full((4, 8, 8, 1), 255, np.uint8))
        def with_keras_ops(image):
            return keras.ops.divide(keras.ops.cast(image, "float32"), 255.0)
        try:
            images.map(with_keras_ops)
            seen["keras.ops in a map"] = "worked"
        except NotImplementedError as exc:
            seen["keras.ops in a map"] = "NotImplementedError" + (": symbolic tf.Tensor" if "symbolic tf.Tensor" in str(exc) else "")
        def with_tf_ops(image):
            return tf.cast(image, tf.float32) / 255.0
        seen["tf ops"] = sorted({float(x.max()) for x in images.map(with_tf_ops).as_numpy_iterator()})
        rescale = keras.layers.Rescaling(1 / 255)
        seen["Rescaling"] = sorted({float(x.max()) for x in images.map(rescale).as_numpy_iterator()})
        flip = keras.layers.RandomFlip("horizontal", seed=0)
        seen["RandomFlip"] = [list(x.shape) for x in images.batch(2).map(flip).as_numpy_iterator()]

        from keras.src.trainers.data_adapters.tf_dataset_adapter import TFDatasetAdapter
        x = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, (x[:, 0] > 0).astype("int32"))).batch(16)
        batch = next(iter(TFDatasetAdapter(ds).get_jax_iterator()))
        seen["batch type"] = f"{type(batch[0]).__module__} {type(batch[0]).__name__}"
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
        model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        history = model.fit(ds, epochs=2, verbose=0)
        seen["fit"] = [keras.backend.backend(), len(history.history["loss"]), type(model.weights[0].value).__module__]
        print(json.dumps(seen))
    """, KERAS_BACKEND="jax")
    return json.loads(out.strip().splitlines()[-1])


def test_import_tutor_does_not_load_grain(on_jax):
    assert on_jax["grain loaded"] is False


def test_the_backend_is_read_when_tensorflow_first_imports_keras(on_jax):
    """The lesson's setup: importing TensorFlow (so tutor) imports Keras, so KERAS_BACKEND must be set before."""
    assert on_jax["keras loaded"] is True
    assert on_jax["backend"] == "jax"
    too_late = child("""
        import os, tutor
        os.environ["KERAS_BACKEND"] = "jax"
        import keras
        print(keras.backend.backend())
    """, KERAS_BACKEND="tensorflow")
    assert too_late.strip() == "tensorflow"


def test_import_tutor_works_without_grain():
    out = child("""
        import sys
        sys.modules['grain'] = None  # as if Grain were not installed: `import grain` raises ImportError
        import tutor, tensorflow as tf
        print(tutor.ShuffleDisplay.from_dataset(tf.data.Dataset.range(4)).order.tolist())
    """)
    assert out.strip() == "[0, 1, 2, 3]"


def test_keras_on_jax_keras_ops_in_a_map_fail_and_tf_ops_and_preprocessing_layers_work(on_jax):
    assert on_jax["keras.ops in a map"] == "NotImplementedError: symbolic tf.Tensor"
    assert on_jax["tf ops"] == on_jax["Rescaling"] == [1.0]
    assert on_jax["RandomFlip"] == [[2, 8, 8, 1], [2, 8, 8, 1]]


def test_keras_on_jax_fits_from_tf_data_and_sees_numpy_batches(on_jax):
    assert on_jax["batch type"] == "numpy ndarray"
    backend, epochs, weights_module = on_jax["fit"]
    assert (backend, epochs) == ("jax", 2) and weights_module.startswith("jax")


@pytest.mark.parametrize("prefetch", [False, True])
def test_without_prefetch_the_pipeline_waits_for_the_loop_with_prefetch_it_reads_ahead(prefetch):
    """The lesson's JAX loop: naive_options() keeps TensorFlow from adding a prefetch of its own."""
    import time

    made = []

    def note(x):
        made.append(int(x))
        return x

    ds = tf.data.Dataset.range(10).map(lambda x: tf.py_function(note, [x], tf.int64))
    ds = (ds.prefetch(1) if prefetch else ds).with_options(tutor.timeline.naive_options())
    it = iter(ds)
    next(it)
    if prefetch:
        deadline = time.monotonic() + 30
        while len(made) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(made) == 2  # the next element is made while the loop works on this one
    else:
        time.sleep(0.3)
        assert made == [0]  # nothing happens until the loop asks again


# ------------------------------------------------------------------ the lesson's pipelines: what their seeds are keyed by
def _position_keyed_shifts(seed=0, epochs=2, n=40):
    """The lesson's tf.data scheme: the shift's seed is the position in the shuffled stream (enumerate after
    shuffle). Returns, per epoch (one new iterator each, as model.fit makes), {digit id: shift}."""
    def shift(position, i):
        crop = tf.image.stateless_random_crop(tf.reshape(tf.range(64), [8, 8]), [4, 4], seed=tf.stack([position, 0]))
        return i, crop[0, 0]   # the top-left value says where the crop was taken

    ds = tf.data.Dataset.range(n).shuffle(n, seed=seed).enumerate().map(shift)
    return [{int(i): int(s) for i, s in ds.as_numpy_iterator()} for _ in range(epochs)]


def test_a_seed_keyed_by_position_gives_new_shifts_every_epoch_and_the_same_in_every_run():
    first, second = _position_keyed_shifts()
    assert sorted(first) == sorted(second) == list(range(40))
    assert sum(first[i] != second[i] for i in first) > 20   # most digits move to a new shift in epoch 2
    assert _position_keyed_shifts() == [first, second]      # and a new run repeats both epochs

    def by_id(i):   # keyed by the digit's id instead: the same shift in every epoch, a frozen augmentation
        crop = tf.image.stateless_random_crop(tf.reshape(tf.range(64), [8, 8]), [4, 4], seed=tf.stack([i, 0]))
        return i, crop[0, 0]

    frozen = tf.data.Dataset.range(40).shuffle(40, seed=0).map(by_id)
    epochs = [{int(i): int(s) for i, s in frozen.as_numpy_iterator()} for _ in range(2)]
    assert epochs[0] == epochs[1]


def test_grain_random_map_is_keyed_by_the_position_after_the_shuffle():
    def draw(i, rng):
        return int(i), int(rng.integers(0, 10**6))

    by_seed = {s: list(grain.MapDataset.range(20).shuffle(seed=s).random_map(draw, seed=0)) for s in (0, 1)}
    assert [d for _, d in by_seed[0]] == [d for _, d in by_seed[1]]   # the draws follow the positions ...
    assert [i for i, _ in by_seed[0]] != [i for i, _ in by_seed[1]]   # ... whichever ids land there
    again = list(grain.MapDataset.range(20).shuffle(seed=0).random_map(draw, seed=0))
    assert again == by_seed[0]
    two = list(grain.MapDataset.range(20).shuffle(seed=0).repeat(2).random_map(draw, seed=0))
    first, second = dict(two[:20]), dict(two[20:])
    assert sum(first[i] != second[i] for i in first) > 15   # epoch 2 draws anew for each id


def test_a_tf_data_buffer_as_large_as_the_indices_fills_the_square_as_grain_does():
    stats = ShuffleDisplay.from_dataset(tf.data.Dataset.range(2000).shuffle(2000, seed=0), max_elements=2000,
                                        buffer_size=2000).stats
    assert stats["max_moved_earlier"] > 1500 and abs(stats["rank_correlation"]) < 0.2


def test_a_checkpoint_holds_the_buffered_ids_and_grows_with_the_buffer(tmp_path):
    def kib(buffer_size):
        it = iter(tf.data.Dataset.range(2000).shuffle(buffer_size, seed=0))
        for _ in range(320):
            next(it)
        prefix = tf.train.Checkpoint(iterator=it).save(str(tmp_path / f"b{buffer_size}"))
        return sum(os.path.getsize(tmp_path / f) for f in os.listdir(tmp_path)
                   if f.startswith(os.path.basename(prefix) + ".")) / 1024

    small, large = kib(10), kib(500)
    assert large > small + 500 * 8 / 1024 * 5   # far more than 8 bytes for each buffered id


def test_grain_can_stream_a_tfrecord_file_and_shuffle_within_a_window(tmp_path):
    path = str(tmp_path / "records.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(6):
            writer.write(f"record {i}".encode())
    stream = grain.experimental.TFRecordIterDataset(path)
    assert isinstance(stream, grain.IterDataset) and not isinstance(stream, grain.MapDataset)
    assert list(stream) == [f"record {i}".encode() for i in range(6)]
    window = list(grain.experimental.WindowShuffleIterDataset(grain.MapDataset.range(12).to_iter_dataset(),
                                                              window_size=4, seed=0))
    assert window != list(range(12))
    assert all(sorted(window[k:k + 4]) == list(range(k, k + 4)) for k in range(0, 12, 4))   # within each window
