"""Exercises that check themselves, one module per lesson (``lessonNN.py``).

>>> from tutor.checks import lesson02 as ex
>>> ex.q1.check(...).status
'unattempted'

The framework, which lesson modules use and never extend with each other's code:

* :mod:`~tutor.checks.questions`: every question type. :class:`Question` (a checker, hints, a solution),
  :class:`FunctionQuestion` (answered with a function the checker calls), :class:`PredictQuestion` (predict what
  a real pipeline produces, then run it) and :class:`SetPrediction` (a predicted set of numbers).
* :mod:`~tutor.checks._compare`: a prediction read as plain Python and compared with the truth, in one sentence.
* :mod:`~tutor.checks._read`: reading an answer (a dataset, its elements, text, a letter) with a sentence for
  anything else; :mod:`~tutor.checks._stages`: its stages, and the rules that need them (the splitting rule).
* :mod:`~tutor.checks._core`: :class:`Result`, :func:`fail` (stop a checker with a message that teaches), and the
  sentences for errors a learner's pipeline raises.
"""
from ._core import CheckFailed, Result, fail
from .questions import FunctionQuestion, PredictQuestion, Question, SetPrediction, describe_difference, questions_in

__all__ = ["CheckFailed", "FunctionQuestion", "PredictQuestion", "Question", "Result", "SetPrediction",
           "describe_difference", "fail", "questions_in"]
