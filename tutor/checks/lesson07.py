"""Lesson 07 exercises: make a pipeline do less work by reordering it, and read two timelines.

Verdicts never depend on a clock: q1 counts how often ``decode`` ran and reads
the pipeline's structure with :func:`tutor.doctor.read_pipeline`; the time of
the learner's order against the slow one is shown beside the verdict, as
information. Lesson 08's exercise reuses the pieces here.

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

from ..doctor import PY_FUNCTION_OPS
from . import _read
from ._core import Question, Result, fail, shorten

__all__ = ["CHOICES", "augment", "decode", "decode_calls", "slow_pipeline", "q2_dataset", "q3_dataset",
           "q1", "q2", "q3"]

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
    """q1's starting point: all the right stages, in an order that decodes every file once per epoch."""
    return source.repeat(EPOCHS).map(decode).cache().map(augment).batch(BATCH)


def exercise_source() -> tf.data.Dataset:
    """The 12 "files" (ids 0..11) every function answer is called with."""
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


# --------------------------------------------------------------------------- reading a function answer
def answer_dataset(answer: Any, name: str) -> tf.data.Dataset:
    """Call the learner's function ``name`` on the exercise source; fail unless it returns a dataset."""
    if isinstance(answer, tf.data.Dataset):
        fail(f"pass your function itself, without calling it and without building the dataset: "
             f"q.check({name}). The checker calls it with its own source.")
    if not callable(answer):
        fail(f"pass your function {name} (the one that takes `source` and returns a dataset); got "
             f"{type(answer).__name__} {shorten(answer, 40)}.")
    result = answer(exercise_source())
    if result is None:
        fail(f"{name}(source) returned None: did you forget the `return` in front of the pipeline?")
    return _read.dataset(result, f"{name}(source) to return a tf.data.Dataset")


def stage_chain(ds: tf.data.Dataset) -> list:
    """The stages of the answer from source to output, option stages left out."""
    return _read.stages(ds, build_with="`source` and tf.data methods only (map, cache, shuffle, repeat, batch)")


def chain_text(chain: list) -> str:
    """``range(12) -> map(decode) -> cache() -> ...``: the answer's stages, as the learner wrote them."""
    return " -> ".join(s.label for s in chain)


def is_decode(stage) -> bool:
    return stage.kind == "map" and bool(stage.fn_ops & PY_FUNCTION_OPS)


def is_augment(stage) -> bool:
    return stage.kind == "map" and bool(stage.random_fn)


def where(chain: list, test: Callable) -> list[int]:
    """Positions in ``chain`` of the stages that pass ``test`` (a kind name or a predicate)."""
    if isinstance(test, str):
        kind = test
        test = lambda s: s.kind == kind  # noqa: E731
    return [i for i, s in enumerate(chain) if test(s)]


def require_stages(chain: list, *, shuffle: bool = False) -> dict[str, list[int]]:
    """Positions of the exercise's stages; fail naming the first one that is missing or misplaced."""
    text = chain_text(chain)
    found = {"decode": where(chain, is_decode), "augment": where(chain, is_augment), "cache": where(chain, "cache"),
             "repeat": where(chain, "repeat"), "batch": where(chain, "batch"), "shuffle": where(chain, "shuffle")}
    if not found["decode"]:
        fail(f"there is no map(ex.decode) in your pipeline ({text}): start from `source` and decode every file.")
    if not found["augment"]:
        fail(f"map(ex.augment) is missing ({text}): keep the random augmentation, placed after cache().")
    if not found["batch"]:
        fail(f"keep batch({BATCH}) as the exercise asks: your pipeline ({text}) has no batch().")
    if shuffle and not found["shuffle"]:
        fail(f"there is no shuffle() in your pipeline ({text}), so every epoch comes out in the same order. "
             "Shuffle after cache(), before repeat(3).")
    batch = chain[found["batch"][0]]
    size = batch.params.get("batch_size")
    if size is not None and size != BATCH:
        fail(f"use batch({BATCH}) as the exercise asks; your pipeline has batch({size}).")
    if min(found["augment"]) > found["batch"][0]:
        fail(f"map(ex.augment) comes after batch ({text}), so it adds ONE random number to a whole batch of "
             f"{BATCH}. Every file should get its own draw: augment before batch({BATCH}).")
    return found


def batch_values(ds: tf.data.Dataset, limit: int = 100) -> np.ndarray:
    """Every value of the answer, in output order; fail unless its elements are batches of numbers."""
    batches = _read.elements(ds, limit)
    if not batches:
        fail("your dataset produced no elements.")
    if any(np.ndim(b) != 1 for b in batches):
        fail(f"expected batches of {BATCH} numbers, got elements of shape {np.shape(batches[0])}: keep "
             f"map(ex.decode) first and batch({BATCH}) last.")
    values = np.concatenate(batches)
    if not np.issubdtype(values.dtype, np.number):
        fail(f"expected numbers (decoded files), got {values.dtype} values such as {shorten(values[0], 30)}.")
    return values.astype(np.float64)


def check_content(values: np.ndarray, found: dict) -> None:
    """All 12 files, three times each; fail naming the missing epochs or the wrong values."""
    expected = sorted([i * 10 for i in range(N_FILES)] * EPOCHS)
    if len(values) != len(expected):
        why = (f" There is no repeat({EPOCHS})." if not found["repeat"] else "")
        fail(f"expected {len(expected)} values ({N_FILES} files x {EPOCHS} epochs), got {len(values)}.{why}")
    if sorted(np.floor(values).astype(int).tolist()) != expected:
        fail(f"the values are not the {N_FILES} decoded files three times each: use every stage exactly once, "
             "starting from `source`.")


def check_decode_runs(runs: int, chain: list, found: dict) -> None:
    """Decoding must run once per file; fail naming the stage order that made it run more often."""
    if runs <= N_FILES:
        return
    text, decode_at = chain_text(chain), min(found["decode"])
    caches = [c for c in found["cache"] if c > decode_at]
    head = f"decode ran {runs} times for {N_FILES} files"
    if not found["cache"]:
        fail(f"{head}: without cache() every epoch decodes again ({text}). Add cache() right after map(ex.decode).")
    if not caches:
        fail(f"{head}: cache() comes before map(ex.decode) ({text}), so it stores file ids and every epoch still "
             "decodes. Put cache() right after map(ex.decode).")
    repeats_before = [r for r in found["repeat"] if r < min(caches)]
    if repeats_before:
        fail(f"{head}: repeat({EPOCHS}) comes before cache() ({text}), so the cache stores all three epochs "
             "and never replays anything. Decode, cache, then repeat.")
    fail(f"{head} ({text}): the cache did not save the work. Decode, cache(), then repeat({EPOCHS}).")


def check_augmentation(values: np.ndarray, chain: list, found: dict) -> None:
    """Every epoch gets fresh random numbers; fail naming a frozen or a missing augmentation."""
    if np.all(values == np.floor(values)):
        fail(f"the values are exactly the decoded files: map(ex.augment) never changed them ({chain_text(chain)}).")
    copies: dict[int, list[float]] = {}
    for v in values.tolist():
        copies.setdefault(int(np.floor(v)), []).append(v)
    if all(len(set(c)) == len(c) for c in copies.values()):
        return
    caches_after = [c for c in found["cache"] if c > min(found["augment"])]
    if caches_after:
        fail(f"the same file came out with the same random number in two epochs: map(ex.augment) runs before "
             f"cache() ({chain_text(chain)}), so the cache stores the first epoch's draws and replays them. The "
             "augmentation is frozen: put it after cache().")
    fail("the same file came out with the same random number in two epochs: each epoch should draw anew. Keep "
         "map(ex.augment) after cache() and call it on every element.")


def seconds(make: Callable[[], tf.data.Dataset]) -> float:
    """Wall-clock seconds of one full pass (information only, never a verdict)."""
    start = time.perf_counter()
    _read.elements(make(), 100)
    return time.perf_counter() - start


# --------------------------------------------------------------------------- q1
def _check_q1(answer: Any) -> str:
    ds = answer_dataset(answer, "fast_pipeline")
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
    return (f"decode ran {runs} times instead of {N_FILES * EPOCHS}, and every epoch got new random numbers. "
            f"For information, one pass just now took {mine:.2f} s in your order and {slow:.2f} s in the slow "
            "order (timings vary from run to run; the count does not).")


q1 = FunctionQuestion(
    "Exercise 1: less work by reordering",
    _check_q1,
    hints=[
        "Count how often decode runs in the slow order: repeat(3) comes first, so 36 times.",
        "cache() only saves work for the stages *before* it, and only when the cache is filled once "
        "and then read again, which needs repeat() *after* cache().",
        "Random augmentation must stay after cache(), or it is frozen.",
    ],
    solution="""
    ex = tutor.checks.lesson07

    def fast_pipeline(source):
        return source.map(ex.decode).cache().repeat(3).map(ex.augment).batch(4)

    answer = fast_pipeline
    """,
)


# --------------------------------------------------------------------------- reading timelines
CHOICES = {
    "a": "The input pipeline is the bottleneck: its map is busy all the time while the consumer waits.",
    "b": "The training step is the bottleneck: the map finishes early and then waits for the consumer.",
    "c": "The prefetch buffer is too small: a larger buffer_size would remove the waiting.",
    "d": "Nothing to fix: the consumer never waits at all, not even for the first element.",
}


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
    "b": "look at the grey in the consumer row: the consumer waits before most steps, so the training step is not "
         "what holds this run up.",
    "c": "a buffer only smooths out bumps. When the producer is slower on average, the buffer is empty most of the "
         "time, whatever its size.",
    "d": "look at the grey in the consumer row: it waits before the first step and before most of the others.",
}
_WHY_Q3 = {
    "a": "the Map row has gaps between its bars and the consumer waits only for the first element, so the input "
         "is not the bottleneck.",
    "c": "after the first step the consumer hardly waits, so there is nothing for a bigger buffer to remove; it "
         "cannot make the training step itself faster.",
    "d": "there is grey at the very start: the first element has to be made before the first step can run. After "
         "that the consumer hardly waits, and the training step sets the pace.",
}


def _check_q2(answer: Any) -> str:
    letter = _read.choice(answer, CHOICES)
    if letter != "a":
        fail(f"({letter}) {_WHY_Q2[letter]}")
    return "right: the map needs 40 ms per element and the step only 10 ms. Run the map in parallel."


def _check_q3(answer: Any) -> str:
    letter = _read.choice(answer, CHOICES)
    if letter != "b":
        fail(f"({letter}) {_WHY_Q3[letter]}")
    return "right: the step (40 ms) is slower than the map (10 ms); a faster input would change nothing."


q2 = Question("Exercise 2: read a timeline", _check_q2,
              hints=["Is the Map row full or full of gaps? Is there grey before most consumer steps?",
                     "A buffer cannot make the producer faster on average."],
              solution="answer = 'a'")
q3 = Question("Exercise 3: read another timeline", _check_q3,
              hints=["Where are the gaps: in the Map row or in the consumer row?",
                     "Grey before the first step only is the start-up: the first element has to be made."],
              solution="answer = 'b'")
