"""Folders of JPEG files for the lessons that read and decode files: digits with labels in the names, or one folder per class.

>>> import tempfile
>>> paths = jpeg_folder(tempfile.mkdtemp(), n=3)
>>> labels_from_paths(paths).shape
(3,)
"""
from __future__ import annotations

import os
import shutil
import re
from numbers import Integral
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from .._validate import require_folder, require_positive_int
from ..i18n import gettext as _
from .digit_images import synthetic_digits

__all__ = ["class_folders", "jpeg_folder", "labels_from_paths"]

_NAME = re.compile(r"_label(\d)\.jpe?g$")


def jpeg_folder(directory, n: int = 300, size: tuple[int, int] = (96, 96),
                seed: int = 0, quality: int = 90) -> list[str]:
    """Write ``n`` colour JPEGs of digits on noisy backgrounds into ``directory``.

    Each file is a synthetic digit, scaled to a random size, coloured and pasted
    at a random place on a textured background, so that decoding and cropping
    are real work. Files are named ``img_00000_label3.jpg``.

    Parameters
    ----------
    directory : folder to write into; created if missing.
    n : number of images.
    size : (height, width) of every image, each at least 28.
    seed : same seed, same files.
    quality : JPEG quality, 1..95.

    Returns
    -------
    Sorted list of the paths written, as ``str``.

    Examples
    --------
    >>> import tempfile
    >>> paths = jpeg_folder(tempfile.mkdtemp(), n=10)
    >>> labels_from_paths(paths).tolist()  # doctest: +SKIP
    >>> ds = tf.data.Dataset.list_files(paths, shuffle=False)  # doctest: +SKIP
    """
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(_("directory must be a str or pathlib.Path, got {type}; for example tempfile.mkdtemp().")
                        .format(type=type(directory).__name__))
    n = require_positive_int(n, "n", "tutor.data.jpeg_folder")
    seed = require_positive_int(seed, "seed", "tutor.data.jpeg_folder", minimum=0)
    quality = require_positive_int(quality, "quality", "tutor.data.jpeg_folder")
    if quality > 95:
        raise ValueError(_("quality must be between 1 and 95, got {quality}.").format(quality=quality))
    if (not isinstance(size, (tuple, list)) or len(size) != 2
            or not all(isinstance(s, Integral) and not isinstance(s, bool) and s >= 28
                       for s in size)):
        raise ValueError(_("size must be a (height, width) pair of ints >= 28, got {size!r}.").format(size=size))
    height, width = int(size[0]), int(size[1])

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    images, labels = synthetic_digits(n, seed)
    rng = np.random.default_rng([seed, 1])  # a stream apart from the digits' own
    paths = []
    for i, (digit, label) in enumerate(zip(images, labels)):
        picture = _picture(digit, height, width, rng)
        path = folder / f"img_{i:05d}_label{label}.jpg"
        picture.save(path, format="JPEG", quality=quality)
        paths.append(str(path))
    return sorted(paths)


def _picture(digit: np.ndarray, height: int, width: int, rng: np.random.Generator) -> Image.Image:
    """One colour digit pasted on a noisy, smoothly shaded background."""
    # Background: a colour gradient plus blurred noise.
    corners = rng.uniform(0, 160, size=(2, 2, 3))
    ys = np.linspace(0, 1, height)[:, None, None]
    xs = np.linspace(0, 1, width)[None, :, None]
    shade = ((1 - ys) * ((1 - xs) * corners[0, 0] + xs * corners[0, 1])
             + ys * ((1 - xs) * corners[1, 0] + xs * corners[1, 1]))
    noise = Image.fromarray(rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8))
    noise = np.asarray(noise.filter(ImageFilter.GaussianBlur(1.0)), dtype=np.float64) - 128
    background = np.clip(shade + 0.6 * noise, 0, 255)

    # The digit, scaled to 40-90% of the shorter side, at a random place.
    side = int(rng.uniform(0.4, 0.9) * min(height, width))
    mask = Image.fromarray(digit).resize((side, side), Image.BILINEAR)
    mask = np.asarray(mask, dtype=np.float64)[:, :, None] / 255.0
    top = rng.integers(0, height - side + 1)
    left = rng.integers(0, width - side + 1)
    colour = rng.uniform(150, 255, size=3)
    patch = background[top:top + side, left:left + side]
    background[top:top + side, left:left + side] = (1 - mask) * patch + mask * colour
    return Image.fromarray(background.astype(np.uint8))


def labels_from_paths(paths) -> np.ndarray:
    """Parse the labels back out of names like ``img_00000_label3.jpg``.

    Accepts str, pathlib.Path or bytes (as a tf.data pipeline yields them).

    >>> labels_from_paths(["a/img_00000_label3.jpg", b"img_00001_label7.jpg"]).tolist()
    [3, 7]
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(_("labels_from_paths expects a list of paths, got a single path; wrap it in a list."))
    labels = []
    for path in paths:
        name = os.fsdecode(path.item() if isinstance(path, np.generic) else path)
        match = _NAME.search(name)
        if match is None:
            raise ValueError(_("Cannot find a label in {name!r}; expected a name like 'img_00000_label3.jpg', as "
                               "jpeg_folder writes.").format(name=os.path.basename(name)))
        labels.append(int(match.group(1)))
    return np.array(labels, dtype=np.int64)


def class_folders(directory, *, n: int = 60, classes=(0, 1, 2), size: tuple[int, int] = (32, 32),
                  seed: int = 0) -> str:
    """One folder per digit class (``0/``, ``1/``, ...) holding JPEGs from :func:`jpeg_folder`.

    ``n`` images are drawn (balanced over the ten digits) and those of
    ``classes`` are kept, so each class folder holds ``n // 10`` images.
    Returns ``directory``, the root that holds the class folders.

    >>> import tempfile
    >>> root = class_folders(tempfile.mkdtemp(), n=20, classes=(3, 4))
    >>> sorted(os.listdir(root))
    ['3', '4']
    """
    where = "tutor.data.class_folders"
    folder = require_folder(directory, where)
    n = require_positive_int(n, "n", where, minimum=10)
    keep = [int(c) for c in classes]
    if not keep or any(c < 0 or c > 9 for c in keep) or len(set(keep)) != len(keep):
        raise ValueError(_("{where}: classes must be distinct digits 0-9, got {classes!r}.").format(where=where,
                                                                                                  classes=classes))
    staging = folder / ".staging"
    paths = jpeg_folder(staging, n=n, size=size, seed=seed)
    for path, label in zip(paths, labels_from_paths(paths).tolist()):
        if label in keep:
            target = folder / str(label)
            target.mkdir(exist_ok=True)
            shutil.move(path, target / os.path.basename(path))
    shutil.rmtree(staging)
    return str(folder)
