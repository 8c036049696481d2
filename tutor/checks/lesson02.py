"""Exercises for lesson 02: batch and repeat.

>>> from tutor.checks import lesson02 as ex
>>> ex.q1.check(tf.data.Dataset.range(10).batch(4).repeat(3)).passed
True
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import tensorflow as tf

from . import _read
from ._core import Question, fail


def _check_no_mixing(answer) -> str:
    ds = _read.dataset(answer)
    batches = _read.id_batches(ds, 100)
    counts = Counter(i for b in batches for i in b)
    missing = [i for i in range(10) if counts[i] != 3]
    if missing or set(counts) - set(range(10)):
        fail(f"every id 0..9 should appear exactly 3 times (3 epochs); id {missing[0] if missing else sorted(set(counts) - set(range(10)))[0]} "
             f"appears {counts[missing[0]] if missing else 'but is not in range(10)'} times.")
    too_big = [k for k, b in enumerate(batches) if len(b) > 4]
    if too_big:
        fail(f"batch {too_big[0]} has {len(batches[too_big[0]])} elements; use batches of 4.")
    mixed = _read.first_mixed_batch(batches)
    if mixed:
        k, ids, epochs = mixed
        fail(f"batch {k} is {ids}: it mixes epoch {min(epochs)} and epoch {max(epochs)}. "
             "Batch first, then repeat, so each epoch ends with its own short batch.")
    return f"batch sizes {[len(b) for b in batches]}: each epoch ends with a short batch and never spills into the next."


def _check_static(answer) -> str:
    ds = _read.dataset(answer)
    shape = ds.element_spec.shape if isinstance(ds.element_spec, tf.TensorSpec) else None
    if shape is None:
        fail(f"expected batches of single numbers, got element_spec={ds.element_spec}.")
    if shape.rank != 1:
        fail(f"expected 1-D batches, got shape {shape}.")
    if shape[0] is None:
        fail("element_spec has shape (None,): the batch dimension is unknown because the last batch may be short. "
             "Pass drop_remainder=True.")
    if shape[0] != 3:
        fail(f"the static batch dimension is {shape[0]}; make batches of 3.")
    batches = _read.id_batches(ds, 50)
    if [b for b in batches] != [[0, 1, 2], [3, 4, 5], [6, 7, 8]]:
        fail(f"the batches are {batches}; expected [[0, 1, 2], [3, 4, 5], [6, 7, 8]] from range(10) (element 9 is dropped).")
    return "element_spec is TensorSpec(shape=(3,)): every batch has exactly 3 elements, and the leftover 9 was dropped."


def _check_padded(answer) -> str:
    ds = _read.dataset(answer)
    got = [np.asarray(b).tolist() for b in _read.elements(ds, 20)]
    want = [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    if len(got) != len(want):
        fail(f"expected 2 batches of 2 sequences, got {len(got)} batches.")
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            fail(f"batch {k} is {g}; expected {w}. Each batch pads to its own longest sequence.")
    return "each batch is padded with zeros to the length of its own longest sequence."


q1 = Question(
    "q1 (batches that never mix epochs)",
    _check_no_mixing,
    hints=[
        "Draw both orders with tutor.BatchOrderDisplay.from_pipeline and look at the colours.",
        "repeat() before batch() joins the epochs into one stream; batch() before repeat() cuts each epoch separately.",
    ],
    solution="""
    answer = tf.data.Dataset.range(10).batch(4).repeat(3)
    """,
)

q2 = Question(
    "q2 (a static batch dimension)",
    _check_static,
    hints=["Print ds.element_spec after batch(3) and look at the first dimension.", "batch has a drop_remainder argument."],
    solution="""
    answer = tf.data.Dataset.range(10).batch(3, drop_remainder=True)
    """,
)

q3 = Question(
    "q3 (batching sequences of different lengths)",
    _check_padded,
    hints=[
        "Start from tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n)): element n is n copies of n.",
        "padded_batch(2) pads every sequence in a batch to the longest one in that batch.",
    ],
    solution="""
    sequences = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    answer = sequences.padded_batch(2)
    """,
)

__all__ = ["q1", "q2", "q3"]
