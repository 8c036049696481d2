"""How long each rotation path takes on the same images: RotationTimingDisplay.

>>> import numpy as np
>>> disp = RotationTimingDisplay.from_images(np.zeros((64, 28, 28), np.uint8), paths=("tf", "tf-batched"), repeats=1)
>>> disp.paths
['tf', 'tf-batched']
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from .. import style
from ..bench import Timing, time_pipeline
from ..verdict import Comparison
from ..display import Display, new_axes
from ..i18n import N_, ngettext
from ..i18n import gettext as _
from .rotation import PATHS, available_paths, rotation_angles, rotation_dataset

#: What each path is called on the chart (English; translated where drawn).
PATH_LABELS = {
    "scipy": N_("(a) SciPy in py_function,\nper image"),
    "tf": N_("(b) TF op per image"),
    "tf-batched": N_("(c) TF op after batch"),
    "tfa": N_("(b') tfa.image.rotate,\nper image"),
}


class RotationTimingDisplay(Display):
    """Seconds per pass for each rotation path, drawn as bars with speed-up ratios.

    Parameters
    ----------
    timings : dict path -> :class:`tutor.bench.Timing`
    n_images : int

    Attributes (after :meth:`plot`)
    ----------
    bars_ : BarContainer, one bar per path
    labels_ : list of Text, the seconds and speed-up written beside each bar
    ax_, figure_ : the Axes and Figure
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

    def comparison(self, reference: str, path: str) -> Comparison | None:
        """The verdict helper's judgement of ``path`` against ``reference`` (both timed at least 3 times), else None."""
        first, second = self.timings[reference].times, self.timings[path].times
        if len(first) < 3 or len(second) < 3:
            return None
        return Comparison(first, second, labels=(reference, path))

    def versus(self, reference: str, path: str) -> str:
        """A few words on ``path`` against ``reference``: the verdict with the factor, or the plain factor."""
        c = self.comparison(reference, path)
        if c is None:
            # Translators: {reference} is a rotation path's name, such as scipy or tf-batched.
            return _("{ratio:.1f}x as fast as {reference}").format(ratio=self.ratio(reference, path),
                                                                   reference=reference)
        if c.verdict == "faster":
            return _("{factor:.1f}x faster than {reference}").format(factor=c.factor, reference=reference)
        if c.verdict == "slower":
            return _("{factor:.1f}x slower than {reference}").format(factor=c.factor, reference=reference)
        return _("no clear difference from {reference}").format(reference=reference)

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
        """One line per path (seconds, images/s) and one per ratio, judged by the verdict helper
        (:func:`tutor.verdict.compare`'s rule: "faster", "slower" or "no clear difference")."""
        lines = [_("{path:<11} {seconds:8.3f} s  {rate:>10,.0f} images/s").format(path=p, seconds=t.median,
                                                                                   rate=t.per_second)
                 for p, t in self.timings.items()]
        lines += [f"{name.split(' / ')[1]:<11} {self.versus(*name.split(' / '))}" for name in self.ratios]
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
            raise ValueError(_("paths must be a non-empty list drawn from {choices}, got {paths!r}.")
                             .format(choices=PATHS, paths=paths))
        timings = {}
        for p in paths:
            ds = rotation_dataset(images, angles, p, batch_size=batch_size, auto_parallel=auto_parallel)
            timings[p] = time_pipeline(ds, repeats=repeats, warmup=warmup, count="rows", label=p)
        return cls(timings, n)

    @classmethod
    def from_pipelines(cls, pipelines: dict, *, repeats: int = 3, warmup: int = 1) -> "RotationTimingDisplay":
        """Time pipelines you built yourself, one per path (computes, does not draw).

        ``pipelines`` maps a path name from :data:`PATHS` (``"scipy"``, ``"tf"``,
        ``"tf-batched"``, ``"tfa"``) to a finite dataset of rotated images or
        batches. Every pipeline must produce the same number of images.

        >>> x = np.zeros((8, 28, 28, 1), np.uint8)
        >>> ds = tf.data.Dataset.from_tensor_slices(x).batch(4)
        >>> RotationTimingDisplay.from_pipelines({"tf-batched": ds}, repeats=1).n_images
        8
        """
        where = "RotationTimingDisplay.from_pipelines"
        if not isinstance(pipelines, dict) or not pipelines:
            raise TypeError(_("{where} expects a dict such as {example}, got {type}.").format(
                where=where, example="{'scipy': path_a, 'tf': path_b}", type=type(pipelines).__name__))
        bad = [p for p in pipelines if p not in PATHS]
        if bad:
            raise ValueError(_("{where}: the keys name the paths and must be drawn from {choices}, got {bad!r}.")
                             .format(where=where, choices=PATHS, bad=bad))
        timings = {p: time_pipeline(ds, repeats=repeats, warmup=warmup, count="rows", label=p)
                   for p, ds in pipelines.items()}
        counts = {p: t.elements for p, t in timings.items()}
        if len(set(counts.values())) > 1:
            raise ValueError(_("{where}: the pipelines produced different numbers of images {counts}; "
                               "time every path on the same images.").format(where=where, counts=counts))
        return cls(timings, next(iter(counts.values())))

    def plot(self, *, ax=None, title: str | None = None) -> "RotationTimingDisplay":
        """Horizontal bars of median seconds; each bar after the first is judged against the one above."""
        fig, ax = new_axes(ax, (7.5, 0.9 * len(self.timings) + 1.4))
        paths = self.paths
        secs = [self.timings[p].median for p in paths]
        ys = np.arange(len(paths))[::-1]
        colours = [style.color({"scipy": 5, "tf": 0, "tf-batched": 2, "tfa": 4}[p]) for p in paths]
        self.bars_ = ax.barh(ys, secs, color=colours, height=0.6)
        ax.set_yticks(ys)
        ax.set_yticklabels([_(PATH_LABELS[p]) for p in paths])
        self.labels_ = []
        for i, (p, y, s) in enumerate(zip(paths, ys, secs)):
            text = f"{s:.2f} s"
            reference = {"tf": "scipy", "tf-batched": "tf", "tfa": "scipy"}.get(p)
            if reference in self.timings:
                text += f"  ({self.versus(reference, p)})"
            self.labels_.append(ax.text(s, y, " " + text, va="center", fontsize="small"))
        ax.set_xlim(0, max(secs) * 1.9)
        passes = len(self.timings[paths[0]].times)
        ax.set_xlabel(ngettext("seconds to rotate {n:,} images (median of {passes} pass)",
                               "seconds to rotate {n:,} images (median of {passes} passes)",
                               passes if passes > 1 else 1).format(n=self.n_images, passes=passes))
        ax.set_title(title or _("Same images, same angles: where the rotation runs decides the speed"), loc="left")
        self.ax_, self.figure_ = ax, fig
        return self
