"""Reading a dataset into NumPy values, always bounded in elements and in time.

Every ``tutor`` function that reads a dataset goes through :func:`read` (whose
loop is :func:`pull`), so an endless ``repeat()`` stops after ``max_elements``,
and a pipeline that produces nothing for a long time (a ``filter`` that never
matches on an endless input, a ``map`` whose function waits forever) stops at
a deadline with a message that says why, instead of hanging the notebook. A
read that gives up leaves nothing stuck: later pipelines run as before.

>>> take_elements(tf.data.Dataset.range(3))
[0, 1, 2]
>>> take_elements(tf.data.Dataset.range(3).repeat(), max_elements=5)
[0, 1, 2, 0, 1]
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Callable

import numpy as np

from ._validate import require_dataset, require_positive_int, require_seconds

#: Seconds a read may take before it stops with :class:`ReadTimeout`.
DEFAULT_TIMEOUT = 10.0

#: The usual reasons a dataset yields nothing for a long time, and what to try; every "gave up" message ends so.
NEVER_YIELDS_CAUSES = (
    "The usual causes: a map() whose function waits and never returns (a py_function or numpy_function stuck "
    "on a lock, a file or a network call), a filter() that matches nothing on an endless or very long input "
    "(repeat() with no count, or a huge range), or a source that waits forever. Test the function on one "
    "element outside the pipeline, check the filter's condition, or add a count to repeat()."
)


class ReadTimeout(TimeoutError):
    """A dataset did not finish producing the elements asked for before the deadline.

    ``elements`` holds what it produced in time (NumPy values).
    """

    def __init__(self, message: str, elements: list):
        super().__init__(message)
        self.elements = elements


class Read:
    """What :func:`read` got: ``elements`` (NumPy values), and ``more``: True when the dataset had more."""

    def __init__(self, elements: list, more: bool):
        self.elements = elements
        self.more = bool(more)

    def __repr__(self) -> str:
        return f"Read({len(self.elements)} elements{', more left' if self.more else ''})"


def take_elements(dataset, max_elements: int = 100, *, timeout: float | None = None) -> list[Any]:
    """Return up to ``max_elements`` elements of ``dataset`` as NumPy values.

    Tuples and dicts keep their structure; strings come back as ``bytes``;
    NumPy scalars become Python numbers, so lists print cleanly. Reading
    stops after ``max_elements``, so an endless ``repeat()`` is safe, and after
    ``timeout`` seconds (default :data:`DEFAULT_TIMEOUT`), so a ``filter``
    that never matches, or a ``map`` that waits forever, is safe too.

    Examples
    --------
    >>> take_elements(tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0))
    [0, 3, 6, 9]
    """
    result = read(dataset, max_elements=max_elements, timeout=timeout, where="take_elements")
    return [plain(e) for e in result.elements]


def read(dataset, *, max_elements: int, timeout: float | None = None, where: str = "read") -> Read:
    """Read at most ``max_elements`` elements (plus one, to learn whether there are more).

    Raises :class:`ReadTimeout` when the elements have not all arrived after
    ``timeout`` seconds (default :data:`DEFAULT_TIMEOUT`), whatever the dataset: a ``filter`` that matches
    nothing, or a ``map`` whose function waits forever, even on a dataset
    whose length TensorFlow knows. The read runs in a helper thread (:func:`pull`),
    and a read that gives up leaves nothing behind that later pipelines wait for.

    >>> read(tf.data.Dataset.range(5), max_elements=3)
    Read(3 elements, more left)
    """
    import tensorflow as tf

    require_dataset(dataset, where)
    max_elements = require_positive_int(max_elements, "max_elements", where)
    timeout = require_seconds(DEFAULT_TIMEOUT if timeout is None else timeout, "timeout", where)
    values = pull(dataset.take(max_elements + 1), timeout=timeout, where=where,
                  convert=lambda value: tf.nest.map_structure(_to_numpy, value))
    return Read(values[:max_elements], len(values) > max_elements)


def plain(value: Any) -> Any:
    """Turn NumPy scalars into Python numbers so lists print cleanly; keep arrays and structure.

    >>> plain((np.int64(3), {"a": np.float32(0.5)}))
    (3, {'a': 0.5})
    """
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if hasattr(value, "ndim") and value.ndim == 0 and hasattr(value, "item"):
        return value.item()
    return value


def _to_numpy(x: Any) -> Any:
    if x is None:
        return None
    value = x.numpy()
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    return value


#: Reads that gave up, kept alive on purpose, for the life of the process. Destroying a tf.data iterator
#: waits for the function calls it has in flight (``~Iterator`` of a fused map + batch, of a parallel map,
#: ... calls ``CancelThreads(/*wait=*/true)``), and a call that waits forever would make whichever thread
#: drops the last reference (the notebook's own, through garbage collection) wait forever too.
_ABANDONED: list = []


def pull(dataset, *, timeout: float, where: str, convert: Callable = lambda value: value,
         on_element: Callable | None = None, limit: int | None = None, around: Callable | None = None) -> list:
    """Every element of ``dataset`` (at most ``limit``), pulled in a helper thread within ``timeout`` seconds.

    This is the one loop that reads a learner's pipeline. At the deadline the
    pull that is still waiting is cancelled, the iterator is set aside (see
    ``_ABANDONED``) and :class:`ReadTimeout` says why, so the caller's thread
    never waits longer than ``timeout`` plus a moment. ``on_element(i, value)``
    runs in the helper thread after element ``i`` arrived. ``around(what, i)``,
    if given, returns a context manager wrapped around making the iterator
    (``what="iterator"``, ``i=None``) and around each ``next`` (``"next"``, ``i``),
    as ``tutor.profile`` marks them for TensorFlow's profiler.

    >>> pull(tf.data.Dataset.range(3), timeout=5, where="example", convert=int)
    [0, 1, 2]
    """
    around = around or (lambda what, i: contextlib.nullcontext())
    state: dict[str, Any] = {"cancel": None, "iterator": None, "error": None}
    values: list = []
    finished = threading.Event()

    def work() -> None:
        try:
            with around("iterator", None):
                state["iterator"] = iter(dataset)
            next_fn, state["cancel"] = cancellable_next(state["iterator"])
            while limit is None or len(values) < limit:
                with around("next", len(values)):
                    more, value = next_fn()
                if not more:
                    break
                values.append(convert(value))
                if on_element is not None:
                    on_element(len(values) - 1, value)
        except BaseException as exc:  # handed to the caller's thread below
            state["error"] = exc
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="tutor-read", daemon=True)
    start = time.monotonic()
    worker.start()
    try:
        in_time = finished.wait(timeout)
    except BaseException:  # the learner interrupted the kernel: stop the helper thread too
        abandon(state["cancel"], state, dataset, worker)
        raise
    if not in_time:
        abandon(state["cancel"], state, dataset, worker)
        finished.wait(0.5)
        got = list(values)
        raise ReadTimeout(_timeout_message(where, timeout, len(got), time.monotonic() - start), got)
    if state["error"] is not None:
        raise state["error"]
    return values


def abandon(cancel: Callable | None, *held: Any) -> None:
    """Give up on a read: ``cancel()`` the pull that waits, and keep ``held`` alive for good (``_ABANDONED``).

    ``held`` is everything that refers to the iterator (the reading thread's
    state, the dataset, the thread), so its destructor never runs.

    The extra reference keeps the objects alive also while Python shuts down,
    when module globals are cleared; the process then ends without running
    the waiting destructors.
    """
    import ctypes

    if cancel is not None:
        cancel()
    kept = tuple(held)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(kept))
    _ABANDONED.append(kept)


def cancellable_next(iterator) -> tuple[Callable, Callable]:
    """``(next_fn, cancel)``: ``next_fn()`` returns ``(True, element)`` or ``(False, None)`` at the end.

    ``cancel()`` stops a ``next_fn`` that is waiting. The public API has no
    cancellation, so this uses TensorFlow's eager one: the iterator's
    ``IteratorGetNext`` op run with a cancellation manager, which costs what
    a plain ``next()`` costs. Where a TensorFlow release lacks a piece of
    that, a ``tf.function`` around ``get_next_as_optional`` with the same
    manager does the job (about twice the Python overhead per step).
    """
    import tensorflow as tf
    from tensorflow.python.eager import cancellation  # not in the public API

    manager = cancellation.CancellationManager()
    try:
        from tensorflow.python.data.util import structure
        from tensorflow.python.eager import context, execute

        resource, spec = iterator._iterator_resource, iterator.element_spec
        types = iterator._flat_output_types
        attrs = ("output_types", types, "output_shapes", iterator._flat_output_shapes)

        def next_fn():
            try:
                flat = execute.execute_with_cancellation("IteratorGetNext", len(types), [resource], attrs,
                                                         context.context(), manager)
            except tf.errors.OutOfRangeError:
                return False, None
            return True, structure.from_compatible_tensor_list(spec, flat)
    except (ImportError, AttributeError):  # pragma: no cover - another TensorFlow's internals
        function = tf.function(lambda it: it.get_next_as_optional(), autograph=False)
        cancellable = manager.get_cancelable_function(function.get_concrete_function(iterator))

        def next_fn():
            optional = cancellable(iterator)
            return (True, optional.get_value()) if optional.has_value() else (False, None)
    return next_fn, manager.start_cancel



def _timeout_message(where: str, timeout: float, got: int, elapsed: float) -> str:
    if got == 0:
        what = f"the dataset produced no element in {elapsed:.0f} s"
    else:
        what = f"the dataset produced only {got} element{'s' if got != 1 else ''} in {elapsed:.0f} s"
    return (
        f"{where}: {what}, so reading stopped (the limit is {timeout:g} s). {NEVER_YIELDS_CAUSES} "
        "Other pipelines keep working."
    )
