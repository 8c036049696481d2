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

from ..i18n import ngettext
from ..i18n import gettext as _
from ..reading import DEFAULT_TIMEOUT, ReadTimeout, gave_up, read
from ._core import fail, shorten

#: Seconds a checker waits for an answer's elements.
TIMEOUT = DEFAULT_TIMEOUT


def is_dataset(value: Any) -> bool:
    return isinstance(value, tf.data.Dataset)


def is_function(value: Any) -> bool:
    """True for a function, method, lambda or class the learner passed as a value (not for datasets, tensors)."""
    return callable(value) and not isinstance(value, (tf.data.Dataset, tf.Tensor, np.ndarray, np.generic))


def function_passed(answer: Any, what: str | None = None) -> str:
    """The sentence for a function passed where ``what`` (translated; default: a dataset or a value), made by
    calling it, was expected."""
    name = getattr(answer, "__name__", type(answer).__name__)
    what = what or _("a dataset or a value")
    if name == "<lambda>":
        # Translators: {what} completes "expected ...": what the exercise asks for ("a tf.data.Dataset").
        return _("you passed the function itself, without calling it; expected {what}, made by calling it. "
                 "Call it with its arguments (for example f(...)) and pass what it returns.").format(what=what)
    # Translators: {name} is the name of the learner's function; {what} completes "expected ...".
    return _("you passed the function {name} itself, without calling it; expected {what}, made by calling it. "
             "Call it with its arguments (for example {name}(...)) and pass what it returns.").format(name=name,
                                                                                                    what=what)


def dataset(answer: Any, what: str | None = None) -> tf.data.Dataset:
    """``answer`` if it is a dataset; otherwise fail with a sentence naming what it is.

    ``what`` completes "expected ..." (translated; default: a tf.data.Dataset).
    """
    if isinstance(answer, tf.data.Dataset):
        return answer
    what = what or _("a tf.data.Dataset")
    kind = type(answer).__name__
    if isinstance(answer, tf.data.Iterator) or (hasattr(answer, "__next__") and hasattr(answer, "__iter__")):
        # Translators: {what} is what the exercise asks for, such as "a tf.data.Dataset".
        fail(_("expected {what}, got an iterator (what iter(ds) or ds.as_numpy_iterator() returns, or a Python "
               "generator). Pass the dataset itself: the checker makes its own iterators.").format(what=what))
    if isinstance(answer, (list, tuple, np.ndarray)) or tf.is_tensor(answer):
        # Translators: {kind} is a Python type's name: list, tuple, ndarray, EagerTensor.
        fail(_("expected {what}, got a {kind}. Wrap your values with tf.data.Dataset.from_tensor_slices(...).").format(
            what=what, kind=kind))
    if isinstance(answer, str):
        fail(_("expected {what}, got the text {text}. Pass the dataset object itself, not its name or its "
               "code.").format(what=what, text=shorten(answer, 40)))
    if is_function(answer):
        fail(function_passed(answer, what))
    # Translators: {kind} is a Python type's name: int, dict, NoneType.
    fail(_("expected {what}, got {kind}.").format(what=what, kind=kind))


def one_argument(answer: Any, name: str, argument: str, what: str) -> None:
    """Fail with a sentence unless the learner's function ``answer`` can be called with one argument.

    ``what`` (translated) says what the argument is.
    """
    try:
        inspect.signature(answer).bind(None)
    except TypeError:
        # Translators: {name} is the function's name, {argument} its argument's; {what} says what the argument is.
        fail(_("{name} must take one argument, `{argument}` ({what}): def {name}({argument}): ...").format(
            name=name, argument=argument, what=what))
    except ValueError:  # a builtin without a signature: calling it says more
        pass


def called_dataset(answer: Any, name: str, source: Callable[[], tf.data.Dataset]) -> tf.data.Dataset:
    """Call the learner's function ``name`` on ``source()``; fail unless it returns a dataset."""
    if isinstance(answer, tf.data.Dataset):
        fail(_("pass your function itself, without calling it and without building the dataset: q.check({name}). "
               "The checker calls it with its own source.").format(name=name))
    if not is_function(answer):
        # Translators: {kind} is a Python type's name, {value} the value itself.
        fail(_("pass your function {name} (the one that takes `source` and returns a dataset); got {kind} "
               "{value}.").format(name=name, kind=type(answer).__name__, value=shorten(answer, 40)))
    one_argument(answer, name, "source", _("the dataset it starts from"))
    result = answer(source())
    if result is None:
        fail(_("{name}(source) returned None: did you forget the `return` in front of the pipeline?").format(name=name))
    # Translators: completes "expected ..., got ...".
    return dataset(result, _("{name}(source) to return a tf.data.Dataset").format(name=name))


def elements(ds: tf.data.Dataset, limit: int = 1000, *, timeout: float | None = None) -> list:
    """Up to ``limit`` elements as NumPy values; fail when there are more (an endless pipeline) or time runs out."""
    seconds = TIMEOUT if timeout is None else timeout
    try:
        result = read(ds, max_elements=limit, timeout=seconds, where="check")
    except ReadTimeout as exc:
        # English words: gave_up picks its whole sentence, translated, from them
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
        return _("your dataset never ends (more than the {limit} elements the check reads): did you use repeat() "
                 "with no count?").format(limit=limit)
    if size >= 0:
        return _("your dataset has {size} elements, more than the {limit} this exercise can need: it reads more "
                 "data than the exercise's (other files or arrays?), or repeats it.").format(size=size, limit=limit)
    return _("your dataset produced more than {limit} elements: it reads more data than the exercise's, or never "
             "ends (repeat() with no count?).").format(limit=limit)


def ids_spec_problem(spec: Any, *, batched: bool) -> str | None:
    """Why ``spec`` is not (batches of) integer ids, as a sentence; None when it is."""
    if not isinstance(spec, tf.TensorSpec):
        # Translators: {spec} describes an element in words ("a tuple of 2 parts (...)").
        if batched:
            return _("each element is {spec}; expected batches of ids from tf.data.Dataset.range.").format(
                spec=describe_spec(spec))
        return _("each element is {spec}; expected single ids from tf.data.Dataset.range.").format(
            spec=describe_spec(spec))
    if is_text(spec):
        return _("the elements are text (strings); start from tf.data.Dataset.range, whose ids are numbers.")
    if not spec.dtype.is_integer:
        # Translators: {dtype} is a TensorFlow dtype's name: float32, bool.
        return _("the elements are {dtype} values; start from tf.data.Dataset.range, whose ids are integers.").format(
            dtype=spec.dtype.name)
    rank = spec.shape.rank
    if batched and rank == 0:
        return _("each element is a single id, not a batch: add batch(...).")
    if batched and rank is not None and rank > 1:
        # Translators: {shape} is a shape as Python writes it: (None, 3).
        return _("each element has shape {shape}: batches of batches. Batch only once.").format(
            shape=shape_text(spec.shape))
    if not batched and rank not in (0, None):
        return _("each element is {spec}; expected single ids. Leave batch() out.").format(spec=describe_spec(spec))
    return None


def id_batches(ds: tf.data.Dataset, limit: int = 200) -> list[list[int]]:
    """Batches of integer ids as lists; fails with a sentence when the elements are something else."""
    problem = ids_spec_problem(ds.element_spec, batched=True)
    if problem:
        fail(problem)
    return [[int(i) for i in np.ravel(b)] for b in elements(ds, limit)]


def text(answer: Any, what: str | None = None) -> str:
    """A free-text answer, with case and surrounding spaces ignored; ``what`` (translated) names what to write.

    >>> text("  Distributed_Epoch ")
    'distributed_epoch'
    """
    if not isinstance(answer, str):
        # Translators: {what} is what to write ("a short text", "one of 'a', 'b'"); {kind} a Python type's name.
        fail(_("answer with {what} in quotes, got {kind} {value}.").format(
            what=what or _("a short text"), kind=type(answer).__name__, value=shorten(answer, 40)))
    return " ".join(answer.split()).lower()


def choice(answer: Any, options: Iterable[str]) -> str:
    """One of ``options`` (letters or words), ignoring case and surrounding spaces; fails naming the options."""
    options = [str(o) for o in options]
    listed = ", ".join(repr(o) for o in options)
    # Translators: {options} lists the choices as Python strings: 'a', 'b', 'c'.
    got = text(answer, _("one of {options}").format(options=listed))
    lowered = {o.lower(): o for o in options}
    if got not in lowered:
        fail(_("{answer} is not one of the choices; answer with one of {options}.").format(
            answer=shorten(answer, 40), options=listed))
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
        # Translators: {keys} is a Python list of names: ['image', 'label'].
        return _("a dict with keys {keys}").format(keys=sorted(map(str, spec)))
    if isinstance(spec, (tuple, list)):
        # Translators: {parts} describes each part in words, separated by semicolons.
        return ngettext("a tuple of {n} part ({parts})", "a tuple of {n} parts ({parts})", len(spec)).format(
            n=len(spec), parts="; ".join(describe_spec(s) for s in spec))
    if isinstance(spec, tf.RaggedTensorSpec):
        return _("a ragged tensor of shape {shape}").format(shape=shape_text(spec.shape))
    if isinstance(spec, tf.TensorSpec):
        return _tensor_words(spec)
    if isinstance(spec, tf.data.DatasetSpec):
        return _("a whole dataset (as window() gives)")
    return type(spec).__name__


def _tensor_words(spec: tf.TensorSpec) -> str:
    """A tensor's spec in words: a single value, a batch of them or a tensor of them, by kind of value."""
    dtype, shape = spec.dtype.name, shape_text(spec.shape)
    kind = "text" if spec.dtype == tf.string else "bool" if spec.dtype == tf.bool else "number"
    if spec.shape.rank == 0:
        return {"text": _("a single text (string)"), "bool": _("a single bool (True or False)"),
                # Translators: {dtype} is a TensorFlow dtype's name: int64, float32.
                "number": _("a single {dtype} number").format(dtype=dtype)}[kind]
    if spec.shape.rank == 1 and spec.shape[0] is None:
        # Translators: {shape} is a shape as Python writes it: (None,).
        return {"text": _("a batch of text values (strings), shape {shape}"),
                "bool": _("a batch of bools (True or False), shape {shape}"),
                "number": _("a batch of {dtype} numbers, shape {shape}")}[kind].format(dtype=dtype, shape=shape)
    return {"text": _("a tensor of text values (strings), shape {shape}"),
            "bool": _("a tensor of bools (True or False), shape {shape}"),
            "number": _("a tensor of {dtype} numbers, shape {shape}")}[kind].format(dtype=dtype, shape=shape)


def shape_text(shape: tf.TensorShape) -> str:
    """``(None, 3)``-style text for a shape (``unknown`` when even the rank is unknown)."""
    if shape.rank is None:
        # Translators: a shape whose rank is unknown.
        return _("unknown")
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
