"""How much of the CPU time this process may use a pipeline's pass really used.

Utilization = CPU seconds the process used during the pass / (wall seconds x CPUs
available). *CPUs available* is :func:`tutor.env.cpus_available`: the cgroup
quota where there is one (Binder: about 1.0 while every host core stays
visible), else the cores this process may run on. Dividing by the visible cores
instead would call a pipeline that uses all of Binder's quota nearly idle.

The process's CPU time (``time.process_time``: every thread, TensorFlow's
included) is read when the iterator is made and when the pass reaches its end
of data, so tearing the iterator down afterwards is not counted.

>>> use = cpu_use(tf.data.Dataset.range(1000).map(lambda x: x * 2), repeats=1)   # doctest: +SKIP
>>> 0 <= use.utilization                                                          # doctest: +SKIP
True
"""
from __future__ import annotations

import contextlib
import os
import statistics
import time

from .._validate import require_dataset, require_positive_int, require_seconds
from ..i18n import N_
from ..i18n import gettext as _

#: At or above this share of the CPU time available, the CPU is "near the limit"; below LOW it is "low".
NEAR_THE_LIMIT = 0.8
LOW = 0.6
VERDICTS = ("low", "in between", "near the limit")
#: How each verdict is shown (the verdicts stay English: code compares them).
# Translators: the verdict on how busy the CPU was, shown after a colon at the end of a sentence.
_SHOWN = {"low": N_("low"), "in between": N_("in between"), "near the limit": N_("near the limit")}


class CpuUse:
    """CPU seconds against wall seconds for passes of one pipeline, and the guide's verdict.

    Attributes
    ----------
    label : str
    cpu_seconds, wall_seconds : list of float
        Per counted pass.
    cpus : float
        CPU time per second this process may use (:func:`tutor.env.cpus_available`).
    visible_cores : int
        ``os.cpu_count()``: what a tool that ignores quotas divides by.
    elements : int
        Elements of one pass.
    """

    def __init__(self, cpu_seconds, wall_seconds, *, cpus: float, visible_cores: int, elements: int,
                 label: str = ""):
        self.cpu_seconds = [float(c) for c in cpu_seconds]
        self.wall_seconds = [float(w) for w in wall_seconds]
        if not self.cpu_seconds or len(self.cpu_seconds) != len(self.wall_seconds):
            raise ValueError(_("CpuUse needs as many CPU times as wall times, at least one of each."))
        self.cpus, self.visible_cores = float(cpus), int(visible_cores)
        self.elements, self.label = int(elements), str(label)

    @property
    def cpu(self) -> float:
        """Median CPU seconds of a pass."""
        return statistics.median(self.cpu_seconds)

    @property
    def wall(self) -> float:
        """Median wall seconds of a pass."""
        return statistics.median(self.wall_seconds)

    @property
    def cores_busy(self) -> float:
        """CPU seconds per wall second: how many cores' worth of work ran, on average."""
        return self.cpu / self.wall if self.wall > 0 else 0.0

    @property
    def utilization(self) -> float:
        """Share of the CPU time available that the pass used (may pass 1.0 a little: clocks differ)."""
        return self.cores_busy / self.cpus

    @property
    def of_visible_cores(self) -> float:
        """The same CPU time as a share of every core the machine shows (what a quota-blind tool prints)."""
        return self.cores_busy / self.visible_cores

    @property
    def cpu_per_element(self) -> float:
        """CPU seconds per element, from the median pass."""
        return self.cpu / self.elements if self.elements else 0.0

    @property
    def verdict(self) -> str:
        """'low', 'in between' or 'near the limit' (see :data:`LOW` and :data:`NEAR_THE_LIMIT`)."""
        return verdict(self.utilization)

    @property
    def sentence(self) -> str:
        name = f"{self.label}: " if self.label else ""
        # Translators: {verdict} is one of the words "low", "in between" or "near the limit", translated.
        return name + _("{cpu:.2f} CPU s in {wall:.2f} s of wall time = {busy:.2f} cores busy; {share:.0%} of the "
                        "{cpus:.1f} CPU(s) of time available ({visible_share:.0%} of the {visible} cores visible): "
                        "{verdict}.").format(cpu=self.cpu, wall=self.wall, busy=self.cores_busy, share=self.utilization,
                                             cpus=self.cpus, visible_share=self.of_visible_cores,
                                             visible=self.visible_cores, verdict=_(_SHOWN[self.verdict]))

    def __str__(self) -> str:
        return self.sentence

    __repr__ = __str__


def verdict(utilization: float) -> str:
    """The guide's fork: ``'low'`` (apply the best practices), ``'near the limit'`` (do less work), or between.

    >>> verdict(0.3), verdict(0.65), verdict(0.95)
    ('low', 'in between', 'near the limit')
    """
    if utilization >= NEAR_THE_LIMIT:
        return "near the limit"
    return "low" if utilization < LOW else "in between"


def cpu_use(dataset, *, repeats: int = 3, warmup: int = 1, max_elements: int = 100_000, timeout: float = 60.0,
            label: str = "") -> CpuUse:
    """Read ``dataset`` to its end ``warmup + repeats`` times; CPU and wall seconds of the counted passes.

    Each pass is bounded (:func:`tutor.reading.pull`): at most ``max_elements``
    elements and ``timeout`` seconds.

    >>> cpu_use(tf.data.Dataset.range(10), repeats=1, warmup=0).elements
    10
    """
    from ..env import cpus_available

    where = "cpu_use"
    require_dataset(dataset, where)
    repeats = require_positive_int(repeats, "repeats", where)
    warmup = require_positive_int(warmup, "warmup", where, minimum=0)
    max_elements = require_positive_int(max_elements, "max_elements", where)
    timeout = require_seconds(timeout, "timeout", where)
    cpu_times, wall_times, n = [], [], 0
    for index in range(warmup + repeats):
        n, cpu, wall = one_pass(dataset, max_elements=max_elements, timeout=timeout, where=where)
        if index >= warmup:
            cpu_times.append(cpu)
            wall_times.append(wall)
    return CpuUse(cpu_times, wall_times, cpus=cpus_available(), visible_cores=os.cpu_count() or 1, elements=n,
                  label=label)


def one_pass(dataset, *, max_elements: int, timeout: float, where: str) -> tuple[int, float, float]:
    """``(elements, CPU seconds, wall seconds)`` of one bounded pass, from making the iterator to its end of data."""
    from ..reading import pull

    clock: dict = {}

    @contextlib.contextmanager
    def around(what, i):
        if what == "iterator":
            clock["cpu"], clock["wall"] = time.process_time(), time.perf_counter()
        yield
        clock["cpu_end"], clock["wall_end"] = time.process_time(), time.perf_counter()

    n = len(pull(dataset, timeout=timeout, where=where, limit=max_elements, convert=lambda v: None, around=around))
    return n, clock["cpu_end"] - clock["cpu"], clock["wall_end"] - clock["wall"]


class CpuComparison:
    """Two pipelines measured in turns: the time verdict (a :class:`tutor.verdict.Comparison`) and the CPU one.

    Attributes
    ----------
    time : tutor.verdict.Comparison
        Wall seconds per pass: "faster", "slower" or "no clear difference", about the second.
    cpu_verdict : {"less CPU", "more CPU", "no clear difference"}
        CPU seconds per pass of the second against the first, decided by the same rule
        (:func:`tutor.verdict.decide`: medians at least 5 % apart and the spreads apart).
    first, second : CpuUse
    """

    def __init__(self, first: CpuUse, second: CpuUse, *, min_effect: float = 0.05):
        from ..verdict import Comparison, decide

        self.first, self.second = first, second
        self.time = Comparison(first.wall_seconds, second.wall_seconds, labels=(first.label, second.label),
                               min_effect=min_effect, alternating=True)
        said = decide(first.cpu_seconds, second.cpu_seconds, min_effect=min_effect)
        self.cpu_verdict = {"faster": "less CPU", "slower": "more CPU"}.get(said, said)

    @property
    def cpu_sentence(self) -> str:
        a, b = self.first, self.second
        n = len(b.cpu_seconds)
        factor = max(a.cpu, b.cpu) / max(min(a.cpu, b.cpu), 1e-9)
        if self.cpu_verdict == "less CPU":
            text = _("{b} used {cpu_b:.2f} CPU s per pass against {cpu_a:.2f} for {a} (median of {n} alternating "
                     "runs): less CPU, {factor:.1f}x.")
        elif self.cpu_verdict == "more CPU":
            text = _("{b} used {cpu_b:.2f} CPU s per pass against {cpu_a:.2f} for {a} (median of {n} alternating "
                     "runs): more CPU, {factor:.1f}x.")
        else:
            text = _("{b} used {cpu_b:.2f} CPU s per pass against {cpu_a:.2f} for {a} (median of {n} alternating "
                     "runs): no clear difference in CPU time on this machine.")
        return text.format(a=a.label, b=b.label, cpu_a=a.cpu, cpu_b=b.cpu, n=n, factor=factor)

    @property
    def sentence(self) -> str:
        return f"{self.time.sentence}\n{self.cpu_sentence}"

    def __str__(self) -> str:
        return self.sentence

    __repr__ = __str__


def compare(first, second, *, labels=("A", "B"), repeats: int = 5, warmup: int = 1, max_elements: int = 100_000,
            timeout: float = 60.0, show: bool = True) -> CpuComparison:
    """Read two datasets to their end in turns (A B A B ...) and print two verdicts: time and CPU time.

    The time sentence is the course's one verdict helper's (:mod:`tutor.verdict`);
    the CPU sentence says whether the second used less CPU time per pass,
    more, or no clearly different amount, by the same rule.

    >>> c = compare(tf.data.Dataset.range(50), tf.data.Dataset.range(50), repeats=3, show=False)   # doctest: +SKIP
    >>> c.cpu_verdict in ("less CPU", "more CPU", "no clear difference")                          # doctest: +SKIP
    True
    """
    from ..env import cpus_available

    where = "tutor.usage.compare"
    for ds, name in ((first, "first"), (second, "second")):
        require_dataset(ds, f"{where} ({name})")
    if isinstance(labels, str) or len(labels) != 2:
        raise ValueError(_("{where}: labels must be two names, for example labels=('map', 'vectorized'); got "
                           "{labels!r}.").format(where=where, labels=labels))
    repeats = require_positive_int(repeats, "repeats", where, minimum=3)
    warmup = require_positive_int(warmup, "warmup", where, minimum=0)
    runs: list[list[tuple[int, float, float]]] = [[], []]
    for index in range(warmup + repeats):
        for which, ds in enumerate((first, second)):
            measured = one_pass(ds, max_elements=max_elements, timeout=timeout, where=where)
            if index >= warmup:
                runs[which].append(measured)
    cpus, visible = cpus_available(), os.cpu_count() or 1
    uses = [CpuUse([r[1] for r in rows], [r[2] for r in rows], cpus=cpus, visible_cores=visible,
                   elements=rows[-1][0], label=str(label)) for rows, label in zip(runs, labels)]
    result = CpuComparison(uses[0], uses[1])
    if show:
        print(result.sentence)
    return result
