"""A small exercise framework: a question knows how to check, hint and solve itself.

The learner passes the object to check explicitly::

    from tutor.checks import lesson02 as ex
    ex.q1.check(my_dataset)

``check`` returns a :class:`Result`; it renders as a coloured box in Jupyter
and as one line of plain text elsewhere, and ``result.passed`` says whether it
passed. It never raises and never hangs: reading an answer is bounded in
elements and in time, and an error raised by the learner's pipeline comes back
as a sentence, with the original text in a collapsed detail.
"""
from __future__ import annotations

import re
import textwrap
from typing import Any, Callable, Sequence

from .. import render
from ..reading import ReadTimeout

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
    """``repr(value)``, cut to ``limit`` characters, so a huge answer is never echoed in full.

    >>> shorten("x" * 1000)[-12:]
    '… (1002 ch.)'
    """
    text = value if isinstance(value, str) and value.startswith(("'", '"')) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} ch.)"


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


class Question:
    """One exercise.

    Parameters
    ----------
    title : str
        A short name, shown with every result.
    checker : callable
        ``checker(answer) -> str``: returns a success message, or calls
        :func:`fail` with a message that says *what* is wrong.
    hints : list of str
        Shown one at a time by :meth:`hint`.
    solution : str
        Python code that defines ``answer``; shown by :meth:`solution` and run
        by the tests. ``tf``, ``np`` and ``tutor`` are available to it.
    """

    def __init__(self, title: str, checker: Callable[[Any], str], hints: Sequence[str], solution: str):
        self.title = title
        self._checker = checker
        self.hints = list(hints)
        self.solution_code = textwrap.dedent(solution).strip()
        self._hints_shown = 0

    def check(self, answer: Any = ...) -> Result:
        """Check ``answer``; ``...`` (the placeholder) counts as not attempted yet."""
        if answer is ...:
            return Result(UNATTEMPTED, f"{self.title}: replace the `...` with your answer, then run this cell again.",
                          self.title)
        if answer is None:
            return Result(NOT_YET, f"{self.title}: your answer is None. A function that has no `return` gives "
                                   "None, and so does assigning the result of print(); set `answer` to the value "
                                   "itself.", self.title)
        try:
            message = self._checker(answer)
        except CheckFailed as exc:
            return Result(NOT_YET, f"{self.title}: {exc}", self.title)
        except ReadTimeout as exc:
            return Result(NOT_YET, f"{self.title}: {_after_colon(str(exc))}", self.title)
        except Exception as exc:  # the learner's pipeline failed while being read: a sentence, original in details
            return Result(NOT_YET, f"{self.title}: {explain_error(exc)}", self.title, details=_original(exc))
        return Result(CORRECT, f"{self.title}: {message}", self.title)

    def hint(self, number: int | None = None) -> Text:
        """The next hint (or hint ``number``, counting from 1)."""
        if not self.hints:
            return Text("Hint", "No hints for this one: try the solution.")
        if number is None:
            number = min(self._hints_shown, len(self.hints) - 1) + 1
            self._hints_shown = number
        if not 1 <= number <= len(self.hints):
            raise ValueError(f"hint number must be between 1 and {len(self.hints)}, got {number}.")
        return Text(f"Hint {number}/{len(self.hints)}", self.hints[number - 1])

    def solution(self) -> Text:
        """One correct answer, as code."""
        return Text("Solution", self.solution_code, code=True)

    def solution_answer(self) -> Any:
        """Run the solution code and return the ``answer`` it defines (used by the tests)."""
        import numpy as np
        import tensorflow as tf

        import tutor

        namespace: dict[str, Any] = {"tf": tf, "np": np, "tutor": tutor}
        exec(self.solution_code, namespace)
        if "answer" not in namespace:
            raise RuntimeError(f"{self.title}: the solution code does not define `answer`.")
        return namespace["answer"]

    def __repr__(self) -> str:
        return f"Question({self.title!r})"


# ------------------------------------------------------------------ errors into sentences
def explain_error(exc: BaseException) -> str:
    """A sentence for an error raised while reading a learner's answer (the original goes in details)."""
    import tensorflow as tf

    text = re.sub(r"^\{\{[^}]*\}\}\s*", "", _first_line(exc))  # TensorFlow's "{{function_node ...}}" prefix
    low = text.lower()
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
    if isinstance(exc, tf.errors.NotFoundError):
        return "your pipeline tried to open a file that does not exist. Check the file names or paths it reads."
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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def _original(exc: BaseException) -> str:
    """The original error, without TensorFlow's op traceback and debug links, for the collapsed detail."""
    lines = [line for line in str(exc).strip().splitlines()
             if line.strip() and "https://" not in line and not line.startswith("\t")]
    return f"{type(exc).__name__}: " + "\n".join(lines[:6])


def _after_colon(text: str) -> str:
    """Drop the ``where:`` prefix of a tutor error; the question's title already says where."""
    head, sep, rest = text.partition(": ")
    return rest if sep and " " not in head else text
