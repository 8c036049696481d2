"""The warm-up exercise of lesson 00: how checking works.

>>> from tutor.checks import lesson00 as ex
>>> ex.q1.check(tf.data.Dataset.range(5)).passed
True
"""
from __future__ import annotations

import tensorflow as tf

from ..i18n import N_
from ..i18n import gettext as _
from . import _read, _stages
from ._core import fail, shorten
from .questions import Question


WANT = [0, 1, 2, 3, 4]


def _check_range(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if not isinstance(spec, tf.TensorSpec):
        fail(_("each element is {spec}; expected single numbers, one per element.").format(
            spec=_read.describe_spec(spec)))
    if _read.is_text(spec):
        fail(_("the elements are text (strings such as \"0\"), not numbers. Use tf.data.Dataset.range, or a list "
               "of numbers without quotes."))
    if spec.dtype == tf.bool or not (spec.dtype.is_integer or spec.dtype.is_floating):
        fail(_("each element is {spec}; expected whole numbers.").format(spec=_read.describe_spec(spec)))
    if spec.shape.rank not in (0, None):
        fail(_stages.several_values_hint(ds, _("one number")))
    values = _read.values(ds, 50)
    numbers = [_read.whole(v) for v in values]
    if numbers == WANT:
        return _("five elements, 0 to 4. That is how every exercise is checked.")
    if not values:
        fail(_("your dataset is empty: it produced no element."))
    if sorted(map(repr, numbers)) == sorted(map(repr, WANT)):
        # Translators: {values} is the learner's dataset as a Python list.
        fail(_("your dataset gives {values}: the right numbers in a different order. Keep them in order, 0 to "
               "4.").format(values=values))
    if None in numbers:
        fail(_("your dataset gives {values}; expected the whole numbers {want}.").format(
            values=shorten(values, 60), want=WANT))
    if numbers == list(range(1, 6)):
        fail(_("your dataset gives [1, 2, 3, 4, 5]: it starts at 1. tf.data.Dataset.range(n) counts from 0, like "
               "Python's range."))
    if numbers == WANT[: len(numbers)]:
        fail(_("your dataset gives {values}: it stops at {last}. range(n) stops before n, so it needs "
               "range(5) to reach 4.").format(values=values, last=numbers[-1]))
    if len(numbers) % 5 == 0 and numbers == WANT * (len(numbers) // 5):
        fail(_("your dataset gives 0 to 4 {times} times over: leave repeat() out.").format(times=len(numbers) // 5))
    if numbers == list(range(len(numbers))):
        fail(_("your dataset gives {n} elements, {values}: it goes past 4. range(n) stops "
               "before n, so range(5) ends at 4.").format(n=len(numbers), values=shorten(values, 40)))
    fail(_("your dataset gives {values}; expected {want}.").format(values=shorten(values, 60), want=WANT))


q1 = Question(
    N_("q1 (warm-up)"),
    _check_range,
    hints=[N_("tf.data.Dataset.range(n) counts from 0 up to n - 1, like Python's range.")],
    solution="""
    answer = tf.data.Dataset.range(5)
    """,
)

__all__ = ["q1"]
