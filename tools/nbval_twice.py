"""A pytest plugin beside nbval: run the lessons in another venv's kernel, twice in one kernel, and weigh it.

``make binder-env`` runs the lessons once for all its checks, where they used to run three times (nbval
in the main venv, then twice more for the Binder check)::

    binder/start .venv/bin/python -m pytest -p tests.conftest -p tools.nbval_twice --nbval \\
        --nbval-sanitize-with tests/sanitize.cfg --kernel-python .venv-binder/bin/python --run-twice notebooks

* ``--kernel-python PY``: nbval starts each notebook's kernel with the Python ``PY`` (through a
  kernelspec in a temporary ``JUPYTER_PATH`` folder), so the lessons run in that venv, exactly as it was
  installed, while pytest and nbval run here. The kernel inherits this process's environment
  (``binder/start``'s settings, the offline digits).
* ``--run-twice``: after a notebook's last cell, one more item runs every code cell again in the same
  kernel, as a learner who presses "Run All" a second time does; a cell that raises there fails it. nbval
  compares the first pass with the committed outputs as usual.
* ``--check-exercises`` (with or without ``--run-twice``): then, still in that kernel, every exercise of the lesson (``tutor.checks.lessonNN``,
  from the notebook's number) is answered with its own solution and checked, as a learner who ran the lesson
  to the end and goes back to the exercises does: each must say "correct", not raise. (Lessons 11 and 13 once
  stopped their service and deleted their data in their last cells, and their exercises then failed.)
* The kernel's peak memory (its process and children, polled by :class:`tools.memory.PeakMemory`) is
  measured over both passes; the second-pass item fails when it went over 1.5 GB, and a table of every
  notebook's time and peak ends the report.
"""
from __future__ import annotations

import json
import os
import queue
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from .memory import KERNEL_BYTES_TARGET, NotebookRun, PeakMemory, table

KERNEL_NAME = "tutor-kernel-python"


def pytest_addoption(parser):
    group = parser.getgroup("nbval_twice", "lessons in another venv's kernel, twice in one kernel")
    group.addoption("--kernel-python", default=None, help="run each notebook's kernel with this Python")
    group.addoption("--run-twice", action="store_true", help="run every notebook a second time in the same kernel")
    group.addoption("--check-exercises", action="store_true",
                    help="after the second run, check every exercise of the lesson with its solution")


def pytest_configure(config):
    python = config.getoption("--kernel-python")
    if python:
        if getattr(config.option, "nbval_current_env", False):
            raise pytest.UsageError("--kernel-python picks the kernel's Python; leave out --nbval-current-env")
        if not os.access(python, os.X_OK):
            raise pytest.UsageError(f"--kernel-python {python!r} is not an executable Python")
        folder = tempfile.mkdtemp(prefix="tutor-kernels-")
        spec = Path(folder, "kernels", KERNEL_NAME)
        spec.mkdir(parents=True)
        spec.joinpath("kernel.json").write_text(json.dumps({
            "argv": [os.path.abspath(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": f"Python ({python})", "language": "python"}))
        os.environ["JUPYTER_PATH"] = os.pathsep.join([folder, *filter(None, [os.environ.get("JUPYTER_PATH")])])
        config.option.nbval_kernel_name = KERNEL_NAME
        config._tutor_kernel_folder = folder
    if config.getoption("--run-twice") or config.getoption("--check-exercises"):
        config.pluginmanager.register(Weighing(config), "tutor-weighing")


def pytest_unconfigure(config):
    folder = getattr(config, "_tutor_kernel_folder", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


class KernelCheck(pytest.Item):
    """An item that runs code in the kernel nbval started for its notebook; a failure reads as one message."""

    what = ""

    def run(self, source: str) -> tuple[str, list[str]]:
        """Execute ``source`` in the notebook's kernel: (what it printed, the ``ename: evalue`` of its errors)."""
        kernel = self.parent.kernel
        timeout = getattr(self.config.option, "nbval_cell_timeout", 2000)
        msg_id = kernel.execute_cell_input(source, allow_stdin=False)
        try:
            kernel.await_reply(msg_id, timeout=timeout)
            text, errors = [], []
            while True:
                msg = kernel.get_message(stream="iopub", timeout=timeout)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "stream":
                    text.append(msg["content"]["text"])
                elif msg["msg_type"] == "error":
                    error = f"{msg['content']['ename']}: {msg['content']['evalue']}"
                    errors.append(re.sub(r"\x1b\[[0-9;]*m", "", error))  # tracebacks carry ANSI colours
                elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    return "".join(text), errors
        except queue.Empty:
            raise KernelCheckError(f"no answer from the kernel within {timeout} s") from None

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, KernelCheckError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"{self.parent.name}: {self.what}"


class KernelCheckError(Exception):
    pass


class SecondPass(KernelCheck):
    """Every code cell of the notebook once more, in the kernel the first pass used."""

    what = "second run in the same kernel"

    def __init__(self, *, cells, weighing, **kwargs):
        super().__init__(**kwargs)
        self.cells, self.weighing = cells, weighing

    def runtest(self):
        failures = []
        for number, source in self.cells:
            try:
                failures += [f"Cell {number}: {error}" for error in self.run(source)[1]]
            except KernelCheckError as exc:
                failures.append(f"Cell {number}: {exc}")
                break
        run = self.weighing.finish(self.parent)
        python = self.config.getoption("--kernel-python")
        kernels = [cmd for cmd in run.commands.values() if "ipykernel_launcher" in " ".join(cmd)]
        if python and not any(cmd and cmd[0] == os.path.abspath(python) for cmd in kernels):
            failures.append(f"the kernel did not run on {python}: {kernels}")
        if failures:
            raise KernelCheckError("the second run in the same kernel failed:\n" + "\n".join(failures))
        if run.peak_bytes > KERNEL_BYTES_TARGET:
            parts = self.weighing.memory.peak_parts
            who = ", ".join(f"{' '.join(run.commands.get(pid, ['?']))[:80]} {rss / 1e6:.0f} MB"
                            for pid, rss in sorted(parts.items(), key=lambda kv: -kv[1]))
            raise KernelCheckError(f"the kernel peaked at {run.peak_bytes / 1e9:.2f} GB over both runs "
                                   f"(limit {KERNEL_BYTES_TARGET / 1e9:.1f} GB): {who}")


#: Runs in the lesson's kernel after both runs: every question's solution, then its check.
CHECK_ALL = """
import importlib as _importlib, importlib.util as _util, json as _json, textwrap as _textwrap
from tutor.checks import questions_in as _questions_in
_verdicts = {{}}
if _util.find_spec("tutor.checks.{module}") is not None:
    for _name, _question in _questions_in(_importlib.import_module("tutor.checks.{module}")).items():
        try:
            exec(_textwrap.dedent(_question.solution_code), globals())
            _result = _question.check(globals()[_question.answer_name])
            _verdicts[_name] = [_result.status, _result.message]
        except Exception as _exc:  # a raw exception is what this item exists to catch
            _verdicts[_name] = ["raised", f"{{type(_exc).__name__}}: {{_exc}}"]
print("VERDICTS " + _json.dumps(_verdicts))
"""


class ExercisesAfter(KernelCheck):
    """Every exercise of the lesson, answered with its solution in the kernel that ran the lesson to the end."""

    what = "exercises after the run"

    def runtest(self):
        number = re.match(r"(\d+)_", Path(str(self.parent.path)).name)
        if number is None:
            pytest.skip("not a numbered lesson")
        text, errors = self.run(CHECK_ALL.format(module=f"lesson{number.group(1)}"))
        line = next((line for line in text.splitlines() if line.startswith("VERDICTS ")), None)
        if line is None:
            raise KernelCheckError(f"the exercise check printed no verdicts: {errors or text[-2000:]}")
        wrong = {name: v for name, v in json.loads(line[len("VERDICTS "):]).items() if v[0] != "correct"}
        if wrong:
            raise KernelCheckError(f"after the lesson ran to the end, these solutions were not accepted: {wrong}")


class Weighing:
    """Adds the second-pass items, and times and weighs each notebook's kernel from its first cell to its end."""

    def __init__(self, config):
        self.config = config
        self.memory: PeakMemory | None = None
        self.started: dict = {}
        self.runs: list[NotebookRun] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        from nbval.plugin import IPyNbCell

        out = []
        for k, item in enumerate(items):
            out.append(item)
            last = k + 1 == len(items) or items[k + 1].parent is not item.parent
            if isinstance(item, IPyNbCell) and last:
                cells = [(c.cell_num, c.cell.source) for c in items if isinstance(c, IPyNbCell)
                         and c.parent is item.parent and not c.options.get("skip")]
                if config.getoption("--run-twice"):  # the editions run once: their code is the English lessons'
                    out.append(SecondPass.from_parent(item.parent, name="second run", cells=cells, weighing=self))
                if config.getoption("--check-exercises"):
                    out.append(ExercisesAfter.from_parent(item.parent, name="exercises after the run"))
        items[:] = out

    def pytest_runtest_setup(self, item):
        from nbval.plugin import IPyNbFile

        notebook = item.parent
        if not isinstance(notebook, IPyNbFile) or notebook in self.started:
            return
        if self.memory is None:
            self.memory = PeakMemory().__enter__()
        self.memory.reset()  # the previous notebook's kernel has stopped by now
        self.started[notebook] = time.perf_counter()

    def finish(self, notebook) -> NotebookRun:
        peak = self.memory.peak_bytes if self.memory else 0
        run = NotebookRun(Path(str(notebook.path)).name, time.perf_counter() - self.started[notebook], peak,
                          commands=dict(self.memory.commands) if self.memory else {})
        self.runs.append(run)
        return run

    def pytest_terminal_summary(self, terminalreporter):
        if self.memory is not None:
            self.memory.__exit__(None, None, None)
        if self.runs:
            terminalreporter.write_sep("-", "each notebook run twice in one kernel (tools/nbval_twice.py)")
            folders = {Path(str(notebook.path)).parent for notebook in self.started}
            every = {path.name for folder in folders for path in folder.glob("*.ipynb")}
            terminalreporter.write_line(table(self.runs, runs=2, whole_course=every <= {r.name for r in self.runs}))
