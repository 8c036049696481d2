"""tools/nbval_twice.py, the nbval companion that make binder-env uses: a second run in the same kernel, the
kernel's Python, and the memory table."""
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("nbval", reason="nbval is a test tool of the main environment (requirements.txt)")

ROOT = Path(__file__).resolve().parents[1]


def notebook(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(nb, path)
    return path


def run_pytest(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tools.nbval_twice", "-p", "no:cacheprovider",
                           "-q", "--nbval-lax", "--rootdir", str(cwd), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_a_notebook_that_fails_only_when_run_again_fails_the_second_run(tmp_path):
    fine = notebook(tmp_path / "fine.ipynb", "x = 1", "print(x + 1)")
    once = notebook(tmp_path / "once.ipynb", 'assert "seen" not in globals(), "this ran before"\nseen = True')
    out = run_pytest("--kernel-python", sys.executable, "--run-twice", str(fine), str(once), cwd=tmp_path)
    assert out.returncode == 1, out.stdout[-3000:]
    assert "1 failed, 4 passed" in out.stdout, out.stdout[-3000:]  # 3 cells and fine's second run passed
    assert re.search(r"FAILED \S*once\.ipynb::second run", out.stdout) and "this ran before" in out.stdout
    # the table: one row per notebook, each run twice in one kernel, with its peak
    assert "each notebook run twice in one kernel" in out.stdout
    assert "fine.ipynb" in out.stdout.split("each notebook run twice")[1]


def test_without_run_twice_nothing_is_added(tmp_path):
    fine = notebook(tmp_path / "fine.ipynb", "x = 1")
    out = run_pytest("--kernel-python", sys.executable, str(fine), cwd=tmp_path)
    assert out.returncode == 0 and "1 passed" in out.stdout, out.stdout[-3000:]
    assert "second run" not in out.stdout


def test_a_kernel_python_that_is_not_there_is_refused(tmp_path):
    fine = notebook(tmp_path / "fine.ipynb", "x = 1")
    out = run_pytest("--kernel-python", str(tmp_path / "no-python"), str(fine), cwd=tmp_path)
    assert out.returncode != 0 and "is not an executable Python" in out.stdout + out.stderr
