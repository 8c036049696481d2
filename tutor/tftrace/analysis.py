"""Is the step waiting for input? XProf's input-pipeline analysis, and the same rule applied to the trace.

XProf's *Input Pipeline Analysis* page splits every step into the time the
host waited for input (``IteratorGetNext`` and the input pipeline's outermost
stage) and the rest, and classifies the run by the share of input time, with
fixed thresholds (``kModeratelyInfeedBoundThresholdInPercent = 5`` and
``kHighlyInfeedBoundThresholdInPercent = 20`` in its source):

* below 5 %: **not** input-bound;
* from 5 % to 20 %: **moderately** input-bound;
* from 20 %: **highly** input-bound.

Below 5 %, when the step time it could not place ("All Others": Python between
ops, I/O it did not see) reaches 3 % (``kModeratelyAllOtherBoundThresholdInPercent``),
its sentence says *POTENTIALLY* input-bound instead of *NOT*: a hint, not a measured wait.
:attr:`InputPipelineAnalysis.verdict` follows the measured input time only.

:class:`InputPipelineAnalysis` reads that page's data (:func:`~.convert.tool_data`);
:func:`waiting_verdict` applies the same thresholds to the ``DoCompute`` events of
the trace viewer (:meth:`~.events.TraceEvents.step_waits`), so both answers come
from TensorFlow's own events.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from ..i18n import gettext as _
from .events import StepWait
from .convert import tool_data

#: XProf's thresholds, in percent of the step time spent waiting for input.
MODERATELY, HIGHLY = 5.0, 20.0
WHERE = "tutor.tftrace"


def classify(percent: float) -> str:
    """``"not"``, ``"moderately"`` or ``"highly"`` (input-bound), by XProf's thresholds.

    >>> classify(0.7), classify(12.0), classify(72.0)
    ('not', 'moderately', 'highly')
    """
    if isinstance(percent, bool) or not isinstance(percent, (int, float)) or percent != percent:
        raise TypeError(_("{where}.classify expects a percentage (a number), got {percent!r}.").format(where=WHERE,
                                                                                                     percent=percent))
    return "highly" if percent >= HIGHLY else "moderately" if percent >= MODERATELY else "not"


def _table(tables: list, first_column: str) -> dict | None:
    for table in tables:
        ids = [c.get("id") for c in table.get("cols", [])]
        if ids and ids[0] == first_column:
            return {"p": table.get("p", {}), "rows": [[c.get("v") for c in row["c"]] for row in table.get("rows", [])],
                    "ids": ids}
    return None


@dataclass
class InputPipelineAnalysis:
    """XProf's *Input Pipeline Analysis* of one profile (build it with :meth:`from_logdir`).

    Attributes
    ----------
    conclusion : str
        The page's verdict, word for word ("Your program is HIGHLY input-bound because ...").
    hardware : str
        ``"CPU_ONLY"``, ``"GPU"`` or ``"TPU"``: which breakdown the page used.
    steps : list of dict
        One per step it kept: ``step`` (its name, such as ``"train 3"``), ``step_ms``, ``input_ms`` (waiting for input),
        ``compute_ms`` (host compute) and ``other_ms``. XProf leaves out the first and
        last step of the profile when they were cut off.
    iterators : list of dict
        Its table of input operations: ``long_name``, ``count``, ``total_ms``,
        ``self_ms`` (time not spent in its input's calls), sorted by self time.
    warnings : list of str
        What the page warns about (e.g. that it saw no step marker).
    """

    conclusion: str
    hardware: str
    steps: list
    iterators: list
    warnings: list

    @classmethod
    def from_logdir(cls, logdir: Any) -> "InputPipelineAnalysis":
        """Run XProf's ``input_pipeline_analyzer`` tool on the profile under ``logdir``."""
        return cls.from_json(tool_data(logdir, "input_pipeline_analyzer", f"{WHERE}.input_pipeline"))

    @classmethod
    def from_json(cls, tables: Any) -> "InputPipelineAnalysis":
        """From the tool's JSON: a list of Google Charts data tables."""
        if not isinstance(tables, list):
            raise TypeError(_("{where}: expected the input-pipeline analysis JSON (a list of tables), got {type}.")
                            .format(where=WHERE, type=type(tables).__name__))
        summary = _table(tables, "stepnum")
        if summary is None:
            raise ValueError(_("{where}: this input-pipeline analysis has no step table; was it written by another "
                               "version of XProf? The lesson pins the version it was written for.").format(where=WHERE))
        p = summary["p"]
        col = {name: k for k, name in enumerate(summary["ids"])}
        steps = []
        for row in summary["rows"]:
            total = float(row[col["stepTimeMs"]]) if "stepTimeMs" in col else 0.0
            wait = float(row[col["infeedTimeMs"]])
            compute = sum(float(row[col[c]]) for c in ("hostComputeTimeMs", "deviceComputeTimeMs") if c in col)
            steps.append({"step": str(row[0]), "step_ms": total, "input_ms": wait, "compute_ms": compute,
                          "other_ms": max(total - wait - compute, 0.0)})
        ops = _table(tables, "opName")
        iterators = []
        for row in (ops["rows"] if ops else []):
            iterators.append({"long_name": str(row[0]), "count": int(row[1]), "total_ms": float(row[2]),
                              "self_ms": float(row[4])})
        iterators.sort(key=lambda r: -r["self_ms"])
        notes = _table(tables, "severity")
        warnings = [str(r[1]) for r in notes["rows"]] if notes else []
        return cls(str(p.get("input_conclusion", "")), str(p.get("hardware_type", "")), steps, iterators, warnings)

    @property
    def input_percent(self) -> float | None:
        """Input time over step time of the steps kept, in percent (None when no step was measured)."""
        total = sum(s["step_ms"] for s in self.steps)
        return 100.0 * sum(s["input_ms"] for s in self.steps) / total if total else None

    @property
    def verdict(self) -> str:
        """``"highly"``, ``"moderately"``, ``"not"`` (input-bound), or ``"unknown"`` without steps."""
        percent = self.input_percent
        return "unknown" if percent is None else classify(percent)


@dataclass
class WaitingVerdict:
    """Is the step waiting for input? The share of step time spent in ``DoCompute``, and its class."""

    label: str
    percent: float
    median_wait_ms: float
    median_step_ms: float
    steps: int
    verdict: str

    def __str__(self) -> str:
        if self.verdict == "highly":
            text = _("{label}: the steps waited in IteratorGetNext for {percent:.0f}% of their time (median "
                     "{wait:.1f} ms of a {step:.1f} ms step, {steps} steps): highly input-bound.")
        elif self.verdict == "moderately":
            text = _("{label}: the steps waited in IteratorGetNext for {percent:.0f}% of their time (median "
                     "{wait:.1f} ms of a {step:.1f} ms step, {steps} steps): moderately input-bound.")
        elif self.verdict == "not":
            text = _("{label}: the steps waited in IteratorGetNext for {percent:.0f}% of their time (median "
                     "{wait:.1f} ms of a {step:.1f} ms step, {steps} steps): not input-bound.")
        else:  # a verdict made by hand: shown as it is
            text = _("{label}: the steps waited in IteratorGetNext for {percent:.0f}% of their time (median "
                     "{wait:.1f} ms of a {step:.1f} ms step, {steps} steps): {verdict} input-bound.")
        return text.format(label=self.label, percent=self.percent, wait=self.median_wait_ms, step=self.median_step_ms,
                           steps=self.steps, verdict=self.verdict)


def waiting_verdict(waits: list, *, label: str | None = None, skip: int = 1) -> WaitingVerdict:
    """Apply XProf's thresholds to the ``DoCompute`` time of each step (:meth:`TraceEvents.step_waits`).

    ``skip`` leaves out the first steps: the first request of a new iterator also
    starts the pipeline (a shuffle fills its buffer), which no later step repeats.
    """
    if not isinstance(waits, list) or not all(isinstance(w, StepWait) for w in waits):
        raise TypeError(_("{where}.waiting_verdict expects the list that TraceEvents.step_waits() returns.")
                        .format(where=WHERE))
    kept = waits[skip:] if len(waits) > skip else waits
    if not kept:
        raise ValueError(_("{where}.waiting_verdict: no steps to judge; record a few more steps.").format(where=WHERE))
    total = sum(w.step_ms for w in kept)
    percent = 100.0 * sum(w.wait_ms for w in kept) / total if total else 0.0
    # Translators: the name of a profiled run when the learner gave none.
    return WaitingVerdict(_("this run") if label is None else label, percent, statistics.median(w.wait_ms for w in kept),
                          statistics.median(w.step_ms for w in kept), len(kept), classify(percent))
