"""The predict-then-run question type: it runs the real pipeline and says what differs."""
import tensorflow as tf

from tutor.checks import PredictQuestion, describe_difference


def windows():
    return tf.data.Dataset.range(10).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))


SECOND = PredictQuestion("the second window", windows, truth=lambda ws: ws[1], ask="the ids in the second window",
                         code="tf.data.Dataset.range(10).window(3, shift=2, drop_remainder=True)", row="window")
ALL = PredictQuestion("every window", windows, ask="every window, as a list of lists", row="window")


def test_a_right_prediction_passes_in_any_plain_form():
    assert SECOND.check([2, 3, 4]).passed
    assert SECOND.check((2, 3, 4)).passed
    import numpy as np

    assert SECOND.check(np.array([2, 3, 4])).passed


def test_a_wrong_prediction_says_what_differs():
    message = SECOND.check([3, 4, 5]).message
    assert "5 is not in it" in message and "2 is missing" in message
    assert "different order" in SECOND.check([4, 3, 2]).message
    assert "window 1 differs" in ALL.check([[0, 1, 2], [2, 3, 5], [4, 5, 6], [6, 7, 8]]).message
    assert "you predicted 3 windows; the pipeline gives 4" in ALL.check([[0, 1, 2], [2, 3, 4], [4, 5, 6]]).message
    assert "a list of 3 items" in SECOND.check(2).message


def test_the_solution_comes_from_the_real_pipeline():
    assert "answer = [2, 3, 4]" in SECOND.solution_code
    assert SECOND.check(SECOND.solution_answer()).passed
    assert ALL.solution_answer() == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8]]


def test_a_pipeline_instead_of_a_prediction_is_refused():
    assert "not a pipeline" in SECOND.check(windows()).message
    assert SECOND.check(...).status == "unattempted"


def test_describe_difference_on_numbers_and_strings():
    assert describe_difference(3, 3) is None
    assert describe_difference("b", "a") == "you predicted 'b'; the pipeline gives 'a'."
    assert describe_difference([1, 1, 2], [1, 2, 2]) == "1 is not in it (or not that often); 2 is missing."
    assert describe_difference([0, 1], [0, 1, 2]) == "2 is missing."
