"""Two lessons with explorers taught as slides in JupyterLab's slideshow (jupyterlab-rise), at 1280x720.

For each lesson, on the JupyterLab server the other browser tests use:

* Alt+R in the notebook opens the slideshow beside it; the slideshow's own page is driven at 1280x720 (what its
  full-screen button shows on the projector); T opens the speaker notes of the slide shown in a window of their own;
* there, as an instructor does, the setup cell gets ``tutor.presentation(True)`` (the instructors' page says so),
  Shift+Enter runs each cell and moves on with the deck (so the slides change), and Ctrl+Enter runs the explorer's
  cell and stays on its slide;
* the explorer is on the slide tools.slides numbers for its cell (the slideshow's own numbering), runs live (no
  widget shown as text: the stand-in of binder/labextensions/tutor-rise-widgets is installed), and its picture fits
  the slide: every layout rule of test_explorer_layout.py inside the 1280x720 screen;
* the arrow keys move its slider and change its picture while the slide stays; Escape hands the keys back, and
  the next arrow key moves the deck on.

Screenshots: test-artifacts/browser/slides-<lesson>-*.png.

The lessons are opened as they are, with their own slideshow metadata.
"""
from __future__ import annotations

import json

import pytest

from tools import slides
from tools.browser import explorer_page, harness, slides_page

LESSONS = ["02_batch_and_repeat", "03_shuffle"]
VIEWPORT = {"width": 1280, "height": 720}
PRESENTATION = "mode = tutor.presentation(True)"


@pytest.fixture
def slides_context(browser, lab_server):
    context = browser.new_context(viewport=VIEWPORT)
    yield context
    context.close()
    try:
        lab_server.shutdown_kernels()  # free the lesson's kernel before the next test starts one
    except OSError:
        pass


def _add_presentation(text: str):
    return PRESENTATION if "import tutor" in text and "presentation(" not in text else None


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_as_slides_with_its_explorer_live(lesson, lab_server, slides_context):
    if not (harness.notebooks_dir() / f"{lesson}.ipynb").exists():
        pytest.skip(f"notebooks/{lesson}.ipynb does not exist yet")
    name = f"{lesson}.ipynb"
    nb = json.loads((lab_server.root / name).read_text(encoding="utf-8"))
    assert slides.problems(nb) == [], slides.problems(nb)
    explorer_index = next(i for i, c in enumerate(nb["cells"]) if slides.shows_explorer(c))
    expected = slides.places(nb["cells"])[explorer_index]

    errors, warnings = [], []
    slides_context.on("page", lambda p: p.on("console", lambda m: errors.append(m.text) if m.type == "error" and
                                               not any(n in m.text for n in slides_page.KNOWN_NOISE) else None))
    slides_context.on("page", lambda p: p.on("console", lambda m: warnings.append(m.text)))
    page = slides_context.new_page()
    preview, deck = slides_page.open_slideshow(page, lab_server, name)
    assert preview.locator(".reveal .slides > section").count() >= 2, "Alt+R opened no slideshow beside the notebook"
    shots = harness.ARTIFACTS
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"slides-{lesson}-alt-r.png"))

    # T opens the speaker notes in a window of their own, with the notes of the slide shown.
    note = next(i for i, c in enumerate(nb["cells"]) if slides.slide_type(c) == "notes")
    place = slides.places(nb["cells"])[note]
    words = " ".join("".join(nb["cells"][note]["source"]).split()[:4])
    deck.evaluate("id => { location.hash = '#/' + id; }", f"slide-{place.h}-{place.v}")
    deck.wait_for_function("id => location.hash === '#/' + id", arg=f"slide-{place.h}-{place.v}")
    deck.locator(".jp-Notebook").first.focus()
    with deck.expect_popup(timeout=30_000) as opened:
        deck.keyboard.press("t")
    speaker = opened.value
    speaker.wait_for_function("words => document.body && document.body.innerText.includes(words)", arg=words,
                              timeout=30_000)
    speaker.close()
    deck.locator(".jp-Notebook").first.focus()

    cell, passed = slides_page.run_until(deck, r"\b\w+_explorer\(", edit=_add_presentation)
    assert len(passed) >= 2, f"Shift+Enter did not move through the slides: {passed}"
    where = slides_page.present(deck)
    assert where["id"] == f"slide-{expected.h}-{expected.v}", (
        f"the explorer is on {where['id']}, tools.slides numbers its cell {expected} (slide {expected.label})")

    explorer = deck.locator(".reveal section.present .tutor-explorer").first
    explorer.wait_for(timeout=120_000)
    explorer_page.wait_until_sized(deck, explorer)
    geometry = explorer_page.settled_geometry(deck, explorer)
    deck.screenshot(path=str(shots / f"slides-{lesson}-explorer.png"))
    assert geometry["zoom"] > 1, "presentation mode did not reach the explorer"
    assert explorer_page.layout_problems(geometry) == [], explorer_page.layout_problems(geometry)
    # The picture fits the slide (layout_problems checks it with the first control; the panel may reach below the
    # screen when the slide holds much text above it: the slide scrolls then).
    picture = geometry["image"]
    assert picture["top"] >= 0 and picture["bottom"] <= VIEWPORT["height"], f"the picture does not fit: {picture}"
    assert not [w for w in warnings if "Failed to create module: package: @jupyter-widgets" in w], warnings
    assert "Error displaying widget" not in deck.locator(".reveal").inner_text()

    # The first slider, right then left (test_explorers.py's checks: picture, slider readout, explorer readout).
    explorer_page.exercise_explorer(deck, explorer, f"slides-{lesson}")
    assert slides_page.present(deck) == where, "the arrow keys on the slider also turned the slide"
    deck.screenshot(path=str(shots / f"slides-{lesson}-moved.png"))

    deck.keyboard.press("Escape")
    deck.keyboard.press("ArrowRight")
    deck.wait_for_function("old => location.hash !== old", arg=where["hash"], timeout=30_000)
    assert not errors, errors
