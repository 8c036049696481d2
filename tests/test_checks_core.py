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
    assert not result.passed and "raised" in result.message
