"""The layout rules of CONTRIBUTING.md, checked: they keep the package easy to find one's way in."""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tutor"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400  # "about 300": past that a module holds two ideas and becomes a package


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_is_imported_from_another_module(path):
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            if node.module is None and node.level == 1:  # "from . import _sibling": a module private to its package
                continue
            private = [a.name for a in node.names if a.name.startswith("_")]
            assert not private, f"{path.relative_to(ROOT)} imports private {private} from {node.module}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_doctor_reads_tensorflows_private_pipeline_structure(path):
    if path in (PACKAGE / "doctor" / "graph.py", PACKAGE / "doctor" / "objects.py"):
        return
    assert "._inputs(" not in path.read_text(), f"{path.relative_to(ROOT)}: use tutor.doctor.read_pipeline"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_short(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it into a package by idea"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_package_never_imports_the_maintainer_tools(path):
    for node in ast.walk(_tree(path)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            assert not any(n == "tools" or n.startswith("tools.") for n in names), path


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_drawing_libraries_load_only_where_something_is_drawn(path):
    if PACKAGE / "widgets" in path.parents:
        return
    for node in _tree(path).body:  # module level only: inside a function they load when something is drawn
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            heavy = [n for n in names if n.split(".")[0] in ("matplotlib", "ipywidgets")]
            assert not heavy, f"{path.relative_to(ROOT)} imports {heavy} at module level"


def test_import_tutor_loads_no_widgets(fresh_tutor):
    assert fresh_tutor["returncode"] == 0, fresh_tutor["stderr"]
    assert fresh_tutor["loaded"]["ipywidgets"] is False


def test_the_top_level_stays_simple():
    allowed = {"tutor", "notebooks", "tests", "binder", "benchmarks", "tools", "book", "locale", "README.md", "CONTRIBUTING.md",
               "requirements.txt", "Makefile", "pyproject.toml", "LICENSE"}
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    top = {name.split("/")[0] for name in tracked if not name.startswith(".")}
    assert top <= allowed, f"unexpected at the top level: {sorted(top - allowed)}; see CONTRIBUTING.md"


#: What counts as using TensorFlow's internals: a module outside the public ``tf.*`` API, or a private attribute
#: of a TensorFlow object (a dataset's inputs and variant, an iterator's resource, a traced function's graph).
INTERNAL_MODULES = ("tensorflow.python", "tensorflow.core", "tensorflow.tsl", "tsl", "xla")
INTERNAL_ATTRIBUTES = {"_inputs", "_variant_tensor", "_functions", "_iterator_resource", "_flat_output_types",
                       "_flat_output_shapes", "_map_func", "_input_dataset"}


def uses_tensorflow_internals(path: Path) -> bool:
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import) and any(a.name.startswith(INTERNAL_MODULES) for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(INTERNAL_MODULES):
            return True
        if isinstance(node, ast.Attribute) and node.attr in INTERNAL_ATTRIBUTES:
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(
                r"(%s)(\.\w+)+" % "|".join(re.escape(m) for m in INTERNAL_MODULES), node.value):
            return True  # a module loaded by name, e.g. importlib.import_module("tsl.profiler...")
    return False


def internals_list_in_contributing() -> set[str]:
    """The files named in CONTRIBUTING.md's rule on TensorFlow internals (from its name to the test that checks it)."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    start = text.index("**TensorFlow internals**")
    rule = text[start:text.index("`tests/test_layout.py`", start)]
    return set(re.findall(r"`(tutor/[\w/]+\.py)`", rule))


def test_contributing_names_every_file_that_uses_tensorflow_internals():
    using = {str(p.relative_to(ROOT)) for p in MODULES if uses_tensorflow_internals(p)}
    named = internals_list_in_contributing()
    assert using == named, (f"use TensorFlow internals but are not named in CONTRIBUTING.md: {sorted(using - named)}; "
                            f"named there but no longer use them: {sorted(named - using)}")


def test_the_version_is_written_once():
    import importlib.metadata
    import tomllib

    import tutor

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project.get("dynamic", []), "pyproject.toml takes it from tutor"
    assert importlib.metadata.version("tfdata-tutor") == tutor.__version__


def test_tests_are_laid_out_like_the_course():
    """CONTRIBUTING's "A new lesson" and "A new explorer": one facts file and one exercises file per lesson, one
    test file per explorer, and no test file named after a lesson or an explorer that does not exist."""
    lessons = {p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    checked = {p.stem[len("lesson"):] for p in (PACKAGE / "checks").glob("lesson[0-9][0-9].py")}
    facts = {p.stem[len("test_lesson"):] for p in (ROOT / "tests" / "facts").glob("test_*.py")}
    exercises = {p.stem[len("test_lesson"):] for p in (ROOT / "tests" / "exercises").glob("test_lesson*.py")}
    assert facts == lessons, f"tests/facts/ should hold test_lessonNN.py for exactly the lessons {sorted(lessons)}"
    assert exercises == checked, "tests/exercises/test_lessonNN.py: one per tutor/checks/lessonNN.py"
    assert not {p.name for p in (ROOT / "tests").glob("test_semantics*.py")}, "lesson facts go in tests/facts/"
    import tutor

    explorer_files = {p.stem[len("test_"):] for p in (ROOT / "tests").glob("test_*_explorer.py")}
    assert explorer_files == set(tutor._EXPLORERS), "one tests/test_<name>_explorer.py per explorer"
