"""Does a call release the GIL? Watch a second Python thread while it runs.

A Python thread can only run while it holds the GIL. So while ``fn()`` runs on
one thread, a second thread that counts in a Python loop shows what ``fn`` does
with the GIL: if ``fn`` releases it (as SciPy's ``ndimage`` interpolation does
in its C loop), the counter keeps counting; if ``fn`` keeps it (``sorted`` on a
list of Python floats), the counter stops until ``fn`` returns. This is a count
of what happened, not a speed-up, so it shows on one CPU as on many: on one CPU
the two threads take turns on it, but the counter still moves.

>>> watch = watch_gil(lambda: sorted(range(10_000)))
>>> 0.0 <= watch.share <= 1.0
True
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable

from .._validate import require_positive_int
from ..i18n import gettext as _

#: The counting thread notes the time at most once per this many seconds.
SLICE = 0.001


class GilWatch:
    """What a second Python thread did while a call ran.

    Attributes
    ----------
    seconds : float
        How long the call took.
    slices : int
        In how many of the call's milliseconds the counting thread ran.
    share : float
        ``slices`` as a share of the call's milliseconds (0: it never ran; 1: it ran throughout). The first
        and last few milliseconds are left out (``watched`` seconds remain), where the GIL changes hands by
        Python's own thread switching whatever the call does.
    longest_pause : float
        The longest stretch of the call, in seconds, in which the counting thread did not run: nearly the
        whole call when ``fn`` keeps the GIL; short when it releases it (only the machine's own scheduling,
        or a CPU quota, pauses the counter then).
    """

    def __init__(self, seconds: float, slices: int, *, watched: float | None = None, longest_pause: float = 0.0):
        self.seconds = float(seconds)
        self.slices = int(slices)
        self.longest_pause = float(longest_pause)
        total = max(1, round((self.seconds if watched is None else watched) / SLICE))
        self.share = min(1.0, self.slices / total)

    def __repr__(self) -> str:
        return _("<GilWatch {ms:.0f} ms call: the other thread ran in {share:.0%} of it, its longest pause "
                 "{pause:.0f} ms>").format(ms=self.seconds * 1000, share=self.share, pause=self.longest_pause * 1000)


def _count(stop: threading.Event, started: threading.Event, stamps: list) -> None:
    clock = time.perf_counter
    last = clock()
    stamps.append(last)
    started.set()
    while not stop.is_set():  # pure Python: it needs the GIL for every step
        now = clock()
        if now - last >= SLICE:
            stamps.append(now)
            last = now


def watch_gil(fn: Callable[[], object], *, repeats: int = 3) -> GilWatch:
    """Run ``fn()`` while a second thread counts in Python; the run (of ``repeats``) where it counted most.

    Parameters
    ----------
    fn : callable
        A zero-argument call to watch, best one that takes 50 ms or more.
    repeats : int
        How many times to run it; the run in which the other thread ran most
        is kept (other programs can only take time away from it).

    Returns
    -------
    GilWatch
        ``share`` and ``longest_pause`` tell a call that releases the GIL from one that keeps it.

    Examples
    --------
    >>> watch_gil(lambda: time.sleep(0.1)).slices > 0   # sleeping releases the GIL: the counter ran
    True
    """
    if not callable(fn):
        raise TypeError(_("watch_gil expects a function with no arguments, such as lambda: sorted(values); got "
                          "{type}.").format(type=type(fn).__name__))
    repeats = require_positive_int(repeats, "repeats", "watch_gil")
    best = None
    for _unused in range(repeats):
        stop, started, stamps = threading.Event(), threading.Event(), []
        counter = threading.Thread(target=_count, args=(stop, started, stamps), daemon=True)
        counter.start()
        started.wait(10.0)
        time.sleep(0.01)  # let the counter run for a while first
        start = time.perf_counter()
        fn()
        end = time.perf_counter()
        stop.set()
        counter.join(10.0)
        # Leave out the edges: just before and after the call the GIL changes hands by Python's own switching
        # (every sys.getswitchinterval() seconds), whatever fn does.
        edge = 2 * sys.getswitchinterval()
        inner = max(0.0, end - start - 2 * edge)
        slices = sum(1 for t in stamps if start + edge < t <= end - edge)
        inside = [start] + [t for t in stamps if start < t < end] + [end]
        pause = max(b - a for a, b in zip(inside, inside[1:]))
        watch = GilWatch(end - start, slices, watched=inner, longest_pause=pause)
        if best is None or watch.share > best.share:
            best = watch
    return best
