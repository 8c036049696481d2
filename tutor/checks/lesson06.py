"""Exercises for lesson 06: reshaping streams.

q1-q4 are predictions: the learner writes down what a real pipeline will
produce, then runs the picture. q5 and q6 build pipelines.

>>> from tutor.checks import lesson06 as ex
>>> ex.q1.check([0, 1, 2]).passed
True
"""
from __future__ import annotations

from itertools import groupby

import numpy as np
import tensorflow as tf

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from . import _read, _stages
from ._core import CheckFailed, fail, shorten
from .questions import PredictQuestion, Question

#: q6: the two classes, by id. Cats are 0-299, dogs 1000-1099.
N_CATS, N_DOGS, DOG_IDS = 300, 100, 1000


def shard(i):
    """The lesson's "files": shard ``i`` holds the ids ``10 * i`` to ``10 * i + 3``."""
    return tf.data.Dataset.range(10 * i, 10 * i + 4)


def _choices():
    a, b = tf.data.Dataset.range(0, 8), tf.data.Dataset.range(100, 104)
    choices = tf.data.Dataset.from_tensor_slices(tf.constant([1, 0, 1, 1, 0, 1, 1, 0], tf.int64))
    return tf.data.Dataset.choose_from_datasets([a, b], choices)


q1 = PredictQuestion(
    N_("q1 (predict: take_while)"),
    lambda: tf.data.Dataset.range(10).take_while(lambda x: x % 4 != 3),
    ask=N_("the ids that take_while keeps, as a list"),
    code="tf.data.Dataset.range(10).take_while(lambda x: x % 4 != 3)",
    hints=[N_("take_while keeps elements while the condition holds, and stops reading at the first one where it does "
              "not."), N_("Which is the first id with x % 4 == 3?")],
)

q2 = PredictQuestion(
    N_("q2 (predict: interleave)"),
    lambda: tf.data.Dataset.range(3).interleave(shard, cycle_length=2, block_length=3),
    ask=N_("every id in the order interleave emits them, as a list"),
    code="tf.data.Dataset.range(3).interleave(shard, cycle_length=2, block_length=3)",
    first_difference=True,
    hints=[N_("cycle_length=2: shards 0 and 1 are open at first. block_length=3: take 3 ids from one, then 3 from the "
              "other."), N_("When shard 0 runs out, shard 2 takes its place in the cycle.")],
)

q3 = PredictQuestion(
    N_("q3 (predict: choose_from_datasets)"),
    _choices,
    ask=N_("the ids that come out, as a list"),
    code="tf.data.Dataset.choose_from_datasets([a, b], choices)",
    first_difference=True,
    hints=[N_("Follow the choices one by one: 1 means the next element of b, 0 the next element of a."),
           N_("b has only four elements; what does choose_from_datasets do by default when it picks an empty one?")],
)

q4 = PredictQuestion(
    N_("q4 (predict: window)"),
    lambda: tf.data.Dataset.range(10).window(3, shift=3, stride=2, drop_remainder=True).flat_map(
        lambda w: w.batch(3)),
    ask=N_("every window, as a list of lists"),
    code="tf.data.Dataset.range(10).window(3, shift=3, stride=2, drop_remainder=True)",
    row="window",
    hints=[N_("Windows start at 0, shift, 2 * shift, ...; inside a window the ids are stride apart."),
           N_("A window that would need an id past 9 is short, and drop_remainder=True drops it.")],
)


# ----------------------------------------------------------------------- q5
def _check_pairs(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if any(isinstance(s, tf.data.DatasetSpec) for s in tf.nest.flatten(spec)):
        fail(_("your elements are datasets: window() gives each window as a small dataset. Turn each one into a "
               "tensor with .flat_map(lambda w: w.batch(5)) before you split it."))
    if not (isinstance(spec, tuple) and len(spec) == 2):
        fail(_("each element should be a pair (inputs, target); element_spec is {spec}. Split every window with "
               ".map(lambda w: (w[:-1], w[-1])).").format(spec=spec))
    elements = _read.elements(ds, 200)
    if not elements:
        fail(_("your dataset is empty. With drop_remainder=True a window larger than the series gives nothing."))
    inputs, target = elements[0]
    inputs, target = np.asarray(inputs), np.asarray(target)
    if inputs.ndim == 2:
        fail(_("the first element holds {n} pairs at once: it is batched. Give one pair per element.").format(
            n=inputs.shape[0]))
    if inputs.ndim != 1 or target.ndim != 0:
        # Translators: {inputs} and {target} are shapes as Python writes them: (4,) and ().
        fail(_("in each pair, inputs should be 4 values and target one value; the first pair has shapes "
               "{inputs} and {target}.").format(inputs=inputs.shape, target=target.shape))
    got = [(np.asarray(x).tolist(), np.asarray(y).item()) for x, y in elements]
    expected = [(list(range(s, s + 4)), s + 4) for s in range(17)]
    lengths = {len(x) for x, _unused in got}
    if lengths != {4}:
        if 4 in lengths:
            fail(_("some inputs are shorter than 4 values: {inputs}. "
                   "Drop the short windows at the end with drop_remainder=True.").format(
                inputs=shorten([x for x, _unused in got if len(x) != 4][0], 40)))
        fail(_("inputs should be 4 values; yours have {lengths}. Take windows of 5 values and split them "
               "into 4 inputs and 1 target.").format(lengths=sorted(lengths)))
    if all(y == x[-1] for x, y in got):
        fail(_("each target is the last value of its own inputs. The target is the value right after the inputs: "
               "take windows of 5 and split them 4 + 1."))
    if len(got) < len(expected) and got == expected[::5][:len(got)]:
        # Translators: {starts} is a Python list of the first input of every pair.
        fail(_("you have {n} pairs, starting at {starts}: the windows do not overlap. "
               "window(size) shifts by size unless you pass shift=1.").format(
            n=len(got), starts=[x[0] for x, _unused in got]))
    if got != expected:
        for k, (g, e) in enumerate(zip(got, expected)):
            if g != e:
                fail(_("pair {k} is {pair}; expected {want}: one pair for every start 0, 1, 2, ... in order.").format(
                    k=k, pair=shorten(g, 50), want=e))
        fail(_("you have {n} pairs; expected {want}, one for every start from 0 to 16.").format(
            n=len(got), want=len(expected)))
    return _("17 overlapping windows, each split into 4 inputs and the value that follows them.")


q5 = Question(
    N_("q5 (time-series pairs with window)"),
    _check_pairs,
    hints=[N_("A window of 5 consecutive values holds 4 inputs and their target."),
           N_("window(5, shift=1, drop_remainder=True), then flat_map(lambda w: w.batch(5)), then "
              "map(lambda w: (w[:-1], w[-1])).")],
    solution="""
    series = tf.data.Dataset.range(21)
    fives = series.window(5, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(5))
    answer = fives.map(lambda w: (w[:-1], w[-1]))
    """,
)


# ----------------------------------------------------------------------- q6
#: How many of the sampler's own picks q6 reads to judge its weights, and how far from 1/2 their dog share may be
#: (an equal mix lands within it for any seed: 0.05 is 4.5 standard deviations of 2,000 fair picks).
PICKS, TOLERANCE = 2000, 0.05


def _upstream(stage) -> list:
    """Every stage that feeds ``stage``, nearest first."""
    found, todo = [], list(stage.inputs)
    while todo:
        s = todo.pop(0)
        if all(s is not f for f in found):
            found.append(s)
            todo.extend(s.inputs)
    return found


def _dog_share_of_picks(stage) -> float | None:
    """The share of a sampler's own picks that go to the dogs, from PICKS draws of its selector; None if unreadable."""
    sampler = stage.dataset
    selector, inputs = getattr(sampler, "_selector_input", None), getattr(sampler, "_data_inputs", None)
    if selector is None or not inputs:
        return None
    try:
        firsts = [_read.elements(d.take(1), 1) for d in inputs]
        picks = [int(v) for v in _read.elements(selector.take(PICKS), PICKS)]
    except CheckFailed:
        return None
    if len(picks) < PICKS:  # picks given by a short dataset: the outcome decides
        return None
    dogs = {k for k, first in enumerate(firsts) if first and int(np.ravel(first[0])[0]) >= DOG_IDS}
    return sum(p in dogs for p in picks) / len(picks)


def _check_balanced(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if not (isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and spec.shape.rank == 0):
        fail(_("expected single ids (cats and dogs, not batched), got element_spec={spec}.").format(spec=spec))
    ids = [int(x) for x in _read.elements(ds, 1000)]
    strange = [i for i in ids if not (0 <= i < N_CATS or DOG_IDS <= i < DOG_IDS + N_DOGS)]
    if strange:
        # Translators: {ids} is one id or a Python list of ids.
        fail(ngettext("{ids} is neither a cat (0-299) nor a dog (1000-1099): mix the two datasets as they are.",
                      "{ids} are neither a cat (0-299) nor a dog (1000-1099): mix the two datasets as they are.",
                      len(strange)).format(ids=shorten(strange[:5], 40)))
    if len(set(ids)) != len(ids):
        fail(_("some ids come out twice; each cat and each dog should come out at most once (no repeat)."))
    dogs = sum(i >= DOG_IDS for i in ids)
    cats = len(ids) - dogs
    samplers = [s for s in _stages.stages(ds) if s.kind == "directed_interleave"]
    if not samplers:
        if (cats, dogs) == (N_CATS, N_DOGS):
            fail(_("your stream picks no source at random: all {cats} cats and all {dogs} dogs come out, 3 cats for "
                   "every dog. Mix the two datasets with tf.data.Dataset.sample_from_datasets([cats, dogs], ...), "
                   "which picks the source of every element.").format(cats=cats, dogs=dogs))
        fail(_("your stream picks no source at random: mix the two datasets with "
               "tf.data.Dataset.sample_from_datasets([cats, dogs], ...), which picks the source of every element."))
    sampler = samplers[-1]
    cut = [s for s in _upstream(sampler) if s.kind in _stages.CUTS]
    if cut:
        # Translators: {label} is a stage as code: take(50).
        fail(_("a source is cut before the mix ({label}): the question asks for both datasets as they are. "
               "Let stop_on_empty_dataset=True end the stream when the dogs run out.").format(label=cut[0].label))
    if getattr(sampler.dataset, "_stop_on_empty_dataset", True) is False or (cats, dogs) == (N_CATS, N_DOGS):
        fail(_("{cats} cats and {dogs} dogs came out: the stream went on after the dogs ran out, with cats only. "
               "Pass stop_on_empty_dataset=True so that it ends when a source it picks is empty.").format(
            cats=cats, dogs=dogs))
    if cats < N_CATS and dogs < N_DOGS:
        fail(_("the stream ended after {cats} cats and {dogs} dogs, before either ran out. Do not cut it with "
               "take(); let stop_on_empty_dataset=True end it.").format(cats=cats, dogs=dogs))
    share = _dog_share_of_picks(sampler)
    if share is not None and abs(share - 0.5) > TOLERANCE:
        # Translators: {dogs} and {cats} are shares of the picks, as percentages (75%).
        fail(_("your sampler picks the dogs {dogs:.0%} of the time and the cats {cats:.0%}: that is not "
               "half-and-half. Give both datasets the same weight, e.g. weights=[0.5, 0.5] (or leave weights "
               "out).").format(dogs=share, cats=1 - share))
    if share is None and not 0.35 <= dogs / len(ids) <= 0.65:
        fail(_("{share:.0%} of your elements are dogs. With a pick of 1/2 each, about half should be: give "
               "both datasets the same weight, e.g. weights=[0.5, 0.5].").format(share=dogs / len(ids)))
    longest = max(len(list(run)) for _unused, run in groupby(i >= DOG_IDS for i in ids))
    if longest < 3:
        fail(_("cats and dogs strictly take turns: that is a fixed pattern, not a random pick. Use "
               "tf.data.Dataset.sample_from_datasets."))
    if dogs == N_DOGS:
        return _("a random half-and-half mix that ended as soon as the dogs ran out ({cats} cats, {dogs} "
                 "dogs).").format(cats=cats, dogs=dogs)
    return _("a random half-and-half mix that ended as soon as the cats ran out ({cats} cats, {dogs} dogs).").format(
        cats=cats, dogs=dogs)


q6 = Question(
    N_("q6 (a balanced random mix)"),
    _check_balanced,
    hints=[N_("tf.data.Dataset.sample_from_datasets picks the source of every element at random, by weights."),
           N_("weights=[0.5, 0.5], and stop_on_empty_dataset=True to end when the dogs run out.")],
    solution="""
    cats, dogs = tf.data.Dataset.range(300), tf.data.Dataset.range(1000, 1100)
    answer = tf.data.Dataset.sample_from_datasets([cats, dogs], weights=[0.5, 0.5], seed=0,
                                                  stop_on_empty_dataset=True)
    """,
)

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]
