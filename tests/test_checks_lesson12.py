"""Tests for the lesson 12 exercises."""
import tensorflow as tf

import tutor
from tutor.checks import lesson12 as ex


def test_q1_solution_passes_and_slow_pipeline_fails():
    assert ex.q1.check(...).status == "unattempted"
    good = ex.q1.check(ex.q1.solution_answer())
    assert good.passed, good.message
    images, labels = ex.exercise_digits()
    slow = ex.q1.check(ex.slow_pipeline(images, labels))
    assert not slow.passed, slow.message
    assert "wait for input" in slow.message or "py_function" in slow.message


def test_q1_frozen_augmentation_and_wrong_shapes_fail():
    images, labels = ex.exercise_digits(128)
    frozen = (tf.data.Dataset.from_tensor_slices((images, labels)).batch(64)
              .map(tutor.augment.rotate_batch).cache().prefetch(2))
    result = ex.q1.check(frozen)
    assert not result.passed and "frozen" in result.message
    assert "element_spec" in ex.q1.check(tf.data.Dataset.range(4)).message


def test_q2_solution_passes_and_reshuffled_split_fails():
    assert ex.q2.check(ex.q2.solution_answer()).passed
    ds = ex.id_dataset().shuffle(500, seed=0)
    result = ex.q2.check((ds.skip(100), ds.take(100)))
    assert not result.passed and "LEAKAGE" in result.message
    fixed = ex.id_dataset().shuffle(500, seed=0, reshuffle_each_iteration=False)
    assert ex.q2.check((fixed.skip(100), fixed.take(100))).passed


def test_q2_other_wrong_answers():
    ds = ex.id_dataset()
    assert "pair" in ex.q2.check(ds).message
    assert "'id'" in ex.q2.check((ds.map(lambda e: e["image"]), ds.take(5))).message
    assert "together hold" in ex.q2.check((ds.skip(100).take(50), ds.take(100))).message
    assert "both must hold" in ex.q2.check((ds, ds.take(0))).message
