"""The rotation paths of lesson 05 agree with each other, with rot90 and with tfa."""
import math

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import augment, rotation
from tutor.augment.rotation import rotate, rotate_all, rotation_angles, rotation_dataset


def blobs(n=24, size=28, seed=0):
    """Asymmetric test images (a bar and a dot), so any wrong turn or flip shows."""
    rng = np.random.default_rng(seed)
    imgs = np.zeros((n, size, size), np.uint8)
    for k in range(n):
        r, c = rng.integers(4, size - 8, 2)
        imgs[k, r : r + 3, c : c + 8] = 200 + k
        imgs[k, size - 5, 3] = 255
    return imgs


def test_angles_are_seeded_and_in_range():
    a = rotation_angles(500, 30, seed=3)
    assert np.array_equal(a, rotation_angles(500, 30, seed=3))
    assert not np.array_equal(a, rotation_angles(500, 30, seed=4))
    assert np.all(np.abs(a) <= math.radians(30) + 1e-6)
    assert np.abs(a).max() > math.radians(25)  # really spread over the range
    lo, hi = rotation_angles(200, (10, 20)).min(), rotation_angles(200, (10, 20)).max()
    assert math.radians(10) - 1e-6 <= lo and hi <= math.radians(20) + 1e-6


def test_per_element_and_batched_give_identical_pixels():
    imgs = blobs(40)
    angles = rotation_angles(40, 45, seed=1)
    per_element = rotate_all(imgs, angles, "tf", batch_size=16)
    batched = rotate_all(imgs, angles, "tf-batched", batch_size=16)
    assert per_element.shape == (40, 28, 28, 1)
    assert np.array_equal(per_element, batched)
    assert not np.array_equal(per_element[..., 0], imgs)  # something did rotate


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_quarter_turn_equals_rot90(interpolation):
    imgs = blobs(6)[..., None]
    turned = rotate(imgs, np.full(6, math.pi / 2, np.float32), interpolation=interpolation).numpy()
    expected = tf.image.rot90(imgs, k=1).numpy()  # counterclockwise, like rotate
    if interpolation == "nearest":
        assert np.array_equal(turned, expected)
    else:  # bilinear lands within float rounding of the grid points
        assert np.abs(turned.astype(int) - expected.astype(int)).max() <= 1
    assert not np.array_equal(turned, tf.image.rot90(imgs, k=3).numpy())  # not clockwise


def test_rotate_accepts_hw_hwc_and_batches():
    img = blobs(1)[0]
    a = 0.3
    hw = rotate(img, a).numpy()
    hwc = rotate(img[..., None], a).numpy()
    batch = rotate(img[None, ..., None], [a]).numpy()
    assert hw.shape == (28, 28) and hwc.shape == (28, 28, 1) and batch.shape == (1, 28, 28, 1)
    assert np.array_equal(hw, hwc[..., 0]) and np.array_equal(hw, batch[0, ..., 0])
    assert np.array_equal(rotate(img, 0.0).numpy(), img)


def test_scipy_path_looks_like_the_tf_path():
    imgs = blobs(12)
    angles = rotation_angles(12, 30, seed=2)
    sc = rotate_all(imgs, angles, "scipy").astype(float)
    tfp = rotate_all(imgs, angles, "tf").astype(float)
    # same direction and centre: far closer to each other than to the unrotated or mirrored-angle images
    assert np.abs(sc - tfp).mean() < 0.5 * np.abs(sc - rotate_all(imgs, -angles, "tf")).mean()
    assert rotation.rotate_scipy(np.eye(3), math.pi / 2, interpolation="nearest").tolist() == np.rot90(np.eye(3)).tolist()


def test_py_function_output_shape_is_restored():
    ds = rotation_dataset(blobs(4), rotation_angles(4), "scipy", batch_size=2)
    assert ds.element_spec.shape.as_list() == [None, 28, 28, 1]
    raw = tf.data.Dataset.from_tensor_slices(blobs(2)[..., None]).map(
        lambda x: tf.py_function(lambda v: v.numpy(), [x], Tout=tf.uint8)
    )
    assert raw.element_spec.shape.rank is None  # what ensure_shape repairs


def test_inside_map_is_symbolic_inside_py_function_is_eager():
    seen = []

    def spy(x):
        seen.append(("py", type(x).__name__, hasattr(x, "numpy") and tf.executing_eagerly()))
        return x

    def graph_fn(x):
        seen.append(("map", type(x).__name__, tf.executing_eagerly()))
        return tf.py_function(spy, [x], Tout=x.dtype)

    list(tf.data.Dataset.range(1).map(graph_fn))
    (where1, name1, eager1), (where2, name2, eager2) = seen
    assert (where1, eager1, where2, eager2) == ("map", False, "py", True)
    assert name2 == "EagerTensor" and name1 != "EagerTensor"


def test_bad_input_is_explained():
    with pytest.raises(ValueError, match="channel axis"):
        rotate(tf.zeros([2, 2, 2, 2, 2]), 0.1)
    with pytest.raises(ValueError, match="one angle per image"):
        rotation_dataset(blobs(3), [0.1], "tf")
    with pytest.raises(ValueError, match="path must be one of"):
        rotation_dataset(blobs(3), [0.1] * 3, "opencv")
    with pytest.raises(ValueError, match="interpolation"):
        rotate(blobs(1)[0], 0.1, interpolation="cubic")
    with pytest.raises(TypeError, match="degrees"):
        rotation_angles(3, "thirty")


def test_tfa_status_is_one_line_and_paths_match():
    line = rotation.tfa_status()
    assert "\n" not in line and line.startswith("tensorflow-addons")
    assert ("tfa" in rotation.available_paths()) == (rotation.import_tfa() is not None)


@pytest.mark.skipif(rotation.import_tfa() is None, reason="tensorflow-addons is not installed (only in tests/envs/legacy-requirements.txt)")
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_tfa_equals_core_op(interpolation):
    rng = np.random.default_rng(0)
    imgs = (rng.random((300, 28, 28)) * 255).astype(np.uint8)  # busy images: every pixel counts
    angles = rotation_angles(300, 30, seed=5)
    ours = rotate_all(imgs, angles, "tf", interpolation=interpolation).astype(int)
    theirs = rotate_all(imgs, angles, "tfa", interpolation=interpolation).astype(int)
    if interpolation == "nearest":
        assert np.array_equal(ours, theirs)
    else:
        # tfa builds the same 8 numbers in float32 and we round ours from float64: they differ in the last bit,
        # which can move a bilinear result across a rounding boundary. At most 1 grey level, very rarely.
        diff = np.abs(ours - theirs)
        assert diff.max() <= 1 and (diff > 0).mean() < 1e-3
    floats = imgs[..., None].astype(np.float32)
    batch = rotation.rotate_tfa(floats, angles, interpolation=interpolation).numpy()
    assert np.allclose(batch, rotate(floats, angles, interpolation=interpolation).numpy(), atol=0.01)


@pytest.mark.skipif(rotation.import_tfa() is not None, reason="tensorflow-addons is installed here")
def test_tfa_path_refuses_clearly_without_tfa():
    with pytest.raises(ImportError, match="legacy-requirements"):
        rotation_dataset(blobs(2), [0.1, 0.2], "tfa")


def test_pipelines_are_sequential_unless_asked():
    ds = rotation_dataset(blobs(4), rotation_angles(4), "tf", batch_size=2)
    assert ds.options().experimental_optimization.map_parallelization is False
    auto = rotation_dataset(blobs(4), rotation_angles(4), "tf", batch_size=2, auto_parallel=True)
    assert auto.options().experimental_optimization.map_parallelization is not False
    assert np.array_equal(np.concatenate(list(ds.as_numpy_iterator())), np.concatenate(list(auto.as_numpy_iterator())))


DIGITS = (tutor.data.digits(16, source="synthetic")[0][..., None], np.arange(16) % 10)


def test_rotate_slow_and_batch_keep_shapes():
    x, y = DIGITS
    ds = tf.data.Dataset.from_tensor_slices((x[:8], y[:8]))
    one = next(iter(ds.map(augment.rotate_slow)))[0]
    batch = next(iter(ds.batch(8).map(augment.rotate_batch)))[0]
    assert one.shape == (28, 28, 1) and batch.shape == (8, 28, 28, 1)
    assert one.dtype == tf.float32 and batch.dtype == tf.uint8  # the batched op keeps the input's dtype
    assert not np.array_equal(batch.numpy(), x[:8])  # rotated


def test_augmentation_differs_between_epochs_even_with_a_global_seed():
    x, y = DIGITS
    tf.random.set_seed(0)  # what keras.utils.set_random_seed does, among other things
    ds = tf.data.Dataset.from_tensor_slices((x[:8], y[:8])).batch(8).map(augment.rotate_batch)
    first, second = (next(iter(ds))[0].numpy() for _ in range(2))
    assert not np.array_equal(first, second)
    plain = tf.data.Dataset.from_tensor_slices(x[:8]).map(lambda im: tf.random.uniform([]))
    assert list(plain.as_numpy_iterator()) == list(plain.as_numpy_iterator())  # the pitfall it avoids


def test_the_three_paths_built_as_in_the_lesson_agree():
    """Lesson 05 builds its paths in the open: SciPy in py_function, rotate per image, rotate after batch."""
    from scipy import ndimage

    imgs = blobs(10)[..., None]
    angles = rotation_angles(10, 30, seed=0)
    options = tf.data.Options()
    options.experimental_optimization.map_parallelization = False
    pairs = tf.data.Dataset.from_tensor_slices((imgs, angles)).with_options(options)

    def rotate_a(image, angle):
        turned = tf.py_function(
            lambda i, a: ndimage.rotate(i.numpy(), np.degrees(a.numpy()), reshape=False, order=1, mode="constant", cval=0),
            [image, angle], Tout=image.dtype)
        return tf.ensure_shape(turned, image.shape)

    a = np.concatenate(list(pairs.map(rotate_a).batch(4).as_numpy_iterator())).astype(int)
    b = np.concatenate(list(pairs.map(rotate).batch(4).as_numpy_iterator())).astype(int)
    c = np.concatenate(list(pairs.batch(4).map(rotate).as_numpy_iterator())).astype(int)
    assert a.shape == b.shape == c.shape == (10, 28, 28, 1)
    assert np.array_equal(b, c)  # the same op per image or per batch: pixel-identical
    assert 0 < np.abs(a - b).mean() < 2  # SciPy differs only at the borders, by a fraction of a grey level
    assert pairs.map(rotate_a).batch(4).options().experimental_optimization.map_parallelization is False


def test_keras_random_rotation_factor_is_a_fraction_of_a_turn_and_uses_the_same_op():
    import keras

    imgs = blobs(3)[..., None].astype(np.float32)
    quarter = keras.layers.RandomRotation((0.25, 0.25), fill_mode="constant", interpolation="nearest", seed=0)
    assert np.array_equal(np.asarray(quarter(imgs)), tf.image.rot90(imgs, k=1).numpy())  # 0.25 turn = +90°
    layer = keras.layers.RandomRotation(30 / 360, fill_mode="constant", seed=0)
    graph = tf.function(lambda t: layer(t)).get_concrete_function(tf.TensorSpec([None, 28, 28, 1], tf.float32)).graph
    assert "ImageProjectiveTransformV3" in {op.type for op in graph.get_operations()}
    draws = [np.asarray(layer(imgs[:1])) for _ in range(3)]
    assert not np.array_equal(draws[0], draws[1])  # it draws its own angle every call


@pytest.mark.skipif(rotation.import_tfa() is None, reason="tensorflow-addons is not installed (only in tests/envs/legacy-requirements.txt)")
def test_tfa_rotate_is_a_thin_wrapper_over_the_core_op():
    tfa = rotation.import_tfa()
    graph = tf.function(lambda t, a: tfa.image.rotate(t, a)).get_concrete_function(
        tf.TensorSpec([None, 28, 28, 1], tf.float32), tf.TensorSpec([None], tf.float32)).graph
    assert "ImageProjectiveTransformV3" in {op.type for op in graph.get_operations()}


# ------------------------------------------------------------------ lesson 05: the GIL, shown by what happens
def test_watch_gil_sees_the_other_thread_run_during_scipy_and_stop_during_sorted():
    from scipy import ndimage

    image = np.random.default_rng(0).random((1024, 1024)).astype(np.float32)
    values = np.random.default_rng(0).random(300_000).tolist()
    scipy_watch = augment.watch_gil(lambda: ndimage.rotate(image, 17.0, reshape=False, order=1), repeats=5)
    sorted_watch = augment.watch_gil(lambda: sorted(values))
    # C code that keeps the GIL: the counter waits until sorted() returns, in one long pause (a busy machine can
    # only lengthen it)
    assert sorted_watch.longest_pause > 0.6 * sorted_watch.seconds
    # SciPy releases it: the counter ran inside the call, in many of its milliseconds. How long its pauses are is
    # up to the machine's scheduler (other programs take turns on the cores), so that is not asserted.
    assert scipy_watch.slices >= 5 and scipy_watch.share > 3 * sorted_watch.share
    waiting = augment.watch_gil(lambda: __import__("time").sleep(0.1))
    assert waiting.share > 0 and waiting.longest_pause < waiting.seconds  # waiting releases it too: the counter ran


def test_watch_gil_bad_input():
    with pytest.raises(TypeError, match="function with no arguments"):
        augment.watch_gil(42)
    with pytest.raises(ValueError, match="repeats"):
        augment.watch_gil(lambda: None, repeats=0)


def test_map_and_batch_fusion_hides_the_parallel_map_until_it_is_switched_off():
    x = np.zeros((64, 28, 28, 1), np.uint8)
    angles = rotation_angles(64, 30, seed=0)
    source = tf.data.Dataset.from_tensor_slices((x, angles))
    one_at_a_time, apart = tf.data.Options(), tf.data.Options()
    one_at_a_time.experimental_optimization.map_parallelization = False
    apart.experimental_optimization.map_and_batch_fusion = False
    fused = tutor.profile(source.map(rotate).batch(16), steps=2).stages
    assert "MapAndBatch" in fused and "ParallelMapV2" not in fused  # one fused stage: the map is not seen
    assert "ParallelMapV2" in tutor.profile(source.map(rotate).batch(16).with_options(apart), steps=2).stages
    off = tutor.profile(source.with_options(one_at_a_time).map(rotate).batch(16).with_options(apart), steps=2).stages
    assert "Map" in off and "ParallelMapV2" not in off
