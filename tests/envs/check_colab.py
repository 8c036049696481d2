"""Run inside the Colab-stack venv (``make colab-env``): the unit tests and lessons 01, 02, 03, 07, 14 on Colab's versions.

1. Checks the stack: Python 3.13, TF 2.20.0, ipywidgets 7.7.1, matplotlib
   3.10.x, and no ipympl.
2. Runs the unit tests (tests/, without the browser tests, each lesson's own exercise
   cases and the tests of the repository's own files; every question still runs through
   tests/exercises/test_every_question.py) and checks that the
   explorer tests, which drive each explorer's ``.controls`` from code, ran
   and passed on ipywidgets 7.7.1 (none skipped).
3. Executes lessons 01, 02, 03, 07 and 14 once each with nbclient in this venv's
   kernel, failing on any cell error (14: Keras on JAX and Grain on Python 3.13).
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Tests of the repository itself (its layout, imports, links, website sources, test helpers and tools).
REPOSITORY_TESTS = ("test_layout.py", "test_imports.py", "test_links.py", "test_site_build.py", "test_busy_machine.py",
                    "test_nbval_twice.py")
LESSONS = ["01_datasets_from_data", "02_batch_and_repeat", "03_shuffle", "07_performance", "14_outside_tensorflow"]
EXPECTED = {"tensorflow": "2.20.0", "ipywidgets": "7.7.1"}


def check_stack() -> list[str]:
    problems = []
    if sys.version_info[:2] != (3, 13):
        problems.append(f"Python {sys.version.split()[0]}, expected 3.13")
    for name, version in EXPECTED.items():
        if metadata.version(name) != version:
            problems.append(f"{name} {metadata.version(name)}, expected {version}")
    if not metadata.version("matplotlib").startswith("3.10."):
        problems.append(f"matplotlib {metadata.version('matplotlib')}, expected 3.10.x")
    try:
        problems.append(f"ipympl {metadata.version('ipympl')} is installed; Colab has none")
    except metadata.PackageNotFoundError:
        pass
    return problems


def run_unit_tests() -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        # Every unit test but each lesson's own list of right answers and mistakes, and the tests of this
        # repository's own files and tools: test_every_question.py still runs every question's solution,
        # placeholder and bad inputs on this stack; the lists test the checkers' wording, and the others the
        # layout, links, website sources and test helpers, none of which changes with the stack. They run in the
        # main environment.
        command = [sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider",
                   "--ignore=tests/browser", "--ignore=tests/envs", "--ignore-glob=tests/exercises/test_lesson*.py",
                   *[f"--ignore=tests/{name}" for name in REPOSITORY_TESTS],
                   "--durations=15", f"--junitxml={report}"]
        code = subprocess.call(command, cwd=ROOT)
        cases = ET.parse(report).getroot().iter("testcase")
        explorer_cases = []
        for case in cases:
            where = case.get("classname", "")
            if "widget" in where or "explorer" in where or "explorer" in case.get("name", ""):
                status = "skipped" if case.find("skipped") is not None else (
                    "failed" if case.find("failure") is not None or case.find("error") is not None else "passed")
                explorer_cases.append((where + "::" + case.get("name"), status))
    problems = [] if code == 0 else [f"unit tests failed on the Colab stack (pytest exit code {code})"]
    if not explorer_cases:
        problems.append("no explorer/widget tests were collected (tests/test_widgets*.py, *explorer*)")
    problems += [f"{name} {status} on ipywidgets 7.7.1" for name, status in explorer_cases if status != "passed"]
    print(f"explorer tests on ipywidgets 7.7.1: {sum(s == 'passed' for _, s in explorer_cases)} passed", flush=True)
    return problems


def run_lessons() -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))  # the maintainer tools, not a package here
    from nbtools import execute

    problems = []
    for lesson in LESSONS:
        path = ROOT / "notebooks" / f"{lesson}.ipynb"
        if not path.exists():
            problems.append(f"notebooks/{lesson}.ipynb is missing")
            continue
        try:
            _, seconds = execute(path, runs=1, write=False)
            print(f"  {lesson}: ok in {seconds:.1f} s", flush=True)
        except Exception as exc:  # noqa: BLE001 -- collect every failing lesson
            text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # tracebacks carry ANSI colours
            lines = [line for line in text.splitlines() if line.strip()]
            problems.append(f"{lesson}: {type(exc).__name__}: {lines[-1] if lines else ''}")
    return problems


def main() -> int:
    print(f"Colab stack: Python {sys.version.split()[0]}, TF {metadata.version('tensorflow')}, "
          f"ipywidgets {metadata.version('ipywidgets')}, matplotlib {metadata.version('matplotlib')}", flush=True)
    problems = check_stack()
    problems += run_unit_tests()
    problems += run_lessons()
    for problem in problems:
        print("FAIL:", problem)
    print("colab-env:", "FAILED" if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
