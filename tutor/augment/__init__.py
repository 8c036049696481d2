"""Augmentation: rotation three ways, the images they produce, and how long each takes.

* :mod:`~tutor.augment.rotation`: rotate with SciPy in ``py_function``, with a
  TensorFlow op per image, or with the same op per batch; same angles, same pixels.
* :mod:`~tutor.augment.ops`: functions for ``Dataset.map`` (random rotation per
  image or per batch, a seeded augmentation).
* :class:`AugmentationGridDisplay`: a grid of images from a pipeline, an
  augmentation function, or several epochs (a frozen augmentation shows).
* :class:`RotationTimingDisplay`: seconds per pass for each rotation path.
* :func:`watch_gil`: does a call release the GIL? A second Python thread counts while it runs.

>>> from tutor import augment
>>> augment.rotate_batch(tf.zeros([2, 8, 8]))[0].shape.as_list()
[8, 8]
"""
from . import rotation
from .gil import GilWatch, watch_gil
from .grid import AugmentationGridDisplay, rotation_grid
from .ops import random_rotate, reset_random, rotate_batch, rotate_slow, stateless_augment
from .rotation import PATHS, available_paths, rotate, rotation_angles, rotation_dataset
from .timing import PATH_LABELS, RotationTimingDisplay

__all__ = [
    "AugmentationGridDisplay", "GilWatch", "PATHS", "PATH_LABELS", "RotationTimingDisplay", "available_paths", "random_rotate",
    "reset_random", "rotate", "rotate_batch", "rotate_slow", "rotation", "rotation_angles", "rotation_dataset",
    "rotation_grid", "stateless_augment", "watch_gil",
]
