"""augment_explorer: move the angle range, pick a rotation path and a seed, watch 16 digits turn."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from ..augment import available_paths, rotation_grid
from ..i18n import gettext as _
from ._base import Explorer, choice, int_slider


def augment_explorer(images=None, *, n: int = 16, degrees: float = 30.0, path: str = "tf-batched", seed: int = 0) -> Explorer:
    """A grid of ``n`` digits rotated by seeded random angles along one rotation path.

    Controls: ``degrees`` (an angle range), ``path`` (scipy / tf / tf-batched,
    and tfa where tensorflow-addons imports) and ``seed``. The images are
    fixed once; each change rotates them for real and only replaces the pixel
    data and titles of the 16 pictures already drawn (the rest of the figure
    is reused from the previous frame).

    >>> ex = augment_explorer(np.zeros((16, 28, 28), np.uint8))
    >>> ex.set(path="tf", degrees=(-90, 90)).display.title.startswith("path 'tf'")
    True
    """
    if images is None:
        from ..data import digits

        images = digits(n, seed=0)[0]
    images = np.asarray(images)[:n]
    if images.ndim not in (3, 4) or images.shape[0] == 0:
        raise ValueError(_("augment_explorer expects images [n, H, W] or [n, H, W, C], got shape {shape}.").format(
            shape=images.shape))
    paths = available_paths()
    if path not in paths:
        raise ValueError(_("path must be one of {choices} here, got {value}.").format(choices=paths, value=repr(path)))
    limit = abs(float(degrees))
    ncols = 4 if len(images) > 4 else len(images)
    controls = {
        "degrees": widgets.IntRangeSlider(
            # Translators: a range slider's name: the smallest and largest rotation angle, in degrees.
            value=(-int(limit), int(limit)), min=-180, max=180, step=5, description=_("angle range (°)"),
            continuous_update=False, style={"description_width": "initial"},
        ),
        # Translators: the name of the choice of how the images are rotated (scipy, tf, tf-batched: code names).
        "path": choice(paths, path, _("path")),
        "seed": int_slider(seed, 0, 20, "seed"),
    }

    def compute(degrees, path, seed):
        return rotation_grid(images, degrees=tuple(degrees), path=path, seed=seed, ncols=ncols, pipeline=False)

    def grid(figure, disp):  # first draw, or a new size: build the grid; replot then swaps pixels and titles
        figure.clear()
        nrows = -(-len(disp.titles) // ncols)
        axes = figure.subplots(nrows, ncols, squeeze=False)
        for spare in axes.ravel()[len(disp.titles):]:
            spare.set_visible(False)
        return axes

    def describe(disp, values):
        lo, hi = values["degrees"]
        text = html.escape(_("{path}: {n} images, angles drawn in [{lo}°, {hi}°] with seed {seed}"))
        return text.format(path=f"<b>{html.escape(values['path'])}</b>", n=len(disp.titles), lo=lo, hi=hi,
                           seed=values["seed"])

    return Explorer(controls, compute, axes=grid, describe=describe, figsize=(5.6, 6.2), name="augment_explorer",
                    precompute=True)
