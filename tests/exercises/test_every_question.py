"""One test over every question of every lesson: found automatically, as the Display contract test finds every
Display. A lesson's own test file (test_lessonNN.py) then keeps only its right answers and mistakes.

For each question: the solution passes; ``...`` is "not attempted"; ``None`` is "not yet" with a sentence; hints
and the solution render as text and as HTML, and ``solution()`` never raises; asking past the last hint says so
and ``hint(1)`` goes back; every bad input of the shared list gets a short sentence with no raw exception text.
"""
import importlib
import pkgutil
import re

import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tutor.checks
from tutor.checks import questions_in

from .checking import LONGEST_MESSAGE, assert_refused, bad_inputs


def _lesson_modules():
    names = sorted(m.name for m in pkgutil.iter_modules(tutor.checks.__path__) if re.fullmatch(r"lesson\d\d", m.name))
    return [importlib.import_module(f"tutor.checks.{name}") for name in names]


def _questions():
    found = []
    for module in _lesson_modules():
        for name, value in questions_in(module).items():
            found.append(pytest.param(value, id=f"{module.__name__.rsplit('.', 1)[1]}.{name}"))
    return found


QUESTIONS = _questions()

#: Questions whose solution needs what only a notebook's setup cell can give, and the test that runs it there.
SOLVED_ELSEWHERE = {
    # q2 runs two replicas on two logical CPUs, which must be made before TensorFlow starts its first op
    "lesson11.q2": "tests/facts/test_lesson11.py (q2_solution, in a process with two logical CPUs)",
}


@pytest.fixture(autouse=True)
def _no_service_left_running():
    """Lesson 13's solutions start a tf.data service; stop every one after each test."""
    yield
    from tutor.service import stop_all

    stop_all()


def test_every_lesson_module_is_found():
    found = {p.id.split(".")[0] for p in QUESTIONS}
    assert {"lesson00", "lesson03", "lesson07", "lesson13"} <= found
    assert len(QUESTIONS) >= 40


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_solution_passes(question, request):
    qid = request.node.callspec.id
    result = question.check(question.solution_answer()) if qid not in SOLVED_ELSEWHERE else None
    if result is None:
        result = question.check([0])  # where the setup is missing, the check says how to get it, in a sentence
        assert_refused(result)
        return
    assert result.passed, str(result)
    assert len(result.message) <= LONGEST_MESSAGE, result.message


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_placeholder_is_not_attempted_and_none_is_not_yet(question):
    assert question.check(...).status == "unattempted"
    result = assert_refused(question.check(None), "None")
    assert result.message.rstrip().endswith(".")


@pytest.mark.parametrize("question", QUESTIONS)
def test_hints_and_solution_render_as_text_and_html(question):
    assert question.hints, f"{question.title} has no hints"
    for shown in (question.hint(1), question.solution()):
        assert str(shown).strip() and shown._repr_html_().strip()
    solution = str(question.solution())
    assert "could not be computed here" in solution or re.search(rf"^\s*(def )?{question.answer_name}\b", solution, re.M), \
        f"the solution should define {question.answer_name}, the name the lesson's cell checks: {solution}"


@pytest.mark.parametrize("question", QUESTIONS)
def test_asking_past_the_last_hint_says_so_and_hint_1_goes_back(question):
    total = len(question.hints)
    shown = [str(question.hint(k)) for k in range(1, total + 1)]
    assert f"{total}/{total}" in shown[-1]
    assert "last hint" in str(question.hint())
    assert question.hints[0] in str(question.hint(1))
    if total > 1:
        assert question.hints[1] in str(question.hint())
    with pytest.raises(ValueError, match="whole number"):
        question.hint(total + 1)


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("name, answer", bad_inputs(), ids=[n for n, _ in bad_inputs()])
def test_bad_input_gets_a_short_sentence(question, name, answer, short_deadline):
    result = assert_refused(question.check(answer))
    assert len(result.message) <= LONGEST_MESSAGE, result.message
