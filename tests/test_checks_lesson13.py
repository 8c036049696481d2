"""Lesson 13 exercises: the solutions pass, typical wrong answers fail with a useful message."""
import shutil
import tempfile

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import lesson13 as ex
from tutor.service import LocalService


def test_placeholder_is_not_attempted():
    for q in (ex.q1, ex.q2, ex.q3):
        assert q.check(...).status == "unattempted"


def test_q1_exactly_once():
    assert ex.q1.check(ex.q1.solution_answer()).passed
    wrong = ex.q1.check("parallel_epochs")
    assert not wrong.passed and "arrived 2 times" in wrong.message
    assert "not a processing mode" in ex.q1.check("every_epoch").message
    assert "string" in ex.q1.check(2).message
    assert "lesson13-check" not in LocalService._running  # the checker stopped its service


def test_q2_save_and_load():
    answer = ex.q2.solution_answer()
    assert ex.q2.check(answer).passed
    recomputed = ex.q2.check(tf.data.Dataset.range(20).map(lambda x: x * x))
    assert not recomputed.passed and "saved dataset" in recomputed.message
    path = tempfile.mkdtemp()
    try:
        tf.data.Dataset.range(20).save(path)
        wrong = ex.q2.check(tf.data.Dataset.load(path))
        assert not wrong.passed and "squares" in wrong.message
        mapped = ex.q2.check(tf.data.Dataset.load(path).map(lambda x: x * x))
        assert not mapped.passed and "map" in mapped.message
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_q3_doctor_fix():
    assert ex.q3.check(ex.q3.solution_answer()).passed
    broken = ex.q3.check(eval(ex.BROKEN_Q3))
    assert not broken.passed and "stage" in broken.message
    unshuffled = ex.q3.check(tf.data.Dataset.range(1000).batch(32).repeat().prefetch(1))
    assert not unshuffled.passed and "in order" in unshuffled.message
    wrong_batch = ex.q3.check(tf.data.Dataset.range(1000).shuffle(1000).batch(10).repeat().prefetch(1))
    assert not wrong_batch.passed and "batch(32)" in wrong_batch.message
    assert "expected" in ex.q3.check([1, 2]).message
