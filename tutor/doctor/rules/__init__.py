"""The doctor's rules: each is declared once, with :func:`tutor.doctor.registry.rule` on its check function.

:func:`run` is the framework's loop: it hands each rule the stages it declared
(``on=``) one at a time, and is the one place that turns what a check found
into a :class:`~tutor.doctor.report.Finding` stamped with the rule's id.

Every rule is deliberately conservative: it speaks only when the graph shows
the mistake, so the lessons' good pipelines come back clean. Rules about a
stage's own code skip the stages a library utility built (``Stage.library``):
a finding the user cannot act on is noise. Each finding has a severity
(``"wrong"``, ``"slow"``, ``"note"``) and cites the TensorFlow documentation sentence its rule
rests on. :data:`RULES` and :data:`DOCS` are built from the declarations in
:mod:`.order`, :mod:`.code` and :mod:`.speed`.
"""
from __future__ import annotations

from ..registry import DECLARED, PIPELINE, SEVERITIES, Found, Rule, in_report_order
from ..report import Finding
from ..stage import Stage
from . import order  # noqa: F401, I001  (importing a module declares its rules: order first, as the rules page lists them)
from . import code, speed  # noqa: F401, I001
from .code import DEPRECATED_OPS, LARGE_SOURCE_BYTES
from .order import COMMON_SEEDS, SMALL_BUFFER_FRACTION, TINY_BUFFER
from .speed import VECTORIZABLE_OPS, stateful_ops, work_ops
from .walk import downstream, upstream

__all__ = ["COMMON_SEEDS", "DEPRECATED_OPS", "DOCS", "LARGE_SOURCE_BYTES", "RULES", "Rule", "SEVERITIES",
           "SMALL_BUFFER_FRACTION", "TINY_BUFFER", "VECTORIZABLE_OPS", "downstream", "run", "stateful_ops",
           "upstream", "work_ops"]

#: rule id -> :class:`Rule`, in report order: wrong results, then slow, then notes.
RULES: dict[str, Rule] = in_report_order([r for r in DECLARED if not r.measured])
#: rule id -> (documentation page, the sentence quoted from it), for every rule.
DOCS: dict[str, tuple[str, str]] = {r.id: (r.doc, r.quote) for r in DECLARED}


def complete(f: Finding, declared: Rule) -> Finding:
    """Fill in what the finding left to its rule's declaration: its severity and its documentation sentence."""
    if not f.severity:
        f.severity = declared.severity
    if f.severity not in declared.severities:
        raise ValueError(f"The rule {declared.id!r} gave a finding of severity {f.severity!r}; "
                         f"it declares {declared.severities}.")
    if not f.doc:
        f.doc, f.quote = declared.doc, declared.quote
    return f


def judge(declared: Rule, stages: list[Stage]) -> list[Finding]:
    """What rule ``declared`` finds in ``stages``: each stage it looks at, judged, stamped with its id and severity."""
    if PIPELINE in declared.on:
        found = [(None, declared.check(stages))]
    else:
        found = [(s, declared.check(s)) for s in stages if declared.looks_at(s)]
    findings = []
    for stage, said in found:
        if said is None:
            continue
        said = Found(*said)
        if said.stage is None and stage is None:
            raise ValueError(f"The rule {declared.id!r} judges the whole pipeline, so its Found must name a stage.")
        finding = Finding(declared.id, said.stage if said.stage is not None else stage, said.message, said.fix,
                          severity=said.severity, doc=said.doc, quote=said.quote)
        findings.append(complete(finding, declared))
    return findings


def run(stages: list[Stage], ignore: set[str]) -> list[Finding]:
    """Every finding of every rule not in ``ignore``, each with its severity and documentation sentence."""
    findings = []
    for rule_id, declared in RULES.items():
        if rule_id not in ignore:
            findings.extend(judge(declared, stages))
    return findings
