"""Every kind of question a lesson declares: the learner passes an answer, the question checks it.

* :class:`Question`: an exercise with a checker, hints and a solution.
* :class:`FunctionQuestion`: answered with a function ``f(source) -> Dataset`` that the checker calls.
* :class:`PredictQuestion`: predict what a real pipeline produces, then run it and compare.
* :class:`SetPrediction`: a prediction of a set of numbers (order and repeats do not matter).

A lesson module (``lessonNN.py``) only declares its questions with these types and the readers of
:mod:`tutor.checks._read`; it never imports another lesson's module.

>>> q = Question("demo", lambda a: "right." if a == 42 else fail("not 42."), hints=["think"], solution="answer = 42")
>>> q.check(42).passed, q.check(...).status, q.check(1).message
(True, 'unattempted', 'demo: not 42.')
"""
from __future__ import annotations

import textwrap
from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from ..reading import ReadTimeout
from . import _read
from ._compare import as_prediction, describe_difference
from ._core import (CORRECT, NOT_YET, UNATTEMPTED, CheckFailed, Result, Text, after_colon, explain_error, fail,
                    original_error, sentences, shorten)
from ._read import plain


class Question:
    """One exercise.

    Parameters
    ----------
    title : str
        A short name, shown with every result (marked with ``N_`` in the lesson's module; shown translated).
    checker : callable
        ``checker(answer) -> str``: returns a success message, or calls
        :func:`fail` with a message that says *what* is wrong.
    hints : list of str
        Shown one at a time by :meth:`hint` (each marked with ``N_``; shown translated).
    solution : str
        Python code that defines ``answer``; shown by :meth:`solution` and run
        by the tests. ``tf``, ``np`` and ``tutor`` are available to it.
    takes_function : bool
        True when the answer is a function the checker calls. Otherwise a
        function passed as the answer is refused before the checker runs, with
        a sentence saying that a function was passed and its result was expected.
    context : callable, optional
        ``context() -> dict``: the names the lesson's setup cells define and the
        solution uses (``csv_path``, ``image_root``); :meth:`solution_answer` runs
        the solution with them, as the notebook would.
    answer_name : str
        The variable the lesson's exercise cell checks (``answer``, ``spec_answer``,
        ``prediction``): the solution assigns that name, as the learner's cell does.
    """

    takes_function = False

    def __init__(self, title: str, checker: Callable[[Any], str], hints: Sequence[str], solution: str, *,
                 takes_function: bool | None = None, context: Callable[[], dict] | None = None,
                 answer_name: str = "answer"):
        self.title = title
        self.context = context
        self.answer_name = answer_name
        self._checker = checker
        self.hints = list(hints)
        self.solution_code = textwrap.dedent(solution).strip()
        if takes_function is not None:
            self.takes_function = takes_function
        self._hints_shown = 0

    def check(self, answer: Any = ...) -> Result:
        """Check ``answer``; ``...`` (the placeholder) counts as not attempted yet."""
        if answer is ...:
            return self._result(UNATTEMPTED, _("replace the `...` with your answer, then run this cell again."))
        if answer is None:
            return self._result(NOT_YET, _("your answer is None. A function that has no `return` gives None, and so "
                                           "does assigning the result of print(); set `answer` to the value itself."))
        if not self.takes_function and _read.is_function(answer):
            return self._result(NOT_YET, _read.function_passed(answer))
        try:
            message = self._checker(answer)
        except CheckFailed as exc:
            return self._result(NOT_YET, str(exc))
        except ReadTimeout as exc:
            return self._result(NOT_YET, after_colon(str(exc)))
        except Exception as exc:  # the learner's pipeline failed while being read: a sentence, original in details
            return self._result(NOT_YET, explain_error(exc), details=original_error(exc))
        return self._result(CORRECT, message)

    def _result(self, status: str, message: str, details: str | None = None) -> Result:
        """A result whose message starts with the question's title, in the current language."""
        title = _(self.title)
        # Translators: a checked answer's message: the question's title, then what the checker says.
        return Result(status, _("{title}: {message}").format(title=title, message=message), title, details=details)

    def hint(self, number: int | None = None) -> Text:
        """The next hint, or hint ``number`` (counting from 1); after the last one, says so.

        ``hint(1)`` goes back to the first hint, and ``hint()`` then goes on from there.
        """
        total = len(self.hints)
        if not total:
            return Text(_("Hint"), _("No hints for this one: try the solution."))
        if number is None:
            if self._hints_shown >= total:
                return Text(_("Hint {number}/{total}").format(number=total, total=total),
                            sentences(_(self.hints[-1]), _("(That was the last hint: hint(1) shows the first again, "
                                                           "and solution() shows one answer.)")))
            number = self._hints_shown + 1
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= total:
            raise ValueError(ngettext(
                "{title} has {total} hint: ask for hint() or hint(n) with a whole number n from 1 to {total}, "
                "got {got}.",
                "{title} has {total} hints: ask for hint() or hint(n) with a whole number n from 1 to {total}, "
                "got {got}.", total).format(title=_(self.title), total=total, got=shorten(number, 30)))
        self._hints_shown = number
        last = _("(This is the last hint: hint(1) shows the first again.)") if number == total and total > 1 else ""
        # Translators: the label of a hint: "Hint 1/2" is the first of two.
        return Text(_("Hint {number}/{total}").format(number=number, total=total),
                    sentences(_(self.hints[number - 1]), last))

    def solution(self) -> Text:
        """One correct answer, as code; never raises (a solution that cannot be shown says why)."""
        try:
            return Text(_("Solution"), self.solution_code, code=True)
        except CheckFailed as exc:
            reason = str(exc)
        except Exception as exc:  # a computed solution whose pipeline failed: a sentence, never a traceback
            reason = explain_error(exc)
        # Translators: {reason} is a sentence saying what failed.
        return Text(_("Solution"), _("the solution could not be computed here: {reason}").format(reason=reason))

    def solution_answer(self) -> Any:
        """Run the solution code and return the value it gives ``answer_name`` (used by the tests)."""
        import sys

        import numpy as np
        import tensorflow as tf

        tutor = sys.modules[__name__.partition(".")[0]]  # the package this module belongs to, loaded already
        namespace: dict[str, Any] = {"tf": tf, "np": np, "tutor": tutor, **(self.context() if self.context else {})}
        exec(self.solution_code, namespace)
        if self.answer_name not in namespace:
            raise RuntimeError(f"{self.title}: the solution code does not define `{self.answer_name}`.")
        return namespace[self.answer_name]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.title!r})"


class FunctionQuestion(Question):
    """A question answered with a function ``f(source) -> Dataset``; ``return ...`` counts as not attempted.

    The checker reads the function's dataset with ``question.dataset_of(answer)``, which calls it on a fresh
    ``source()`` and says in a sentence what went wrong (a dataset passed instead, ``return`` forgotten).
    The lesson's cell checks the function by its ``name``, so the solution defines that function.
    """

    takes_function = True

    def __init__(self, title: str, checker: Callable[[Any], str], hints: Sequence[str], solution: str, *,
                 name: str, source: Callable[[], Any]):
        self.name, self.source = name, source
        super().__init__(title, checker, hints, solution, answer_name=name)

    def check(self, answer: Any = ...) -> Result:
        if _read.is_function(answer):
            try:
                placeholder = answer(self.source()) is ...
            except Exception:  # the real check reports it
                placeholder = False
            if placeholder:
                return super().check(...)
        return super().check(answer)

    def dataset_of(self, answer: Any):
        """Call the learner's function on a fresh source; fail unless it returns a dataset."""
        return _read.called_dataset(answer, self.name, self.source)


# ------------------------------------------------------------------ predictions
def questions_in(module: Any) -> dict[str, Question]:
    """Every question a lesson's check module defines, by name, in name order.

    The one rule for finding a lesson's questions: whatever the name (``q1``, ``predict_sizes``), a module-level
    :class:`Question` is one. The tests and the exercise check after each lesson's run both use it.

    >>> from tutor.checks import lesson02
    >>> list(questions_in(lesson02))
    ['predict_sizes', 'q1', 'q2', 'q3']
    """
    return {name: value for name, value in sorted(vars(module).items()) if isinstance(value, Question)}


class PredictQuestion(Question):
    """A prediction about a real pipeline, checked by running it.

    Parameters
    ----------
    title : str
    pipeline : callable
        ``pipeline() -> tf.data.Dataset``: the real pipeline, built fresh for every check.
    truth : callable, optional
        ``truth(elements) -> answer``: what the right prediction is, from the
        pipeline's elements (plain lists and numbers). Default: all elements.
    ask : str
        What to predict, in words ("the ids in the second window, as a list"), marked with ``N_``.
    code : str, optional
        The pipeline as the lesson shows it; the solution quotes it (words, not code, are marked with ``N_``).
    row : str
        What one element is called in messages: a key of ``ROWS`` in :mod:`tutor.checks._compare` ("batch",
        "window", "element").
    hints : list of str
    max_elements : int
        Reading bound; a pipeline that gives more fails the check.
    first_difference : bool
        When the right items come in a different order, also say which position
        differs first (for questions about an order: interleave, choose_from_datasets).
    answer_name : str
        The variable the lesson's cell passes (``answer`` or ``prediction``); the solution assigns it.

    A prediction may be written in any plain form: a list, a tuple, ``range(...)``,
    a NumPy array, dict keys or a generator all read as the same list
    (:func:`as_prediction`).

    >>> q = PredictQuestion("first two", lambda: tf.data.Dataset.range(5), truth=lambda xs: xs[:2], ask="the first two ids")
    >>> q.check([0, 1]).passed, "in a different order" in q.check([1, 0]).message
    (True, True)
    """

    takes_function = True  # a function is refused by _score with its own sentence: predict, do not build

    def __init__(self, title: str, pipeline: Callable[[], Any], *, truth: Callable[[list], Any] | None = None,
                 ask: str = N_("what the pipeline produces"), code: str | None = None, row: str = "element",
                 hints: Sequence[str] = (), max_elements: int = 1000, first_difference: bool = False,
                 answer_name: str = "answer"):
        self.pipeline, self.truth, self.ask, self.code, self.row = pipeline, truth, ask, code, row
        self.first_difference = first_difference
        self.max_elements = max_elements
        super().__init__(title, self._score, hints=list(hints), solution="", answer_name=answer_name)

    def actual(self) -> Any:
        """Run the pipeline and return the right prediction."""
        found = plain(_read.elements(_read.dataset(self.pipeline()), self.max_elements))
        return plain(self.truth(found)) if self.truth is not None else found

    @property
    def solution_code(self) -> str:  # computed from the real pipeline, so it can never go stale
        # Translators: a comment in a computed solution: what to predict, then the pipeline's code.
        comment = _("{ask}, for {code}").format(ask=_(self.ask), code=_(self.code)) if self.code else _(self.ask)
        return f"# {comment}\n{self.answer_name} = {self.actual()!r}"

    @solution_code.setter
    def solution_code(self, value: str) -> None:  # Question.__init__ sets it; the property computes it
        pass

    def _refuse_pipelines(self, prediction: Any) -> None:
        if _read.is_function(prediction) or _read.is_dataset(prediction) or isinstance(prediction, tf.data.Iterator):
            # Translators: {ask} says what to predict ("the ids in the second window, as a list").
            fail(_("write down your prediction as a value ({ask}), not a pipeline: the point is to guess before "
                   "running it.").format(ask=_(self.ask)))

    def _score(self, prediction: Any) -> str:
        self._refuse_pipelines(prediction)
        difference = describe_difference(prediction, self.actual(), row=self.row,
                                          first_difference=self.first_difference)
        if difference is not None:
            fail(sentences(difference, _("Look again at what the pipeline does, then run the picture below to see "
                                         "it.")))
        return _("that is exactly what the pipeline produces ({ask}).").format(ask=_(self.ask))


class SetPrediction(PredictQuestion):
    """A prediction of a set of numbers: order and repeats in the answer do not matter."""

    def _score(self, prediction: Any) -> str:
        self._refuse_pipelines(prediction)
        if isinstance(prediction, np.ndarray):
            prediction = prediction.ravel()
        value = as_prediction(prediction)
        if isinstance(value, (set, frozenset)):
            value = list(value)
        if isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            value = sorted({plain(v) for v in value})
        return super()._score(value)
