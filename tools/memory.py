"""The memory probe: the peak memory of the kernels a notebook run starts, and the table of runs.

Used by ``benchmarks/notebooks.py`` (every lesson's time and memory) and by
``tools/nbval_twice.py`` (the lessons in the Binder environment, ``make binder-env``)::

    from tools.memory import PeakMemory, measure, table

    run = measure("notebooks/03_shuffle.ipynb", runs=2)
    print(table([run], runs=2))

Targets (issue 6): the whole course executes in under 10 minutes on 2 cores,
and no kernel peaks over 1.5 GB (Binder guarantees 1 GB and allows 2 GB).
"""
from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from .nbtools import execute

COURSE_SECONDS_TARGET = 10 * 60
KERNEL_BYTES_TARGET = 1.5e9


class PeakMemory:
    """Poll the memory of this process's descendants (a kernel and the processes it starts) and keep the peak.

    The memory of several processes is their private resident memory summed,
    plus their file-backed resident pages counted once, as the largest set of
    them (``rss - shared`` and ``shared`` from ``/proc/<pid>/statm``, which is
    cheap to read at every poll). A child that imports TensorFlow maps the same
    shared libraries as the kernel, several hundred MB that a plain RSS sum
    would count twice, while a container's memory (Binder's limit) holds them
    once. For a single process this is its RSS.

    Use it as a context manager around code that starts a kernel::

        with PeakMemory() as mem:
            tools.nbtools.execute(path, write=False)
        mem.peak_bytes, mem.commands

    Parameters
    ----------
    interval : float
        Seconds between polls. Short phases (a big array freed at once) can be
        missed between two polls; 20 ms catches anything a notebook holds for
        longer than a cell's step.

    Attributes
    ----------
    peak_bytes : int
        Largest memory of all descendant processes together seen at one poll (see above).
    peak_rss_sum : int
        Largest plain sum of their RSS (shared libraries counted once per process), for comparison.
    peak_parts : dict[int, int]
        pid -> RSS of each descendant at the poll that set ``peak_bytes``.
    commands : dict[int, list[str]]
        pid -> the last command line seen of every descendant (to check which Python ran).
    """

    def __init__(self, interval: float = 0.02):
        self.interval = interval
        self.peak_bytes = self.peak_rss_sum = 0
        self.peak_parts: dict[int, int] = {}
        self._parts: dict[int, int] = {}
        self._rss_sum = 0
        self.commands: dict[int, list[str]] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._poll, name="PeakMemory", daemon=True)
        self._me = psutil.Process(os.getpid())

    def __enter__(self) -> "PeakMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> int:
        """The memory of every descendant process right now: private pages summed, shared pages once (bytes)."""
        private, shared, parts = 0, 0, {}
        for proc in self._me.children(recursive=True):
            try:
                info = proc.memory_info()
                # Read again at every poll: a child seen between fork and exec still shows its parent's command.
                self.commands[proc.pid] = proc.cmdline()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            parts[proc.pid] = info.rss
            file_backed = min(getattr(info, "shared", 0), info.rss)  # Linux; elsewhere 0: a plain RSS sum
            private += info.rss - file_backed
            shared = max(shared, file_backed)
        self._parts, self._rss_sum = parts, sum(parts.values())
        return private + shared

    def _poll(self) -> None:
        while not self._stop.is_set():
            with self._lock:  # a reset() during the sample must not be undone by it
                total = self.sample()
                self.peak_rss_sum = max(self.peak_rss_sum, self._rss_sum)
                if total > self.peak_bytes:
                    self.peak_bytes, self.peak_parts = total, self._parts
            self._stop.wait(self.interval)

    def reset(self) -> None:
        """Start a new peak (the next poll sets it)."""
        with self._lock:
            self.peak_bytes, self.peak_rss_sum, self.peak_parts = 0, 0, {}


@dataclass
class NotebookRun:
    """The figures for one notebook: wall time, kernel peak memory, and the error if any."""

    name: str
    seconds: float
    peak_bytes: int
    error: str | None = None
    commands: dict = field(default_factory=dict, repr=False)


def measure(path: str | os.PathLike, *, runs: int = 1, timeout: int = 600) -> NotebookRun:
    """Execute one notebook ``runs`` times in one fresh kernel; time it and record the kernel's peak RSS.

    The kernel is the ``python3`` kernel of the Python running this function,
    so running this from another venv measures that venv. A failing cell is
    recorded in ``error`` (first line of the exception) instead of raised.
    """
    path = Path(path)
    error = None
    start = time.perf_counter()
    with PeakMemory() as mem:
        try:
            execute(path, runs=runs, write=False, timeout=timeout)
        except Exception as exc:  # noqa: BLE001 -- report every failure in the table
            text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # tracebacks carry ANSI colours
            lines = [line for line in text.splitlines() if line.strip()]
            error = f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:300]
    seconds = time.perf_counter() - start
    return NotebookRun(path.name, seconds, mem.peak_bytes, error, mem.commands)


def table(results: list[NotebookRun], *, runs: int = 1, whole_course: bool = True) -> str:
    """A plain-text table of the figures with their sums, checked against the targets.

    ``whole_course=False`` (some of the lessons): their time is printed, but not checked against the course's.
    """
    lines = [f"{'notebook':<34} {'seconds':>8} {'peak MB':>8}  status", "-" * 64]
    for r in results:
        status = "ERROR " + r.error if r.error else ("OVER 1.5 GB" if r.peak_bytes > KERNEL_BYTES_TARGET else "ok")
        lines.append(f"{r.name:<34} {r.seconds:>8.1f} {r.peak_bytes / 1e6:>8.0f}  {status}")
    total = sum(r.seconds for r in results)
    peak = max((r.peak_bytes for r in results), default=0)
    lines.append("-" * 64)
    lines.append(f"{'sum (' + str(len(results)) + ' notebooks)':<34} {total:>8.1f} {peak / 1e6:>8.0f}  (max)")
    per_run = total / max(runs, 1)
    ok_time = per_run < COURSE_SECONDS_TARGET
    ok_mem = peak < KERNEL_BYTES_TARGET
    if whole_course:
        timing = (f"whole course, one run: {per_run / 60:.1f} min (target < {COURSE_SECONDS_TARGET // 60} min): "
                  f"{'ok' if ok_time else 'OVER'}")
    else:
        timing = f"these {len(results)} notebooks (not the whole course), one run: {per_run / 60:.1f} min"
    lines.append(f"{timing};  largest kernel peak {peak / 1e9:.2f} GB (target < 1.5 GB): {'ok' if ok_mem else 'OVER'}")
    return "\n".join(lines)
