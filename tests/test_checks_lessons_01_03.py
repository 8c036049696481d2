"""Every solution passes; typical wrong answers fail with a message that says what is wrong."""
import pytest
import tensorflow as tf

from tutor.checks import lesson01, lesson02, lesson03

QUESTIONS = [getattr(m, q) for m in (lesson01, lesson02, lesson03) for q in m.__all__]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.title)
def test_solution_passes(question):
    result = question.check(question.solution_answer())
    assert result.passed, str(result)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.title)
def test_placeholder_is_recognised(question):
    assert question.check(...).status == "unattempted"


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.title)
def test_has_hints(question):
    assert question.hints and question.hint(1)


R = tf.data.Dataset.range

WRONG = [
    (lesson01.q1, tf.data.Dataset.from_tensor_slices(["cat", "dog", "fish"]), "element_spec"),
    (lesson01.q1, tf.data.Dataset.from_tensor_slices((["cat", "dog", "fish"], [3, 3, 3])), "element 2"),
    (lesson01.q1, [("cat", 3)], "expected a tf.data.Dataset"),
    (lesson01.q2, tf.data.Dataset.from_tensor_slices([[1, 2, 0], [3, 0, 0], [4, 5, 6]]), "element 0 is [1, 2, 0]"),
    (lesson01.q3, tf.data.Dataset.zip((R(-5, 0), R(5))), "(x, (y1, y2))"),
    (lesson02.q1, R(10).repeat(3).batch(4), "batch 2 is [8, 9, 0, 1]"),
    (lesson02.q1, R(10).batch(4).repeat(2), "exactly 3 times"),
    (lesson02.q1, R(10).repeat(), "repeat() with no count"),
    (lesson02.q2, R(10).batch(3), "drop_remainder=True"),
    (lesson02.q2, R(10).batch(4, drop_remainder=True), "batches of 3"),
    (lesson02.q3, R(1, 5).map(lambda n: tf.fill([n], n)).padded_batch(4), "expected 2 batches"),
    (lesson03.q1, 10, "id 49 can never come first"),
    (lesson03.q1, 1000, "smallest"),
    (lesson03.q2, R(20).batch(5).shuffle(4, seed=0).repeat(2), "consecutive ids"),
    (lesson03.q2, R(20).shuffle(20, seed=0, reshuffle_each_iteration=False).batch(5).repeat(2), "same order"),
    (lesson03.q2, R(20).repeat(2).shuffle(40, seed=0).batch(5), "two epochs"),
    (lesson03.q3, (R(100).shuffle(100, seed=0).take(80), R(100).shuffle(100, seed=0).skip(80)), "appear in train"),
    (lesson03.q3, (R(80), R(80, 100)), "last 20 ids"),
]


@pytest.mark.parametrize("question, answer, message", WRONG, ids=[f"{q.title}-{m}" for q, _, m in WRONG])
def test_wrong_answers_fail_with_teaching_message(question, answer, message):
    result = question.check(answer)
    assert not result.passed
    assert message in result.message, result.message
