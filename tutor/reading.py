"""Reading a dataset into NumPy values, always bounded in elements and in time.

Every ``tutor`` function that reads a dataset goes through :func:`read`, so an
endless ``repeat()`` stops after ``max_elements`` and a pipeline that produces
nothing for a long time (a ``filter`` that never matches, on an endless input)
stops at a deadline with a message that says why, instead of hanging the
notebook.

>>> take_elements(tf.data.Dataset.range(3))
[0, 1, 2]
>>> take_elements(tf.data.Dataset.range(3).repeat(), max_elements=5)
[0, 1, 2, 0, 1]
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

import numpy as np

from ._validate import require_dataset, require_positive_int, require_seconds

#: Seconds a read may take before it stops with :class:`ReadTimeout`.
DEFAULT_TIMEOUT = 10.0


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


def take_elements(dataset, max_elements: int = 100, *, timeout: float = DEFAULT_TIMEOUT) -> list[Any]:
    """Return up to ``max_elements`` elements of ``dataset`` as NumPy values.

    Tuples and dicts keep their structure; strings come back as ``bytes``;
    NumPy scalars become Python numbers, so lists print cleanly. Reading
    stops after ``max_elements``, so an endless ``repeat()`` is safe, and after
    ``timeout`` seconds, so a ``filter`` that never matches is safe too.

    Examples
    --------
    >>> take_elements(tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0))
    [0, 3, 6, 9]
    """
    result = read(dataset, max_elements=max_elements, timeout=timeout, where="take_elements")
    return [plain(e) for e in result.elements]


def read(dataset, *, max_elements: int, timeout: float = DEFAULT_TIMEOUT, where: str = "read") -> Read:
    """Read at most ``max_elements`` elements (plus one, to learn whether there are more).

    Raises :class:`ReadTimeout` when the elements have not all arrived after
    ``timeout`` seconds. A dataset whose length TensorFlow knows is read
    directly; any other (``filter``, generators, files, ``interleave``) is read
    in a helper thread that the deadline can cancel.

    >>> read(tf.data.Dataset.range(5), max_elements=3)
    Read(3 elements, more left)
    """
    import tensorflow as tf

    require_dataset(dataset, where)
    max_elements = require_positive_int(max_elements, "max_elements", where)
    timeout = require_seconds(timeout, "timeout", where)
    bounded = dataset.take(max_elements + 1)
    if int(dataset.cardinality()) >= 0:  # a known, finite length: nothing can spin forever
        values = list(bounded.as_numpy_iterator())
    else:
        values = _read_with_deadline(bounded, timeout, where, tf)
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


def _read_with_deadline(dataset, timeout: float, where: str, tf) -> list:
    """Pull elements in a thread; at the deadline, cancel the pull that is still running."""
    next_fn, cancel = cancellable_next(iter(dataset))
    values: list = []
    failure: list[BaseException] = []
    finished = threading.Event()

    def pull() -> None:
        try:
            while True:
                more, value = next_fn()
                if not more:
                    break
                values.append(tf.nest.map_structure(_to_numpy, value))
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)
        finally:
            finished.set()

    worker = threading.Thread(target=pull, name="tutor-read", daemon=True)
    start = time.monotonic()
    worker.start()
    finished.wait(timeout)
    if not finished.is_set():
        cancel()
        finished.wait(2.0)
        got = list(values)
        raise ReadTimeout(_timeout_message(where, timeout, len(got), time.monotonic() - start), got)
    if failure:
        raise failure[0]
    return values


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
        f"{where}: {what}, so reading stopped (the limit is {timeout:g} s). This usually means a filter() "
        "that matches nothing on an endless or very long input (repeat() with no count, or a huge range), "
        "or a source that waits forever. Check the filter's condition, or add a count to repeat()."
    )
