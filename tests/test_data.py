"""Tests for tutor.data: offline digits, the MNIST switch and JPEG folders."""
import pickle
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tutor import data
import tutor.data.digit_images as source


@pytest.fixture
def offline(monkeypatch):
    """No cached MNIST and no network, whatever the machine running the tests has."""
    monkeypatch.delenv(data.ENV_VAR, raising=False)
    monkeypatch.setattr(source, "_mnist_cached", lambda: False)
    monkeypatch.setattr(source, "_online", lambda timeout=2.0: False)


# --- synthetic digits ----------------------------------------------------------

def test_shapes_dtypes_and_range():
    d = data.digits(200, source="synthetic")
    x, y = d
    assert x.shape == (200, 28, 28) and x.dtype == np.uint8
    assert y.shape == (200,) and y.dtype == np.int64
    assert d.images is x and d.labels is y and d.source == "synthetic"
    assert x.min() == 0 and x.max() == 255
    assert set(y.tolist()) <= set(range(10))
    assert repr(d) == "Digits(n=200, source='synthetic')"


def test_mnist_like_layout():
    x, _ = data.digits(500, source="synthetic")
    # Black border, bright strokes, centre of mass near the middle, ink ~10-25%.
    assert x[:, 0, :].mean() < 5 and x[:, :, 0].mean() < 5
    assert 0.08 < (x > 127).mean() < 0.25
    rows, cols = np.mgrid[:28, :28]
    mass = x.sum(axis=(1, 2)).astype(float)
    centre_row = (x * rows).sum(axis=(1, 2)) / mass
    centre_col = (x * cols).sum(axis=(1, 2)) / mass
    assert np.abs(centre_row - 13.5).max() < 3 and np.abs(centre_col - 13.5).max() < 3


def test_same_seed_same_digits_and_other_seed_differs():
    a_x, a_y = data.digits(100, source="synthetic", seed=3)
    source.synthetic_digits.cache_clear()  # really regenerate, not just read the cache
    b_x, b_y = data.digits(100, source="synthetic", seed=3)
    c_x, c_y = data.digits(100, source="synthetic", seed=4)
    np.testing.assert_array_equal(a_x, b_x)
    np.testing.assert_array_equal(a_y, b_y)
    assert not np.array_equal(a_x, c_x) and not np.array_equal(a_y, c_y)


@pytest.mark.parametrize("n", [10, 1000])
def test_all_ten_classes_present_and_balanced(n):
    _, y = data.digits(n, source="synthetic")
    counts = np.bincount(y, minlength=10)
    assert counts.min() == counts.max() == n // 10


def test_labels_match_what_is_drawn():
    # Class means from one seed classify another seed's digits far above chance.
    train_x, train_y = data.digits(2000, source="synthetic", seed=0)
    test_x, test_y = data.digits(500, source="synthetic", seed=1)
    means = np.stack([train_x[train_y == c].mean(axis=0).ravel() for c in range(10)])
    means -= means.mean(axis=1, keepdims=True)
    flat = test_x.reshape(len(test_x), -1).astype(float)
    flat -= flat.mean(axis=1, keepdims=True)
    predicted = np.argmax(flat @ means.T / np.linalg.norm(means, axis=1), axis=1)
    assert (predicted == test_y).mean() > 0.6  # chance is 0.1


def test_callers_cannot_corrupt_the_cache():
    x, y = data.digits(50, source="synthetic", seed=9)
    x[:] = 0
    y[:] = 0
    again_x, again_y = data.digits(50, source="synthetic", seed=9)
    assert again_x.max() == 255 and len(set(again_y.tolist())) == 10


def test_digits_pickles():
    d = data.digits(20, source="synthetic")
    back = pickle.loads(pickle.dumps(d))
    assert back.source == "synthetic" and np.array_equal(back.images, d.images)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(n=0), ValueError, "n must be >= 1"),
    (dict(n=-5), ValueError, "n must be >= 1"),
    (dict(n=2.5), TypeError, "n must be a whole number >= 1, got float"),
    (dict(n=True), TypeError, "n must be a whole number >= 1, got bool"),
    (dict(n=10, source="mnist"), ValueError, "source must be one of"),
    (dict(n=10, seed="0"), TypeError, "seed must be a whole number >= 0, got str"),
    (dict(n=10, seed=-1), ValueError, "seed must be >= 0"),
    (dict(n=70_001, source="keras"), ValueError, "n must be <= 70,000"),
])
def test_bad_input_says_what_was_expected(kwargs, error, message):
    with pytest.raises(error, match=message):
        data.digits(**kwargs)


# --- choosing the source -------------------------------------------------------

def test_environment_variable_picks_synthetic(monkeypatch):
    monkeypatch.setenv(data.ENV_VAR, "synthetic")
    monkeypatch.setattr(source, "_mnist", lambda n: pytest.fail("must not touch MNIST"))
    d = data.digits(30)
    assert d.source == "synthetic"
    assert data.describe_source(d) == (
        "Using 30 synthetic digits rendered offline from the fonts that matplotlib ships.")


def test_bad_environment_variable(monkeypatch):
    monkeypatch.setenv(data.ENV_VAR, "cifar")
    with pytest.raises(ValueError, match="TUTOR_DATA_SOURCE must be 'synthetic', 'synthetic-full' or 'keras'"):
        data.digits(10)


def test_full_size_offline_digits_stand_in_for_mnist(monkeypatch, tmp_path):
    """synthetic-full: 70,000 offline digits rendered once and kept in a file; digits(n) slices them as MNIST."""
    monkeypatch.setenv(data.ENV_VAR, "synthetic-full")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(source, "_mnist", lambda n: pytest.fail("must not touch MNIST"))
    source._full_size_digits.cache_clear()
    rendered = []
    real_render = source.synthetic_digits
    monkeypatch.setattr(source, "synthetic_digits", lambda n, seed: rendered.append(n) or real_render(n, seed))
    try:
        small, other_seed = data.digits(2000), data.digits(2000, seed=5)
        assert rendered == [data.MNIST_SIZE]  # all 70,000 once, whatever n and seed ask
        assert small.source == "synthetic" and not small.fallback and len(small.labels) == 2000
        np.testing.assert_array_equal(small.images, other_seed.images)  # the seed is ignored, as for MNIST
        stored = tmp_path / "datasets" / "tutor-digits-70000.npz"
        assert stored.is_file() and not list(stored.parent.glob("*.npz.*"))
        source._full_size_digits.cache_clear()
        everything = data.digits(data.MNIST_SIZE)  # a new kernel: read from the file, not rendered again
        assert rendered == [data.MNIST_SIZE]
        np.testing.assert_array_equal(everything.images[:2000], small.images)
        assert np.bincount(everything.labels, minlength=10).tolist() == [7000] * 10
    finally:
        source._full_size_digits.cache_clear()


def test_auto_falls_back_to_synthetic_offline(offline):
    d = data.digits(2000)
    assert d.source == "synthetic"
    assert data.describe_source(d) == ("Using 2,000 synthetic digits rendered offline from "
                                       "the fonts that matplotlib ships (MNIST was not available).")


def test_keras_offline_raises_and_suggests_synthetic(offline):
    with pytest.raises(RuntimeError, match="MNIST could not be loaded.*source='synthetic'"):
        data.digits(10, source="keras")


def test_keras_download_failure_raises_and_suggests_synthetic(monkeypatch):
    keras = pytest.importorskip("keras")

    def fail():
        raise OSError("URL fetch failure")

    monkeypatch.setattr(source, "_mnist_cached", lambda: True)
    monkeypatch.setattr(keras.datasets.mnist, "load_data", fail)
    source._load_mnist.cache_clear()
    with pytest.raises(RuntimeError, match="URL fetch failure.*source='synthetic'"):
        data.digits(10, source="keras")
    source._load_mnist.cache_clear()


def test_keras_source_uses_mnist_when_loadable(monkeypatch):
    keras = pytest.importorskip("keras")
    train = (np.full((5, 28, 28), 7, np.uint8), np.arange(5))
    test = (np.full((3, 28, 28), 9, np.uint8), np.arange(3))
    monkeypatch.setattr(source, "_mnist_cached", lambda: True)
    monkeypatch.setattr(keras.datasets.mnist, "load_data", lambda: (train, test))
    source._load_mnist.cache_clear()
    x, y = d = data.digits(7, source="keras")
    source._load_mnist.cache_clear()
    assert d.source == "keras" and x.shape == (7, 28, 28) and y.dtype == np.int64
    assert x[4, 0, 0] == 7 and x[5, 0, 0] == 9  # train set first, then test set
    assert data.describe_source(d) == "Using 7 MNIST digits from keras.datasets."


def test_network_check_says_offline_when_the_connection_fails(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("Network is unreachable")

    monkeypatch.setattr(socket, "create_connection", refuse)
    assert source._online(timeout=0.2) is False


class _LateAnswer:
    """A host that answers only when the test lets it (or, if the probe hangs on, after ``patience`` seconds)."""

    def __init__(self, patience=30.0):
        self.release = threading.Event()
        self.patience = patience

    def __call__(self, *args, **kwargs):
        self.release.wait(self.patience)
        return self  # a connection, which the probe closes

    def close(self):
        pass


def test_network_check_gives_up_after_its_timeout(monkeypatch):
    # The host answers, but only after the probe's own timeout has passed. A probe that waited for the
    # connection instead of its timeout would see the answer and say True.
    late = _LateAnswer()
    monkeypatch.setattr(socket, "create_connection", late)
    try:
        assert source._online(timeout=0.2) is False
    finally:
        late.release.set()


def test_describe_source_rejects_other_objects():
    with pytest.raises(TypeError, match="expects the Digits"):
        data.describe_source((np.zeros(1), np.zeros(1)))


# --- JPEG folders --------------------------------------------------------------

def test_jpeg_folder_writes_decodable_labelled_files(tmp_path):
    folder = tmp_path / "new" / "jpegs"  # created on the fly
    paths = data.jpeg_folder(folder, n=12, size=(64, 80))
    assert len(paths) == 12 and paths == sorted(paths)
    assert all(isinstance(p, str) for p in paths)
    assert sorted(Path(p).name for p in folder.iterdir()) == [Path(p).name for p in paths]
    assert Path(paths[3]).name.startswith("img_00003_label")

    image = Image.open(paths[0])
    assert image.format == "JPEG" and image.mode == "RGB" and image.size == (80, 64)

    tf = pytest.importorskip("tensorflow")
    decoded = tf.io.decode_jpeg(tf.io.read_file(paths[0]), channels=3)
    assert tuple(decoded.shape) == (64, 80, 3) and decoded.dtype == tf.uint8

    expected = [int(Path(p).stem[-1]) for p in paths]
    assert data.labels_from_paths(paths).tolist() == expected
    assert data.labels_from_paths([p.encode() for p in paths]).tolist() == expected
    assert data.labels_from_paths(np.array([Path(p) for p in paths])).dtype == np.int64


def test_jpeg_folder_is_deterministic(tmp_path):
    a = data.jpeg_folder(tmp_path / "a", n=5, seed=1)
    b = data.jpeg_folder(tmp_path / "b", n=5, seed=1)
    c = data.jpeg_folder(tmp_path / "c", n=5, seed=2)
    read = lambda paths: [Path(p).read_bytes() for p in paths]  # noqa: E731
    assert read(a) == read(b)
    assert read(a) != read(c)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(directory=None), TypeError, "directory must be a str or pathlib.Path"),
    (dict(n=0), ValueError, "n must be >= 1"),
    (dict(size=(10, 10)), ValueError, r"size must be a \(height, width\) pair"),
    (dict(size=96), ValueError, r"size must be a \(height, width\) pair"),
    (dict(quality=100), ValueError, "quality must be between 1 and 95"),
])
def test_jpeg_folder_bad_input(tmp_path, kwargs, error, message):
    kwargs = {"directory": tmp_path, **kwargs}
    with pytest.raises(error, match=message):
        data.jpeg_folder(**kwargs)


def test_labels_from_paths_bad_input():
    with pytest.raises(ValueError, match="expected a name like 'img_00000_label3.jpg'"):
        data.labels_from_paths(["cat.jpg"])
    with pytest.raises(TypeError, match="wrap it in a list"):
        data.labels_from_paths("img_00000_label3.jpg")
