"""The exercise framework itself: results, hints, errors into sentences, predictions, functions as answers."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import FunctionQuestion, PredictQuestion, Question, describe_difference, fail


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


def test_hints_say_when_they_run_out_and_hint_1_goes_back():
    q = Question("demo", _checker, hints=["think", "harder"], solution="answer = 42")
    first, second = str(q.hint()), str(q.hint())
    assert "think" in first and "1/2" in first
    assert "harder" in second and "2/2" in second and "This is the last hint" in second
    past = str(q.hint())
    assert "harder" in past and "That was the last hint: hint(1) shows the first again" in past
    assert "think" in str(q.hint(1)) and "harder" in str(q.hint())
    for bad in (0, 3, "2", 1.0, True):
        with pytest.raises(ValueError, match="hint\\(n\\) with a whole number n from 1 to 2"):
            q.hint(bad)
    assert "No hints" in str(Question("none", _checker, hints=[], solution="answer = 42").hint())
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
    assert len(message) < 400 and "cut short: 100002 characters" in message
    assert "ch.)" not in message


def test_a_long_list_is_cut_between_items_and_says_how_many_it_holds():
    from tutor.checks._core import shorten

    assert shorten(list(range(10, 50)), 60) == "[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, …] (40 items)"
    assert shorten((1, 2), 60) == "(1, 2)"


# ------------------------------------------------------------------ answers that are functions, or functions by mistake
def test_a_function_passed_where_a_value_is_expected_is_named():
    def make():
        return tf.data.Dataset.range(3)

    q = Question("values", lambda a: "ok", hints=["h"], solution="answer = 1")
    result = q.check(make)
    assert not result.passed and "you passed the function make itself, without calling it" in result.message
    assert "make(...)" in result.message
    assert "without calling it" in q.check(lambda: 3).message


def test_an_error_about_a_function_object_becomes_that_sentence():
    def checker(answer):
        return tf.data.Dataset.range(8).batch(answer.batch_size_fn)  # a method passed, not called

    class Context:
        def batch_size_fn(self, n):
            return n

    q = Question("uncalled", checker, hints=["h"], solution="answer = 1")
    result = q.check(Context())
    assert not result.passed and "a function was used where its result was expected" in result.message, result


def test_a_function_question_calls_the_function_and_names_what_went_wrong():
    def checker(answer):
        ds = q.dataset_of(answer)
        return f"{len(list(ds))} elements."

    q = FunctionQuestion("fn", checker, hints=["h"], solution="answer = lambda source: source", name="pipeline",
                         source=lambda: tf.data.Dataset.range(4))
    assert q.check(lambda source: source.take(2)).message == "fn: 2 elements."
    assert q.check(lambda source: ...).status == "unattempted"
    assert "pass your function itself" in q.check(tf.data.Dataset.range(4)).message
    assert "pipeline must take one argument, `source`" in q.check(lambda: tf.data.Dataset.range(4)).message
    assert "forget the `return`" in q.check(lambda source: None).message
    assert "you passed the function" in q.check(lambda source: source.batch).message


# ------------------------------------------------------------------ resources that are gone
def test_a_deleted_file_or_a_stopped_service_asks_to_run_the_setup_again(tmp_path):
    path = tmp_path / "data.txt"
    path.write_text("1\n2\n")
    ds = tf.data.TextLineDataset(str(path))
    path.unlink()

    def checker(answer):
        list(answer)
        return "ok"

    q = Question("files", checker, hints=["h"], solution="answer = 1")
    result = q.check(ds)
    assert not result.passed and "not there (any more)" in result.message and "setup cells again" in result.message

    def stopped(answer):
        raise RuntimeError("LocalService is stopped; call .start() first.")

    result = Question("service", stopped, hints=["h"], solution="answer = 1").check(1)
    assert "has been stopped" in result.message and "setup cells again" in result.message


def test_a_solution_that_cannot_be_computed_says_so_instead_of_raising():
    def broken():
        fail("this question needs the setup cell.")

    q = PredictQuestion("needs setup", broken, ask="anything")
    text = str(q.solution())
    assert "could not be computed here: this question needs the setup cell." in text


# ------------------------------------------------------------------ predictions
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
    assert "5 is not in it" in message and "1 item of the answer is missing" in message and "2" not in message
    assert "different order" in SECOND.check([4, 3, 2]).message
    assert "window 1 differs" in ALL.check([[0, 1, 2], [2, 3, 5], [4, 5, 6], [6, 7, 8]]).message
    assert "you predicted 3 windows; the pipeline gives 4" in ALL.check([[0, 1, 2], [2, 3, 4], [4, 5, 6]]).message
    assert "a list of 3 items" in SECOND.check(2).message
    flat = ALL.check([0, 1, 2, 2, 3, 4]).message
    assert "a flat list" in flat and "group it into windows" in flat and "you predicted 6 windows" not in flat


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
    assert describe_difference([1, 1, 2], [1, 2, 2]) == \
        "1 is not in it (or not that often); 1 item of the answer is missing."
    assert describe_difference([0, 1], [0, 1, 2]) == "1 item of the answer is missing."


def test_missing_items_are_counted_not_listed_so_the_answer_stays_hidden():
    few = describe_difference([0], [0, 1, 2])
    assert few == "2 items of the answer are missing." and "1" not in few.replace("items", "")
    many = describe_difference([0], list(range(10)))
    assert many == "9 items of the answer are missing, such as 1."
    extra = describe_difference(list(range(50)), list(range(10)))
    assert extra.startswith("40 of your items, such as 10, 11, 12, are not in it") and "ch.)" not in extra


@pytest.mark.parametrize("written", [range(2, 5), {2: "a", 3: "b", 4: "c"}.keys(), (x for x in (2, 3, 4)),
                                     np.arange(2, 5), tf.range(2, 5), iter([2, 3, 4])],
                         ids=["range", "dict_keys", "generator", "ndarray", "tensor", "iterator"])
def test_a_prediction_written_as_any_iterable_of_ints_reads_like_a_list(written):
    result = SECOND.check(written)
    assert result.passed, result.message
    assert "you predicted range" not in result.message


def test_a_range_for_a_set_prediction_and_for_batches_reads_like_a_list():
    from tutor.checks import SetPrediction

    firsts = SetPrediction("firsts", lambda: tf.data.Dataset.range(10), ask="every id")
    assert firsts.check(range(10)).passed and firsts.check({}.fromkeys(range(10)).keys()).passed
    assert firsts.check(i for i in reversed(range(10))).passed
    refused = firsts.check(range(11)).message
    assert "10 is not in it" in refused and "range(0, 11)" not in refused
    assert ALL.check([range(0, 3), range(2, 5), range(4, 7), range(6, 9)]).passed


def test_an_endless_generator_as_a_prediction_gets_a_sentence():
    import itertools

    message = SECOND.check(itertools.count()).message
    assert "more than 10,000 items" in message


def test_the_solution_assigns_the_name_the_lessons_cell_checks():
    from tutor.checks import lesson02, lesson03, lesson07, lesson10

    assert lesson10.q1.solution_code.startswith("spec_answer = {")
    assert isinstance(lesson10.q1.solution_answer(), dict)
    assert "\nprediction = [" in lesson02.predict_sizes.solution_code and "answer =" not in lesson02.predict_sizes.solution_code
    assert "\nprediction = [" in lesson03.predict_first.solution_code
    assert "answer =" not in lesson07.q1.solution_code and callable(lesson07.q1.solution_answer())
