"""Measured findings: what a timeline of a real run says about the pipeline the doctor read.

``tutor.doctor.check(ds, profile=tl)`` takes a :class:`tutor.timeline.Timeline`
from :func:`tutor.profile` (stage names are TensorFlow's iterators after its
rewrites: ``ParallelMapV2``, ``MapAndBatch``, ``Prefetch``), from
:func:`tutor.timeline.record` or from :func:`tutor.timeline.simulate` (stage
names are the user's: ``"decode"``). It adds one finding:

* ``input-bound``: the consumer waits for its input, and the timeline's
  bottleneck (``tl.bottleneck``) is a pipeline stage. The finding names the
  matching stage of the static reading, how much of the pipeline's own time it
  holds and how long the consumer waits, and the fix that fits that stage.
* ``input-keeps-up``: the consumer rarely waits (``tl.bottleneck`` is
  ``tutor.timeline.CONSUMER``): the input is not the bottleneck, so a faster
  pipeline would not shorten the run.

Shares of "the pipeline's own time" count working stages only: buffer stages
(``tl.buffer_stages``: ``Prefetch``, the iterators of an in-memory ``cache()``)
only hand over elements that a stage upstream made, so their time is waiting,
and neither the bottleneck nor the busiest stage is ever one of them.

**Matching** a measured stage to a static one: a profiled name is turned into
a kind (``ParallelMapV2`` and ``MapAndBatch`` are maps, ``Prefetch`` a
prefetch, ``TensorSlice`` a source) and paired with the static stages of that
kind in order, source first. A user name (recorded or simulated) is paired by
position with the stages that get a row in a recorded timeline (maps,
interleaves, batches, a generator source), or else with a stage whose
function has that name.
"""
from __future__ import annotations

from typing import Any

from ..i18n import gettext as _
from ..i18n import N_, join_sentences
from .stage import Stage
from .kinds import iterator_kind
from .registry import ANALYSIS, Rule, in_report_order
from .report import Finding
_ROW_KINDS = ("map", "interleave", "flat_map", "batch", "map_and_batch")


def require_timeline(profile: Any, where: str):
    from ..timeline import Timeline

    if not isinstance(profile, Timeline):
        raise TypeError(_(
            "{where}: profile must be a tutor.timeline.Timeline, got {type}; make one with "
            "tl = tutor.profile(ds, steps=20) (or tutor.timeline.record / simulate) and pass profile=tl."
        ).format(where=where, type=type(profile).__name__))
    if profile.n_steps == 0:
        raise ValueError(_("{where}: the profile has no consumer steps, so it says nothing about waiting; "
                           "profile again with steps >= 2.").format(where=where))
    return profile


def _profiled(tl) -> bool:
    return "tf_version" in tl.meta or all(s[:1].isupper() for s in tl.stages if s)


def match_stage(name: str, stages: list[Stage], tl) -> Stage | None:
    """The static stage that the measured stage ``name`` of ``tl`` stands for, or None."""
    if _profiled(tl):
        names = [n.split("/")[-1] for n in tl.stages]
        kind = iterator_kind(name.split("/")[-1])
        same = [n for n in names if iterator_kind(n) == kind]
        k = same.index(name.split("/")[-1]) if name.split("/")[-1] in same else 0
        if kind == "map_and_batch":
            static = [s for s in stages if s.kind == "map" and any(c.kind == "batch" for c in s.consumers)]
        else:
            static = [s for s in stages if s.kind == kind]
        return static[k] if k < len(static) else (static[-1] if static else None)
    rows = [s for s in stages if s.kind in _ROW_KINDS or (s.kind == "source" and s.fn_name == "generator")]
    if len(rows) == len(tl.stages) and name in tl.stages:
        return rows[tl.stages.index(name)]
    return next((s for s in stages if s.fn_name == name), None)


def _numbers(tl) -> tuple[str, float, dict]:
    """``(bottleneck, wait fraction, own seconds per working stage)``, from the Timeline's own analysis.

    Passive stages (a recorded ``batch``) and buffer stages (``tl.buffer_stages``:
    ``Prefetch``, a ``cache()``'s iterators) are left out of the own seconds:
    a buffer's time is waiting for its input, not work, so it is never named as
    the stage that holds the most time.
    """
    skip = set(tl.meta.get("passive_stages", ())) | set(tl.buffer_stages)
    own = {s: t for s, t in tl.stage_self_time.items() if s not in skip}
    return tl.bottleneck, tl.steady_wait_fraction, own


def _advice(stage: Stage | None) -> str:
    if stage is None:
        return _("Give the slow stage more parallelism (num_parallel_calls=tf.data.AUTOTUNE), move per-element work "
                 "after batch, or cache what does not change between epochs.")
    name = stage.fn_name or "fn"
    if stage.kind == "map" and "num_parallel_calls" not in stage.params:
        return _("Raise its parallelism: ds.map({name}, num_parallel_calls=tf.data.AUTOTUNE).").format(name=name)
    if stage.kind in ("map", "map_and_batch"):
        return _("It already runs in parallel, so give it less work: move element-wise work after batch (one call "
                 "per batch), cache the part that is the same every epoch before it, or add CPU (more cores, or "
                 "the tf.data service).")
    if stage.kind == "source" and stage.fn_name == "generator":
        return _("The Python generator is the limit: generate indices and load with "
                 "ds.map(load, num_parallel_calls=tf.data.AUTOTUNE), or use a native source.")
    if stage.kind in ("interleave", "flat_map"):
        return _("Read more files at once: interleave(..., num_parallel_calls=tf.data.AUTOTUNE).")
    return _("Make that stage cheaper or parallel, or cache its output if it is the same every epoch.")


def measured_findings(stages: list[Stage], tl, static: list[Finding]) -> list[Finding]:
    """One finding from the timeline ``tl`` of a run of this pipeline."""
    from ..timeline import CONSUMER

    bottleneck, wait, own = _numbers(tl)
    total_own = sum(own.values())
    top = max(own, key=own.get) if own else None
    end = stages[-1]
    if bottleneck == CONSUMER:
        message = _("In the measured run the consumer waited {wait:.0%} of the time (after its first step): the "
                    "input pipeline keeps up, so it is not your bottleneck.").format(wait=wait)
        if top and total_own > 0:
            # Translators: {stage} is the name of a measured stage, e.g. "ParallelMapV2" or "decode".
            message = join_sentences(message, _(
                "Of the pipeline's own time, {stage} holds the most ({share:.0%}), but making it faster would not "
                "shorten this run.").format(stage=top, share=own[top] / total_own))
        return [Finding(
            "input-keeps-up", end, message,
            _("Speed up the training step instead (the model, the batch size, the device). The doctor's other speed "
              "findings are notes for this run: they matter once the consumer gets faster than the input."),
            severity="note", measured=True)]
    stage = match_stage(bottleneck, stages, tl)
    share = own.get(bottleneck, 0.0) / total_own if total_own > 0 else 0.0
    if stage is not None:
        # Translators: {bottleneck} is the measured stage's name (e.g. "ParallelMapV2"), {stage} the doctor's
        # reading of it (e.g. "stage 2: map(decode)").
        message = _("In the measured run {bottleneck} ({stage}) holds {share:.0%} of the pipeline's own time and "
                    "the consumer waits {wait:.0%} of the time (after its first step): the input is the bottleneck, "
                    "and that stage is where the time goes.")
    else:
        message = _("In the measured run {bottleneck} holds {share:.0%} of the pipeline's own time and the consumer "
                    "waits {wait:.0%} of the time (after its first step): the input is the bottleneck, and that "
                    "stage is where the time goes.")
    message = message.format(bottleneck=bottleneck, stage=stage.where if stage is not None else "", share=share,
                             wait=wait)
    fix = _advice(stage)
    related = [f for f in static if stage is not None and f.stage is stage]
    if related:
        fix = join_sentences(fix, _("See also the finding [{rule}] for that stage.").format(rule=related[0].rule))
    return [Finding("input-bound", stage if stage is not None else end, message, fix, severity="slow", measured=True)]


#: rule id -> :class:`Rule` of the measured findings (they can be passed to ``ignore`` too).
MEASURED_RULES: dict[str, Rule] = in_report_order([
    Rule("input-bound", "slow", summary=N_("With a profile: the consumer waits for its input, and the bottleneck "
                                           "is a pipeline stage (named, with its share of the time and the fix that "
                                           "fits it)."),
         why=N_("Only the bottleneck's speed decides how fast the training gets its data."),
         fix=N_("Make that stage parallel or cheaper, or cache what is the same every epoch."),
         doc=ANALYSIS, quote="If the calls return slowly, tf.data is unable to keep up with the consumer's requests.",
         check=measured_findings, measured=True),
    Rule("input-keeps-up", "note", summary=N_("With a profile: the consumer rarely waits, so the input is not the "
                                              "bottleneck; the static speed findings then count as notes."),
         why=N_("A faster pipeline would not shorten this run."), fix=N_("Speed up the training step instead."),
         doc=ANALYSIS, quote="The input pipeline is not your bottleneck", check=measured_findings, measured=True),
])
