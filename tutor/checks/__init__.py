"""Exercises that check themselves, one module per lesson.

>>> from tutor.checks import lesson02 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from ._core import CheckFailed, Question, Result, fail

__all__ = ["CheckFailed", "Question", "Result", "fail"]
