"""A learner who runs a lesson to the end and then does the exercises still gets a verdict, not a traceback.

Lessons 11 and 13 hold data folders and a tf.data service that their last
cells used to delete and stop. Here each lesson runs to the end in JupyterLab
(Restart & Run All), then every exercise is answered with its solution in the
same kernel, as a learner going back up would: each must say "Correct".
"""
from __future__ import annotations

import json

import pytest

from tools.browser import harness

LESSONS = {"11_real_sources": "lesson11", "13_scaling_out": "lesson13"}

#: Runs in the lesson's kernel after Restart & Run All: every question's solution, then its check.
CHECK_ALL = """
import importlib as _importlib, textwrap as _textwrap
_module = _importlib.import_module("tutor.checks.{module}")
_verdicts = {{}}
for _name in sorted(n for n in dir(_module) if n[:1] == "q" and n[1:].isdigit()):
    _question = getattr(_module, _name)
    try:
        exec(_textwrap.dedent(_question.solution_code), globals())
        _result = _question.check(answer)
        _verdicts[_name] = [_result.status, _result.message]
    except Exception as _exc:  # a raw exception is what this test exists to catch
        _verdicts[_name] = ["raised", f"{{type(_exc).__name__}}: {{_exc}}"]
print("VERDICTS " + __import__("json").dumps(_verdicts))
"""

_EXECUTE_JS = """async (code) => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    const future = kernel.requestExecute({code, stop_on_error: false});
    const texts = [];
    future.onIOPub = (msg) => {
        if (msg.header.msg_type === 'stream') texts.push(msg.content.text);
        if (msg.header.msg_type === 'error') texts.push(msg.content.ename + ': ' + msg.content.evalue);
    };
    await future.done;
    return texts.join('');
}"""


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_every_exercise_still_checks_after_the_lesson_ran_to_the_end(lesson, lab_server, page):
    if not (harness.notebooks_dir() / f"{lesson}.ipynb").exists():
        pytest.skip(f"notebooks/{lesson}.ipynb does not exist")
    harness.run_lesson(page, lab_server, lesson)
    out = page.evaluate(_EXECUTE_JS, CHECK_ALL.format(module=LESSONS[lesson]))
    line = next((line for line in out.splitlines() if line.startswith("VERDICTS ")), None)
    assert line, f"{lesson}: the checking cell printed no verdicts:\n{out[-2000:]}"
    verdicts = json.loads(line[len("VERDICTS "):])
    assert verdicts, f"{lesson}: no questions found"
    wrong = {name: v for name, v in verdicts.items() if v[0] != "correct"}
    assert not wrong, f"{lesson}: after Run All, these solutions were not accepted: {wrong}"
