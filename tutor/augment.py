"""Lesson 04 helpers: the rotation timing chart, rotation grids, reproducible augmentation, pipeline stages.

The rotation paths live in :mod:`tutor.rotation`, the grid in :mod:`tutor.grid`
and the timer in :mod:`tutor.bench`; this module puts them together.

>>> import numpy as np
>>> disp = RotationTimingDisplay.from_images(np.zeros((64, 28, 28), np.uint8), paths=("tf", "tf-batched"), repeats=1)
>>> disp.paths
['tf', 'tf-batched']
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import tensorflow as tf

from . import style
from ._validate import require_dataset
from .bench import Timing, time_pipeline
from .grid import AugmentationGridDisplay
from .rotation import PATHS, available_paths, rotate_all, rotate_images, rotation_angles, rotation_dataset

#: What each path is called on the chart.
PATH_LABELS = {
    "scipy": "(a) SciPy in py_function,\nper image",
    "tf": "(b) TF op per image",
    "tf-batched": "(c) TF op after batch",
    "tfa": "(b') tfa.image.rotate,\nper image",
}


class RotationTimingDisplay:
    """Seconds per pass for each rotation path, drawn as bars with speed-up ratios.

    Parameters
    ----------
    timings : dict path -> :class:`tutor.bench.Timing`
    n_images : int
    """

    def __init__(self, timings: dict[str, Timing], n_images: int):
        self.timings = dict(timings)
        self.n_images = int(n_images)

    @property
    def paths(self) -> list[str]:
        return list(self.timings)

    @property
    def seconds(self) -> dict[str, float]:
        """Median seconds per pass over all images, by path."""
        return {p: t.median for p, t in self.timings.items()}

    def ratio(self, slower: str, faster: str) -> float:
        """How many times faster ``faster`` is than ``slower``."""
        return self.timings[slower].median / self.timings[faster].median

    @property
    def ratios(self) -> dict[str, float]:
        """The lesson's two ratios, where both paths were timed: (a)/(b) and (b)/(c)."""
        out = {}
        for slow, fast in (("scipy", "tf"), ("tf", "tf-batched")):
            if slow in self.timings and fast in self.timings:
                out[f"{slow} / {fast}"] = self.ratio(slow, fast)
        return out

    def __repr__(self) -> str:
        return f"RotationTimingDisplay(n_images={self.n_images}, paths={self.paths})"

    def summary(self) -> str:
        """One line per path (seconds, images/s) and one per ratio."""
        lines = [f"{p:<11} {t.median:8.3f} s  {t.per_second:>10,.0f} images/s" for p, t in self.timings.items()]
        lines += [f"{name:<22} {value:6.1f}x faster" for name, value in self.ratios.items()]
        return "\n".join(lines)

    @classmethod
    def from_images(cls, images, *, paths: Sequence[str] | None = None, degrees: float = 30.0, seed: int = 0,
                    batch_size: int = 512, repeats: int = 1, warmup: int = 1,
                    auto_parallel: bool = False) -> "RotationTimingDisplay":
        """Time each path over the same images and the same per-image angles (computes, does not draw).

        ``auto_parallel=False`` (default) times plain one-at-a-time maps, as the
        original experiment did; see :func:`tutor.rotation.rotation_dataset`.
        """
        images = np.asarray(images)
        n = int(images.shape[0])
        angles = rotation_angles(n, degrees, seed=seed)
        paths = list(available_paths() if paths is None else paths)
        bad = [p for p in paths if p not in PATHS]
        if bad or not paths:
            raise ValueError(f"paths must be a non-empty list drawn from {PATHS}, got {paths!r}.")
        timings = {}
        for p in paths:
            ds = rotation_dataset(images, angles, p, batch_size=batch_size, auto_parallel=auto_parallel)
            timings[p] = time_pipeline(ds, repeats=repeats, warmup=warmup, count="rows", label=p)
        return cls(timings, n)

    def plot(self, *, ax=None, title: str | None = None) -> "RotationTimingDisplay":
        """Horizontal bars of median seconds; each bar after the first says how much faster it is than the one above."""
        fig, ax = style.subplots(ax, figsize=(7.5, 0.9 * len(self.timings) + 1.4))
        ax.clear()
        paths = self.paths
        secs = [self.timings[p].median for p in paths]
        ys = np.arange(len(paths))[::-1]
        colours = [style.color({"scipy": 5, "tf": 0, "tf-batched": 2, "tfa": 4}[p]) for p in paths]
        self.bars_ = ax.barh(ys, secs, color=colours, height=0.6)
        ax.set_yticks(ys)
        ax.set_yticklabels([PATH_LABELS[p] for p in paths])
        self.labels_ = []
        for i, (p, y, s) in enumerate(zip(paths, ys, secs)):
            text = f"{s:.2f} s"
            reference = {"tf": "scipy", "tf-batched": "tf", "tfa": "scipy"}.get(p)
            if reference in self.timings:
                text += f"  ({self.ratio(reference, p):.1f}x faster than {reference})"
            self.labels_.append(ax.text(s, y, " " + text, va="center", fontsize="small"))
        ax.set_xlim(0, max(secs) * 1.9)
        passes = len(self.timings[paths[0]].times)
        ax.set_xlabel(f"seconds to rotate {self.n_images:,} images (median of {passes} pass{'es' if passes > 1 else ''})")
        ax.set_title(title or "Same images, same angles: where the rotation runs decides the speed", loc="left")
        self.ax_, self.figure_ = ax, fig
        return self


def rotation_grid(images, degrees=30.0, path: str = "tf-batched", seed: int = 0, *, ncols: int = 4,
                  pipeline: bool = True) -> AugmentationGridDisplay:
    """Rotate ``images`` along one path with seeded angles; titles give each angle in degrees.

    ``pipeline=True`` runs the real tf.data pipeline of that path;
    ``pipeline=False`` calls the same functions directly (faster to start, same pixels).

    >>> rotation_grid(np.zeros((2, 8, 8), np.uint8), 30, "tf", seed=0).titles[0].endswith("°")
    True
    """
    images = np.asarray(images)
    angles = rotation_angles(images.shape[0], degrees, seed=seed)
    if pipeline:
        rotated = rotate_all(images, angles, path, batch_size=max(images.shape[0], 1))
    else:
        rotated = rotate_images(images, angles, path)
    titles = [f"{np.degrees(a):+.0f}°" for a in angles.tolist()]
    low, high = (-abs(degrees), abs(degrees)) if np.isscalar(degrees) else degrees
    return AugmentationGridDisplay(rotated, titles, ncols=ncols, title=f"path {path!r}, angles in [{low:g}°, {high:g}°], seed {seed}")


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


def pipeline_stages(dataset: tf.data.Dataset, max_depth: int = 50) -> list[str]:
    """The transformations of a pipeline, from source to output, as short names.

    >>> pipeline_stages(tf.data.Dataset.range(8).map(lambda x: x * 2).batch(4).cache())
    ['range', 'map', 'batch', 'cache']
    """
    require_dataset(dataset, "pipeline_stages")
    names, ds = [], dataset
    for _ in range(max_depth):
        names.append(_stage_name(type(ds).__name__))
        inputs = ds._inputs()  # every tf.data dataset lists its inputs (TF 2.15 to 2.21)
        if len(inputs) != 1:
            break
        ds = inputs[0]
    return [n for n in reversed(names) if n not in ("options", "")]


_STAGES = {
    "rangedataset": "range", "tensorslicedataset": "from_tensor_slices", "tensordataset": "from_tensors",
    "mapdataset": "map", "parallelmapdataset": "map", "batchdataset": "batch", "parallelbatchdataset": "batch",
    "paddedbatchdataset": "padded_batch", "cachedataset": "cache", "memorycachedataset": "cache",
    "shuffledataset": "shuffle", "repeatdataset": "repeat", "prefetchdataset": "prefetch", "takedataset": "take",
    "skipdataset": "skip", "filterdataset": "filter", "unbatchdataset": "unbatch", "zipdataset": "zip",
    "optionsdataset": "options", "enumeratedataset": "enumerate",
}


def _stage_name(class_name: str) -> str:
    key = class_name.lower().lstrip("_").replace("v1", "").replace("v2", "").replace("adapter", "")
    return _STAGES.get(key, key.replace("dataset", ""))
