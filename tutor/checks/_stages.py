"""Reading an answer's structure: its stages, where they are, and the rules that need both order and stages.

* :func:`stages`, :func:`kinds`, :func:`chain_text`, :func:`where`: the pipeline from source to output.
* :func:`mixed_message`: the first batch that holds two epochs, blaming the stage at fault.
* :func:`check_split`: the splitting rule of lessons 03 and 12 ("split once, then shuffle the training part"),
  judged from what the two parts give over two epochs, so that every correct way to split passes.

>>> chain_text(stages(tf.data.Dataset.range(8).batch(4)))
'range(8) -> batch(batch_size=4)'
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

import tensorflow as tf

from ..i18n import ngettext
from ..i18n import gettext as _
from ..stats import epochs_of
from . import _read
from ._core import fail, sentences

#: Stages that cut a part out of their input: a split is made with one of them (or outside tf.data).
CUTS = ("take", "skip", "filter", "shard")


def stages(ds: tf.data.Dataset, build_with: str | None = None) -> list:
    """The answer's stages from source to output (tutor.doctor), without the option stages TensorFlow adds.

    Each :class:`tutor.doctor.Stage` has ``.kind`` ("source", "map", "batch", ...),
    ``.params``, ``.fn_ops``, ``.label`` and ``.dataset``. Fails with a sentence when the
    structure cannot be read; ``build_with`` (translated) names what the exercise builds from.
    """
    from ..doctor import read_pipeline

    try:
        found = read_pipeline(ds)
    except Exception:  # the doctor degrades gracefully; anything left is a pipeline it cannot describe
        # Translators: {build_with} names what to build from ("tf.data methods (from_tensor_slices, map, ...)").
        fail(_("the checker could not read the stages of your pipeline. Build it with {build_with}, as the exercise "
               "says.").format(build_with=build_with or _("tf.data methods (from_tensor_slices, map, batch, ...)")))
    return [s for s in found if s.kind != "options"]


def kinds(ds: tf.data.Dataset) -> list[str]:
    """Stage kinds from source to end, e.g. ``['source', 'shuffle', 'batch', 'repeat']``."""
    return [s.kind for s in stages(ds)]


def chain_text(found: list) -> str:
    """``range(12) -> map(decode) -> cache()``: the stages as the learner wrote them, for messages."""
    return " -> ".join(s.label for s in found)


def where(found: list, test: str | Callable[[Any], bool]) -> list[int]:
    """Positions in ``found`` of the stages that pass ``test`` (a kind name or a predicate)."""
    if isinstance(test, str):
        kind = test
        return [i for i, s in enumerate(found) if s.kind == kind]
    return [i for i, s in enumerate(found) if test(s)]


# ------------------------------------------------------------------ epochs inside batches
def several_values_hint(ds: tf.data.Dataset, expected: str | None = None) -> str:
    """Why each element of ``ds`` holds several values, as a sentence: a batch, or the whole input in one element.

    The ``from_tensors`` advice is given only when the dataset has exactly one element and no batch
    stage; a batched dataset is told to leave ``batch()`` out, whatever its source. ``expected`` (translated)
    ends the sentence "so that each element is ...".

    >>> several_values_hint(tf.data.Dataset.range(5).batch(5), "one number")
    'each element is a batch of int64 numbers, shape (None,): batch() grouped the elements. Leave batch() out, so that each element is one number.'
    """
    spec = ds.element_spec
    what = _read.describe_spec(spec)
    expected = expected or _("one value")
    found = stages(ds)
    if any(s.kind in ("batch", "map_and_batch") for s in found):
        # Translators: {what} describes an element in words; {expected} says what it should be ("one number").
        return _("each element is {what}: batch() grouped the elements. Leave batch() out, so that each element is "
                 "{expected}.").format(what=what, expected=expected)
    count = len(_read.elements(ds.take(2), 2))
    if count == 1:
        if found and found[0].op == "TensorDataset":
            return _("each element is {what}: the whole input in one element. from_tensors keeps its input whole; "
                     "use from_tensor_slices, which makes one element of each item, so that each element is "
                     "{expected}.").format(what=what, expected=expected)
        return _("each element is {what}: the whole input in one element. Give from_tensor_slices the items "
                 "themselves (one level less nesting), so that each element is {expected}.").format(
            what=what, expected=expected)
    return _("each element is {what}; expected {expected} per element.").format(what=what, expected=expected)


def first_mixed_batch(batches: list[list[int]]) -> tuple[int, list[int], list[int]] | None:
    """The first batch that holds ids from two epochs, as (index, ids, epochs)."""
    flat = [i for b in batches for i in b]
    ep = iter(epochs_of(flat).tolist()) if flat else iter(())
    for k, b in enumerate(batches):
        e = [next(ep) for _unused in b]
        if len(set(e)) > 1:
            return k, b, [x + 1 for x in e]
    return None


def mixed_message(ds: tf.data.Dataset, batches: list[list[int]]) -> str | None:
    """A sentence naming the first batch that holds two epochs (None when none does), blaming the right stage."""
    mixed = first_mixed_batch(batches)
    if mixed is None:
        return None
    k, ids, epochs = mixed
    found = kinds(ds)
    blame = ""
    if "repeat" in found and "batch" in found and found.index("repeat") < len(found) - 1 - found[::-1].index("batch"):
        blame = _("Your repeat() comes before batch(), so batch() cuts one long stream that runs across epochs.")
    # Translators: {ids} is the batch as a Python list; {first} and {last} are epoch numbers (1, 2).
    return sentences(_("batch {k} is {ids}: it holds ids of epoch {first} and epoch {last}.").format(
        k=k, ids=ids, first=min(epochs), last=max(epochs)), blame)


# ------------------------------------------------------------------ the splitting rule
def reshuffling_split(found: list) -> bool:
    """True when a cut (``take``, ``skip``, ``filter``, ``shard``) reads a shuffle that draws a new order per iterator.

    That is the splitting rule's fault: each epoch would cut a different part off, so examples move between
    the two sides.
    """
    for k, s in enumerate(found):
        if s.kind in CUTS and any(p.kind == "shuffle" and p.params.get("reshuffle_each_iteration") is not False
                                  for p in found[:k]):
            return True
    return False


def before_cut(found: list) -> list:
    """The stages upstream of the first cut; none when the part has no cut (it was split outside tf.data)."""
    cut = next((k for k, s in enumerate(found) if s.kind in CUTS), 0)
    return found[:cut]


def split_pair(answer: Any, names: tuple[str, str]) -> tuple[tf.data.Dataset, tf.data.Dataset]:
    """The two datasets of a ``(train, test)`` answer; fails with a sentence for anything else."""
    first, second = names
    if isinstance(answer, tf.data.Dataset):
        # Translators: {first} and {second} are the names of the two parts, as code: train, test.
        fail(_("answer with a pair ({first}, {second}) of two datasets, got one dataset. Split it, for example with "
               "take and skip.").format(first=first, second=second))
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        if isinstance(answer, (tuple, list)):
            # Translators: {kind} is tuple or list; {n} how many items it holds.
            fail(_("answer with a pair ({first}, {second}) of datasets, got a {kind} of {n}.").format(
                first=first, second=second, kind=type(answer).__name__, n=len(answer)))
        # Translators: {kind} is a Python type's name.
        fail(_("answer with a pair ({first}, {second}) of datasets, got {kind}.").format(
            first=first, second=second, kind=type(answer).__name__))
    # Translators: completes "expected ..."; {name} is the part's name as code (train).
    return (_read.dataset(answer[0], _("a tf.data.Dataset for {name} (the first of the pair)").format(name=first)),
            _read.dataset(answer[1], _("a tf.data.Dataset for {name} (the second of the pair)").format(name=second)))


def check_split(answer: Any, read_ids: Callable[[tf.data.Dataset, str], list[int]], *, n: int, held_out: int,
                names: tuple[str, str] = ("train", "test"),
                not_random: Callable[[list[int]], str | None] | None = None) -> tuple[list[int], list[int]]:
    """The splitting rule: one fixed random split, then a new order of the training part every epoch.

    ``answer`` is ``(train, held)``; ``read_ids(ds, name)`` reads one pass of a part as ids ``0..n-1``.
    Both parts are read twice, as two epochs, and judged by what they give: the sizes, no id twice, no id
    on both sides in any epoch, a random held-out part (not a regular slice of the stored order; and
    ``not_random(held_ids)``, a lesson's own test, when given), and a training order that changes. The
    stages are read only to name the cause: a cut that reads a reshuffling shuffle, or a one-time shuffle
    whose buffer is smaller than the data. So a split made with take/skip, enumerate/filter, a NumPy
    permutation or ``keras.utils.split_dataset`` passes when it is right. Returns the first epoch's ids.
    """
    first, second = names
    train, held = split_pair(answer, names)
    (tr1, he1), (tr2, he2) = [(read_ids(train, first), read_ids(held, second)) for _unused in range(2)]
    sizes = (n - held_out, held_out)
    if (len(tr1), len(he1)) == sizes[::-1] and sizes[0] != sizes[1]:
        # Translators: {first} and {second} are the names of the two parts, as code (train, test); {a}, {b} sizes.
        fail(_("{first} has {a} elements and {second} {b}: the pair is swapped. Answer ({first}, {second}), {first} "
               "first.").format(first=first, second=second, a=len(tr1), b=len(he1)))
    if (len(tr1), len(he1)) != sizes:
        fail(_("{first} has {a} elements and {second} {b}; expected {want_a} and {want_b}.").format(
            first=first, second=second, a=len(tr1), b=len(he1), want_a=sizes[0], want_b=sizes[1]))
    outside = sorted((set(tr1) | set(he1)) - set(range(n)))
    if outside:
        fail(_("id {id} is not one of the {n} ids 0..{last}: split the exercise's dataset as it is.").format(
            id=outside[0], n=n, last=n - 1))
    for name, ids in ((first, tr1), (second, he1)):
        if len(set(ids)) != len(ids):
            twice = next(i for i, c in Counter(ids).items() if c > 1)
            # Translators: {name} is a part's name as code (train, test).
            fail(_("{name} holds id {id} more than once in one pass. Each id belongs to one part, once.").format(
                name=name, id=twice))
    fixing = f"shuffle({n}, seed=..., reshuffle_each_iteration=False)"
    leaked = sorted((set(tr1) | set(tr2)) & (set(he1) | set(he2)))
    if leaked:
        if reshuffling_split(stages(train)) or reshuffling_split(stages(held)):
            # Translators: {examples} is a Python list of ids; {fixing} is code: shuffle(100, seed=..., ...).
            fail(ngettext(
                "{n} id, such as {examples}, is in {first} and in {second}: leakage. take() and skip() each make "
                "their own iterator (lesson 01), and a shuffle that reshuffles gives every iterator a new order, so "
                "the two parts are cut from different orders. Fix the order once first: {fixing}, then take and skip.",
                "{n} ids, such as {examples}, are in {first} and in {second}: leakage. take() and skip() each make "
                "their own iterator (lesson 01), and a shuffle that reshuffles gives every iterator a new order, so "
                "the two parts are cut from different orders. Fix the order once first: {fixing}, then take and skip.",
                len(leaked)).format(n=len(leaked), examples=leaked[:5], first=first, second=second, fixing=fixing))
        fail(ngettext("{n} id, such as {examples}, is in {first} and in {second}: leakage. Every id must be in one "
                      "part only, in every epoch.",
                      "{n} ids, such as {examples}, are in {first} and in {second}: leakage. Every id must be in one "
                      "part only, in every epoch.", len(leaked)).format(
            n=len(leaked), examples=leaked[:5], first=first, second=second))
    partial = [s for ds in (train, held) for s in before_cut(stages(ds)) if s.kind == "shuffle"
               and isinstance(s.params.get("buffer_size"), int) and 0 < s.params["buffer_size"] < n]
    if partial:
        fail(_("the one-time shuffle before the split has buffer_size={size}, smaller than the {n} elements, so the "
               "fixed order is only partly random (lesson 03) and {second} leans toward late ids. Use a buffer of "
               "{n}.").format(size=partial[0].params['buffer_size'], n=n, second=second))
    held_ids = sorted(he1)
    problem = not_random(held_ids) if not_random is not None else None
    if problem:
        fail(sentences(problem, _("Split only after fixing a random order once: {fixing}, then take and "
                                  "skip.").format(fixing=fixing)))
    steps = {b - a for a, b in zip(held_ids, held_ids[1:])}
    if len(steps) == 1:
        # Translators: {a}, {b} and {last} are ids: the first two and the last of the held-out part.
        fail(_("{second} is ids {a}, {b}, ... {last}: a regular slice of the data in its stored order, not a random "
               "one. Split only after fixing a random order once: {fixing}, then take and skip.").format(
            second=second, a=held_ids[0], b=held_ids[1], last=held_ids[-1], fixing=fixing))
    if tr1 == tr2:
        fail(_("{first} comes out in the same order in both epochs. After the split, shuffle the training part, "
               "leaving reshuffle_each_iteration at its default (True), so every epoch gets a new order.").format(
            first=first))
    return tr1, he1
