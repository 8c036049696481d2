"""Lesson 08 exercise: the solution and other right answers pass; typical mistakes and bad input get a message
that names the fault, never raw exception text, never a hang, and never a verdict decided by a clock."""
import pytest
import tensorflow as tf

from tutor.checks import lesson08 as ex
from .checking import boom, passes, refused


def raising_map(source):
    fixed = source.map(ex.decode).cache().shuffle(12).repeat(3).map(ex.augment)
    return fixed.map(lambda x: tf.ensure_shape(tf.py_function(boom, [x], tf.float32), [])).batch(4)


@pytest.mark.parametrize("answer", [
    lambda s: s.map(ex.decode).cache().shuffle(12).repeat(3).map(ex.augment).batch(4),
    lambda s: s.map(ex.decode).cache().shuffle(100, seed=3).repeat(3).map(ex.augment).batch(4),
    lambda s: s.map(ex.decode, num_parallel_calls=tf.data.AUTOTUNE).cache().shuffle(12).repeat(3).map(
        ex.augment, num_parallel_calls=2).batch(4).prefetch(tf.data.AUTOTUNE),
    lambda s: s.map(ex.decode).cache().shuffle(12).map(ex.augment).repeat(3).batch(4),
    lambda s: s.map(ex.decode).cache().shuffle(12).map(ex.augment).batch(4).repeat(3),
], ids=["no-seed", "bigger-buffer", "parallel-and-prefetch", "augment-before-repeat", "batch-before-repeat"])


def test_other_right_answers_pass(answer):
    passes(ex.q1, answer)


@pytest.mark.parametrize("answer, words", [
    (lambda s: s.map(ex.decode).cache().repeat(3).shuffle(12).map(ex.augment).batch(4),
     ["repeat(3) comes before shuffle()", "Shuffle first, then repeat"]),
    (lambda s: s.map(ex.decode).cache().repeat(3).shuffle(36).map(ex.augment).batch(4),
     ["repeat(3) comes before shuffle()"]),
    (lambda s: s.repeat(3).map(ex.decode).cache().shuffle(12).map(ex.augment).batch(4),
     ["decode ran 36 times", "repeat(3) comes before cache()"]),
    (lambda s: s.map(ex.decode).shuffle(12).repeat(3).map(ex.augment).batch(4), ["decode ran 36 times", "cache()"]),
    (lambda s: s.map(ex.decode).cache().repeat(3).map(ex.augment).batch(4), ["no shuffle()"]),
    (lambda s: s.map(ex.decode).cache().shuffle(12, reshuffle_each_iteration=False).repeat(3).map(ex.augment).batch(
        4), ["reshuffle_each_iteration=False"]),
    (lambda s: s.map(ex.decode).shuffle(12).cache().repeat(3).map(ex.augment).batch(4),
     ["same order", "shuffle() comes before cache()"]),
    (lambda s: s.map(ex.decode).map(ex.augment).cache().shuffle(12).repeat(3).batch(4), ["frozen"]),
    (lambda s: s.map(ex.decode).cache().shuffle(12).repeat(3).batch(4), ["map(ex.augment) is missing"]),
    (lambda s: s.map(ex.decode).cache().shuffle(2).repeat(3).map(ex.augment).batch(4), ["shuffle(2)", "shuffle(12)"]),
    (lambda s: s.map(ex.decode).cache().map(ex.augment).batch(4).shuffle(3).repeat(3),
     ["after batch", "travel together"]),
    (lambda s: s.map(ex.decode).cache().shuffle(12).repeat(3).batch(4).map(ex.augment), ["ONE random number"]),
    (lambda s: s.map(ex.decode).cache().shuffle(12).map(ex.augment).batch(4), ["expected 36 values"]),
], ids=["repeat-before-shuffle", "repeat-before-big-shuffle", "decode-every-epoch", "no-cache", "no-shuffle",
        "no-reshuffle", "shuffle-before-cache", "frozen", "no-augment", "tiny-buffer", "shuffle-after-batch",
        "augment-after-batch", "no-repeat"])


def test_typical_mistakes_name_their_fault(answer, words):
    refused(ex.q1, answer, *words)


def test_frozen_is_said_only_when_the_augmentation_is_there():
    assert "frozen" not in refused(ex.q1, lambda s: s.map(ex.decode).cache().shuffle(12).repeat(3).batch(4)).message


BAD = {
    "a list": [1, 2, 3],
    "None": None,
    "a string": "source.map(ex.decode)",
    "an endless dataset": tf.data.Dataset.range(12).map(ex.decode).cache().shuffle(12).repeat().batch(4),
    "a dataset that never yields": tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0),
    "a dataset of strings": tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]).batch(4),
    "a function returning a list": lambda s: [1, 2],
    "a function returning None": lambda s: None,
    "a function returning a string": lambda s: "fixed",
    "a function returning an endless dataset":
        lambda s: s.map(ex.decode).cache().shuffle(12).repeat().map(ex.augment).batch(4),
    "a function returning a dataset that never yields":
        lambda s: s.map(ex.decode).cache().shuffle(12).repeat().map(ex.augment).filter(lambda x: x < 0).batch(4),
    "a function returning strings": lambda s: s.map(lambda x: tf.strings.as_string(x)).batch(4),
    "a function with a map that raises": raising_map,
    "a function that raises": lambda s: s.shufle(12),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_gets_a_message(name, short_deadline):
    refused(ex.q1, BAD[name])


@pytest.mark.parametrize("answer, words", [
    (lambda s: s.map(ex.decode).cache().shuffle(12).repeat, ["you passed the function", "repeat"]),
    (lambda s: s.map(ex.decode()).cache().shuffle(12).repeat(3).map(ex.augment).batch(4),
     ["a function was used where its result was expected"]),
], ids=["method-not-called", "decode-called-without-argument"])
def test_a_function_not_called_is_named(answer, words):
    refused(ex.q1, answer, *words)


def test_bad_input_messages_say_what_to_do(short_deadline):
    assert "without calling it" in ex.q1.check(BAD["an endless dataset"]).message
    assert "never ends" in ex.q1.check(BAD["a function returning an endless dataset"]).message
    assert "produced no element" in ex.q1.check(BAD["a function returning a dataset that never yields"]).message
    assert "forget the `return`" in ex.q1.check(BAD["a function returning None"]).message
    raised = ex.q1.check(raising_map)
    assert raised.details and "boom" in raised.details
