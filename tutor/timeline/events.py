"""The Timeline: a table of who worked on which element when (pure NumPy).

:func:`tutor.timeline.record` (a real run of a named-stage pipeline),
:func:`tutor.timeline.simulate` (a model) and :func:`tutor.profile` (any
dataset, under TensorFlow's profiler) all return a :class:`Timeline`, so they
can be drawn, compared and explained the same way.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

#: Name of the consumer row (the training step, "the accelerator").
CONSUMER = "consumer"

#: dtype of :attr:`Timeline.events`: one row per piece of work.
EVENT_DTYPE = np.dtype(
    [("stage", "U32"), ("element", "i8"), ("step", "i8"), ("epoch", "i8"), ("start", "f8"), ("end", "f8")]
)

#: :attr:`Timeline.bottleneck` names the consumer when it waits on stages' own work less than this fraction of the run.
INPUT_BOUND_WAIT = 0.1

#: dtype of :attr:`Timeline.steps`: one row per consumer step.
STEP_DTYPE = np.dtype([("step", "i8"), ("request", "f8"), ("start", "f8"), ("end", "f8")])


def make_events(rows: Iterable[tuple]) -> np.ndarray:
    """A structured array with :data:`EVENT_DTYPE` from ``(stage, element, step, epoch, start, end)`` rows."""
    return np.array(list(rows), dtype=EVENT_DTYPE)


def make_steps(rows: Iterable[tuple]) -> np.ndarray:
    """A structured array with :data:`STEP_DTYPE` from ``(step, request, start, end)`` rows."""
    return np.array(list(rows), dtype=STEP_DTYPE)


def union_length(starts: np.ndarray, ends: np.ndarray) -> float:
    """Total length covered by the intervals ``[starts[i], ends[i]]`` (overlaps counted once).

    >>> union_length(np.array([0.0, 1.0, 5.0]), np.array([2.0, 3.0, 6.0]))
    4.0
    """
    merged_starts, merged_ends = merge_intervals(starts, ends)
    return float(np.sum(merged_ends - merged_starts))


def merge_intervals(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of the intervals ``[starts[i], ends[i]]`` as sorted, disjoint intervals.

    >>> [a.tolist() for a in merge_intervals(np.array([0.0, 1.0, 5.0]), np.array([2.0, 3.0, 6.0]))]
    [[0.0, 5.0], [3.0, 6.0]]
    """
    starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if len(starts) == 0:
        return starts, ends
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], np.maximum.accumulate(ends[order])
    new = np.concatenate([[True], starts[1:] > ends[:-1]])
    last = np.concatenate([np.flatnonzero(new)[1:] - 1, [len(starts) - 1]])
    return starts[new], ends[last]


def overlap_length(a_starts, a_ends, b_starts, b_ends) -> float:
    """Length of (union of intervals A) intersected with (union of intervals B).

    For two unions, ``|A and B| = |A| + |B| - |A or B|``: three merges, no loop.

    >>> overlap_length([0.0, 4.0], [2.0, 6.0], [1.0], [5.0])
    2.0
    """
    a0, a1 = merge_intervals(a_starts, a_ends)
    b0, b1 = merge_intervals(b_starts, b_ends)
    if len(a0) == 0 or len(b0) == 0:
        return 0.0
    both = union_length(np.concatenate([a0, b0]), np.concatenate([a1, b1]))
    return max(float(np.sum(a1 - a0) + np.sum(b1 - b0)) - both, 0.0)


class Timeline:
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
        TensorFlow's iterator path) and ``dataset_nodes`` (stage -> graph nodes).
    parent : array of int, optional
        One per event: the row of :attr:`events` that waited for this one (the
        call that asked it for an element), -1 for none. Only
        :func:`tutor.profile` knows this; recorded and simulated stages never
        wait inside each other, so there it is all -1.

    Examples
    --------
    >>> tl = simulate([("map", 0.01)], step_time=0.01, steps=3)   # doctest: +SKIP
    >>> round(tl.total_time, 3)                                    # doctest: +SKIP
    0.06
    """

    def __init__(self, events: np.ndarray, steps: np.ndarray, stages: Sequence[str], *, label: str = "",
                 model: bool = False, meta: dict | None = None, parent: np.ndarray | None = None):
        self.events = np.asarray(events, dtype=EVENT_DTYPE)
        self.parent = (np.full(len(self.events), -1, dtype=np.int64) if parent is None
                       else np.asarray(parent, dtype=np.int64))
        if self.parent.shape != (len(self.events),):
            raise ValueError(f"Timeline: parent needs one entry per event ({len(self.events)}), "
                             f"got shape {self.parent.shape}.")
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

    # ------------------------------------------------ who holds the time
    def own_time_pieces(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(row, start, end)``: each event's own time, the event minus the time its children
        (events whose :attr:`parent` it is) ran; without children, the whole event.

        Computed once per timeline (it is read by several properties).
        """
        if getattr(self, "_own_pieces", None) is None:
            self._own_pieces = self._compute_own_time_pieces()
        return self._own_pieces

    def _compute_own_time_pieces(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ev, parent = self.events, self.parent
        has_parent = np.flatnonzero(parent >= 0)
        counts = np.bincount(parent[has_parent], minlength=len(ev)) if len(has_parent) else np.zeros(len(ev), int)
        plain = np.flatnonzero(counts == 0)
        rows, starts, ends = [plain], [ev["start"][plain]], [ev["end"][plain]]
        # One child (the usual case: a GetNext that calls its input's GetNext): two gaps, vectorized.
        single = has_parent[counts[parent[has_parent]] == 1]
        if len(single):
            p = parent[single]
            s0, e0 = ev["start"][p], ev["end"][p]
            cs, ce = np.clip(ev["start"][single], s0, e0), np.clip(ev["end"][single], s0, e0)
            for gs, ge in ((s0, cs), (ce, e0)):
                keep = ge > gs
                rows.append(p[keep])
                starts.append(gs[keep])
                ends.append(ge[keep])
        # Several children: merge them first.
        kids: dict[int, list[int]] = {}
        for i in has_parent[counts[parent[has_parent]] > 1].tolist():
            kids.setdefault(int(parent[i]), []).append(i)
        for p, children in kids.items():
            s0, e0 = float(ev["start"][p]), float(ev["end"][p])
            ks, ke = merge_intervals(np.clip(ev["start"][children], s0, e0), np.clip(ev["end"][children], s0, e0))
            gs, ge = np.concatenate([[s0], ke]), np.concatenate([ks, [e0]])
            keep = ge > gs
            rows.append(np.full(int(keep.sum()), p, dtype=np.int64))
            starts.append(gs[keep])
            ends.append(ge[keep])
        return (np.concatenate(rows).astype(np.int64), np.concatenate(starts).astype(float),
                np.concatenate(ends).astype(float))

    @property
    def stage_self_time(self) -> dict[str, float]:
        """Per stage: seconds of its own work, summed over parallel workers.

        Each event counts its length minus the time during which the events it
        waited for (its children in :attr:`parent`: an input called inside it,
        or the producer-side call whose element it took from a buffer) ran,
        overlapping children once: the "self time" of TensorFlow's tf.data
        analysis. Recorded and simulated stages never wait inside each other,
        so for them it equals :attr:`stage_busy_time`.
        """
        rows, starts, ends = self.own_time_pieces()
        stage = self.events["stage"][rows]
        return {s: float(np.sum((ends - starts)[stage == s])) for s in self.stages}

    def steady_waits(self) -> tuple[np.ndarray, np.ndarray]:
        """``(request, start)`` of the consumer's waits after its first step (the first waits for start-up)."""
        st = self.steps[1:] if len(self.steps) > 1 else self.steps
        return st["request"], st["start"]

    @property
    def steady_wait_fraction(self) -> float:
        """Like :attr:`consumer_wait_fraction`, from the end of the first step on (start-up left out)."""
        if len(self.steps) == 0:
            return 0.0
        begin = float(self.steps["end"][0]) if len(self.steps) > 1 else 0.0
        run = self.total_time - begin
        request, start = self.steady_waits()
        return union_length(request, start) / run if run > 0 else 0.0

    @property
    def stage_wait_share(self) -> dict[str, float]:
        """Per stage: fraction of the consumer's waiting (after its first step) covered by the stage's own work
        (see :attr:`stage_self_time`); 1.0 means it worked through all of the waiting."""
        request, start = self.steady_waits()
        waited = union_length(request, start)
        rows, starts, ends = self.own_time_pieces()
        stage = self.events["stage"][rows]
        return {s: (overlap_length(starts[stage == s], ends[stage == s], request, start) / waited if waited > 0
                    else 0.0) for s in self.stages}

    @property
    def pipeline_wait_fraction(self) -> float:
        """The part of :attr:`steady_wait_fraction` during which some stage was doing its own work.

        The rest of the waiting (handing an element over, the loop's own
        overhead) is not the pipeline's doing. Stages in ``meta["passive_stages"]`` do not count.
        """
        passive = set(self.meta.get("passive_stages", ()))
        request, start = self.steady_waits()
        waited = union_length(request, start)
        if waited <= 0:
            return 0.0
        rows, starts, ends = self.own_time_pieces()
        busy = np.isin(self.events["stage"][rows], [s for s in self.stages if s not in passive])
        return self.steady_wait_fraction * overlap_length(starts[busy], ends[busy], request, start) / waited

    @property
    def bottleneck(self) -> str:
        """The stage that holds the time, or :data:`CONSUMER` when the input keeps up.

        The rule follows TensorFlow's tf.data bottleneck analysis (the
        profiler's ``xplane_to_tf_data_stats``): among the iterators the
        consumer waits on, the one with the largest *self time* (its time
        minus the time of the inputs it waited for), so the deepest stage that
        really does the work. Here, after the first step (start-up left out):

        1. If the consumer waits for stages' own work less than
           :data:`INPUT_BOUND_WAIT` (10%) of the time
           (:attr:`pipeline_wait_fraction`), the input keeps up: ``CONSUMER``.
        2. Otherwise, the stage whose own work covers the largest share of the
           consumer's waiting (:attr:`stage_wait_share`); on a tie, the one
           nearer the source. Stages in ``meta["passive_stages"]`` (a recorded
           ``batch`` only shows elements arriving) are skipped.
        """
        passive = set(self.meta.get("passive_stages", ()))
        candidates = [s for s in self.stages if s not in passive]
        if not candidates or self.pipeline_wait_fraction < INPUT_BOUND_WAIT:
            return CONSUMER
        share = self.stage_wait_share
        return max(candidates, key=lambda s: share[s])

    @property
    def notes(self) -> list[str]:
        """Sentences about the run, e.g. the graph rewrites TensorFlow made in a profiled run."""
        return list(self.meta.get("notes", []))

    def save_trace(self, path) -> str:
        """Write Chrome trace-event JSON (opens in https://ui.perfetto.dev and chrome://tracing); return the path.

        One track per stage (several when its work overlaps), the consumer's steps and its waits for input."""
        from .profiler.chrome import write_trace

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
        raise ValueError(f"parallelism must be >= 1, got {parallelism}.")
    if producer_time < 0 or consumer_time < 0:
        raise ValueError("producer_time and consumer_time must be >= 0 seconds.")
    limit = max(producer_time / parallelism, consumer_time)
    if shared_cpu:
        limit = max(limit, (producer_time + consumer_time) / parallelism)
    return float(limit)
