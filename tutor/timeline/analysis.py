"""Who holds the time in a :class:`~tutor.timeline.Timeline`: self time, the consumer's waits, the bottleneck.

:class:`WhoHoldsTime` is the part of a Timeline that answers "which stage
should I make faster?". It reads the Timeline's ``events``, ``steps``,
``stages``, ``parent`` and ``meta``; every answer is pure NumPy.

Two kinds of stages are never named as the bottleneck:

* **passive** stages (``meta["passive_stages"]``): a recorded ``batch`` row
  shows elements arriving, not work;
* **buffer** stages (``meta["buffer_stages"]``): they only hand over elements
  that a stage upstream of them made. In a profiled run these are TensorFlow's
  ``Prefetch`` and the iterators of an in-memory ``cache()``
  (``MemoryCache``, and ``MemoryCacheImpl``, which stores the elements on the
  first pass and reads them back from memory after that). The time a buffer
  is busy while the consumer waits is time spent waiting for its input, so it
  counts for the nearest stage upstream of it that is not a buffer.
"""
from __future__ import annotations

import numpy as np

from .intervals import merge_intervals, overlap_length, union_length
from .schema import CONSUMER

#: :attr:`WhoHoldsTime.bottleneck` names the consumer when it waits on stages' own work less than this
#: fraction of the run.
INPUT_BOUND_WAIT = 0.1


class WhoHoldsTime:
    """Self time, waiting and the bottleneck of a Timeline (mixed into :class:`~tutor.timeline.Timeline`)."""

    # ------------------------------------------------------------ own time
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

    # ------------------------------------------------------ the consumer's waits
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

    def _share_of_waits(self, stages_of_piece: np.ndarray, names) -> dict[str, float]:
        request, start = self.steady_waits()
        waited = union_length(request, start)
        rows, starts, ends = self.own_time_pieces()
        return {s: (overlap_length(starts[stages_of_piece == s], ends[stages_of_piece == s], request, start) / waited
                    if waited > 0 else 0.0) for s in names}

    @property
    def stage_wait_share(self) -> dict[str, float]:
        """Per stage: fraction of the consumer's waiting (after its first step) covered by the stage's own work
        (see :attr:`stage_self_time`); 1.0 means it worked through all of the waiting."""
        rows, _, _ = self.own_time_pieces()
        return self._share_of_waits(self.events["stage"][rows], self.stages)

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

    # ------------------------------------------------------------ buffers
    @property
    def buffer_stages(self) -> list[str]:
        """Stages that only hand over elements another stage made (``meta["buffer_stages"]``), e.g. ``Prefetch``."""
        listed = set(self.meta.get("buffer_stages", ()))
        return [s for s in self.stages if s in listed]

    def stage_inputs(self, stage: str) -> list[str]:
        """The stages ``stage`` takes its elements from: ``meta["stage_inputs"]`` of a profiled run (the real
        iterator nesting), otherwise the stage before it in :attr:`stages`."""
        known = self.meta.get("stage_inputs")
        if known is not None:
            return [s for s in known.get(stage, ()) if s in self.stages]
        i = self.stages.index(stage)
        return [self.stages[i - 1]] if i > 0 else []

    def working_stage(self, stage: str) -> str | None:
        """``stage`` itself, or for a buffer the nearest stage upstream of it that is not a buffer (None if none).

        >>> from tutor.timeline import simulate
        >>> simulate([("read", 0.01), ("decode", 0.02)], steps=2).working_stage("decode")
        'decode'
        """
        buffers = set(self.buffer_stages)
        todo, seen = [stage], set()
        while todo:
            s = todo.pop(0)
            if s in seen:
                continue
            seen.add(s)
            if s not in buffers:
                return s
            todo.extend(self.stage_inputs(s))
        return None

    # ----------------------------------------------------------- the verdict
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
        3. Buffer stages (:attr:`buffer_stages`: ``Prefetch``, an in-memory
           cache's ``MemoryCache`` and ``MemoryCacheImpl``) are never named:
           a buffer busy while the consumer waits is waiting for its input, so
           its share counts for the nearest stage upstream of it that does
           work (:meth:`working_stage`).
        """
        passive = set(self.meta.get("passive_stages", ()))
        buffers = set(self.buffer_stages)
        candidates = [s for s in self.stages if s not in passive and s not in buffers]
        if not candidates or self.pipeline_wait_fraction < INPUT_BOUND_WAIT:
            return CONSUMER
        share = self.credited_wait_share
        return max(candidates, key=lambda s: share[s])

    @property
    def credited_wait_share(self) -> dict[str, float]:
        """Like :attr:`stage_wait_share`, with each buffer's own time counted for :meth:`working_stage` instead
        (buffers get 0.0): what :attr:`bottleneck` compares."""
        rows, _, _ = self.own_time_pieces()
        owner = {s: self.working_stage(s) or "" for s in self.stages}
        stage = self.events["stage"][rows]
        credited = np.array([owner.get(s, s) for s in stage.tolist()], dtype=stage.dtype) if len(stage) else stage
        share = self._share_of_waits(credited, self.stages)
        return {s: (0.0 if owner[s] != s else share[s]) for s in self.stages}
