"""A pipeline's memory, measured two ways while it runs: TensorFlow's tensors and the process's resident memory.

* :func:`tensor_bytes`: the bytes TensorFlow's CPU allocator holds right now
  (``tf.config.experimental.get_memory_info("CPU:0")``): the tensors alive, the
  elements in a pipeline's buffers among them; it falls when they are freed. On
  the usual Linux builds (oneDNN on) it counts tensors of 256 KB and more only:
  smaller ones come from a separate pool that it does not report.
* :func:`process_rss`: the process's resident memory (RSS), what the operating
  system counts and what a memory limit (Binder's 2 GB) stops. Memory the
  program frees mostly stays with the process for its next allocations, so RSS
  grows at a new peak and seldom falls.
* :func:`memory_use` runs a pipeline, waits until its buffers have filled, and
  reads both before, while the iterator lives, and after it is gone.
* :func:`memory_limit`: the memory this process may use (a cgroup limit, else the RAM).

>>> use = memory_use(tf.data.Dataset.range(50).map(lambda i: tf.zeros([256, 1024])).shuffle(20))  # doctest: +SKIP
>>> round(use.tensors_held / 2**20)                                                                # doctest: +SKIP
23
"""
from __future__ import annotations

import contextlib
import gc
import os
import time
from pathlib import Path

from .._validate import require_dataset, require_positive_int, require_seconds
from ..env import cgroups
from ..i18n import gettext as _
from .buffers import Buffers, buffers, megabytes

#: A cgroup memory limit at or above this is no limit (cgroup v1 writes 2**63 rounded to a page).
NO_LIMIT = 2**60


def tensor_bytes() -> int | None:
    """Bytes of tensors TensorFlow's CPU allocator holds now (large ones: see above); None where it does not count.

    >>> tensor_bytes() is None or tensor_bytes() >= 0
    True
    """
    import tensorflow as tf

    try:
        return int(tf.config.experimental.get_memory_info("CPU:0")["current"])
    except (ValueError, KeyError, tf.errors.OpError):
        return None


def process_rss() -> int | None:
    """This process's resident memory in bytes (psutil, else ``/proc/self/statm``); None if neither is there.

    >>> process_rss() > 0
    True
    """
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except ImportError:
        pass
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def memory_limit(proc: Path | None = None, root: Path | None = None) -> int | None:
    """Bytes this process may use: the tightest cgroup memory limit (v2 ``memory.max``, v1
    ``memory.limit_in_bytes``) of its cgroup and the parents, or the machine's RAM; None if unknown.

    >>> memory_limit() is None or memory_limit() > 0
    True
    """
    proc = Path("/proc/self") if proc is None else Path(proc)
    root = Path("/sys/fs/cgroup") if root is None else Path(root)
    limits = []
    for controllers, path in cgroups(proc):
        if controllers == "":
            base, name = root, "memory.max"
        elif "memory" in controllers.split(","):
            base, name = root / "memory", "memory.limit_in_bytes"
        else:
            continue
        steps = [p for p in path.split("/") if p]
        for depth in range(len(steps), -1, -1):
            try:
                text = (base.joinpath(*steps[:depth]) / name).read_text().strip()
            except OSError:
                continue
            if text.isdigit() and 0 < int(text) < NO_LIMIT:
                limits.append(int(text))
    ram = _ram()
    if ram is not None:
        limits.append(ram)
    return min(limits) if limits else None


def _ram() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except ImportError:
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return None


def settled(read=tensor_bytes, *, quiet: float = 0.2, longest: float = 5.0) -> int | None:
    """``read()`` once it has not changed for ``quiet`` seconds (buffers filled by background threads), or
    after ``longest`` seconds at most."""
    last, since, end = read(), time.monotonic(), time.monotonic() + longest
    while time.monotonic() < end:
        time.sleep(0.02)
        now = read()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return last


class MemoryUse:
    """What :func:`memory_use` measured for one pipeline; every ``*_held`` and ``*_after`` is a growth in bytes
    over the moment before the iterator was made (None where it could not be measured).

    Attributes
    ----------
    label : str
    buffers : Buffers
        What the pipeline's buffers hold by arithmetic (:func:`tutor.usage.buffers`).
    elements : int
        Elements read before measuring (with the last one still held).
    tensors_held, tensors_after : int or None
        Growth of TensorFlow's tensor bytes while the iterator lived (buffers filled), and after it was gone.
    tensors_peak : int or None
        The highest growth of TensorFlow's tensor bytes during the run.
    rss_held, rss_after : int or None
        Growth of the process's resident memory, at the same two moments.
    first_seconds : float or None
        Seconds from making the iterator to the first element (a shuffle buffer fills before it).
    """

    def __init__(self, label: str, buffers: Buffers, elements: int, *, tensors_held=None, tensors_after=None,
                 tensors_peak=None, rss_held=None, rss_after=None, first_seconds=None):
        self.label, self.buffers, self.elements = str(label), buffers, int(elements)
        self.first_seconds = first_seconds
        self.tensors_held, self.tensors_after, self.tensors_peak = tensors_held, tensors_after, tensors_peak
        self.rss_held, self.rss_after = rss_held, rss_after

    @property
    def sentence(self) -> str:
        name = f"{self.label}: " if self.label else ""
        # Translators: the growths are "+1.0 MB" or "-0.2 MB", over the moment before the iterator was made.
        if self.tensors_held is not None and self.rss_held is not None:
            text = _("buffers by arithmetic {buffers}; TensorFlow's tensors {tensors_held} while the iterator lived, "
                     "{tensors_after} once it was gone; the process (RSS) {rss_held}, then {rss_after}.")
        elif self.tensors_held is not None:
            text = _("buffers by arithmetic {buffers}; TensorFlow's tensors {tensors_held} while the iterator lived, "
                     "{tensors_after} once it was gone; RSS unknown.")
        elif self.rss_held is not None:
            text = _("buffers by arithmetic {buffers}; TensorFlow does not count its tensors here; the process (RSS) "
                     "{rss_held}, then {rss_after}.")
        else:
            text = _("buffers by arithmetic {buffers}; TensorFlow does not count its tensors here; RSS unknown.")
        return name + text.format(buffers=megabytes(self.buffers.total), tensors_held=_grown(self.tensors_held),
                                  tensors_after=_grown(self.tensors_after), rss_held=_grown(self.rss_held),
                                  rss_after=_grown(self.rss_after))

    def __str__(self) -> str:
        return self.sentence

    __repr__ = __str__


def _grown(n: int | None) -> str:
    return "?" if n is None else ("+" if n >= 0 else "-") + megabytes(abs(n))


def _difference(now, before):
    return None if now is None or before is None else now - before


def memory_use(dataset, *, elements: int = 1, label: str = "", timeout: float = 60.0,
               quiet: float = 0.2) -> MemoryUse:
    """Run ``dataset``: read ``elements`` elements, keep the iterator while its buffers fill, measure, let it go.

    TensorFlow's tensor bytes and the process's RSS are read before the
    iterator is made, once the tensor bytes have stopped changing after the
    last element arrived (the buffers are full: background threads have
    filled them), and after the iterator is gone; each time once the tensor
    bytes have not changed for ``quiet`` seconds. The read is bounded by
    ``timeout`` seconds (:func:`tutor.reading.pull`).

    Parameters
    ----------
    dataset : tf.data.Dataset
    elements : int
        Elements to read before measuring; the last one is still held then.
    label : str
        A name for the printed sentence and for :class:`~tutor.usage.MemoryDisplay`.
    quiet : float
        Seconds without a change in the tensor bytes that count as settled (longer on a busy machine).

    >>> memory_use(tf.data.Dataset.range(4)).elements
    1
    """
    import tensorflow as tf

    from ..reading import pull

    where = "memory_use"
    require_dataset(dataset, where)
    elements = require_positive_int(elements, "elements", where)
    timeout = require_seconds(timeout, "timeout", where)
    quiet = require_seconds(quiet, "quiet", where, maximum=10.0)
    table = buffers(dataset)
    gc.collect()
    counted = tensor_bytes() is not None
    if counted:
        tf.config.experimental.reset_memory_stats("CPU:0")
    tensors_before = settled(tensor_bytes, quiet=quiet, longest=5.0 + 5 * quiet) if counted else None  # an earlier iterator's threads ended
    rss_before = process_rss()
    held: dict = {}
    clock: dict = {}

    @contextlib.contextmanager
    def around(what, i):
        if what == "iterator":
            clock["start"] = time.perf_counter()
        yield

    def measure(i: int, value) -> None:
        if i == 0:
            clock["first"] = time.perf_counter() - clock["start"]
        if i == elements - 1:
            held["tensors"] = settled(tensor_bytes, quiet=quiet, longest=5.0 + 5 * quiet) if counted else None
            held["rss"] = process_rss()

    got = pull(dataset, timeout=timeout, where=where, limit=elements, on_element=measure, convert=lambda v: None,
               around=around)
    gc.collect()
    tensors_after = settled(tensor_bytes, quiet=quiet, longest=5.0 + 5 * quiet) if counted else None
    peak = int(tf.config.experimental.get_memory_info("CPU:0")["peak"]) if counted else None
    if len(got) < elements:  # the pipeline ended first: measure what its end left behind
        held = {"tensors": tensors_after, "rss": process_rss()}
    return MemoryUse(label, table, len(got), tensors_held=_difference(held.get("tensors"), tensors_before),
                     tensors_after=_difference(tensors_after, tensors_before),
                     tensors_peak=_difference(peak, tensors_before), rss_held=_difference(held.get("rss"), rss_before),
                     rss_after=_difference(process_rss(), rss_before), first_seconds=clock.get("first"))
