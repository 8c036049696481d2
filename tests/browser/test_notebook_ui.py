"""The classic Notebook 7 UI (/notebooks/...) runs a lesson, and its explorer answers the mouse."""
from __future__ import annotations

import os

import pytest

from tools.browser import explorer_page, harness

LESSON = os.environ.get("TUTOR_NOTEBOOK7_LESSON", "03_shuffle")  # override only while developing


def test_shuffle_lesson_in_notebook7(notebook_server, page):
    if not (harness.notebooks_dir() / f"{LESSON}.ipynb").exists():
        pytest.skip(f"notebooks/{LESSON}.ipynb does not exist yet")
    harness.run_lesson(page, notebook_server, LESSON)
    explorers = explorer_page.explorers(page)
    assert explorers.count() >= 1, f"{LESSON}: no explorer on the Notebook 7 page"
    # Dragged with the mouse: Notebook 7's command-mode shortcuts take ArrowLeft/ArrowRight
    # (heading navigation) before a focused ipywidgets slider sees them.
    explorer_page.exercise_explorer(page, explorers.first, f"{LESSON}-notebook7", mouse=True)
