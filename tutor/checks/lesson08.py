"""Lesson 08 exercises: fix the 2019 pipeline so that it decodes once, reshuffles and keeps augmenting.

>>> from tutor.checks import lesson08 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from ._core import fail
from .lesson07 import EPOCHS, N_FILES, FunctionQuestion, augment, batch_values, check_content, decode, decode_calls, \
    exercise_source

__all__ = ["augment", "decode", "decode_calls", "q1"]


# --- q3: the seed's fix ------------------------------------------------------------------------
def _check_q1(answer: Any) -> str:
    if isinstance(answer, tf.data.Dataset) or not callable(answer):
        fail("pass your function that takes `source` and returns the dataset, without calling it.")
    before = decode_calls()
    values = batch_values(answer(exercise_source()))
    runs = decode_calls() - before
    check_content(values)
    if runs > N_FILES:
        fail(f"decode ran {runs} times for {N_FILES} files: the cache did not save the work. "
             "Put cache() right after decode and before repeat().")
    epochs = [np.floor(values[k * N_FILES:(k + 1) * N_FILES]).tolist() for k in range(EPOCHS)]
    if epochs[0] == epochs[1] == epochs[2]:
        fail("every epoch came out in the same order: shuffle after cache() (and before batch) to get a new "
             "order each epoch.")
    return f"decode ran {runs} times for {EPOCHS} epochs, each epoch has a new order and new augmentations."


q1 = FunctionQuestion(
    "Exercise 1: the 2019 pipeline, fixed",
    _check_q1,
    hints=["decode once: map(decode) then cache() then repeat(3).",
           "shuffle and augment after the cache, then batch(4)."],
    solution="""
    ex = tutor.checks.lesson08

    def fixed(source):
        return source.map(ex.decode).cache().shuffle(12, seed=0).repeat(3).map(ex.augment).batch(4)

    answer = fixed
    """,
)
