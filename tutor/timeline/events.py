"""The Timeline: a table of who worked on which element when (pure NumPy).

:func:`tutor.timeline.record` (a real run of a named-stage pipeline),
:func:`tutor.timeline.simulate` (a model) and :func:`tutor.profile` (any
dataset, under TensorFlow's profiler) all return a :class:`Timeline`, so they
can be drawn, compared and explained the same way.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..i18n import gettext as _
from .analysis import INPUT_BOUND_WAIT, WhoHoldsTime
from .intervals import merge_intervals, overlap_length, union_length
from .schema import CONSUMER, EVENT_DTYPE, STEP_DTYPE, make_events, make_steps
from .trace import write_trace

__all__ = ["CONSUMER", "EVENT_DTYPE", "INPUT_BOUND_WAIT", "STEP_DTYPE", "Timeline", "make_events", "make_steps",
           "merge_intervals", "overlap_length", "physical_limit", "union_length"]

class Timeline(WhoHoldsTime):
    """What happened, stage by stage and element by element, in one run.

    Parameters
    ----------
    events : structured array with :data:`EVENT_DTYPE`
        One row per piece of work: ``stage``, ``element`` (position in the order
        the consumer received elements; for a stage after ``batch`` the first
        element of the batch), ``step`` (the consumer step that used it),
        ``epoch`` (0-based), ``start`` and ``end`` in seconds since the run began.
        The consumer's training steps are rows with ``stage == "consumer"``.
    steps : structured array with :data:`STEP_DTYPE`
        Per consumer step: when it asked for input (``request``), when it got it
        (``start``) and when the step finished (``end``).
    stages : list of str
        Producer stage names, from source to consumer.
    label : str
        Shown in plots. A model (``model=True``) is always labelled "model".
    model : bool
        True for :func:`simulate` output, False for a recorded run.
    meta : dict
        Free-form facts about the run (``cache_hits``, ``code`` ...). A
        profiled run adds ``notes`` (see :attr:`notes`), ``iterators`` (stage ->
        TensorFlow's iterator path), ``dataset_nodes`` (stage -> graph nodes),
        ``stage_inputs`` (stage -> the stages it reads from), ``buffer_stages``
        (see :attr:`buffer_stages`), ``parallelism`` (a parallel ``map`` or
        ``MapAndBatch`` stage -> the most calls of its function it allowed at
        once; no more of its function runs overlap) and, where the trace
        cannot tell epochs apart, ``epochs_unknown`` (why).
    parent : array of int, optional
        One per event: the row of :attr:`events` that waited for this one (the
        call that asked it for an element), -1 for none. Only
        :func:`tutor.profile` knows this; recorded and simulated stages never
        wait inside each other, so there it is all -1.
    function_run : array of bool, optional
        One per event: True for a run of an asynchronous stage's function on
        a worker thread (the user function of a parallel ``map`` or
        ``MapAndBatch``), False for a call that asked the stage for an element
        and waited until it had one. Only :func:`tutor.profile` records both
        kinds in one stage (:class:`TimelineDisplay` draws them on separate
        sub-rows); recorded and simulated events are all False.

    Epochs: ``events["epoch"]`` is exact for recorded and simulated runs. A
    profiled run reads it from the trace where the trace tells it (the ``[k]``
    index of a ``repeat()`` iterator); where it cannot (TensorFlow fused
    ``shuffle`` and ``repeat`` into one ``ShuffleAndRepeat`` iterator),
    ``meta["epochs_unknown"]`` says why and :attr:`epochs_known` is False.

    Examples
    --------
    >>> tl = simulate([("map", 0.01)], step_time=0.01, steps=3)   # doctest: +SKIP
    >>> round(tl.total_time, 3)                                    # doctest: +SKIP
    0.06
    """

    def __init__(self, events: np.ndarray, steps: np.ndarray, stages: Sequence[str], *, label: str = "",
                 model: bool = False, meta: dict | None = None, parent: np.ndarray | None = None,
                 function_run: np.ndarray | None = None):
        self.events = np.asarray(events, dtype=EVENT_DTYPE)
        self.parent = (np.full(len(self.events), -1, dtype=np.int64) if parent is None
                       else np.asarray(parent, dtype=np.int64))
        self.function_run = (np.zeros(len(self.events), dtype=bool) if function_run is None
                             else np.asarray(function_run, dtype=bool))
        for name, array in (("parent", self.parent), ("function_run", self.function_run)):
            if array.shape != (len(self.events),):
                raise ValueError(_("Timeline: {name} needs one entry per event ({events}), got shape {shape}.")
                                 .format(name=name, events=len(self.events), shape=array.shape))
        self.steps = np.asarray(steps, dtype=STEP_DTYPE)
        self.stages = [str(s) for s in stages]
        self.model = bool(model)
        label = str(label)
        if self.model and "model" not in label:
            label = f"{label} (model)" if label else "model"
        self.label = label
        self.meta = dict(meta or {})

    # ----------------------------------------------------------------- numbers
    @property
    def n_steps(self) -> int:
        """How many consumer steps ran."""
        return int(len(self.steps))

    @property
    def total_time(self) -> float:
        """Seconds from the start of the run (iterator creation) to the end of the last step."""
        return float(self.steps["end"].max()) if len(self.steps) else 0.0

    @property
    def wait_times(self) -> np.ndarray:
        """Per step: seconds the consumer waited for its input."""
        return self.steps["start"] - self.steps["request"]

    @property
    def consumer_time(self) -> float:
        """Seconds the consumer spent working (the sum of its step times)."""
        return float(np.sum(self.steps["end"] - self.steps["start"]))

    @property
    def consumer_wait_fraction(self) -> float:
        """Fraction of the run during which the consumer (the "accelerator") sat waiting for input."""
        total = self.total_time
        return float(np.sum(self.wait_times) / total) if total > 0 else 0.0

    def stage_events(self, stage: str) -> np.ndarray:
        """The rows of :attr:`events` that belong to ``stage``."""
        return self.events[self.events["stage"] == stage]

    @property
    def stage_busy_time(self) -> dict[str, float]:
        """Per stage: total seconds of work, summed over parallel workers."""
        return {s: float(np.sum(e["end"] - e["start"])) for s in self.stages for e in [self.stage_events(s)]}

    @property
    def stage_busy_fraction(self) -> dict[str, float]:
        """Per stage: fraction of the run during which at least one worker of the stage was busy."""
        total = self.total_time
        out = {}
        for s in self.stages:
            e = self.stage_events(s)
            out[s] = union_length(e["start"], e["end"]) / total if total > 0 else 0.0
        return out

    @property
    def stage_concurrency(self) -> dict[str, float]:
        """Per stage: average number of workers busy at once (above 1 means real parallel work)."""
        total = self.total_time
        return {s: (t / total if total > 0 else 0.0) for s, t in self.stage_busy_time.items()}

    @property
    def producer_time(self) -> float:
        """Seconds of work in all producer stages together (what one core would need).

        Stages listed in ``meta["passive_stages"]`` (``batch``: its bars show
        elements arriving, not work) are left out.
        """
        passive = set(self.meta.get("passive_stages", ()))
        return float(sum(t for s, t in self.stage_busy_time.items() if s not in passive))

    @property
    def epochs_known(self) -> bool:
        """False when the run cannot tell which epoch an event belongs to (``meta["epochs_unknown"]`` says why)."""
        return not self.meta.get("epochs_unknown")

    @property
    def notes(self) -> list[str]:
        """Sentences about the run, e.g. the graph rewrites TensorFlow made in a profiled run."""
        return list(self.meta.get("notes", []))

    def save_trace(self, path) -> str:
        """Write Chrome trace-event JSON (opens in https://ui.perfetto.dev and chrome://tracing); return the path.

        One track per stage (several when its work overlaps), the consumer's steps and its waits for input."""
        return write_trace(self, path)

    def summary(self) -> dict:
        """The headline numbers, rounded for printing."""
        return {
            "label": self.label,
            "steps": self.n_steps,
            "total_s": round(self.total_time, 3),
            "consumer_wait_fraction": round(self.consumer_wait_fraction, 2),
            "stage_busy_fraction": {k: round(v, 2) for k, v in self.stage_busy_fraction.items()},
        }

    def __repr__(self) -> str:
        kind = "model" if self.model else ("profiled" if self.meta.get("source") == "profile" else "recorded")
        return (f"Timeline({self.label!r}, {kind}, steps={self.n_steps}, total_time={self.total_time:.3f} s, "
                f"consumer_wait_fraction={self.consumer_wait_fraction:.2f})")


def physical_limit(producer_time: float, consumer_time: float, parallelism: int = 1, *,
                   shared_cpu: bool = False) -> float:
    """The shortest time a pipeline could take: its ideal, to print beside a measured time.

    The producer's work can at best spread over ``parallelism`` cores; the
    consumer's steps run one after another; with perfect overlap the run takes
    as long as the larger of the two. When the consumer also runs on the same
    CPU cores (training on a CPU), the two share the cores and
    ``shared_cpu=True`` adds that bound too.

    >>> physical_limit(8.0, 3.0, 2)
    4.0
    >>> physical_limit(8.0, 3.0, 2, shared_cpu=True)
    5.5
    """
    if parallelism < 1:
        raise ValueError(_("parallelism must be >= 1, got {parallelism}.").format(parallelism=parallelism))
    if producer_time < 0 or consumer_time < 0:
        raise ValueError(_("producer_time and consumer_time must be >= 0 seconds."))
    limit = max(producer_time / parallelism, consumer_time)
    if shared_cpu:
        limit = max(limit, (producer_time + consumer_time) / parallelism)
    return float(limit)
