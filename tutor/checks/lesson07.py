"""Lesson 07 exercises: make a pipeline do less work by reordering it, and read two timelines.

Verdicts never depend on a clock: q1 counts how often ``decode`` ran and reads
the pipeline's structure with :func:`tutor.doctor.read_pipeline`; the time of
the learner's order against the slow one is shown beside the verdict, as
information. The stand-ins and readers (decode, augment) live in
:mod:`tutor.checks._decode_once`, which lesson 08's exercise uses too.

>>> from tutor.checks import lesson07 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import time
from typing import Any, Callable

import tensorflow as tf

from ..i18n import N_
from ..i18n import gettext as _
from . import _read
from ._core import Choices, fail
from ._decode_once import (BATCH, EPOCHS, N_FILES, augment, batch_values, check_augmentation, check_content,
                           check_decode_runs, decode, decode_calls, exercise_source, require_stages, stage_chain)
from .questions import FunctionQuestion, Question

__all__ = ["CHOICES", "augment", "decode", "decode_calls", "slow_pipeline", "q2_dataset", "q3_dataset",
           "q1", "q2", "q3"]


def slow_pipeline(source: tf.data.Dataset) -> tf.data.Dataset:
    """q1's starting point: all the right stages, in an order that decodes every file once per epoch."""
    return source.repeat(EPOCHS).map(decode).cache().map(augment).batch(BATCH)


def seconds(make: Callable[[], tf.data.Dataset]) -> float:
    """Wall-clock seconds of one full pass (information only, never a verdict)."""
    start = time.perf_counter()
    _read.elements(make(), 100)
    return time.perf_counter() - start


# --------------------------------------------------------------------------- q1
def _check_q1(answer: Any) -> str:
    ds = q1.dataset_of(answer)
    chain = stage_chain(ds)
    found = require_stages(chain)
    before = decode_calls()
    values = batch_values(ds)
    runs = decode_calls() - before
    check_content(values, found)
    check_decode_runs(runs, chain, found)
    check_augmentation(values, chain, found)
    mine = seconds(lambda: answer(exercise_source()))
    slow = seconds(lambda: slow_pipeline(exercise_source()))
    # Translators: {mine} and {slow} are seconds.
    return _("decode ran {runs} times instead of {slow_runs}, and every epoch got new random numbers. "
             "For information, one pass just now took {mine:.2f} s in your order and {slow:.2f} s in the slow "
             "order (timings vary from run to run; the count does not).").format(
        runs=runs, slow_runs=N_FILES * EPOCHS, mine=mine, slow=slow)


q1 = FunctionQuestion(
    N_("Exercise 1: less work by reordering"),
    _check_q1,
    hints=[
        N_("Count how often decode runs in the slow order: repeat(3) comes first, so 36 times."),
        N_("cache() only saves work for the stages *before* it, and only when the cache is filled once "
           "and then read again, which needs repeat() *after* cache()."),
        N_("Random augmentation must stay after cache(), or it is frozen."),
    ],
    solution="""
    ex = tutor.checks.lesson07

    def fast_pipeline(source):
        return source.map(ex.decode).cache().repeat(3).map(ex.augment).batch(4)
    """,
    name="fast_pipeline",
    source=exercise_source,
)


# --------------------------------------------------------------------------- reading timelines
CHOICES = Choices({
    "a": N_("The input pipeline is the bottleneck: its map is busy all the time while the consumer waits."),
    "b": N_("The training step is the bottleneck: the map finishes early and then waits for the consumer."),
    "c": N_("The prefetch buffer is too small: a larger buffer_size would remove the waiting."),
    "d": N_("Nothing to fix: the consumer never waits at all, not even for the first element."),
})


def _timeline_dataset(work_seconds: float, buffer_size: int) -> tf.data.Dataset:
    def wait(value):
        time.sleep(work_seconds)
        return value

    options = tf.data.Options()
    options.autotune.enabled = False
    options.experimental_optimization.inject_prefetch = False
    options.experimental_optimization.map_parallelization = False
    ds = tf.data.Dataset.range(12).map(lambda x: tf.py_function(wait, [x], Tout=tf.int64))
    return ds.prefetch(buffer_size).with_options(options)


def q2_dataset() -> tf.data.Dataset:
    """Exercise 2's pipeline: a plain map that works 40 ms per element, then prefetch(2); profile it with step_time=0.01."""
    return _timeline_dataset(0.04, 2)


def q3_dataset() -> tf.data.Dataset:
    """Exercise 3's pipeline: a plain map that works 10 ms per element, then prefetch(1); profile it with step_time=0.04."""
    return _timeline_dataset(0.01, 1)


_WHY_Q2 = {
    "b": N_("look at the grey in the consumer row: the consumer waits before most steps, so the training step is "
            "not what holds this run up."),
    "c": N_("a buffer only smooths out bumps. When the producer is slower on average, the buffer is empty most of "
            "the time, whatever its size."),
    "d": N_("look at the grey in the consumer row: it waits before the first step and before most of the others."),
}
_WHY_Q3 = {
    "a": N_("the Map row has gaps between its bars and the consumer waits only for the first element, so the input "
            "is not the bottleneck."),
    "c": N_("after the first step the consumer hardly waits, so there is nothing for a bigger buffer to remove; it "
            "cannot make the training step itself faster."),
    "d": N_("there is grey at the very start: the first element has to be made before the first step can run. "
            "After that the consumer hardly waits, and the training step sets the pace."),
}


def _check_q2(answer: Any) -> str:
    letter = _read.choice(answer, CHOICES)
    if letter != "a":
        fail(f"({letter}) {_(_WHY_Q2[letter])}")
    return _("right: the map needs 40 ms per element and the step only 10 ms. Run the map in parallel.")


def _check_q3(answer: Any) -> str:
    letter = _read.choice(answer, CHOICES)
    if letter != "b":
        fail(f"({letter}) {_(_WHY_Q3[letter])}")
    return _("right: the step (40 ms) is slower than the map (10 ms); a faster input would change nothing.")


q2 = Question(N_("Exercise 2: read a timeline"), _check_q2,
              hints=[N_("Is the Map row full or full of gaps? Is there grey before most consumer steps?"),
                     N_("A buffer cannot make the producer faster on average.")],
              solution="answer = 'a'")
q3 = Question(N_("Exercise 3: read another timeline"), _check_q3,
              hints=[N_("Where are the gaps: in the Map row or in the consumer row?"),
                     N_("Grey before the first step only is the start-up: the first element has to be made.")],
              solution="answer = 'b'")
