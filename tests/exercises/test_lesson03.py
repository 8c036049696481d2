"""Lesson 03 exercises: right answers pass, typical mistakes and bad input get a message that names the fault."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.checks import lesson03 as ex
from .checking import assert_refused, bad_inputs, boom

R = tf.data.Dataset.range
S = tf.data.Dataset.from_tensor_slices


def fixed(buffer_size=100, seed=0):
    return R(100).shuffle(buffer_size, seed=seed, reshuffle_each_iteration=False)


QUESTIONS = [ex.predict_first, ex.q1, ex.q2, ex.q3]


PERMUTED = S(np.random.default_rng(0).permutation(100))


def keras_split(shuffle=True):
    import keras

    return keras.utils.split_dataset(R(100), left_size=80, shuffle=shuffle, seed=0)


def enumerate_split(buffer_size=100):
    numbered = fixed(buffer_size).enumerate()
    part = [numbered.filter(lambda i, x: (i < 80) == keep).map(lambda i, x: x) for keep in (True, False)]
    return part[0].shuffle(80), part[1]

CORRECT = [
    (ex.predict_first, list(range(10))),
    (ex.predict_first, set(range(10))),
    (ex.predict_first, list(range(9, -1, -1))),
    (ex.predict_first, np.arange(10)),
    (ex.predict_first, tuple(float(i) for i in range(10))),
    (ex.q1, np.int64(50)),
    (ex.q1, 50.0),
    (ex.q1, " 50 "),
    (ex.q1, tf.constant(50)),
    (ex.q1, R(50).cardinality()),
    (ex.q2, R(20).shuffle(20).batch(5).repeat(2)),
    (ex.q2, R(20).shuffle(100, seed=1).batch(5).repeat(2)),
    (ex.q2, R(20).shuffle(20, seed=3).batch(5).repeat(2).prefetch(1)),
    (ex.q2, R(20).shuffle(20, seed=0).repeat(2).batch(5)),  # 20 = 4 x 5, so no batch can straddle an epoch
    (ex.q2, R(20).shuffle(20, seed=0).batch(5).shuffle(4, seed=0).repeat(2)),
    (ex.q2, S(list(range(20))).shuffle(20, seed=2, reshuffle_each_iteration=True).batch(5).repeat(2)),
    (ex.q3, (fixed().take(80).shuffle(80, seed=1), fixed().skip(80))),
    (ex.q3, (fixed().take(80).shuffle(80), fixed().skip(80).shuffle(20))),
    (ex.q3, (fixed().skip(20).shuffle(80), fixed().take(20))),
    (ex.q3, (PERMUTED.take(80).shuffle(80), PERMUTED.skip(80))),
    (ex.q3, (fixed(1000, seed=4).take(80).shuffle(80), fixed(1000, seed=4).skip(80))),
    (ex.q3, [fixed().take(80).shuffle(80), fixed().skip(80)]),
    # split another correct way, then shuffle the training part only (its shuffle(80) is not the one-time shuffle)
    (ex.q3, (keras_split()[0].shuffle(80), keras_split()[1])),
    (ex.q3, (S(np.random.default_rng(3).permutation(100)[:80]).shuffle(80),
             S(np.random.default_rng(3).permutation(100)[80:]))),
    (ex.q3, enumerate_split()),
]


@pytest.mark.parametrize("question, answer", CORRECT, ids=[f"{q.title}-{k}" for k, (q, _) in enumerate(CORRECT)])
def test_other_right_answers_pass(question, answer):
    result = question.check(answer)
    assert result.passed, str(result)


MISTAKES = [
    (ex.predict_first, list(range(11)), "10 is not in it"),
    (ex.predict_first, list(range(50)), "are not in it"),
    (ex.predict_first, [0], "9 items of the answer are missing, such as 1."),
    (ex.predict_first, list(range(1, 11)), "1 item of the answer is missing"),
    (ex.predict_first, "0 to 9", "a list of 10 items"),
    (ex.q1, 10, "ids 10..49 can never come first"),
    (ex.q1, 49, "id 49 can never come first"),
    (ex.q1, 51, "smallest"),
    (ex.q1, 1000, "smallest"),
    (ex.q1, 1, "nothing to choose from"),
    (ex.q1, 0, "at least one element"),
    (ex.q1, 50.5, "whole number"),
    (ex.q1, True, "not a buffer size"),
    (ex.q1, [50], "one whole number"),
    (ex.q1, R(50).shuffle(50), "not a dataset"),
    (ex.q1, "fifty", "answer with a number"),
    (ex.q2, R(20).batch(5).shuffle(4, seed=0).repeat(2), "your shuffle comes after batch"),
    (ex.q2, R(20).batch(5).repeat(2), "the examples are not shuffled"),
    (ex.q2, R(20).shuffle(20, seed=0, reshuffle_each_iteration=False).batch(5).repeat(2), "same order"),
    (ex.q2, R(20).repeat(2).shuffle(20, seed=0).batch(5), "repeat() comes before shuffle()"),
    (ex.q2, R(20).shuffle(5, seed=0).batch(5).repeat(2), "shuffle(buffer_size=5) is not a full shuffle"),
    (ex.q2, R(20).shuffle(20, seed=0).batch(4).repeat(2), "use batches of 5"),
    (ex.q2, R(20).shuffle(20, seed=0).batch(5).repeat(3), "every id appears 3 times"),
    (ex.q2, R(20).shuffle(20, seed=0).batch(5), "every id appears 1 time"),
    (ex.q2, R(20).shuffle(20).repeat(2).batch(6), "it holds ids of epoch 1 and epoch 2"),
    (ex.q3, (R(100).shuffle(100, seed=0).take(80), R(100).shuffle(100, seed=0).skip(80)),
     "take() and skip() each make their own iterator"),
    (ex.q3, (R(100).shuffle(100, seed=0).take(80).cache(), R(100).shuffle(100, seed=0).skip(80)),
     "take() and skip() each make their own iterator"),
    (ex.q3, (R(80), R(80, 100)), "a regular slice of the data in its stored order"),
    (ex.q3, (R(100).take(80).shuffle(80), R(100).skip(80)), "a regular slice of the data in its stored order"),
    (ex.q3, (keras_split(shuffle=False)[0].shuffle(80), keras_split(shuffle=False)[1]), "a regular slice"),
    (ex.q3, (keras_split()[0], keras_split()[1]), "same order in both epochs"),
    (ex.q3, enumerate_split(buffer_size=50), "buffer_size=50"),
    (ex.q3, (fixed().take(80), fixed().skip(80)), "same order in both epochs"),
    (ex.q3, (fixed().take(80).shuffle(80, reshuffle_each_iteration=False), fixed().skip(80)),
     "same order in both epochs"),
    (ex.q3, (fixed(50).take(80).shuffle(80), fixed(50).skip(80)), "buffer_size=50"),
    (ex.q3, (fixed().skip(80), fixed().take(80).shuffle(80)), "the pair is swapped"),
    (ex.q3, (fixed().take(70).shuffle(70), fixed().skip(70)), "expected 80 and 20"),
    (ex.q3, (fixed().take(80).shuffle(80), fixed().take(20)), "are in train and in test"),
    (ex.q3, (fixed().take(80).shuffle(80).batch(8), fixed().skip(80)), "train: each element is a batch"),
    (ex.q3, fixed(), "got one dataset"),
    (ex.q3, (fixed().enumerate().filter(lambda i, x: i < 80), fixed().skip(80)), "map back to the id"),
]


@pytest.mark.parametrize("question, answer, fragment", MISTAKES, ids=[f"{q.title}-{m}" for q, _, m in MISTAKES])
def test_mistakes_are_named(question, answer, fragment):
    assert_refused(question.check(answer), fragment)


@pytest.mark.parametrize("name, bad", bad_inputs()[3:], ids=[n for n, _ in bad_inputs()[3:]])
def test_a_bad_half_of_the_split_gets_a_sentence(name, bad, short_deadline):
    assert_refused(ex.q3.check((bad, fixed().skip(80))))
    assert_refused(ex.q3.check((fixed().take(80).shuffle(80), bad)))


RIGHT_SHAPE = [
    (ex.q2, lambda: R(20).shuffle(20).batch(5)),
    (ex.q3, lambda: fixed().take(80)),
]


@pytest.mark.parametrize("question, build", RIGHT_SHAPE, ids=[q.title for q, _ in RIGHT_SHAPE])
def test_endless_or_silent_answers_of_the_right_shape(question, build, short_deadline):
    def answer(ds):
        return (ds, fixed().skip(80)) if question is ex.q3 else ds

    assert_refused(question.check(answer(build().repeat())), "repeat() with no count")
    assert_refused(question.check(answer(build().repeat().filter(lambda b: tf.constant(False)))), "produced no element")


@pytest.mark.parametrize("question, build", RIGHT_SHAPE, ids=[q.title for q, _ in RIGHT_SHAPE])
def test_an_answer_of_the_right_shape_that_raises_is_named(question, build):
    """With the real deadline: the error comes when the first element is read, later on a busy machine."""
    raising = build().map(lambda b: tf.ensure_shape(tf.py_function(boom, [b], b.dtype), b.shape))
    answer = (raising, fixed().skip(80)) if question is ex.q3 else raising
    assert_refused(question.check(answer), "map()", "raised ValueError")


def test_a_prediction_is_not_a_pipeline():
    assert_refused(ex.predict_first.check(ex.first_ids_pipeline()), "not a pipeline")


def test_the_first_ids_question_works_after_a_global_seed():
    # Learners call tf.random.set_seed(0) (lesson 05 does); the checker must still read its own pipeline.
    tf.random.set_seed(0)
    assert ex.predict_first.check(list(range(10))).passed
    assert not ex.predict_first.check(list(range(11))).passed


@pytest.mark.parametrize("written", [range(10), np.arange(10), {i: None for i in range(10)}.keys(), (i for i in range(10))],
                         ids=["range", "ndarray", "dict_keys", "generator"])
def test_a_right_prediction_written_as_any_iterable_passes(written):
    result = ex.predict_first.check(written)
    assert result.passed, result.message


def test_prediction_feedback_neither_lists_the_answer_nor_shows_cut_markers():
    too_many = ex.predict_first.check(list(range(50))).message
    assert "ch.)" not in too_many and "40 of your items" in too_many
    one = ex.predict_first.check([0]).message
    assert "[1, 2" not in one and "9 items" in one


def test_q2_shuffle_repeat_batch_passes_but_says_why_it_works_here():
    fragile = ex.q2.check(R(20).shuffle(20, seed=0).repeat(2).batch(5))
    assert fragile.passed and "only because 20 is a multiple of 5" in fragile.message
    solid = ex.q2.check(R(20).shuffle(20, seed=0).batch(5).repeat(2))
    assert solid.passed and "multiple of 5" not in solid.message
