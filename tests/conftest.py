"""Shared test set-up.

* Every test starts without a global TensorFlow seed: a test that calls
  ``tf.random.set_seed`` must not change the orders later tests see.
* ``fresh_tutor``: one fresh Python that imports tutor and reads a few pipelines, shared by the tests of
  what ``import tutor`` loads and prints (each such child imports TensorFlow, which costs more than the test).
* nbval: stderr is left out of the comparison (TensorFlow may print C++ log
  lines there that vary from run to run), and the offline digit set is used.
"""
import json
import os
import subprocess
import sys

os.environ.setdefault("TUTOR_DATA_SOURCE", "synthetic")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _no_global_seed_left_behind():
    yield
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        tf.random.set_seed(None)


@pytest.fixture
def short_deadline(monkeypatch):
    """For answers that never yield: a check gives up after 1 s instead of its real deadline. Answers that do
    yield keep the real deadline, so a busy machine cannot make a right answer time out."""
    from tutor.checks import _read

    monkeypatch.setattr(_read, "TIMEOUT", 1.0)


@pytest.fixture(scope="session")
def fresh_tutor() -> dict:
    """A fresh Python, with TensorFlow's log level left at its default: ``import tutor`` first, then a few
    pipelines that once made TensorFlow log. Returns its exit code, its stderr, and under ``loaded`` whether
    ipywidgets was loaded right after ``import tutor``."""
    code = (
        "import json, sys, tutor\n"
        "loaded = {name: name in sys.modules for name in ('ipywidgets',)}\n"
        "import tensorflow as tf\n"
        "list(tf.data.Dataset.range(3).repeat(2).as_numpy_iterator())\n"
        "list(tf.data.Dataset.range(10).cache().take(3).repeat(2).as_numpy_iterator())\n"
        "tutor.take_elements(tf.data.Dataset.range(5).shuffle(3))\n"
        "print(json.dumps(loaded))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root,
                         timeout=600)
    lines = out.stdout.strip().splitlines()
    return {"returncode": out.returncode, "stderr": out.stderr, "loaded": json.loads(lines[-1]) if lines else {}}


def _without_stderr(outputs):
    return [o for o in outputs if not (o.get("output_type") == "stream" and o.get("name") == "stderr")]


def pytest_configure(config):
    try:
        from nbval import plugin
    except ImportError:  # nbval not installed: nothing to patch
        return
    if getattr(plugin.IPyNbCell.compare_outputs, "_ignores_stderr", False):
        return
    original = plugin.IPyNbCell.compare_outputs

    def compare_outputs(self, test, ref, skip_compare=None):
        return original(self, _without_stderr(test), _without_stderr(ref), skip_compare)

    compare_outputs._ignores_stderr = True
    plugin.IPyNbCell.compare_outputs = compare_outputs


#: Test files that need more than about ten CPU-seconds (child processes importing TensorFlow, executed lessons,
#: training, the local tf.data service): `make quick` leaves them out with `-m "not slow"`. Measured with
#: `pytest --durations=0`; add a file here when it grows past that.
SLOW_FILES = {
    "test_reading_never_hangs.py", "facts/test_lesson14.py", "test_augment_grid.py", "test_service.py",
    "facts/test_lesson11.py", "exercises/test_lesson11.py", "exercises/test_lesson13.py", "test_widgets.py",
    "test_nbval_twice.py", "facts/test_lesson07.py", "exercises/test_lesson06.py", "facts/test_lesson09.py",
    "test_quiet_and_env.py", "facts/test_lesson00.py", "exercises/test_every_question.py", "test_reading.py",
    "exercises/test_lesson07.py", "test_short_errors.py", "facts/test_lesson04.py", "exercises/test_lesson09.py",
}


def pytest_collection_modifyitems(config, items):
    tests = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")
    for item in items:
        path = str(item.path)
        if path.startswith(tests) and path[len(tests):] in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
