"""Findings and the report that lists them: plain text anywhere, a table in Jupyter."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

from .. import render

_COLOURS = {"correctness": render.ORANGE, "performance": render.BLUE, "measured": render.GREY}
NO_PROBLEMS = "No problems found."


@dataclass
class Finding:
    """One mistake the doctor found.

    Attributes
    ----------
    rule : str
        The rule id, e.g. ``"shuffle-after-batch"``.
    stage : Stage
        The stage the finding is about (``stage.number``, ``stage.label``).
    message : str
        What is wrong, in a plain sentence.
    fix : str
        How to fix it.
    category : str
        ``"correctness"`` (the data the model sees is not what you meant),
        ``"performance"`` (right data, slower than it needs to be) or
        ``"measured"`` (what a profile of a real run showed).
    doc : str
        The TensorFlow documentation page the finding rests on.
    quote : str
        The sentence (or phrase) of that page that says so.
    """

    rule: str
    stage: object
    message: str
    fix: str
    category: str = "correctness"
    doc: str = ""
    quote: str = ""

    @property
    def where(self) -> str:
        return self.stage.where

    def __str__(self) -> str:
        wrap = lambda text, head: textwrap.fill(text, 92, initial_indent=head, subsequent_indent="    ")  # noqa: E731
        lines = [f"[{self.rule}] {self.where}", wrap(self.message, "  Problem: "), wrap(self.fix, "  Fix: ")]
        if self.doc:
            lines.append(wrap(f'"{self.quote}" ({self.doc})', "  TF docs: "))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.where!r})"


class Report(list):
    """The doctor's answer: a list of :class:`Finding`, plus the stages it read.

    ``len(report) == 0`` means no problems were found. ``report.rules`` lists the
    rule ids that fired, each once, in the order of their first finding (the
    report itself keeps every finding). ``report.note`` says how the pipeline
    was read when it was not from its graph (see ``tutor.doctor.read_pipeline``).
    """

    def __init__(self, findings=(), stages=()):
        super().__init__(findings)
        self.stages = list(stages)
        self.note = getattr(stages, "note", None)

    @property
    def rules(self) -> list[str]:
        return list(dict.fromkeys(f.rule for f in self))

    def _pipeline_lines(self) -> list[str]:
        return [f"  {s.number}. {s.label}" for s in self.stages]

    def __str__(self) -> str:
        head = f"Pipeline doctor: {len(self.stages)} stages read."
        lines = [head, *self._pipeline_lines(), *([self.note] if self.note else []), ""]
        if not self:
            lines.append(NO_PROBLEMS)
        else:
            lines.append(f"{len(self)} finding{'s' if len(self) != 1 else ''}:")
            lines.extend(str(f) for f in self)
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        stages = "".join(f"<li>{render.code(s.label)}</li>" for s in self.stages)
        parts = [
            "<div style='font-family:sans-serif;line-height:1.4'>",
            f"<b>Pipeline doctor</b>: {len(self.stages)} stages read.",
            f"<ol style='margin:2px 0 6px 0'>{stages}</ol>",
        ]
        if self.note:
            parts.append(f"<p><small>{render.escape(self.note)}</small></p>")
        if not self:
            parts.append(render.box(NO_PROBLEMS, colour=render.GREEN))
        for f in self:
            body = (f"<small>[{render.escape(f.rule)}, {render.escape(f.category)}]</small><br>"
                    f"<b>Problem:</b> {render.escape(f.message)}<br><b>Fix:</b> {render.escape(f.fix)}")
            if f.doc:
                body += (f"<br><small>TF docs: &ldquo;{render.escape(f.quote)}&rdquo; "
                         f"<a href='{render.escape(f.doc)}' target='_blank'>{render.escape(f.doc)}</a></small>")
            parts.append(render.box(f.where, body_html=body, colour=_COLOURS.get(f.category, render.GREY)))
        parts.append("</div>")
        return "".join(parts)
