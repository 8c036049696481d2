"""Augmentation functions to pass to ``Dataset.map``: random rotation per image or per batch, and a seeded mix.

* :func:`random_rotate`: one image, a fresh random angle every time it runs.
* :func:`rotate_batch`: a whole batch in one op call, one random angle per image.
* :func:`rotate_slow`: one image through SciPy in ``tf.py_function`` (the slow path, for comparison).
* :func:`stateless_augment`: flip, brightness, contrast and crop, the same for the same seed.

The random angles come from one ``tf.random.Generator`` whose state lives in a
variable, so they move on from epoch to epoch even when every epoch makes a new
iterator; :func:`reset_random` starts the sequence again.

>>> x = tf.zeros([4, 28, 28], tf.uint8)
>>> rotate_batch(x, tf.range(4))[0].shape.as_list()
[4, 28, 28]
"""
from __future__ import annotations

import math

import tensorflow as tf

from ..i18n import gettext as _
from .rotation import rotate, rotate_scipy_tf

__all__ = ["random_rotate", "reset_random", "rotate_batch", "rotate_slow", "stateless_augment"]

_GENERATOR = None


def reset_random(seed: int = 0) -> None:
    """Start the random angles of :func:`random_rotate` and :func:`rotate_batch` again from ``seed``."""
    global _GENERATOR
    with tf.init_scope():  # a variable, created eagerly even while a map function is being traced
        _GENERATOR = tf.random.Generator.from_seed(int(seed))


def _random_angles(shape, degrees: float) -> tf.Tensor:
    """Angles in radians, uniform in ``[-degrees, degrees]``, from the shared generator."""
    if _GENERATOR is None:
        reset_random(0)
    limit = abs(float(degrees)) * math.pi / 180
    return _GENERATOR.uniform(shape, -limit, limit)


def _with_channels(images: tf.Tensor, batched: bool, where: str):
    """``(images with a channel axis, function that restores the caller's rank)``."""
    rank = images.shape.rank
    image_rank = rank - int(batched)
    if image_rank == 2:
        return images[..., None], (lambda x: x[..., 0])
    if image_rank == 3:
        return images, (lambda x: x)
    if batched and rank in (2, 3) and image_rank < 2:
        text = _("{where} expects [batch, H, W] or [batch, H, W, C], got shape {shape}. It is written for whole "
                 "batches, so batch must come before this map.")
    elif batched:
        text = _("{where} expects [batch, H, W] or [batch, H, W, C], got shape {shape}.")
    else:
        text = _("{where} expects [H, W] or [H, W, C], got shape {shape}.")
    raise ValueError(text.format(where=where, shape=images.shape))


def random_rotate(image: tf.Tensor, *, degrees: float = 30.0) -> tf.Tensor:
    """Rotate ONE image ``[H, W]`` or ``[H, W, C]`` by a fresh random angle in ``±degrees``.

    Use as ``ds.map(random_rotate)`` before ``batch``: it is called once per image.
    """
    image = tf.convert_to_tensor(image)
    x, restore = _with_channels(image, False, "random_rotate")
    return restore(rotate(x, _random_angles([], degrees)))


def rotate_batch(images: tf.Tensor, labels: tf.Tensor | None = None, *, degrees: float = 30.0):
    """Rotate a whole BATCH ``[batch, H, W]`` or ``[batch, H, W, C]``, each image by its own random angle.

    One op call for the whole batch. Use as
    ``ds.batch(32).map(rotate_batch, num_parallel_calls=tf.data.AUTOTUNE)``
    on ``(images, labels)`` batches, or on image batches alone. Returns
    ``(images, labels)`` when labels are given, else the images.
    """
    images = tf.convert_to_tensor(images)
    if images.shape.rank not in (3, 4):
        raise ValueError(
            _("rotate_batch expects a batch of images [batch, H, W] or [batch, H, W, C], got shape {shape}: "
              "it is written for whole batches, so batch must come before this map.").format(shape=images.shape)
        )
    x, restore = _with_channels(images, True, "rotate_batch")
    rotated = restore(rotate(x, _random_angles(tf.shape(images)[:1], degrees)))
    return rotated if labels is None else (rotated, labels)


def rotate_slow(image: tf.Tensor, label: tf.Tensor | None = None, *, degrees: float = 30.0):
    """Rotate ONE image by a random angle with SciPy inside ``tf.py_function`` (the slow path).

    Python runs once per element. Returns ``(image, label)`` when a label is
    given. The image comes back as float32.
    """
    image = tf.cast(tf.convert_to_tensor(image), tf.float32)
    rotated = rotate_scipy_tf(image, _random_angles([], degrees))
    return rotated if label is None else (rotated, label)


def stateless_augment(image: tf.Tensor, seed) -> tf.Tensor:
    """A reproducible augmentation of one uint8 image HxWxC: flip, brightness, contrast, crop.

    Every random op is a ``tf.image.stateless_random_*`` op fed from ``seed``
    (a pair of ints), so the same seed always gives the same picture.

    >>> x = tf.zeros([28, 28, 1], tf.uint8)
    >>> stateless_augment(x, [1, 2]).shape.as_list()
    [28, 28, 1]
    """
    seeds = tf.random.experimental.stateless_split(tf.cast(seed, tf.int64), num=4)
    shape = tf.shape(image)
    x = tf.image.convert_image_dtype(image, tf.float32)
    x = tf.image.stateless_random_flip_left_right(x, seed=seeds[0])
    x = tf.image.stateless_random_brightness(x, 0.2, seed=seeds[1])
    x = tf.image.stateless_random_contrast(x, 0.6, 1.4, seed=seeds[2])
    padded = tf.image.resize_with_crop_or_pad(x, shape[0] + 6, shape[1] + 6)
    x = tf.image.stateless_random_crop(padded, size=shape, seed=seeds[3])
    return tf.image.convert_image_dtype(tf.clip_by_value(x, 0.0, 1.0), image.dtype, saturate=True)


