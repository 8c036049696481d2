"""Reading a dataset, always bounded in elements and in time: the one path every read of ``tutor`` takes.

Every ``tutor`` function that reads a dataset goes through this package: the
Displays and the checks through :func:`read` (or :func:`read_ids`), timings
through :func:`time_pass`, and readers with their own steps (``tutor.profile``,
``tutor.timeline.record``) through :func:`pull`. All of them run the one loop
of :mod:`.loop`, which reads a tf.data pipeline through :mod:`.tfdata` and a
Grain one through :mod:`.grain`. So an endless ``repeat()`` stops after
``max_elements``, and a pipeline that produces nothing for a long time (a
``filter`` that never matches on an endless input, a ``map`` whose function
waits forever, a huge shuffle buffer still filling) stops at a deadline with
a sentence that says why, instead of hanging the notebook. A read that gives
up leaves nothing stuck: later pipelines run as before.

>>> take_elements(tf.data.Dataset.range(3))
[0, 1, 2]
>>> take_elements(tf.data.Dataset.range(3).repeat(), max_elements=5)
[0, 1, 2, 0, 1]
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._validate import require_dataset, require_integer_ids, require_positive_int, require_seconds
from ..i18n import gettext as _
from .grain import GrainSource, id_kind, is_grain_dataset
from .loop import NEVER_YIELDS_CAUSES, Read, ReadTimeout, gave_up, run
from .tfdata import TfSource, abandon, cancellable_next

__all__ = ["DEFAULT_TIMEOUT", "NEVER_YIELDS_CAUSES", "PASS_TIMEOUT", "Read", "ReadTimeout", "abandon",
           "cancellable_next", "gave_up", "is_grain_dataset", "plain", "pull", "read", "read_ids", "take_elements",
           "time_pass"]

#: Seconds a read may take before it stops with :class:`ReadTimeout`.
DEFAULT_TIMEOUT = 10.0
#: Seconds a timing pass (or a recorded run) may wait for one element before it stops with :class:`ReadTimeout`.
PASS_TIMEOUT = 30.0


def source_of(dataset, where: str):
    """The loop's source for ``dataset``: Grain's or tf.data's (a sentence for anything else)."""
    if is_grain_dataset(dataset):
        return GrainSource(dataset)
    return TfSource(require_dataset(dataset, where))


def pull(dataset, *, timeout: float, where: str, convert: Callable = lambda value: value,
         on_element: Callable | None = None, limit: int | None = None, around: Callable | None = None,
         idle: bool = False) -> list:
    """Every element of ``dataset`` (at most ``limit``), pulled in a helper thread within ``timeout`` seconds.

    This is the one loop that reads a learner's pipeline (:func:`tutor.reading.loop.run`), for a
    ``tf.data.Dataset`` or a Grain dataset. At the deadline the pull that
    is still waiting is stopped and :class:`ReadTimeout` says why, so the
    caller's thread never waits much longer than ``timeout``. ``idle=True``
    makes the deadline one for each element rather than for the whole read.
    ``on_element(i, value)`` runs in the helper thread after element ``i``
    arrived. ``around(what, i)``, if given, returns a context manager wrapped
    around making the iterator (``what="iterator"``, ``i=None``) and around each
    ``next`` (``"next"``, ``i``), as ``tutor.profile`` marks them for
    TensorFlow's profiler.

    >>> pull(tf.data.Dataset.range(3), timeout=5, where="example", convert=int)
    [0, 1, 2]
    """
    return run(source_of(dataset, where), timeout=timeout, where=where, convert=convert, on_element=on_element,
               limit=limit, around=around, idle=idle).values


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

    ``dataset`` is a ``tf.data.Dataset`` (its elements come back as NumPy
    values) or a Grain dataset (its elements as Grain gives them). Raises
    :class:`ReadTimeout` when the elements have not all arrived after
    ``timeout`` seconds (default :data:`DEFAULT_TIMEOUT`), whatever the dataset:
    a ``filter`` that matches nothing, or a ``map`` whose function waits
    forever, even on a dataset whose length TensorFlow knows. A read that
    gives up leaves nothing behind that later pipelines wait for.

    >>> read(tf.data.Dataset.range(5), max_elements=3)
    Read(3 elements, more left)
    """
    grain = is_grain_dataset(dataset)
    if not grain:
        require_dataset(dataset, where)
    max_elements = require_positive_int(max_elements, "max_elements", where)
    timeout = require_seconds(DEFAULT_TIMEOUT if timeout is None else timeout, "timeout", where)
    if grain:
        source, convert = GrainSource(dataset), (lambda value: value)
    else:
        import tensorflow as tf

        source = TfSource(dataset.take(max_elements + 1))
        convert = lambda value: tf.nest.map_structure(_to_numpy, value)  # noqa: E731
    values = run(source, timeout=timeout, where=where, convert=convert, limit=max_elements + 1).values
    return Read(values[:max_elements], len(values) > max_elements)


def read_ids(dataset, *, max_elements: int, timeout: float | None = None, where: str = "read",
             flat: bool = False) -> tuple[Read, bool]:
    """Read up to ``max_elements`` integer ids, or batches of ids, from any dataset: ``(Read, batched)``.

    ``dataset`` is a ``tf.data.Dataset`` or a Grain dataset whose elements are
    integers or 1-D integer arrays (batches); ``batched`` says which. With
    ``flat=True`` the batches are taken apart and ``max_elements`` counts ids.
    Elements that are not ids get a ``TypeError`` with a sentence; the bounds
    are those of :func:`read`.

    >>> read_ids(tf.data.Dataset.range(5).batch(2), max_elements=4, flat=True)[0].elements
    [0, 1, 2, 3]
    """
    if not is_grain_dataset(dataset):
        require_integer_ids(require_dataset(dataset, where), where)
        batched = dataset.element_spec.shape.rank == 1
        result = read(dataset.unbatch() if flat and batched else dataset, max_elements=max_elements,
                      timeout=timeout, where=where)
        result.elements = [int(v) if np.ndim(v) == 0 else v for v in result.elements]
        return result, batched
    max_elements = require_positive_int(max_elements, "max_elements", where)
    timeout = require_seconds(DEFAULT_TIMEOUT if timeout is None else timeout, "timeout", where)
    kinds: list[bool] = []

    def as_id(value):
        batched = id_kind(value, where)
        if kinds and batched != kinds[0]:
            raise TypeError(_("{where}: the dataset mixes single ids and batches of ids; give it one kind of "
                              "element only.").format(where=where))
        kinds.append(batched)
        return np.asarray(value, dtype=np.int64) if batched else int(value)

    values = run(GrainSource(dataset), timeout=timeout, where=where, convert=as_id, limit=max_elements + 1).values
    result = Read(values[:max_elements], len(values) > max_elements)
    if flat and kinds and kinds[0]:
        ids = [int(i) for batch in values for i in batch]
        result = Read(ids[:max_elements], len(ids) > max_elements or len(values) > max_elements)
    return result, bool(kinds and kinds[0])


def time_pass(dataset, *, rows: bool = False, timeout: float | None = None, where: str = "time_pass"
              ) -> tuple[int, float]:
    """Read ``dataset`` to its end once: (how many elements, or rows of the first component, and the seconds).

    The seconds run from making the iterator to its end of data; the
    iterator is let go only after that: with autotuning on, destroying an
    iterator whose stages ran background threads can wait for tf.data's
    autotuning thread (up to about half a second), which is not the
    pipeline's work and would add a random delay to some runs. A pass may be
    as long as it likes as long as elements keep coming: it stops with
    :class:`ReadTimeout` only when no element comes for ``timeout`` seconds
    (default :data:`PASS_TIMEOUT`).

    >>> time_pass(tf.data.Dataset.range(10).batch(4), rows=True)[0]
    10
    """
    timeout = require_seconds(PASS_TIMEOUT if timeout is None else timeout, "timeout", where)
    pulled = run(source_of(dataset, where), timeout=timeout, where=where, convert=_rows if rows else _one,
                 idle=True)
    return sum(pulled.values), pulled.seconds


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


def _one(value: Any) -> int:
    return 1


def _rows(value: Any) -> int:
    """The leading dimension of the element's first component (1 for a scalar)."""
    while isinstance(value, (tuple, list, dict)) and value:  # the first leaf, in tf.nest's order (sorted keys)
        value = value[sorted(value)[0]] if isinstance(value, dict) else value[0]
    shape = np.shape(value) if not hasattr(value, "shape") else tuple(value.shape)
    return int(shape[0]) if shape else 1
