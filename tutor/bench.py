"""Honest timing of a tf.data pipeline, and a record of the Python calls a pipeline makes.

* :func:`time_pipeline` reads a pipeline to the end, several times (each pass through
  :func:`tutor.reading.time_pass`, so a pipeline that stops yielding gives up with a sentence), and reports
  the median. To say whether one pipeline is faster than another, use :func:`tutor.verdict.compare`.
* :class:`CallRecorder` wraps a Python function (for ``tf.py_function``) and records each call:
  how many there were, and how many ran at the same time.

>>> result = time_pipeline(tf.data.Dataset.range(1000).batch(100), repeats=3)
>>> result.elements, len(result.times)
(10, 3)
"""
from __future__ import annotations

import statistics
import threading
import time
from typing import Any, Callable, Sequence, Union

import tensorflow as tf

from ._validate import is_infinite, require_dataset, require_positive_int, require_seconds
from .i18n import gettext as _
from .reading import time_pass

DatasetOrBuilder = Union[tf.data.Dataset, Callable[[], tf.data.Dataset]]
_COUNTS = ("elements", "rows")


class Timing:
    """What :func:`time_pipeline` measured.

    Attributes
    ----------
    times : list of float
        Seconds for each counted pass over the whole dataset.
    first_seconds : float
        Seconds for the very first pass (iterator start-up, first calls of the
        mapped functions, and building the dataset when a builder was passed).
    elements : int
        What one pass produced: top-level elements, or rows (images) when
        ``count="rows"``.
    label : str
    """

    def __init__(self, times, first_seconds: float, elements: int, *, label: str = "", unit: str = "elements"):
        self.times = [float(t) for t in times]
        self.first_seconds = float(first_seconds)
        self.elements = int(elements)
        self.label = label
        self.unit = unit

    @property
    def median(self) -> float:
        """Median seconds per pass."""
        return statistics.median(self.times)

    @property
    def per_second(self) -> float:
        """Elements (or rows) per second, from the median pass."""
        return self.elements / self.median if self.median > 0 else float("inf")

    def __repr__(self) -> str:
        if self.unit not in ("elements", "rows"):  # a unit of the caller's own: said as given, in English
            name = f"{self.label}: " if self.label else ""
            return (f"<Timing {name}median {self.median:.3f} s over {len(self.times)} passes, {self.elements} "
                    f"{self.unit} -> {self.per_second:,.0f} {self.unit}/s; first pass {self.first_seconds:.3f} s>")
        if self.unit == "rows":
            said = (_("<Timing {label}: median {median:.3f} s over {passes} passes, {n} rows -> {rate:,.0f} rows/s; "
                      "first pass {first:.3f} s>") if self.label else
                    _("<Timing median {median:.3f} s over {passes} passes, {n} rows -> {rate:,.0f} rows/s; first "
                      "pass {first:.3f} s>"))
        else:
            said = (_("<Timing {label}: median {median:.3f} s over {passes} passes, {n} elements -> {rate:,.0f} "
                      "elements/s; first pass {first:.3f} s>") if self.label else
                    _("<Timing median {median:.3f} s over {passes} passes, {n} elements -> {rate:,.0f} elements/s; "
                      "first pass {first:.3f} s>"))
        return said.format(label=self.label, median=self.median, passes=len(self.times), n=self.elements,
                           rate=self.per_second, first=self.first_seconds)


def time_pipeline(
    dataset: DatasetOrBuilder,
    *,
    repeats: int = 3,
    warmup: int = 1,
    include_first: bool = False,
    max_elements: int | None = None,
    count: str = "elements",
    label: str = "",
    timeout: float | None = None,
) -> Timing:
    """Time complete passes over a dataset and return a :class:`Timing`.

    Each pass creates a fresh iterator and reads every element, as one epoch
    of training would. ``warmup`` passes run first and are not counted: the
    first one pays for start-up (thread pools, graph rewrites, the first call
    of a ``py_function``). ``include_first=True`` runs no warm-up and counts
    the first pass. The first pass's time is always kept in ``first_seconds``.

    Parameters
    ----------
    dataset : tf.data.Dataset or callable
        A dataset, or a function that builds one. A builder is called once,
        inside the first pass, so ``map`` tracing its function is timed there.
    repeats : int
        Counted passes; the median is reported.
    max_elements : int, optional
        Read at most this many elements per pass. Required for an infinite
        dataset (one that ends in ``repeat()``).
    count : {"elements", "rows"}
        ``"rows"`` counts the leading dimension of each element's first
        tensor, so a batched pipeline is reported per image, not per batch.
    timeout : float, optional
        Seconds a pass may wait for one element before it stops with
        ``tutor.reading.ReadTimeout`` (default ``tutor.reading.PASS_TIMEOUT``);
        a long pass whose elements keep coming is fine.

    Examples
    --------
    >>> t = time_pipeline(tf.data.Dataset.range(10).repeat(), max_elements=50, repeats=1, warmup=0)
    >>> t.elements
    50
    """
    where = "time_pipeline"
    repeats = require_positive_int(repeats, "repeats", where)
    warmup = require_positive_int(warmup, "warmup", where, minimum=0)
    if count not in _COUNTS:
        raise ValueError(_("{where}: count must be one of {counts}, got {count!r}.").format(where=where, counts=_COUNTS,
                                                                                           count=count))
    if max_elements is not None:
        max_elements = require_positive_int(max_elements, "max_elements", where)
    if timeout is not None:
        timeout = require_seconds(timeout, "timeout", where)
    start = time.perf_counter()
    if isinstance(dataset, tf.data.Dataset):
        ds = dataset
    elif callable(dataset):
        # Translators: names what was checked in a bad-input sentence, e.g. "time_pipeline (the value ...)".
        ds = require_dataset(dataset(), _("{where} (the value your builder returned)").format(where=where))
    else:
        ds = require_dataset(dataset, where)
    if max_elements is not None:
        ds = ds.take(max_elements)
    elif is_infinite(ds):
        raise ValueError(_(
            "{where}: this dataset never ends (it has repeat() with no count), so one pass cannot finish. "
            "Pass max_elements=... to time that many elements, or remove the repeat()."
        ).format(where=where))
    passes = repeats if include_first else warmup + repeats
    times, elements = [], 0
    for index in range(passes):
        built = time.perf_counter() - start if index == 0 else 0.0  # the first pass also counts building ds
        elements, seconds = time_pass(ds, rows=count == "rows", timeout=timeout, where=where)
        times.append(built + seconds)
    counted = times if include_first else times[warmup:]
    return Timing(counted, times[0], elements, label=label, unit="rows" if count == "rows" else "elements")


# ----------------------------------------------------------------------------- calls
def most_at_once(intervals: Sequence[tuple[float, float]]) -> int:
    """The largest number of ``(start, end)`` intervals open at one instant (touching ends do not overlap).

    >>> most_at_once([(0, 1.5), (1, 3), (2, 2.5)])
    2
    >>> most_at_once([(0, 1), (1, 2)])
    1
    """
    events = sorted([(float(end), -1) for _unused, end in intervals]
                    + [(float(start), 1) for start, _unused in intervals])
    open_now = best = 0
    for _unused, change in events:  # at equal times an end (-1) sorts before a start (+1)
        open_now += change
        best = max(best, open_now)
    return best


class CallRecorder:
    """Wrap a Python function so that every call is recorded: how many calls, and how many ran at once.

    Made for ``tf.py_function``, whose Python function runs once per element:
    pass the recorder where you would pass the function. It is thread-safe,
    so a parallel ``map`` can call it from several threads.

    Attributes
    ----------
    calls : int
        How many calls have finished.
    intervals : list of (start, end)
        ``time.perf_counter()`` seconds of each finished call.
    most_at_once : int
        The largest number of calls that were running at the same instant.

    Examples
    --------
    >>> double = CallRecorder(lambda x: 2 * x)
    >>> ds = tf.data.Dataset.range(3).map(lambda x: tf.py_function(double, [x], Tout=tf.int64))
    >>> [int(v) for v in ds], double.calls, double.most_at_once
    ([0, 2, 4], 3, 1)
    """

    def __init__(self, fn: Callable):
        if not callable(fn):
            raise TypeError(_("CallRecorder expects a function to wrap, got {type}; pass the function itself, e.g. "
                              "CallRecorder(my_function), without calling it.").format(type=type(fn).__name__))
        self.fn = fn
        self._lock = threading.Lock()
        self._intervals: list[tuple[float, float]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            end = time.perf_counter()
            with self._lock:
                self._intervals.append((start, end))

    @property
    def intervals(self) -> list[tuple[float, float]]:
        with self._lock:
            return list(self._intervals)

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self._intervals)

    @property
    def most_at_once(self) -> int:
        return most_at_once(self.intervals)

    def reset(self) -> None:
        """Forget the calls recorded so far."""
        with self._lock:
            self._intervals.clear()

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", type(self.fn).__name__)
        return _("CallRecorder({name}: {calls} calls, at most {most} at once)").format(
            name=name, calls=self.calls, most=self.most_at_once)
