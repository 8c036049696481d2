"""Exercises for lesson 03: shuffle.

>>> from tutor.checks import lesson03 as ex
>>> ex.q1.check(50).passed
True
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import tensorflow as tf

from ..stats import shuffle_stats
from . import _read
from ._core import Question, fail

N_SPLIT = 100


def _check_buffer(answer) -> str:
    if isinstance(answer, bool) or not isinstance(answer, (int, np.integer)):
        fail(f"answer with a whole number (a buffer size), got {type(answer).__name__}.")
    if answer < 1:
        fail("a buffer must hold at least one element.")
    if answer < 50:
        fail(f"with buffer_size={answer}, the first element out is picked from ids 0..{answer - 1} only: "
             f"id 49 can never come first, so the shuffle is not uniform.")
    if answer > 50:
        fail(f"buffer_size={answer} works, but the buffer never holds more than the 50 elements there are: "
             "what is the smallest size that still allows every order?")
    return "a buffer as large as the dataset (50) lets any element come out first: a full shuffle."


def _check_shuffle_examples(answer) -> str:
    ds = _read.dataset(answer)
    batches = _read.id_batches(ds, 100)
    counts = Counter(i for b in batches for i in b)
    if sorted(counts) != list(range(20)) or set(counts.values()) != {2}:
        fail("every id 0..19 should appear exactly twice (two epochs). "
             f"Counts seen: { {k: counts[k] for k in sorted(counts)[:5]} }...")
    if any(len(b) != 5 for b in batches):
        fail(f"use batches of 5; batch sizes are {[len(b) for b in batches]}.")
    mixed = _read.first_mixed_batch(batches)
    if mixed:
        k, ids, _ = mixed
        fail(f"batch {k} is {ids}: it holds elements of two epochs. Put repeat after batch.")
    runs = [b for b in batches if b == list(range(b[0], b[0] + 5))]
    if len(runs) == len(batches):
        fail(f"every batch is a run of consecutive ids, like {runs[0]}: nothing was shuffled, "
             "or whole batches were shuffled. Shuffle the examples before batch.")
    if len(runs) >= 2:
        fail(f"{len(runs)} batches are runs of consecutive ids, like {runs[0]}: you shuffled whole batches. "
             "Move shuffle before batch.")
    flat = [i for b in batches for i in b]
    first, second = flat[:20], flat[20:]
    if first == second:
        fail("both epochs came out in the same order. Leave reshuffle_each_iteration at its default (True).")
    rho = shuffle_stats(first)["rank_correlation"]
    if rho > 0.9:
        fail(f"epoch 1 is barely shuffled (Spearman {rho:.2f}); use a buffer as large as the dataset.")
    return "examples are shuffled, each epoch has its own order, and no batch mixes epochs."


def _check_split(answer) -> str:
    if not (isinstance(answer, tuple) and len(answer) == 2):
        fail(f"answer with a pair (train, test) of datasets, got {type(answer).__name__}.")
    train, test = (_read.dataset(a, "a tf.data.Dataset for train and for test") for a in answer)
    seen = []
    for epoch in (1, 2):
        tr = [int(x) for x in _read.elements(train, 500)]
        te = [int(x) for x in _read.elements(test, 500)]
        if len(tr) != 80 or len(te) != 20:
            fail(f"expected 80 training and 20 test elements, got {len(tr)} and {len(te)} (epoch {epoch}).")
        seen.append((tr, te))
    train_ids = set(seen[0][0]) | set(seen[1][0])
    test_ids = set(seen[0][1]) | set(seen[1][1])
    leaked = sorted(train_ids & test_ids)
    if leaked:
        fail(f"ids {leaked[:5]} appear in train in one epoch and in test in another: the shuffle reshuffles every "
             "time take/skip re-read it. Pass reshuffle_each_iteration=False, or split before shuffling.")
    if train_ids | test_ids != set(range(N_SPLIT)):
        fail("together, train and test should cover ids 0..99.")
    if seen[0][1] == list(range(80, 100)):
        fail("the test set is simply the last 20 ids: shuffle once (with a seed) before splitting.")
    return "train and test stay disjoint across epochs: no leakage."


q1 = Question(
    "q1 (the smallest buffer for a full shuffle)",
    _check_buffer,
    hints=["At output position 0 the buffer holds ids 0..buffer_size-1 only.", "Dataset.range(50) has 50 elements."],
    solution="""
    answer = 50
    """,
)

q2 = Question(
    "q2 (shuffle examples, new order every epoch)",
    _check_shuffle_examples,
    hints=[
        "Order matters: which stage should see single examples, and which whole batches?",
        "shuffle → batch → repeat.",
    ],
    solution="""
    answer = tf.data.Dataset.range(20).shuffle(20, seed=0).batch(5).repeat(2)
    """,
)

q3 = Question(
    "q3 (split without leakage)",
    _check_split,
    hints=[
        "take and skip each re-read the shuffled dataset; with reshuffling on, each read has a new order.",
        "shuffle(100, seed=0, reshuffle_each_iteration=False) fixes the order once.",
    ],
    solution="""
    ds = tf.data.Dataset.range(100).shuffle(100, seed=0, reshuffle_each_iteration=False)
    answer = (ds.take(80), ds.skip(80))
    """,
)

__all__ = ["q1", "q2", "q3"]
