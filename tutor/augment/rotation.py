"""Random rotation three ways: SciPy in ``py_function``, a TF op per element, the same op per batch.

Every path rotates image ``i`` by the same angle ``angles[i]``, so their
outputs can be compared pixel by pixel and their timings are fair:

>>> import numpy as np
>>> images = np.zeros((4, 28, 28, 1), np.uint8)
>>> angles = rotation_angles(4, seed=0)
>>> ds = rotation_dataset(images, angles, "tf-batched", batch_size=2)
>>> [b.shape for b in ds.as_numpy_iterator()]
[(2, 28, 28, 1), (2, 28, 28, 1)]

Angles are in radians and counterclockwise, as in ``tf.image.rot90`` and
``keras.layers.RandomRotation``.
"""
from __future__ import annotations

import contextlib
import io
import math
import warnings
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from .._quiet import stderr_to_devnull
from .._validate import require_positive_int
from ..i18n import gettext as _

#: The rotation paths, in the order the lesson times them. "tfa" only where tensorflow-addons imports.
PATHS = ("scipy", "tf", "tf-batched", "tfa")
_INTERPOLATIONS = ("nearest", "bilinear")
_UNSET = object()
_tfa: Any = _UNSET
#: Why tensorflow-addons is unavailable: None when it is not installed, else the error its import raised.
_tfa_error: str | None = None


def rotation_angles(n: int, degrees: float | Sequence[float] = 30.0, seed: int = 0) -> np.ndarray:
    """``n`` reproducible angles in radians, uniform in ``[-degrees, degrees]`` (or a ``(low, high)`` range).

    Drawn with a stateless op, so the same ``seed`` always gives the same angles.

    >>> a = rotation_angles(3, 30, seed=0)
    >>> a.dtype, bool(np.all(np.abs(a) <= np.radians(30)))
    (dtype('float32'), True)
    """
    n = require_positive_int(n, "n", "rotation_angles")
    low, high = _degree_range(degrees)
    draws = tf.random.stateless_uniform([n], seed=[int(seed), 4], minval=low, maxval=high)
    return np.radians(draws.numpy()).astype(np.float32)


def _degree_range(degrees) -> tuple[float, float]:
    if isinstance(degrees, (int, float, np.integer, np.floating)) and not isinstance(degrees, bool):
        low, high = -abs(float(degrees)), abs(float(degrees))
    elif isinstance(degrees, (tuple, list)) and len(degrees) == 2:
        low, high = float(degrees[0]), float(degrees[1])
    else:
        raise TypeError(_("degrees must be a number such as 30 (meaning -30..30) or a pair (low, high), got "
                          "{degrees!r}.").format(degrees=degrees))
    if low > high:
        raise ValueError(_("degrees range must have low <= high, got ({low}, {high}).").format(low=low, high=high))
    return low, high


def rotation_transforms(angles, height, width) -> tf.Tensor:
    """Rotation about the image centre as rows of the 8 numbers ImageProjectiveTransformV3 expects.

    A row ``[a0, a1, a2, b0, b1, b2, 0, 0]`` tells the op where each *output*
    pixel ``(x, y)`` reads from: ``x_in = a0*x + a1*y + a2``,
    ``y_in = b0*x + b1*y + b2``. For a counterclockwise turn by ``t`` that is
    the clockwise turn of the output grid about the centre ``(cx, cy)``.

    >>> rotation_transforms([0.0], 28, 28).numpy().round(3).tolist()
    [[1.0, -0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]
    """
    # float64, rounded to float32 at the end: vectorized and scalar cos/sin kernels may differ
    # in the last float32 bit, and one image must get the same numbers alone or in a batch.
    t = tf.reshape(tf.cast(angles, tf.float64), [-1])
    cos, sin = tf.cos(t), tf.sin(t)
    cx = (tf.cast(width, tf.float64) - 1.0) / 2.0
    cy = (tf.cast(height, tf.float64) - 1.0) / 2.0
    # x_in - cx = cos*(x - cx) - sin*(y - cy);  y_in - cy = sin*(x - cx) + cos*(y - cy)
    shift_x = cx - cos * cx + sin * cy
    shift_y = cy - sin * cx - cos * cy
    zero = tf.zeros_like(t)
    return tf.cast(tf.stack([cos, -sin, shift_x, sin, cos, shift_y, zero, zero], axis=1), tf.float32)


def rotate(images, angles, *, interpolation: str = "bilinear", fill_value: float = 0.0) -> tf.Tensor:
    """Rotate one image (HxW or HxWxC) or a batch (NxHxWxC) counterclockwise by ``angles`` radians.

    TF-native: one call to ``tf.raw_ops.ImageProjectiveTransformV3``, the op
    ``tfa.image.rotate`` wraps. For a batch, ``angles`` is a scalar or one angle
    per image. Corners that come from outside the image are ``fill_value``.

    >>> rotate(tf.eye(3), math.pi / 2, interpolation="nearest").numpy().astype(int).tolist()
    [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    """
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(_("interpolation must be one of {choices}, got {interpolation!r}.")
                         .format(choices=_INTERPOLATIONS, interpolation=interpolation))
    images = tf.convert_to_tensor(images)
    rank = images.shape.rank
    if rank == 2:
        batch = images[None, :, :, None]
    elif rank == 3:
        batch = images[None]
    elif rank == 4:
        batch = images
    else:
        raise ValueError(
            _("rotate expects an image HxW or HxWxC or a batch NxHxWxC, got shape {shape}. "
              "For a batch of grey images add a channel axis first: images[..., None].").format(shape=images.shape)
        )
    size = tf.shape(batch)[1:3]
    out = tf.raw_ops.ImageProjectiveTransformV3(
        images=batch,
        transforms=rotation_transforms(angles, size[0], size[1]),
        output_shape=size,
        fill_value=tf.constant(fill_value, tf.float32),
        interpolation=interpolation.upper(),
        fill_mode="CONSTANT",
    )
    out = tf.ensure_shape(out, batch.shape)
    if rank == 2:
        return out[0, :, :, 0]
    return out[0] if rank == 3 else out


def rotate_scipy(image: np.ndarray, angle: float, *, interpolation: str = "bilinear") -> np.ndarray:
    """Rotate one NumPy image counterclockwise by ``angle`` radians with ``scipy.ndimage.rotate``.

    Plain Python and NumPy: inside ``tf.data`` it needs :func:`rotate_scipy_tf`.

    >>> rotate_scipy(np.eye(3), math.pi / 2, interpolation="nearest").astype(int).tolist()
    [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    """
    from scipy import ndimage

    order = {"nearest": 0, "bilinear": 1}[interpolation]
    return ndimage.rotate(image, math.degrees(float(angle)), reshape=False, order=order, mode="constant", cval=0.0)


def rotate_scipy_tf(image: tf.Tensor, angle: tf.Tensor, *, interpolation: str = "bilinear") -> tf.Tensor:
    """:func:`rotate_scipy` wrapped in ``tf.py_function`` so ``Dataset.map`` can call it.

    Inside ``map`` the arguments are symbolic graph Tensors with no values;
    ``py_function`` hands Python eager tensors with ``.numpy()``. It cannot
    know the output shape, so ``ensure_shape`` puts the static shape back.
    """

    def run(img, a):  # img, a are EagerTensors here
        return rotate_scipy(img.numpy(), float(a.numpy()), interpolation=interpolation)

    out = tf.py_function(run, [image, angle], Tout=image.dtype)
    return tf.ensure_shape(out, image.shape)


def import_tfa():
    """``tensorflow_addons`` if it imports here (quietly: no warnings, no stderr), else ``None``.

    >>> import_tfa() is None or hasattr(import_tfa(), "image")
    True
    """
    global _tfa, _tfa_error
    if _tfa is _UNSET:
        _tfa = None
        try:
            with warnings.catch_warnings(), stderr_to_devnull(), contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                import tensorflow_addons as tfa  # noqa: F401
            _tfa = tfa
        except ImportError:
            _tfa_error = None
        except Exception as exc:  # an incompatible TensorFlow can break the import in other ways
            _tfa_error = type(exc).__name__
    return _tfa


def tfa_status() -> str:
    """One line saying whether the tfa path is available.

    >>> tfa_status().startswith("tensorflow-addons")
    True
    """
    tfa = import_tfa()
    if tfa is None:
        if _tfa_error is None:
            return _("tensorflow-addons is not installed (it reached end of life in May 2024): the tfa path is skipped.")
        return _("tensorflow-addons is installed but failed to import ({error}): the tfa path is skipped.").format(
            error=_tfa_error)
    return _("tensorflow-addons {version} imports: the tfa path runs too.").format(version=tfa.__version__)


def rotate_tfa(images, angles, *, interpolation: str = "bilinear") -> tf.Tensor:
    """``tfa.image.rotate`` with the same fill as :func:`rotate`; raises ImportError without tfa."""
    tfa = import_tfa()
    if tfa is None:
        if _tfa_error is None:
            text = _("tensorflow-addons is not installed (it reached end of life in May 2024). Install it only in the "
                     "legacy environment: pip install -r tests/envs/legacy-requirements.txt")
        else:
            text = _("tensorflow-addons is installed but failed to import ({error}). Install it only in the legacy "
                     "environment: pip install -r tests/envs/legacy-requirements.txt")
        raise ImportError(text.format(error=_tfa_error))
    return tfa.image.rotate(images, angles, interpolation=interpolation, fill_mode="constant", fill_value=0.0)


def available_paths() -> tuple[str, ...]:
    """:data:`PATHS` that run here ("tfa" only where tensorflow-addons imports)."""
    return tuple(p for p in PATHS if p != "tfa" or import_tfa() is not None)


def rotation_dataset(
    images, angles, path: str, *, batch_size: int = 512, interpolation: str = "bilinear", auto_parallel: bool = False
) -> tf.data.Dataset:
    """A pipeline that yields batches of ``images`` rotated by ``angles`` along one of :data:`PATHS`.

    ``"scipy"``: ``map(py_function(scipy))`` then ``batch``; ``"tf"``: ``map(rotate)``
    then ``batch``; ``"tf-batched"``: ``batch`` then ``map(rotate)`` on whole
    batches; ``"tfa"``: like ``"tf"`` through ``tfa.image.rotate``. Grey images
    ``[n, H, W]`` get a channel axis.

    Recent TensorFlow quietly runs a plain ``map`` of a stateless function in
    parallel (the ``map_parallelization`` optimization, on by default).
    ``auto_parallel=False`` turns that off, so every path calls its function one
    element (or batch) at a time, as in the original experiment.

    >>> ds = rotation_dataset(np.zeros((3, 8, 8), np.uint8), [0.1, 0.2, 0.3], "tf", batch_size=2)
    >>> ds.element_spec.shape.as_list()
    [None, 8, 8, 1]
    """
    images = np.asarray(images)
    if images.ndim == 3:
        images = images[..., None]
    if images.ndim != 4:
        raise ValueError(_("rotation_dataset expects images [n, H, W] or [n, H, W, C], got shape {shape}.")
                         .format(shape=images.shape))
    angles = np.asarray(angles, np.float32).reshape(-1)
    if angles.shape[0] != images.shape[0]:
        raise ValueError(_("rotation_dataset needs one angle per image: {images} images, {angles} angles.")
                         .format(images=images.shape[0], angles=angles.shape[0]))
    batch_size = require_positive_int(batch_size, "batch_size", "rotation_dataset")
    ds = tf.data.Dataset.from_tensor_slices((images, angles))
    if not auto_parallel:
        options = tf.data.Options()
        options.experimental_optimization.map_parallelization = False
        ds = ds.with_options(options)
    kw = {"interpolation": interpolation}
    if path == "scipy":
        return ds.map(lambda x, a: rotate_scipy_tf(x, a, **kw)).batch(batch_size)
    if path == "tf":
        return ds.map(lambda x, a: rotate(x, a, **kw)).batch(batch_size)
    if path == "tf-batched":
        return ds.batch(batch_size).map(lambda x, a: rotate(x, a, **kw))
    if path == "tfa":
        rotate_tfa(images[:1], angles[:1])  # fails early with a clear message when tfa is missing
        return ds.map(lambda x, a: rotate_tfa(x, a, **kw)).batch(batch_size)
    raise ValueError(_("path must be one of {paths}, got {path!r}.").format(paths=PATHS, path=path))


def rotate_all(images, angles, path: str, **kwargs) -> np.ndarray:
    """Run :func:`rotation_dataset` to the end and return every rotated image as one array."""
    return np.concatenate(list(rotation_dataset(images, angles, path, **kwargs).as_numpy_iterator()))


_compiled: dict = {}


def _compiled_fn(name: str, fn):
    """One ``tf.function`` per path, traced once per image shape and reused (fast in an explorer)."""
    if name not in _compiled:
        _compiled[name] = tf.function(fn, reduce_retracing=True)
    return _compiled[name]


def rotate_images(images, angles, path: str, *, interpolation: str = "bilinear") -> np.ndarray:
    """Rotate a few images along one path without building a pipeline; same pixels as :func:`rotate_all`.

    Made for explorers: ``"scipy"`` calls SciPy once per image, ``"tf"`` and
    ``"tfa"`` call a compiled per-image function once per image, and
    ``"tf-batched"`` makes one call for the whole batch.

    >>> x = np.zeros((2, 8, 8), np.uint8)
    >>> rotate_images(x, [0.1, 0.2], "tf").shape
    (2, 8, 8, 1)
    """
    images = np.asarray(images)
    if images.ndim == 3:
        images = images[..., None]
    angles = np.asarray(angles, np.float32).reshape(-1)
    if images.ndim != 4 or angles.shape[0] != images.shape[0]:
        raise ValueError(_("rotate_images needs images [n, H, W(, C)] and one angle each; got {shape} and {angles} "
                           "angles.").format(shape=images.shape, angles=angles.shape[0]))
    if path == "scipy":
        return np.stack([rotate_scipy(x, a, interpolation=interpolation) for x, a in zip(images, angles.tolist())])
    if path == "tf-batched":
        fn = _compiled_fn(f"batch-{interpolation}", lambda x, a: rotate(x, a, interpolation=interpolation))
        return fn(tf.constant(images), tf.constant(angles)).numpy()
    if path == "tf":
        fn = _compiled_fn(f"one-{interpolation}", lambda x, a: rotate(x, a, interpolation=interpolation))
    elif path == "tfa":
        rotate_tfa(images[:1], angles[:1])
        fn = _compiled_fn(f"tfa-{interpolation}", lambda x, a: rotate_tfa(x, a, interpolation=interpolation))
    else:
        raise ValueError(_("path must be one of {paths}, got {path!r}.").format(paths=PATHS, path=path))
    return np.stack([fn(tf.constant(x), tf.constant(a)).numpy() for x, a in zip(images, angles)])
