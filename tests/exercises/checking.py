"""What the exercise tests share.

A checker's message is for a learner: it names the fault in a sentence, and never shows raw exception text
(the original error is kept in ``result.details``, collapsed in the notebook). ``passes`` and ``refused`` say
so once, for every lesson; ``bad_inputs`` is the bad input every question must answer with a sentence
(test_every_question.py gives it to every question). The ``short_deadline`` fixture lives in tests/conftest.py.
"""
import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

RAW = ("Traceback", "{{", "node ", "Error:", "https://", "function_node", "[Op:", "InvalidArgumentError",
       "Error in user-defined", "truth value", "division by zero")

#: The longest message a learner should have to read.
LONGEST_MESSAGE = 600


def boom(x):
    """A learner's function that raises: the message may name the error, never print its text."""
    raise ValueError("boom from the learner's code")


def assert_refused(result, *fragments, raw=RAW):
    """``result`` is a "not yet" whose message holds every fragment and no raw exception text."""
    assert result.status == "not yet", str(result)
    for fragment in fragments:
        assert fragment in result.message, f"{fragment!r} not in: {result.message}"
    for text in (*raw, "boom"):
        assert text not in result.message, result.message
    return result


def refused(question, answer, *fragments):
    """Check ``answer`` and assert it is refused with a message that names the fault."""
    return assert_refused(question.check(answer), *fragments)


def passes(question, answer):
    """Check ``answer`` and assert it passes."""
    result = question.check(answer)
    assert result.passed, str(result)
    return result


def bad_inputs():
    """(name, answer) pairs of bad input: every question answers each with a sentence."""
    r = tf.data.Dataset.range
    return [
        ("a list", [-3, -2, -1]),
        ("a string", "tf.data.Dataset.range(5)"),
        ("a huge string", "x" * 100_000),
        ("an endless dataset", r(5).repeat()),
        ("a dataset that never yields", r(5).repeat().filter(lambda x: x < 0)),
        ("a dataset of strings", tf.data.Dataset.from_tensor_slices(["a", "b"])),
        ("a map that raises", r(5).map(lambda x: tf.py_function(boom, [x], tf.int64))),
        ("an iterator", iter(r(3))),
        ("a function", r),
        ("a function that returns None", lambda *args: None),
        ("a function that raises", lambda *args: boom(0)),
    ]
