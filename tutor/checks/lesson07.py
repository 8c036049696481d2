"""Lesson 07 exercises: make a pipeline faster by reordering, read timelines, place the cache.

>>> from tutor.checks import lesson07 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from ..timeline import Pipeline, naive_options
from ..timeline.work import sleep_work
from . import _read
from ._core import Question, Result, fail

__all__ = ["decode", "augment", "slow_pipeline", "decode_calls", "q2_pipeline", "q4_pipeline",
           "q1", "q2", "q4"]

N_FILES, EPOCHS, BATCH = 12, 3, 4
DECODE_SECONDS = 0.01
_calls = 0
_lock = threading.Lock()
_rng = None


def decode(file_id: tf.Tensor) -> tf.Tensor:
    """Stand-in for reading and decoding file ``file_id``: about 10 ms, returns ``file_id * 10`` as float32."""

    def work(i):
        global _calls
        with _lock:
            _calls += 1
        time.sleep(DECODE_SECONDS)
        return np.float32(int(i) * 10)

    y = tf.py_function(work, [file_id], Tout=tf.float32)
    y.set_shape(())
    return y


def decode_calls() -> int:
    """How many times :func:`decode` has run so far in this kernel."""
    return _calls


def augment(image: tf.Tensor) -> tf.Tensor:
    """Random augmentation: adds a fresh random number in [0, 1) every time it runs."""
    global _rng
    if _rng is None:
        _rng = tf.random.Generator.from_seed(5)
    return image + _rng.uniform([])


def slow_pipeline(source: tf.data.Dataset) -> tf.data.Dataset:
    """q1's starting point: all the right stages, in an order that makes it slow."""
    return source.repeat(EPOCHS).map(decode).cache().map(augment).batch(BATCH)


def exercise_source() -> tf.data.Dataset:
    return tf.data.Dataset.range(N_FILES)


class FunctionQuestion(Question):
    """A question answered with a function ``f(source) -> Dataset``; ``return ...`` counts as not attempted."""

    def check(self, answer: Any = ...) -> Result:
        if callable(answer) and not isinstance(answer, tf.data.Dataset):
            try:
                placeholder = answer(tf.data.Dataset.range(1)) is ...
            except Exception:  # the real check reports it
                placeholder = False
            if placeholder:
                return super().check(...)
        return super().check(answer)


def batch_values(ds: tf.data.Dataset, limit: int = 100) -> np.ndarray:
    batches = _read.elements(_read.dataset(ds, "your function to return a tf.data.Dataset"), limit)
    if not batches or np.ndim(batches[0]) != 1:
        fail("expected batches of 4 numbers: keep .batch(4) as the last stage.")
    return np.concatenate(batches)


def check_content(values: np.ndarray) -> None:
    expected = sorted([i * 10 for i in range(N_FILES)] * EPOCHS)
    if len(values) != len(expected):
        fail(f"expected {len(expected)} values ({N_FILES} files x {EPOCHS} epochs), got {len(values)}.")
    if sorted(np.floor(values).astype(int).tolist()) != expected:
        fail("the decoded values are not the 12 files three times each: use every stage exactly once.")
    copies = {}
    for v in values.tolist():
        copies.setdefault(int(np.floor(v)), []).append(v)
    if any(len(set(c)) < len(c) for c in copies.values()):
        fail("the same file came out with the same random augmentation in two epochs: the augmentation is "
             "frozen. Random stages belong after cache().")


def _seconds(make: Callable[[], tf.data.Dataset]) -> float:
    start = time.perf_counter()
    for _ in make().take(100):
        pass
    return time.perf_counter() - start


def _check_q1(answer: Any) -> str:
    if isinstance(answer, tf.data.Dataset) or not callable(answer):
        fail("pass your *function* (the one that takes `source` and returns the dataset), "
             "without calling it: q1.check(fast_pipeline).")
    check_content(batch_values(answer(exercise_source())))
    naive = _seconds(lambda: slow_pipeline(exercise_source()).with_options(naive_options()))
    mine = min(_seconds(lambda: answer(exercise_source())) for _ in range(2))
    ratio = naive / max(mine, 1e-9)
    if ratio < 2.0:
        fail(f"your pipeline took {mine:.2f} s and the slow one {naive:.2f} s (measured just now): "
             f"only {ratio:.1f}x faster, 2x needed. Which stage runs 36 times but only needs to run 12 times?")
    return f"{ratio:.1f}x faster than the slow order ({mine:.2f} s vs {naive:.2f} s, measured just now)."


q1 = FunctionQuestion(
    "Exercise 1: faster by reordering",
    _check_q1,
    hints=[
        "Count how often decode runs in the slow order: repeat(3) comes first, so 36 times.",
        "cache() only saves work for the stages *before* it, and only when the cache is filled once "
        "and then read again, which needs repeat() *after* cache().",
        "Random augmentation must stay after cache(), or it is frozen.",
    ],
    solution="""
    def fast_pipeline(source):
        return source.map(tutor.checks.lesson07.decode).cache().repeat(3).map(tutor.checks.lesson07.augment).batch(4)

    answer = fast_pipeline
    """,
)


# --- reading timelines --------------------------------------------------------------------------
CHOICES = {
    "a": "The input pipeline is the bottleneck: its map is busy all the time while the consumer waits.",
    "b": "The training step is the bottleneck: the map finishes early and then waits for the consumer.",
    "c": "The prefetch buffer is too small: a larger buffer_size would remove the waiting.",
    "d": "Nothing to fix: the consumer never waits at all, not even for the first element.",
}


def q2_pipeline() -> Pipeline:
    """The pipeline behind q2's timeline: 40 ms of work per element, prefetch(2); record it with step_time=0.01."""
    return Pipeline(tf.data.Dataset.range(12), options=naive_options()).map(sleep_work(0.04), name="map").prefetch(2)


def q4_pipeline() -> Pipeline:
    """The pipeline behind q4's timeline: 10 ms of work per element, prefetch(1); record it with step_time=0.04."""
    return Pipeline(tf.data.Dataset.range(12), options=naive_options()).map(sleep_work(0.01), name="map").prefetch(1)


_WHY = {
    "a": "the map row is only partly busy and the consumer almost never waits, so this pipeline is not input-bound.",
    "b": "look at the grey: the consumer waits before most steps, so the training step is not what holds it up.",
    "c": "a buffer only smooths out bumps. When the producer is slower on average, the buffer is empty most of "
         "the time, whatever its size.",
    "d": "there is always some grey at the start: the first element has to be made before the first step.",
}


def _choice(answer: Any) -> str:
    if not isinstance(answer, str) or answer.strip().lower() not in CHOICES:
        fail(f"answer with one letter from {sorted(CHOICES)} as a string, e.g. 'a'; got {answer!r}.")
    return answer.strip().lower()


def _check_q2(answer: Any) -> str:
    letter = _choice(answer)
    if letter != "a":
        fail(f"({letter}) {_WHY[letter]}")
    return "right: the map stage needs 40 ms per element and the step only 10 ms. Parallelize the map."


def _check_q4(answer: Any) -> str:
    letter = _choice(answer)
    if letter != "b":
        why = dict(_WHY, a="the map row has gaps and the consumer only waits for the first element, so the input "
                            "is not the bottleneck.", b="")
        fail(f"({letter}) {why[letter]}")
    return "right: the step (40 ms) is slower than the map (10 ms); speeding up the input would change nothing."


q2 = Question("Exercise 2: read a timeline", _check_q2,
              hints=["Is the map row full or gappy? Is there grey before most consumer steps?",
                     "A buffer cannot make the producer faster on average."],
              solution="answer = 'a'")
q4 = Question("Exercise 4: read another timeline", _check_q4,
              hints=["Where are the gaps: in the map row or in the consumer row?"],
              solution="answer = 'b'")
