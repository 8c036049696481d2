"""Bounded readers the checkers share: they never hang on an endless dataset."""
from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from ..stats import epochs_of
from ._core import fail


def dataset(answer: Any, what: str = "a tf.data.Dataset") -> tf.data.Dataset:
    """Fail with a clear message unless ``answer`` is a dataset."""
    if not isinstance(answer, tf.data.Dataset):
        fail(f"expected {what}, got {type(answer).__name__}.")
    return answer


def elements(ds: tf.data.Dataset, limit: int = 1000) -> list:
    """Up to ``limit`` elements as NumPy values; fail when there are more (an endless pipeline)."""
    values = list(ds.take(limit + 1).as_numpy_iterator())
    if len(values) > limit:
        fail(f"your dataset produced more than {limit} elements: it never ends, or is far longer than asked. "
             "Did you use repeat() with no count?")
    return values


def id_batches(ds: tf.data.Dataset, limit: int = 200) -> list[list[int]]:
    """Batches of integer ids as lists (scalars become batches of one)."""
    spec = ds.element_spec
    if not (isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and spec.shape.rank in (0, 1)):
        fail(f"expected batches of integer ids built from tf.data.Dataset.range, got element_spec={spec}.")
    return [np.atleast_1d(b).tolist() for b in elements(ds, limit)]


def first_mixed_batch(batches: list[list[int]]) -> tuple[int, list[int], list[int]] | None:
    """The first batch that holds ids from two epochs, as (index, ids, epochs)."""
    flat = [i for b in batches for i in b]
    ep = iter(epochs_of(flat).tolist()) if flat else iter(())
    for k, b in enumerate(batches):
        e = [next(ep) for _ in b]
        if len(set(e)) > 1:
            return k, b, [x + 1 for x in e]
    return None
