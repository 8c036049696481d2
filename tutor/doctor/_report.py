"""Findings and the report that lists them: plain text anywhere, a table in Jupyter."""
from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass

_COLOURS = {"correctness": "#D55E00", "performance": "#0072B2"}
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
        ``"correctness"`` (the data the model sees is not what you meant) or
        ``"performance"`` (right data, slower than it needs to be).
    """

    rule: str
    stage: object
    message: str
    fix: str
    category: str = "correctness"

    @property
    def where(self) -> str:
        return self.stage.where

    def __str__(self) -> str:
        wrap = lambda text, head: textwrap.fill(text, 92, initial_indent=head, subsequent_indent="    ")  # noqa: E731
        return "\n".join([f"[{self.rule}] {self.where}", wrap(self.message, "  Problem: "), wrap(self.fix, "  Fix: ")])

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.where!r})"


class Report(list):
    """The doctor's answer: a list of :class:`Finding`, plus the stages it read.

    ``len(report) == 0`` means no problems were found. ``report.rules`` lists the
    rule ids that fired.
    """

    def __init__(self, findings=(), stages=()):
        super().__init__(findings)
        self.stages = list(stages)

    @property
    def rules(self) -> list[str]:
        return [f.rule for f in self]

    def _pipeline_lines(self) -> list[str]:
        return [f"  {s.number}. {s.label}" for s in self.stages]

    def __str__(self) -> str:
        head = f"Pipeline doctor: {len(self.stages)} stages read."
        lines = [head, *self._pipeline_lines(), ""]
        if not self:
            lines.append(NO_PROBLEMS)
        else:
            lines.append(f"{len(self)} finding{'s' if len(self) != 1 else ''}:")
            lines.extend(str(f) for f in self)
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        stages = "".join(f"<li><code>{html.escape(s.label)}</code></li>" for s in self.stages)
        parts = [
            "<div style='font-family:sans-serif;line-height:1.4'>",
            f"<b>Pipeline doctor</b>: {len(self.stages)} stages read.",
            f"<ol style='margin:2px 0 6px 0'>{stages}</ol>",
        ]
        if not self:
            parts.append(f"<div style='border-left:6px solid #009E73;padding:4px 10px'><b>{NO_PROBLEMS}</b></div>")
        for f in self:
            colour = _COLOURS.get(f.category, "#999999")
            parts.append(
                f"<div style='border-left:6px solid {colour};padding:4px 10px;margin:4px 0'>"
                f"<b>{html.escape(f.where)}</b> <small>[{html.escape(f.rule)}, {html.escape(f.category)}]</small><br>"
                f"<b>Problem:</b> {html.escape(f.message)}<br><b>Fix:</b> {html.escape(f.fix)}</div>"
            )
        parts.append("</div>")
        return "".join(parts)
