"""Lesson 05 exercises: map after batch, augmentation frozen by cache, where batch goes.

>>> from tutor.checks import lesson05 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from ..augment import random_rotate, rotate_batch
from ..i18n import N_
from ..i18n import gettext as _
from . import _read, _stages
from ._core import fail, sentences, shorten
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
    """The source dataset, checked to hold grey 28x28 images (alone or with labels); ``start`` is translated."""
    source = chain[0].dataset
    spec = None if source is None else source.element_spec
    image = spec[0] if isinstance(spec, tuple) and spec else spec
    if not (isinstance(image, tf.TensorSpec) and image.shape.as_list() == [28, 28]):
        # Translators: {start} is the dataset to start from, as code or described; {spec} an element_spec as code.
        fail(_("start from {start}; your pipeline starts from a dataset with element_spec {spec}.").format(
            start=start, spec=shorten(spec, 120)))
    return source


def _batch_size(chain, i: int, wanted: int) -> None:
    size = chain[i].params.get("batch_size")
    if size is not None and size != wanted:
        fail(_("use batch({batch}) as the exercise asks; your pipeline has batch({size}).").format(
            batch=wanted, size=size))


def _no_repeat(chain) -> None:
    if _first(chain, "repeat") is not None:
        # Translators: {chain} is the learner's pipeline as code: range(12) -> batch(batch_size=32) -> map(f).
        fail(_("leave repeat() out ({chain}): the checker reads whole epochs itself, one pass each.").format(
            chain=_stages.chain_text(chain)))


def _images(elements) -> np.ndarray:
    """Every image of one epoch, whether the elements are images, batches, or (images, labels)."""
    parts = [e[0] if isinstance(e, tuple) else e for e in elements]
    if not parts:
        fail(_("your dataset produced no elements."))
    return np.concatenate([p if np.ndim(p) == 3 else p[None] for p in parts])


# --------------------------------------------------------------------------- q1
def _check_q1(answer) -> str:
    ds = _read.dataset(answer, _("a tf.data.Dataset (your batched pipeline)"))
    chain = _stages.stages(ds)
    _no_repeat(chain)
    if _first(chain, "shuffle") is not None:
        fail(_("leave shuffle() out: the result must be identical to per_element, image for image."))
    b = _first(chain, "batch")
    maps = [i for i, s in enumerate(chain) if s.kind == "map"]
    if b is None:
        fail(_("there is no batch() in your pipeline ({chain}): batch({batch}) first, then map over "
               "whole batches.").format(chain=_stages.chain_text(chain), batch=Q1_BATCH))
    if not maps:
        fail(_("there is no map() in your pipeline ({chain}): mirror the images with a map after "
               "batch({batch}).").format(chain=_stages.chain_text(chain), batch=Q1_BATCH))
    if min(maps) < b:
        fail(_("there is still a map before batch ({chain}), so it runs once per image. Start again from "
               "the images, batch({batch}) first, and do all the work in a map after it.").format(
            chain=_stages.chain_text(chain), batch=Q1_BATCH))
    source = _grey_source(chain, "tf.data.Dataset.from_tensor_slices(images[:256])")
    _batch_size(chain, b, Q1_BATCH)
    originals = _read.elements(source, 5000)
    if len(originals) != Q1_IMAGES:
        fail(_("start from images[:{images}]; your source holds {n} images.").format(
            images=Q1_IMAGES, n=len(originals)))
    expected = np.stack([np.asarray(mirror(x)) for x in originals])
    batches = _read.elements(ds, 1000)
    if not batches:
        fail(_("your dataset produced no elements."))
    if np.ndim(batches[0]) != 3:
        fail(_("each element should be a batch [batch, 28, 28]; batch 0 has shape {shape}.").format(
            shape=np.shape(batches[0])))
    got = np.concatenate(batches)
    if got.shape != expected.shape:
        # Translators: {n} and {want} count images; {shape} and {want_shape} are shapes as Python writes them.
        fail(_("your pipeline produced {n} images of shape {shape}; expected {want} of {want_shape}.").format(
            n=got.shape[0], shape=got.shape[1:], want=expected.shape[0], want_shape=expected.shape[1:]))
    start = 0
    for k, batch in enumerate(batches):
        for i in range(len(batch)):
            if not np.array_equal(batch[i], expected[start + i]):
                hint = ""
                if np.array_equal(batch[i], originals[start + i][::-1, :]):
                    hint = _("It is flipped upside down: after batch, axis 0 counts images and axis 1 is the rows, "
                             "so the columns are axis 2.")
                elif np.array_equal(batch[i], originals[start + i]):
                    hint = _("It is not mirrored at all.")
                fail(sentences(_("batch {k}, image {i} differs from what the per-element map gives.").format(
                    k=k, i=i), hint))
        start += len(batch)
    return _("{n} batches, {images} images, identical to the per-element map: the mirror now runs "
             "once per batch.").format(n=len(batches), images=got.shape[0])


q1 = Question(
    N_("Exercise 1: the same mirror, one call per batch"),
    _check_q1,
    hints=[
        N_("Start again from tf.data.Dataset.from_tensor_slices(images[:256]) and call .batch(32) before .map(...)."),
        N_("After batch each element has shape [batch, 28, 28]: axis 0 counts images, axis 1 is rows, axis 2 is "
           "columns."),
        N_("Mirroring left to right reverses the columns: tf.reverse(x, axis=[2]) on a batch."),
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
    ds = _read.dataset(answer, _("a tf.data.Dataset (the fixed pipeline)"))
    chain = _stages.stages(ds)
    _no_repeat(chain)
    rotations = [i for i, s in enumerate(chain) if s.kind == "map" and ROTATE_OP in s.fn_ops and s.random_fn]
    caches = [i for i, s in enumerate(chain) if s.kind == "cache"]
    b = _first(chain, "batch")
    if not rotations:
        fail(_("your pipeline ({chain}) has no random rotation any more: keep map(ex.random_rotate), which "
               "draws a new angle for every image.").format(chain=_stages.chain_text(chain)))
    if not caches:
        fail(_("cache() is gone ({chain}): keep it, placed before map(ex.random_rotate), so the fixed "
               "work is stored and the rotation runs fresh every epoch.").format(chain=_stages.chain_text(chain)))
    if max(caches) > min(rotations):
        fail(_("cache() still comes after the random rotation ({chain}): it stores the first epoch's "
               "angles and replays them. Move cache() before map(ex.random_rotate).").format(
            chain=_stages.chain_text(chain)))
    if b is None:
        fail(_("batch by {batch}: your pipeline ({chain}) has no batch().").format(
            batch=Q2_BATCH, chain=_stages.chain_text(chain)))
    if min(rotations) > b:
        fail(_("ex.random_rotate rotates ONE image, but in your pipeline ({chain}) it comes after batch: it "
               "gets a whole batch [{batch}, 28, 28] and turns it as if it were one image with 28 channels. Map "
               "before batch.").format(chain=_stages.chain_text(chain), batch=Q2_BATCH))
    _batch_size(chain, b, Q2_BATCH)
    source = _grey_source(chain, _("the same 64 images, tf.data.Dataset.from_tensor_slices(images[:64])"))
    n_source = len(_read.elements(source, 5000))
    if n_source != Q2_IMAGES:
        fail(_("start from the same {images} images, images[:{images}]; your source holds {n}.").format(
            images=Q2_IMAGES, n=n_source))
    epochs = [_images(_read.elements(ds, 1000)) for _unused in range(2)]
    for e, images in enumerate(epochs, start=1):
        if len(images) != n_source:
            fail(_("epoch {e} gave {n} images; every one of the {images} images should come out once "
                   "per epoch.").format(e=e, n=len(images), images=n_source))
    first = sorted(img.tobytes() for img in epochs[0])
    second = sorted(img.tobytes() for img in epochs[1])
    if first == second:
        fail(_("epoch 2 gave exactly the same images as epoch 1 (maybe in another order): the rotation is still "
               "frozen. Make sure nothing random sits before cache()."))
    changed = sum(a != b for a, b in zip(first, second))
    return _("{changed} of {n} images differ between epoch 1 and epoch 2; the augmentation is alive again "
             "({chain}).").format(changed=changed, n=len(first), chain=_stages.chain_text(chain))


q2 = Question(
    N_("Exercise 2: bring a frozen augmentation back to life"),
    _check_q2,
    hints=[
        N_("Draw two epochs with AugmentationGridDisplay.from_epochs: which rows are identical?"),
        N_("cache() stores whatever reaches it during the first full pass, random draws included."),
        N_("Put cache() right after from_tensor_slices (or after the expensive, deterministic decoding), then "
           "map(ex.random_rotate), then batch(16)."),
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
    ds = _read.dataset(answer, _("a tf.data.Dataset of (images, labels) batches"))
    chain = _stages.stages(ds)
    _no_repeat(chain)
    s, b = _first(chain, "shuffle"), _first(chain, "batch")
    rotations = [i for i, st in enumerate(chain) if st.kind == "map" and ROTATE_OP in st.fn_ops]
    missing = [name for name, where in (("shuffle", s), ("batch", b), ("map(ex.rotate_batch)", rotations or None))
               if where is None]
    if missing:
        names = dict(chain=_stages.chain_text(chain), a=missing[0], b=missing[-2:][0], c=missing[-1])
        # Translators: {a}, {b} and {c} are stages as code: shuffle, batch, map(ex.rotate_batch).
        if len(missing) == 1:
            fail(_("your pipeline ({chain}) has no {a}; it needs shuffle, batch and map(ex.rotate_batch).").format(
                **names))
        if len(missing) == 2:
            fail(_("your pipeline ({chain}) has no {b} and no {c}; it needs shuffle, batch and "
                   "map(ex.rotate_batch).").format(**names))
        fail(_("your pipeline ({chain}) has no {a} and no {b} and no {c}; it needs shuffle, batch and "
               "map(ex.rotate_batch).").format(**names))
    if s > b:
        fail(_("shuffle comes after batch ({chain}), so it shuffles whole batches and the images inside a "
               "batch always stay together. Shuffle single images first, then batch.").format(
            chain=_stages.chain_text(chain)))
    if min(rotations) < b:
        fail(_("the rotation runs before batch ({chain}): ex.rotate_batch is written for whole batches. "
               "Put map(ex.rotate_batch) after batch.").format(chain=_stages.chain_text(chain)))
    _batch_size(chain, b, Q3_BATCH)
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2 and spec[0].shape.rank == 3 and spec[1].shape.rank == 1):
        fail(_("each element should be (images [batch, 28, 28], labels [batch]); got {spec}.").format(
            spec=shorten(spec, 160)))
    source = _grey_source(chain, "tf.data.Dataset.from_tensor_slices((images[:256], labels[:256]))")
    source_labels = [int(e[1]) for e in _read.elements(source, 5000)] \
        if isinstance(source.element_spec, tuple) else None
    if source_labels is None or len(source_labels) != Q3_IMAGES:
        fail(_("start from tf.data.Dataset.from_tensor_slices((images[:{images}], labels[:{images}])): "
               "{images} images with their labels.").format(images=Q3_IMAGES))
    buffer = chain[s].params.get("buffer_size")
    if isinstance(buffer, int) and 0 < buffer < len(source_labels):
        fail(_("shuffle({buffer}) holds only {buffer} of the {n} images at a time, so an image can "
               "move at most {places} places earlier (lesson 03): the order stays close to the original. Use a "
               "buffer that holds them all: shuffle({n}).").format(
            buffer=buffer, n=len(source_labels), places=buffer - 1))
    batches = _read.elements(ds, 1000)
    labels = [int(v) for _unused, lab in batches for v in np.atleast_1d(lab)]
    if sorted(labels) != sorted(source_labels):
        fail(_("one epoch should hold every (image, label) pair exactly once; some labels are missing or repeated."))
    if labels == source_labels:
        fail(_("the labels come out in their original order: nothing was shuffled."))
    return _("{n} batches: shuffled one image at a time, then rotated one batch per call "
             "({chain}).").format(n=len(batches), chain=_stages.chain_text(chain))


q3 = Question(
    N_("Exercise 3: put batch where the rotation is vectorized"),
    _check_q3,
    hints=[
        N_("rotate_batch is written for whole batches: it draws one angle per image and rotates them all in one op "
           "call."),
        N_("Shuffling whole batches keeps the same images together forever; shuffle single images, with a buffer "
           "as large as the data."),
        N_("Order: shuffle(256, seed=0), then batch(32), then map(ex.rotate_batch)."),
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
