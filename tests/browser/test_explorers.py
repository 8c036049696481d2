"""Every lesson with an explorer, in JupyterLab in headless Chromium.

Restart & Run All, then: no cell shows an error, every widget rendered, and
moving each explorer's main control with the keyboard changes its figure and
its readout, and so do the arrow keys on a choice of options (radio buttons). Screenshots go to test-artifacts/browser/.
"""
from __future__ import annotations

import pytest

from tools.browser import explorer_page, harness


@pytest.mark.parametrize("lesson", harness.lessons_with_explorers())
def test_lesson_explorers_in_jupyterlab(lesson, lab_server, page):
    path = harness.notebooks_dir() / f"{lesson}.ipynb"
    if not path.exists():
        pytest.skip(f"notebooks/{lesson}.ipynb does not exist yet")
    calls = harness.explorer_calls(path)
    assert calls, f"{lesson} should show an explorer but calls no *_explorer(...)"

    harness.run_lesson(page, lab_server, lesson)
    explorers = explorer_page.explorers(page)
    count = explorers.count()
    assert count >= 1, f"{lesson}: the code calls {calls} but no explorer is on the page"
    for index in range(count):
        explorer_page.exercise_explorer(page, explorers.nth(index), f"{lesson}-explorer{index + 1}")
        # a choice among options (radio buttons) moves with the arrow keys too, without leaving the cell
        explorer_page.choose_with_keys(page, explorers.nth(index), f"{lesson}-explorer{index + 1}")
    assert not [m for m in page.console_errors if "widget" in m.lower()], page.console_errors
