"""The one verdict helper: is the second of two measurements faster, slower, or not clearly different?

Every sentence of a lesson that depends on a timing is printed by :func:`compare`
(``tutor.verdict.compare``), and every other "faster or not" in ``tutor`` is
decided by its rule, :func:`decide`. It runs the two measurements in
turns (A B A B ...) after a warm-up, so a machine that slows down for a while
slows both, and it decides from the medians *and* the spread of the repeats:
on a noisy machine the answer is "no clear difference", never a guess.

>>> print(compare([1.0, 1.1, 0.9], [1.05, 0.95, 1.0], show=False))
B took 1.00 s against 1.00 s for A (median of 3 runs): no clear difference on this machine (1.00x the time; the runs spread over 0.95-1.05 s and 0.90-1.10 s).
"""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable, Sequence

from ._validate import is_infinite, require_positive_int, require_seconds
from .i18n import N_
from .i18n import gettext as _
from .reading import time_pass

VERDICTS = ("faster", "slower", "no clear difference")
# Translators: {second} and {first} are times such as "0.41 s" or "12.5 ms", {runs} e.g. "median of 5 runs";
# {factor:.1f}x reads "1.8x", how many times faster.
_FASTER = N_("{b} took {second} against {first} for {a} ({runs}): faster, {factor:.1f}x.")
# Translators: as the sentence above; {factor:.1f}x is how many times slower.
_SLOWER = N_("{b} took {second} against {first} for {a} ({runs}): slower, {factor:.1f}x.")
# Translators: {ratio:.2f}x the time reads "1.00x the time"; the spreads are ranges such as "0.95-1.05 s".
_NO_CLEAR_DIFFERENCE = N_("{b} took {second} against {first} for {a} ({runs}): no clear difference on this machine "
                          "({ratio:.2f}x the time; the runs spread over {second_spread} and {first_spread}).")


class Comparison:
    """Two series of times and the verdict about the second one, as :func:`compare` decided it.

    Attributes
    ----------
    first_times, second_times : list of float
        Seconds of each counted run.
    labels : (str, str)
    verdict : {"faster", "slower", "no clear difference"}
        About the *second* relative to the first.
    ratio : float
        Median time of the second over median time of the first (below 1: the second took less time).
    alternating : bool
        Whether the runs were measured in turns by :func:`compare` (else the times were given).
    """

    def __init__(self, first_times, second_times, *, labels=("A", "B"), min_effect: float = 0.05,
                 alternating: bool = False):
        self.first_times = [float(t) for t in first_times]
        self.second_times = [float(t) for t in second_times]
        self.labels = (str(labels[0]), str(labels[1]))
        self.min_effect = float(min_effect)
        self.alternating = bool(alternating)
        self.verdict = decide(self.first_times, self.second_times, min_effect=self.min_effect)

    @property
    def first_median(self) -> float:
        return statistics.median(self.first_times)

    @property
    def second_median(self) -> float:
        return statistics.median(self.second_times)

    @property
    def ratio(self) -> float:
        """Second median over first median."""
        return self.second_median / self.first_median if self.first_median > 0 else float("inf")

    @property
    def factor(self) -> float:
        """How many times faster or slower (always >= 1)."""
        r = self.ratio
        return max(r, 1 / r) if 0 < r < float("inf") else float("inf")

    @property
    def sentence(self) -> str:
        """One sentence with the numbers and the verdict."""
        a, b = self.labels
        n, m = len(self.first_times), len(self.second_times)
        # Translators: how the times were summarized, in parentheses after the times of a verdict.
        runs = _("median of {n} alternating runs") if self.alternating else (
            _("median of {n} runs") if n == m else _("medians of {n} and {m} runs"))
        said = {"faster": _FASTER, "slower": _SLOWER}.get(self.verdict, _NO_CLEAR_DIFFERENCE)
        return _(said).format(a=a, b=b, second=_seconds(self.second_median), first=_seconds(self.first_median),
                              runs=runs.format(n=n, m=m), factor=self.factor, ratio=self.ratio,
                              second_spread=_span(self.second_times), first_spread=_span(self.first_times))

    def __str__(self) -> str:
        return self.sentence

    def __repr__(self) -> str:
        # Translators: {verdict} stays English: it is the value code compares ("faster", "slower", ...).
        return _("<Comparison {b} against {a}: {verdict}, ratio {ratio:.2f}>").format(
            b=self.labels[1], a=self.labels[0], verdict=self.verdict, ratio=self.ratio)


def decide(first_times: Sequence[float], second_times: Sequence[float], *, min_effect: float = 0.05) -> str:
    """'faster', 'slower' or 'no clear difference' for the second series against the first.

    The second is faster when its median is at least ``min_effect`` below the
    first's *and* its slower half of runs (upper quartile) still beats the
    faster half of the first (lower quartile): the spread of the repeats
    decides, so noise says "no clear difference". Slower is the mirror image.

    >>> decide([1.0, 1.1, 0.9, 1.0, 1.05], [0.5, 0.55, 0.52, 0.6, 0.5])
    'faster'
    >>> decide([1.0, 0.6, 1.4], [0.9, 1.3, 0.7])
    'no clear difference'
    """
    q1 = _quartiles(first_times)
    q2 = _quartiles(second_times)
    m1, m2 = statistics.median(first_times), statistics.median(second_times)
    if m2 <= m1 * (1 - min_effect) and q2[1] < q1[0]:
        return "faster"
    if m2 >= m1 * (1 + min_effect) and q2[0] > q1[1]:
        return "slower"
    return "no clear difference"


def compare(first, second, *, labels: Sequence[str] = ("A", "B"), repeats: int = 5, warmup: int = 1,
            min_effect: float = 0.05, times_itself: bool = False, show: bool = True,
            timeout: float | None = None) -> Comparison:
    """Measure two things in turns (A B A B ...) and print whether the second is faster, slower or neither.

    Parameters
    ----------
    first, second : callable, tf.data.Dataset, or list of seconds
        A zero-argument function is one measured run; a dataset is read to its
        end once per run (:func:`tutor.reading.time_pass`, which stops with
        ``tutor.reading.ReadTimeout`` when no element comes for ``timeout`` seconds). Or pass two lists of seconds already measured (at
        least 3 each) to have them judged the same way.
    labels : (str, str)
        Names for the first and the second, used in the sentence.
    repeats : int
        Counted runs of each (at least 3), after ``warmup`` uncounted runs of each.
    min_effect : float
        The smallest difference of the medians called a difference (0.05 = 5 %).
    times_itself : bool
        The two functions time themselves and return their seconds, for a run
        of which only a part should count (``model.fit``'s training loop,
        from its first step to its last, without what ``fit`` does after).
    show : bool
        Print the sentence (the default).
    timeout : float, optional
        Seconds a dataset's pass may wait for one element (default
        ``tutor.reading.PASS_TIMEOUT``).

    Examples
    --------
    >>> c = compare([0.74, 0.80, 0.71, 0.75, 0.73], [0.41, 0.40, 0.44, 0.39, 0.42], show=False)
    >>> c.verdict, round(c.ratio, 2)
    ('faster', 0.55)
    >>> print(c)
    B took 0.41 s against 0.74 s for A (median of 5 runs): faster, 1.8x.
    """
    where = "compare"
    if isinstance(labels, str) or len(labels) != 2:
        raise ValueError(_("{where}: labels must be two names, for example labels=('cache', 'no cache'); got "
                           "{labels!r}.").format(where=where, labels=labels))
    if isinstance(min_effect, bool) or not isinstance(min_effect, (int, float)) or not 0 <= min_effect < 1:
        raise ValueError(_("{where}: min_effect must be a fraction between 0 and 1 (0.05 = 5 %), got "
                           "{min_effect!r}.").format(where=where, min_effect=min_effect))
    given = [_as_times(x, name, where) for x, name in ((first, "first"), (second, "second"))]
    if all(t is not None for t in given):
        return _shown(Comparison(given[0], given[1], labels=labels, min_effect=min_effect), show)
    if any(t is not None for t in given):
        raise TypeError(_("{where}: pass two lists of seconds, or two things to measure (functions or datasets), "
                          "not one of each.").format(where=where))
    repeats = require_positive_int(repeats, "repeats", where, minimum=3)
    warmup = require_positive_int(warmup, "warmup", where, minimum=0)
    if timeout is not None:
        timeout = require_seconds(timeout, "timeout", where)
    runs = [_as_run(first, "first", where, timeout), _as_run(second, "second", where, timeout)]
    timed_by_run = [times_itself or _is_dataset(first), times_itself or _is_dataset(second)]
    times: list[list[float]] = [[], []]
    for index in range(warmup + repeats):
        for which, run in enumerate(runs):
            start = time.perf_counter()
            returned = run()
            seconds = time.perf_counter() - start
            if timed_by_run[which]:
                seconds = _own_seconds(returned, labels[which], where)
            if index >= warmup:
                times[which].append(seconds)
    return _shown(Comparison(times[0], times[1], labels=labels, min_effect=min_effect, alternating=True), show)


def _own_seconds(value, label: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        raise TypeError(_("{where}: with times_itself=True each function must return the seconds it measured (a "
                          "number of 0 or more); {label!r} returned {type} {value!r:.40}.").format(
            where=where, label=label, type=type(value).__name__, value=value))
    return float(value)


def _shown(result: Comparison, show: bool) -> Comparison:
    if show:
        print(result.sentence)
    return result


def _as_times(value, name: str, where: str) -> list[float] | None:
    if hasattr(value, "times") and hasattr(value, "first_seconds"):  # a tutor.bench.Timing
        value = value.times
    if isinstance(value, str) or callable(value) or _is_dataset(value) or not isinstance(value, Sequence):
        if isinstance(value, str) or not (callable(value) or _is_dataset(value)):
            # Translators: {name} is the argument, first or second.
            raise TypeError(_("{where}: {name} must be a function to run (no arguments), a tf.data.Dataset, or a "
                              "list of seconds; got {type}.").format(where=where, name=name,
                                                                      type=type(value).__name__))
        return None
    times = list(value)
    bad = [t for t in times if isinstance(t, bool) or not isinstance(t, (int, float)) or not t >= 0
           or t == float("inf")]
    if bad:
        raise ValueError(_("{where}: {name} must hold seconds (numbers >= 0); {bad!r} is not one.").format(
            where=where, name=name, bad=bad[0]))
    if len(times) < 3:
        raise ValueError(_("{where}: {name} holds {n} time(s); a verdict needs at least 3 runs of each, because the "
                           "spread between runs decides what counts as a difference.").format(
            where=where, name=name, n=len(times)))
    return [float(t) for t in times]


def _as_run(value, name: str, where: str, timeout: float | None) -> Callable[[], Any]:
    if _is_dataset(value):
        if is_infinite(value):
            # Translators: {name} is first or second.
            raise ValueError(_("{where}: the {name} dataset never ends (repeat() with no count), so one run cannot "
                               "finish; add .take(n) to measure n elements.").format(where=where, name=name))
        return lambda: time_pass(value, timeout=timeout, where=where)[1]
    return value


def _is_dataset(value) -> bool:
    import sys

    tf = sys.modules.get("tensorflow")
    return tf is not None and isinstance(value, tf.data.Dataset)


def _quartiles(times: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(times)
    lower = ordered[: (len(ordered) + 1) // 2]
    upper = ordered[len(ordered) // 2:]
    return statistics.median(lower), statistics.median(upper)


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 0.1 else f"{value * 1000:.1f} ms"


def _span(times: Sequence[float]) -> str:
    low, high = min(times), max(times)
    return f"{low:.2f}-{high:.2f} s" if high >= 0.1 else f"{low * 1000:.1f}-{high * 1000:.1f} ms"
