"""A small exercise framework: a question knows how to check, hint and solve itself.

The learner passes the object to check explicitly::

    from tutor.checks import lesson02 as ex
    ex.q1.check(my_dataset)

``check`` returns a :class:`Result`; it renders as a coloured box in Jupyter
and as one line of plain text elsewhere, and ``result.passed`` says whether it
passed.
"""
from __future__ import annotations

import html
import textwrap
from typing import Any, Callable, Sequence

UNATTEMPTED = "unattempted"
CORRECT = "correct"
NOT_YET = "not yet"

_COLOURS = {CORRECT: ("#009E73", "Correct"), NOT_YET: ("#D55E00", "Not yet"), UNATTEMPTED: ("#0072B2", "Not attempted")}


class CheckFailed(Exception):
    """Raised inside a checker with a message that teaches what is wrong."""


def fail(message: str) -> None:
    """Stop the check with a teaching message."""
    raise CheckFailed(message)


class Result:
    """The outcome of ``Question.check``: ``passed``, ``status`` and ``message``."""

    def __init__(self, status: str, message: str, title: str = ""):
        self.status = status
        self.message = message
        self.title = title

    @property
    def passed(self) -> bool:
        return self.status == CORRECT

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        label = _COLOURS[self.status][1]
        return f"{label}: {self.message}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour, label = _COLOURS[self.status]
        return (
            f"<div style='border-left:6px solid {colour};padding:4px 10px'>"
            f"<b style='color:{colour}'>{label}</b> {html.escape(self.message)}</div>"
        )


class Text:
    """A hint or a solution: Markdown-ish text in Jupyter, plain text elsewhere."""

    def __init__(self, label: str, body: str, code: bool = False):
        self.label, self.body, self.code = label, body, code

    def __str__(self) -> str:
        return f"{self.label}:\n{self.body}" if self.code else f"{self.label}: {self.body}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        inner = f"<pre>{html.escape(self.body)}</pre>" if self.code else html.escape(self.body)
        return f"<div style='border-left:6px solid #56B4E9;padding:4px 10px'><b>{self.label}</b> {inner}</div>"


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
        if answer is ... or answer is None:
            return Result(
                UNATTEMPTED,
                f"{self.title}: replace the `...` with your answer, then run this cell again.",
                self.title,
            )
        try:
            message = self._checker(answer)
        except CheckFailed as exc:
            return Result(NOT_YET, f"{self.title}: {exc}", self.title)
        except Exception as exc:  # the learner's pipeline itself failed while being read
            kind = type(exc).__name__
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return Result(NOT_YET, f"{self.title}: reading your answer raised {kind}: {text}", self.title)
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
