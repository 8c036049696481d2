"""Which elements end up in which batch: the picture behind batch() and repeat()."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import tensorflow as tf

from . import style
from ._validate import require_positive_int
from .display import Display, new_axes
from .i18n import gettext as _
from .i18n import ngettext
from .reading import read_ids
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
    note : str, optional
        What the caller knows happened (for example why nothing came out);
        the title shows it instead of the notes it works out itself.

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
        note: str | None = None,
    ):
        self.batches = [[int(i) for i in b] for b in batches]
        self.batched = bool(batched)
        self.truncated = bool(truncated)
        self.code = code
        self.note = note

    # ----------------------------------------------------------------- compute
    @classmethod
    def from_dataset(
        cls, dataset, *, max_batches: int = 50, code: str | None = None, note: str | None = None
    ) -> "BatchOrderDisplay":
        """Read up to ``max_batches`` batches of integer ids from ``dataset``.

        ``dataset`` is a ``tf.data.Dataset`` or a Grain ``MapDataset`` / ``IterDataset``.

        >>> BatchOrderDisplay.from_dataset(tf.data.Dataset.range(5).batch(2)).batches
        [[0, 1], [2, 3], [4]]
        """
        where = "BatchOrderDisplay.from_dataset"
        max_batches = require_positive_int(max_batches, "max_batches", where)
        result, batched = read_ids(dataset, max_elements=max_batches, where=where)  # tf.data or Grain, bounded
        rows = [np.atleast_1d(value).tolist() for value in result.elements]
        return cls(rows, batched=batched, truncated=result.more, code=code, note=note)

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
            raise TypeError(_(
                "BatchOrderDisplay.from_pipeline expects a function that takes a dataset and returns "
                "a dataset, for example lambda ds: ds.batch(4); got {kind}."
            ).format(kind=type(fn).__name__))
        n_elements = require_positive_int(n_elements, "n_elements", "BatchOrderDisplay.from_pipeline")
        result = fn(tf.data.Dataset.range(n_elements))
        if not isinstance(result, tf.data.Dataset):
            raise TypeError(_(
                "BatchOrderDisplay.from_pipeline: your function must return a tf.data.Dataset, "
                "got {kind}. Did you forget `return`?"
            ).format(kind=type(result).__name__))
        return cls.from_dataset(result, max_batches=max_batches, code=code)

    @property
    def order(self) -> np.ndarray:
        """All element ids in the order they were emitted, batches concatenated."""
        return np.array([i for b in self.batches for i in b], dtype=np.int64)

    @property
    def epochs(self) -> list[list[int]]:
        """Epoch of each element, shaped like :attr:`batches` (k-th sighting of an id is epoch k)."""
        flat = iter(epochs_of(self.order).tolist()) if self.batches else iter(())
        return [[next(flat) for _unused in b] for b in self.batches]

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
        """Draw the batches as rows of labelled cells, coloured by epoch; returns ``self``.

        Cell labels are sized to fit the cells, so many short rows stay readable.
        """
        from matplotlib.collections import PatchCollection

        rows, _unused = self._rows()
        width = max([len(r) for r in rows] + [1])
        fig, ax = new_axes(ax, (min(max(5.0, 1.6 + 0.55 * width), 14), min(max(2.2, 1.2 + 0.42 * len(rows)), 9)))
        self.ax_, self.figure_ = ax, fig
        # One collection for all cells: far faster to draw than one patch each.
        self.cells_ = ax.add_collection(PatchCollection([], edgecolors="black", linewidths=0.6))
        self._pools = {"cells": [], "rows": [], "columns": []}
        self._epoch_count = None
        # Row and column numbers are plain texts rather than axis ticks: they look the same and
        # draw several times faster, which keeps the explorers quick.
        ax.set_xticks([])
        ax.set_yticks([])
        ax.tick_params(length=0)
        for side in ("top", "right", "bottom", "left"):
            ax.spines[side].set_visible(False)
        if self.batched:
            # Translators: x axis label of the rows of batches; each cell is one element.
            ax.set_xlabel(_("position inside the batch"), labelpad=14)
            # Translators: y axis label; each row is a batch, and "(size)" says the number after each row's number.
            ax.set_ylabel(_("batch, in the order emitted (size)"), labelpad=30)  # _fill moves it past the row labels
        else:
            ax.set_xlabel(_("step (one element per step: nothing is batched)"), labelpad=14)
            ax.set_ylabel("")
        self._note = ax.text(0.5, 0.5, "", transform=ax.transAxes, ha="center", va="center", color="#555555")
        self._fill(title)
        return self

    def update_drawn(self, previous: "BatchOrderDisplay", *, title: str | None = None) -> list | None:
        """Refill ``previous``'s cells, labels and limits with these batches (see :meth:`Display.replot`).

        None (draw anew) when ``previous`` was drawn otherwise (batched or not).
        Cells, labels and the legend all move, so the whole axes changed.
        """
        if previous.batched != self.batched:
            return None
        self.ax_, self.figure_, self.cells_ = previous.ax_, previous.figure_, previous.cells_
        self._pools, self._note, self._epoch_count = previous._pools, previous._note, previous._epoch_count
        self._fill(title)
        return [self.ax_]

    def _rows(self) -> tuple[list, list]:
        if self.batched:
            return self.batches, self.epochs
        return ([self.order.tolist()], [epochs_of(self.order).tolist()]) if self.batches else ([], [])

    def _fill(self, title: str | None) -> None:
        """Put the cells, their labels, the row and column numbers and the legend in place."""
        import matplotlib as mpl
        from matplotlib.patches import Patch, Rectangle

        ax, (rows, epochs) = self.ax_, self._rows()
        width, height = max([len(r) for r in rows] + [1]), max(len(rows), 1)
        ax.set_xlim(-0.1, width + 0.1)
        ax.set_ylim(height + 0.05, -0.1)
        to_points = 72.0 / self.figure_.dpi
        cell_w, cell_h = ax.bbox.width / width * to_points, ax.bbox.height / height * to_points
        digits = max([len(str(i)) for r in rows for i in r] + [1])
        base = mpl.rcParams["font.size"]
        size = max(min(0.9 * base, 0.6 * cell_h, 1.4 * cell_w / digits), 4.0)
        boxes, colours, labels = [], [], []
        for r, (row, row_epochs) in enumerate(zip(rows, epochs)):
            for c, (element, epoch) in enumerate(zip(row, row_epochs)):
                colours.append(style.color(epoch))
                # An explicit colour: a patch left to the default looks it up in the colour cycle, slowly.
                boxes.append(Rectangle((c, r), 0.94, 0.88, facecolor=colours[-1]))
                labels.append((c + 0.47, r + 0.44, str(element)))
        self.cells_.set_paths(boxes)
        self.cells_.set_facecolor(colours)
        self.texts_ = self._show("cells", labels, size, ha="center", va="center")
        small = 0.8 * base
        row_step = max(1, -(-int(1.4 * small) // max(int(cell_h), 1)))  # label every row that has room
        row_labels = [(-0.12, r + 0.44, f"{r} ({len(b)})") for r, b in enumerate(rows) if r % row_step == 0]
        self._show("rows", row_labels if self.batched else [], small, ha="right", va="center", clip_on=False)
        if self.batched:  # the axis title clears the widest row label, whatever the font size
            # The labels end 0.02 cell widths left of the axes' edge (at x = -0.12, the edge at -0.1).
            ax.yaxis.labelpad = 6 + style.row_label_width([text for _x, _y, text in row_labels], small) \
                + 0.02 * ax.bbox.width / width * to_points
        self._show("columns", [(c + 0.47, height + 0.1, str(c)) for c in range(width) if rows], small,
                   ha="center", va="top", clip_on=False)
        self._note.set_text("" if rows else _("nothing was emitted"))
        n_epochs = max([max(e) for e in epochs if e] + [0]) + 1
        if n_epochs != self._epoch_count:
            # Epochs count from 1 and rows from 0: the key says which pass epoch 1 is.
            handles = [Patch(facecolor=style.color(e), edgecolor="black", label=epoch_label(e))
                       for e in range(n_epochs)]
            # Translators: the title of the key of epoch colours (one pass over the data is an epoch).
            ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, title=_("epoch"))
            self._epoch_count = n_epochs
        ax.set_title(self.default_title() if title is None else title, loc="left")

    def _show(self, pool: str, labels: list, size: float, **props) -> list:
        """Show ``labels`` ``(x, y, text)`` with the texts of one pool, making more when it is short."""
        texts = self._pools[pool]
        while len(texts) < len(labels):
            texts.append(self.ax_.text(0, 0, "", **props))
        for text, (x, y, label) in zip(texts, labels):
            text.set_position((x, y))
            text.set_text(label)
            text.set_fontsize(size)
            text.set_visible(True)
        for text in texts[len(labels):]:
            text.set_visible(False)
        return texts[: len(labels)]

    def default_title(self) -> str:
        """The code line, then :attr:`note` when given, else :meth:`notes`."""
        head = self.code or (_("rows are batches; colour = epoch") if self.batched else _("one element per step"))
        second = self.note or self.notes()
        return f"{head}\n{second}" if second else head

    def notes(self) -> str:
        """What to notice in the batches: mixed epochs, short batches, a truncated stream, or that nothing came out.

        Rows count from 0, epochs from 1 (epoch 1 is the first pass), as the legend says.

        >>> BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(4)).notes()
        '1 short batch'
        >>> BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(3).batch(7)).notes()
        '2 batches mix two epochs, 1 short batch'
        """
        if not self.batches:
            return _("the pipeline emitted nothing")
        if not self.batched:
            return ""
        sizes = self.batch_sizes
        notes = []
        mixed = len(self.mixed_batches)
        if mixed:
            notes.append(ngettext("{n} batch mixes two epochs", "{n} batches mix two epochs", mixed).format(n=mixed))
        short = [s for s in sizes if sizes and s < max(sizes)]
        if short:
            notes.append(ngettext("{n} short batch", "{n} short batches", len(short)).format(n=len(short)))
        if self.truncated:
            notes.append(_("reading stopped at max_batches={n}: the stream goes on").format(n=len(sizes)))
        return list_of(notes) if notes else _("every batch full, no epoch mixing")


def epoch_label(epoch: int) -> str:
    """A key's name for ``epoch`` (counted from 0): "1 (first pass)", "2", ... (epochs are counted from 1).

    >>> epoch_label(0), epoch_label(2)
    ('1 (first pass)', '3')
    """
    # Translators: the key of epoch colours; epoch 1 is the first pass over the data.
    return _("{epoch} (first pass)").format(epoch=1) if epoch == 0 else str(epoch + 1)


def list_of(notes: list[str]) -> str:
    """Short notes in one line, separated as the language separates the items of a list ("a, b, c").

    >>> list_of(["1 short batch", "2 batches mix two epochs"])
    '1 short batch, 2 batches mix two epochs'
    """
    # Translators: what separates the short notes of a list, e.g. "1 short batch, 2 batches mix two epochs".
    return _(", ").join(notes)
