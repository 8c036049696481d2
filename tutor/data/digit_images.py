"""Data for the lessons: MNIST when it can be had, offline digits otherwise.

No lesson may need the network. :func:`digits` returns MNIST from
``keras.datasets`` when it is already on disk or can be downloaded, and otherwise
a deterministic digit set rendered locally from the fonts that matplotlib ships.
:func:`describe_source` says which one a notebook got.

``TUTOR_DATA_SOURCE=synthetic-full`` is for measuring the lessons as Colab and
Binder run them, on a machine without the network: the offline digits then
stand in for MNIST at its full size: all 70,000 (60,000 then 10,000, as
``keras.datasets`` has them) are rendered once, in several seconds, and kept in
a file in Keras's download folder, where ``mnist.npz`` goes; ``digits(n)`` then
returns the first ``n`` of them whatever the seed, as it does from MNIST.

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
import socket
import threading

import numpy as np

from .._validate import require_positive_int
from ..i18n import gettext as _
from . import glyphs

__all__ = ["Digits", "digits", "describe_source", "synthetic_digits"]

SOURCES = ("auto", "keras", "synthetic")
ENV_VAR = "TUTOR_DATA_SOURCE"
#: The value of ``TUTOR_DATA_SOURCE`` that makes the offline digits stand in for MNIST at its full size.
FULL_SIZE = "synthetic-full"
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


def digits(n: int = 10_000, source: str = "auto", seed: int = 0) -> Digits:
    """Return ``n`` 28x28 digit images and their labels.

    Parameters
    ----------
    n : how many digits (MNIST has 70,000: the train set, then the test set).
    source : ``"keras"`` for MNIST from ``keras.datasets``, ``"synthetic"`` for
        digits rendered offline, or ``"auto"``: the environment variable
        ``TUTOR_DATA_SOURCE`` when it is set, else MNIST when it is cached or
        reachable, else synthetic. ``TUTOR_DATA_SOURCE=synthetic-full`` gives
        the first ``n`` of 70,000 offline digits, as MNIST would.
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
    n = require_positive_int(n, "n", "tutor.data.digits")
    seed = require_positive_int(seed, "seed", "tutor.data.digits", minimum=0)
    if not isinstance(source, str) or source not in SOURCES:
        raise ValueError(_("source must be one of {choices}, got {source!r}.").format(choices=SOURCES, source=source))

    if source == "auto":
        source = os.environ.get(ENV_VAR, "").strip().lower() or "auto"
        if source not in SOURCES + (FULL_SIZE,):
            raise ValueError(_("The environment variable {variable} must be 'synthetic', '{full}' or 'keras', got "
                               "{source!r}; unset it to choose automatically.")
                             .format(variable=ENV_VAR, full=FULL_SIZE, source=source))

    fallback, images = False, None
    if source == FULL_SIZE and n <= MNIST_SIZE:  # offline digits, sized and sliced as MNIST is
        images, labels = (part[:n] for part in _full_size_digits())
    elif source == "auto" and n <= MNIST_SIZE:
        try:
            images, labels = _mnist(n)
            source = "keras"
        except RuntimeError:  # offline and not cached: fall back, say so later
            fallback = True
    elif source == "keras":
        images, labels = _mnist(n)
    if source != "keras":
        source = "synthetic"
        if images is None:
            images, labels = synthetic_digits(n, seed)
    # Copies, so that a caller writing into them never changes the cache.
    return Digits(images.copy(), labels.copy(), source, fallback)


def describe_source(d: Digits) -> str:
    """One sentence saying how many digits ``d`` holds and where they came from.

    >>> describe_source(digits(2000, source="synthetic"))
    'Using 2,000 synthetic digits rendered offline from the fonts that matplotlib ships.'
    """
    if not isinstance(d, Digits):
        raise TypeError(_("describe_source expects the Digits returned by tutor.data.digits(...), got {type}.")
                        .format(type=type(d).__name__))
    n = len(d.labels)
    if d.source == "keras":
        return _("Using {n:,} MNIST digits from keras.datasets.").format(n=n)
    if d.fallback:
        return _("Using {n:,} synthetic digits rendered offline from the fonts that matplotlib ships (MNIST was not "
                 "available).").format(n=n)
    return _("Using {n:,} synthetic digits rendered offline from the fonts that matplotlib ships.").format(n=n)


# --- synthetic -----------------------------------------------------------------

@functools.lru_cache(maxsize=4)
def synthetic_digits(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` offline digits and balanced labels, the same for the same ``seed`` (read-only arrays)."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n, dtype=np.int64) % 10)  # balanced classes
    images = glyphs.draw(labels, rng)
    images.flags.writeable = labels.flags.writeable = False
    return images, labels


@functools.lru_cache(maxsize=1)
def _full_size_digits() -> tuple[np.ndarray, np.ndarray]:
    """MNIST's 70,000 as offline digits (seed 0: MNIST is always the same), rendered once, then kept in a file."""
    folder = os.path.join(os.environ.get("KERAS_HOME") or os.path.expanduser("~/.keras"), "datasets")
    path = os.path.join(folder, f"tutor-digits-{MNIST_SIZE}.npz")
    try:
        with np.load(path) as stored:
            images, labels = stored["images"], stored["labels"]
        if images.shape == (MNIST_SIZE, 28, 28) and labels.shape == (MNIST_SIZE,):
            images.flags.writeable = labels.flags.writeable = False
            return images, labels
    except (OSError, KeyError, ValueError):  # not there yet, or unreadable: render it again
        pass
    images, labels = synthetic_digits(MNIST_SIZE, 0)
    try:
        os.makedirs(folder, exist_ok=True)
        partial = f"{path}.{os.getpid()}.npz"
        np.savez(partial, images=images, labels=labels)
        os.replace(partial, path)  # whole or not at all, for a lesson reading it at the same time
    except OSError:  # a read-only home: the next lesson renders them again
        pass
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
        raise ValueError(_("MNIST has {size:,} digits, so n must be <= {size:,}, got {n:,}; use source='synthetic' "
                           "for more.").format(size=MNIST_SIZE, n=n))
    if not _mnist_cached() and not _online():
        raise RuntimeError(_("MNIST could not be loaded: it is not cached and {host} cannot be reached. Use "
                             "source='synthetic' for the offline digit set.").format(host=_MNIST_HOST[0]))
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
        raise RuntimeError(_("MNIST could not be loaded from keras.datasets ({error}). Use source='synthetic' for "
                             "the offline digit set.").format(error=err)) from err
    images = np.concatenate([x_train, x_test]).astype(np.uint8)
    labels = np.concatenate([y_train, y_test]).astype(np.int64)
    images.flags.writeable = labels.flags.writeable = False
    return images, labels
