"""AugmentationGridDisplay, stateless augmentation, pipeline stages and the timing chart."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

from tutor.augment import RotationTimingDisplay, rotation_grid, stateless_augment  # noqa: E402
from tutor.augment import AugmentationGridDisplay  # noqa: E402


def images(n=20, size=10):
    return (np.arange(n * size * size, dtype=np.int64).reshape(n, size, size) % 251).astype(np.uint8)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_from_dataset_holds_what_it_drew_and_titles_it():
    x = images()
    labels = np.arange(20) % 10
    disp = AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices((x, labels)), n=6, ncols=3)
    assert np.array_equal(disp.images, x[:6])
    assert disp.titles == [f"#{i} label {i}" for i in range(6)]
    disp.plot()
    assert [a.get_title() for a in disp.axes_] == disp.titles
    assert len(disp.ims_) == 6 and np.array_equal(disp.ims_[2].get_array(), x[2])
    assert disp.figure_._suptitle.get_text()


def test_from_dataset_reads_n_images_from_the_batches_in_order():
    x = images(20)[..., None]
    disp = AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(x).batch(4), n=16)
    assert disp.images.shape == (16, 10, 10, 1)  # 16 images from the first four batches
    assert np.array_equal(disp.images, x[:16])
    short = AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(x[:6]).batch(4), n=16)
    assert np.array_equal(short.images, x[:6])  # only 6 images exist
    grey_batches = tf.data.Dataset.from_tensor_slices((images(8), np.arange(8))).batch(3)  # ([B, H, W], [B])
    grid = AugmentationGridDisplay.from_dataset(grey_batches, n=5)
    assert np.array_equal(grid.images, images(8)[:5])
    assert grid.titles == [f"#{i} label {i}" for i in range(5)]


def test_rgb_and_float_images_are_drawn():
    rgb = np.random.default_rng(0).random((4, 6, 6, 3)).astype(np.float32)
    disp = AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(rgb), n=4).plot()
    assert disp.ims_[0].get_array().shape == (6, 6, 3)


def test_bad_input_gets_clear_errors():
    with pytest.raises(TypeError, match="decoded first"):
        AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(["a.jpg", "b.jpg"]))
    with pytest.raises(ValueError, match="HxW"):
        AugmentationGridDisplay.from_dataset(tf.data.Dataset.range(5))
    with pytest.raises(ValueError, match="HxW"):
        AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(np.zeros((2, 2, 3, 3, 3, 1))))
    with pytest.raises(ValueError, match="n must be >= 1"):
        AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(images()), n=0)
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        AugmentationGridDisplay.from_dataset(images())
    with pytest.raises(ValueError, match="empty"):
        AugmentationGridDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(images()).take(0))
    with pytest.raises(ValueError, match="batch of images"):
        AugmentationGridDisplay.from_function(tf.image.flip_left_right, np.zeros(5))
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        AugmentationGridDisplay.from_function(tf.image.flip_left_right, images(2), n_samples=0)
    with pytest.raises(ValueError, match="never ends"):
        AugmentationGridDisplay.from_epochs(tf.data.Dataset.from_tensor_slices(images()).repeat())


def test_from_function_stateless_draws_differ_and_repeat_with_the_seed():
    x = images(2)[..., None]
    a = AugmentationGridDisplay.from_function(stateless_augment, x, n_samples=5, seed=1)
    b = AugmentationGridDisplay.from_function(stateless_augment, x, n_samples=5, seed=1)
    c = AugmentationGridDisplay.from_function(stateless_augment, x, n_samples=5, seed=2)
    assert a.images.shape == (12, 10, 10, 1) and a.ncols == 6
    assert a.titles[:3] == ["original", "draw 1", "draw 2"]
    assert np.array_equal(a.images[0], x[0])
    assert np.array_equal(a.images, b.images) and not np.array_equal(a.images, c.images)
    draws = a.images[1:6]
    assert len({d.tobytes() for d in draws}) == 5  # each draw differs


def test_from_function_with_stateful_ops_uses_the_seed():
    fn = lambda x: x + tf.cast(tf.random.uniform([], 0, 50, tf.int32), x.dtype)  # noqa: E731
    a = AugmentationGridDisplay.from_function(fn, images(1), n_samples=4, seed=3)
    b = AugmentationGridDisplay.from_function(fn, images(1), n_samples=4, seed=3)
    assert np.array_equal(a.images, b.images)


def test_cache_after_a_random_map_freezes_the_draws():
    x = images(12).astype(np.float32)
    base = tf.data.Dataset.from_tensor_slices(x)
    rng = tf.random.Generator.from_seed(0)  # advances across iterators, unlike a seeded tf.random.uniform
    noisy = lambda v: v + rng.uniform(tf.shape(v))  # noqa: E731
    frozen = AugmentationGridDisplay.from_epochs(base.map(noisy).cache(), epochs=2, n=5)
    alive = AugmentationGridDisplay.from_epochs(base.cache().map(noisy), epochs=2, n=5)
    assert frozen.changed.tolist() == [False] * 5 and "frozen" in frozen.title
    assert alive.changed.tolist() == [True] * 5
    assert frozen.images.shape == (10, 10, 10) and frozen.titles[5] == "epoch 2, #0"
    assert np.array_equal(frozen.images[:5], frozen.images[5:])
    batched = AugmentationGridDisplay.from_epochs(base.map(noisy).batch(3).cache(), epochs=3, n=2)
    assert batched.images.shape == (6, 10, 10) and not batched.changed.any()


def test_replot_reuses_the_images_and_only_swaps_data():
    fig, axes = plt.subplots(2, 2)
    first = AugmentationGridDisplay(images(4), list("abcd"), ncols=2).plot(ax=axes)
    im0 = first.ims_[0]
    second = AugmentationGridDisplay(images(4)[::-1], list("wxyz"), ncols=2)
    changed = second.replot(first)  # the artists that changed: the pictures and their titles
    assert second.ims_[0] is im0 and im0 in changed
    assert np.array_equal(im0.get_array(), images(4)[3])
    assert [a.get_title() for a in axes.ravel()] == list("wxyz")
    with pytest.raises(ValueError, match="needs 4 axes"):
        first.plot(ax=axes.ravel()[:2])


def test_rotation_grid_titles_angles():
    disp = rotation_grid(images(4, 28), degrees=30, path="tf", seed=0)
    assert len(disp.titles) == 4 and all(t.endswith("°") for t in disp.titles)
    assert all(abs(int(t[:-1])) <= 30 for t in disp.titles)
    assert np.array_equal(disp.images, rotation_grid(images(4, 28), degrees=30, path="tf-batched", seed=0).images)


def test_one_axes_is_filled_with_a_grid_of_insets_and_keeps_what_was_there():
    fig, ax = plt.subplots()
    (line,) = ax.plot([0, 1], [0, 1])
    disp = AugmentationGridDisplay(images(6), list("abcdef"), ncols=3).plot(ax=ax)
    assert line in ax.lines and len(disp.axes_) == 6 and all(a.figure is fig for a in disp.axes_)


def test_rotation_timing_display_bars_and_ratios():
    disp = RotationTimingDisplay.from_images(images(64, 28), paths=("scipy", "tf", "tf-batched"), repeats=1)
    assert disp.paths == ["scipy", "tf", "tf-batched"] and disp.n_images == 64
    assert all(t.elements == 64 for t in disp.timings.values())
    assert set(disp.ratios) == {"scipy / tf", "tf / tf-batched"}
    assert disp.ratios["scipy / tf"] == pytest.approx(disp.seconds["scipy"] / disp.seconds["tf"])
    disp.plot()
    assert len(disp.bars_) == 3
    assert [b.get_width() for b in disp.bars_] == pytest.approx(list(disp.seconds.values()))
    # one pass each: too few for a verdict, so the labels give the plain factor
    assert f"{disp.ratio('scipy', 'tf'):.1f}x as fast as scipy" in disp.labels_[1].get_text()
    assert f"{disp.ratio('tf', 'tf-batched'):.1f}x as fast as tf" in disp.labels_[2].get_text()
    assert "images/s" in disp.summary()
    with pytest.raises(ValueError, match="paths"):
        RotationTimingDisplay.from_images(images(4, 28), paths=("cv2",))


def test_rotation_timing_verdicts_come_from_the_verdict_helper_and_the_given_times():
    from tutor.bench import Timing

    def timing(*times):
        return Timing(times, times[0], 100)

    disp = RotationTimingDisplay({"scipy": timing(0.60, 0.62, 0.64), "tf": timing(0.13, 0.14, 0.12),
                                  "tf-batched": timing(0.12, 0.15, 0.11)}, 100)
    assert disp.comparison("scipy", "tf").verdict == "faster"
    assert disp.comparison("tf", "tf-batched").verdict == "no clear difference"
    summary = disp.summary().splitlines()
    assert summary[-2].endswith("4.8x faster than scipy") and summary[-1].endswith("no clear difference from tf")
    disp.plot()
    assert "(4.8x faster than scipy)" in disp.labels_[1].get_text()
    assert "(no clear difference from tf)" in disp.labels_[2].get_text()
    slower = RotationTimingDisplay({"tf": timing(0.10, 0.11, 0.10), "tf-batched": timing(0.30, 0.31, 0.29)}, 100)
    assert slower.versus("tf", "tf-batched") == "3.0x slower than tf"
    plt.close("all")


def test_rotation_timing_display_times_pipelines_built_by_hand():
    x = images(64, 28)[..., None]
    ds = tf.data.Dataset.from_tensor_slices(x)
    disp = RotationTimingDisplay.from_pipelines({"tf": ds.batch(16), "tf-batched": ds.batch(32)}, repeats=1)
    assert disp.paths == ["tf", "tf-batched"] and disp.n_images == 64
    assert all(len(t.times) == 1 for t in disp.timings.values())
    assert set(disp.ratios) == {"tf / tf-batched"}
    with pytest.raises(ValueError, match="paths"):
        RotationTimingDisplay.from_pipelines({"opencv": ds})
    with pytest.raises(ValueError, match="different numbers of images"):
        RotationTimingDisplay.from_pipelines({"tf": ds, "tf-batched": ds.take(10)}, repeats=1)
    with pytest.raises(TypeError, match="dict"):
        RotationTimingDisplay.from_pipelines([ds])


def test_per_element_seeds_from_enumerate_and_epoch_repeat_and_differ():
    x = images(8)[..., None]

    def epoch(e):
        numbered = tf.data.Dataset.from_tensor_slices(x).enumerate()
        return np.stack(list(numbered.map(lambda i, img: stateless_augment(img, tf.stack([tf.cast(e, tf.int64), i])))
                             .as_numpy_iterator()))

    assert np.array_equal(epoch(0), epoch(0)) and not np.array_equal(epoch(0), epoch(1))


def test_a_seeded_stateful_op_restarts_with_every_new_iterator():
    tf.random.set_seed(0)
    seeded = tf.data.Dataset.range(4).map(lambda i: tf.random.uniform([]))
    assert list(seeded.as_numpy_iterator()) == list(seeded.as_numpy_iterator())
    rng = tf.random.Generator.from_seed(0)
    generator = tf.data.Dataset.range(4).map(lambda i: rng.uniform([]))
    assert list(generator.as_numpy_iterator()) != list(generator.as_numpy_iterator())
