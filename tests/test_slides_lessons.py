"""Every lesson is a slideshow that can be taught as it is (tools/slides.py's rules), with a demo path.

``python -m tools.slides --check notebooks/*.ipynb`` lists what a lesson is missing.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tools import slides

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_is_a_slideshow_with_notes_and_a_demo_path(path):
    nb = nbformat.read(str(path), as_version=4)
    found = slides.problems(nb)
    if not slides.demo_steps(nb):
        found.append("no demo path (metadata.tutor.demo)")
    assert not found, f"{path.name}:\n" + "\n".join(found)

