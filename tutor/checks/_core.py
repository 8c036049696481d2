"""The bottom of the exercise framework: results, texts, failing with a sentence, errors into sentences.

The learner passes the object to check explicitly::

    from tutor.checks import lesson02 as ex
    ex.q1.check(my_dataset)

``check`` (see :mod:`tutor.checks.questions`) returns a :class:`Result`; it
renders as a coloured box in Jupyter and as one line of plain text elsewhere,
and ``result.passed`` says whether it passed. It never raises and never hangs:
reading an answer is bounded in elements and in time, and an error raised by
the learner's pipeline comes back as a sentence (:func:`explain_error`), with
the original text in a collapsed detail.
"""
from __future__ import annotations

import re
from typing import Any

from .. import render

UNATTEMPTED = "unattempted"
CORRECT = "correct"
NOT_YET = "not yet"

_LOOKS = {CORRECT: (render.GREEN, "Correct"), NOT_YET: (render.ORANGE, "Not yet"),
          UNATTEMPTED: (render.BLUE, "Not attempted")}

#: Longest piece of a learner's answer repeated back in a message.
ECHO_LIMIT = 80


class CheckFailed(Exception):
    """Raised inside a checker with a message that teaches what is wrong."""


def fail(message: str) -> None:
    """Stop the check with a teaching message."""
    raise CheckFailed(message)


def shorten(value: Any, limit: int = ECHO_LIMIT) -> str:
    """``repr(value)``, cut to about ``limit`` characters, so a huge answer is never echoed in full.

    A list or tuple is cut between items and says how many it holds; other text says that it was cut.

    >>> shorten(list(range(100)), 30)
    '[0, 1, 2, 3, 4, …] (100 items)'
    >>> shorten("x" * 1000)[-33:]
    "xx…' (cut short: 1002 characters)"
    """
    text = value if isinstance(value, str) and value.startswith(("'", '"')) else repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, (list, tuple)) and value:
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        shown: list[str] = []
        for item in value:
            piece = repr(item)
            if len(", ".join([*shown, piece])) > limit - 16:
                break
            shown.append(piece)
        body = ", ".join([*shown, "…"])
        return f"{opening}{body}{closing} ({len(value)} items)"
    quote = text[-1] if text[-1] in "'\"" else ""
    return f"{text[:limit]}…{quote} (cut short: {len(text)} characters)"


class Result:
    """The outcome of ``Question.check``: ``passed``, ``status``, ``message`` and optional ``details``."""

    def __init__(self, status: str, message: str, title: str = "", *, details: str | None = None):
        self.status = status
        self.message = message
        self.title = title
        self.details = details

    @property
    def passed(self) -> bool:
        return self.status == CORRECT

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return f"{_LOOKS[self.status][1]}: {self.message}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour, label = _LOOKS[self.status]
        return render.box(label, self.message, colour=colour, details=self.details,
                          details_label="what TensorFlow said")


class Text:
    """A hint or a solution: Markdown-ish text in Jupyter, plain text elsewhere."""

    def __init__(self, label: str, body: str, code: bool = False):
        self.label, self.body, self.code = label, body, code

    def __str__(self) -> str:
        return f"{self.label}:\n{self.body}" if self.code else f"{self.label}: {self.body}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        if self.code:
            return render.code_block(self.label, self.body)
        return render.box(self.label, self.body, colour=render.SKY)


# ------------------------------------------------------------------ errors into sentences
def explain_error(exc: BaseException) -> str:
    """A sentence for an error raised while reading a learner's answer (the original goes in details)."""
    import tensorflow as tf

    text = re.sub(r"^\{\{[^}]*\}\}\s*", "", first_line(exc))  # TensorFlow's "{{function_node ...}}" prefix
    low = text.lower()
    gone = resource_gone(exc)
    if gone:
        return gone
    if isinstance(exc, (TypeError, AttributeError, ValueError)) and FUNCTION_OBJECT.search(text):
        return FUNCTION_NOT_CALLED
    if "user-defined function" in low:
        return user_function_message(text)
    python = re.match(r"(\w+(?:Error|Exception|Iteration)): ", text)
    if python and isinstance(exc, tf.errors.OpError):
        return (f"a Python function in your pipeline (a generator, or a function in py_function) failed: it raised "
                f"{python.group(1)} while the elements were read; the details below show why.")
    if isinstance(exc, tf.errors.UnknownError) and ("generator" in low or "pyfunc" in low or "py_func" in low
                                                    or "error occurred when finalizing" in low or "callback" in low):
        return ("a Python function in your pipeline (a generator, or a function in py_function) raised an error "
                "while the elements were read; the details below show which one and why.")
    if isinstance(exc, tf.errors.OutOfRangeError) or isinstance(exc, StopIteration):
        return "your dataset ended before the checker had read what it needs: is it empty, or cut short by take()?"
    if isinstance(exc, tf.errors.DataLossError):
        return "a file your pipeline reads is truncated or corrupt, so TensorFlow could not read a record from it."
    if "string" in low and ("number" in low or "convert" in low or "cast" in low) or "stringtonumber" in low:
        return ("your pipeline holds text (strings) where numbers were expected. Parse them first, for example "
                "with tf.strings.to_number, or start from numbers.")
    if isinstance(exc, tf.errors.InvalidArgumentError):
        if "shape" in low or "dimension" in low or "incompatible" in low or "rank" in low:
            return ("a tensor in your pipeline has a different shape than the next step expects (for example "
                    "batches where single elements were expected, or the wrong number of values).")
        if "dtype" in low or "type" in low:
            return "a tensor in your pipeline has a different type (dtype) than the next step expects."
        return "your pipeline raised an error while it was read; the details below say where."
    if "0-dimensional" in low or "truth value of an array" in low or "only length-1" in low \
            or "only integer scalar" in low:
        return ("an element holds several values where one number was expected: is your dataset batched, or are "
                "its elements tuples? Compare its element_spec with what the exercise asks for.")
    if isinstance(exc, (KeyError,)):
        return f"an element has no part named {shorten(exc.args[0] if exc.args else '?', 40)}: check the names of its features."
    if isinstance(exc, IndexError):
        return "an element has fewer parts than expected: check the structure of each element (its element_spec)."
    if isinstance(exc, TypeError):
        return ("something in your answer has a different type than expected: check what the exercise asks "
                "for (a dataset, a number, a function, a tuple?).")
    if isinstance(exc, ValueError):
        return "a value in your answer does not fit what the exercise expects; the details below say which."
    return f"reading your answer failed ({type(exc).__name__}); the details below say where."


#: A learner's function used as a value: TensorFlow and Python name the function object in their errors.
FUNCTION_OBJECT = re.compile(r"'(function|method|builtin_function_or_method|functools\.partial)' object|"
                             r"<(function|bound method|built-in function|built-in method) |"
                             r"missing \d+ required positional argument")

FUNCTION_NOT_CALLED = (
    "a function was used where its result was expected: something in your answer is a function that was passed "
    "without being called (or called without its arguments), where a dataset or a value, made by calling it, was "
    "expected. Call it with its arguments, for example get_per_replica_batch_size(16), and use what it returns.")

SETUP_AGAIN = "Run the lesson's setup cells again (from the top), rebuild your answer, and check it again."


def resource_gone(exc: BaseException) -> str | None:
    """A sentence when ``exc`` says that a file, folder or service the answer needs is gone; otherwise None.

    >>> resource_gone(RuntimeError("LocalService is stopped; call .start() first."))[:48]
    'the tf.data service your answer uses has been st'
    """
    import tensorflow as tf

    text = str(exc)
    if isinstance(exc, (FileNotFoundError, tf.errors.NotFoundError)) or "No files match" in text \
            or "No such file or directory" in text:
        return ("a file or folder your answer reads is not there (any more): a cleanup cell may have deleted the "
                "lesson's data, or a path is misspelt. " + SETUP_AGAIN)
    if ("LocalService is stopped" in text or isinstance(exc, tf.errors.UnavailableError)
            or ("dispatcher" in text.lower() and isinstance(exc, (tf.errors.OpError, RuntimeError)))):
        return "the tf.data service your answer uses has been stopped, so nothing can be read from it. " + SETUP_AGAIN
    return None


_STAGES = {"map": "map", "parallelmap": "map", "mapandbatch": "map", "filter": "filter", "flatmap": "flat_map",
           "interleave": "interleave", "parallelinterleave": "interleave", "scan": "scan"}


def user_function_message(text: str) -> str:
    """A sentence for TensorFlow's "Error in user-defined function passed to MapDataset..." (no raw text).

    >>> user_function_message("Error in user-defined function passed to FilterDataset:3 ...: ValueError: boom")
    'the function you passed to filter() failed while the checker read your dataset: it raised ValueError. Run next(iter(ds)) on your dataset to see the whole error.'
    """
    found = re.search(r"passed to (\w+?)(?:V\d)?Dataset", text)
    stage = _STAGES.get(found.group(1).lower(), found.group(1).lower()) if found else "map"
    first = text.strip().splitlines()[0] if text.strip() else ""
    python = re.search(r": (\w+(?:Error|Exception))(?::|$)", first)
    if python:
        cause = f"it raised {python.group(1)}"
    elif "assertion failed" in first:
        cause = "an assertion inside it did not hold"
    elif "convert string" in first:
        cause = "it tried to turn text into a number and could not"
    elif "division by zero" in first:
        cause = "it divided by zero"
    else:
        cause = "TensorFlow stopped it with an error"
    return (f"the function you passed to {stage}() failed while the checker read your dataset: {cause}. "
            "Run next(iter(ds)) on your dataset to see the whole error.")


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def original_error(exc: BaseException) -> str:
    """The original error, without TensorFlow's op traceback and debug links, for the collapsed detail."""
    lines = [line for line in str(exc).strip().splitlines()
             if line.strip() and "https://" not in line and not line.startswith("\t")]
    return f"{type(exc).__name__}: " + "\n".join(lines[:6])


def after_colon(text: str) -> str:
    """Drop the ``where:`` prefix of a tutor error; the question's title already says where."""
    head, sep, rest = text.partition(": ")
    return rest if sep and " " not in head else text
