"""MemoryDisplay: where several pipelines' memory goes, by arithmetic and measured, on one axis.

Each pipeline is one row: a stacked bar of its buffers by arithmetic (one
colour per kind of buffer: shuffle, prefetch, parallel map, interleave,
cache), a diamond at what TensorFlow's tensors grew by while its iterator
lived, and a bar mark at what the process's resident memory (RSS) grew by.

>>> disp = MemoryDisplay.from_datasets([tf.data.Dataset.range(9).shuffle(3)], labels=["ids"])   # doctest: +SKIP
>>> disp.plot().bars_                                                                          # doctest: +SKIP
{'shuffle': <BarContainer object of 1 artists>}
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import style
from ..display import Display, new_axes
from ..i18n import N_
from ..i18n import gettext as _
from .memory import MemoryUse, memory_use

#: Buffer kinds in drawing order, with their legend labels (English; translated where drawn) and colours.
KINDS = {"shuffle": (N_("shuffle buffer (arithmetic)"), 0), "prefetch": (N_("prefetch buffer (arithmetic)"), 1),
         "map": (N_("parallel map results (arithmetic)"), 2), "interleave": (N_("interleave inputs (arithmetic)"), 4),
         "cache": (N_("cache() (arithmetic)"), 6)}
MB = 2**20


class MemoryDisplay(Display):
    """Buffers by arithmetic (stacked bars) and measured growth (markers), one row per pipeline.

    Parameters
    ----------
    labels : list of str
        One name per pipeline (row), top to bottom.
    parts : list of dict
        Per pipeline, ``{kind: bytes}`` of its buffers of known size.
    tensors : list of int or None
        Per pipeline, the growth of TensorFlow's tensor bytes while its iterator lived.
    rss : list of int or None
        Per pipeline, the growth of the process's resident memory at the same moment.

    Attributes (after :meth:`plot`)
    ----------
    ax_, figure_
    bars_ : dict
        Kind of buffer -> the ``BarContainer`` of its bars.
    tensors_ : Line2D
        The diamonds (measured tensor bytes).
    rss_ : Line2D
        The RSS marks.
    """

    def __init__(self, labels: Sequence[str], parts: Sequence[dict], tensors: Sequence, rss: Sequence):
        self.labels = [str(label) for label in labels]
        self.parts = [dict(p) for p in parts]
        self.tensors = list(tensors)
        self.rss = list(rss)
        if not (len(self.labels) == len(self.parts) == len(self.tensors) == len(self.rss)):
            raise ValueError(_("MemoryDisplay needs one label, one dict of buffers and two measurements per pipeline."))

    @classmethod
    def from_measurements(cls, uses: Sequence[MemoryUse]) -> "MemoryDisplay":
        """One row per :class:`MemoryUse` (from :func:`tutor.usage.memory_use`), named by its label."""
        if isinstance(uses, MemoryUse) or not isinstance(uses, (list, tuple)) or not uses \
                or not all(isinstance(u, MemoryUse) for u in uses):
            raise TypeError(_("MemoryDisplay.from_measurements expects a list of tutor.usage.memory_use(...) results, "
                              "e.g. [memory_use(a, label='a'), memory_use(b, label='b')]; got {type}.")
                            .format(type=type(uses).__name__))
        parts = []
        for use in uses:
            kinds: dict = {}
            for b in use.buffers:
                if b.bytes is not None:
                    kinds[b.kind] = kinds.get(b.kind, 0) + b.bytes
            parts.append(kinds)
        return cls([u.label or _("pipeline {k}").format(k=k + 1) for k, u in enumerate(uses)], parts,
                   [u.tensors_held for u in uses], [u.rss_held for u in uses])

    @classmethod
    def from_datasets(cls, datasets: Sequence, *, labels: Sequence[str] | None = None,
                      elements: int = 1) -> "MemoryDisplay":
        """Measure each dataset with :func:`tutor.usage.memory_use` (``elements`` read), one row each."""
        import tensorflow as tf

        if isinstance(datasets, tf.data.Dataset) or not isinstance(datasets, (list, tuple)) or not datasets:
            raise TypeError(_("MemoryDisplay.from_datasets expects a list of datasets, e.g. [a, b]; got {type}.")
                            .format(type=type(datasets).__name__))
        if labels is not None and len(labels) != len(datasets):
            raise ValueError(_("MemoryDisplay.from_datasets: {labels} labels for {datasets} datasets.")
                             .format(labels=len(labels), datasets=len(datasets)))
        names = labels or [_("pipeline {k}").format(k=k + 1) for k in range(len(datasets))]
        return cls.from_measurements([memory_use(ds, elements=elements, label=name)
                                      for ds, name in zip(datasets, names)])

    def plot(self, *, ax=None, title: str | None = None, figsize=(8.5, 3.2)) -> "MemoryDisplay":
        """Draw one row per pipeline, top to bottom; returns ``self``."""
        rows = len(self.labels)
        self.figure_, self.ax_ = new_axes(ax, (figsize[0], max(figsize[1], 1.0 + 0.6 * rows)))
        y = np.arange(rows)[::-1].astype(float)
        left = np.zeros(rows)
        self.bars_ = {}
        for kind, (legend, colour) in KINDS.items():
            widths = np.array([p.get(kind, 0) / MB for p in self.parts])
            if widths.any():
                self.bars_[kind] = self.ax_.barh(y, widths, left=left, height=0.5, color=style.color(colour),
                                                 label=_(legend))
                left += widths
        tensors = [np.nan if t is None else t / MB for t in self.tensors]
        rss = [np.nan if r is None else r / MB for r in self.rss]
        (self.tensors_,) = self.ax_.plot(tensors, y, "D", color="black", markersize=7, linestyle="none",
                                         label=_("TensorFlow's tensors (measured)"))
        (self.rss_,) = self.ax_.plot(rss, y + 0.33, "v", color=style.color(5), markersize=8, linestyle="none",
                                     label=_("process RSS (measured)"))
        self.ax_.set_yticks(y)
        self.ax_.set_yticklabels(self.labels)
        self.ax_.set_ylim(-0.7, rows - 0.2)
        self.ax_.set_xlim(left=min(0.0, np.nanmin([0.0, *rss])))
        self.ax_.set_xlabel(_("MB held while the iterator lives (growth over the moment before)"))
        self.ax_.set_title(title if title is not None else _("Where the memory goes: buffers by arithmetic, and measured"))
        self.ax_.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0)
        return self
