"""The warm-up exercise of lesson 00: how checking works.

>>> from tutor.checks import lesson00 as ex
>>> ex.q1.check(tf.data.Dataset.range(5)).passed
True
"""
from __future__ import annotations

import tensorflow as tf

from . import _read, _stages
from ._core import fail, shorten
from .questions import Question


WANT = [0, 1, 2, 3, 4]


def _check_range(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if not isinstance(spec, tf.TensorSpec):
        fail(f"each element is {_read.describe_spec(spec)}; expected single numbers, one per element.")
    if _read.is_text(spec):
        fail("the elements are text (strings such as \"0\"), not numbers. Use tf.data.Dataset.range, or a list "
             "of numbers without quotes.")
    if spec.dtype == tf.bool or not (spec.dtype.is_integer or spec.dtype.is_floating):
        fail(f"each element is {_read.describe_spec(spec)}; expected whole numbers.")
    if spec.shape.rank not in (0, None):
        fail(_stages.several_values_hint(ds, "one number"))
    values = _read.values(ds, 50)
    numbers = [_read.whole(v) for v in values]
    if numbers == WANT:
        return "five elements, 0 to 4. That is how every exercise is checked."
    if not values:
        fail("your dataset is empty: it produced no element.")
    if sorted(map(repr, numbers)) == sorted(map(repr, WANT)):
        fail(f"your dataset gives {values}: the right numbers in a different order. Keep them in order, 0 to 4.")
    if None in numbers:
        fail(f"your dataset gives {shorten(values, 60)}; expected the whole numbers {WANT}.")
    if numbers == list(range(1, 6)):
        fail("your dataset gives [1, 2, 3, 4, 5]: it starts at 1. tf.data.Dataset.range(n) counts from 0, like "
             "Python's range.")
    if numbers == WANT[: len(numbers)]:
        fail(f"your dataset gives {values}: it stops at {numbers[-1]}. range(n) stops before n, so it needs "
             "range(5) to reach 4.")
    if len(numbers) % 5 == 0 and numbers == WANT * (len(numbers) // 5):
        fail(f"your dataset gives 0 to 4 {len(numbers) // 5} times over: leave repeat() out.")
    if numbers == list(range(len(numbers))):
        fail(f"your dataset gives {len(numbers)} elements, {shorten(values, 40)}: it goes past 4. range(n) stops "
             "before n, so range(5) ends at 4.")
    fail(f"your dataset gives {shorten(values, 60)}; expected {WANT}.")


q1 = Question(
    "q1 (warm-up)",
    _check_range,
    hints=["tf.data.Dataset.range(n) counts from 0 up to n - 1, like Python's range."],
    solution="""
    answer = tf.data.Dataset.range(5)
    """,
)

__all__ = ["q1"]
