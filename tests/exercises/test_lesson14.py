"""Lesson 14 exercises: right answers pass, typical mistakes get a message that names the fault."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import lesson14 as ex
from .checking import assert_refused, bad_inputs

grain = pytest.importorskip("grain")
G = grain.MapDataset.range


def scaled(fn):
    return ex.pixel_source().map(fn)


CORRECT = [
    (ex.predict_first, list(range(50))),
    (ex.predict_first, set(range(50))),
    (ex.predict_first, np.arange(49, -1, -1)),
    (ex.q1, G(20).shuffle(seed=0).batch(5).repeat(2)),
    (ex.q1, G(20).shuffle(seed=0).batch(5).repeat(2).to_iter_dataset()),
    (ex.q1, G(20).shuffle(seed=7).batch(5).repeat(2)),
    (ex.q1, G(20).shuffle(seed=0).repeat(2).batch(5)),  # 20 = 4 x 5: no batch can straddle an epoch
    (ex.q2, scaled(lambda x: tf.cast(x, tf.float32) / 255.0)),
    (ex.q2, scaled(lambda x: tf.image.convert_image_dtype(x, tf.float32))),
    (ex.q2, scaled(lambda x: tf.cast(x, tf.float32) * (1 / 255))),
    (ex.q2, ex.pixel_source().map(lambda x: tf.cast(x, tf.float32) / 255.0, num_parallel_calls=2).prefetch(1)),
]


@pytest.mark.parametrize("question, answer", CORRECT, ids=[f"{q.title}-{k}" for k, (q, _) in enumerate(CORRECT)])
def test_right_answers_pass(question, answer):
    result = question.check(answer)
    assert result.passed, str(result)


MISTAKES = [
    (ex.predict_first, list(range(10)), "40 items of the answer are missing, such as 10."),
    (ex.predict_first, [0], "are missing"),
    (ex.q1, G(20).batch(5).shuffle(seed=0).repeat(2), "your shuffle comes after batch"),
    (ex.predict_first, list(range(51)), "50 is not in it"),
    (ex.predict_first, G(50).shuffle(seed=0), "not a pipeline"),
    (ex.q1, tf.data.Dataset.range(20).shuffle(20, seed=0).batch(5).repeat(2), "in Grain"),
    (ex.q1, [[0, 1, 2, 3, 4]], "expected a Grain dataset"),
    (ex.q1, G(20).repeat(2).shuffle(seed=0).batch(5), "mixes the two epochs"),
    (ex.q1, G(20).shuffle(seed=0).batch(5), "twice: repeat(2)"),
    (ex.q1, G(20).shuffle(seed=0).batch(5).repeat(3), "appears 3 times"),
    (ex.q1, G(20).batch(5).repeat(2), "add .shuffle(seed=0)"),
    (ex.q1, G(20).shuffle(seed=0).repeat(2), "batches of 5"),
    (ex.q1, G(20).shuffle(seed=0).batch(4).repeat(2), "batches of 5"),
    (ex.q1, G(20).shuffle(seed=0).batch(5).repeat(), "never ends"),
    (ex.q1, G(30).shuffle(seed=0).batch(5).repeat(2), "not in range(20)"),
    (ex.q1, G(20).map(lambda i: {"id": i}).batch(5), "integer element ids"),
    (ex.q1, G(0), "empty"),
    (ex.q2, ex.pixel_source(), "uint8"),
    (ex.q2, scaled(lambda x: tf.cast(x, tf.float32)), "divide by 255"),
    (ex.q2, scaled(lambda x: tf.cast(x, tf.float32) / 128.0), "other values"),
    (ex.q2, ex.pixel_source().batch(2).map(lambda x: tf.cast(x, tf.float32) / 255.0), "has 4 elements"),
    (ex.q2, scaled(lambda x: tf.cast(x, tf.float64) / 255.0), "float64"),
    (ex.q2, scaled(lambda x: (tf.cast(x, tf.float32) / 255.0, x)), "one image"),
    (ex.q2, scaled(lambda x: tf.cast(x, tf.float32) / 255.0).repeat(), "never ends"),
    (ex.q2, np.zeros((8, 8, 8), np.float32), "from_tensor_slices"),
]


@pytest.mark.parametrize("question, answer, fragment", MISTAKES,
                         ids=[f"{q.title}-{k}" for k, (q, _, _) in enumerate(MISTAKES)])
def test_mistakes_get_a_message_that_names_them(question, answer, fragment):
    assert_refused(question.check(answer), fragment)


def test_a_grain_pipeline_that_never_yields_is_stopped_with_a_sentence(short_deadline):
    assert_refused(ex.q1.check(G(5).repeat().filter(lambda x: x < 0)), "produced no element")


@pytest.mark.parametrize("name, answer", bad_inputs(), ids=[n for n, _ in bad_inputs()])
def test_bad_input_to_the_grain_question_gets_a_sentence(name, answer, short_deadline):
    assert_refused(ex.q1.check(answer))


def test_the_prediction_is_computed_from_grain_not_typed_in():
    assert ex.predict_first.actual() == sorted({int(G(50).shuffle(seed=s)[0]) for s in range(ex.RUNS)})
    assert "answer = [0, 1, 2" in ex.predict_first.solution_code


def test_predict_first_accepts_the_right_ids_written_as_a_range():
    assert ex.predict_first.check(range(50)).passed


def test_q1_shuffle_repeat_batch_passes_but_says_why_it_works_here():
    fragile = ex.q1.check(G(20).shuffle(seed=0).repeat(2).batch(5))
    assert fragile.passed and "only because 20 is a multiple of 5" in fragile.message
    assert "multiple of 5" not in ex.q1.check(G(20).shuffle(seed=0).batch(5).repeat(2)).message
