"""Lesson 13 exercises: right answers pass, typical mistakes and bad input get a message that names the fault."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import lesson13 as ex
from .checking import assert_refused
from tutor.service import LocalService, stop_all

R = tf.data.Dataset.range
S = tf.data.Dataset.from_tensor_slices
POLICY = tf.data.experimental.service.ShardingPolicy
QUESTIONS = [ex.q1, ex.q2, ex.q3]


@pytest.fixture(scope="module")
def service():
    with LocalService(2, name="test-lesson13") as svc:
        yield svc
    stop_all()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    squares, plain = str(tmp_path_factory.mktemp("squares")), str(tmp_path_factory.mktemp("plain"))
    R(20).map(lambda x: x * x).save(squares)
    R(20).save(plain)
    return squares, plain


def distribute(ds, service, mode="distributed_epoch"):
    return ds.apply(tf.data.experimental.service.distribute(mode, service.target))


def tf_sqrt(x):
    return tf.sqrt(tf.cast(x, tf.float64))


# ------------------------------------------------------------------ q1
@pytest.mark.parametrize("answer", ["distributed_epoch", "Distributed_epoch", "  DISTRIBUTED_EPOCH ",
                                    "distributed epoch", "dynamic", POLICY.DYNAMIC])


def test_q1_other_right_answers_pass(answer):
    result = ex.q1.check(answer)
    assert result.passed, str(result)
    assert "at most once" in result.message
    assert "lesson13-check" not in LocalService._running  # the checker stopped its service


@pytest.mark.parametrize("answer, fragment", [
    ("parallel_epochs", "arrived 2 times"),
    ("Parallel_Epochs", "arrived 2 times"),
    ("OFF", "arrived 2 times"),
    (POLICY.OFF, "arrived 2 times"),
    ("DATA", "static sharding policy"),
    (POLICY.FILE_OR_DATA, "static sharding policy"),
    ("exactly_once", "not one of the choices"),
    ("every_epoch", "not one of the choices"),
    (2, "in quotes"),
    (["distributed_epoch"], "in quotes"),
])


def test_q1_mistakes_are_named(answer, fragment):
    assert_refused(ex.q1.check(answer), fragment)


# ------------------------------------------------------------------ q2
def test_q2_other_right_answers_pass(saved):
    squares, _ = saved
    for answer in (tf.data.Dataset.load(squares), tf.data.Dataset.load(squares).prefetch(2),
                   tf.data.Dataset.load(squares, element_spec=tf.TensorSpec([], tf.int64)),
                   tf.data.Dataset.load(squares).cache(), tf.data.Dataset.load(squares).snapshot(squares + "-s")):
        result = ex.q2.check(answer)
        assert result.passed, str(result)


@pytest.mark.parametrize("build, fragment", [
    (lambda s, p: R(20).map(lambda x: x * x), "not with saved data"),
    (lambda s, p: R(20).map(lambda x: x * x).cache(), "cache() in memory keeps elements only while this program"),
    # a file cache does keep its elements between runs: it is refused for the map it keeps, not for forgetting
    (lambda s, p: R(20).map(lambda x: x * x).cache(s + "-cache"), "caches to a file"),
    (lambda s, p: R(20).map(lambda x: x * x).snapshot(s + "-snap"), "snapshot() also computes once"),
    (lambda s, p: tf.data.Dataset.load(p).snapshot(s + "-snap2"), "you saved range(20) before the map"),
    (lambda s, p: tf.data.Dataset.load(p), "you saved range(20) before the map"),
    (lambda s, p: tf.data.Dataset.load(p).map(lambda x: x * x), "still runs map"),
    (lambda s, p: tf.data.Dataset.load(s).take(5), "expected the 20 squares"),
    (lambda s, p: tf.data.Dataset.load(s).repeat(), "never ends"),
    (lambda s, p: s, "is the folder"),
])


def test_q2_mistakes_are_named(saved, build, fragment):
    assert_refused(ex.q2.check(build(*saved)), fragment)


def test_q2_a_file_cache_is_never_called_in_memory(saved):
    squares, _ = saved
    result = assert_refused(ex.q2.check(R(20).map(lambda x: x * x).cache(squares + "-cache2")), "reads its files back")
    assert "only while this program runs" not in result.message


def test_q3_a_stopped_service_asks_to_run_the_setup_again():
    svc = LocalService(2, name="test-lesson13-stopped")
    answer = distribute(R(100).map(tf_sqrt), svc)
    svc.stop()
    assert_refused(ex.q3.check(answer), "not running any more", "setup cells again")


def test_q2_a_snapshot_answer_is_told_what_snapshot_keeps(saved):
    squares, _ = saved
    assert_refused(ex.q2.check(R(20).map(lambda x: x * x).snapshot(squares + "-snap3")), "not save and load",
                   "keeps map(", "Dataset.load(saved_q2)")


def test_q2_right_shape_but_silent(saved, short_deadline):
    squares, _ = saved
    assert_refused(ex.q2.check(tf.data.Dataset.load(squares).repeat().filter(lambda x: x < 0)), "produced no element")


# ------------------------------------------------------------------ q3
def test_q3_other_right_answers_pass(service):
    answers = [
        distribute(R(100).map(tf_sqrt), service),
        distribute(R(100).map(lambda x: tf.sqrt(tf.cast(x, tf.float32))), service),
        distribute(R(100), service).map(tf_sqrt),  # the work after distribute runs in the trainer
        distribute(R(100).map(tf_sqrt, num_parallel_calls=tf.data.AUTOTUNE), service, POLICY.DYNAMIC).prefetch(2),
    ]
    for answer in answers:
        result = ex.q3.check(answer)
        assert result.passed, str(result)
    # Python after distribute runs in the trainer, not on the workers: allowed
    after = distribute(R(100), service).map(lambda x: tf.numpy_function(np.sqrt, [x], tf.float64))
    assert ex.q3.check(after).passed


def test_q3_mistakes_are_named(service):
    cases = [
        (distribute(ex.python_sqrt(), service), "still runs Python"),
        (distribute(R(100).map(lambda x: tf.py_function(np.sqrt, [x], tf.float64)), service), "still runs Python"),
        (distribute(tf.data.Dataset.from_generator(lambda: iter(np.sqrt(np.arange(100))),
                                                   output_signature=tf.TensorSpec([], tf.float64)), service),
         "still runs Python"),
        (R(100).map(tf_sqrt), "not sent to the service"),
        (distribute(R(100).map(tf_sqrt), service, "parallel_epochs"), "parallel_epochs"),
        (distribute(R(100).map(lambda x: tf.cast(x, tf.float64) ** 2), service), "not the square roots"),
        (distribute(R(50).map(tf_sqrt), service), "50 elements arrived"),
        (distribute(R(100), service), "a single float"),
    ]
    for answer, fragment in cases:
        assert_refused(ex.q3.check(answer), fragment)


def test_q3_endless_silent_or_failing(service, short_deadline):
    assert_refused(ex.q3.check(distribute(R(100).map(tf_sqrt).repeat(), service)), "never ends")
    assert_refused(ex.q3.check(distribute(R(100).map(tf_sqrt), service).repeat()), "repeat()")
    # never sent to the service: a worker that runs a pipeline which yields nothing cannot be stopped
    silent = distribute(R(100).map(tf_sqrt).repeat().filter(lambda x: x < 0), service)
    assert_refused(ex.q3.check(silent), "stage 4: filter", "does not run it")
    assert_refused(ex.q3.check(distribute(R(100).map(tf_sqrt), service).repeat().filter(lambda x: x < 0)),
                   "produced no element")
    def fail_inside(x):
        with tf.control_dependencies([tf.debugging.assert_negative(x)]):
            return tf_sqrt(x)

    assert_refused(ex.q3.check(distribute(R(100).map(fail_inside), service)))


# ------------------------------------------------------------------ bad input
def test_a_huge_answer_is_not_echoed_in_full():
    result = ex.q1.check("x" * 100_000)
    assert result.status == "not yet" and len(result.message) < 400
