"""Helpers for tests that a busy machine cannot break.

Tests decide by what happened, never by how long it took:

* :class:`CallLog` records, inside a ``tf.py_function``, when each call ran
  (wall clock) and how much CPU its thread used;
* :func:`most_at_once` counts how many recorded intervals were open at the
  same instant; :func:`intersects` says which intervals of one row overlap
  some interval of another row (producer against consumer);
* :class:`Progress` shows Python's threads taking turns (the GIL) by who
  computed when, not by CPU seconds against wall time, which cannot tell on
  one core;
* :class:`Meeting` makes "several calls run at once" independent of timing:
  the first calls wait for each other, releasing the GIL as a sleep or a file
  read does. Where tf.data lets that many calls run together they all meet,
  however loaded the machine is; where it does not, the wait gives up after
  ``patience`` seconds and the count shows fewer. Load can only make such a
  test weaker, never fail correct code.

:func:`busy_cores` keeps every core busy with other processes, to check the
above. From the repository root::

    .venv/bin/python tests/busy.py .venv/bin/python -m pytest tests/test_timeline_record.py -q -p no:warnings
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time

import numpy as np

#: ``tf.timestamp()`` has microsecond resolution; ``time.time()`` finer. Two stamps taken one after the other
#: on the same wall clock may therefore look up to a microsecond out of order. This margin covers that; load
#: only ever widens the gaps between stamps.
CLOCK_TOLERANCE = 1e-4


def cores() -> int:
    """CPU cores this process may run on (what TensorFlow sizes its default thread pool by)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def most_at_once(starts, ends) -> int:
    """The largest number of intervals ``[starts[i], ends[i])`` open at one instant.

    >>> most_at_once([0, 1, 2], [1.5, 3, 2.5])
    2
    """
    starts, ends = np.asarray(starts, float), np.asarray(ends, float)
    # At equal times an interval that ends is counted before one that starts: touching is not overlapping.
    times = np.concatenate([ends, starts])
    change = np.concatenate([-np.ones(len(ends)), np.ones(len(starts))])
    order = np.lexsort((change, times))
    return int(np.max(np.cumsum(change[order]), initial=0))


def intersects(starts, ends, other_starts, other_ends, tolerance: float = CLOCK_TOLERANCE) -> np.ndarray:
    """For each interval of the first row: does it overlap some interval of the other row by more than ``tolerance``?"""
    starts, ends = np.asarray(starts, float)[:, None], np.asarray(ends, float)[:, None]
    shared = np.minimum(ends, np.asarray(other_ends, float)) - np.maximum(starts, np.asarray(other_starts, float))
    return (shared > tolerance).any(axis=1)


class CallLog:
    """Thread-safe record of calls: wall-clock start and end (``time.perf_counter``) and thread CPU seconds."""

    def __init__(self):
        self._lock = threading.Lock()
        self.rows: list[tuple[float, float, float]] = []

    @contextlib.contextmanager
    def call(self):
        cpu, start = time.thread_time(), time.perf_counter()
        try:
            yield
        finally:
            end, cpu = time.perf_counter(), time.thread_time() - cpu
            with self._lock:
                self.rows.append((start, end, cpu))

    def _column(self, k: int) -> np.ndarray:
        with self._lock:
            return np.array([r[k] for r in self.rows], dtype=float)

    @property
    def starts(self) -> np.ndarray:
        return self._column(0)

    @property
    def ends(self) -> np.ndarray:
        return self._column(1)

    @property
    def cpu_seconds(self) -> float:
        """CPU time used by the calls' own threads while inside the calls, summed."""
        return float(self._column(2).sum())

    @property
    def wall_seconds(self) -> float:
        """From the first call's start to the last call's end."""
        return float(self.ends.max() - self.starts.min()) if self.rows else 0.0

    @property
    def most_at_once(self) -> int:
        return most_at_once(self.starts, self.ends)

    def __len__(self) -> int:
        with self._lock:
            return len(self.rows)


class Meeting:
    """The first ``size`` callers of :meth:`attend` wait until all ``size`` are there (or ``patience`` runs out).

    Waiting releases the GIL, like ``time.sleep`` or a file read. Later callers do not wait.
    ``met`` says whether everyone came.
    """

    def __init__(self, size: int, patience: float = 30.0):
        self.size, self.patience = int(size), float(patience)
        self._barrier = threading.Barrier(self.size)
        self._lock = threading.Lock()
        self._arrived = 0
        self.met = False

    def attend(self) -> None:
        with self._lock:
            self._arrived += 1
            invited = self._arrived <= self.size
        if not invited:
            return
        try:
            self._barrier.wait(self.patience)
            self.met = True
        except threading.BrokenBarrierError:  # fewer callers could be there at once: the test's counts will say so
            pass


class Progress:
    """Moments at which threads computed in pure Python: each thread notes one at most every millisecond.

    Python lets one thread at a time run Python code (the GIL). A thread that
    computes keeps the GIL until another asks for it *and* the switch interval
    (``sys.setswitchinterval``) has passed, so computing threads take turns of
    about that interval, on one core or many, busy or idle. Threads that ran
    Python at the same time would interleave their moments within a
    millisecond or two. :meth:`longest_alone` tells the two apart.
    """

    RESOLUTION = 0.001

    def __init__(self):
        self.moments: list[tuple[float, int]] = []  # (perf_counter, thread id); one append is atomic

    def compute(self, seconds: float) -> None:
        """Compute in pure Python for ``seconds`` of wall time, noting a moment every millisecond it runs."""
        me, last = threading.get_ident(), 0.0
        end = time.perf_counter() + seconds
        while (now := time.perf_counter()) < end:
            if now - last >= self.RESOLUTION:
                self.moments.append((now, me))
                last = now

    @property
    def threads(self) -> int:
        """How many threads noted moments."""
        return len({who for _, who in self.moments})

    def longest_alone(self) -> float:
        """The longest stretch (seconds) in which one thread noted moments and no other thread noted any."""
        best, first, who = 0.0, 0.0, None
        for now, thread in sorted(self.moments):
            if thread != who:
                first, who = now, thread
            best = max(best, now - first)
        return best


@contextlib.contextmanager
def switch_interval(seconds: float):
    """Run the block with Python's thread switch interval set to ``seconds`` (then put it back)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@contextlib.contextmanager
def busy_cores(n: int | None = None):
    """Keep ``n`` cores (default: all) busy with other processes while the block runs."""
    n = cores() if n is None else n
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield [p.pid for p in spinners]
    finally:
        for p in spinners:
            p.kill()
            p.wait()


if __name__ == "__main__":  # run a command while every core is busy with other processes
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} COMMAND [ARGS...]  (runs COMMAND while every core is kept busy)")
    with busy_cores() as pids:
        print(f"keeping {len(pids)} cores busy (pids {pids})", file=sys.stderr, flush=True)
        sys.exit(subprocess.call(sys.argv[1:]))
