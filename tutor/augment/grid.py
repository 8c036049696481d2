"""AugmentationGridDisplay: a grid of images drawn from a pipeline, an augmentation function, or several epochs.

>>> ds = tf.data.Dataset.from_tensor_slices(np.zeros((20, 8, 8), np.uint8))
>>> disp = AugmentationGridDisplay.from_dataset(ds, n=4, ncols=2)
>>> disp.images.shape, disp.titles
((4, 8, 8), ['#0', '#1', '#2', '#3'])
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from .._validate import is_infinite, require_dataset, require_positive_int
from ..display import Display
from ..i18n import gettext as _
from ..reading import read
from .rotation import rotate_all, rotate_images, rotation_angles

MAX_EPOCH_ELEMENTS = 10_000


class AugmentationGridDisplay(Display):
    """Images in a grid, each with a title.

    Parameters
    ----------
    images : array [k, H, W] or [k, H, W, C]
        What was drawn, in grid order (row by row).
    titles : list of str, one per image
    ncols : int
    title : str
        The figure's headline: what to look at.
    changed : array of bool, optional
        From :meth:`from_epochs`: per position, True where a later epoch differs from epoch 1.

    Attributes (after :meth:`plot`)
    ----------
    axes_ : list of Axes, one per image
    ims_ : list of AxesImage, one per image
    headline_ : Text, the grid's title (the figure's suptitle, or the left title of the one Axes given)
    ax_, figure_ : the first of ``axes_`` and the Figure
    """

    def __init__(self, images, titles: Sequence[str], *, ncols: int = 4, title: str = "", changed=None):
        self.images = np.asarray(images)
        self.titles = [str(t) for t in titles]
        self.ncols = int(ncols)
        self.title = title
        #: from_epochs only: for each position, True where a later epoch differs from epoch 1.
        self.changed = None if changed is None else np.asarray(changed, bool)

    def __repr__(self) -> str:
        return f"AugmentationGridDisplay({len(self.titles)} images of shape {self.images.shape[1:]}, ncols={self.ncols})"

    # ----------------------------------------------------------------- compute
    @classmethod
    def from_dataset(cls, dataset: tf.data.Dataset, *, n: int = 16, ncols: int = 4, batched: bool | None = None,
                     title: str | None = None) -> "AugmentationGridDisplay":
        """The first ``n`` images a pipeline emits, read from its batches in order when it is batched.

        Elements may be an image or ``(image, label, ...)``; images HxW, HxWx1 or
        HxWx3, integer or float. ``batched=None`` guesses from the shape.

        >>> ds = tf.data.Dataset.from_tensor_slices((np.zeros((8, 4, 4, 1)), np.arange(8))).batch(2)
        >>> AugmentationGridDisplay.from_dataset(ds, n=3).titles
        ['#0 label 0', '#1 label 1', '#2 label 2']
        """
        where = "AugmentationGridDisplay.from_dataset"
        require_dataset(dataset, where)
        n = require_positive_int(n, "n", where)
        ncols = require_positive_int(ncols, "ncols", where)
        batched = _is_batched(dataset.element_spec, batched, where)
        images, labels = [], []
        for element in read(dataset, max_elements=n, where=where).elements:  # n batches hold at least n images
            for image, label in _images_of(element, batched):
                images.append(image)
                labels.append(label)
            if len(images) >= n:
                break
        if not images:
            raise ValueError(_("{where}: the dataset is empty, so there are no images to show.").format(where=where))
        images, labels = images[:n], labels[:n]
        # Translators: the title of one image of a grid: its position and its label.
        titles = [f"#{k}" if lab is None else _("#{k} label {label}").format(k=k, label=lab)
                  for k, lab in enumerate(labels)]
        if batched:
            head = _("the first images, read from the batches in order: does the augmentation look right?")
        else:
            head = _("images as the pipeline emits them: does the augmentation look right?")
        return cls(_stack(images), titles, ncols=ncols, title=title or head)

    @classmethod
    def from_function(cls, augment_fn: Callable, images, *, n_samples: int = 8, seed: int = 0,
                      title: str | None = None) -> "AugmentationGridDisplay":
        """Each original (left column) beside ``n_samples`` augmented draws of it.

        If ``augment_fn`` takes a ``seed`` argument it gets ``seed=[seed, draw]``
        (for ``tf.image.stateless_random_*``); otherwise ``tf.random.set_seed(seed)``
        is called first, so stateful ops draw the same sequence every time.

        >>> disp = AugmentationGridDisplay.from_function(tf.image.flip_left_right, np.zeros((2, 4, 4, 1)), n_samples=3)
        >>> disp.images.shape[0], disp.titles[:4]
        (8, ['original', 'draw 1', 'draw 2', 'draw 3'])
        """
        where = "AugmentationGridDisplay.from_function"
        if not callable(augment_fn):
            raise TypeError(_("{where} expects a function image -> augmented image, got {type}.")
                            .format(where=where, type=type(augment_fn).__name__))
        n_samples = require_positive_int(n_samples, "n_samples", where)
        originals = _as_image_list(images, where)
        takes_seed = _takes_seed(augment_fn)
        if not takes_seed:
            tf.random.set_seed(int(seed))
        grid, titles = [], []
        for image in originals:
            grid.append(image)
            titles.append(_("original"))
            for k in range(n_samples):
                x = tf.convert_to_tensor(image)
                out = augment_fn(x, seed=tf.constant([int(seed), k], tf.int64)) if takes_seed else augment_fn(x)
                out = np.asarray(out)
                _check_image(out, where)
                grid.append(out)
                titles.append(_("draw {k}").format(k=k + 1))
        return cls(_stack(grid), titles, ncols=n_samples + 1,
                   title=title or _("each draw of the same image should differ"))

    @classmethod
    def from_epochs(cls, dataset: tf.data.Dataset, *, epochs: int = 2, n: int = 8,
                    max_elements: int = MAX_EPOCH_ELEMENTS, title: str | None = None) -> "AugmentationGridDisplay":
        """The first ``n`` images of each epoch, one row per epoch.

        Every epoch is read to the end (a ``cache`` is only kept once it has
        been read completely), so a random ``map`` placed before ``cache``
        shows the same draws in every row. ``changed[i]`` is True where any
        later epoch differs from epoch 1 at position ``i``.

        >>> ds = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3, 3), np.float32))
        >>> AugmentationGridDisplay.from_epochs(ds.map(lambda x: x + tf.random.uniform([])).cache(), n=4).changed.tolist()
        [False, False, False, False]
        """
        where = "AugmentationGridDisplay.from_epochs"
        require_dataset(dataset, where)
        epochs = require_positive_int(epochs, "epochs", where)
        n = require_positive_int(n, "n", where)
        if is_infinite(dataset):
            raise ValueError(_("{where}: the dataset never ends (repeat() with no count), so an epoch has no end. "
                               "Remove the repeat(); each row is one pass.").format(where=where))
        batched = _is_batched(dataset.element_spec, None, where)
        rows = []
        for e in range(epochs):
            epoch = read(dataset, max_elements=max_elements, where=where)  # the whole epoch: a cache fills only then
            if epoch.more:
                raise ValueError(_("{where}: an epoch has more than {most} elements; pass a smaller dataset "
                                   "(for example ds.take(64) before the augmentation).")
                                 .format(where=where, most=max_elements))
            row = [image for element in epoch.elements for image, _label in _images_of(element, batched)][:n]
            if not row:
                raise ValueError(_("{where}: the dataset is empty, so there are no images to show.").format(where=where))
            rows.append(row)
        width = len(rows[0])
        first = np.stack(rows[0])
        changed = np.zeros(width, bool)
        for row in rows[1:]:
            changed |= np.array([not np.array_equal(a, b) for a, b in zip(first, row)])
        titles = [_("epoch {epoch}, #{i}").format(epoch=e + 1, i=i) for e in range(epochs) for i in range(width)]
        same = int((~changed).sum())
        if title is None and same == width and epochs > 1:
            title = _("{same} of {width} images are identical in every epoch: the augmentation is frozen").format(
                same=same, width=width)
        elif title is None:
            title = _("{same} of {width} images are identical in every epoch").format(same=same, width=width)
        return cls(_stack([img for row in rows for img in row]), titles, ncols=width, title=title, changed=changed)

    # -------------------------------------------------------------------- draw
    def plot(self, *, ax=None, title: str | None = None, cmap: str = "gray") -> "AugmentationGridDisplay":
        """Draw the grid; returns ``self``.

        ``ax``: None for a new figure; a sequence of at least as many axes as
        images (one image each); or one Axes, which the grid fills with one
        small inset axes per image. Nothing already drawn is cleared.
        """
        k = len(self.titles)
        axes = self._grid_axes(ax, k)
        figure = axes[0].figure
        lo, hi = self._range()
        self.ims_ = []
        for a, image, name in zip(axes, self._for_imshow(), self.titles):
            im = a.imshow(image, cmap=cmap, vmin=lo, vmax=hi, interpolation="nearest")
            a.set_axis_off()  # no ticks or frame: faster to draw, nothing lost for a picture
            a.set_title(name, fontsize="small", y=1.0, pad=2)  # a fixed y skips matplotlib's costly title placement
            self.ims_.append(im)
        headline = self.title if title is None else title
        if ax is None or not hasattr(ax, "plot"):
            self.headline_ = figure.suptitle(headline)
        else:
            self.headline_ = ax.set_title(headline, loc="left")
        self.axes_, self.ax_, self.figure_ = axes[:k], axes[0], figure
        return self

    def update_drawn(self, previous: "AugmentationGridDisplay", *, title: str | None = None,
                     cmap: str = "gray") -> list | None:
        """Swap the pixels and titles of ``previous``'s pictures (see :meth:`Display.replot`).

        None (draw anew) when the number, shape or type of the images changed.
        """
        same = (len(previous.titles) == len(self.titles) and previous.images.shape[1:] == self.images.shape[1:]
                and previous.images.dtype == self.images.dtype)
        if not same:
            return None
        lo, hi = self._range()
        changed = []
        for im, a, image, name in zip(previous.ims_, previous.axes_, self._for_imshow(), self.titles):
            im.set_data(image)
            im.set_clim(lo, hi)
            im.set_cmap(cmap)
            changed += [im, a.set_title(name, fontsize="small", y=1.0, pad=2)]
        previous.headline_.set_text(self.title if title is None else title)
        changed.append(previous.headline_)
        self.axes_, self.ims_, self.ax_, self.figure_ = previous.axes_, previous.ims_, previous.ax_, previous.figure_
        self.headline_ = previous.headline_
        return changed

    def _grid_axes(self, ax, k: int) -> list:
        if ax is None:
            import matplotlib.pyplot as plt

            nrows = -(-k // self.ncols)
            figure, grid = plt.subplots(nrows, self.ncols, figsize=(1.5 * self.ncols, 1.6 * nrows + 0.4),
                                        layout="constrained", squeeze=False)
            axes = list(grid.ravel())
            for spare in axes[k:]:
                spare.set_visible(False)
            return axes
        if hasattr(ax, "plot"):  # one Axes: fill it with a grid of insets
            nrows = -(-k // self.ncols)
            if not ax.has_data():
                ax.set_axis_off()
            w, h = 1.0 / self.ncols, 1.0 / nrows
            return [ax.inset_axes([(i % self.ncols) * w + 0.04 * w, 1 - (i // self.ncols + 1) * h + 0.02 * h,
                                   0.92 * w, 0.8 * h]) for i in range(k)]
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) < k:
            raise ValueError(_("AugmentationGridDisplay.plot needs {k} axes for {k} images, got {got}.")
                             .format(k=k, got=len(axes)))
        return axes

    def _for_imshow(self) -> np.ndarray:
        imgs = self.images
        if imgs.ndim == 4 and imgs.shape[-1] == 1:
            imgs = imgs[..., 0]
        if imgs.ndim == 4 and not np.issubdtype(imgs.dtype, np.integer):
            lo, hi = self._range()
            imgs = np.clip((imgs - lo) / max(hi - lo, 1e-12), 0, 1)
        return imgs

    def _range(self) -> tuple[float, float]:
        if np.issubdtype(self.images.dtype, np.integer):
            return 0.0, 255.0
        hi = float(self.images.max()) if self.images.size else 1.0
        return 0.0, (1.0 if hi <= 1.0 else 255.0)


def _is_batched(spec, batched: bool | None, where: str) -> bool:
    """Work out whether elements are batches of images, and reject non-image datasets."""
    if isinstance(spec, dict):
        raise TypeError(_("{where} expects elements that are an image or (image, label), got a dict; map it first, "
                          "e.g. ds.map(lambda d: d['image']).").format(where=where))
    if isinstance(spec, (tuple, list)):
        if not spec:
            raise TypeError(_("{where}: the elements are empty tuples; there are no images to show.").format(where=where))
        spec = spec[0]
    if not isinstance(spec, tf.TensorSpec):
        raise TypeError(_("{where} expects image tensors, got element_spec={spec}.").format(where=where, spec=spec))
    if not (spec.dtype.is_integer or spec.dtype.is_floating or spec.dtype == tf.bool):
        raise TypeError(
            _("{where} expects images of numbers (uint8 or float), got dtype {dtype}. A dataset of file names or "
              "JPEG bytes must be decoded first, e.g. ds.map(lambda s: tf.io.decode_jpeg(tf.io.read_file(s))).")
            .format(where=where, dtype=spec.dtype.name)
        )
    rank = spec.shape.rank
    if batched is not None:
        if (rank - int(bool(batched))) not in (2, 3):
            raise ValueError(_("{where}: with batched={batched} the element shape {shape} is not an image HxW or "
                               "HxWxC.").format(where=where, batched=batched, shape=spec.shape))
        return bool(batched)
    if rank == 2:
        return False
    if rank == 4:
        return True
    if rank == 3:
        last = spec.shape[-1]
        return not (last is None or last in (1, 3, 4))
    raise ValueError(
        _("{where} expects images HxW, HxWx1 or HxWx3 (or batches of them), got element shape {shape}. "
          "Reshape them first, e.g. ds.map(lambda x: tf.reshape(x, [28, 28])).").format(where=where, shape=spec.shape)
    )


def _images_of(element: Any, batched: bool) -> list[tuple[np.ndarray, Any]]:
    """``(image, label or None)`` pairs from one element: one pair, or one per image of a batch."""
    label = None
    if isinstance(element, (tuple, list)):
        image = element[0]
        if len(element) > 1 and np.ndim(element[1]) == int(batched):
            label = element[1]
    else:
        image = element
    if not batched:
        return [(image, _label(label))]
    labels = [None] * len(image) if label is None else [_label(v) for v in label]
    return list(zip(image, labels))


def _label(value: Any) -> Any:
    if value is None or np.ndim(value) != 0:
        return None
    if isinstance(value, bytes):
        return value.decode()
    return value.item() if hasattr(value, "item") else value


def _check_image(image: np.ndarray, where: str) -> None:
    """What ``augment_fn`` returned must be one image."""
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[-1] not in (1, 3, 4)):
        raise ValueError(_("{where}: augment_fn returned an array of shape {shape}; expected one image HxW, HxWx1 "
                           "or HxWx3.").format(where=where, shape=image.shape))


def _as_image_list(images, where: str) -> list[np.ndarray]:
    arr = np.asarray(images)
    if arr.dtype.kind not in "uifb":
        raise TypeError(_("{where} expects images as numbers (uint8 or float), got dtype {dtype}.")
                        .format(where=where, dtype=arr.dtype))
    if arr.ndim == 2 or (arr.ndim == 3 and arr.shape[-1] in (1, 3, 4)):
        arr = arr[None]
    if arr.ndim not in (3, 4) or arr.shape[0] == 0:
        raise ValueError(_("{where} expects a batch of images [k, H, W] or [k, H, W, C] (or one image), got shape "
                           "{shape}.").format(where=where, shape=arr.shape))
    return list(arr)


def _stack(images: list) -> np.ndarray:
    shapes = {np.shape(i) for i in images}
    if len(shapes) > 1:
        raise ValueError(_("all images in the grid must have the same shape, got {shapes}; resize them first "
                           "(tf.image.resize).").format(shapes=sorted(shapes)))
    return np.stack(images)


def _takes_seed(fn: Callable) -> bool:
    try:
        return "seed" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def rotation_grid(images, *, degrees=30.0, path: str = "tf-batched", seed: int = 0, ncols: int = 4,
                  pipeline: bool = True) -> AugmentationGridDisplay:
    """Rotate ``images`` along one path with seeded angles; titles give each angle in degrees.

    ``pipeline=True`` runs the real tf.data pipeline of that path;
    ``pipeline=False`` calls the same functions directly (faster to start, same pixels).
    Returns an :class:`AugmentationGridDisplay` that has not drawn yet.

    >>> rotation_grid(np.zeros((2, 8, 8), np.uint8), degrees=30, path="tf").titles[0].endswith("°")
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
    return AugmentationGridDisplay(rotated, titles, ncols=ncols,
                                   title=_("path {path!r}, angles in [{low:g}°, {high:g}°], seed {seed}")
                                   .format(path=path, low=low, high=high, seed=seed))
