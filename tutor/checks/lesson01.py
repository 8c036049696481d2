"""Exercises for lesson 01: datasets from data.

>>> from tutor.checks import lesson01 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from . import _read
from ._core import Question, fail

WORDS = ["cat", "dog", "fish"]
ROWS = [[1, 2], [3], [4, 5, 6]]


def _check_pairs(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2):
        fail(f"each element should be a (word, length) tuple, but element_spec is {spec}. "
             "Pass a tuple of two lists to from_tensor_slices.")
    got = _read.elements(ds, 20)
    want = [(w.encode(), len(w)) for w in WORDS]
    if len(got) != len(want):
        fail(f"expected {len(want)} elements, one per word, got {len(got)}.")
    for i, ((word, length), (w, n)) in enumerate(zip(got, want)):
        if word != w:
            fail(f"element {i} holds word {word!r}; expected {w!r}. Keep the words in their original order.")
        if int(length) != n:
            fail(f"element {i} is ({word!r}, {int(length)}); its length should be {n}.")
    return "each element pairs a word with its length, like (features, label)."


def _check_ragged(answer) -> str:
    ds = _read.dataset(answer)
    got = _read.elements(ds, 20)
    if len(got) != len(ROWS):
        fail(f"expected {len(ROWS)} elements (one per row), got {len(got)}.")
    for i, (row, want) in enumerate(zip(got, ROWS)):
        values = np.asarray(row).tolist()
        if values != want:
            hint = " Padding adds zeros that were never in the data; keep each row its own length." if len(values) > len(want) else ""
            fail(f"element {i} is {values}; expected {want}.{hint}")
    return "each row keeps its own length: tf.ragged.constant made that possible."


def _check_zip(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], tuple) and len(spec[1]) == 2):
        fail(f"each element should look like (x, (y1, y2)); element_spec is {spec}. "
             "Zip the x dataset with a dataset of (y1, y2) pairs: tf.data.Dataset.zip((xs, ys)).")
    got = _read.elements(ds, 20)
    if len(got) != 5:
        fail(f"expected 5 elements, got {len(got)}.")
    for i, (x, (y1, y2)) in enumerate(got):
        want = (i - 5, i, i + 10)
        if (int(x), int(y1), int(y2)) != want:
            fail(f"element {i} is ({int(x)}, ({int(y1)}, {int(y2)})); expected ({want[0]}, ({want[1]}, {want[2]})).")
    return "one input and two outputs per element, ready for a multi-output model."


q1 = Question(
    "q1 (words and lengths)",
    _check_pairs,
    hints=[
        "from_tensor_slices slices every component of a tuple along its first axis.",
        "Build the list of lengths with [len(w) for w in words].",
    ],
    solution="""
    words = ["cat", "dog", "fish"]
    answer = tf.data.Dataset.from_tensor_slices((words, [len(w) for w in words]))
    """,
)

q2 = Question(
    "q2 (rows of different lengths)",
    _check_ragged,
    hints=[
        "from_tensor_slices([[1, 2], [3], [4, 5, 6]]) fails because a list of unequal rows is not a rectangular tensor.",
        "tf.ragged.constant builds a tensor whose rows may differ in length.",
    ],
    solution="""
    answer = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    """,
)

q3 = Question(
    "q3 (one input, two outputs)",
    _check_zip,
    hints=[
        "Make xs from tf.range(-5, 0) and ys from a tuple (tf.range(5), tf.range(10, 15)).",
        "Dataset.zip takes a tuple of datasets and keeps their nesting.",
    ],
    solution="""
    xs = tf.data.Dataset.from_tensor_slices(tf.range(-5, 0))
    ys = tf.data.Dataset.from_tensor_slices((tf.range(5), tf.range(10, 15)))
    answer = tf.data.Dataset.zip((xs, ys))
    """,
)

__all__ = ["q1", "q2", "q3"]
