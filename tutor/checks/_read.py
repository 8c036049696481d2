"""What the checkers share: bounded reading of an answer, answers as text or letters, element specs in words.

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
        seconds = f"{TIMEOUT if timeout is None else timeout:g} s"
        if got == 0:
            fail(f"your dataset produced no element in {seconds}, so the check stopped reading. That usually means "
                 "a filter() that matches nothing on an endless or very long input (repeat() with no count, or a "
                 "huge range), or a source that waits forever.")
        fail(f"your dataset produced only {got} element{'s' if got != 1 else ''} in {seconds}, so the check stopped "
             "reading. It is very slow, or it never ends (repeat() with no count?), or a filter() lets almost "
             "nothing through.")
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


# ------------------------------------------------------------ answers in words
def plain(value: Any) -> Any:
    """Nested Python lists, ints, floats and strings from NumPy values, tuples and bytes.

    >>> plain((np.int64(3), [np.array([1, 2])], b"a"))
    [3, [[1, 2]], 'a']
    """
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def answer_dataset(answer: Any, what: str = "a tf.data.Dataset") -> tf.data.Dataset:
    """``answer`` if it is a dataset; otherwise fail with a sentence naming what it is."""
    if isinstance(answer, tf.data.Dataset):
        return answer
    if isinstance(answer, tf.data.Iterator) or (hasattr(answer, "__next__") and hasattr(answer, "__iter__")):
        fail(f"expected {what}, got an iterator (what iter(ds) or ds.as_numpy_iterator() returns, or a Python "
             "generator). Pass the dataset itself: the checker makes its own iterators.")
    return dataset(answer, what)


def describe_spec(spec: Any) -> str:
    """An ``element_spec`` in words.

    >>> describe_spec(tf.data.Dataset.range(3).batch(2).element_spec)
    'a batch of int64 numbers, shape (None,)'
    """
    if isinstance(spec, dict):
        return f"a dict with keys {sorted(map(str, spec))}"
    if isinstance(spec, (tuple, list)):
        return f"a tuple of {len(spec)} parts (" + "; ".join(describe_spec(s) for s in spec) + ")"
    if isinstance(spec, tf.RaggedTensorSpec):
        return f"a ragged tensor of shape {shape_text(spec.shape)}"
    if isinstance(spec, tf.TensorSpec):
        kind = "text (string)" if spec.dtype == tf.string else f"{spec.dtype.name} number"
        if spec.shape.rank == 0:
            return f"a single {kind}"
        plural = "text values (strings)" if spec.dtype == tf.string else f"{spec.dtype.name} numbers"
        word = "a batch of" if spec.shape.rank == 1 else "a tensor of"
        return f"{word} {plural}, shape {shape_text(spec.shape)}"
    if isinstance(spec, tf.data.DatasetSpec):
        return "a whole dataset (as window() gives)"
    return type(spec).__name__


def shape_text(shape: tf.TensorShape) -> str:
    """``(None, 3)``-style text for a shape (``unknown`` when even the rank is unknown)."""
    if shape.rank is None:
        return "unknown"
    dims = shape.as_list()
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def read_elements(ds: tf.data.Dataset, limit: int) -> list:
    """Up to ``limit`` elements as NumPy values, bounded in number and in time (same as :func:`elements`)."""
    return elements(ds, limit)


def read_values(ds: tf.data.Dataset, limit: int) -> list:
    """Up to ``limit`` elements as plain Python values (lists, ints, floats, str); see :func:`read_elements`."""
    return [plain(e) for e in read_elements(ds, limit)]


def is_text(spec: Any) -> bool:
    return isinstance(spec, (tf.TensorSpec, tf.RaggedTensorSpec)) and spec.dtype == tf.string


def is_number_spec(spec: Any) -> bool:
    return isinstance(spec, (tf.TensorSpec, tf.RaggedTensorSpec)) and (spec.dtype.is_integer or spec.dtype.is_floating)


def whole(value: Any) -> int | None:
    """``value`` as an int when it is a whole number (not a bool); otherwise None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def from_tensors_hint(spec: Any) -> str:
    return (f"each element is {describe_spec(spec)}: the whole input in one element. from_tensors keeps its input "
            "whole and batch() groups elements; use from_tensor_slices, with no batch, so that each element is one "
            "slice.")


# ------------------------------------------------------------ the pipeline's structure
def stages(ds: tf.data.Dataset, build_with: str = "tf.data methods (from_tensor_slices, map, batch, ...)") -> list:
    """The answer's stages from source to output (tutor.doctor), without the option stages TensorFlow adds.

    Each :class:`tutor.doctor.Stage` has ``.kind`` ("source", "map", "batch", ...),
    ``.params``, ``.fn_ops`` and ``.dataset``. Fails with a sentence when the
    structure cannot be read; ``build_with`` names what the exercise builds from.
    """
    from ..doctor import read_pipeline

    try:
        found = read_pipeline(ds)
    except Exception:  # the doctor degrades gracefully; anything left is a pipeline it cannot describe
        fail(f"the checker could not read the stages of your pipeline. Build it with {build_with}, as the exercise "
             "says.")
    return [s for s in found if s.kind != "options"]


def kinds(ds: tf.data.Dataset) -> list[str]:
    """Stage kinds from source to end, e.g. ``['source', 'shuffle', 'batch', 'repeat']``."""
    return [s.kind for s in stages(ds)]


def chain_text(found: list) -> str:
    """Stages as ``source -> map -> batch``, for messages."""
    return " -> ".join(s.kind for s in found)


def reshuffling_split(found: list) -> bool:
    """True when a ``take`` or ``skip`` in ``found`` reads a shuffle that draws a new order for every iterator.

    That is the splitting rule's fault: each epoch would cut a different part off, so examples move between
    the two sides. ``found`` is a list of stages, as :func:`stages` returns it.
    """
    for k, s in enumerate(found):
        if s.kind in ("take", "skip") and any(p.kind == "shuffle" and p.params.get("reshuffle_each_iteration")
                                              is not False for p in found[:k]):
            return True
    return False
