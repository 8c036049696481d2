"""Reading a learner's answer: as a dataset, its elements, plain values, text or a letter, its spec in words.

One name per idea: :func:`dataset` (the answer is a dataset, or a sentence says
what it is), :func:`elements` (NumPy values), :func:`values` (plain Python
values), :func:`plain`, :func:`text`, :func:`choice`, :func:`describe_spec`,
:func:`id_batches`. Reading never hangs: :func:`elements` stops after ``limit``
elements and after a deadline (a ``filter`` that never matches, an endless
pipeline that yields nothing), and says why in the message. The pipeline's
structure (its stages) is read by :mod:`tutor.checks._stages`.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable

import numpy as np
import tensorflow as tf

from ..reading import DEFAULT_TIMEOUT, ReadTimeout, gave_up, read
from ._core import fail, shorten

#: Seconds a checker waits for an answer's elements.
TIMEOUT = DEFAULT_TIMEOUT


def is_dataset(value: Any) -> bool:
    return isinstance(value, tf.data.Dataset)


def is_function(value: Any) -> bool:
    """True for a function, method, lambda or class the learner passed as a value (not for datasets, tensors)."""
    return callable(value) and not isinstance(value, (tf.data.Dataset, tf.Tensor, np.ndarray, np.generic))


def function_passed(answer: Any, what: str = "a dataset or a value") -> str:
    """The sentence for a function passed where ``what``, made by calling it, was expected."""
    name = getattr(answer, "__name__", type(answer).__name__)
    called = "" if name == "<lambda>" else f" {name}"
    return (f"you passed the function{called} itself, without calling it; expected {what}, made by calling it. "
            f"Call it with its arguments (for example {name if called else 'f'}(...)) and pass what it returns.")


def dataset(answer: Any, what: str = "a tf.data.Dataset") -> tf.data.Dataset:
    """``answer`` if it is a dataset; otherwise fail with a sentence naming what it is."""
    if isinstance(answer, tf.data.Dataset):
        return answer
    kind = type(answer).__name__
    if isinstance(answer, tf.data.Iterator) or (hasattr(answer, "__next__") and hasattr(answer, "__iter__")):
        fail(f"expected {what}, got an iterator (what iter(ds) or ds.as_numpy_iterator() returns, or a Python "
             "generator). Pass the dataset itself: the checker makes its own iterators.")
    if isinstance(answer, (list, tuple, np.ndarray)) or tf.is_tensor(answer):
        fail(f"expected {what}, got a {kind}. Wrap your values with tf.data.Dataset.from_tensor_slices(...).")
    if isinstance(answer, str):
        fail(f"expected {what}, got the text {shorten(answer, 40)}. Pass the dataset object itself, not its name "
             "or its code.")
    if is_function(answer):
        fail(function_passed(answer, what))
    fail(f"expected {what}, got {kind}.")


def one_argument(answer: Any, name: str, argument: str, what: str) -> None:
    """Fail with a sentence unless the learner's function ``answer`` can be called with one argument."""
    try:
        inspect.signature(answer).bind(None)
    except TypeError:
        fail(f"{name} must take one argument, `{argument}` ({what}): def {name}({argument}): ...")
    except ValueError:  # a builtin without a signature: calling it says more
        pass


def called_dataset(answer: Any, name: str, source: Callable[[], tf.data.Dataset]) -> tf.data.Dataset:
    """Call the learner's function ``name`` on ``source()``; fail unless it returns a dataset."""
    if isinstance(answer, tf.data.Dataset):
        fail(f"pass your function itself, without calling it and without building the dataset: "
             f"q.check({name}). The checker calls it with its own source.")
    if not is_function(answer):
        fail(f"pass your function {name} (the one that takes `source` and returns a dataset); got "
             f"{type(answer).__name__} {shorten(answer, 40)}.")
    one_argument(answer, name, "source", "the dataset it starts from")
    result = answer(source())
    if result is None:
        fail(f"{name}(source) returned None: did you forget the `return` in front of the pipeline?")
    return dataset(result, f"{name}(source) to return a tf.data.Dataset")


def elements(ds: tf.data.Dataset, limit: int = 1000, *, timeout: float | None = None) -> list:
    """Up to ``limit`` elements as NumPy values; fail when there are more (an endless pipeline) or time runs out."""
    seconds = TIMEOUT if timeout is None else timeout
    try:
        result = read(ds, max_elements=limit, timeout=seconds, where="check")
    except ReadTimeout as exc:
        fail(gave_up(len(exc.elements), seconds, subject="your dataset", stopped="the check stopped reading"))
    if result.more:
        fail(too_many(ds, limit))
    return result.elements


def too_many(ds: tf.data.Dataset, limit: int) -> str:
    """The sentence for a dataset that gave more than ``limit`` elements, blaming what its length says."""
    try:
        size = int(ds.cardinality())
    except Exception:  # noqa: BLE001 - a dataset whose length cannot be asked: say both causes
        size = int(tf.data.UNKNOWN_CARDINALITY)
    if size == int(tf.data.INFINITE_CARDINALITY):
        return (f"your dataset never ends (more than the {limit} elements the check reads): did you use repeat() "
                "with no count?")
    if size >= 0:
        return (f"your dataset has {size} elements, more than the {limit} this exercise can need: it reads more "
                "data than the exercise's (other files or arrays?), or repeats it.")
    return (f"your dataset produced more than {limit} elements: it reads more data than the exercise's, or never "
            "ends (repeat() with no count?).")


def ids_spec_problem(spec: Any, *, batched: bool) -> str | None:
    """Why ``spec`` is not (batches of) integer ids, as a sentence; None when it is."""
    if not isinstance(spec, tf.TensorSpec):
        return f"each element is {describe_spec(spec)}; expected {'batches of ids' if batched else 'single ids'} " \
               "from tf.data.Dataset.range."
    if is_text(spec):
        return "the elements are text (strings); start from tf.data.Dataset.range, whose ids are numbers."
    if not spec.dtype.is_integer:
        return f"the elements are {spec.dtype.name} values; start from tf.data.Dataset.range, whose ids are integers."
    rank = spec.shape.rank
    if batched and rank == 0:
        return "each element is a single id, not a batch: add batch(...)."
    if batched and rank is not None and rank > 1:
        return f"each element has shape {shape_text(spec.shape)}: batches of batches. Batch only once."
    if not batched and rank not in (0, None):
        return f"each element is {describe_spec(spec)}; expected single ids. Leave batch() out."
    return None


def id_batches(ds: tf.data.Dataset, limit: int = 200) -> list[list[int]]:
    """Batches of integer ids as lists; fails with a sentence when the elements are something else."""
    problem = ids_spec_problem(ds.element_spec, batched=True)
    if problem:
        fail(problem)
    return [[int(i) for i in np.ravel(b)] for b in elements(ds, limit)]


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
        if spec.dtype == tf.string:
            kind, plural = "text (string)", "text values (strings)"
        elif spec.dtype == tf.bool:
            kind, plural = "bool (True or False)", "bools (True or False)"
        else:
            kind, plural = f"{spec.dtype.name} number", f"{spec.dtype.name} numbers"
        if spec.shape.rank == 0:
            return f"a single {kind}"
        word = "a batch of" if spec.shape.rank == 1 and spec.shape[0] is None else "a tensor of"
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


def values(ds: tf.data.Dataset, limit: int) -> list:
    """Up to ``limit`` elements as plain Python values (lists, ints, floats, str); see :func:`elements`."""
    return [plain(e) for e in elements(ds, limit)]


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
