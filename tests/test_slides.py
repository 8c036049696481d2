"""tools/slides.py (where each cell lands in a lesson's deck, what a slideshow must hold, demo paths) and
tools/decks.py (the website's static decks), on a small synthetic notebook.

The numbering is checked against the deck nbconvert really builds: each cell's text is found in the slide and
fragment of the HTML that tools.slides says. (jupyterlab-rise's numbering is checked in a browser:
tests/browser/test_slides.py finds each explorer on the slide tools.slides names.)
"""
from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile

import nbformat
import pytest
from bs4 import BeautifulSoup

from tools import decks, slides
from tools.slides import Place

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _cell(kind: str, slide_type: str | None, text: str, outputs=None):
    cell = nbformat.v4.new_markdown_cell(text) if kind == "markdown" else nbformat.v4.new_code_cell(text)
    if slide_type is not None:
        cell.metadata["slideshow"] = {"slide_type": slide_type}
    if outputs:
        cell.outputs = outputs
    return cell


def _explorer_output():
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
    return nbformat.v4.new_output("display_data", data={
        WIDGET_VIEW: {"version_major": 2, "version_minor": 0, "model_id": "abc"},
        "text/html": '<div class="tutor-static"><img src="data:image/png;base64,'
                     + base64.b64encode(png).decode() + '"><p><code>shuffle_explorer</code> starts with this '
                     "picture. Its sliders work when the notebook runs.</p></div>",
        "text/plain": "shuffle_explorer: run this cell"})


def lesson():
    """A lesson whose slideshow holds every kind of slide type, every cell's text a marker ``mNN``."""
    cells = [
        _cell("markdown", "skip", "m00 hidden title"),
        _cell("code", "skip", '# m01\nimport sys\nif "google.colab" in sys.modules:\n    pass'),
        _cell("markdown", "subslide", "# m02 Title"),  # the first shown cell opens slide 0, whatever its type
        _cell("markdown", "notes", "m03 Ask the room: what is a dataset? (2 min)"),
        _cell("code", "-", "print('m04')"),
        _cell("markdown", "slide", "## m05 Batch"),
        _cell("markdown", "fragment", "m06 Predict: how many batches?"),
        _cell("code", "-", "x = 'm07'"),  # continues the fragment
        _cell("markdown", "fragment", "m08 The answer"),
        _cell("markdown", "subslide", "### m09 Below"),
        _cell("code", "-", "tutor.shuffle_explorer()  # m10", outputs=[_explorer_output()]),
        _cell("code", "skip", "print('m11')", outputs=[nbformat.v4.new_output(
            "stream", name="stdout", text="".join(f"line {i}\n" for i in range(20)))]),
        _cell("markdown", "slide", "## m12 Last"),
        _cell("markdown", "notes", "m13 Where learners stumble"),
        _cell("markdown", "fragment", "m14 more"),
    ]
    for index, cell in enumerate(cells):
        cell["id"] = f"c{index:02d}"
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nb


EXPECTED = [None, None, Place(0, 0), Place(0, 0), Place(0, 0), Place(1, 0), Place(1, 0, 1), Place(1, 0, 1),
            Place(1, 0, 2), Place(1, 1), Place(1, 1), None, Place(2, 0), Place(2, 0), Place(2, 0, 1)]


def test_each_cell_has_the_place_of_the_numbering_rules():
    assert slides.places(lesson().cells) == EXPECTED
    assert slides.slide_count(lesson().cells) == 4


def _deck_places(html: str) -> dict[str, tuple[Place, bool]]:
    """marker -> (its place in nbconvert's deck, whether it is a speaker note)."""
    soup = BeautifulSoup(html, "html.parser")
    found = {}
    for h, outer in enumerate(soup.select("div.slides > section")):
        for v, inner in enumerate(outer.find_all("section", recursive=False)):
            fragments = inner.select("div.fragment")
            for marker in set(re.findall(r"\bm\d\d\b", inner.get_text())):
                node = inner.find(string=re.compile(rf"\b{marker}\b"))
                f = next((i + 1 for i, frag in enumerate(fragments) if node in frag.descendants), 0)
                found[marker] = (Place(h, v, f), node.find_parent("aside") is not None)
    return found


def test_the_numbering_is_nbconverts():
    html = decks.deck_html(lesson(), "reveal.js")
    in_deck = _deck_places(html)
    for index, place in enumerate(EXPECTED):
        marker = f"m{index:02d}"
        if place is None:
            assert marker not in in_deck, f"{marker} is shown in nbconvert's deck, tools.slides says not"
        else:
            assert in_deck[marker] == (place, slides.slide_type(lesson().cells[index]) == "notes"), marker


def test_labels_and_addresses_are_reveals():
    assert [Place(0, 0).label, Place(4, 1).label] == ["1.1", "5.2"]
    assert [Place(0, 0).address, Place(4, 0).address, Place(4, 2).address, Place(4, 0, 1).address] == \
        ["#/", "#/4", "#/4/2", "#/4/0/0"]


def test_a_lesson_that_follows_the_rules_has_no_problems():
    assert slides.problems(lesson()) == []


@pytest.mark.parametrize("change, expected", [
    (lambda nb: nb.cells[4].metadata.pop("slideshow"), "cell 4 (c04) has no slide type"),
    (lambda nb: nb.cells[4].metadata.update(slideshow={"slide_type": "sldie"}), "has slide type 'sldie'"),
    (lambda nb: nb.cells[1].metadata.update(slideshow={"slide_type": "-"}), "cell 1 (c01) is a harness cell"),
    (lambda nb: nb.cells[4].metadata.update(tags=["nbval-skip"]), "cell 4 (c04) is a harness cell"),
    (lambda nb: nb.cells[11].metadata.update(slideshow={"slide_type": "fragment"}), "prints 20 lines"),
    (lambda nb: nb.cells[10].metadata.update(slideshow={"slide_type": "skip"}), "shows an explorer"),
    (lambda nb: [c.metadata.update(slideshow={"slide_type": "-"}) for c in nb.cells if
                 c.metadata["slideshow"]["slide_type"] == "notes"], "no speaker notes"),
    (lambda nb: nb.cells[0].metadata.update(slideshow={"slide_type": "notes"}), "come before the first slide"),
    (lambda nb: nb.cells[4].metadata.update(slideshow={"slide_type": "notes"}), "notes are markdown"),
    (lambda nb: [c.metadata.update(slideshow={"slide_type": "skip"}) for c in nb.cells], "no slide to show"),
])
def test_each_rule_finds_what_breaks_it(change, expected):
    nb = lesson()
    change(nb)
    found = slides.problems(nb)
    assert any(expected in problem for problem in found), found


def test_long_means_more_than_the_limit_in_lines_of_text():
    cell = _cell("code", "-", "print()", outputs=[nbformat.v4.new_output(
        "stream", name="stdout", text="x\n" * slides.LONG_OUTPUT_LINES)])
    assert slides.output_lines(cell) == slides.LONG_OUTPUT_LINES
    cell.outputs.append(nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=1))
    assert slides.output_lines(cell) == slides.LONG_OUTPUT_LINES + 1
    assert slides.output_lines(lesson().cells[10]) == 0  # an explorer's picture and sentence are not text lines


# ------------------------------------------------------------------------------------------------- demo paths
def with_demo(steps):
    nb = lesson()
    nb.metadata["tutor"] = {"demo": steps}
    return nb


GOOD_DEMO = [
    {"cell": "c06", "minutes": 2, "ask": "How many batches? | and why"},
    {"cell": "c10", "minutes": 5, "move": "buffer_size up to 100", "show": "the band"},
    {"cell": "c12", "minutes": 3, "show": "the summary"},
]


def test_a_demo_path_renders_with_slides_linked_into_the_deck():
    nb = with_demo(GOOD_DEMO)
    assert slides.demo_problems(nb) == [] and slides.problems(nb) == []
    table = slides.demo_table([("03_shuffle", "03: Shuffle", nb), ("04_map", "04: map", lesson())])
    rows = table.splitlines()
    assert rows[2].startswith('| <a href="slides/03_shuffle.html">03: Shuffle</a> | '
                              '<a href="slides/03_shuffle.html#/1/0/0">2.1</a> | 2 |')
    assert "How many batches? \\| and why" in rows[2]
    assert '<a href="slides/03_shuffle.html#/1/1">2.2</a> | 5 | the band | buffer_size up to 100 |' in rows[3]
    assert rows[4].startswith('|  | <a href="slides/03_shuffle.html#/2">3.1</a> | 3 |')
    assert table.rstrip().endswith('No demo path yet (the whole deck): <a href="slides/04_map.html">04: map</a>.')


@pytest.mark.parametrize("steps, expected", [
    ([{"cell": "nope", "minutes": 1, "ask": "?"}], "names cell 'nope', which the lesson does not have"),
    ([{"cell": "c11", "minutes": 1, "ask": "?"}], "which is not shown on a slide"),
    ([{"cell": "c13", "minutes": 1, "ask": "?"}], "which is not shown on a slide"),
    ([{"cell": "c05", "minutes": 1, "move": "slide it"}], "shows no explorer"),
    ([GOOD_DEMO[1], GOOD_DEMO[0]], "comes before the step above it"),
    ([{**GOOD_DEMO[0], "minutes": 11}], "takes 11 minutes, more than 10"),
    ([{"cell": "c05", "ask": "?"}], "needs 'minutes'"),
    ([{"cell": "c05", "minutes": 1}], "says nothing"),
    ([{"cell": "c05", "minutes": 1, "ask": "?", "slide": 3}], "unknown keys ['slide']"),
    ({"cell": "c05"}, "must be a list"),
])
def test_each_demo_rule_finds_what_breaks_it(steps, expected):
    found = slides.problems(with_demo(steps))
    assert any(expected in problem for problem in found), found
    if isinstance(steps, list):
        assert "03: Shuffle" in slides.demo_table([("03_shuffle", "03: Shuffle", with_demo(steps))]).split(
            "No demo path yet")[-1], "a broken demo path is not rendered"


def test_the_outline_shows_each_slide_and_marks_fragments():
    lines = slides.outline(lesson())
    assert lines[0].split()[:3] == ["1.1", "subslide", "#"]
    assert any(line.split()[:2] == ["2.1", "++"] for line in lines)
    assert len(lines) == sum(p is not None for p in EXPECTED)


# ------------------------------------------------------------------------------------------------ static decks
def test_a_deck_loads_nothing_from_outside_and_shows_the_explorers_picture():
    html = decks.deck_html(lesson(), "../../_static/revealjs")
    assert decks.external_loads(html) == []
    soup = BeautifulSoup(html, "html.parser")
    assert [s["src"] for s in soup.find_all("script", src=True)] == [
        "../../_static/revealjs/dist/reveal.js", "../../_static/revealjs/plugin/notes/notes.js"]
    assert {"../../_static/revealjs/dist/reveal.css", "../../_static/revealjs/dist/theme/white.css"} <= {
        link["href"] for link in soup.find_all("link", href=True)}
    assert WIDGET_VIEW not in html and "tutor-static" in html and "starts with this picture" in html
    assert 'slideNumber: "h.v"' in html


def test_the_external_check_can_fail():
    assert decks.external_loads('<script src="https://cdn.example/x.js"></script><style>@import url(//f.example/a.css);'
                          "/* https://ok.example */</style>") == ["https://cdn.example/x.js", "//f.example/a.css"]


def test_static_outputs_keep_the_picture_and_drop_the_live_view():
    nb = decks.static_outputs(lesson())
    data = nb.cells[10].outputs[0]["data"]
    assert WIDGET_VIEW not in data and "text/html" in data and "widgets" not in nb.metadata
    assert WIDGET_VIEW in lesson().cells[10].outputs[0]["data"], "the lesson itself is not changed"


def _tarball(path, files: dict[str, bytes]):
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_reveal_is_unpacked_without_what_the_decks_do_not_use(tmp_path):
    tarball = tmp_path / "r.tgz"
    _tarball(tarball, {"dist/reveal.js": b"r", "dist/theme/white.css": b"w", "dist/theme/simple.css": b"s",
                       "dist/theme/fonts/source-sans-pro/a.woff": b"f", "plugin/notes/notes.js": b"n",
                       "demo.html": b"d", "LICENSE": b"l"})
    target = decks.unpack_reveal(tarball, tmp_path / "reveal.js")
    got = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert got == ["LICENSE", "dist/reveal.js", "dist/theme/fonts/source-sans-pro/a.woff", "dist/theme/white.css",
                   "plugin/notes/notes.js"]


def test_a_reveal_tarball_that_is_not_the_pinned_one_is_refused(tmp_path):
    version, integrity = decks.REVEAL
    fake = tmp_path / f"reveal.js-{version}.tgz"
    fake.write_bytes(b"not reveal")
    assert integrity.startswith("sha512-") and len(base64.b64decode(integrity[7:])) == hashlib.sha512().digest_size
    with pytest.raises(SystemExit, match="is not reveal.js 5.2.1 as published"):
        decks.reveal_tarball(tmp_path)
