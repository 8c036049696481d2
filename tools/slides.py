"""Every lesson is a slideshow: where each cell lands in the deck, what a lesson's slideshow must hold, the demo paths.

A lesson's cells carry Jupyter's standard slideshow metadata, ``cell.metadata.slideshow.slide_type``, chosen by a
teacher. JupyterLab's slideshow (jupyterlab-rise, Alt+R) and the website's static decks (nbconvert's reveal.js
slides) build the same deck from it, and number it as this module does:

* the first cell that is neither ``skip`` nor ``notes`` opens slide 0, whatever its type;
* after it, ``slide`` opens the next slide, ``subslide`` the next slide below the current one (a vertical slide),
  ``fragment`` a piece of the current slide that appears on the next key press, and ``-`` continues whatever
  came before (a fragment included);
* ``skip`` cells are not shown; ``notes`` cells are the speaker notes of the slide they sit in.

So each shown cell has a place (h, v, f): slide h, vertical slide v, shown after f key presses on that slide.
reveal.js labels that slide ``h+1.v+1`` (the number in the corner of the deck) and its address is ``#/h/v/f``.

What a lesson's slideshow must hold (:func:`problems`):

* every cell has a slide type, one of :data:`SLIDE_TYPES`;
* at least one ``notes`` cell (markdown: what to ask the room, how long it takes, where learners stumble), and none
  before the first slide (the static deck would lose it);
* harness cells are skipped: those tagged ``nbval-skip`` and the Colab install cell (it does nothing elsewhere);
* long outputs are kept off the slides: a code cell whose stored output has more than :data:`LONG_OUTPUT_LINES`
  lines of text is ``skip`` (tall pictures are fine: the slides scroll);
* every explorer is on a slide.

The demo path of a lesson, its 10-minute version for the instructors' page, is a list in the notebook's metadata::

    "metadata": {"tutor": {"demo": [
        {"cell": "5c6d23ba", "minutes": 3, "move": "buffer_size from 10 to 100, with the arrow keys",
         "ask": "With a buffer of 10, how far earlier can an element come out?"},
        ...]}}

Each step names a cell by its id (the slide is where that cell is shown) and takes ``minutes``; ``show`` (what to
point at), ``move`` (an explorer move, only on a cell that shows an explorer) and ``ask`` (the question for the room)
are optional, at least one of them given. The steps follow the deck's order and take 10 minutes at most in all.
:func:`demo_table` renders them for the instructors' page, each slide number linked into the lesson's static deck.

    python -m tools.slides notebooks/03_shuffle.ipynb      # each slide's first line, the notes, the problems
    python -m tools.slides --check notebooks/*.ipynb       # only the problems; exit 1 if there are any
"""
from __future__ import annotations

import argparse
import html
import re
import sys
from dataclasses import dataclass
from pathlib import Path

#: The slide types Jupyter's slideshow metadata knows ("-" continues the slide or fragment before it).
SLIDE_TYPES = ("slide", "subslide", "fragment", "-", "skip", "notes")

#: More lines of text output than this do not fit a slide beside the code: such a cell is skipped.
LONG_OUTPUT_LINES = 12

#: The longest demo path, in minutes.
DEMO_MINUTES = 10

#: The keys a demo step may have.
DEMO_KEYS = {"cell", "minutes", "show", "move", "ask"}

EXPLORER_CALL = re.compile(r"\b\w+_explorer\(")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@dataclass(frozen=True)
class Place:
    """Where a cell is shown: slide ``h``, vertical slide ``v``, after ``f`` key presses (all from 0)."""

    h: int
    v: int
    f: int = 0

    @property
    def label(self) -> str:
        """The slide's number as reveal.js shows it in the corner of the deck ("h.v", from 1).

        >>> Place(4, 0).label, Place(4, 1, 2).label
        ('5.1', '5.2')
        """
        return f"{self.h + 1}.{self.v + 1}"

    @property
    def address(self) -> str:
        """The deck's address of this place: ``#/h``, ``#/h/v``, or ``#/h/v/f-1`` for a cell shown after f presses.

        >>> Place(0, 0).address, Place(4, 0).address, Place(4, 1).address, Place(4, 0, 2).address
        ('#/', '#/4', '#/4/1', '#/4/0/1')
        """
        if self.f:
            return f"#/{self.h}/{self.v}/{self.f - 1}"
        if self.v:
            return f"#/{self.h}/{self.v}"
        return f"#/{self.h}" if self.h else "#/"


# ----------------------------------------------------------------------------------------------- one cell
def _get(cell, key: str, default=None):
    return cell.get(key, default) if isinstance(cell, dict) else getattr(cell, key, default)


def _source(cell) -> str:
    source = _get(cell, "source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def slide_type(cell) -> str | None:
    """The cell's ``metadata.slideshow.slide_type``, or None when it has none."""
    meta = _get(cell, "metadata", {}) or {}
    return (meta.get("slideshow") or {}).get("slide_type")


def tags(cell) -> list[str]:
    return list((_get(cell, "metadata", {}) or {}).get("tags", []))


def is_harness(cell) -> bool:
    """A cell only the test harness or one platform needs: tagged ``nbval-skip``, or the Colab install cell."""
    if "nbval-skip" in tags(cell):
        return True
    return _get(cell, "cell_type") == "code" and "google.colab" in _source(cell)


def shows_explorer(cell) -> bool:
    """True when the code cell calls an explorer (``tutor.shuffle_explorer()``, ...)."""
    return _get(cell, "cell_type") == "code" and bool(EXPLORER_CALL.search(_source(cell)))


def output_lines(cell) -> int:
    """Lines of text in the cell's stored outputs: streams, errors, and the text of results that are not pictures."""
    lines = 0
    for output in _get(cell, "outputs", []) or []:
        kind = output.get("output_type")
        if kind == "stream":
            text = output.get("text", "")
            lines += len(("".join(text) if isinstance(text, list) else text).splitlines())
        elif kind == "error":
            lines += len(output.get("traceback", []))
        else:
            data = output.get("data", {})
            if WIDGET_VIEW in data or any(k.startswith("image/") for k in data):
                continue
            text = data.get("text/plain", "")
            lines += len(("".join(text) if isinstance(text, list) else text).splitlines())
    return lines


# -------------------------------------------------------------------------------------------- the deck
def places(cells) -> list[Place | None]:
    """Where each cell is shown (None: not shown, a skipped cell or one before the first slide).

    A ``notes`` cell gets the place of the slide it is a note of. This is the numbering of nbconvert's
    ``_RevealMetadataPreprocessor`` and of jupyterlab-rise (tests/test_slides.py checks it against nbconvert's).
    """
    cells = list(cells)
    types = [slide_type(c) or "-" for c in cells]
    first = next((i for i, t in enumerate(types) if t not in ("skip", "notes")), None)
    if first is None:
        raise ValueError("every cell is skipped or a note: there is no slide to show")
    found: list[Place | None] = []
    h = v = f = 0
    for index, kind in enumerate(types):
        if index < first:
            found.append(None)
            continue
        if index > first:
            if kind == "slide":
                h, v, f = h + 1, 0, 0
            elif kind == "subslide":
                v, f = v + 1, 0
            elif kind == "fragment":
                f += 1
        found.append(None if kind == "skip" else Place(h, v, f))
    return found


def slide_count(cells) -> int:
    """How many slides (horizontal and vertical) the deck has."""
    return len({(p.h, p.v) for p in places(cells) if p is not None})


# ---------------------------------------------------------------------------------------------- checks
def _name(index: int, cell) -> str:
    return f"cell {index} ({_get(cell, 'id', '?')})"


def problems(nb) -> list[str]:
    """What keeps a lesson's slideshow from being taught as it is (empty when nothing does)."""
    cells = list(_get(nb, "cells", []))
    found = []
    for index, cell in enumerate(cells):
        kind = slide_type(cell)
        if kind is None:
            found.append(f"{_name(index, cell)} has no slide type (metadata.slideshow.slide_type)")
        elif kind not in SLIDE_TYPES:
            found.append(f"{_name(index, cell)} has slide type {kind!r}, not one of {', '.join(SLIDE_TYPES)}")
        if is_harness(cell) and kind != "skip":
            found.append(f"{_name(index, cell)} is a harness cell (nbval-skip, or the Colab install): give it 'skip'")
        lines = output_lines(cell)
        if lines > LONG_OUTPUT_LINES and kind != "skip":
            found.append(f"{_name(index, cell)} prints {lines} lines (more than {LONG_OUTPUT_LINES}): keep it off the "
                         "slides with 'skip'")
        if shows_explorer(cell) and kind in ("skip", "notes"):
            found.append(f"{_name(index, cell)} shows an explorer: put it on a slide, not {kind!r}")
        if kind == "notes" and _get(cell, "cell_type") != "markdown":
            found.append(f"{_name(index, cell)} is a {_get(cell, 'cell_type')} cell of type 'notes': notes are markdown")
    notes = [i for i, c in enumerate(cells) if slide_type(c) == "notes"]
    if not notes:
        found.append("no speaker notes: add a markdown cell of type 'notes' (what to ask the room, how long it "
                     "takes, where learners stumble)")
    if any(slide_type(c) not in (None, *SLIDE_TYPES) for c in cells):
        return found
    try:
        where = places(cells)
    except ValueError as error:
        return found + [str(error)]
    lost = [i for i in notes if where[i] is None]
    if lost:
        found.append(f"notes cell(s) {lost} come before the first slide, where the static deck drops them: move them "
                     "after it")
    return found + demo_problems(nb, where)


# ----------------------------------------------------------------------------------------------- demo path
def demo_steps(nb) -> list[dict]:
    """The lesson's demo path as written (``metadata.tutor.demo``), or [] when it has none."""
    meta = _get(nb, "metadata", {}) or {}
    steps = (meta.get("tutor") or {}).get("demo") or []
    return list(steps) if isinstance(steps, list) else steps


def demo_problems(nb, where: list[Place | None] | None = None) -> list[str]:
    """What is wrong with the demo path: unknown or hidden cells, a move where no explorer is, order, time."""
    steps = demo_steps(nb)
    if not isinstance(steps, list):
        return [f"metadata.tutor.demo must be a list of steps, got {type(steps).__name__}"]
    cells = list(_get(nb, "cells", []))
    where = places(cells) if where is None else where
    index_of = {_get(c, "id"): i for i, c in enumerate(cells)}
    found, last, total = [], None, 0.0
    for number, step in enumerate(steps, 1):
        what = f"demo step {number}"
        if not isinstance(step, dict):
            found.append(f"{what} must be a mapping with 'cell' and 'minutes', got {step!r}")
            continue
        extra = set(step) - DEMO_KEYS
        if extra:
            found.append(f"{what} has unknown keys {sorted(extra)} (known: {sorted(DEMO_KEYS)})")
        if not any(isinstance(step.get(k), str) and step[k].strip() for k in ("show", "move", "ask")):
            found.append(f"{what} says nothing: give it 'show', 'move' or 'ask'")
        minutes = step.get("minutes")
        if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or minutes <= 0:
            found.append(f"{what} needs 'minutes', a positive number, got {minutes!r}")
        else:
            total += minutes
        index = index_of.get(step.get("cell"))
        if index is None:
            found.append(f"{what} names cell {step.get('cell')!r}, which the lesson does not have")
            continue
        place = where[index]
        if place is None or slide_type(cells[index]) == "notes":
            found.append(f"{what} names cell {step['cell']!r}, which is not shown on a slide")
            continue
        if step.get("move") and not shows_explorer(cells[index]):
            found.append(f"{what} gives an explorer move, but cell {step['cell']!r} shows no explorer")
        if last is not None and (place.h, place.v, place.f) < (last.h, last.v, last.f):
            found.append(f"{what} (slide {place.label}) comes before the step above it in the deck")
        last = place
    if total > DEMO_MINUTES:
        found.append(f"the demo path takes {total:g} minutes, more than {DEMO_MINUTES}")
    return found


def _cell(text: str) -> str:
    return " ".join(str(text or "").split()).replace("|", "\\|")


def demo_table(lessons, folder: str = "slides") -> str:
    """The instructors' page table: each lesson's demo steps, each slide linked into ``folder/<lesson>.html``.

    ``lessons``: (stem, title, notebook) triples, in order. Raw HTML links: the decks are not Sphinx pages.
    """
    rows = ["| lesson | slide | min | show | move the explorer | ask the room |", "|---|---|---:|---|---|---|"]
    missing = []
    for stem, title, nb in lessons:
        steps = demo_steps(nb)
        if not steps or demo_problems(nb):
            missing.append(f'<a href="{folder}/{stem}.html">{html.escape(title)}</a>')
            continue
        cells = list(_get(nb, "cells", []))
        where = places(cells)
        index_of = {_get(c, "id"): i for i, c in enumerate(cells)}
        for number, step in enumerate(steps):
            place = where[index_of[step["cell"]]]
            lesson = f'<a href="{folder}/{stem}.html">{html.escape(title)}</a>' if number == 0 else ""
            slide = f'<a href="{folder}/{stem}.html{place.address}">{place.label}</a>'
            rows.append(f"| {lesson} | {slide} | {step['minutes']:g} | {_cell(step.get('show'))} | "
                        f"{_cell(step.get('move'))} | {_cell(step.get('ask'))} |")
    text = "\n".join(rows) + "\n" if len(rows) > 2 else ""
    if missing:
        text += ("\n" if text else "") + "No demo path yet (the whole deck): " + ", ".join(missing) + ".\n"
    return text


# ------------------------------------------------------------------------------------------------- outline
def outline(nb) -> list[str]:
    """One line per shown cell: its slide, its type and its first line; the notes marked."""
    cells = list(_get(nb, "cells", []))
    lines = []
    for cell, place in zip(cells, places(cells)):
        if place is None:
            continue
        first = next((line for line in _source(cell).splitlines() if line.strip()), "")[:70]
        kind = slide_type(cell) or "-"
        lines.append(f"{place.label:>6} {'+' * place.f:<3} {kind:<9} {first}")
    return lines


def main(argv: list[str] | None = None) -> int:
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="print only the problems; exit 1 if there are any")
    args = parser.parse_args(argv)
    failed = False
    for path in args.notebooks:
        nb = nbformat.read(str(path), as_version=4)
        found = problems(nb)
        failed |= bool(found)
        if not args.check:
            print(f"# {path.name}")
            try:
                print("\n".join(outline(nb)))
            except ValueError as error:
                print(error)
        for problem in found:
            print(f"{path.name}: {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
