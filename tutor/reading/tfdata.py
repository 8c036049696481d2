"""The tf.data side of the reading loop: a cancellable ``next``, and iterators kept alive after a give-up.

:class:`TfSource` is what :func:`tutor.reading.loop.run` reads a
``tf.data.Dataset`` through. At the deadline the ``next`` that still waits is
cancelled with TensorFlow's eager cancellation (:func:`cancellable_next`), and
the iterator is set aside for good (:func:`abandon`): destroying it would wait
for the calls it has in flight.

This module uses TensorFlow internals (``tensorflow.python.eager``, an
iterator's resource): the public API has no way to cancel a ``next`` that waits.
"""
from __future__ import annotations

from typing import Any, Callable

#: Reads that gave up, kept alive on purpose, for the life of the process. Destroying a tf.data iterator
#: waits for the function calls it has in flight (``~Iterator`` of a fused map + batch, of a parallel map,
#: ... calls ``CancelThreads(/*wait=*/true)``), and a call that waits forever would make whichever thread
#: drops the last reference (the notebook's own, through garbage collection) wait forever too.
_ABANDONED: list = []


class TfSource:
    """A ``tf.data.Dataset`` for the reading loop: a fresh iterator, a cancellable ``next``, kept alive on a stop."""

    thread_name = "tutor-read"

    def __init__(self, dataset):
        self.dataset = dataset
        self.iterator = None
        self.cancel: Callable | None = None
        self._next: Callable | None = None

    def open(self) -> None:
        self.iterator = iter(self.dataset)
        self._next, self.cancel = cancellable_next(self.iterator)

    def next(self) -> tuple[bool, Any]:
        return self._next()

    def stop(self, worker, finished) -> None:
        """Cancel the ``next`` that waits and keep the iterator alive for good; give the thread a moment to end."""
        abandon(self.cancel, self, self.dataset, worker)
        finished.wait(0.5)


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
