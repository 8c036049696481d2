"""Exercises for lesson 03: shuffle.

>>> from tutor.checks import lesson03 as ex
>>> ex.q1.check(50).passed
True
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import tensorflow as tf

from . import _read, _stages
from ._core import fail, shorten

from .questions import Question, SetPrediction

N_SPLIT = 100


# ------------------------------------------------------------------ predict: which ids can come out first?
def first_ids_pipeline(n: int = 50, buffer_size: int = 10, runs: int = 300) -> tf.data.Dataset:
    """The first id out of ``range(n).shuffle(buffer_size)``, reshuffled ``runs`` times.

    ``repeat`` starts a new iterator for every run and the shuffle draws a new order for each (lesson 01), so
    this is ``runs`` independent first draws. The seed is a Python int on purpose: a seed tensor inside a
    dataset function breaks ``shuffle`` once a learner has called ``tf.random.set_seed(0)``.
    """
    return tf.data.Dataset.range(n).shuffle(buffer_size, seed=1234).take(1).repeat(runs)


predict_first = SetPrediction(
    "predict (which ids can come out first)",
    first_ids_pipeline,
    truth=lambda firsts: sorted(set(firsts)),
    ask="every id that can come out first, as a list in any order",
    code="tf.data.Dataset.range(50).shuffle(10), reshuffled 300 times",
    hints=["Before it emits anything, shuffle(10) fills its buffer with the first 10 elements.",
           "The first element out is picked from the buffer only."],
    answer_name="prediction",
)


# ------------------------------------------------------------------ q1: the smallest buffer
def _whole_number(answer: Any) -> int:
    if isinstance(answer, tf.data.Dataset):
        fail("answer with the number you would pass as buffer_size, not a dataset.")
    if isinstance(answer, bool):
        fail(f"{answer} is not a buffer size; answer with a whole number.")
    if isinstance(answer, str):
        text = _read.text(answer, "a number")
        if not text.lstrip("-").isdigit():
            fail(f"answer with a number, such as 10; got the text {shorten(answer, 40)}.")
        return int(text)
    if tf.is_tensor(answer) or isinstance(answer, np.ndarray):
        value = np.asarray(answer)
        if value.ndim != 0 or not (np.issubdtype(value.dtype, np.integer) or np.issubdtype(value.dtype, np.floating)):
            fail(f"answer with one number; got an array of shape {value.shape}.")
        answer = value.item()
    if isinstance(answer, (np.integer, np.floating)):
        answer = answer.item()
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)
    if isinstance(answer, float):
        fail(f"a buffer holds whole elements: answer with a whole number, got {answer}.")
    if not isinstance(answer, int):
        fail(f"answer with one whole number (a buffer size), got {type(answer).__name__} {shorten(answer, 40)}.")
    return answer


def _check_buffer(answer) -> str:
    value = _whole_number(answer)
    if value < 1:
        fail(f"buffer_size={value} is not a buffer: a shuffle buffer holds at least one element.")
    if value == 1:
        fail("with buffer_size=1 the buffer holds one element, so there is nothing to choose from: the order does "
             "not change at all.")
    if value < 50:
        never = "id 49" if value == 49 else f"ids {value}..49"
        fail(f"with buffer_size={value}, the first element out is picked from ids 0..{value - 1} only: {never} "
             "can never come first, so not every order is possible.")
    if value > 50:
        fail(f"buffer_size={value} works, but the buffer never holds more than the 50 elements there are: "
             "what is the smallest size that still allows every order?")
    return "a buffer as large as the dataset (50) lets any element come out first: a full shuffle."


# ------------------------------------------------------------------ q2: shuffle examples, new order every epoch
def _check_shuffle_examples(answer) -> str:
    ds = _read.dataset(answer)
    batches = _read.id_batches(ds, 100)
    found = _stages.kinds(ds)
    flat = [i for b in batches for i in b]
    counts = Counter(flat)
    if not flat:
        fail("your dataset is empty: it produced no batch.")
    if set(counts) - set(range(20)):
        fail(f"id {sorted(set(counts) - set(range(20)))[0]} is not in range(20): start from "
             "tf.data.Dataset.range(20).")
    times = {counts[i] for i in range(20)}
    if len(times) == 1 and times != {2}:
        n = times.pop()
        fail(f"every id appears {n} time{'s' if n != 1 else ''}, so that is {n} epoch{'s' if n != 1 else ''}; "
             "2 epochs means every id twice: repeat(2).")
    if times != {2}:
        odd = next(i for i in range(20) if counts[i] != 2)
        fail(f"id {odd} appears {counts[odd]} times; every id of range(20) should appear twice, once per epoch.")
    if "repeat" in found and "shuffle" in found and found.index("repeat") < found.index("shuffle"):
        fail("repeat() comes before shuffle(): the buffer then holds elements of both epochs and mixes them. "
             "Shuffle first, then batch, then repeat.")
    mixed = _stages.mixed_message(ds, batches)
    if mixed:
        fail(mixed + " Put repeat after batch.")
    if any(len(b) != 5 for b in batches):
        fail(f"use batches of 5; the batch sizes are {[len(b) for b in batches]}.")
    shuffles = [s for s in _stages.stages(ds) if s.kind == "shuffle"]
    blocks = all(sorted(b) == list(range(b[0] // 5 * 5, b[0] // 5 * 5 + 5)) for b in batches)
    if blocks:
        if "shuffle" in found and "batch" in found and found.index("batch") < found.index("shuffle"):
            fail("every batch still holds 5 consecutive ids, like [0, 1, 2, 3, 4]: your shuffle comes after batch, "
                 "so it shuffles whole batches. Move shuffle before batch.")
        fail(f"every batch holds 5 consecutive ids, like {batches[0]}: the examples are not shuffled. Add "
             "shuffle(...) before batch.")
    before_batch = found[:found.index("batch")] if "batch" in found else found
    sizes = [s.params.get("buffer_size") for s in shuffles[:before_batch.count("shuffle")]]
    if sizes and all(isinstance(b, int) and 0 < b < 20 for b in sizes):
        b = max(sizes)
        fail(f"shuffle(buffer_size={b}) is not a full shuffle: the first element out is always one of ids "
             f"0..{b - 1}. Use a buffer as large as the data (20).")
    if flat[:20] == flat[20:]:
        fail("both epochs came out in the same order. Leave reshuffle_each_iteration at its default (True), so "
             "that every epoch gets a new order.")
    if "repeat" in found and "batch" in found and found.index("repeat") < found.index("batch"):
        return ("the examples are shuffled, each epoch has its own order, and no batch mixes two epochs. That holds "
                "here only because 20 is a multiple of 5: with repeat before batch, the batch at the end of an epoch "
                "takes ids of the next one whenever the epoch size is not a multiple of the batch size. batch before "
                "repeat keeps epochs apart whatever the sizes.")
    return "the examples are shuffled, each epoch has its own order, and no batch mixes two epochs."


# ------------------------------------------------------------------ q3: split without leakage
def _ids(ds: tf.data.Dataset, name: str) -> list[int]:
    problem = _read.ids_spec_problem(ds.element_spec, batched=False)
    if problem:
        if isinstance(ds.element_spec, tuple):
            problem += " If you split with enumerate() and filter(), map back to the id: .map(lambda i, x: x)."
        fail(f"{name}: {problem}")
    ids = []
    for value in _read.elements(ds, 200):
        flat = np.ravel(value)
        if flat.size != 1:
            fail(f"{name}: an element holds {flat.size} values; expected single ids. Leave batch() out.")
        ids.append(int(flat[0]))
    return ids


def _check_split(answer) -> str:
    _stages.check_split(answer, _ids, n=N_SPLIT, held_out=20, names=("train", "test"))
    return "train and test never share an id, the split is random, and train comes in a new order every epoch."


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
        "shuffle (with a buffer of 20) → batch → repeat.",
    ],
    solution="""
    answer = tf.data.Dataset.range(20).shuffle(20, seed=0).batch(5).repeat(2)
    """,
)

q3 = Question(
    "q3 (split without leakage)",
    _check_split,
    hints=[
        "take and skip each read the dataset with their own iterator; with reshuffling on, each gets a new order.",
        "shuffle(100, seed=0, reshuffle_each_iteration=False) fixes one random order; split that with take/skip.",
        "Then shuffle only the training part: train = ....shuffle(80).",
    ],
    solution="""
    fixed = tf.data.Dataset.range(100).shuffle(100, seed=0, reshuffle_each_iteration=False)
    train = fixed.take(80).shuffle(80)
    test = fixed.skip(80)
    answer = (train, test)
    """,
)

__all__ = ["predict_first", "q1", "q2", "q3"]
