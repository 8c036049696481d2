"""Predict, then run: a question whose answer is what a real pipeline will produce.

The learner writes down a prediction before the picture is drawn, for example
"which ids are in the second window?". ``check`` runs the real pipeline (bounded
in elements and in time), scores the prediction and says exactly what differs::

    q = PredictQuestion(
        "the second window",
        lambda: tf.data.Dataset.range(10).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3)),
        code="tf.data.Dataset.range(10).window(3, shift=2, drop_remainder=True)",
        truth=lambda windows: windows[1],
        ask="the ids in the second window, as a list",
    )
    q.check([2, 3, 4])     # Correct
    q.check([3, 4, 5])     # Not yet: ... 5 is not in it, 2 is missing

>>> q = PredictQuestion("first two", lambda: tf.data.Dataset.range(5), truth=lambda xs: xs[:2], ask="the first two ids")
>>> q.check([0, 1]).passed, "in a different order" in q.check([1, 0]).message
(True, True)
"""
from __future__ import annotations

from typing import Any, Callable, Sequence


from . import _read
from ._core import Question, fail, shorten
from ._read import plain


def describe_difference(predicted: Any, actual: Any, *, row: str = "row", first_difference: bool = False) -> str | None:
    """``None`` when ``predicted`` equals ``actual``; otherwise one sentence saying what differs.

    Works on numbers, strings, flat lists (order matters) and lists of lists
    (batches, windows), where the first differing ``row`` is named.

    >>> describe_difference([[0, 1], [2, 3]], [[0, 1], [2, 4]], row="batch")
    'batch 1 differs: you predicted [2, 3]; the pipeline gives [2, 4].'
    """
    predicted, actual = plain(predicted), plain(actual)
    if predicted == actual:
        return None
    if not isinstance(actual, list):
        return f"you predicted {shorten(predicted)}; the pipeline gives {shorten(actual)}."
    if not isinstance(predicted, list):
        return (f"the answer is a list of {len(actual)} item{'s' if len(actual) != 1 else ''}; "
                f"you predicted {shorten(predicted)}.")
    nested = any(isinstance(a, list) for a in actual)
    if nested:
        if len(predicted) != len(actual):
            return f"you predicted {_count(len(predicted), row)}; the pipeline gives {len(actual)}."
        for k, (p, a) in enumerate(zip(predicted, actual)):
            if p != a:
                return f"{row} {k} differs: you predicted {shorten(p)}; the pipeline gives {shorten(a)}."
    if sorted(map(repr, predicted)) == sorted(map(repr, actual)):
        if first_difference:  # where an order question goes wrong is the useful part
            k = next(i for i, (p, a) in enumerate(zip(predicted, actual)) if p != a)
            return (f"the right items, in a different order: position {k} holds {shorten(actual[k], 30)}, "
                    f"you predicted {shorten(predicted[k], 30)}.")
        return "the right items, in a different order."
    extra = _minus(predicted, actual)
    missing = _minus(actual, predicted)
    parts = []
    if extra:
        parts.append(f"{_list(extra)} {'is' if len(extra) == 1 else 'are'} not in it" +
                     (" (or not that often)" if any(x in actual for x in extra) else ""))
    if missing:
        parts.append(f"{_list(missing)} {'is' if len(missing) == 1 else 'are'} missing")
    return "; ".join(parts) + "."


def _minus(items: list, other: list) -> list:
    """``items`` without one copy of each item of ``other`` (a multiset difference that keeps order)."""
    left = list(other)
    out = []
    for item in items:
        if item in left:
            left.remove(item)
        else:
            out.append(item)
    return out


def _count(n: int, noun: str) -> str:
    """``'1 window'``, ``'3 windows'``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _list(items: Sequence[Any]) -> str:
    return shorten(items[0], 30) if len(items) == 1 else shorten(items, 60)


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
        What to predict, in words ("the ids in the second window, as a list").
    code : str, optional
        The pipeline as the lesson shows it; the solution quotes it.
    row : str
        What one element is called in messages ("batch", "window", "element").
    hints : list of str
    max_elements : int
        Reading bound; a pipeline that gives more fails the check.
    first_difference : bool
        When the right items come in a different order, also say which position
        differs first (for questions about an order: interleave, choose_from_datasets).
    """

    def __init__(self, title: str, pipeline: Callable[[], Any], *, truth: Callable[[list], Any] | None = None,
                 ask: str = "what the pipeline produces", code: str | None = None, row: str = "element",
                 hints: Sequence[str] = (), max_elements: int = 1000, first_difference: bool = False):
        self.pipeline, self.truth, self.ask, self.code, self.row = pipeline, truth, ask, code, row
        self.first_difference = first_difference
        self.max_elements = max_elements
        super().__init__(title, self._score, hints=list(hints), solution="")

    def actual(self) -> Any:
        """Run the pipeline and return the right prediction."""
        elements = plain(_read.elements(_read.dataset(self.pipeline()), self.max_elements))
        return plain(self.truth(elements)) if self.truth is not None else elements

    @property
    def solution_code(self) -> str:  # computed from the real pipeline, so it can never go stale
        comment = f"# {self.ask}" + (f", for {self.code}" if self.code else "")
        return f"{comment}\nanswer = {self.actual()!r}"

    @solution_code.setter
    def solution_code(self, value: str) -> None:  # Question.__init__ sets it; the property computes it
        pass

    def _score(self, prediction: Any) -> str:
        if callable(prediction) or _is_dataset(prediction):
            fail(f"write down your prediction as a value ({self.ask}), not a pipeline: the point is to guess "
                 "before running it.")
        difference = describe_difference(prediction, self.actual(), row=self.row,
                                          first_difference=self.first_difference)
        if difference is not None:
            fail(f"{difference} Look again at what the pipeline does, then run the picture below to see it.")
        return f"that is exactly what the pipeline produces ({self.ask})."


def _is_dataset(value: Any) -> bool:
    import tensorflow as tf

    return isinstance(value, tf.data.Dataset)
