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

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from . import _read, _stages
from ._core import fail, sentences, shorten

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
    N_("predict (which ids can come out first)"),
    first_ids_pipeline,
    truth=lambda firsts: sorted(set(firsts)),
    ask=N_("every id that can come out first, as a list in any order"),
    code=N_("tf.data.Dataset.range(50).shuffle(10), reshuffled 300 times"),
    hints=[N_("Before it emits anything, shuffle(10) fills its buffer with the first 10 elements."),
           N_("The first element out is picked from the buffer only.")],
    answer_name="prediction",
)


# ------------------------------------------------------------------ q1: the smallest buffer
def _whole_number(answer: Any) -> int:
    if isinstance(answer, tf.data.Dataset):
        fail(_("answer with the number you would pass as buffer_size, not a dataset."))
    if isinstance(answer, bool):
        fail(_("{answer} is not a buffer size; answer with a whole number.").format(answer=answer))
    if isinstance(answer, str):
        text = _read.text(answer, _("a number"))
        if not text.lstrip("-").isdigit():
            fail(_("answer with a number, such as 10; got the text {answer}.").format(answer=shorten(answer, 40)))
        return int(text)
    if tf.is_tensor(answer) or isinstance(answer, np.ndarray):
        value = np.asarray(answer)
        if value.ndim != 0 or not (np.issubdtype(value.dtype, np.integer) or np.issubdtype(value.dtype, np.floating)):
            fail(_("answer with one number; got an array of shape {shape}.").format(shape=value.shape))
        answer = value.item()
    if isinstance(answer, (np.integer, np.floating)):
        answer = answer.item()
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)
    if isinstance(answer, float):
        fail(_("a buffer holds whole elements: answer with a whole number, got {answer}.").format(answer=answer))
    if not isinstance(answer, int):
        # Translators: {kind} is a Python type's name; {answer} the value itself.
        fail(_("answer with one whole number (a buffer size), got {kind} {answer}.").format(
            kind=type(answer).__name__, answer=shorten(answer, 40)))
    return answer


def _check_buffer(answer) -> str:
    value = _whole_number(answer)
    if value < 1:
        fail(_("buffer_size={value} is not a buffer: a shuffle buffer holds at least one element.").format(
            value=value))
    if value == 1:
        fail(_("with buffer_size=1 the buffer holds one element, so there is nothing to choose from: the order does "
               "not change at all."))
    if value < 50:
        if value == 49:
            fail(_("with buffer_size=49, the first element out is picked from ids 0..48 only: id 49 can never come "
                   "first, so not every order is possible."))
        fail(_("with buffer_size={value}, the first element out is picked from ids 0..{last} only: ids {value}..49 "
               "can never come first, so not every order is possible.").format(value=value, last=value - 1))
    if value > 50:
        fail(_("buffer_size={value} works, but the buffer never holds more than the 50 elements there are: "
               "what is the smallest size that still allows every order?").format(value=value))
    return _("a buffer as large as the dataset (50) lets any element come out first: a full shuffle.")


# ------------------------------------------------------------------ q2: shuffle examples, new order every epoch
def _check_shuffle_examples(answer) -> str:
    ds = _read.dataset(answer)
    batches = _read.id_batches(ds, 100)
    found = _stages.kinds(ds)
    flat = [i for b in batches for i in b]
    counts = Counter(flat)
    if not flat:
        fail(_("your dataset is empty: it produced no batch."))
    if set(counts) - set(range(20)):
        fail(_("id {id} is not in range(20): start from tf.data.Dataset.range(20).").format(
            id=sorted(set(counts) - set(range(20)))[0]))
    times = {counts[i] for i in range(20)}
    if len(times) == 1 and times != {2}:
        n = times.pop()
        fail(ngettext("every id appears {n} time, so that is {n} epoch; 2 epochs means every id twice: repeat(2).",
                      "every id appears {n} times, so that is {n} epochs; 2 epochs means every id twice: repeat(2).",
                      n).format(n=n))
    if times != {2}:
        odd = next(i for i in range(20) if counts[i] != 2)
        fail(_("id {id} appears {times} times; every id of range(20) should appear twice, once per epoch.").format(
            id=odd, times=counts[odd]))
    if "repeat" in found and "shuffle" in found and found.index("repeat") < found.index("shuffle"):
        fail(_("repeat() comes before shuffle(): the buffer then holds elements of both epochs and mixes them. "
               "Shuffle first, then batch, then repeat."))
    mixed = _stages.mixed_message(ds, batches)
    if mixed:
        fail(sentences(mixed, _("Put repeat after batch.")))
    if any(len(b) != 5 for b in batches):
        fail(_("use batches of 5; the batch sizes are {sizes}.").format(sizes=[len(b) for b in batches]))
    shuffles = [s for s in _stages.stages(ds) if s.kind == "shuffle"]
    blocks = all(sorted(b) == list(range(b[0] // 5 * 5, b[0] // 5 * 5 + 5)) for b in batches)
    if blocks:
        if "shuffle" in found and "batch" in found and found.index("batch") < found.index("shuffle"):
            fail(_("every batch still holds 5 consecutive ids, like [0, 1, 2, 3, 4]: your shuffle comes after batch, "
                   "so it shuffles whole batches. Move shuffle before batch."))
        fail(_("every batch holds 5 consecutive ids, like {batch}: the examples are not shuffled. Add "
               "shuffle(...) before batch.").format(batch=batches[0]))
    before_batch = found[:found.index("batch")] if "batch" in found else found
    sizes = [s.params.get("buffer_size") for s in shuffles[:before_batch.count("shuffle")]]
    if sizes and all(isinstance(b, int) and 0 < b < 20 for b in sizes):
        b = max(sizes)
        fail(_("shuffle(buffer_size={size}) is not a full shuffle: the first element out is always one of ids "
               "0..{last}. Use a buffer as large as the data (20).").format(size=b, last=b - 1))
    if flat[:20] == flat[20:]:
        fail(_("both epochs came out in the same order. Leave reshuffle_each_iteration at its default (True), so "
               "that every epoch gets a new order."))
    if "repeat" in found and "batch" in found and found.index("repeat") < found.index("batch"):
        return (_("the examples are shuffled, each epoch has its own order, and no batch mixes two epochs. That holds "
                  "here only because 20 is a multiple of 5: with repeat before batch, the batch at the end of an epoch "
                  "takes ids of the next one whenever the epoch size is not a multiple of the batch size. batch before "
                  "repeat keeps epochs apart whatever the sizes."))
    return _("the examples are shuffled, each epoch has its own order, and no batch mixes two epochs.")


# ------------------------------------------------------------------ q3: split without leakage
def _ids(ds: tf.data.Dataset, name: str) -> list[int]:
    problem = _read.ids_spec_problem(ds.element_spec, batched=False)
    if problem:
        if isinstance(ds.element_spec, tuple):
            problem = sentences(problem, _("If you split with enumerate() and filter(), map back to the id: "
                                           ".map(lambda i, x: x)."))
        # Translators: {name} is a part's name as code (train, test); {problem} a sentence.
        fail(_("{name}: {problem}").format(name=name, problem=problem))
    ids = []
    for value in _read.elements(ds, 200):
        flat = np.ravel(value)
        if flat.size != 1:
            fail(_("{name}: an element holds {size} values; expected single ids. Leave batch() out.").format(
                name=name, size=flat.size))
        ids.append(int(flat[0]))
    return ids


def _check_split(answer) -> str:
    _stages.check_split(answer, _ids, n=N_SPLIT, held_out=20, names=("train", "test"))
    return _("train and test never share an id, the split is random, and train comes in a new order every epoch.")


q1 = Question(
    N_("q1 (the smallest buffer for a full shuffle)"),
    _check_buffer,
    hints=[N_("At output position 0 the buffer holds ids 0..buffer_size-1 only."),
           N_("Dataset.range(50) has 50 elements.")],
    solution="""
    answer = 50
    """,
)

q2 = Question(
    N_("q2 (shuffle examples, new order every epoch)"),
    _check_shuffle_examples,
    hints=[
        N_("Order matters: which stage should see single examples, and which whole batches?"),
        N_("shuffle (with a buffer of 20) → batch → repeat."),
    ],
    solution="""
    answer = tf.data.Dataset.range(20).shuffle(20, seed=0).batch(5).repeat(2)
    """,
)

q3 = Question(
    N_("q3 (split without leakage)"),
    _check_split,
    hints=[
        N_("take and skip each read the dataset with their own iterator; with reshuffling on, each gets a new order."),
        N_("shuffle(100, seed=0, reshuffle_each_iteration=False) fixes one random order; split that with take/skip."),
        N_("Then shuffle only the training part: train = ....shuffle(80)."),
    ],
    solution="""
    fixed = tf.data.Dataset.range(100).shuffle(100, seed=0, reshuffle_each_iteration=False)
    train = fixed.take(80).shuffle(80)
    test = fixed.skip(80)
    answer = (train, test)
    """,
)

__all__ = ["predict_first", "q1", "q2", "q3"]
