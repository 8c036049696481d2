"""Badges and Colab install cells all agree with the one place that names the repository."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tools import links

ROOT = Path(__file__).resolve().parents[1]


def test_every_notebook_and_the_readme_agree_with_pyproject():
    assert links.check(ROOT) == []


def test_every_lesson_starts_with_badges_and_the_colab_cell():
    repo, ref = links.read_config(ROOT)
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), path.name
        assert links.badges(repo, ref, path.name) in nb.cells[0].source, path.name
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        assert first_code.source == links.colab_cell(repo, ref), path.name
        assert first_code.outputs == [], f"{path.name}: the Colab cell must print nothing outside Colab"


@pytest.fixture
def fork(tmp_path):
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return tmp_path


def test_rewrite_points_everything_at_a_fork(fork):
    changed = links.rewrite(fork, "someone/my-course", "v1.2")
    assert fork / "pyproject.toml" in changed
    assert links.read_config(fork) == ("someone/my-course", "v1.2")
    assert links.check(fork) == []
    text = (fork / "notebooks" / "03_shuffle.ipynb").read_text()
    assert "colab.research.google.com/github/someone/my-course/blob/v1.2/notebooks/03_shuffle.ipynb" in text
    assert "git+https://github.com/someone/my-course@v1.2" in text
    readme = (fork / "README.md").read_text()
    assert "tfdata-course/tfdata-course" not in readme
    assert "https://someone.github.io/my-course/" in readme and "tfdata-course.github.io" not in readme


def test_check_finds_a_stale_link(fork):
    path = fork / "notebooks" / "02_batch_and_repeat.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source = nb.cells[0].source.replace("/blob/main/", "/blob/old-tag/")
    nbformat.write(nb, path)
    problems = links.check(fork)
    assert any("02_batch_and_repeat.ipynb: Colab badge points at" in p for p in problems)


def test_command_line(fork):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the tools live in the checkout, not in the fork copy
    run = dict(cwd=fork, capture_output=True, text=True, env=env)
    out = subprocess.run([sys.executable, "-m", "tools.links", "--repo", "a/b", "--ref", "main"], **run)
    assert out.returncode == 0 and "a/b@main" in out.stdout
    out = subprocess.run([sys.executable, "-m", "tools.links", "--check"], **run)
    assert out.returncode == 0
    with pytest.raises(ValueError, match="OWNER/NAME"):
        links.rewrite(fork, "not a repo", "main")
