"""HTML for everything ``tutor`` shows in Jupyter: check results, hints, doctor reports, tables, explorer readouts.

One place decides how a coloured box, a table or an error line looks, so every
part of the course looks the same and escapes text the same way. Each function
returns an HTML string; plain-text fallbacks (``__str__``) stay with the objects.

>>> box("Correct", "all 10 batches hold 4 ids.", colour=GREEN)[:12]
"<div style='"
"""
from __future__ import annotations

import html
from typing import Iterable, Sequence

from .i18n import gettext as _

#: Okabe-Ito colours with a meaning.
GREEN, ORANGE, BLUE, SKY, GREY = "#009E73", "#D55E00", "#0072B2", "#56B4E9", "#999999"


def escape(text: object) -> str:
    """``text`` as safe HTML (``str(text)``, with ``<``, ``>``, ``&`` and quotes escaped)."""
    return html.escape(str(text))


def code(text: object) -> str:
    """Inline code."""
    return f"<code>{escape(text)}</code>"


def box(label: str, body: str = "", *, colour: str = BLUE, body_html: str | None = None,
        details: str | None = None, details_label: str | None = None) -> str:
    """A box with a coloured bar on the left: a bold ``label``, then ``body`` (plain text).

    ``body_html`` replaces ``body`` with ready HTML. ``details`` (plain text) go in a
    collapsed ``<details>`` block, for what most readers need not see, such as the
    original text of an error; ``details_label`` names that block ("details" by default).
    """
    inner = body_html if body_html is not None else escape(body)
    more = ""
    if details:
        # Translators: the label of a folded block holding what most readers need not see.
        label_text = _("details") if details_label is None else details_label
        more = (f"<details style='margin-top:4px'><summary>{escape(label_text)}</summary>"
                f"<pre style='white-space:pre-wrap;margin:2px 0'>{escape(details)}</pre></details>")
    return (f"<div style='border-left:6px solid {colour};padding:4px 10px;margin:4px 0;line-height:1.4'>"
            f"<b style='color:{colour}'>{escape(label)}</b> {inner}{more}</div>")


def code_block(label: str, source: str, *, colour: str = SKY) -> str:
    """A box holding a block of code (a solution)."""
    return box(label, body_html=f"<pre style='margin:2px 0'>{escape(source)}</pre>", colour=colour)


def table(rows: Iterable[Sequence[object]], *, header: Sequence[object] | None = None, title: str | None = None) -> str:
    """A small table; every cell is escaped."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header) if header else ""
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    top = f"<b>{escape(title)}</b>" if title else ""
    return f"{top}<table>{f'<tr>{head}</tr>' if head else ''}{body}</table>"


def error_line(message: object) -> str:
    """One line in the warning colour, for an explorer readout that could not draw."""
    return f"<span style='color:{ORANGE}'>{escape(message)}</span>"
