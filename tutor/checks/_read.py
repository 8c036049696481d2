"""What the checkers share: bounded reading of an answer, and answers given as text or letters.

Reading never hangs: :func:`elements` stops after ``limit`` elements and after
a deadline (a ``filter`` that never matches, an endless pipeline that yields
nothing), and says why in the message.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import tensorflow as tf

from ..reading import DEFAULT_TIMEOUT, ReadTimeout, read
from ..stats import epochs_of
from ._core import fail, shorten

#: Seconds a checker waits for an answer's elements.
TIMEOUT = DEFAULT_TIMEOUT


def dataset(answer: Any, what: str = "a tf.data.Dataset") -> tf.data.Dataset:
    """Fail with a clear message unless ``answer`` is a dataset."""
    if isinstance(answer, tf.data.Dataset):
        return answer
    kind = type(answer).__name__
    if isinstance(answer, (list, tuple, np.ndarray)) or tf.is_tensor(answer):
        fail(f"expected {what}, got a {kind}. Wrap your values with tf.data.Dataset.from_tensor_slices(...).")
    if isinstance(answer, str):
        fail(f"expected {what}, got the text {shorten(answer, 40)}. Pass the dataset object itself, not its name "
             "or its code.")
    if callable(answer):
        fail(f"expected {what}, got a function. Call it to build the dataset, and pass the result.")
    fail(f"expected {what}, got {kind}.")


def elements(ds: tf.data.Dataset, limit: int = 1000, *, timeout: float | None = None) -> list:
    """Up to ``limit`` elements as NumPy values; fail when there are more (an endless pipeline) or time runs out."""
    try:
        result = read(ds, max_elements=limit, timeout=TIMEOUT if timeout is None else timeout, where="check")
    except ReadTimeout as exc:
        got = len(exc.elements)
        produced = "no element" if got == 0 else f"only {got} element{'s' if got != 1 else ''}"
        fail(f"your dataset produced {produced} in {TIMEOUT if timeout is None else timeout:g} s, so the check "
             "stopped reading. That usually means a filter() that matches nothing on an endless or very long input "
             "(repeat() with no count, or a huge range), or a source that waits forever.")
    if result.more:
        fail(f"your dataset produced more than {limit} elements: it never ends, or is far longer than asked. "
             "Did you use repeat() with no count?")
    return result.elements


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


def text(answer: Any, what: str = "a short text") -> str:
    """A free-text answer, with case and surrounding spaces ignored.

    >>> text("  Distributed_Epoch ")
    'distributed_epoch'
    """
    if not isinstance(answer, str):
        fail(f"answer with {what} in quotes, got {type(answer).__name__} {shorten(answer, 40)}.")
    return " ".join(answer.split()).lower()


def choice(answer: Any, options: Iterable[str]) -> str:
    """One of ``options`` (letters or words), ignoring case and surrounding spaces; fails naming the options."""
    options = [str(o) for o in options]
    got = text(answer, "one of " + ", ".join(repr(o) for o in options))
    lowered = {o.lower(): o for o in options}
    if got not in lowered:
        fail(f"{shorten(answer, 40)} is not one of the choices; answer with one of "
             + ", ".join(repr(o) for o in options) + ".")
    return lowered[got]
