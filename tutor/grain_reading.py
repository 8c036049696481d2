"""Reading a Grain dataset's integer ids, bounded in elements and in time, as :mod:`tutor.reading` does for tf.data.

Grain (``pip install grain``) stays optional: this module never imports it
unless it is handed something that came from Grain, so ``import tutor`` works
without it. :func:`is_grain_dataset` tells the Displays which reader to use;
:func:`read_ids` reads a ``grain.MapDataset`` or ``grain.IterDataset``.

A Grain pipeline runs in Python, so the deadline stops it the Python way: the
read runs in a helper thread, which at the deadline is asked to stop. A
``MapDataset`` is read index by index there, so a ``filter`` that never matches
on an endless ``repeat()`` spins in that thread and sees the request at its
next index; anything else gets an exception raised in the thread.

>>> import grain
>>> read_ids(grain.MapDataset.range(5), max_elements=3, where="f")
(Read(3 elements, more left), False)
"""
from __future__ import annotations

import ctypes
import threading
import time
from numbers import Integral
from typing import Any

import numpy as np

from ._validate import require_positive_int, require_seconds
from .reading import DEFAULT_TIMEOUT, Read, ReadTimeout


def is_grain_dataset(obj: Any) -> bool:
    """True for a ``grain.MapDataset`` or ``grain.IterDataset`` (False, without importing Grain, for anything else).

    >>> is_grain_dataset([1, 2, 3])
    False
    """
    if not any(k.__module__.split(".")[0] == "grain" for k in type(obj).__mro__):
        return False
    import grain

    return isinstance(obj, (grain.MapDataset, grain.IterDataset))


class _Stop(BaseException):
    """Raised inside the reading thread when the deadline has passed.

    A BaseException, like KeyboardInterrupt, so that code which catches ``Exception`` on the way (a library's
    error handling) lets it through.
    """


#: After the deadline, how often and how many times the reading thread is asked to stop (see :func:`_stop`).
STOP_EVERY, STOP_TRIES = 0.25, 40


def read_ids(dataset: Any, *, max_elements: int, timeout: float = DEFAULT_TIMEOUT,
             where: str = "read") -> tuple[Read, bool]:
    """Read up to ``max_elements`` elements of integer ids from a Grain dataset: ``(Read, batched)``.

    Each element must be an integer (Python or NumPy) or a 1-D integer array (a
    batch); ``batched`` says which. ``Read.elements`` holds ints or 1-D int64
    arrays, and ``Read.more`` says whether the dataset had more. Raises
    :class:`tutor.reading.ReadTimeout` when the elements have not all arrived
    after ``timeout`` seconds, and ``TypeError`` with a sentence for elements
    that are not ids.
    """
    max_elements = require_positive_int(max_elements, "max_elements", where)
    timeout = require_seconds(timeout, "timeout", where)
    values: list = []
    failure: list[BaseException] = []
    finished, stopping = threading.Event(), threading.Event()
    kinds: list[bool] = []

    def pull() -> None:
        try:
            iterator = _elements(dataset, stopping)
            for _ in range(max_elements + 1):
                try:
                    value = next(iterator)
                except StopIteration:
                    break
                batched = _id_kind(value, where)
                if kinds and batched != kinds[0]:
                    raise TypeError(f"{where}: the dataset mixes single ids and batches of ids; "
                                    "give it one kind of element only.")
                kinds.append(batched)
                values.append(np.asarray(value, dtype=np.int64) if batched else int(value))
        except _Stop:
            pass
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)
        finally:
            finished.set()

    worker = threading.Thread(target=pull, name="tutor-grain-read", daemon=True)
    start = time.monotonic()
    worker.start()
    finished.wait(timeout)
    if not finished.is_set():
        stopping.set()
        _stop(worker, finished)
        got = list(values)
        raise ReadTimeout(_timeout_message(where, timeout, len(got), time.monotonic() - start), got)
    if failure:
        raise failure[0]
    return Read(values[:max_elements], len(values) > max_elements), bool(kinds and kinds[0])


def _id_kind(value: Any, where: str) -> bool:
    """False for one integer id, True for a 1-D batch of integer ids; a TypeError with a sentence otherwise."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        return False
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.integer) and value.ndim in (0, 1):
        return value.ndim == 1
    shape = f" of shape {value.shape}" if hasattr(value, "shape") else ""
    raise TypeError(
        f"{where} expects a Grain dataset of integer element ids, such as grain.MapDataset.range(n) "
        f"(optionally batched), got an element of type {type(value).__name__}{shape}. Map it to ids first, "
        "for example ds.map(lambda example: example['label'])."
    )


def _elements(dataset: Any, stopping: threading.Event):
    """An iterator over the dataset's elements that ends with :class:`_Stop` once ``stopping`` is set.

    A ``MapDataset`` is read index by index in this thread, skipping the Nones of a ``filter`` as its own
    iterator does: so a filter that matches nothing on an endless ``repeat()`` spins here, where the request to
    stop is seen at the next index, not inside Grain's iterator (which reads ahead on threads of its own).
    """
    import grain

    if isinstance(dataset, grain.MapDataset):
        def by_index():
            for index in range(len(dataset)):
                if stopping.is_set():
                    raise _Stop
                value = dataset[index]
                if value is not None:
                    yield value
        return by_index()
    return iter(dataset)


def _stop(worker: threading.Thread, finished: threading.Event) -> None:
    """Ask the reading thread to stop until it has: once may not be enough.

    A ``MapDataset`` read also sees the ``stopping`` flag between two elements (:func:`_elements`); this
    exception reaches the thread inside Python code that runs long (a map or an IterDataset's filter). It can
    land where Python swallows exceptions: in a ``__del__`` that the garbage collector runs in that thread
    ("Exception ignored in ..."). A thread that missed it would go on spinning for ever and slow every later
    read, so it is asked again every ``STOP_EVERY`` seconds, up to ``STOP_TRIES`` times (10 s in all); the
    caller gives up on it then, whatever happened.
    """
    for _ in range(STOP_TRIES):
        if finished.is_set() or not worker.is_alive():
            return
        _raise_in(worker, _Stop)
        finished.wait(STOP_EVERY)


def _raise_in(thread: threading.Thread, exc_type: type) -> None:
    """Ask ``thread`` to raise ``exc_type`` at its next Python step (CPython's PyThreadState_SetAsyncExc)."""
    if thread.ident is not None and thread.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))


def _timeout_message(where: str, timeout: float, got: int, elapsed: float) -> str:
    what = (f"the Grain dataset produced no element in {elapsed:.0f} s" if got == 0 else
            f"the Grain dataset produced only {got} element{'s' if got != 1 else ''} in {elapsed:.0f} s")
    return (f"{where}: {what}, so reading stopped (the limit is {timeout:g} s). This usually means a filter() "
            "that matches nothing on an endless input (repeat() with no count), or a map that waits forever. "
            "Check the filter's condition, or give repeat() a count.")
