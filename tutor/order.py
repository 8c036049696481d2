"""Which elements end up in which batch: the picture behind batch() and repeat()."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import tensorflow as tf

from . import style
from ._validate import require_dataset, require_integer_ids, require_positive_int
from .display import Display, new_axes
from .reading import read
from .stats import epochs_of


class BatchOrderDisplay(Display):
    """Rows of batches, one cell per element, coloured by epoch.

    Build it with :meth:`from_dataset` or :meth:`from_pipeline`, then call
    :meth:`plot`. The constructor only stores what was read.

    Parameters
    ----------
    batches : list of list of int
        Element ids of each emitted batch (for an unbatched pipeline, one id per step).
    batched : bool
        Whether the pipeline emitted batches (rows) or single elements (one strip).
    truncated : bool
        True when reading stopped at the bound before the dataset ended.
    code : str, optional
        The pipeline as a line of code, shown above the picture.

    Attributes (after :meth:`plot`)
    ----------
    cells_ : PatchCollection, one box per element, coloured by epoch
    texts_ : list of Text, the element ids written in the boxes
    ax_, figure_ : the Axes and Figure

    Examples
    --------
    >>> disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(3).batch(7))
    >>> disp.batch_sizes
    [7, 7, 7, 7, 2]
    """

    def __init__(
        self,
        batches: Sequence[Sequence[int]],
        *,
        batched: bool = True,
        truncated: bool = False,
        code: str | None = None,
    ):
        self.batches = [[int(i) for i in b] for b in batches]
        self.batched = bool(batched)
        self.truncated = bool(truncated)
        self.code = code

    # ----------------------------------------------------------------- compute
    @classmethod
    def from_dataset(
        cls, dataset: tf.data.Dataset, *, max_batches: int = 50, code: str | None = None
    ) -> "BatchOrderDisplay":
        """Read up to ``max_batches`` batches of integer ids from ``dataset``.

        >>> BatchOrderDisplay.from_dataset(tf.data.Dataset.range(5).batch(2)).batches
        [[0, 1], [2, 3], [4]]
        """
        require_dataset(dataset, "BatchOrderDisplay.from_dataset")
        require_integer_ids(dataset, "BatchOrderDisplay.from_dataset")
        max_batches = require_positive_int(max_batches, "max_batches", "BatchOrderDisplay.from_dataset")
        batched = dataset.element_spec.shape.rank == 1
        result = read(dataset, max_elements=max_batches, where="BatchOrderDisplay.from_dataset")
        rows = [np.atleast_1d(value).tolist() for value in result.elements]
        return cls(rows, batched=batched, truncated=result.more, code=code)

    @classmethod
    def from_pipeline(
        cls,
        fn: Callable[[tf.data.Dataset], tf.data.Dataset],
        *,
        n_elements: int = 10,
        max_batches: int = 50,
        code: str | None = None,
    ) -> "BatchOrderDisplay":
        """Apply ``fn`` to ``tf.data.Dataset.range(n_elements)`` and read the result.

        >>> BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(7).repeat(2)).batch_sizes
        [7, 3, 7, 3]
        """
        if not callable(fn):
            raise TypeError(
                "BatchOrderDisplay.from_pipeline expects a function that takes a dataset and returns "
                f"a dataset, for example lambda ds: ds.batch(4); got {type(fn).__name__}."
            )
        n_elements = require_positive_int(n_elements, "n_elements", "BatchOrderDisplay.from_pipeline")
        result = fn(tf.data.Dataset.range(n_elements))
        if not isinstance(result, tf.data.Dataset):
            raise TypeError(
                "BatchOrderDisplay.from_pipeline: your function must return a tf.data.Dataset, "
                f"got {type(result).__name__}. Did you forget `return`?"
            )
        return cls.from_dataset(result, max_batches=max_batches, code=code)

    @property
    def order(self) -> np.ndarray:
        """All element ids in the order they were emitted, batches concatenated."""
        return np.array([i for b in self.batches for i in b], dtype=np.int64)

    @property
    def epochs(self) -> list[list[int]]:
        """Epoch of each element, shaped like :attr:`batches` (k-th sighting of an id is epoch k)."""
        flat = iter(epochs_of(self.order).tolist()) if self.batches else iter(())
        return [[next(flat) for _ in b] for b in self.batches]

    @property
    def batch_sizes(self) -> list[int]:
        """Number of elements in each batch."""
        return [len(b) for b in self.batches]

    @property
    def mixed_batches(self) -> list[int]:
        """Indices of batches that hold elements from more than one epoch."""
        return [i for i, e in enumerate(self.epochs) if len(set(e)) > 1]

    def __repr__(self) -> str:
        kind = "batches" if self.batched else "steps"
        more = ", truncated" if self.truncated else ""
        return f"BatchOrderDisplay({len(self.batches)} {kind}, sizes={self.batch_sizes}{more})"

    # -------------------------------------------------------------------- draw
    def plot(self, *, ax=None, title: str | None = None) -> "BatchOrderDisplay":
        """Draw the batches as rows of labelled cells, coloured by epoch; returns ``self``."""
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Patch, Rectangle

        rows = self.batches if self.batched else [self.order.tolist()]
        epochs = self.epochs if self.batched else [epochs_of(self.order).tolist()]
        width = max([len(r) for r in rows] + [1])
        fig, ax = new_axes(ax, (min(max(5.0, 1.6 + 0.55 * width), 14), min(max(2.2, 1.2 + 0.42 * len(rows)), 9)))
        boxes, colours, texts = [], [], []
        for r, (row, row_epochs) in enumerate(zip(rows, epochs)):
            for c, (element, epoch) in enumerate(zip(row, row_epochs)):
                boxes.append(Rectangle((c, r), 0.94, 0.88))
                colours.append(style.color(epoch))
                texts.append(ax.text(c + 0.47, r + 0.44, str(element), ha="center", va="center", fontsize=9))
        # One collection for all cells: far faster to draw than one patch each.
        cells = ax.add_collection(PatchCollection(boxes, facecolors=colours, edgecolors="black", linewidths=0.6))
        ax.set_xlim(-0.1, width + 0.1)
        ax.set_ylim(len(rows) + 0.05, -0.1)
        # Row and column numbers are plain texts rather than axis ticks: they look the same and
        # draw several times faster, which keeps the explorers quick.
        ax.set_xticks([])
        ax.set_yticks([])
        small = {"fontsize": "small", "clip_on": False}
        for c in range(width):
            ax.text(c + 0.47, len(rows) + 0.1, str(c), ha="center", va="top", **small)
        if self.batched:
            ax.set_xlabel("position inside the batch", labelpad=14)
            ax.set_ylabel("batch, in the order emitted (size)", labelpad=30)
            for r, b in enumerate(rows):
                ax.text(-0.12, r + 0.44, f"{r} ({len(b)})", ha="right", va="center", **small)
        else:
            ax.set_xlabel("step (one element per step: nothing is batched)", labelpad=14)
            ax.set_ylabel("")
        ax.tick_params(length=0)
        for side in ("top", "right", "bottom", "left"):
            ax.spines[side].set_visible(False)
        n_epochs = max([max(e) for e in epochs if e] + [0]) + 1
        handles = [Patch(facecolor=style.color(e), edgecolor="black", label=f"epoch {e + 1}") for e in range(n_epochs)]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        if title is None:
            title = self.default_title()
        ax.set_title(title, loc="left")
        self.ax_, self.figure_, self.cells_, self.texts_ = ax, fig, cells, texts
        return self

    def default_title(self) -> str:
        """The code line, then what to notice: mixed epochs, short batches, a truncated stream."""
        head = self.code or ("rows are batches; colour = epoch" if self.batched else "one element per step")
        if not self.batches:
            return head + "\nthe pipeline emitted nothing"
        if not self.batched:
            return head
        sizes = self.batch_sizes
        notes = []
        if self.mixed_batches:
            notes.append(f"{len(self.mixed_batches)} batch(es) mix two epochs")
        short = [s for s in sizes if sizes and s < max(sizes)]
        if short:
            notes.append(f"{len(short)} short batch(es)")
        if self.truncated:
            notes.append(f"first {len(sizes)} batches of an endless stream")
        return head + ("\n" + ", ".join(notes) if notes else "\nevery batch full, no epoch mixing")
