"""Every explorer in JupyterLab at 1280x720: it fits on the screen, its picture is sharp, and it answers a key.

For each explorer found in tutor/widgets/ (a new one is picked up by itself),
in normal and in presentation mode with JupyterLab's file browser open (the
narrower case), at twice the pixel density with it closed, and, where
``make colab-env`` built its environment (with nbclassic), on Colab's
ipywidgets 7.7.1 with its own front end (the classic Notebook UI):

* the first control and the whole picture are inside the viewport together;
* the picture is not upscaled (natural width >= shown width x devicePixelRatio);
* its aspect ratio is kept;
* the explorer is no wider than its output area (no sideways scrollbar);
* no label is cut off, also after a click on each checkbox and toggle button;
* code in the readout wraps between words, never inside one;
* the picture beside the panel keeps at least MIN_PICTURE_SHARE of the explorer's width,
  and the panel is no taller than the screen;
* presentation mode zooms the control panel (less where the explorer is narrow);
* a key press on the first slider changes the picture (and it still fits).

One edition is checked too: the order and timeline explorers (the panels with the most translated labels and
buttons) built after ``tutor.set_language("ja")``, on the HiDPI page, must pass every rule above with Japanese
labels and readouts, which are wider per character; where tutor's Japanese catalog translates their buttons,
the panel must show that Japanese. (The panel's width is fixed and zoomed as a whole, so a label that fits
fits in presentation mode too.) Chromium needs a font with Japanese glyphs for that: ``fonts-noto-cjk``.

Screenshots of the whole window before and after the key press go to
test-artifacts/browser/layout-*.png.

The cases that share a front end, a mode, a pixel density and the file browser's state share one page: one
notebook shows each of their explorers in its own cell, run once in one kernel, and each case checks its own
explorer there. (Each kernel imports TensorFlow, and each page loads the whole front end: sharing them keeps
the 19 cases from doing that 19 times.) The edition's explorers come last on their page, after its English
one: the kernel speaks Japanese from their cell on, so that English explorer's later pictures and readout are
drawn in Japanese too (its labels, made before, stay English).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import pytest

from tools.browser import explorer_page, harness

VIEWPORT = {"width": 1280, "height": 720}
#: Python of the Colab-stack environment (``make colab-env``); TUTOR_IPYWIDGETS7_PYTHON points at another one.
COLAB_PYTHON = Path(os.environ.get("TUTOR_IPYWIDGETS7_PYTHON", harness.ROOT / ".venv-colabtest" / "bin" / "python"))
PRESENTATION_SCALE = 1.4  # tutor.style.PRESENTATION_SCALE (not imported: these tests load no TensorFlow)
NARROW_PRESENTATION_SCALE = 1.15  # tutor.widgets._frontend.NARROW_ZOOM: presentation mode in a narrow explorer


class Case(NamedTuple):
    module: str
    name: str
    presentation: bool = False
    dpr: float = 1.0
    front: str = "lab"  # or "classic": ipywidgets 7.7.1 in the Colab-stack environment
    file_browser: bool = True  # JupyterLab's file browser open beside the notebook
    language: str = "en"  # an edition's: the explorer is built after tutor.set_language(language)


def _cases() -> list[Case]:
    found = explorer_page.explorer_names()
    cases = [Case(m, n, presentation=p) for m, n in found for p in (False, True)]
    cases += [Case(m, n, dpr=2.0, file_browser=False) for m, n in found if n == "shuffle_explorer"]  # a HiDPI screen
    # The tallest panel (lesson 06's), zoomed fully: with the file browser closed the explorer is wide.
    cases += [Case(m, n, presentation=True, file_browser=False) for m, n in found if n == "sources_explorer"]
    # One edition, on the HiDPI page (after its English explorer): Japanese labels are wider per character.
    cases += [Case(m, n, dpr=2.0, file_browser=False, language="ja") for m, n in found if n in EDITION_EXPLORERS]
    cases += [Case(m, n, front="classic") for m, n in found]
    return cases


#: The explorers checked in an edition too: the most translated labels and buttons in their panels.
EDITION_EXPLORERS = ("order_explorer", "timeline_explorer")
#: Messages every explorer's panel shows (its reset button), looked up in the edition's catalog.
PANEL_MESSAGES = ["reset"]


def group_of(case: Case) -> str:
    """The page a case is checked on, which is also its notebook's name."""
    mode = "presentation" if case.presentation else "normal"
    front = ("-files" if case.file_browser else "") if case.front == "lab" else "-ipywidgets7"
    return f"layout-{mode}-dpr{case.dpr:g}{front}"


def notebook_name(case: Case) -> str:
    """The case's name: its explorer on its group's page (and its language, for an edition)."""
    name = group_of(case).replace("layout-", f"layout-{case.name}-", 1)
    return name if case.language == "en" else f"{name}-{case.language}"


GROUPS: dict[str, list[Case]] = {}
for _case in _cases():
    GROUPS.setdefault(group_of(_case), []).append(_case)
CASES = [case for cases in GROUPS.values() for case in cases]  # a group's cases one after the other


class SharedPage:
    """The page of the group under test: its notebook run once, in one kernel, for all of its explorers."""

    def __init__(self, browser, request):
        self.browser, self.request = browser, request
        self.group = self.context = self.page = self.server = self.failure = None
        self.errors: list[str] = []

    def open(self, case: Case):
        """The page showing ``case``'s explorer, and how many page errors came before this case's turn."""
        group = group_of(case)
        if group == self.group:
            if self.failure:
                pytest.fail(f"{group} did not open: {self.failure}")
            return self.page, len(self.errors)
        self.close()
        self.group, self.failure, self.errors = group, None, []
        self.server = self.request.getfixturevalue("explorer_server" if case.front == "lab" else "classic_server")
        self.context = self.browser.new_context(viewport=VIEWPORT, device_scale_factor=case.dpr)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        try:
            if case.front == "lab":
                harness.run_lesson(self.page, self.server, group)
                explorer_page.show_file_browser(self.page, case.file_browser)
            else:
                harness.run_classic(self.page, self.server, group)
        except Exception as exc:
            self.failure = f"{type(exc).__name__}: {str(exc)[:300]}"
            raise
        return self.page, 0

    def close(self):
        if self.context is not None:
            self.context.close()
            self.server.shutdown_kernels()
        self.context = self.page = None


@pytest.fixture(scope="module")
def shared(browser, request):
    pages = SharedPage(browser, request)
    yield pages
    pages.close()


@pytest.mark.parametrize("case", CASES, ids=notebook_name)
def test_explorer_fits_the_screen_and_answers_a_key(case, shared):
    label = notebook_name(case)
    if case.language != "en":
        assert explorer_page.has_font_for(case.language), \
            f"Chromium has no font for {case.language!r} here: install fonts-noto-cjk (make chromium does)"
    page, seen = shared.open(case)
    try:
        mine = GROUPS[group_of(case)].index(case)  # the page shows the group's explorers in this order
        explorer = explorer_page.explorers(page, lab=case.front == "lab").nth(mine)
        explorer.evaluate("el => el.scrollIntoView({block: 'start'})")
        explorer_page.wait_until_sized(page, explorer)
        before = explorer_page.settled_geometry(page, explorer)  # the scroll and the page's layout have settled
        page.screenshot(path=str(harness.ARTIFACTS / f"{label}-before.png"))
        assert not explorer_page.layout_problems(before), explorer_page.layout_problems(before)
        narrow = before["root"]["width"] < explorer_page.NARROW_WIDTH
        zoom = (NARROW_PRESENTATION_SCALE if narrow else PRESENTATION_SCALE) if case.presentation else 1.0
        assert before["zoom"] == pytest.approx(zoom), (before["zoom"], before["root"])
        if case.language != "en":  # the edition's words are really shown (once its catalog translates them)
            panel = explorer.locator(".tutor-panel").inner_text()
            missing = [t for t in explorer_page.translations(case.language, PANEL_MESSAGES) if t not in panel]
            assert not missing, f"the {case.language} panel does not show {missing}: {panel[:300]!r}"

        handle, _, _, image = explorer_page.explorer_parts(explorer)
        at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
        digest = explorer_page.image_digest(image)
        explorer_page.press_and_wait(page, handle, image, "ArrowLeft" if at_max else "ArrowRight")
        explorer_page.wait_until_sized(page, explorer)
        after = explorer_page.settled_geometry(page, explorer)
        page.screenshot(path=str(harness.ARTIFACTS / f"{label}-after.png"))
        assert explorer_page.image_digest(image)["sha256"] != digest["sha256"], "the key press did not change the picture"
        assert not explorer_page.layout_problems(after), explorer_page.layout_problems(after)
        clicked = explorer_page.click_each_toggle(page, explorer)
        assert not explorer_page.layout_problems(clicked), explorer_page.layout_problems(clicked)
        widget_errors = [e for e in shared.errors[seen:] if "widget" in e.lower() or "tutor" in e.lower()]
        assert not widget_errors, widget_errors  # JupyterLab's own errors (kernel restarts) are not ours
    except Exception:
        harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(harness.ARTIFACTS / f"FAILED-{label}.png"))
        raise
