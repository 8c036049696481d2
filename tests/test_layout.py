"""The layout rules of CONTRIBUTING.md, checked: they keep the package easy to find one's way in."""
import ast
import inspect
import re
import subprocess
import textwrap
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


# ----------------------------------------------------------------------------- one reading path (rule 5)
#: Dataset methods and constructors: a call of one of them gives a dataset (tf.data's, Grain's or tf.distribute's).
DATASET_CALLS = {
    "from_tensor_slices", "from_tensors", "from_generator", "range", "zip", "list_files", "TFRecordDataset",
    "TextLineDataset", "FixedLengthRecordDataset", "CsvDataset", "make_csv_dataset", "load", "choose_from_datasets",
    "sample_from_datasets", "take", "skip", "batch", "unbatch", "padded_batch", "ragged_batch", "rebatch", "map",
    "flat_map", "interleave", "filter", "shuffle", "repeat", "prefetch", "cache", "with_options", "apply",
    "enumerate", "concatenate", "window", "shard", "take_while", "scan", "unique", "ignore_errors", "build",
    "to_iter_dataset", "distribute", "experimental_distribute_dataset", "distribute_datasets_from_function",
}
#: Names a function gives a dataset it was handed.
DATASET_NAMES = re.compile(r"ds|dataset|pipeline|ds_\w+|\w+_(ds|dataset)")
#: Calls that iterate over their argument.
ITERATING_CALLS = {"iter", "next", "list", "tuple", "set", "sorted", "sum", "enumerate", "zip", "max", "min", "any", "all"}
#: Methods that only a dataset or its iterator has: calling one (on anything but ``self``) iterates.
ITERATING_METHODS = {"as_numpy_iterator", "__iter__", "get_next", "get_next_as_optional"}
#: The only places outside tutor/reading/ that iterate over a dataset, each a pipeline of the course's own, with
#: no function of the learner's in it, that must end: (file, function) -> why it may.
OWN_FINITE_PIPELINES = {
    ("tutor/augment/rotation.py", "rotate_all"): "the course's rotation of arrays already in memory, read once",
    ("tutor/checks/lesson11.py", "resumed_epoch"): "a checkpoint needs the iterator itself; 10 ids of the course's",
    ("tutor/checks/lesson11.py", "global_batch_mistake"): "a tf.distribute dataset of 12 ids, one step",
    ("tutor/tfrecord/errors.py", "count_records"): "counts the records of a file on disk, which ends",
    ("tutor/tfrecord/inspect.py", "read_record"): "one record of a file on disk",
}


def _is_dataset(node: ast.AST, bound: set[str]) -> bool:
    """Whether ``node`` is, as far as the source shows, a dataset: a dataset call, or a name bound to one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in DATASET_CALLS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in DATASET_CALLS - {"range", "zip", "map", "filter", "enumerate"}  # builtins
    return isinstance(node, ast.Name) and node.id in bound


def dataset_iterations(tree: ast.AST) -> list[tuple[str, int, str]]:
    """``(function, line, code)`` of every place that iterates over a dataset, function by function."""
    found = []
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    for function in functions:
        name = getattr(function, "name", "<lambda>")
        args = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
        bound = {a.arg for a in args if DATASET_NAMES.fullmatch(a.arg)
                 or re.fullmatch(r"(tf\.data\.)?Dataset( \| None)?", ast.unparse(a.annotation or ast.Constant("")))}
        nodes = list(ast.walk(function))
        for node in nodes:  # names bound to a dataset (in source order is enough for the course's code)
            if isinstance(node, ast.Assign) and _is_dataset(node.value, bound):
                bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        for node in nodes:
            hit = None
            if isinstance(node, (ast.For, ast.comprehension)) and _is_dataset(node.iter, bound):
                hit = node.iter
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ITERATING_CALLS:
                hit = next((a for a in node.args if _is_dataset(a, bound)), None)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in ITERATING_METHODS and ast.unparse(node.func.value) != "self"):
                hit = node
            if hit is not None:
                found.append((name, getattr(node, "lineno", getattr(hit, "lineno", 0)), ast.unparse(hit)[:60]))
    return found


def test_the_scan_finds_the_ways_code_iterates_over_a_dataset():
    code = textwrap.dedent("""
        def a(ds):
            for x in ds: pass
        def b(n, fn):
            pipe = tf.data.Dataset.range(n).map(fn)
            return [x for x in pipe]
        def c(dataset):
            return next(iter(dataset))
        def d(source):
            return list(source.take(3)), source.as_numpy_iterator()
        def fine(values, counts):
            return [v for v in values], next(iter(counts.values())), sorted(range(3))
    """)
    found = {(f, code) for f, _, code in dataset_iterations(ast.parse(code))}
    assert {f for f, _ in found} == {"a", "b", "c", "d"}, found
    assert ("d", "source.take(3)") in found and ("d", "source.as_numpy_iterator()") in found


def test_every_read_of_a_dataset_goes_through_tutor_reading():
    """CONTRIBUTING rule 5: the one reading loop bounds every read; a loop of its own would hang on a stuck map."""
    reading = PACKAGE / "reading"
    found = []
    for path in MODULES:
        if reading in path.parents:
            continue
        where = str(path.relative_to(ROOT))
        found += [f"{where}:{line} in {name}(): {code}" for name, line, code in dataset_iterations(_tree(path))
                  if (where, name) not in OWN_FINITE_PIPELINES]
    assert not found, ("these iterate over a dataset themselves; read it with tutor.reading (read, read_ids, "
                       "time_pass or pull) so that a pipeline that never yields gives up at a deadline:\n"
                       + "\n".join(found))


# ----------------------------------------------------------------------------- one verdict rule
VERDICT_WORDS = {"faster", "slower", "no clear difference"}
SPREAD_NAMES = re.compile(r"noise|spread|quartile", re.IGNORECASE)


def verdict_problems(tree: ast.AST) -> list[str]:
    """A rule of its own for "changed or not": a comparison with a noise or spread figure, or verdict words
    handed out by a module that does not take them from tutor.verdict."""
    problems = [f"line {node.lineno}: {ast.unparse(node)[:60]}" for node in ast.walk(tree) if isinstance(node, ast.Compare)
                and any(SPREAD_NAMES.search(n.id if isinstance(n, ast.Name) else n.attr) for n in ast.walk(node)
                        if isinstance(n, (ast.Name, ast.Attribute)))]
    words = sorted({n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in VERDICT_WORDS})
    helper = any(isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[-1] == "verdict"
                 and {a.name for a in n.names} & {"decide", "compare", "Comparison"} for n in ast.walk(tree))
    if words and not helper:
        problems.append(f"says {words} without tutor.verdict's decide, compare or Comparison")
    return problems


def test_the_verdict_scan_finds_a_rule_of_its_own():
    own = "def readout(delta, noise):\n    return 'faster' if abs(delta) > 2 * noise else 'no clear difference'\n"
    assert len(verdict_problems(ast.parse(own))) == 2
    helper = "from ..verdict import decide\ndef readout(a, b):\n    return decide(a, b) == 'faster'\n"
    assert verdict_problems(ast.parse(helper)) == []


def test_every_faster_or_not_is_decided_by_the_verdict_helper():
    """One verdict rule: tutor.verdict.decide. Nothing else weighs a change against its own idea of the noise."""
    found = [f"{p.relative_to(ROOT)} {problem}" for p in MODULES if p != PACKAGE / "verdict.py"
             for problem in verdict_problems(_tree(p))]
    assert not found, "decide with tutor.verdict.decide (or compare):\n" + "\n".join(found)


# ----------------------------------------------------------------------------- one place stamps a rule id
#: Where a doctor Finding is made: the rules' framework, which stamps each with its rule's id, and the measured
#: finding, whose id (input-bound or input-keeps-up) is what the measurement decides.
FINDINGS_MADE_IN = {PACKAGE / "doctor" / "rules" / "__init__.py", PACKAGE / "doctor" / "measured.py"}


def test_the_doctor_framework_stamps_every_rule_id():
    """A rule's check judges a stage and returns a Found; it never makes a Finding or types its own id."""
    made = [f"{p.relative_to(ROOT)}:{n.lineno}" for p in MODULES if p not in FINDINGS_MADE_IN
            for n in ast.walk(_tree(p)) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("Finding")]
    assert not made, f"a Finding made outside the doctor's framework: {made}"
    from tutor.doctor import RULES

    for rule_id, declared in RULES.items():
        function = ast.parse(textwrap.dedent(inspect.getsource(declared.check))).body[0]
        typed = [n.lineno for statement in function.body for n in ast.walk(statement)  # not the @rule(...) above
                 if isinstance(n, ast.Constant) and n.value == rule_id]
        assert not typed, f"{declared.check.__name__} types its own id {rule_id!r}: the framework stamps it"
        assert declared.on, rule_id
