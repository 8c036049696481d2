"""Exercises for lesson 01: datasets from data.

>>> from tutor.checks import lesson01 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

from typing import Any

import tensorflow as tf

from ..i18n import N_
from ..i18n import gettext as _
from . import _read, _stages
from ._core import fail, sentences, shorten
from .questions import Question


WORDS = ["cat", "dog", "fish"]
ROWS = [[1, 2], [3], [4, 5, 6]]


# ------------------------------------------------------------------ q1: (word, length) pairs
def _check_pairs(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if isinstance(spec, dict):
        fail(_("each element is {spec}; this exercise asks for (word, length) tuples. Pass a tuple "
               "of two lists to from_tensor_slices: (words, lengths).").format(spec=_read.describe_spec(spec)))
    if not isinstance(spec, (tuple, list)):
        if _read.is_text(spec) and spec.shape.rank == 0:
            fail(_("each element is a single word, without its length. Pass a tuple (words, lengths) to "
                   "from_tensor_slices, so that each element holds both."))
        fail(_("each element is {spec}; expected a (word, length) tuple. Pass a tuple "
               "(words, lengths) to from_tensor_slices.").format(spec=_read.describe_spec(spec)))
    if len(spec) != 2:
        fail(_("each element is {spec}; expected 2 parts: (word, length).").format(spec=_read.describe_spec(spec)))
    word_spec, length_spec = spec
    if not all(isinstance(s, tf.TensorSpec) for s in spec):
        fail(_("each element is {spec}; expected (word, length), a string and a number.").format(
            spec=_read.describe_spec(spec)))
    if word_spec.shape.rank not in (0, None) or length_spec.shape.rank not in (0, None):
        fail(_stages.several_values_hint(ds, _("one (word, length) pair")))
    if _read.is_number_spec(word_spec) and _read.is_text(length_spec):
        fail(_("the tuple is swapped: each element is (number, word). Put the word first: (word, length), "
               "for example (\"cat\", 3)."))
    if not _read.is_text(word_spec):
        fail(_("the first part of each element is {spec}; it should be the word itself.").format(
            spec=_read.describe_spec(word_spec)))
    if _read.is_text(length_spec):
        fail(_("the length is text (a string such as \"3\"), not a number. Build the lengths as numbers: "
               "[len(w) for w in words]."))
    if not _read.is_number_spec(length_spec) or length_spec.dtype == tf.bool:
        fail(_("the second part is {spec}; it should be the word's length, a whole number.").format(
            spec=_read.describe_spec(length_spec)))
    got = _read.values(ds, 20)
    if len(got) != len(WORDS):
        more = _("Did you repeat() or concatenate()?") if len(got) > len(WORDS) else ""
        fail(sentences(_("expected {n} elements, one per word, got {got}.").format(n=len(WORDS), got=len(got)), more))
    words = [w for w, _unused in got]
    if words != WORDS:
        # Translators: {words} is the learner's words as a Python list; {want} the exercise's list.
        if sorted(words) == sorted(WORDS):
            fail(_("the words come out as {words} in a different order; expected {want}, the list `words` in its "
                   "order.").format(words=shorten(words, 60), want=WORDS))
        fail(_("the words come out as {words}; expected {want}, the list `words` in its order.").format(
            words=shorten(words, 60), want=WORDS))
    for i, (word, length) in enumerate(got):
        if _read.whole(length) != len(word):
            # Translators: {i} is the element's position from 0; {word} a word in quotes; {length} a number.
            fail(_("element {i} is ({word!r}, {length}), but {word!r} has {n} letters. "
                   "Compute each length from its word: [len(w) for w in words].").format(
                i=i, word=word, length=shorten(length, 20), n=len(word)))
    return _("each element pairs a word with its length, like (features, label).")


# ------------------------------------------------------------------ q2: rows of different lengths
def _check_ragged(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if not isinstance(spec, (tf.TensorSpec, tf.RaggedTensorSpec)):
        fail(_("each element is {spec}; expected one row of numbers per element.").format(
            spec=_read.describe_spec(spec)))
    if _read.is_text(spec):
        fail(_("the elements are text (strings), not numbers. Build the rows from numbers: "
               "tf.ragged.constant([[1, 2], [3], [4, 5, 6]])."))
    if spec.shape.rank == 0:
        fail(_("each element is a single number: the rows were flattened into one list. Slice a ragged tensor, "
               "tf.ragged.constant(rows), so that each element is one whole row."))
    got = _read.values(ds, 20)
    if len(got) == 1 and got[0] == ROWS:
        fail(_stages.several_values_hint(ds, _("one row")))
    if len(got) != len(ROWS):
        fail(_("expected {n} elements (one per row), got {got}.").format(n=len(ROWS), got=len(got)))
    if got != ROWS and sorted(map(repr, got)) == sorted(map(repr, ROWS)):
        fail(_("the rows come out as {got}: the right rows in a different order. Keep the order "
               "[1, 2], [3], [4, 5, 6].").format(got=shorten(got, 60)))
    for i, (row, want) in enumerate(zip(got, ROWS)):
        if row == want:
            continue
        if isinstance(row, list) and len(row) > len(want) and row[:len(want)] == want and not any(row[len(want):]):
            fail(_("element {i} is {row}: padding added zeros that were never in the data. Keep each row its own "
                   "length with tf.ragged.constant.").format(i=i, row=row))
        fail(_("element {i} is {row}; expected {want}.").format(i=i, row=shorten(row, 40), want=want))
    return _("each element is one row, and each row keeps its own length.")


# ------------------------------------------------------------------ q3: (x, (y1, y2))
def _layout(spec: Any) -> str:
    """The nesting of an element spec, with ``·`` for each tensor: ``(·, (·, ·))``."""
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k}: {_layout(v)}" for k, v in spec.items()) + "}"
    if isinstance(spec, (tuple, list)):
        return "(" + ", ".join(_layout(s) for s in spec) + ")"
    return "·"


_WANT_Q3 = {"x": list(range(-5, 0)), "y1": list(range(5)), "y2": list(range(10, 15))}


def _check_zip(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    layout = _layout(spec)
    if layout != "(·, (·, ·))":
        if layout == "(·, ·, ·)":
            fail(_("each element is a flat triple (x, y1, y2). Group the two outputs in their own tuple: "
                   "(x, (y1, y2)); zipping xs with a dataset of (y1, y2) pairs does that."))
        if layout == "((·, ·), ·)":
            first = _read.values(ds.take(1), 1)
            if first and [_read.whole(v) for v in tf.nest.flatten(first[0])] == [0, 10, -5]:
                fail(_("the tuple is swapped: each element is ((y1, y2), x). Put x first: zip (xs, ys), not (ys, xs)."))
            fail(_("each element is grouped as ((a, b), c); expected (x, (y1, y2)): x alone first, then the pair of "
                   "outputs."))
        if layout == "(·, ·)":
            fail(_("each element is a pair (x, y) with one output; the second part should itself be a pair "
                   "(y1, y2). Build ys from a tuple (y1 values, y2 values)."))
        if "{" in layout:
            fail(_("each element is {spec}; this exercise asks for tuples: (x, (y1, y2)).").format(
                spec=_read.describe_spec(spec)))
        fail(_("each element is {spec}; expected (x, (y1, y2)).").format(spec=_read.describe_spec(spec)))
    leaves = tf.nest.flatten(spec)
    if any(_read.is_text(s) for s in leaves):
        fail(_("some parts are text (strings); x, y1 and y2 should be numbers."))
    if not all(isinstance(s, tf.TensorSpec) and s.shape.rank in (0, None) for s in leaves):
        fail(_("each element is {spec}; x, y1 and y2 should each be a single number. "
               "Leave out batch(), and slice with from_tensor_slices.").format(spec=_read.describe_spec(spec)))
    got = _read.values(ds, 20)
    if len(got) != 5:
        fail(sentences(_("expected 5 elements, got {got}.").format(got=len(got)),
                       _("Is a range one too long?") if len(got) == 6 else ""))
    columns = {"x": [e[0] for e in got], "y1": [e[1][0] for e in got], "y2": [e[1][1] for e in got]}
    if columns["x"] == _WANT_Q3["y1"] and columns["y1"] == _WANT_Q3["x"]:
        fail(_("x and y1 are swapped: x should run over -5..-1 and y1 over 0..4."))
    for name, values in columns.items():
        want = _WANT_Q3[name]
        if [_read.whole(v) for v in values] != want:
            # Translators: {name} is x, y1 or y2; {values} and {want} are Python lists.
            fail(_("{name} runs over {values}; expected {want} (remember that tf.range(a, b) "
                   "stops before b).").format(name=name, values=shorten(values, 50), want=want))
    return _("one input and two outputs per element, ready for a multi-output model.")


q1 = Question(
    N_("q1 (words and lengths)"),
    _check_pairs,
    hints=[
        N_("from_tensor_slices slices every part of a tuple along its first axis, in step."),
        N_("Build the list of lengths with [len(w) for w in words], then pass (words, lengths)."),
    ],
    solution="""
    words = ["cat", "dog", "fish"]
    answer = tf.data.Dataset.from_tensor_slices((words, [len(w) for w in words]))
    """,
)

q2 = Question(
    N_("q2 (rows of different lengths)"),
    _check_ragged,
    hints=[
        N_("from_tensor_slices([[1, 2], [3], [4, 5, 6]]) fails because a list of unequal rows is not a rectangular "
           "tensor."),
        N_("tf.ragged.constant builds a tensor whose rows may differ in length; slice that."),
    ],
    solution="""
    answer = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    """,
)

q3 = Question(
    N_("q3 (one input, two outputs)"),
    _check_zip,
    hints=[
        N_("Make xs from tf.range(-5, 0), and ys from a tuple (tf.range(5), tf.range(10, 15))."),
        N_("Dataset.zip((xs, ys)) pairs them element by element and keeps the nesting you give it."),
    ],
    solution="""
    xs = tf.data.Dataset.from_tensor_slices(tf.range(-5, 0))
    ys = tf.data.Dataset.from_tensor_slices((tf.range(5), tf.range(10, 15)))
    answer = tf.data.Dataset.zip((xs, ys))
    """,
)

__all__ = ["q1", "q2", "q3"]
