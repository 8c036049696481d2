import numpy as np
import tensorflow as tf

from tutor.checks import Question, fail


def _checker(answer):
    if answer != 42:
        fail(f"got {answer}, expected the answer to everything")
    return "well done"


Q = Question("demo", _checker, hints=["think", "harder"], solution="answer = 42")


def test_placeholder_is_unattempted():
    result = Q.check(...)
    assert result.status == "unattempted" and not result.passed
    assert "replace the `...`" in str(result)


def test_correct_and_wrong_results_render():
    good, bad = Q.check(42), Q.check(1)
    assert good.passed and bool(good) and str(good).startswith("Correct")
    assert not bad.passed and "got 1" in str(bad) and str(bad).startswith("Not yet")
    assert "Correct" in good._repr_html_() and "#009E73" in good._repr_html_()
    assert "Not yet" in bad._repr_html_()


def test_hints_cycle_and_solution_runs():
    q = Question("demo", _checker, hints=["think", "harder"], solution="answer = 42")
    assert "think" in str(q.hint()) and "harder" in str(q.hint()) and "harder" in str(q.hint())
    assert "answer = 42" in str(q.solution())
    assert q.check(q.solution_answer()).passed


def test_errors_while_reading_an_answer_become_messages():
    def checker(ds):
        list(ds.as_numpy_iterator())
        return "ok"

    q = Question("reads", checker, hints=[], solution="answer = None")
    bad = tf.data.Dataset.from_tensor_slices(["1", "not a number"]).map(tf.strings.to_number)
    result = q.check(bad)
    assert not result.passed and "the function you passed to map() failed" in result.message and "turn text into a number" in result.message
    assert "InvalidArgumentError" in result.details and "https://" not in result.details
    assert "<details" in result._repr_html_() and "InvalidArgumentError" not in result.message


def test_none_is_a_wrong_answer_that_explains_itself():
    result = Q.check(None)
    assert result.status == "not yet" and "`return`" in result.message


def test_a_checker_bug_or_odd_input_never_shows_raw_exception_text():
    def checker(answer):
        return "ok" if np.asarray(answer) == 1 else "no"  # ambiguous for an array

    q = Question("arrays", checker, hints=[], solution="answer = 1")
    result = q.check([1, 2, 3])
    assert not result.passed and "ambiguous" not in result.message and "several values" in result.message
    assert "ambiguous" in result.details


def test_a_dataset_that_never_yields_gets_a_message_not_a_hang():
    from tutor.checks import _read

    def checker(answer):
        _read.elements(_read.dataset(answer), 10, timeout=0.5)
        return "ok"

    q = Question("endless", checker, hints=[], solution="answer = 1")
    result = q.check(tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0))
    assert not result.passed and "produced no element" in result.message


def test_text_and_letter_answers_ignore_case_and_spaces():
    from tutor.checks import _read

    assert _read.text("  Distributed_Epoch \n") == "distributed_epoch"
    assert _read.choice(" B ", ["a", "b", "c"]) == "b"
    q = Question("letter", lambda a: _read.choice(a, ["a", "b"]), hints=[], solution="answer = 'a'")
    assert "is not one of the choices" in q.check("z").message
    assert "in quotes" in q.check(3).message


def test_a_huge_answer_is_not_echoed_in_full():
    from tutor.checks import _read

    q = Question("letter", lambda a: _read.choice(a, ["a", "b"]), hints=[], solution="answer = 'a'")
    message = q.check("x" * 100_000).message
    assert len(message) < 400 and "100002 ch." in message
