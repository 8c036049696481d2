"""The Display contract every picture in ``tutor`` follows (scikit-learn's, see CONTRIBUTING.md).

* ``Cls.from_*(data, ..., *, option=...)`` computes and returns a Display that
  has drawn nothing: at most two data arguments by position, every option by
  keyword. The constructor only stores numbers that were already computed.
* ``disp.plot(*, ax=None, title=None, ...)`` draws into ``ax`` (a new figure
  when ``None``) without clearing what is already there, sets ``ax_``,
  ``figure_`` and the artist attributes its class documents (one name, one
  type), and returns ``disp``. A second kind of picture is ``plot(kind=...)``.
* ``Cls.compare(displays, *, labels=None)`` puts several Displays of one kind
  into one Display that draws them together when you call ``plot``. It
  computes nothing and draws nothing by itself.

>>> import tutor
>>> a = tutor.ShuffleDisplay.from_dataset(tf.data.Dataset.range(20).shuffle(2, seed=0))
>>> b = tutor.ShuffleDisplay.from_dataset(tf.data.Dataset.range(20).shuffle(20, seed=0))
>>> both = tutor.ShuffleDisplay.compare([a, b], labels=["buffer 2", "buffer 20"])
>>> both.plot().axes_[1].get_title(loc="left")        # doctest: +SKIP
'buffer 20'
"""
from __future__ import annotations

from typing import Any, Sequence


class Display:
    """Base class of every Display. Subclasses implement ``from_*`` and ``plot``."""

    def plot(self, *, ax=None, title: str | None = None) -> "Display":  # pragma: no cover - abstract
        raise NotImplementedError

    def replot(self, previous: "Display", **kwargs: Any) -> "Display":
        """Draw in place of ``previous``, a Display drawn before in a figure that an explorer owns.

        This default clears ``previous``'s axes and draws anew; Displays that
        can change only the data of what is drawn override it (faster).
        """
        ax = previous.ax_
        ax.clear()
        return self.plot(ax=ax, **kwargs)

    @classmethod
    def compare(cls, displays: Sequence["Display"], *, labels: Sequence[str] | None = None) -> "ComparisonDisplay":
        """Several Displays of this kind, drawn side by side by :meth:`ComparisonDisplay.plot`.

        ``displays`` are Displays already computed with ``from_*``; ``labels``
        (one per Display) become their titles.
        """
        return ComparisonDisplay(_require_displays(displays, cls, f"{cls.__name__}.compare"), labels=labels)


class ComparisonDisplay(Display):
    """Displays of one kind, drawn in a grid of axes, one per Display.

    Parameters
    ----------
    displays : list of Display
    labels : list of str, optional
        Titles, one per Display; ``None`` keeps each Display's own title.

    Attributes (after :meth:`plot`)
    ----------
    axes_ : list of Axes, one per Display
    ax_ : the first of ``axes_``
    figure_ : Figure
    """

    def __init__(self, displays: Sequence[Display], *, labels: Sequence[str] | None = None):
        self.displays = list(displays)
        if labels is not None:
            labels = [str(label) for label in labels]
            if len(labels) != len(self.displays):
                raise ValueError(f"compare: got {len(labels)} labels for {len(self.displays)} displays.")
        self.labels = labels

    @classmethod
    def compare(cls, displays: Sequence[Display], *, labels: Sequence[str] | None = None) -> "ComparisonDisplay":
        """One comparison of every Display inside ``displays`` (comparisons are merged, not nested)."""
        inner = _require_displays(displays, Display, "ComparisonDisplay.compare")
        flat, own = [], []
        for d in inner:
            parts = d.displays if isinstance(d, ComparisonDisplay) else [d]
            flat.extend(parts)
            own.extend(d.labels if isinstance(d, ComparisonDisplay) and d.labels else [None] * len(parts))
        if labels is None and all(label is not None for label in own):
            labels = own
        return cls(flat, labels=None if labels is None or len(labels) != len(flat) else labels)

    def __repr__(self) -> str:
        kinds = sorted({type(d).__name__ for d in self.displays})
        return f"ComparisonDisplay({len(self.displays)} × {', '.join(kinds)})"

    def plot(self, *, ax=None, title: str | None = None, ncols: int = 2) -> "ComparisonDisplay":
        """Draw each Display into its own axes; ``ax`` may be a sequence of axes (one per Display).

        ``title`` is the figure's headline.
        """
        from ._validate import require_positive_int

        n = len(self.displays)
        if ax is None:
            import matplotlib.pyplot as plt

            ncols = min(require_positive_int(ncols, "ncols", "ComparisonDisplay.plot"), n)
            nrows = -(-n // ncols)
            figure, grid = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.9 * nrows), layout="constrained",
                                        squeeze=False)
            axes = list(grid.ravel())
            for spare in axes[n:]:
                spare.set_visible(False)
        else:
            axes = [ax] if hasattr(ax, "plot") else [a for a in _flatten(ax)]
            if len(axes) < n:
                raise ValueError(f"ComparisonDisplay.plot needs {n} axes, one per display; got {len(axes)}.")
            figure = axes[0].figure
        for k, (display, a) in enumerate(zip(self.displays, axes)):
            display.plot(ax=a, title=None if self.labels is None else self.labels[k])
        if title is not None:
            figure.suptitle(title)
        self.axes_, self.ax_, self.figure_ = axes[:n], axes[0], figure
        return self


def new_axes(ax, figsize: tuple[float, float]):
    """``(figure, ax)``: the given ``ax`` and its figure, or a new pyplot figure with one axes.

    Never clears anything: a Display draws on top of what the caller put there.
    """
    if ax is not None:
        return ax.figure, ax
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=figsize, layout="constrained")
    return figure, ax


def _flatten(axes) -> list:
    """Axes from a list, tuple or NumPy array of Axes (nested or not)."""
    import numpy as np

    return list(np.ravel(np.asarray(axes, dtype=object)))


def _require_displays(displays: Any, cls: type, where: str) -> list:
    if isinstance(displays, Display) or isinstance(displays, (str, bytes)) or not hasattr(displays, "__len__") \
            or len(displays) == 0:
        raise TypeError(f"{where} expects a non-empty list of {cls.__name__} objects, e.g. [a, b], got {displays!r}.")
    for d in displays:
        if not isinstance(d, cls):
            raise TypeError(f"{where} expects {cls.__name__} objects (made with {cls.__name__}.from_...), "
                            f"got {type(d).__name__}.")
    return list(displays)
