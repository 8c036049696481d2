"""Lesson 07 exercises: solutions and other right answers pass; typical mistakes and bad input get a message
that names the fault, never raw exception text, never a hang, and never a verdict decided by a clock."""
import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor.checks import lesson07 as ex
from .checking import boom, passes, refused


def raising_map(source):
    """Every stage of the exercise in place, plus a map whose Python code raises while the dataset is read."""
    broken = source.map(ex.decode).cache().repeat(3).map(ex.augment)
    return broken.map(lambda x: tf.ensure_shape(tf.py_function(boom, [x], tf.float32), [])).batch(4)


#: Bad input for a function question: the value itself, and a function that returns it.
BAD_VALUES = {
    "a list": [1, 2, 3],
    "None": None,
    "a string": "source.map(ex.decode).cache().repeat(3).map(ex.augment).batch(4)",
    "an endless dataset": tf.data.Dataset.range(12).map(ex.decode).cache().repeat().map(ex.augment).batch(4),
    "a dataset that never yields": tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0),
    "a dataset of strings": tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]).batch(4),
}
BAD_FUNCTIONS = {
    "returns a list": lambda s: [1, 2, 3],
    "returns None": lambda s: None,
    "returns a string": lambda s: "s.map(ex.decode)",
    "returns an endless dataset": lambda s: s.map(ex.decode).cache().repeat().map(ex.augment).batch(4),
    "returns a dataset that never yields": lambda s: s.map(ex.decode).cache().repeat().map(ex.augment).filter(
        lambda x: x < 0).batch(4),
    "returns a dataset of strings": lambda s: s.map(lambda x: tf.strings.as_string(x)).batch(4),
    "has a map that raises": raising_map,
    "raises itself": lambda s: s.mapp(ex.decode),
}


# --------------------------------------------------------------------------- q1
def test_q1_solution_passes_and_shows_the_time_only_as_information():
    result = passes(ex.q1, ex.q1.solution_answer())
    assert "decode ran 12 times instead of 36" in result.message
    assert "For information" in result.message and "the count does not" in result.message
    assert ex.q1.check(...).status == "unattempted"
    assert len(ex.q1.hints) >= 2


@pytest.mark.parametrize("answer", [
    lambda s: s.map(ex.decode).cache().map(ex.augment).repeat(3).batch(4),
    lambda s: s.map(ex.decode, num_parallel_calls=2).cache().repeat(3).map(ex.augment, num_parallel_calls=2).batch(
        4).prefetch(1),
    lambda s: s.map(ex.decode).cache().repeat(3).map(lambda x: ex.augment(x)).batch(4, drop_remainder=True),
    lambda s: s.map(ex.decode).cache().repeat(3).map(ex.augment).batch(4).prefetch(tf.data.AUTOTUNE),
], ids=["augment-before-repeat", "parallel-maps-and-prefetch", "lambda-and-drop-remainder", "autotune-prefetch"])


def test_q1_other_right_answers_pass(answer):
    passes(ex.q1, answer)


def test_q1_verdict_counts_decodes_and_does_not_time_anything(monkeypatch):
    # Even when the clock says the answer is far slower than the slow order, the count decides.
    times = iter([9.0, 0.1])
    monkeypatch.setattr(ex, "seconds", lambda make: next(times))
    result = passes(ex.q1, ex.q1.solution_answer())
    assert "9.00 s in your order and 0.10 s in the slow order" in result.message


@pytest.mark.parametrize("answer, words", [
    (ex.slow_pipeline, ["decode ran 36 times", "repeat(3) comes before cache()"]),
    (lambda s: s.map(ex.decode).repeat(3).cache().map(ex.augment).batch(4), ["repeat(3) comes before cache()"]),
    (lambda s: s.map(ex.decode).repeat(3).map(ex.augment).batch(4), ["decode ran 36 times", "without cache()"]),
    (lambda s: s.cache().map(ex.decode).repeat(3).map(ex.augment).batch(4), ["cache() comes before map(ex.decode)"]),
    (lambda s: s.map(ex.decode).map(ex.augment).cache().repeat(3).batch(4), ["frozen", "before cache()"]),
    (lambda s: s.map(ex.decode).cache().repeat(3).batch(4), ["map(ex.augment) is missing"]),
    (lambda s: s.map(ex.decode).cache().repeat(3).batch(4).map(ex.augment), ["after batch", "ONE random number"]),
    (lambda s: s.map(ex.decode).cache().map(ex.augment).batch(4), ["expected 36 values", "no repeat(3)"]),
    (lambda s: s.map(ex.decode).cache().repeat(3).map(ex.augment), ["batch(4)"]),
    (lambda s: s.map(ex.decode).cache().repeat(3).map(ex.augment).batch(3), ["use batch(4)"]),
    (lambda s: s.map(lambda x: tf.cast(x, tf.float32) * 10).cache().repeat(3).map(ex.augment).batch(4),
     ["no map(ex.decode)"]),
], ids=["slow-order", "cache-after-repeat", "no-cache", "cache-before-decode", "frozen", "no-augment",
        "augment-after-batch", "no-repeat", "no-batch", "batch-3", "no-decode"])


def test_q1_typical_mistakes_name_their_fault(answer, words):
    refused(ex.q1, answer, *words)


def test_q1_frozen_is_said_only_when_the_augmentation_is_there():
    missing = refused(ex.q1, lambda s: s.map(ex.decode).cache().repeat(3).batch(4), "missing")
    assert "frozen" not in missing.message


@pytest.mark.parametrize("name", list(BAD_VALUES))
def test_q1_bad_values_get_a_message(name, short_deadline):
    refused(ex.q1, BAD_VALUES[name])


@pytest.mark.parametrize("name", list(BAD_FUNCTIONS))
def test_q1_functions_returning_bad_values_get_a_message(name, short_deadline):
    refused(ex.q1, BAD_FUNCTIONS[name])


def test_q1_messages_for_bad_input_say_what_to_do(short_deadline):
    assert "without calling it" in ex.q1.check(ex.slow_pipeline(ex.exercise_source())).message
    assert "forget the `return`" in ex.q1.check(lambda s: None).message
    assert "never ends" in ex.q1.check(BAD_FUNCTIONS["returns an endless dataset"]).message
    assert "produced no element" in ex.q1.check(BAD_FUNCTIONS["returns a dataset that never yields"]).message
    assert "no map(ex.decode)" in ex.q1.check(BAD_FUNCTIONS["returns a dataset of strings"]).message
    raised = ex.q1.check(raising_map)
    assert raised.details and "boom" in raised.details  # the original is kept in the collapsed detail


@pytest.mark.parametrize("answer, words", [
    (lambda s: s.map(ex.decode).cache().repeat(3).map(ex.augment).batch, ["you passed the function", "batch"]),
    (lambda s: s.map(ex.decode).cache().repeat(3).map(ex.augment()).batch(4),
     ["a function was used where its result was expected"]),
    (lambda: ex.slow_pipeline(ex.exercise_source()), ["fast_pipeline must take one argument, `source`"]),
], ids=["method-not-called", "augment-called-without-argument", "no-source-argument"])
def test_q1_a_function_not_called_is_named(answer, words):
    refused(ex.q1, answer, *words)


def test_a_function_still_returning_the_placeholder_is_not_attempted():
    def fast_pipeline(source):
        return ...

    assert ex.q1.check(fast_pipeline).status == "unattempted"


# --------------------------------------------------------------------------- q2 and q3
@pytest.mark.parametrize("q, right", [(ex.q2, "a"), (ex.q3, "b")], ids=["q2", "q3"])
def test_letter_questions_accept_the_answer_in_any_case_and_spacing(q, right):
    passes(q, q.solution_answer())
    for spelling in (right.upper(), f"  {right} ", f"\t{right.upper()}\n"):
        passes(q, spelling)
    assert q.check(...).status == "unattempted"


@pytest.mark.parametrize("q, wrong, words", [
    (ex.q2, "b", ["grey", "not"]), (ex.q2, "c", ["buffer", "slower on average"]), (ex.q2, "d", ["grey", "waits"]),
    (ex.q2, "B ", ["grey"]),
    (ex.q3, "a", ["gaps", "not the bottleneck"]), (ex.q3, "c", ["bigger buffer"]), (ex.q3, "d", ["first element"]),
    (ex.q3, " A", ["gaps"]),
])


def test_letter_questions_explain_each_wrong_choice(q, wrong, words):
    refused(q, wrong, *words)


@pytest.mark.parametrize("q", [ex.q2, ex.q3], ids=["q2", "q3"])
@pytest.mark.parametrize("bad", [["a"], None, "z", "ab", 3, tf.data.Dataset.range(3), "x" * 100_000],
                         ids=["list", "None", "other-letter", "two-letters", "number", "dataset", "huge-text"])


def test_letter_questions_answer_bad_input_with_the_choices(q, bad):
    result = refused(q, bad)
    assert len(result.message) < 400
    if bad is not None:
        assert "'a'" in result.message and "'d'" in result.message


def _who_waited(tl):
    """Per consumer step after the first: did the consumer ask before the Map call that served it had finished?"""
    work = tl.stage_events("Map")
    asked = tl.steps["request"]
    waited = []
    for step in range(1, tl.n_steps):
        ends = work["end"][work["step"] == step]
        assert len(ends) == 1, f"step {step} was served by {len(ends)} Map calls"
        waited.append(bool(ends[0] > asked[step]))
    return np.array(waited)


def test_exercise_timelines_show_what_the_answers_say():
    input_bound = tutor.profile(ex.q2_dataset(), steps=12, step_time=0.01)
    compute_bound = tutor.profile(ex.q3_dataset(), steps=12, step_time=0.04)
    assert input_bound.stages == compute_bound.stages == ["Range", "Map", "Prefetch"]
    # Exercise 2: the map (40 ms, one call at a time) is still working when the consumer asks: the consumer waits.
    assert _who_waited(input_bound).mean() > 0.5
    # Exercise 3: the map (10 ms) has the element ready before the consumer asks: the map waits for the consumer.
    assert _who_waited(compute_bound).mean() < 0.5
    for tl in (input_bound, compute_bound):  # one call at a time: a plain map
        work = tl.stage_events("Map")
        order = np.argsort(work["start"])
        assert np.all(work["start"][order][1:] >= work["end"][order][:-1] - 1e-6)
