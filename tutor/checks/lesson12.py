"""Exercises for lesson 12: training end to end.

q1: a pipeline the model no longer waits for, judged by what it does (structure, counts, images), never by time.
q2: a train/validation split by the splitting rule, checked over two epochs.

>>> from tutor.checks import lesson12 as ex
>>> ex.q2.check(...).status
'unattempted'
"""
from __future__ import annotations

import hashlib
import time
from collections import Counter
from typing import Any

import numpy as np
import tensorflow as tf

from .. import augment, training
from ..doctor import PY_FUNCTION_OPS
from ..i18n import N_
from ..i18n import gettext as _
from . import _read, _stages
from ._core import fail, sentences
from .questions import Question

__all__ = ["q1", "q2", "exercise_digits", "id_dataset", "slow_pipeline"]

N_Q1, BATCH_Q1 = 1024, 64
N_Q2, VAL_Q2 = 500, 100
#: Ops that move pixels: the rotation of tutor.augment and keras.layers.RandomRotation both use them.
TRANSFORM_OPS = frozenset({"ImageProjectiveTransformV3", "ImageProjectiveTransformV2"})


def exercise_digits(n: int = N_Q1):
    """The digits of exercise 1: ``(images [n, 28, 28, 1] uint8, labels)``, the same on every machine."""
    from ..data import digits

    images, labels = digits(n, source="synthetic")
    return images[..., None], labels


def slow_pipeline(images: np.ndarray, labels: np.ndarray, batch_size: int = BATCH_Q1) -> tf.data.Dataset:
    """The input-bound start of exercise 1: SciPy rotation in ``py_function``, one image per call, no prefetch."""
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.shuffle(len(labels), seed=0).map(augment.rotate_slow).batch(batch_size)
    return training.without_auto_speedups(ds)


# --------------------------------------------------------------------- q1
def _digest(image: np.ndarray) -> str:
    return hashlib.sha1(np.asarray(image, np.float32).tobytes()).hexdigest()


def _image_batches(ds: tf.data.Dataset) -> None:
    """Fail unless the elements are ``(images [batch, 28, 28, 1], labels [batch])``."""
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(s, tf.TensorSpec) for s in spec)):
        fail(_("each element is {spec}; expected a pair (images, labels), as "
               "from_tensor_slices((ex_images, ex_labels)) gives.").format(spec=_read.describe_spec(spec)))
    images, labels = spec
    if _read.is_text(images) or not _read.is_number_spec(images):
        fail(_("the images are {dtype} values; expected numbers (the digits' pixels).").format(
            dtype=images.dtype.name))
    if images.shape.rank == 3 and tuple(images.shape) == (28, 28, 1):
        fail(_("each element is one image [28, 28, 1], not a batch: add batch(64)."))
    if images.shape.rank != 4 or tuple(images.shape[1:]) != (28, 28, 1):
        fail(_("the images have shape {shape}; expected batches [batch, 28, 28, 1].").format(
            shape=_read.shape_text(images.shape)))
    if labels.shape.rank != 1:
        fail(_("the labels have shape {shape}; expected one label per image, [batch].").format(
            shape=_read.shape_text(labels.shape)))


def _read_pass(ds: tf.data.Dataset) -> tuple[list[int], np.ndarray, list[int]]:
    """One pass: (batch sizes, images as one array, labels)."""
    batches = _read.elements(ds, N_Q1 + 1)
    if not batches:
        fail(_("your dataset is empty: it produced no batch."))
    sizes = [len(b[1]) for b in batches]
    return sizes, np.concatenate([np.asarray(b[0], np.float32) for b in batches]), \
        [int(v) for b in batches for v in np.ravel(b[1])]


def _python_stage(found: list):
    return next((s for s in found if s.fn_ops & PY_FUNCTION_OPS or (s.kind == "source" and s.fn_name == "generator")),
                None)


def _after(found: list, kind: str, index: int) -> bool:
    return any(s.kind == kind for s in found[index + 1:])


def _check_fast(answer: Any) -> str:
    ds = _read.dataset(answer, _("a tf.data.Dataset of (images, labels) batches"))
    _image_batches(ds)
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail(_("your dataset never ends: leave out repeat(). The checker makes its own passes, one per epoch."))
    found = _stages.stages(ds)
    python = _python_stage(found)
    if python is not None:
        # Translators: {where} names a stage: "stage 2: map(slow_rotate)".
        fail(_("your pipeline still runs Python ({where}): py_function, numpy_function or a generator is "
               "called once per element, one call at a time, and that is what made the slow pipeline slow. Rotate "
               "with a TensorFlow op instead: batch(64), then map(tutor.augment.rotate_batch).").format(
            where=python.where))
    start = time.perf_counter()
    sizes, first, labels = _read_pass(ds)
    seconds = time.perf_counter() - start
    _unused, second, labels_2 = _read_pass(ds)
    if any(n != BATCH_Q1 for n in sizes[:-1]) or sizes[-1] > BATCH_Q1:
        # Translators: {sizes} is a Python list of batch sizes, followed by " ..." when there are more.
        fail(_("use batches of {batch}, as the slow pipeline does; your batch sizes are {sizes}.").format(
            batch=BATCH_Q1, sizes=str(sizes[:6]) + (" ..." if len(sizes) > 6 else "")))
    if len(labels) != N_Q1:
        extra = _("That is two passes: leave out repeat(2).") if len(labels) == 2 * N_Q1 else ""
        fail(sentences(_("one pass over your dataset holds {n:,} images; expected the {digits:,} digits of "
                         "exercise_digits(), each once.").format(n=len(labels), digits=N_Q1), extra))
    images, source_labels = exercise_digits()
    if Counter(labels) != Counter(source_labels.tolist()):
        fail(_("your labels are not those of exercise_digits(): build the pipeline from ex_images and ex_labels."))
    originals = {_digest(im) for im in images}
    unchanged = sum(_digest(im) in originals for im in first)
    if unchanged > N_Q1 // 2:
        fail(_("{unchanged:,} of the {n:,} images come out exactly as they went in: the random rotation is "
               "missing. Keep it: map(tutor.augment.rotate_batch) after batch(64).").format(
            unchanged=unchanged, n=N_Q1))
    repeated = len({_digest(im) for im in first} & {_digest(im) for im in second})
    if repeated > N_Q1 // 2:
        random_at = [k for k, s in enumerate(found) if s.kind == "map" and (s.random_fn or s.fn_ops & TRANSFORM_OPS)]
        if random_at and _after(found, "cache", random_at[0]):
            fail(_("the second epoch repeats {repeated:,} rotated images of the first one exactly: your cache() comes "
                   "after the rotation, so it replays the first epoch's angles (lesson 05). Put the rotation after "
                   "cache().").format(repeated=repeated))
        fail(_("the second epoch repeats {repeated:,} rotated images of the first one exactly: every epoch gets the "
               "same angles. Use a rotation that draws new angles every time it runs, such as "
               "tutor.augment.rotate_batch.").format(repeated=repeated))
    rotating = [s for s in found if s.kind == "map" and s.fn_ops & TRANSFORM_OPS]
    batch_at = next((k for k, s in enumerate(found) if s.kind == "batch"), None)
    if rotating and batch_at is not None and all(found.index(s) < batch_at for s in rotating):
        fail(_("your rotation ({where}) runs once per image, before batch: one op call per image. "
               "Rotate whole batches: batch(64) first, then map(tutor.augment.rotate_batch).").format(
            where=rotating[0].where))
    _check_shuffled(found, batch_at, labels, labels_2, source_labels.tolist())
    last = found[-1]
    if last.kind != "prefetch":
        # Translators: {label} is a stage as code: batch(batch_size=64).
        fail(_("your pipeline ends with {label}; end it with prefetch(tf.data.AUTOTUNE), so the next batch is "
               "ready while the model computes.").format(label=last.label))
    return _("no Python per image, whole batches rotated with fresh angles every epoch, examples reshuffled every "
             "epoch, and a prefetch at the end. (For information: one pass over your pipeline took {seconds:.2f} s "
             "on this machine.)").format(seconds=seconds)


def _check_shuffled(found: list, batch_at: int | None, labels: list, labels_2: list, source: list) -> None:
    before = found[:batch_at] if batch_at is not None else found
    shuffles = [s for s in before if s.kind == "shuffle"]
    if not shuffles:
        if any(s.kind == "shuffle" for s in found):
            fail(_("your shuffle comes after batch, so it shuffles whole batches and every batch holds the same "
                   "digits in every epoch. Shuffle the examples: shuffle(1024) before batch."))
        fail(_("the examples are not shuffled: add shuffle(1024) before batch, as the slow pipeline has."))
    small = [s for s in shuffles if isinstance(s.params.get("buffer_size"), int) and 0 < s.params["buffer_size"] < N_Q1]
    if small and len(small) == len(shuffles):
        fail(_("shuffle(buffer_size={size}) is not a full shuffle of the {n:,} digits; "
               "use a buffer of {n}, as the slow pipeline does.").format(size=small[0].params['buffer_size'], n=N_Q1))
    if labels == source:
        fail(_("the labels come out in the order of ex_labels: nothing shuffled the examples."))
    if labels == labels_2:
        last = found.index(shuffles[-1])
        if shuffles[-1].params.get("reshuffle_each_iteration") is False:
            fail(_("both epochs come in the same order: your shuffle has reshuffle_each_iteration=False. Leave it "
                   "at its default, so every epoch gets a new order."))
        if _after(found[:batch_at] if batch_at is not None else found, "cache", last):
            fail(_("both epochs come in the same order: cache() after shuffle stores the first order and replays it. "
                   "Put cache() before shuffle."))
        fail(_("both epochs come in the same order; every epoch should get a new order."))


q1 = Question(
    N_("Exercise 1 (no longer input-bound)"),
    _check_fast,
    hints=[
        N_("Profile first: the slow pipeline calls Python (py_function) once per image."),
        N_("Batch before augmenting, and rotate the whole batch with tutor.augment.rotate_batch in one call."),
        N_("from_tensor_slices -> shuffle(1024) -> batch(64) -> map(rotate_batch, num_parallel_calls=AUTOTUNE) -> "
           "prefetch(AUTOTUNE)."),
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
def id_dataset(n: int = N_Q2) -> tf.data.Dataset:
    """``n`` elements ``{"id", "image", "label"}`` sorted by label, as files often are: the data of exercise 2."""
    images, labels = exercise_digits(n)
    order = np.argsort(labels, kind="stable")
    return tf.data.Dataset.from_tensor_slices({"id": tf.range(n, dtype=tf.int64), "image": images[order],
                                               "label": labels[order]})


def _ids(ds: tf.data.Dataset, name: str) -> list[int]:
    """One pass of a part of the split, as ids; fails with a sentence when its elements are not id_dataset()'s."""
    spec = ds.element_spec
    if not (isinstance(spec, dict) and "id" in spec and "label" in spec):
        # Translators: {name} is a part's name as code: train, val.
        fail(_("{name}: each element is {spec}; keep the elements of id_dataset() as they are, "
               "dicts with 'id', 'image' and 'label' (the checker reads 'id' and 'label').").format(
            name=name, spec=_read.describe_spec(spec)))
    if not (spec["id"].dtype.is_integer and spec["id"].shape.rank in (0, 1)):
        fail(_("{name}: the 'id' feature has shape {shape}; keep it as it is.").format(
            name=name, shape=_read.shape_text(spec['id'].shape)))
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail(_("{name} never ends: leave out repeat(). The checker reads each part twice, as two epochs.").format(
            name=name))
    return [int(v) for element in _read.elements(ds, 4 * N_Q2) for v in np.ravel(element["id"])]


def _labels_by_id() -> np.ndarray:
    """The label of every id of id_dataset() (it is sorted by label)."""
    _unused, labels = exercise_digits(N_Q2)
    return np.sort(labels, kind="stable")


def _few_classes(val_ids: list[int]) -> str | None:
    classes = sorted({int(c) for c in _labels_by_id()[val_ids]})
    if len(classes) <= 3:
        # Translators: {classes} is a Python list of labels.
        return _("val holds only the label(s) {classes}: id_dataset() is sorted by label, so a part cut from it as "
                 "it comes holds a few classes.").format(classes=classes)
    return None


def _check_split(answer: Any) -> str:
    _unused, val_ids = _stages.check_split(answer, _ids, n=N_Q2, held_out=VAL_Q2, names=("train", "val"),
                                           not_random=_few_classes)
    classes = len({int(c) for c in _labels_by_id()[val_ids]})
    # Translators: {train} and {val} are the sizes of the two parts.
    return _("train ({train}) and val ({val}, {classes} different labels) never share an element "
             "over two epochs, and train comes in a new order every epoch.").format(
        train=N_Q2 - VAL_Q2, val=VAL_Q2, classes=classes)


q2 = Question(
    N_("Exercise 2 (a split without leakage)"),
    _check_split,
    hints=[
        N_("ds.shuffle(n).take(k) and ds.shuffle(n).skip(k) each reshuffle on every pass, so they draw different "
           "sets."),
        N_("The splitting rule of lesson 03: fix a random order once with shuffle(500, seed=0, "
           "reshuffle_each_iteration=False), then take and skip."),
        N_("Then shuffle only the training part, with a new order every epoch: train.shuffle(400)."),
    ],
    solution="""
        ds = tutor.checks.lesson12.id_dataset()
        fixed = ds.shuffle(500, seed=0, reshuffle_each_iteration=False)
        train = fixed.skip(100).shuffle(400, seed=1)
        val = fixed.take(100)
        answer = (train, val)
    """,
)
