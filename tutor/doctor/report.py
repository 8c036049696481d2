"""Findings and the report that lists them: plain text anywhere, a table in Jupyter."""
from __future__ import annotations

from dataclasses import dataclass

from .. import markup
from ..i18n import N_, fill, ngettext
from ..i18n import gettext as _
from .registry import SEVERITIES

_COLOURS = {"wrong": markup.ORANGE, "slow": markup.BLUE, "note": markup.GREY}
_CATEGORY = {"wrong": "correctness", "slow": "performance", "note": "note"}
NO_PROBLEMS = N_("No problems found.")


@dataclass
class Finding:
    """One thing the doctor found.

    Attributes
    ----------
    rule : str
        The rule id, e.g. ``"shuffle-after-batch"``.
    stage : Stage
        The stage the finding is about (``stage.number``, ``stage.label``).
    message : str
        What it found, in a plain sentence.
    fix : str
        How to fix it (for a note: what to keep in mind).
    severity : str
        ``"wrong"`` (wrong results: the data the model sees is not what you
        meant), ``"slow"`` (right data, slower than it needs to be) or
        ``"note"`` (worth knowing, nothing wrong). Empty until the rule's
        declaration fills it in (``tutor.doctor.RULES[rule].severity``).
    doc : str
        The TensorFlow documentation page the finding rests on.
    quote : str
        The sentence (or phrase) of that page that says so.
    measured : bool
        True when a profile of a real run showed it (``check(ds, profile=...)``).
    """

    rule: str
    stage: object
    message: str
    fix: str
    severity: str = ""
    doc: str = ""
    quote: str = ""
    measured: bool = False

    @property
    def where(self) -> str:
        return self.stage.where

    @property
    def category(self) -> str:
        """``"measured"`` for a profile's finding, else ``"correctness"``, ``"performance"`` or ``"note"``."""
        return "measured" if self.measured else _CATEGORY.get(self.severity, self.severity)

    def __str__(self) -> str:
        def wrap(text: str, head: str) -> str:
            return fill(text, 92, initial_indent=f"  {head}{_gap(head)}", subsequent_indent="    ")

        what, how = _labels(self.severity)
        lines = [f"[{self.rule}] {self.where}", wrap(self.message, what), wrap(self.fix, how)]
        if self.doc:  # TensorFlow's sentence is quoted as it is, in English
            lines.append(wrap(f'"{self.quote}" ({self.doc})', _("TF docs:")))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.where!r}, severity={self.severity!r})"


def _gap(label: str) -> str:
    """The space after a label: none after a full-width colon (Japanese, Chinese), which has its own."""
    return "" if label.endswith("：") else " "


def _labels(severity: str) -> tuple[str, str]:
    """The labels before a finding's message and its fix: ("Problem:", "Fix:"), or ("Note:", "Tip:") for a note."""
    if severity == "note":
        # Translators: the labels before a note of the pipeline doctor and before what to keep in mind.
        return _("Note:"), _("Tip:")
    # Translators: the labels before a problem the pipeline doctor found and before its fix.
    return _("Problem:"), _("Fix:")


def _group(findings) -> list:
    """Wrong results first, then slow, then notes; by stage within each severity."""
    order = list(SEVERITIES)
    return sorted(findings, key=lambda f: (order.index(f.severity) if f.severity in order else 0, f.stage.number))


class Report(list):
    """The doctor's answer: a list of the problems found (:class:`Finding`), its notes, and the stages it read.

    The list holds the problems, severity ``"wrong"`` first, then ``"slow"``: ``len(report) == 0``
    means no problems were found. Notes never count as problems: they are in
    ``report.notes``, so a pipeline with notes only reads as healthy
    (``report.healthy``). ``report.rules`` lists the rule ids of the problems,
    each once, in report order; ``report.note_rules`` those of the notes.
    ``report.by_severity`` maps each severity to its findings. ``report.note`` says how the pipeline was
    read when it was not from its graph (see ``tutor.doctor.read_pipeline``).
    """

    def __init__(self, findings=(), stages=()):
        findings = _group(findings)
        super().__init__(f for f in findings if f.severity != "note")
        self.notes = [f for f in findings if f.severity == "note"]
        self.stages = list(stages)
        self.note = getattr(stages, "note", None)

    @property
    def rules(self) -> list[str]:
        return list(dict.fromkeys(f.rule for f in self))

    @property
    def note_rules(self) -> list[str]:
        return list(dict.fromkeys(f.rule for f in self.notes))

    @property
    def healthy(self) -> bool:
        """No finding of severity wrong or slow (notes are fine)."""
        return len(self) == 0

    @property
    def by_severity(self) -> dict:
        """``severity -> [Finding, ...]`` for every severity, in report order (``"wrong"``, ``"slow"``, ``"note"``)."""
        every = [*self, *self.notes]
        return {s: [f for f in every if f.severity == s] for s in SEVERITIES}

    def _pipeline_lines(self) -> list[str]:
        return [f"  {s.number}. {s.label}" for s in self.stages]

    def _headline(self) -> str:
        notes = len(self.notes)
        if not self:
            if not notes:
                return _(NO_PROBLEMS)
            return ngettext("No problems found. ({n} note below.)", "No problems found. ({n} notes below.)",
                            notes).format(n=notes)
        # Translators: one count of the doctor's headline, e.g. "wrong results: 2" (the kind is lower case).
        counts = _(", ").join(_("{kind}: {n}").format(kind=_(SEVERITIES[s]).lower(), n=len(v))
                           for s, v in self.by_severity.items() if v and s != "note")
        if notes:
            # Translators: {notes} is "1 note" or "3 notes"; {counts} e.g. "wrong results: 2, slow: 1".
            return ngettext("{n} problem ({counts}), and {notes}.", "{n} problems ({counts}), and {notes}.",
                            len(self)).format(n=len(self), counts=counts,
                                              notes=ngettext("{n} note", "{n} notes", notes).format(n=notes))
        return ngettext("{n} problem ({counts}).", "{n} problems ({counts}).", len(self)).format(n=len(self),
                                                                                                counts=counts)

    def __str__(self) -> str:
        head = _("Pipeline doctor: {n} stages read.").format(n=len(self.stages))
        lines = [head, *self._pipeline_lines(), *([self.note] if self.note else []), "", self._headline()]
        for severity, found in self.by_severity.items():
            if found:
                # Translators: the heading of a group of findings, e.g. "Wrong results:".
                lines.append("\n" + _("{heading}:").format(heading=_(SEVERITIES[severity])))
                lines.extend(str(f) for f in found)
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        stages = "".join(f"<li>{markup.code(s.label)}</li>" for s in self.stages)
        parts = [
            "<div style='font-family:sans-serif;line-height:1.4'>",
            # Translators: keep the <b> tags around the doctor's name.
            _("<b>Pipeline doctor</b>: {n} stages read.").format(n=len(self.stages)),
            f"<ol style='margin:2px 0 6px 0'>{stages}</ol>",
        ]
        if self.note:
            parts.append(f"<p><small>{markup.escape(self.note)}</small></p>")
        parts.append(markup.box(self._headline(), colour=markup.GREEN) if not self else
                     f"<p><b>{markup.escape(self._headline())}</b></p>")
        for severity, found in self.by_severity.items():
            if found:
                parts.append(f"<p style='margin:6px 0 2px 0'><b>{markup.escape(_(SEVERITIES[severity]))}</b></p>")
            for f in found:
                what, how = _labels(f.severity)
                named = _(SEVERITIES[f.severity]).lower() if f.severity in SEVERITIES else f.severity
                body = (f"<small>[{markup.escape(f.rule)}, {markup.escape(named)}]"
                        f"</small><br><b>{markup.escape(what)}</b>{_gap(what)}{markup.escape(f.message)}<br>"
                        f"<b>{markup.escape(how)}</b>{_gap(how)}{markup.escape(f.fix)}")
                if f.doc:
                    docs = markup.escape(_("TF docs:"))
                    body += (f"<br><small>{docs} &ldquo;{markup.escape(f.quote)}&rdquo; "
                             f"<a href='{markup.escape(f.doc)}' target='_blank'>{markup.escape(f.doc)}</a></small>")
                parts.append(markup.box(f.where, body_html=body, colour=_COLOURS.get(f.severity, markup.GREY)))
        parts.append("</div>")
        return "".join(parts)
