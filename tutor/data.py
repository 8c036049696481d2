"""Data for the lessons: MNIST when it can be had, offline digits otherwise.

No lesson may need the network. :func:`digits` returns MNIST from
``keras.datasets`` when it is already on disk or can be downloaded, and otherwise
a deterministic digit set rendered locally from the fonts that matplotlib ships.
:func:`describe_source` says which one a notebook got. :func:`jpeg_folder` writes a
folder of small colour JPEGs, for the lessons that read and decode files.

>>> from tutor.data import digits, describe_source
>>> x, y = digits(100, source="synthetic")
>>> x.shape, x.dtype, y.shape
((100, 28, 28), dtype('uint8'), (100,))
>>> describe_source(digits(100, source="synthetic"))
'Using 100 synthetic digits rendered offline from the fonts that matplotlib ships.'
"""

from __future__ import annotations

import functools
import os
import re
import socket
import threading
from numbers import Integral
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from . import _glyphs

__all__ = ["Digits", "digits", "describe_source", "jpeg_folder", "labels_from_paths"]

SOURCES = ("auto", "keras", "synthetic")
ENV_VAR = "TUTOR_DATA_SOURCE"
MNIST_SIZE = 70_000  # 60,000 train + 10,000 test
_MNIST_HOST = ("storage.googleapis.com", 443)


class Digits(tuple):
    """Images and labels, unpacking as ``images, labels``, plus where they came from.

    Attributes
    ----------
    images : uint8 array [n, 28, 28], white strokes on black, values 0..255.
    labels : int64 array [n], values 0..9.
    source : ``"keras"`` (MNIST) or ``"synthetic"`` (rendered offline).
    fallback : True when ``source="auto"`` wanted MNIST but could not get it.
    """

    def __new__(cls, images: np.ndarray, labels: np.ndarray, source: str,
                fallback: bool = False) -> "Digits":
        self = super().__new__(cls, (images, labels))
        self.source = source
        self.fallback = fallback
        return self

    def __getnewargs__(self):  # lets pickle and copy rebuild the extra fields
        return (self[0], self[1], self.source, self.fallback)

    @property
    def images(self) -> np.ndarray:
        return self[0]

    @property
    def labels(self) -> np.ndarray:
        return self[1]

    def __repr__(self) -> str:
        return f"Digits(n={len(self[1])}, source={self.source!r})"


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} ({value!r}).")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}.")
    return int(value)


def digits(n: int = 10_000, source: str = "auto", seed: int = 0) -> Digits:
    """Return ``n`` 28x28 digit images and their labels.

    Parameters
    ----------
    n : how many digits (MNIST has 70,000: the train set, then the test set).
    source : ``"keras"`` for MNIST from ``keras.datasets``, ``"synthetic"`` for
        digits rendered offline, or ``"auto"``: the environment variable
        ``TUTOR_DATA_SOURCE`` when it is set, else MNIST when it is cached or
        reachable, else synthetic.
    seed : seeds the synthetic digits (MNIST is always the same).

    Returns
    -------
    Digits, which unpacks as ``images, labels`` and has a ``.source``.

    Examples
    --------
    >>> x, y = digits(1000, source="synthetic", seed=0)
    >>> sorted(set(y.tolist()))
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    >>> ds = tf.data.Dataset.from_tensor_slices((x, y))  # doctest: +SKIP
    """
    n = _check_int("n", n, 1)
    seed = _check_int("seed", seed, 0)
    if not isinstance(source, str) or source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, got {source!r}.")

    if source == "auto":
        source = os.environ.get(ENV_VAR, "").strip().lower() or "auto"
        if source not in SOURCES:
            raise ValueError(f"The environment variable {ENV_VAR} must be 'synthetic' "
                             f"or 'keras', got {source!r}; unset it to choose automatically.")

    fallback = False
    if source == "auto" and n <= MNIST_SIZE:
        try:
            images, labels = _mnist(n)
            source = "keras"
        except RuntimeError:  # offline and not cached: fall back, say so later
            fallback = True
    elif source == "keras":
        images, labels = _mnist(n)
    if source != "keras":
        source = "synthetic"
        images, labels = _synthetic(n, seed)
    # Copies, so that a caller writing into them never changes the cache.
    return Digits(images.copy(), labels.copy(), source, fallback)


def describe_source(d: Digits) -> str:
    """One sentence saying how many digits ``d`` holds and where they came from.

    >>> describe_source(digits(2000, source="synthetic"))
    'Using 2,000 synthetic digits rendered offline from the fonts that matplotlib ships.'
    """
    if not isinstance(d, Digits):
        raise TypeError(f"describe_source expects the Digits returned by "
                        f"tutor.data.digits(...), got {type(d).__name__}.")
    n = len(d.labels)
    if d.source == "keras":
        return f"Using {n:,} MNIST digits from keras.datasets."
    why = " (MNIST was not available)" if d.fallback else ""
    return f"Using {n:,} synthetic digits rendered offline from the fonts that matplotlib ships{why}."


# --- synthetic -----------------------------------------------------------------

@functools.lru_cache(maxsize=4)
def _synthetic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n, dtype=np.int64) % 10)  # balanced classes
    images = _glyphs.render(labels, rng)
    images.flags.writeable = labels.flags.writeable = False
    return images, labels


# --- MNIST ---------------------------------------------------------------------

def _mnist_cached() -> bool:
    """Whether keras has already downloaded ``mnist.npz``."""
    homes = {os.environ.get("KERAS_HOME", ""), os.path.expanduser("~/.keras")}
    return any(os.path.isfile(os.path.join(h, "datasets", "mnist.npz")) for h in homes if h)


def _online(timeout: float = 2.0) -> bool:
    """Whether MNIST's host answers within ``timeout`` seconds (DNS included)."""
    answered = []

    def connect():
        try:
            connection = socket.create_connection(_MNIST_HOST, timeout=timeout)
        except OSError:
            return
        if connection is not None:
            connection.close()
            answered.append(True)

    probe = threading.Thread(target=connect, daemon=True)
    probe.start()
    probe.join(timeout)
    return bool(answered)


def _mnist(n: int) -> tuple[np.ndarray, np.ndarray]:
    if n > MNIST_SIZE:
        raise ValueError(f"MNIST has {MNIST_SIZE:,} digits, so n must be <= {MNIST_SIZE:,}, "
                         f"got {n:,}; use source='synthetic' for more.")
    if not _mnist_cached() and not _online():
        raise RuntimeError("MNIST could not be loaded: it is not cached and "
                           f"{_MNIST_HOST[0]} cannot be reached. Use source='synthetic' "
                           "for the offline digit set.")
    images, labels = _load_mnist()
    return images[:n], labels[:n]


@functools.lru_cache(maxsize=1)
def _load_mnist() -> tuple[np.ndarray, np.ndarray]:
    """All 70,000 MNIST digits, train set first (downloads once)."""
    try:
        try:
            import keras
        except ImportError:
            from tensorflow import keras
        (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
    except Exception as err:  # network, disk or a missing keras: all mean "not here"
        raise RuntimeError(f"MNIST could not be loaded from keras.datasets ({err}). "
                           "Use source='synthetic' for the offline digit set.") from err
    images = np.concatenate([x_train, x_test]).astype(np.uint8)
    labels = np.concatenate([y_train, y_test]).astype(np.int64)
    images.flags.writeable = labels.flags.writeable = False
    return images, labels


# --- JPEG folders --------------------------------------------------------------

_NAME = re.compile(r"_label(\d)\.jpe?g$")


def jpeg_folder(directory, n: int = 300, size: tuple[int, int] = (96, 96),
                seed: int = 0, quality: int = 90) -> list[str]:
    """Write ``n`` colour JPEGs of digits on noisy backgrounds into ``directory``.

    Each file is a synthetic digit, scaled to a random size, coloured and pasted
    at a random place on a textured background, so that decoding and cropping
    are real work. Files are named ``img_00000_label3.jpg``.

    Parameters
    ----------
    directory : folder to write into; created if missing.
    n : number of images.
    size : (height, width) of every image, each at least 28.
    seed : same seed, same files.
    quality : JPEG quality, 1..95.

    Returns
    -------
    Sorted list of the paths written, as ``str``.

    Examples
    --------
    >>> import tempfile
    >>> paths = jpeg_folder(tempfile.mkdtemp(), n=10)
    >>> labels_from_paths(paths).tolist()  # doctest: +SKIP
    >>> ds = tf.data.Dataset.list_files(paths, shuffle=False)  # doctest: +SKIP
    """
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a str or pathlib.Path, got {type(directory).__name__}; "
                        "for example tempfile.mkdtemp().")
    n = _check_int("n", n, 1)
    seed = _check_int("seed", seed, 0)
    quality = _check_int("quality", quality, 1)
    if quality > 95:
        raise ValueError(f"quality must be between 1 and 95, got {quality}.")
    if (not isinstance(size, (tuple, list)) or len(size) != 2
            or not all(isinstance(s, Integral) and not isinstance(s, bool) and s >= 28
                       for s in size)):
        raise ValueError(f"size must be a (height, width) pair of ints >= 28, got {size!r}.")
    height, width = int(size[0]), int(size[1])

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    images, labels = _synthetic(n, seed)
    rng = np.random.default_rng([seed, 1])  # a stream apart from the digits' own
    paths = []
    for i, (digit, label) in enumerate(zip(images, labels)):
        picture = _picture(digit, height, width, rng)
        path = folder / f"img_{i:05d}_label{label}.jpg"
        picture.save(path, format="JPEG", quality=quality)
        paths.append(str(path))
    return sorted(paths)


def _picture(digit: np.ndarray, height: int, width: int, rng: np.random.Generator) -> Image.Image:
    """One colour digit pasted on a noisy, smoothly shaded background."""
    # Background: a colour gradient plus blurred noise.
    corners = rng.uniform(0, 160, size=(2, 2, 3))
    ys = np.linspace(0, 1, height)[:, None, None]
    xs = np.linspace(0, 1, width)[None, :, None]
    shade = ((1 - ys) * ((1 - xs) * corners[0, 0] + xs * corners[0, 1])
             + ys * ((1 - xs) * corners[1, 0] + xs * corners[1, 1]))
    noise = Image.fromarray(rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8))
    noise = np.asarray(noise.filter(ImageFilter.GaussianBlur(1.0)), dtype=np.float64) - 128
    background = np.clip(shade + 0.6 * noise, 0, 255)

    # The digit, scaled to 40-90% of the shorter side, at a random place.
    side = int(rng.uniform(0.4, 0.9) * min(height, width))
    mask = Image.fromarray(digit).resize((side, side), Image.BILINEAR)
    mask = np.asarray(mask, dtype=np.float64)[:, :, None] / 255.0
    top = rng.integers(0, height - side + 1)
    left = rng.integers(0, width - side + 1)
    colour = rng.uniform(150, 255, size=3)
    patch = background[top:top + side, left:left + side]
    background[top:top + side, left:left + side] = (1 - mask) * patch + mask * colour
    return Image.fromarray(background.astype(np.uint8))


def labels_from_paths(paths) -> np.ndarray:
    """Parse the labels back out of names like ``img_00000_label3.jpg``.

    Accepts str, pathlib.Path or bytes (as a tf.data pipeline yields them).

    >>> labels_from_paths(["a/img_00000_label3.jpg", b"img_00001_label7.jpg"]).tolist()
    [3, 7]
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError("labels_from_paths expects a list of paths, got a single path; "
                        "wrap it in a list.")
    labels = []
    for path in paths:
        name = os.fsdecode(path.item() if isinstance(path, np.generic) else path)
        match = _NAME.search(name)
        if match is None:
            raise ValueError(f"Cannot find a label in {os.path.basename(name)!r}; expected a "
                             "name like 'img_00000_label3.jpg', as jpeg_folder writes.")
        labels.append(int(match.group(1)))
    return np.array(labels, dtype=np.int64)
