"""Lesson 09 exercises: every question gets its solution, other correct answers, typical mistakes and bad input.

No verdict depends on timing: q1 compares elements over two passes, q2 reads the
pipeline's structure and counts how often ex.load_sample ran, q3 is a letter.
"""
import numpy as np
import pytest
import tensorflow as tf

from tutor.checks import lesson09 as ex
from .checking import refused

SIG = ex.signature()


def from_samples(signature=SIG, fn=ex.samples):
    return tf.data.Dataset.from_generator(fn, output_signature=signature)


# ----------------------------------------------------------------------------- q1
@pytest.mark.parametrize("build", [
    lambda: tf.data.Dataset.from_generator(lambda: ex.samples(), output_signature=(
        tf.TensorSpec(shape=[8, 8], dtype=tf.float32), tf.TensorSpec(shape=[], dtype=tf.int64))),
    lambda: from_samples().prefetch(tf.data.AUTOTUNE),
    lambda: from_samples(signature=ex.signature()),
    lambda: tf.data.Dataset.from_generator(ex.samples, output_types=(tf.float32, tf.int64),
                                           output_shapes=((8, 8), ())),
], ids=["lambda-and-keywords", "prefetch", "ex.signature", "deprecated-types-and-shapes"])


def test_q1_other_correct_answers(build):
    result = ex.q1.check(build())
    assert result.passed, result.message


def test_q1_mistakes_name_the_fault():
    used_up = ex.samples()
    cases = [
        (from_samples().batch(4), ["batches", "Remove the .batch"]),
        (from_samples((tf.TensorSpec(None, tf.float32), tf.TensorSpec((), tf.int64))), ["full shape (8, 8)"]),
        (from_samples((tf.TensorSpec((None, None), tf.float32), tf.TensorSpec((), tf.int64))), ["full shape"]),
        (from_samples((tf.TensorSpec((8, 8), tf.float64), tf.TensorSpec((), tf.int64))), ["float32", "float64"]),
        (from_samples((tf.TensorSpec((8, 8), tf.float32), tf.TensorSpec((), tf.int32))), ["int64", "int32"]),
        (from_samples((tf.TensorSpec((), tf.int64), tf.TensorSpec((8, 8), tf.float32))), ["swapped"]),
        (from_samples((tf.TensorSpec((64,), tf.float32), tf.TensorSpec((), tf.int64))), ["8 x 8", "(64,)"]),
        (from_samples((tf.TensorSpec((8, 8), tf.float32), tf.TensorSpec((1,), tf.int64))), ["shape ()", "(1,)"]),
        (tf.data.Dataset.from_generator(lambda: used_up, output_signature=SIG), ["second gave 0", "not ex.samples()"]),
        (from_samples().take(10), ["10 elements", "12 samples"]),
        (from_samples().repeat(), ["never ends", "repeat()"]),
    ]
    for answer, words in cases:
        refused(ex.q1, answer, *words)


@pytest.mark.parametrize("answer, words", [
    ([1, 2], ["expected a tf.data.Dataset", "list"]),
    ("ds", ["expected a tf.data.Dataset", "text"]),
    (tf.data.Dataset.range(5).repeat(), ["pair (image, label)"]),
    (tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0), ["pair (image, label)"]),
    (tf.data.Dataset.from_tensor_slices(["a", "b"]), ["strings"]),
    (from_samples().map(lambda x, y: (tf.debugging.check_numerics(x / 0.0, "boom"), y)), ["error"]),
    (tf.data.Dataset.from_generator(lambda: (1 // 0 for _ in range(3)), output_signature=SIG), ["failed"]),
], ids=["list", "string", "endless", "never-yields", "strings", "raising-map", "raising-generator"])


def test_q1_bad_input_gets_a_sentence(answer, words):
    refused(ex.q1, answer, *words)


def test_q1_a_dataset_that_never_yields_stops_at_the_deadline(short_deadline):
    refused(ex.q1, from_samples().repeat().filter(lambda image, label: False), "no element", "filter()")


# ----------------------------------------------------------------------------- q2
def ids(n=12):
    return tf.data.Dataset.from_generator(lambda: iter(range(n)), output_signature=tf.TensorSpec((), tf.int64))


def load(i):
    return tf.py_function(ex.load_sample, [i], Tout=[tf.float32, tf.int64])


def restore(images, labels):
    return tf.ensure_shape(images, [None, 8, 8]), tf.ensure_shape(labels, [None])


def promise(images, labels):
    images.set_shape([None, 8, 8])
    labels.set_shape([None])
    return images, labels


def test_q2_solution_passes_and_counts_the_loads():
    result = ex.q2.check(ex.q2.solution_answer())
    assert result.passed, result.message
    assert "For information" in result.message


def int32_indices():
    for i in range(12):
        yield np.int32(i)


@pytest.mark.parametrize("build", [
    lambda: ids().map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(4).map(promise).prefetch(tf.data.AUTOTUNE),
    lambda: ids().map(load, num_parallel_calls=4, deterministic=False).batch(4, drop_remainder=True).map(restore),
    lambda: tf.data.Dataset.from_generator(int32_indices, output_signature=tf.TensorSpec((), tf.int32))
    .map(load, num_parallel_calls=2).batch(4).map(restore),
    lambda: tf.data.Dataset.range(12).map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(4).map(restore),
], ids=["set_shape-and-prefetch", "nondeterministic-drop-remainder", "int32-indices", "range-instead-of-generator"])


def test_q2_other_correct_answers(build):
    result = ex.q2.check(build())
    assert result.passed, result.message


def test_q2_range_gets_a_note():
    result = ex.q2.check(tf.data.Dataset.range(12).map(load, num_parallel_calls=2).batch(4).map(restore))
    assert result.passed and "instead of a generator" in result.message


def test_q2_mistakes_name_the_fault():
    python = lambda i: tf.py_function(ex.load_sample_python, [i], Tout=[tf.float32, tf.int64])  # noqa: E731
    cases = [
        (ids().map(load).batch(4).map(restore), ["one call at a time", "num_parallel_calls"]),
        (ids().map(load, num_parallel_calls=1).batch(4).map(restore), ["one call at a time"]),
        (from_samples().batch(4).map(restore), ["generator yields (float32 (8, 8), int64 ())", "indices"]),
        (ids().map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(4), ["static shapes", "ensure_shape"]),
        (ids().map(load, num_parallel_calls=tf.data.AUTOTUNE)
         .map(lambda x, y: (tf.ensure_shape(x, [8, 8]), tf.ensure_shape(y, []))), ["never batches", "batch(4)"]),
        (ids().map(load, num_parallel_calls=tf.data.AUTOTUNE), ["never batches"]),
        (ids().map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(3).map(restore), ["batches 3", "batch(4)"]),
        (ids().map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(8).map(restore), ["batches 8"]),
        (ids(6).map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(4).map(restore), ["each once", "got 6"]),
        (ids().map(python, num_parallel_calls=tf.data.AUTOTUNE).batch(4).map(restore), ["ex.load_sample never ran"]),
        (ids().batch(4).map(load, num_parallel_calls=tf.data.AUTOTUNE).map(restore), ["batch comes before"]),
        (ids().map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(4)
         .map(lambda x, y: (tf.reshape(x, [-1, 64]), tf.ensure_shape(y, [None]))), ["(None, 64)", "[None, 8, 8]"]),
        (ex.q2.solution_answer().repeat(), ["never ends", "repeat()"]),
    ]
    for answer, words in cases:
        refused(ex.q2, answer, *words)


@pytest.mark.parametrize("answer, words", [
    ([1, 2], ["expected a tf.data.Dataset", "list"]),
    ("ds", ["expected a tf.data.Dataset", "text"]),
    (tf.data.Dataset.range(5).repeat(), ["batch pair (images, labels)"]),
    (tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0), ["batch pair (images, labels)"]),
    (tf.data.Dataset.from_tensor_slices(["a", "b"]), ["strings"]),
    (tf.data.Dataset.range(3).map(lambda x: tf.py_function(lambda v: 1 // 0, [x], tf.int64)), ["batch pair"]),
], ids=["list", "string", "endless", "never-yields", "strings", "raising-py-function"])


def test_q2_bad_input_gets_a_sentence(answer, words):
    refused(ex.q2, answer, *words)


def test_q2_a_dataset_that_never_yields_stops_at_the_deadline(short_deadline):
    never = ex.q2.solution_answer().repeat().filter(lambda images, labels: False)
    refused(ex.q2, never, "no element", "filter()")


def test_q2_a_map_that_raises_gets_a_sentence():
    raising = ex.q2.solution_answer().map(lambda x, y: (tf.debugging.check_numerics(x / 0.0, "boom"), y))
    refused(ex.q2, raising, "error")


# ----------------------------------------------------------------------------- q3
@pytest.mark.parametrize("answer", ["a", "A", " a ", "a\n"])
def test_q3_right_letter_in_any_case(answer):
    assert ex.q3.check(answer).passed


@pytest.mark.parametrize("answer, words", [
    ("b", ["not (b)", "GIL", "whatever num_parallel_calls is"]),
    ("c", ["not (c)", "indices"]),
    ("D", ["not (d)", "prefetch"]),
    ("e", ["not one of the choices"]),
    ("", ["not one of the choices"]),
])


def test_q3_wrong_letters_say_why(answer, words):
    refused(ex.q3, answer, *words)


@pytest.mark.parametrize("answer", [["a"], 1, tf.data.Dataset.range(3).repeat(), "x" * 10_000])
def test_q3_bad_input_gets_a_short_sentence(answer):
    result = refused(ex.q3, answer)
    assert len(result.message) < 400


# ----------------------------------------------------------------------------- the helpers the lesson uses
def test_samples_and_signature_agree():
    ds = tf.data.Dataset.from_generator(ex.samples, output_signature=ex.signature())
    first = next(iter(ds))
    assert first[0].shape == (8, 8) and int(first[1]) == 0
    image, label = ex.load_sample_python(tf.constant(4, tf.int64))
    assert image.shape == (8, 8) and label == 1


def test_load_sample_counts_its_calls():
    ex.load_calls(reset=True)
    for i in range(3):
        ex.load_sample(i)
    assert ex.load_calls(reset=True) == 3 and ex.load_calls() == 0
    with pytest.raises(ValueError, match="one index"):
        ex.load_sample(tf.constant([1, 2]))
