"""The pipeline doctor: finds the tf.data mistakes the lessons warn about, and says how much each matters.

>>> import tutor
>>> report = tutor.doctor.check(tf.data.Dataset.range(100).batch(10).shuffle(10))
>>> report.rules, report.note_rules
(['shuffle-after-batch'], ['no-prefetch-at-end'])

``check`` reads the pipeline's structure from the dataset itself (its op graph,
via ``tf.raw_ops.DatasetToGraphV2``, or its Python objects when the graph
would copy too much data; see :mod:`tutor.doctor.graph`); it never iterates
the dataset, so endless pipelines are fine, and an op it does not know is read
as a stage of its own kind. Stages that a library utility built
(``image_dataset_from_directory``, ``make_csv_dataset``, ``rejection_resample``)
are never blamed for their own code. Every finding names the stage, says why
it matters, gives the fix, quotes the TensorFlow documentation it rests on,
and has a severity:

* ``"wrong"``: wrong results (frozen augmentation, leakage between train and
  test, epochs mixed, the same "random" value for every element);
* ``"slow"``: right data, slower than it needs to be (with a profile, only
  where the consumer waits for its input);
* ``"note"``: worth knowing, nothing wrong (a file cache persists across runs,
  TensorFlow already adds the prefetch).

The report lists the problems (wrong, then slow) and then the notes. Notes
never count as problems: ``len(report) == 0`` and ``report.healthy`` hold for
a pipeline with notes only.

Each rule is declared once, next to its check function, with
:func:`tutor.doctor.registry.rule`: :data:`RULES` (``rule id -> Rule``, in
report order) and :data:`DOCS` are built from those declarations. A check
judges one stage of the kinds its rule names (``on=``) and says what it
found; the framework loops over the stages and stamps each finding with its
rule's id (:func:`tutor.doctor.rules.run`). For every
rule, ``RULES[rule_id].summary`` says what it finds, in English (its
``why`` and ``fix`` too; ``tutor.i18n.gettext(r.summary)`` gives it in the
language tutor speaks)::

    for r in tutor.doctor.RULES.values():
        print(f"{r.id} ({r.severity}): {r.summary}")

With ``profile=`` (a :class:`tutor.timeline.Timeline`), a measured finding
``input-bound`` (slow) or ``input-keeps-up`` (note) is added; when the input
keeps up, the static speed findings become notes for that run (see
:mod:`tutor.doctor.measured` and :data:`MEASURED_RULES`).
"""
from __future__ import annotations

from typing import Any, Iterable

import tensorflow as tf

from .._validate import require_dataset
from ..i18n import gettext as _
from .functions import PY_FUNCTION_OPS, STATEFUL_RANDOM_OPS
from .graph import GRAPH_BYTES_LIMIT, read_pipeline
from .measured import MEASURED_RULES, match_stage, measured_findings, require_timeline
from .registry import SEVERITIES, Rule
from .report import NO_PROBLEMS, Finding, Report
from .rules import DOCS as _RULE_DOCS
from .rules import RULES, SMALL_BUFFER_FRACTION, VECTORIZABLE_OPS, complete, run
from .stage import Stage, Stages

#: rule id -> (documentation page, the sentence quoted from it), for every rule and measured finding.
DOCS: dict[str, tuple[str, str]] = {**_RULE_DOCS, **{r.id: (r.doc, r.quote) for r in MEASURED_RULES.values()}}

__all__ = [
    "DOCS", "Finding", "GRAPH_BYTES_LIMIT", "MEASURED_RULES", "NO_PROBLEMS", "PY_FUNCTION_OPS", "Report",
    "RULES", "Rule", "SEVERITIES", "SMALL_BUFFER_FRACTION", "STATEFUL_RANDOM_OPS", "Stage", "Stages", "VECTORIZABLE_OPS", "check",
    "match_stage", "read_pipeline",
]


def check(dataset: tf.data.Dataset, *, ignore: Iterable[str] = (), profile: Any = None) -> Report:
    """Read ``dataset``'s stages and report what it finds, with fixes, grouped by severity.

    Parameters
    ----------
    dataset : tf.data.Dataset
        The pipeline to examine. It is never iterated.
    ignore : iterable of str
        Rule ids to skip, e.g. ``("cache-to-file",)``; see ``RULES`` and ``MEASURED_RULES``.
    profile : tutor.timeline.Timeline, optional
        A timeline of a run of this pipeline (``tutor.profile(ds, steps=20)``,
        ``tutor.timeline.record`` or ``simulate``): adds a measured finding that
        says whether the input is the bottleneck, and which stage holds the time.

    Returns
    -------
    Report
        The problems found (empty when there are none), its ``notes``, and the
        stages; it prints as a readable report and renders as one in Jupyter.

    Examples
    --------
    >>> check(tf.data.Dataset.range(100).shuffle(100).batch(10).prefetch(tf.data.AUTOTUNE))
    Pipeline doctor: 4 stages read.
    ...
    No problems found.
    """
    require_dataset(dataset, "tutor.doctor.check")
    if profile is not None:
        profile = require_timeline(profile, "tutor.doctor.check")
    if isinstance(ignore, str):
        ignore = (ignore,)
    ignore = set(ignore)
    known = set(RULES) | set(MEASURED_RULES)
    unknown = sorted(ignore - known)
    if unknown:
        raise ValueError(_("tutor.doctor.check: unknown rule id(s) {unknown}; the rules are {rules}.").format(
            unknown=unknown, rules=sorted(known)))
    stages = read_pipeline(dataset)
    findings = run(stages, ignore)
    if profile is not None:
        measured = [complete(f, MEASURED_RULES[f.rule]) for f in measured_findings(stages, profile, findings)]
        if any(f.rule == "input-keeps-up" for f in measured):
            for f in findings:
                if f.severity == "slow":  # the consumer does not wait for its input: not slow on this run
                    f.severity = "note"
        findings.extend(f for f in measured if f.rule not in ignore)
    return Report(findings, stages)
