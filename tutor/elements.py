"""Reading a dataset into NumPy values, always with a bound."""
from __future__ import annotations

from typing import Any

import tensorflow as tf

from ._validate import require_dataset, require_positive_int


def take_elements(dataset: tf.data.Dataset, max_elements: int = 100) -> list[Any]:
    """Return up to ``max_elements`` elements of ``dataset`` as NumPy values.

    Tuples and dicts keep their structure; strings come back as ``bytes``.
    Reading stops after ``max_elements``, so an infinite ``repeat()`` is safe.

    Examples
    --------
    >>> take_elements(tf.data.Dataset.range(3))
    [0, 1, 2]
    >>> take_elements(tf.data.Dataset.range(3).repeat(), max_elements=5)
    [0, 1, 2, 0, 1]
    """
    require_dataset(dataset, "take_elements")
    max_elements = require_positive_int(max_elements, "max_elements", "take_elements")
    return [_plain(e) for e in dataset.take(max_elements).as_numpy_iterator()]


def _plain(value: Any) -> Any:
    """Turn NumPy scalars into Python numbers so lists print cleanly; keep arrays."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if hasattr(value, "ndim") and value.ndim == 0 and hasattr(value, "item"):
        return value.item()
    return value
