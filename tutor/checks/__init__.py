"""Exercises that check themselves, one module per lesson (``lessonNN.py``).

>>> from tutor.checks import lesson02 as ex
>>> ex.q1.check(...).status
'unattempted'

* :class:`Question`: an exercise with a checker, hints and a solution.
* :class:`PredictQuestion`: predict what a real pipeline produces, then run it and compare.
* :func:`fail`: inside a checker, stop with a message that teaches.
"""
from ._core import CheckFailed, Question, Result, fail
from .predict import PredictQuestion, describe_difference

__all__ = ["CheckFailed", "PredictQuestion", "Question", "Result", "describe_difference", "fail"]
