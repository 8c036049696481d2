"""How a doctor rule is declared: once, with the :func:`rule` decorator on its check function.

The declaration holds everything about the rule: its id, its severity, one
sentence of what it finds, why that matters, the fix, and the TensorFlow
documentation page and sentence it rests on. ``summary``, ``why`` and
``fix`` are marked with ``N_()`` and translated where they are shown
(``_(rule.summary)``); ids, severities, pages and TensorFlow's quoted sentence stay
English, and a check's ``Found`` text is marked with ``_()`` where it is made. The rule list
(``tutor.doctor.RULES``), the documentation table (``DOCS``), the report's
grouping and the course website's rules page are all built from it::

    @rule("random-map-before-cache", severity="wrong", on="cache", summary=N_("..."), why=N_("..."), fix=N_("..."),
          doc=API + "#cache", quote="...", example="...", fixed="...")
    def random_map_before_cache(stage):
        ...  # return Found(_("...").format(...), _("...")), or None when the stage is fine

The framework owns the loop and the id, as a lint framework does: ``on``
names the stage kinds the rule looks at (``on=EVERY_STAGE`` for all of them;
``skip_library=True`` leaves out the stages a library utility built), and the
check judges one stage at a time. A rule about the pipeline as a whole
(``on=PIPELINE``) gets the list of stages and says which stage its finding is
about (``Found(..., stage=...)``). Either way the check returns a
:class:`Found` or None, and :func:`tutor.doctor.rules.run` makes the
:class:`tutor.doctor.Finding`, stamped with the rule's id, severity and
documentation sentence: a check never types its own id. A finding's severity
is the rule's unless the check says otherwise (a rule whose ``severities`` lists
more than one, e.g. ``repeat-before-shuffle``: a finite ``repeat(n)`` mixes
epochs, an endless one is used on purpose by code that trains by steps).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..i18n import N_

API = "https://www.tensorflow.org/api_docs/python/tf/data/Dataset"
GUIDE = "https://www.tensorflow.org/guide/data"
PERF = "https://www.tensorflow.org/guide/data_performance"
ANALYSIS = "https://www.tensorflow.org/guide/data_performance_analysis"
EXPERIMENTAL = "https://www.tensorflow.org/api_docs/python/tf/data/experimental/"

#: The severities of a finding, most serious first, with the heading the report gives each group
#: (shown through ``_()``).
SEVERITIES = {"wrong": N_("Wrong results"), "slow": N_("Slow"), "note": N_("Notes")}
#: ``on=`` for a rule that judges every stage, and for one that judges the pipeline as a whole.
EVERY_STAGE, PIPELINE = "*", "pipeline"


class Found(NamedTuple):
    """What a check found: the message and the fix, and what differs from its rule's declaration.

    ``severity``, ``doc`` and ``quote`` default to the rule's; ``stage`` is the
    stage judged, and a rule ``on=PIPELINE`` must name it.
    """

    message: str
    fix: str
    severity: str = ""
    doc: str = ""
    quote: str = ""
    stage: object = None


@dataclass(frozen=True)
class Rule:
    """One rule of the doctor, as declared next to its check function.

    Attributes
    ----------
    id : str
        The rule id findings carry, e.g. ``"shuffle-after-batch"``.
    severity : str
        ``"wrong"`` (the data the model sees is not what you meant), ``"slow"``
        (right data, slower than it needs to be) or ``"note"`` (worth knowing,
        nothing wrong): the severity of its findings unless ``severities`` says more.
    summary : str
        One sentence: what the rule finds.
    why : str
        Why it matters.
    fix : str
        The usual fix.
    doc : str
        The TensorFlow documentation page it cites.
    quote : str
        The sentence of that page it rests on.
    check : callable
        ``check(stage)`` (``check(stages)`` for ``on=PIPELINE``) returns a :class:`Found` or None.
    severities : tuple of str
        Every severity its findings can have, ``severity`` first.
    measured : bool
        True for the findings read from a profile (``check(ds, profile=...)``).
    example : str
        A pipeline that triggers the rule, as a Python expression on ``tf`` and
        ``np`` (empty where it needs more than one line: a service, 512 MB).
    fixed : str
        The same pipeline, fixed: the rule says nothing about it.
    on : tuple of str
        The stage kinds the check judges (``EVERY_STAGE``: all), or ``(PIPELINE,)``.
    skip_library : bool
        Leave out the stages a library utility built (``Stage.library``): a
        finding about their code is one the user cannot act on.
    """

    id: str
    severity: str
    summary: str
    why: str
    fix: str
    doc: str
    quote: str
    check: Callable = None
    severities: tuple = ()
    measured: bool = False
    example: str = ""
    fixed: str = ""
    on: tuple = (EVERY_STAGE,)
    skip_library: bool = False

    def __post_init__(self):
        severities = self.severities or (self.severity,)
        bad = [s for s in (self.severity, *severities) if s not in SEVERITIES]
        if bad or not self.id or not self.summary or not self.doc:
            raise ValueError(f"Rule {self.id!r}: severity must be one of {list(SEVERITIES)} and id, summary and doc "
                             f"are required (got severity {self.severity!r}, severities {severities}).")
        object.__setattr__(self, "severities", (self.severity, *(s for s in severities if s != self.severity)))
        on = (self.on,) if isinstance(self.on, str) else tuple(self.on)
        if not on or (PIPELINE in on and len(on) > 1):
            raise ValueError(f"Rule {self.id!r}: on names stage kinds, EVERY_STAGE or PIPELINE alone (got {self.on!r}).")
        object.__setattr__(self, "on", on)

    def looks_at(self, stage) -> bool:
        """Whether the check judges ``stage`` (for a rule on stages)."""
        return ((EVERY_STAGE in self.on or stage.kind in self.on)
                and not (self.skip_library and stage.library is not None))


#: Every declared rule, in the order the modules declare them.
DECLARED: list[Rule] = []


def rule(id: str, *, severity: str, summary: str, why: str, fix: str, doc: str, quote: str,
         on: str | tuple = EVERY_STAGE, skip_library: bool = False, severities: tuple = (), example: str = "",
         fixed: str = "") -> Callable:
    """Declare the decorated check function as rule ``id`` (see the module docstring and :class:`Rule`)."""
    def declare(check: Callable) -> Callable:
        if any(r.id == id for r in DECLARED):
            raise ValueError(f"The doctor rule {id!r} is declared twice.")
        declared = Rule(id, severity, summary, why, fix, doc, quote, check, severities, False, example, fixed, on,
                        skip_library)
        DECLARED.append(declared)
        check.rule = declared
        return check
    return declare


def in_report_order(rules: list[Rule]) -> dict[str, Rule]:
    """``rule id -> Rule``: wrong results first, then slow, then notes, each in declaration order."""
    order = list(SEVERITIES)
    return {r.id: r for r in sorted(rules, key=lambda r: order.index(r.severity))}
