"""The Grain side of the reading loop: index-by-index reads, and a reading thread asked to stop until it has.

Grain (``pip install grain``) stays optional: this module never imports it
unless it is handed something that came from Grain, so ``import tutor`` works
without it. :func:`is_grain_dataset` tells the reader which source to use;
:class:`GrainSource` is what :func:`tutor.reading.loop.run` reads a
``grain.MapDataset`` or ``grain.IterDataset`` through; :func:`id_kind` checks
that an element is an id or a batch of ids.

A Grain pipeline runs in Python, so the deadline stops it the Python way: at
the deadline the reading thread is asked to stop. A ``MapDataset`` is read
index by index there, so a ``filter`` that never matches on an endless
``repeat()`` spins in that thread and sees the request at its next index. An
``IterDataset``'s iterator is closed (Grain's own way to stop it: its
prefetch threads stop taking work, and the next step raises); only a thread
still running after that (a map function of the learner's that never
returns) gets an exception raised in it.

>>> is_grain_dataset([1, 2, 3])
False
"""
from __future__ import annotations

import ctypes
import threading
from numbers import Integral
from typing import Any

import numpy as np

from ..i18n import gettext as _


def is_grain_dataset(obj: Any) -> bool:
    """True for a ``grain.MapDataset`` or ``grain.IterDataset`` (False, without importing Grain, for anything else).

    >>> is_grain_dataset(np.arange(3))
    False
    """
    if not any(k.__module__.split(".")[0] == "grain" for k in type(obj).__mro__):
        return False
    import grain

    return isinstance(obj, (grain.MapDataset, grain.IterDataset))


class Stop(BaseException):
    """Raised inside the reading thread when the deadline has passed.

    A BaseException, like KeyboardInterrupt, so that code which catches ``Exception`` on the way (a library's
    error handling) lets it through.
    """


#: After the deadline, how often and how many times the reading thread is asked to stop (see :func:`stop_thread`).
STOP_EVERY, STOP_TRIES = 0.25, 40


class GrainSource:
    """A Grain dataset for the reading loop: its elements in the reading thread, which stops when asked."""

    thread_name = "tutor-grain-read"

    def __init__(self, dataset):
        self.dataset = dataset
        self.stopping = threading.Event()
        self.iterator = None

    def open(self) -> None:
        self.iterator = elements(self.dataset, self.stopping)

    def next(self) -> tuple[bool, Any]:
        try:
            return True, next(self.iterator)
        except StopIteration:
            return False, None

    def stop(self, worker: threading.Thread, finished: threading.Event) -> None:
        """Set the flag an index-by-index read checks, close an IterDataset's iterator, then insist if need be.

        Closing first matters: an exception raised in a thread can land between taking a lock and the ``with``
        that would release it. Inside Grain's prefetch that lock can be ``concurrent.futures``' global one, and
        then the interpreter's exit (which takes it) waits for ever.
        """
        self.stopping.set()
        close = getattr(self.iterator, "close", None)  # a Grain DatasetIterator (not the index-by-index reader)
        if close is not None:
            try:
                close()
            except Exception:  # noqa: BLE001 - a half-made iterator: the stop requests below still come
                pass
            finished.wait(STOP_EVERY)
        stop_thread(worker, finished)


def elements(dataset: Any, stopping: threading.Event):
    """An iterator over the dataset's elements that ends with :class:`Stop` once ``stopping`` is set.

    A ``MapDataset`` is read index by index in this thread, skipping the Nones of a ``filter`` as its own
    iterator does: so a filter that matches nothing on an endless ``repeat()`` spins here, where the request to
    stop is seen at the next index, not inside Grain's iterator (which reads ahead on threads of its own).
    """
    import grain

    if isinstance(dataset, grain.MapDataset):
        def by_index():
            for index in range(len(dataset)):
                if stopping.is_set():
                    raise Stop
                value = dataset[index]
                if value is not None:
                    yield value
        return by_index()
    return iter(dataset)


def stop_thread(worker: threading.Thread, finished: threading.Event) -> None:
    """Ask the reading thread to stop until it has: once may not be enough.

    A ``MapDataset`` read also sees the ``stopping`` flag between two elements (:func:`elements`); this
    exception reaches the thread inside Python code that runs long (a map or an IterDataset's filter). It can
    land where Python swallows exceptions: in a ``__del__`` that the garbage collector runs in that thread
    ("Exception ignored in ..."). A thread that missed it would go on spinning for ever and slow every later
    read, so it is asked again every ``STOP_EVERY`` seconds, up to ``STOP_TRIES`` times (10 s in all); the
    caller gives up on it then, whatever happened.
    """
    for _unused in range(STOP_TRIES):
        if finished.is_set() or not worker.is_alive():
            return
        raise_in(worker, Stop)
        finished.wait(STOP_EVERY)


def raise_in(thread: threading.Thread, exc_type: type) -> None:
    """Ask ``thread`` to raise ``exc_type`` at its next Python step (CPython's PyThreadState_SetAsyncExc)."""
    if thread.ident is not None and thread.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))


def id_kind(value: Any, where: str) -> bool:
    """False for one integer id, True for a 1-D batch of integer ids; a TypeError with a sentence otherwise.

    >>> id_kind(3, "f"), id_kind(np.arange(4), "f")
    (False, True)
    """
    if isinstance(value, Integral) and not isinstance(value, bool):
        return False
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.integer) and value.ndim in (0, 1):
        return value.ndim == 1
    if hasattr(value, "shape"):
        said = _("{where} expects a Grain dataset of integer element ids, such as grain.MapDataset.range(n) "
                 "(optionally batched), got an element of type {type} of shape {shape}. Map it to ids first, "
                 "for example ds.map(lambda example: example['label']).")
    else:
        said = _("{where} expects a Grain dataset of integer element ids, such as grain.MapDataset.range(n) "
                 "(optionally batched), got an element of type {type}. Map it to ids first, "
                 "for example ds.map(lambda example: example['label']).")
    raise TypeError(said.format(where=where, type=type(value).__name__, shape=getattr(value, "shape", None)))
