"""The warm-up exercise of lesson 00: how checking works.

>>> from tutor.checks import lesson00 as ex
>>> ex.q1.check(tf.data.Dataset.range(5)).passed
True
"""
from __future__ import annotations

from . import _read
from ._core import Question, fail


def _check_range(answer) -> str:
    ds = _read.dataset(answer)
    values = [int(v) for v in _read.elements(ds, 50)]
    if values != list(range(5)):
        fail(f"your dataset gives {values}; expected [0, 1, 2, 3, 4].")
    return "five elements, 0 to 4. That is how every exercise is checked."


q1 = Question(
    "q1 (warm-up)",
    _check_range,
    hints=["tf.data.Dataset.range(n) counts from 0 up to n - 1."],
    solution="""
    answer = tf.data.Dataset.range(5)
    """,
)

__all__ = ["q1"]
