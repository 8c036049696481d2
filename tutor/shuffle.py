"""The shuffle buffer, seen from the outside: input position against output position."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import tensorflow as tf

from . import style
from ._validate import require_positive_int
from .display import Display, new_axes
from .i18n import gettext as _
from .i18n import ngettext, width
from .reading import read, read_ids
from .stats import epoch_stats, epochs_of, format_correlation, shuffle_stats

MAX_ELEMENTS = 100_000
#: The largest shuffle buffer built here. TensorFlow reserves room for the whole buffer when the shuffle
#: starts (about 24 bytes a slot), so a huge buffer_size can crash the kernel before anything is read.
MAX_BUFFER = MAX_ELEMENTS
#: Per-epoch values the title lists before it shortens the list to its ends.
TITLE_EPOCHS = 4


class ShuffleDisplay(Display):
    """Where each element came out of a shuffle, against where it went in.

    Parameters
    ----------
    order : sequence of int
        Element ids in output order.
    n_elements : int, optional
        Elements per epoch; defaults to ``max(order) + 1``.
    buffer_size : int, optional
        The shuffle buffer, when known; draws the "can't come out earlier than
        this" limit.
    truncated : bool
        True when reading stopped at ``max_elements`` before the dataset ended.

    Attributes (after :meth:`plot`)
    ----------
    points_ : PathCollection, one dot per emitted element
    limit_ : Line2D or None, the dashed "can't come out earlier than this" limit
    ax_, figure_ : the Axes and Figure

    Examples
    --------
    >>> disp = ShuffleDisplay.from_params(n_elements=10, buffer_size=1)
    >>> disp.order.tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    """

    def __init__(
        self,
        order: Sequence[int],
        *,
        n_elements: int | None = None,
        buffer_size: int | None = None,
        seed: int | None = None,
        reshuffle_each_iteration: bool | None = None,
        truncated: bool = False,
    ):
        self.order = np.asarray(order, dtype=np.int64)
        self.n_elements = int(n_elements) if n_elements is not None else int(self.order.max()) + 1
        self.buffer_size = buffer_size
        self.seed = seed
        self.reshuffle_each_iteration = reshuffle_each_iteration
        self.truncated = bool(truncated)

    # ----------------------------------------------------------------- compute
    @classmethod
    def from_params(
        cls,
        *,
        n_elements: int,
        buffer_size: int,
        seed: int = 0,
        reshuffle_each_iteration: bool = True,
        epochs: int = 1,
    ) -> "ShuffleDisplay":
        """Run ``Dataset.range(n_elements).shuffle(buffer_size, ...).repeat(epochs)`` for real.

        >>> ShuffleDisplay.from_params(n_elements=100, buffer_size=10).stats["max_moved_earlier"] <= 9
        True
        """
        where = "ShuffleDisplay.from_params"
        n_elements = require_positive_int(n_elements, "n_elements", where)
        buffer_size = _buffer_size(buffer_size, where, n_elements=n_elements)
        epochs = require_positive_int(epochs, "epochs", where)
        seed = _seed(seed, where)
        if n_elements * epochs > MAX_ELEMENTS:
            raise ValueError(_("{where}: n_elements * epochs must be <= {limit:,}; got {value:,}.").format(
                where=where, limit=MAX_ELEMENTS, value=n_elements * epochs))
        ds = (
            tf.data.Dataset.range(n_elements)
            .shuffle(buffer_size, seed=seed, reshuffle_each_iteration=bool(reshuffle_each_iteration))
            .repeat(epochs)
        )
        # The whole order as one batch: one trip into TensorFlow instead of one per element (5x faster).
        order = read(ds.batch(n_elements * epochs), max_elements=1, where=where).elements[0]
        return cls(
            order,
            n_elements=n_elements,
            buffer_size=buffer_size,
            seed=seed,
            reshuffle_each_iteration=bool(reshuffle_each_iteration),
        )

    @classmethod
    def from_dataset(
        cls, dataset, *, max_elements: int = 1000, n_elements: int | None = None,
        buffer_size: int | None = None,
    ) -> "ShuffleDisplay":
        """Read up to ``max_elements`` integer ids from any pipeline (batches are flattened).

        ``dataset`` is a ``tf.data.Dataset`` or a Grain ``MapDataset`` / ``IterDataset``.

        Pass ``buffer_size`` (the shuffle's) to draw its limit line, and
        ``n_elements`` when one epoch is not simply ``max(id) + 1`` elements.
        When the dataset gives more than ``max_elements`` ids (an endless
        ``repeat()``), reading stops there: ``truncated`` is True, and the
        title and the repr say so.

        >>> ShuffleDisplay.from_dataset(tf.data.Dataset.range(5).shuffle(1)).order.tolist()
        [0, 1, 2, 3, 4]
        """
        where = "ShuffleDisplay.from_dataset"
        max_elements = require_positive_int(max_elements, "max_elements", where)
        if buffer_size is not None:
            buffer_size = _buffer_size(buffer_size, where)
        result, _unused = read_ids(dataset, max_elements=max_elements, where=where, flat=True)  # tf.data or Grain
        if not result.elements:
            raise ValueError(_("{where}: the dataset is empty, so there is no order to show.").format(where=where))
        return cls(np.array(result.elements, dtype=np.int64), n_elements=n_elements, buffer_size=buffer_size,
                   truncated=result.more)

    @property
    def stats(self) -> dict[str, float]:
        """:func:`tutor.shuffle_stats` of :attr:`order`."""
        return shuffle_stats(self.order, self.n_elements)

    @property
    def epoch_stats(self) -> list[dict]:
        """:func:`tutor.stats.epoch_stats` of :attr:`order`: the statistics of each epoch on its own."""
        return epoch_stats(self.order, self.n_elements)

    @property
    def epochs(self) -> np.ndarray:
        """Epoch of each emitted element."""
        return epochs_of(self.order)

    def __repr__(self) -> str:
        b = f", buffer_size={self.buffer_size}" if self.buffer_size is not None else ""
        more = f", reading stopped at max_elements={self.order.size}" if self.truncated else ""
        return f"ShuffleDisplay(n_elements={self.n_elements}{b}, emitted={self.order.size}{more})"

    # -------------------------------------------------------------------- draw
    def plot(self, *, ax=None, title: str | None = None, show_limit: bool = True) -> "ShuffleDisplay":
        """Scatter input id against output position; returns ``self``.

        The dashed line is the limit a buffer of ``buffer_size`` imposes: at
        output position j only ids up to j + buffer_size - 1 have been read.
        The key names the epochs' colours (when there are several, outside the
        axes on the right) and the limit.
        """
        import matplotlib as mpl
        from matplotlib.font_manager import FontProperties
        from matplotlib.ticker import MaxNLocator

        heading = self._default_title() if title is None else title
        # A new figure is made wide enough for its title: axes.titlesize in points, about 0.55 of it per letter.
        longest = max((width(line) for line in heading.splitlines()), default=0)  # a CJK character takes two
        points = FontProperties(size=mpl.rcParams["axes.titlesize"]).get_size_in_points()
        fig, ax = new_axes(ax, (max(6.5, 0.55 * points * longest / 72 + 1.0), 4.2))
        pos = np.arange(self.order.size)
        limit_x, limit_y = self._limit_line() if show_limit and self.buffer_size is not None else (None, None)

        # Dots follow the line marker size, so presentation mode enlarges them with the fonts.
        size = (14 if self.order.size <= 200 else 5) * (mpl.rcParams["lines.markersize"] / 6.0) ** 2
        self.points_ = ax.scatter(pos, self.order, c=self._colours(), s=size, linewidths=0)
        self.limit_ = None
        if limit_x is not None:
            (self.limit_,) = ax.plot(limit_x, limit_y, ls="--", lw=1.2, color="black", label=self._limit_label())
        self._key(ax)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(_("output position (order the pipeline emits)"))
        ax.set_ylabel(_("element id (input position)"))
        ax.set_xlim(-1, max(self.order.size, 2))
        ax.set_ylim(-1, self.n_elements)
        ax.set_title(heading, loc="left")
        self.ax_, self.figure_ = ax, fig
        return self

    def update_drawn(self, previous: "ShuffleDisplay", *, title: str | None = None,
                     show_limit: bool = True) -> list | None:
        """Move ``previous``'s dots and limit line to this order (see :meth:`Display.replot`).

        None (draw anew) when the layout differs: the number of elements or
        points, or whether the limit is shown.
        """
        shows_limit = show_limit and self.buffer_size is not None
        same = (previous.n_elements == self.n_elements and previous.order.size == self.order.size
                and (previous.limit_ is not None) == shows_limit and previous._epoch_keys() == self._epoch_keys())
        if not same:
            return None
        ax = previous.ax_
        self.points_, self.limit_ = previous.points_, previous.limit_
        self.points_.set_offsets(np.column_stack([np.arange(self.order.size), self.order]))
        self.points_.set_facecolor(self._colours())
        changed = [self.points_]
        if self.limit_ is not None:
            self.limit_.set_data(*self._limit_line())
            legend = ax.get_legend()
            legend.get_texts()[-1].set_text(self._limit_label())
            changed += [self.limit_, legend]
        heading = self._default_title() if title is None else title
        if heading != ax.get_title(loc="left"):  # a new title may need new margins: everything changed
            ax.set_title(heading, loc="left")
            changed = [ax]
        self.ax_, self.figure_ = ax, previous.figure_
        return changed

    def _colours(self) -> list[str]:
        return [style.color(e if e < 7 else 7) for e in self.epochs.tolist()]

    def _epoch_keys(self) -> list[str]:
        """The key's epoch entries (none for one epoch): epoch 1 is the first pass, the 8th colour the rest."""
        n = int(self.epochs.max()) + 1 if self.order.size else 1
        if n == 1:
            return []
        # Translators: the key of the dots' colours; epoch 1 is the first pass over the data.
        keys = [_("epoch {epoch} (first pass)").format(epoch=1) if e == 0 else _("epoch {epoch}").format(epoch=e + 1)
                for e in range(min(n, 7))]
        if n > 7:
            # Translators: one colour for the eighth epoch and every later one, e.g. "epochs 8-12".
            keys.append(_("epoch {epoch}").format(epoch=8) if n == 8 else _("epochs {first}-{last}").format(
                first=8, last=n))
        return keys

    def _key(self, ax) -> None:
        """The legend: one entry per epoch colour, then the limit.

        With several epochs it stands outside the axes, where it covers no dot;
        the limit alone stays in the lower right, which a buffer's limit leaves
        empty at first (and the explorers' margins then stay as they were).
        """
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], marker="o", ls="", color=style.color(e), label=label)
                   for e, label in enumerate(self._epoch_keys())]
        if self.limit_ is not None:
            handles.append(self.limit_)
        if len(handles) > 1 or (handles and self.limit_ is None):
            ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                      fontsize="small", borderaxespad=0.0)
        elif handles:
            ax.legend(handles=handles, loc="lower right", frameon=False, fontsize="small")

    def _limit_label(self) -> str:
        # Translators: the dashed line's key: no element id above the output position plus buffer_size - 1.
        return _("limit: id <= position + {slack}").format(slack=self.buffer_size - 1)

    def _limit_line(self) -> tuple[list, list]:
        """The dashed limit, one segment per epoch: at position j, ids up to j + buffer_size - 1."""
        n, b = self.n_elements, self.buffer_size
        xs, ys = [], []
        for e in range(int(self.epochs.max()) + 1):
            xs += [*(np.arange(n) + e * n).tolist(), np.nan]
            ys += [*np.minimum(np.arange(n) + b - 1, n - 1).tolist(), np.nan]
        return xs, ys

    def _default_title(self) -> str:
        n = self.n_elements
        if self.buffer_size is not None:
            head = ngettext("shuffle(buffer_size={buffer_size}) over {n} element",
                            "shuffle(buffer_size={buffer_size}) over {n} elements", n)
        else:
            head = ngettext("output order over {n} element", "output order over {n} elements", n)
        title = head.format(buffer_size=self.buffer_size, n=n) + "\n" + self.summary()
        if self.truncated:
            title += "\n" + _("reading stopped at max_elements={n}; the dataset goes on").format(n=self.order.size)
        return title

    def summary(self) -> str:
        """One line: the Spearman correlation of each epoch with the input order (1 = order kept).

        Each epoch is measured on its own (:func:`tutor.stats.epoch_stats`), with
        enough decimals that a changed order never reads as 1.

        >>> ShuffleDisplay.from_params(n_elements=10, buffer_size=1).summary()
        'Spearman ρ 1.00 (1 = order kept), 0 of 10 moved'
        """
        stats = self.epoch_stats
        rhos = [format_correlation(s["rank_correlation"], changed=s["moved"] > 0) for s in stats]
        if len(stats) == 1:
            # Translators: ρ is Spearman's rank correlation of the output order with the input order.
            return _("Spearman ρ {rho} (1 = order kept), {moved} of {size} moved").format(
                rho=rhos[0], moved=stats[0]["moved"], size=stats[0]["size"])
        same = all(s["same_as_first"] for s in stats)
        if len(rhos) <= TITLE_EPOCHS:
            text = (_("Spearman ρ per epoch {rhos} (1 = order kept); every epoch in one order") if same
                    else _("Spearman ρ per epoch {rhos} (1 = order kept)"))
            return text.format(rhos=", ".join(rhos))
        shown = ", ".join(rhos[:3]) + f", …, {rhos[-1]}"
        # Translators: {epochs} is 5 or more.
        text = (_("Spearman ρ per epoch {rhos} ({epochs} epochs; all in one order)") if same
                else _("Spearman ρ per epoch {rhos} ({epochs} epochs)"))
        return text.format(rhos=shown, epochs=len(stats))

def _buffer_size(value, where: str, *, n_elements: int | None = None) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value == 0:
        raise ValueError(_(
            "{where}: buffer_size must be >= 1, got 0. A buffer of 1 keeps the order unchanged; "
            "use a buffer at least as large as the dataset for a full shuffle."
        ).format(where=where))
    value = require_positive_int(value, "buffer_size", where)
    if value > MAX_BUFFER:
        if n_elements is None:
            text = _("{where}: buffer_size must be <= {limit:,}, got {value:,}. TensorFlow reserves room for the "
                     "whole buffer when the shuffle starts, so a huge one can crash the kernel, and a buffer larger "
                     "than the data shuffles no better than one as large as the data: that is the full shuffle.")
        else:
            text = _("{where}: buffer_size must be <= {limit:,}, got {value:,}. TensorFlow reserves room for the "
                     "whole buffer when the shuffle starts, so a huge one can crash the kernel, and a buffer larger "
                     "than the data (n_elements={n_elements}) shuffles no better than one as large as the data: "
                     "that is the full shuffle.")
        raise ValueError(text.format(where=where, limit=MAX_BUFFER, value=value, n_elements=n_elements))
    return value


def _seed(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(_("{where}: seed must be an int, got {kind}.").format(where=where, kind=type(value).__name__))
    return int(value)
