"""Lesson 05 exercises: map after batch, augmentation frozen by cache, where batch goes.

>>> from tutor.checks import lesson05 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations


import numpy as np
import tensorflow as tf

from ..augment import random_rotate, rotate_batch
from ..doctor import read_pipeline
from . import _read
from ._core import Question, fail

__all__ = ["mirror", "random_rotate", "rotate_batch", "broken_cache_pipeline", "q1", "q2", "q3"]


def mirror(image: tf.Tensor) -> tf.Tensor:
    """Mirror one grey image [H, W] left to right (the per-element transform of q1)."""
    return tf.reverse(image, axis=[1])


def broken_cache_pipeline(images) -> tf.data.Dataset:
    """q2's starting point: the random map sits before cache, so every epoch repeats epoch 1."""
    return tf.data.Dataset.from_tensor_slices(images).map(random_rotate).cache().batch(16)


def _chain(ds: tf.data.Dataset) -> list[tuple[str, tf.data.Dataset]]:
    """(stage kind, dataset) from the source to the output, skipping option stages."""
    return [(stage.kind, stage.dataset) for stage in read_pipeline(ds) if stage.kind != "options"]


def _names(chain) -> list[str]:
    return [name for name, _ in chain]


def _pipeline(chain) -> str:
    return " -> ".join(_names(chain))


# --------------------------------------------------------------------------- q1
def _check_q1(answer) -> str:
    ds = _read.dataset(answer, "a tf.data.Dataset (your batched pipeline)")
    chain = _chain(ds)
    names = _names(chain)
    if "batch" not in names:
        fail("there is no batch() in your pipeline; batch first, then map over whole batches.")
    if "map" not in names[names.index("batch") + 1:]:
        fail(f"your map still runs before batch ({_pipeline(chain)}), so it is called once per image. Put batch(32) first, then map.")
    if "map" in names[: names.index("batch")]:
        fail(f"there is still a map before batch ({_pipeline(chain)}); move all the work after batch.")
    source = chain[0][1]
    spec = source.element_spec
    if not (isinstance(spec, tf.TensorSpec) and spec.shape.rank == 2):
        fail(f"start from tf.data.Dataset.from_tensor_slices(images) with images [n, 28, 28]; your source gives {spec}.")
    originals = _read.elements(source, 5000)
    expected = np.stack([np.asarray(mirror(x)) for x in originals])
    batches = _read.elements(ds, 1000)
    if np.ndim(batches[0]) != 3:
        fail(f"each element should be a batch [batch, 28, 28]; batch 0 has shape {np.shape(batches[0])}.")
    got = np.concatenate(batches)
    if got.shape != expected.shape:
        fail(f"your pipeline produced {got.shape[0]} images of shape {got.shape[1:]}; expected {expected.shape[0]} of {expected.shape[1:]}.")
    start = 0
    for b, batch in enumerate(batches):
        for i in range(len(batch)):
            if not np.array_equal(batch[i], expected[start + i]):
                hint = ""
                if np.array_equal(batch[i], expected[start + i][::-1, ::-1]):
                    hint = (" It is flipped upside down: after batch, axis 0 counts images and axis 1 is the rows, "
                            "so the columns are axis 2.")
                elif np.array_equal(batch[i], originals[start + i]):
                    hint = " It is not mirrored at all."
                fail(f"batch {b}, image {i} differs from what the per-element map gives.{hint}")
        start += len(batch)
    return f"{len(batches)} batches, {got.shape[0]} images, identical to the per-element map: the mirror now runs once per batch."


q1 = Question(
    "Exercise 1: the same mirror, one call per batch",
    _check_q1,
    hints=[
        "Start again from tf.data.Dataset.from_tensor_slices(images) and call .batch(32) before .map(...).",
        "After batch each element has shape [batch, 28, 28]: axis 0 counts images, axis 1 is rows, axis 2 is columns.",
        "Mirroring left to right reverses the columns: tf.reverse(x, axis=[2]) on a batch.",
    ],
    solution="""
images = tutor.data.digits(256, seed=1)[0]
answer = (
    tf.data.Dataset.from_tensor_slices(images)
    .batch(32)
    .map(lambda x: tf.reverse(x, axis=[2]))  # axis 2: the columns of every image in the batch
)
""",
)


# --------------------------------------------------------------------------- q2
def _check_q2(answer) -> str:
    ds = _read.dataset(answer, "a tf.data.Dataset (the fixed pipeline)")
    chain = _chain(ds)
    names = _names(chain)
    if "repeat" in names:
        fail("leave repeat() out: this check reads two epochs itself, one pass each.")
    epochs = [np.concatenate([b if np.ndim(b) == 3 else b[None] for b in _read.elements(ds, 1000)]) for _ in range(2)]
    if epochs[0].shape != epochs[1].shape:
        fail(f"epoch 1 gave {epochs[0].shape[0]} images and epoch 2 gave {epochs[1].shape[0]}; each epoch should give every image once.")
    same = [bool(np.array_equal(a, b)) for a, b in zip(*epochs)]
    if all(same):
        fail(f"epoch 2 repeated epoch 1 exactly (all {len(same)} images, starting with image 0): the random map still runs "
             "before cache(), so cache stores its first draws. Move cache() before the random map.")
    if "cache" not in names:
        fail("the draws change every epoch now, but cache() is gone. Keep it, just before the random map: "
             "the deterministic work is cached and the augmentation runs fresh every epoch.")
    after_cache = names[names.index("cache") + 1:]
    if "map" not in after_cache:
        fail(f"the random map should come after cache ({_pipeline(chain)}).")
    changed = len(same) - sum(same)
    return f"{changed} of {len(same)} images differ between epoch 1 and epoch 2; the augmentation is alive again ({_pipeline(chain)})."


q2 = Question(
    "Exercise 2: bring a frozen augmentation back to life",
    _check_q2,
    hints=[
        "Draw two epochs with AugmentationGridDisplay.from_epochs: which rows are identical?",
        "cache() stores whatever reaches it during the first full pass, random draws included.",
        "Put cache() right after from_tensor_slices (or after the expensive, deterministic decoding) and random_rotate after it.",
    ],
    solution="""
images = tutor.data.digits(64, seed=2)[0]
from tutor.augment import random_rotate
answer = (
    tf.data.Dataset.from_tensor_slices(images)
    .cache()                 # cache what does not change ...
    .map(random_rotate)      # ... and draw new angles in every epoch
    .batch(16)
)
""",
)


# --------------------------------------------------------------------------- q3
def _check_q3(answer) -> str:
    ds = _read.dataset(answer, "a tf.data.Dataset of (images, labels) batches")
    chain = _chain(ds)
    names = _names(chain)
    for needed in ("shuffle", "batch", "map"):
        if needed not in names:
            fail(f"your pipeline ({_pipeline(chain)}) has no {needed}(); it needs shuffle, batch and map(rotate_batch).")
    b = names.index("batch")
    if names.index("shuffle") > b:
        fail(f"shuffle comes after batch ({_pipeline(chain)}), so it shuffles whole batches and the images inside a batch "
             "always stay together. Shuffle single images first, then batch.")
    if "map" not in names[b + 1:]:
        fail(f"rotate_batch must run after batch ({_pipeline(chain)}).")
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2 and spec[0].shape.rank == 3 and spec[1].shape.rank == 1):
        fail(f"each element should be (images [batch, 28, 28], labels [batch]); got {spec}.")
    batches = _read.elements(ds, 1000)
    labels = np.concatenate([lab for _, lab in batches])
    source = chain[0][1]
    source_labels = np.array([lab for _, lab in _read.elements(source, 5000)])
    if sorted(labels.tolist()) != sorted(source_labels.tolist()):
        fail("one epoch should hold every (image, label) pair exactly once; some labels are missing or repeated.")
    if np.array_equal(labels, source_labels):
        fail("the labels come out in their original order: is the shuffle buffer big enough?")
    return f"{len(batches)} batches: shuffled one image at a time, then rotated one batch per call ({_pipeline(chain)})."


q3 = Question(
    "Exercise 3: put batch where the rotation is vectorized",
    _check_q3,
    hints=[
        "rotate_batch is written for whole batches: it draws one angle per image and rotates them all in one op call.",
        "Shuffling whole batches keeps the same images together forever; shuffle single images.",
        "Order: shuffle, then batch, then map(rotate_batch).",
    ],
    solution="""
images, labels = tutor.data.digits(256, seed=3)
from tutor.augment import rotate_batch
answer = (
    tf.data.Dataset.from_tensor_slices((images, labels))
    .shuffle(256, seed=0)
    .batch(32)
    .map(rotate_batch)
)
""",
)
