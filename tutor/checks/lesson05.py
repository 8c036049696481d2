"""Lesson 05 exercises: map after batch, augmentation frozen by cache, where batch goes.

>>> from tutor.checks import lesson05 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from ..augment import random_rotate, rotate_batch
from . import _read, _stages
from ._core import fail, shorten
from .questions import Question


__all__ = ["mirror", "random_rotate", "rotate_batch", "broken_cache_pipeline", "q1", "q2", "q3"]

#: The op every rotation in this lesson ends in (rotate, random_rotate, rotate_batch, tfa.image.rotate).
ROTATE_OP = "ImageProjectiveTransformV3"
Q1_BATCH, Q2_BATCH, Q3_BATCH = 32, 16, 32
Q1_IMAGES, Q2_IMAGES, Q3_IMAGES = 256, 64, 256


def mirror(image: tf.Tensor) -> tf.Tensor:
    """Mirror one grey image [H, W] left to right (the per-element transform of q1)."""
    return tf.reverse(image, axis=[1])


def broken_cache_pipeline(images) -> tf.data.Dataset:
    """q2's starting point: the random map sits before cache, so every epoch repeats epoch 1."""
    return tf.data.Dataset.from_tensor_slices(images).map(random_rotate).cache().batch(Q2_BATCH)


def _first(chain, kind: str) -> int | None:
    return next((i for i, s in enumerate(chain) if s.kind == kind), None)


def _grey_source(chain, start: str):
    """The source dataset, checked to hold grey 28x28 images (alone or with labels)."""
    source = chain[0].dataset
    spec = None if source is None else source.element_spec
    image = spec[0] if isinstance(spec, tuple) and spec else spec
    if not (isinstance(image, tf.TensorSpec) and image.shape.as_list() == [28, 28]):
        fail(f"start from {start}; your pipeline starts from a dataset with element_spec {shorten(spec, 120)}.")
    return source


def _batch_size(chain, i: int, wanted: int) -> None:
    size = chain[i].params.get("batch_size")
    if size is not None and size != wanted:
        fail(f"use batch({wanted}) as the exercise asks; your pipeline has batch({size}).")


def _no_repeat(chain) -> None:
    if _first(chain, "repeat") is not None:
        fail(f"leave repeat() out ({_stages.chain_text(chain)}): the checker reads whole epochs itself, one pass each.")


def _images(elements) -> np.ndarray:
    """Every image of one epoch, whether the elements are images, batches, or (images, labels)."""
    parts = [e[0] if isinstance(e, tuple) else e for e in elements]
    if not parts:
        fail("your dataset produced no elements.")
    return np.concatenate([p if np.ndim(p) == 3 else p[None] for p in parts])


# --------------------------------------------------------------------------- q1
def _check_q1(answer) -> str:
    ds = _read.dataset(answer, "a tf.data.Dataset (your batched pipeline)")
    chain = _stages.stages(ds)
    _no_repeat(chain)
    if _first(chain, "shuffle") is not None:
        fail("leave shuffle() out: the result must be identical to per_element, image for image.")
    b = _first(chain, "batch")
    maps = [i for i, s in enumerate(chain) if s.kind == "map"]
    if b is None:
        fail(f"there is no batch() in your pipeline ({_stages.chain_text(chain)}): batch({Q1_BATCH}) first, then map over "
             "whole batches.")
    if not maps:
        fail(f"there is no map() in your pipeline ({_stages.chain_text(chain)}): mirror the images with a map after "
             f"batch({Q1_BATCH}).")
    if min(maps) < b:
        fail(f"there is still a map before batch ({_stages.chain_text(chain)}), so it runs once per image. Start again from "
             f"the images, batch({Q1_BATCH}) first, and do all the work in a map after it.")
    source = _grey_source(chain, "tf.data.Dataset.from_tensor_slices(images[:256])")
    _batch_size(chain, b, Q1_BATCH)
    originals = _read.elements(source, 5000)
    if len(originals) != Q1_IMAGES:
        fail(f"start from images[:{Q1_IMAGES}]; your source holds {len(originals)} images.")
    expected = np.stack([np.asarray(mirror(x)) for x in originals])
    batches = _read.elements(ds, 1000)
    if not batches:
        fail("your dataset produced no elements.")
    if np.ndim(batches[0]) != 3:
        fail(f"each element should be a batch [batch, 28, 28]; batch 0 has shape {np.shape(batches[0])}.")
    got = np.concatenate(batches)
    if got.shape != expected.shape:
        fail(f"your pipeline produced {got.shape[0]} images of shape {got.shape[1:]}; expected {expected.shape[0]} "
             f"of {expected.shape[1:]}.")
    start = 0
    for k, batch in enumerate(batches):
        for i in range(len(batch)):
            if not np.array_equal(batch[i], expected[start + i]):
                hint = ""
                if np.array_equal(batch[i], originals[start + i][::-1, :]):
                    hint = (" It is flipped upside down: after batch, axis 0 counts images and axis 1 is the rows, "
                            "so the columns are axis 2.")
                elif np.array_equal(batch[i], originals[start + i]):
                    hint = " It is not mirrored at all."
                fail(f"batch {k}, image {i} differs from what the per-element map gives.{hint}")
        start += len(batch)
    return (f"{len(batches)} batches, {got.shape[0]} images, identical to the per-element map: the mirror now runs "
            "once per batch.")


q1 = Question(
    "Exercise 1: the same mirror, one call per batch",
    _check_q1,
    hints=[
        "Start again from tf.data.Dataset.from_tensor_slices(images[:256]) and call .batch(32) before .map(...).",
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
    chain = _stages.stages(ds)
    _no_repeat(chain)
    rotations = [i for i, s in enumerate(chain) if s.kind == "map" and ROTATE_OP in s.fn_ops and s.random_fn]
    caches = [i for i, s in enumerate(chain) if s.kind == "cache"]
    b = _first(chain, "batch")
    if not rotations:
        fail(f"your pipeline ({_stages.chain_text(chain)}) has no random rotation any more: keep map(ex.random_rotate), which "
             "draws a new angle for every image.")
    if not caches:
        fail(f"cache() is gone ({_stages.chain_text(chain)}): keep it, placed before map(ex.random_rotate), so the fixed "
             "work is stored and the rotation runs fresh every epoch.")
    if max(caches) > min(rotations):
        fail(f"cache() still comes after the random rotation ({_stages.chain_text(chain)}): it stores the first epoch's "
             "angles and replays them. Move cache() before map(ex.random_rotate).")
    if b is None:
        fail(f"batch by {Q2_BATCH}: your pipeline ({_stages.chain_text(chain)}) has no batch().")
    if min(rotations) > b:
        fail(f"ex.random_rotate rotates ONE image, but in your pipeline ({_stages.chain_text(chain)}) it comes after batch: it "
             f"gets a whole batch [{Q2_BATCH}, 28, 28] and turns it as if it were one image with 28 channels. Map "
             "before batch.")
    _batch_size(chain, b, Q2_BATCH)
    source = _grey_source(chain, "the same 64 images, tf.data.Dataset.from_tensor_slices(images[:64])")
    n_source = len(_read.elements(source, 5000))
    if n_source != Q2_IMAGES:
        fail(f"start from the same {Q2_IMAGES} images, images[:{Q2_IMAGES}]; your source holds {n_source}.")
    epochs = [_images(_read.elements(ds, 1000)) for _ in range(2)]
    for e, images in enumerate(epochs, start=1):
        if len(images) != n_source:
            fail(f"epoch {e} gave {len(images)} images; every one of the {n_source} images should come out once "
                 "per epoch.")
    first = sorted(img.tobytes() for img in epochs[0])
    second = sorted(img.tobytes() for img in epochs[1])
    if first == second:
        fail("epoch 2 gave exactly the same images as epoch 1 (maybe in another order): the rotation is still "
             "frozen. Make sure nothing random sits before cache().")
    changed = sum(a != b for a, b in zip(first, second))
    return (f"{changed} of {len(first)} images differ between epoch 1 and epoch 2; the augmentation is alive again "
            f"({_stages.chain_text(chain)}).")


q2 = Question(
    "Exercise 2: bring a frozen augmentation back to life",
    _check_q2,
    hints=[
        "Draw two epochs with AugmentationGridDisplay.from_epochs: which rows are identical?",
        "cache() stores whatever reaches it during the first full pass, random draws included.",
        "Put cache() right after from_tensor_slices (or after the expensive, deterministic decoding), then "
        "map(ex.random_rotate), then batch(16).",
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
    chain = _stages.stages(ds)
    _no_repeat(chain)
    s, b = _first(chain, "shuffle"), _first(chain, "batch")
    rotations = [i for i, st in enumerate(chain) if st.kind == "map" and ROTATE_OP in st.fn_ops]
    missing = [name for name, where in (("shuffle", s), ("batch", b), ("map(ex.rotate_batch)", rotations or None))
               if where is None]
    if missing:
        fail(f"your pipeline ({_stages.chain_text(chain)}) has no {' and no '.join(missing)}; it needs shuffle, batch and "
             "map(ex.rotate_batch).")
    if s > b:
        fail(f"shuffle comes after batch ({_stages.chain_text(chain)}), so it shuffles whole batches and the images inside a "
             "batch always stay together. Shuffle single images first, then batch.")
    if min(rotations) < b:
        fail(f"the rotation runs before batch ({_stages.chain_text(chain)}): ex.rotate_batch is written for whole batches. "
             "Put map(ex.rotate_batch) after batch.")
    _batch_size(chain, b, Q3_BATCH)
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2 and spec[0].shape.rank == 3 and spec[1].shape.rank == 1):
        fail(f"each element should be (images [batch, 28, 28], labels [batch]); got {shorten(spec, 160)}.")
    source = _grey_source(chain, "tf.data.Dataset.from_tensor_slices((images[:256], labels[:256]))")
    source_labels = [int(e[1]) for e in _read.elements(source, 5000)] if isinstance(source.element_spec, tuple) else None
    if source_labels is None or len(source_labels) != Q3_IMAGES:
        fail(f"start from tf.data.Dataset.from_tensor_slices((images[:{Q3_IMAGES}], labels[:{Q3_IMAGES}])): "
             f"{Q3_IMAGES} images with their labels.")
    buffer = chain[s].params.get("buffer_size")
    if isinstance(buffer, int) and 0 < buffer < len(source_labels):
        fail(f"shuffle({buffer}) holds only {buffer} of the {len(source_labels)} images at a time, so an image can "
             f"move at most {buffer - 1} places earlier (lesson 03): the order stays close to the original. Use a "
             f"buffer that holds them all: shuffle({len(source_labels)}).")
    batches = _read.elements(ds, 1000)
    labels = [int(v) for _, lab in batches for v in np.atleast_1d(lab)]
    if sorted(labels) != sorted(source_labels):
        fail("one epoch should hold every (image, label) pair exactly once; some labels are missing or repeated.")
    if labels == source_labels:
        fail("the labels come out in their original order: nothing was shuffled.")
    return (f"{len(batches)} batches: shuffled one image at a time, then rotated one batch per call "
            f"({_stages.chain_text(chain)}).")


q3 = Question(
    "Exercise 3: put batch where the rotation is vectorized",
    _check_q3,
    hints=[
        "rotate_batch is written for whole batches: it draws one angle per image and rotates them all in one op call.",
        "Shuffling whole batches keeps the same images together forever; shuffle single images, with a buffer "
        "as large as the data.",
        "Order: shuffle(256, seed=0), then batch(32), then map(ex.rotate_batch).",
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
