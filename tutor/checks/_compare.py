"""Comparing a prediction with what a real pipeline gives: :func:`as_prediction` and :func:`describe_difference`.

A prediction may be written in any plain form (a list, ``range``, a generator, a NumPy array); it is read as
plain Python first, then compared, and what differs is said in one sentence in the current language.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from . import _read
from ._core import fail, shorten
from ._read import plain


#: The most items a prediction given as a generator or iterator is read to.
PREDICTION_LIMIT = 10_000


def as_prediction(value: Any) -> Any:
    """A predicted value as plain Python: every non-string iterable of values reads as a list.

    ``range(3)``, ``dict.keys()``, a generator, a tuple, a NumPy array and an
    eager tensor all read as the list ``[0, 1, 2]``, nested ones as lists of
    lists; a set stays a set (it has no order), and numbers, strings and dicts
    stay what they are (see :func:`tutor.checks._read.plain`).

    >>> as_prediction(range(3)), as_prediction({5: "a", 6: "b"}.keys()), as_prediction(x * 2 for x in range(3))
    ([0, 1, 2], [5, 6], [0, 2, 4])
    >>> as_prediction([range(2), (2, 3)])
    [[0, 1], [2, 3]]
    """
    if value is None or isinstance(value, (str, bytes, dict, set, frozenset, np.ndarray, np.generic, int, float)):
        return plain(value)
    if tf.is_tensor(value) and hasattr(value, "numpy"):
        return plain(value.numpy())
    if isinstance(value, (list, tuple, range)):
        return [as_prediction(v) for v in value]
    if isinstance(value, Iterable) and not _read.is_dataset(value) and not isinstance(value, tf.data.Iterator):
        items = list(itertools.islice(iter(value), PREDICTION_LIMIT + 1))
        if len(items) > PREDICTION_LIMIT:
            fail(_("your prediction goes on for more than {limit:,} items: write it as a list.").format(
                limit=PREDICTION_LIMIT))
        return [as_prediction(v) for v in items]
    return plain(value)


def describe_difference(predicted: Any, actual: Any, *, row: str = "row", first_difference: bool = False) -> str | None:
    """``None`` when ``predicted`` equals ``actual``; otherwise one sentence saying what differs.

    Works on numbers, strings, flat lists (order matters) and lists of lists
    (batches, windows), where the first differing ``row`` is named (one of :data:`ROWS`).

    >>> describe_difference([[0, 1], [2, 3]], [[0, 1], [2, 4]], row="batch")
    'batch 1 differs: you predicted [2, 3]; the pipeline gives [2, 4].'
    >>> describe_difference([0, 1, 2], [[0, 1], [2]], row="batch")
    'the answer is a list of 2 batches, each a list; you predicted a flat list [0, 1, 2]: group it into batches.'
    >>> describe_difference([[4, 5], [6, 7]], [4, 5])
    'the answer is one flat list of 2 items; you predicted a list of lists [[4, 5], [6, 7]]. Write the items in one list.'
    """
    predicted, actual = as_prediction(predicted), as_prediction(actual)
    if predicted == actual:
        return None
    if not isinstance(actual, list):
        return _("you predicted {predicted}; the pipeline gives {actual}.").format(predicted=shorten(predicted),
                                                                                   actual=shorten(actual))
    if not isinstance(predicted, list):
        # Translators: {count} is a number of items, such as "3 items".
        return _("the answer is a list of {count}; you predicted {predicted}.").format(
            count=_count(len(actual), "item"), predicted=shorten(predicted))
    nested = any(isinstance(a, list) for a in actual)
    if nested:
        if predicted and not any(isinstance(p, list) for p in predicted):
            # Translators: {count} counts rows ("2 batches", "3 windows"); {rows} is the plural noun ("batches").
            return _("the answer is a list of {count}, each a list; you predicted a flat list {predicted}: group it "
                     "into {rows}.").format(count=_count(len(actual), row), predicted=shorten(predicted, 60),
                                            rows=_row_word(row, plural=True))
        if len(predicted) != len(actual):
            # Translators: {count} counts rows ("2 batches", "3 windows"); {n} is a number.
            return _("you predicted {count}; the pipeline gives {n}.").format(count=_count(len(predicted), row),
                                                                              n=len(actual))
        for k, (p, a) in enumerate(zip(predicted, actual)):
            if p != a:
                # Translators: {row} is what one element is called ("batch", "window"); {k} its position from 0.
                return _("{row} {k} differs: you predicted {predicted}; the pipeline gives {actual}.").format(
                    row=_row_word(row), k=k, predicted=shorten(p), actual=shorten(a))
    elif any(isinstance(p, list) for p in predicted):
        return _("the answer is one flat list of {count}; you predicted a list of lists {predicted}. Write the items "
                 "in one list.").format(count=_count(len(actual), "item"), predicted=shorten(predicted, 60))
    if sorted(map(repr, predicted)) == sorted(map(repr, actual)):
        if first_difference:  # where an order question goes wrong is the useful part
            k = next(i for i, (p, a) in enumerate(zip(predicted, actual)) if p != a)
            return _("the right items, in a different order: position {k} holds {actual}, you predicted "
                     "{predicted}.").format(k=k, actual=shorten(actual[k], 30), predicted=shorten(predicted[k], 30))
        return _("the right items, in a different order.")
    extra = _minus(predicted, actual)
    missing = _minus(actual, predicted)
    wrong = missing_text = ""
    if extra:  # the learner's own items: naming a few gives nothing away
        if any(x in actual for x in extra):
            # Translators: {items} is one item, a list, or "7 of your items, such as 1, 2, 3," (see below).
            wrong = ngettext("{items} is not in it (or not that often)", "{items} are not in it (or not that often)",
                             len(extra))
        else:
            wrong = ngettext("{items} is not in it", "{items} are not in it", len(extra))
        wrong = wrong.format(items=_list(extra))
    if missing:  # the answer's items: say how many, and one of them only when that leaves others to find
        if len(missing) > 2:
            # Translators: {example} is one of the missing items.
            missing_text = ngettext("{n} item of the answer is missing, such as {example}",
                                    "{n} items of the answer are missing, such as {example}", len(missing))
        else:
            missing_text = ngettext("{n} item of the answer is missing", "{n} items of the answer are missing",
                                    len(missing))
        missing_text = missing_text.format(n=len(missing), example=shorten(missing[0], 30))
    if wrong and missing_text:
        # Translators: two clauses, each translated above: what is wrong in a prediction, then what is missing.
        return _("{wrong}; {missing}.").format(wrong=wrong, missing=missing_text)
    # Translators: one clause, translated above, made a sentence.
    return _("{clause}.").format(clause=wrong or missing_text)


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


#: What one element of a prediction is called in messages (``PredictQuestion(row=...)``): singular, plural.
ROWS = {"row": (N_("row"), N_("rows")), "batch": (N_("batch"), N_("batches")),
        "window": (N_("window"), N_("windows")), "element": (N_("element"), N_("elements")),
        "item": (N_("item"), N_("items"))}


def _plural(noun: str) -> str:
    return noun + ("es" if noun.endswith(("sh", "ch", "s", "x")) else "s")


def _row_word(noun: str, plural: bool = False) -> str:
    """The noun of :data:`ROWS`, translated; another noun stays as it is (English)."""
    if noun in ROWS:
        return _(ROWS[noun][1 if plural else 0])
    return _plural(noun) if plural else noun


def _count(n: int, noun: str) -> str:
    """``'1 window'``, ``'3 windows'``, ``'2 batches'``."""
    if noun == "item":
        return ngettext("{n} item", "{n} items", n).format(n=n)
    if noun == "batch":
        return ngettext("{n} batch", "{n} batches", n).format(n=n)
    if noun == "window":
        return ngettext("{n} window", "{n} windows", n).format(n=n)
    if noun == "element":
        return ngettext("{n} element", "{n} elements", n).format(n=n)
    if noun == "row":
        return ngettext("{n} row", "{n} rows", n).format(n=n)
    return f"{n} {noun if n == 1 else _plural(noun)}"


def _list(items: Sequence[Any]) -> str:
    """One item, a few, or the count and the first few: never a cut-off text."""
    if len(items) == 1:
        return shorten(items[0], 30)
    text = repr(items)
    if len(items) <= 6 and len(text) <= 60:
        return text
    # Translators: the subject of "... are not in it": a count, then the first three of the learner's items.
    return _("{n} of your items, such as {examples},").format(n=len(items),
                                                              examples=", ".join(shorten(i, 20) for i in items[:3]))
