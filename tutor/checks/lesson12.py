"""Exercises for lesson 12 (training end to end).

q1: make the input pipeline stop being the bottleneck (step times measured in the check).
q2: split train and validation without leakage (checked over two epochs).

>>> from tutor.checks import lesson12 as ex
>>> ex.q2.check(...).status
'unattempted'
"""
from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from .. import augment, training
from ..leakage import check_leakage
from ._core import Question, fail
from ._read import dataset as _dataset
from ..doctor import PY_FUNCTION_OPS, read_pipeline

__all__ = ["q1", "q2", "slow_pipeline", "exercise_digits", "id_dataset"]

#: How close to "compute only" a tuned pipeline must get, and how much faster than the slow one.
#: Your pipeline must close at least this share of the gap between the slow pipeline and compute only.
GAP_CLOSED = 0.5
#: Below this slow/compute ratio the machine is too busy to tell pipelines apart by time.
MEASURABLE = 1.6
_STEPS = 12


def exercise_digits(n: int = 1024):
    """The digits both exercises use: ``(images [n, 28, 28, 1] uint8, labels)``."""
    from ..data import digits

    images, labels = digits(n, source="synthetic")
    return images[..., None], labels


def slow_pipeline(images: np.ndarray, labels: np.ndarray, batch_size: int = 64) -> tf.data.Dataset:
    """The input-bound starting point: per-element SciPy rotation in py_function, no prefetch."""
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.shuffle(len(labels), seed=0).map(augment.rotate_slow).batch(batch_size)
    return training.without_auto_speedups(ds)


def _model():
    """A light CNN, so that the check's step times are mostly input time and it runs in seconds."""
    return training.small_cnn(filters=(4, 8))


def _augmentation_is_frozen(ds: tf.data.Dataset, limit: int = 200) -> bool:
    """Whether the first batch of the second epoch repeats the first batch of the first one exactly.

    A ``cache()`` only replays once a whole pass has gone through it, so the first
    pass is read to its end (at most ``limit`` batches). On an endless pipeline,
    the batches of that one pass are searched for a repeat of the first batch.
    """
    first_pass = iter(ds)
    first = next(first_pass)[0].numpy()
    for count, batch in enumerate(first_pass, start=1):
        if count >= limit:
            return False
        if ds.cardinality() == tf.data.INFINITE_CARDINALITY and np.array_equal(batch[0].numpy(), first):
            return True
    second = next(iter(ds))[0].numpy()
    return first.shape == second.shape and np.array_equal(first, second)


def _check_fast(answer: Any) -> str:
    ds = _dataset(answer, "a tf.data.Dataset of (images, labels) batches")
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2 and spec[0].shape.rank == 4
            and tuple(spec[0].shape[1:]) == (28, 28, 1)):
        fail(f"expected batches (images [batch, 28, 28, 1], labels), got element_spec={spec}.")
    if _augmentation_is_frozen(ds):
        fail("two passes over your pipeline gave the very same first batch: the random rotation is gone, or it "
             "sits before cache() and is frozen. Keep the augmentation, after cache().")
    images, labels = exercise_digits()
    first = next(iter(ds.take(1)))
    pipelines = {"slow": slow_pipeline(images, labels), "yours": ds,
                 "compute only": tf.data.Dataset.from_tensors(first).repeat()}  # one batch from memory
    times = {k: float(np.median(v)) for k, v in
             training.compare_step_times(_model, pipelines, steps=_STEPS, rounds=2).items()}
    ms = {k: f"{v * 1000:.0f} ms" for k, v in times.items()}
    summary = f"median step: slow pipeline {ms['slow']}, yours {ms['yours']}, compute only {ms['compute only']}"
    if times["slow"] < MEASURABLE * times["compute only"]:
        # Too busy to tell the pipelines apart by time: judge the structure instead.
        stages = read_pipeline(ds)
        batch_at = [i for i, stage in enumerate(stages) if stage.kind == "batch"]
        py_at = [i for i, stage in enumerate(stages) if stage.fn_ops & PY_FUNCTION_OPS]
        if py_at and (not batch_at or py_at[0] < batch_at[0]):
            fail(f"{summary} (the machine is too busy to time reliably, so I looked at your pipeline instead): "
                 "it still calls Python (py_function) once per image before batch.")
        return (f"{summary}. The machine is too busy for a clean timing, but your pipeline no longer calls "
                "Python per image, so it should keep up with the model.")
    gap = times["slow"] - times["compute only"]
    if times["yours"] > times["compute only"] + (1 - GAP_CLOSED) * gap:
        fail(f"{summary}. Your steps still wait for input. Rotate whole batches in one TF op "
             "(batch, then map(tutor.augment.rotate_batch, num_parallel_calls=tf.data.AUTOTUNE)), cache the "
             "decoded images before the augmentation, and end with prefetch(tf.data.AUTOTUNE).")
    closed = (times["slow"] - times["yours"]) / gap
    return f"{summary}: you closed {min(closed, 1):.0%} of the gap to compute only; the input no longer sets the pace."


q1 = Question(
    "Exercise 1 (no longer input-bound)",
    _check_fast,
    hints=[
        "Profile first: the slow pipeline calls Python (py_function) once per image.",
        "Batch before augmenting, and rotate the batch with tutor.augment.rotate_batch in one call.",
        "from_tensor_slices -> cache -> shuffle -> batch -> map(rotate_batch, num_parallel_calls=AUTOTUNE) -> prefetch.",
    ],
    solution="""
        images, labels = tutor.checks.lesson12.exercise_digits()
        answer = (tf.data.Dataset.from_tensor_slices((images, labels))
                  .cache()
                  .shuffle(len(labels), seed=0)
                  .batch(64)
                  .map(tutor.augment.rotate_batch, num_parallel_calls=tf.data.AUTOTUNE)
                  .prefetch(tf.data.AUTOTUNE))
    """,
)


# --------------------------------------------------------------------- q2
def id_dataset(n: int = 500) -> tf.data.Dataset:
    """``n`` elements ``{"id", "image", "label"}``: the data to split in exercise 2."""
    images, labels = exercise_digits(n)
    return tf.data.Dataset.from_tensor_slices({"id": tf.range(n, dtype=tf.int64), "image": images,
                                               "label": labels})


def _check_split(answer: Any) -> str:
    if not (isinstance(answer, (tuple, list)) and len(answer) == 2):
        fail(f"expected a pair (train, val) of datasets, got {type(answer).__name__}.")
    train, val = (_dataset(a, "a tf.data.Dataset") for a in answer)
    for name, d in (("train", train), ("val", val)):
        if not (isinstance(d.element_spec, dict) and "id" in d.element_spec):
            fail(f"keep the 'id' feature in {name}'s elements (the check reads it), got "
                 f"element_spec={d.element_spec}.")
    report = check_leakage(train, val, epochs=2, key="id")
    if report.leaked:
        fail(str(report))
    n_train, n_val = len(report.train_epochs[0]), len(report.val_epochs[0])
    if n_val == 0 or n_train == 0:
        fail(f"train has {n_train} and validation {n_val} elements; both must hold some.")
    total = len(set(report.train_epochs[0]) | set(report.val_epochs[0]))
    if total < 500:
        fail(f"train and validation together hold {total} of the 500 elements; a split should use them all.")
    if len(set(report.train_epochs[0])) != n_train:
        fail("train holds the same element twice in one epoch; did repeat() sneak in before the split?")
    return str(report)


q2 = Question(
    "Exercise 2 (a split without leakage)",
    _check_split,
    hints=[
        "ds.shuffle(n).take(k) and ds.shuffle(n).skip(k) each reshuffle on every pass, so they draw different sets.",
        "Split first (take/skip on the unshuffled data), then shuffle only the training part.",
        "Or shuffle once with reshuffle_each_iteration=False before take/skip.",
    ],
    solution="""
        ds = tutor.checks.lesson12.id_dataset()
        val = ds.take(100)
        train = ds.skip(100).shuffle(400, seed=0)
        answer = (train, val)
    """,
)
