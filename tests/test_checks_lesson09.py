"""Lesson 09 exercises: solutions pass, typical mistakes fail with a message that teaches."""
import tensorflow as tf

from tutor.checks import lesson09 as ex


def test_unattempted():
    for q in (ex.q1, ex.q2, ex.q3):
        assert q.check(...).status == "unattempted"


def test_q1_solution_and_mistakes():
    assert ex.q1.check(ex.q1.solution_answer()).passed
    no_shape = tf.data.Dataset.from_generator(
        ex.samples, output_signature=(tf.TensorSpec(None, tf.float32), tf.TensorSpec((), tf.int64)))
    assert "full shape" in ex.q1.check(no_shape).message
    wrong_dtype = tf.data.Dataset.from_generator(
        ex.samples, output_signature=(tf.TensorSpec((8, 8), tf.float64), tf.TensorSpec((), tf.int64)))
    assert "dtypes" in ex.q1.check(wrong_dtype).message
    assert "from_generator" in ex.q1.check([1, 2]).message


def _ids():
    return tf.data.Dataset.from_generator(lambda: iter(range(ex.N_SAMPLES)),
                                          output_signature=tf.TensorSpec((), tf.int64))


def _loaded(parallel):
    return _ids().map(lambda i: tf.py_function(ex.load_sample, [i], [tf.float32, tf.int64]),
                      num_parallel_calls=parallel)


def test_q2_solution_passes():
    result = ex.q2.check(ex.q2.solution_answer())
    assert result.passed, result.message


def test_q2_lost_shape_fails():
    result = ex.q2.check(_loaded(tf.data.AUTOTUNE).batch(4))
    assert not result.passed and "ensure_shape" in result.message


def test_q2_sequential_map_fails():
    fix = lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None]))
    result = ex.q2.check(_loaded(None).batch(4).map(fix))
    assert not result.passed and "num_parallel_calls" in result.message


def test_q2_generator_doing_the_work_fails():
    fix = lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None]))
    plain = tf.data.Dataset.from_generator(ex.samples, output_signature=ex.signature()).batch(4).map(fix)
    assert "at the same time" in ex.q2.check(plain).message


def test_q2_missing_samples_fail():
    fix = lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None]))
    result = ex.q2.check(_loaded(tf.data.AUTOTUNE).take(6).batch(4).map(fix))
    assert not result.passed and "each once" in result.message


def test_q3_choices():
    assert ex.q3.check(ex.q3.solution_answer()).passed
    assert "lanes" in ex.q3.check("b").message
    assert "one letter" in ex.q3.check("e").message


def test_samples_and_signature_agree():
    ds = tf.data.Dataset.from_generator(ex.samples, output_signature=ex.signature())
    first = next(iter(ds))
    assert first[0].shape == (8, 8) and int(first[1]) == 0
    image, label = ex.load_sample_python(tf.constant(4, tf.int64))
    assert image.shape == (8, 8) and label == 1
