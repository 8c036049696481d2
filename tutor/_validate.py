"""Input checks shared by every public function, with messages that teach."""
from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf


def require_dataset(obj: Any, where: str) -> tf.data.Dataset:
    """Return ``obj`` if it is a ``tf.data.Dataset``, else raise a helpful TypeError."""
    if isinstance(obj, tf.data.Dataset):
        return obj
    kind = type(obj).__name__
    if isinstance(obj, (list, tuple, np.ndarray)) or tf.is_tensor(obj):
        fix = "wrap it with tf.data.Dataset.from_tensor_slices(...)"
    elif callable(obj):
        fix = "call your function to build the dataset first, then pass the dataset"
    else:
        fix = "pass a tf.data.Dataset, for example tf.data.Dataset.range(10)"
    raise TypeError(f"{where} expects a tf.data.Dataset, got {kind}; {fix}.")


def require_positive_int(value: Any, name: str, where: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{where}: {name} must be a whole number >= {minimum}, got {type(value).__name__} {value!r}."
        )
    if value < minimum:
        raise ValueError(f"{where}: {name} must be >= {minimum}, got {value}.")
    return int(value)


def is_infinite(dataset: tf.data.Dataset) -> bool:
    """True when TensorFlow knows the dataset never ends (for example after ``repeat()``)."""
    return int(dataset.cardinality()) == int(tf.data.INFINITE_CARDINALITY)


def require_integer_ids(dataset: tf.data.Dataset, where: str) -> None:
    """Raise unless every element is an integer scalar or a 1-D integer batch."""
    spec = dataset.element_spec
    ok = isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and spec.shape.rank in (0, 1)
    if not ok:
        raise TypeError(
            f"{where} expects a dataset of integer element ids, such as tf.data.Dataset.range(n) "
            f"(optionally batched), got element_spec={spec}. Map it to ids first, "
            "for example ds.map(lambda image, label: label)."
        )
