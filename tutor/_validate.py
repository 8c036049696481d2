"""Input checks shared by every public function, with messages that teach.

This module imports only NumPy, so pure modules (statistics, simulators, data)
use it too. Checks that need TensorFlow import it when they run: by then the
caller is working with datasets, so TensorFlow is loaded anyway.
"""
from __future__ import annotations

import os
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np

from .i18n import gettext as _


def require_dataset(obj: Any, where: str):
    """Return ``obj`` if it is a ``tf.data.Dataset``, else raise a helpful TypeError."""
    import tensorflow as tf

    if isinstance(obj, tf.data.Dataset):
        return obj
    kind = type(obj).__name__
    if isinstance(obj, (list, tuple, np.ndarray)) or tf.is_tensor(obj):
        text = _("{where} expects a tf.data.Dataset, got {kind}; wrap it with tf.data.Dataset.from_tensor_slices(...).")
    elif callable(obj):
        text = _("{where} expects a tf.data.Dataset, got {kind}; call your function to build the dataset first, "
                 "then pass the dataset.")
    else:
        text = _("{where} expects a tf.data.Dataset, got {kind}; pass a tf.data.Dataset, for example "
                 "tf.data.Dataset.range(10).")
    raise TypeError(text.format(where=where, kind=kind))


def require_positive_int(value: Any, name: str, where: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int if it is a whole number in ``[minimum, maximum]``.

    >>> require_positive_int(3, "n", "f")
    3
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(_("{where}: {name} must be a whole number >= {minimum}, got {kind} {value}.").format(
            where=where, name=name, minimum=minimum, kind=type(value).__name__, value=repr(value)))
    if value < minimum:
        raise ValueError(_("{where}: {name} must be >= {minimum}, got {value}.").format(
            where=where, name=name, minimum=minimum, value=value))
    if maximum is not None and value > maximum:
        raise ValueError(_("{where}: {name} must be <= {maximum:,}, got {value:,}.").format(
            where=where, name=name, maximum=maximum, value=value))
    return int(value)


def require_seconds(value: Any, name: str, where: str, *, maximum: float | None = None) -> float:
    """Return ``value`` as a float if it is a number of seconds >= 0 (and <= ``maximum``).

    >>> require_seconds(0.5, "step_time", "f")
    0.5
    """
    if isinstance(value, bool) or not isinstance(value, Real) or value != value:
        raise TypeError(_("{where}: {name} must be a number of seconds, got {kind} {value}.").format(
            where=where, name=name, kind=type(value).__name__, value=repr(value)))
    if value < 0 or (maximum is not None and value > maximum):
        if maximum is None:
            text = _("{where}: {name} must be >= 0 seconds, got {value}.")
        else:
            text = _("{where}: {name} must be >= 0 and <= {maximum:g} seconds, got {value}.")
        raise ValueError(text.format(where=where, name=name, maximum=maximum, value=repr(value)))
    return float(value)


def require_choice(value: Any, name: str, where: str, choices) -> Any:
    """Return ``value`` if it is one of ``choices``.

    >>> require_choice("step", "color_by", "plot", ("step", "epoch"))
    'step'
    """
    if value not in tuple(choices):
        raise ValueError(_("{where}: {name} must be one of {choices}, got {value}.").format(
            where=where, name=name, choices=tuple(choices), value=repr(value)))
    return value


def is_infinite(dataset) -> bool:
    """True when TensorFlow knows the dataset never ends (for example after ``repeat()``)."""
    import tensorflow as tf

    return int(dataset.cardinality()) == int(tf.data.INFINITE_CARDINALITY)


def require_integer_ids(dataset, where: str) -> None:
    """Raise unless every element is an integer scalar or a 1-D integer batch, saying how to get there."""
    import tensorflow as tf

    spec = dataset.element_spec
    if isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and spec.shape.rank in (0, 1):
        return
    if isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and spec.shape.rank is None:
        raise TypeError(_(
            "{where}: the elements are integer ids, but their shape is unknown (element_spec={spec}), as after a "
            "py_function or numpy_function, which cannot tell TensorFlow what it returns. Promise the shape with "
            "tf.ensure_shape (lesson 04): for single ids ds.map(lambda i: tf.ensure_shape(i, [])), for batches "
            "tf.ensure_shape(ids, [None])."
        ).format(where=where, spec=spec))
    if isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer:
        raise TypeError(_(
            "{where} expects single integer ids or 1-D batches of them, got element_spec={spec}: each element "
            "holds more than one row of ids. Batch once, or flatten the ids first (ds.unbatch(), or "
            "ds.map(lambda ids: tf.reshape(ids, [-1])))."
        ).format(where=where, spec=spec))
    raise TypeError(_(
        "{where} expects a dataset of integer element ids, such as tf.data.Dataset.range(n) "
        "(optionally batched), got element_spec={spec}. Map it to ids first, "
        "for example ds.map(lambda image, label: label)."
    ).format(where=where, spec=spec))


def require_folder(directory: Any, where: str) -> Path:
    """``directory`` as a Path, made if it does not exist yet, if it is a str or a path.

    >>> import tempfile
    >>> require_folder(tempfile.mkdtemp(), "f").is_dir()
    True
    """
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(_("{where}: directory must be a str or pathlib.Path, got {type}; for example "
                          "tempfile.mkdtemp().").format(where=where, type=type(directory).__name__))
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
