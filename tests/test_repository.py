"""The repository a stranger picks up: a licence, no machine's own paths, commands that say what they need."""
from __future__ import annotations

import fnmatch
import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAKEFILE = (ROOT / "Makefile").read_text()


def test_the_licence_file_is_the_one_pyproject_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert declared == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text


def test_the_makefile_names_no_machines_own_paths():
    assert not re.search(r"(/root/|/home/|/Users/|\.pyenv/versions)", MAKEFILE), "find interpreters with tools/find_python.sh"


def test_find_python_finds_the_running_interpreters_version_and_refuses_a_missing_one():
    import sys

    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    found = subprocess.run([str(ROOT / "tools" / "find_python.sh"), version], capture_output=True, text=True)
    assert found.returncode == 0
    assert subprocess.run([found.stdout.strip(), "-c", "import sys; print(sys.version_info[:2])"],
                          capture_output=True, text=True).stdout.strip() == str(sys.version_info[:2])
    assert subprocess.run([str(ROOT / "tools" / "find_python.sh"), "3.99"], capture_output=True).returncode == 1


def test_make_test_says_in_one_sentence_what_is_missing():
    run = subprocess.run(["make", "--no-print-directory", "-s", "check-tools", "COLAB_PYTHON="], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode != 0
    said = [line for line in run.stdout.splitlines() if line.strip()]
    assert len(said) == 1 and "Python 3.13" in said[0] and "COLAB_PYTHON" in said[0]


def test_make_clean_removes_every_environment_the_makefile_makes():
    made = set(re.findall(r"-m venv (\S+)", MAKEFILE))
    variables = dict(re.findall(r"^(\w+)\s*:?=\s*(\S+)\s*$", MAKEFILE, flags=re.M))
    made = {variables.get(m[2:-1], m) if m.startswith("$(") else m for m in made}
    removed = re.search(r"^clean:\n\trm -rf (.+)$", MAKEFILE, flags=re.M).group(1).split()
    removed = [variables.get(r[2:-1], r) if r.startswith("$(") else r for r in removed]
    assert made and all(any(fnmatch.fnmatch(venv, pattern) for pattern in removed) for venv in made), (made, removed)


def test_pyproject_names_only_modules_that_exist():
    for module in re.findall(r"python -m ([\w.]+)", (ROOT / "pyproject.toml").read_text()):
        path = ROOT / module.replace(".", "/")
        assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), module


def test_every_file_make_quick_leaves_out_exists():
    from tests.conftest import SLOW_FILES

    assert all((ROOT / "tests" / name).is_file() for name in SLOW_FILES), sorted(
        name for name in SLOW_FILES if not (ROOT / "tests" / name).is_file())
