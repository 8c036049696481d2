"""Lesson 07 exercises: solutions pass, typical mistakes fail with a message that teaches."""
import tensorflow as tf

from tutor.checks import lesson07 as ex


def test_unattempted():
    for q in (ex.q1, ex.q2, ex.q4):
        assert q.check(...).status == "unattempted"


def test_q1_solution_passes_and_reports_the_ratio():
    result = ex.q1.check(ex.q1.solution_answer())
    assert result.passed, result.message
    assert "faster" in result.message


def test_q1_slow_order_fails_with_the_measured_ratio():
    result = ex.q1.check(ex.slow_pipeline)
    assert not result.passed
    assert "2x needed" in result.message and "36 times" in result.message


def test_q1_frozen_augmentation_fails():
    frozen = lambda s: s.map(ex.decode).map(ex.augment).cache().repeat(3).batch(4)
    result = ex.q1.check(frozen)
    assert not result.passed and "frozen" in result.message


def test_q1_wrong_types():
    assert "function" in ex.q1.check(tf.data.Dataset.range(3)).message
    endless = lambda s: s.map(ex.decode).cache().repeat().map(ex.augment).batch(4)
    assert "never ends" in ex.q1.check(endless).message
    assert "batch" in ex.q1.check(lambda s: s.map(ex.decode).cache().repeat(3)).message


def test_q2_and_q4_choices():
    assert ex.q2.check(ex.q2.solution_answer()).passed
    assert ex.q4.check(ex.q4.solution_answer()).passed
    assert ex.q2.check(" A ").passed
    wrong = ex.q2.check("c")
    assert not wrong.passed and "buffer" in wrong.message
    assert not ex.q4.check("a").passed and "not the bottleneck" in ex.q4.check("a").message
    assert "one letter" in ex.q2.check("z").message
    assert "one letter" in ex.q2.check(3).message


def test_q2_and_q4_pipelines_show_what_the_answers_say():
    from tutor import timeline as T

    input_bound = T.record(ex.q2_pipeline(), steps=8, step_time=0.01)
    compute_bound = T.record(ex.q4_pipeline(), steps=8, step_time=0.04)
    assert input_bound.consumer_wait_fraction > 0.4
    assert input_bound.stage_busy_fraction["map"] > 0.8
    assert compute_bound.consumer_wait_fraction < 0.2
    assert compute_bound.stage_busy_fraction["map"] < 0.5


def test_a_function_still_returning_the_placeholder_is_not_attempted():
    def fast_pipeline(source):
        return ...

    assert ex.q1.check(fast_pipeline).status == "unattempted"
