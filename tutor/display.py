"""The Display contract every picture in ``tutor`` follows (scikit-learn's, see CONTRIBUTING.md).

* ``Cls.from_*(data, ..., *, option=...)`` computes and returns a Display that
  has drawn nothing: at most two data arguments by position, every option by
  keyword. The constructor only stores numbers that were already computed.
* ``disp.plot(*, ax=None, title=None, ...)`` draws into ``ax`` (a new figure
  when ``None``) without clearing what is already there, sets ``ax_``,
  ``figure_`` and the artist attributes its class documents (one name, one
  type), and returns ``disp``. A second kind of picture is ``plot(kind=...)``.
* ``disp.replot(previous, ...)`` draws in place of ``previous``, a Display
  drawn before, with the same keyword options as ``plot``, and returns the
  artists that changed: the one redraw path of every explorer.
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

import functools
from typing import Any, Sequence

from .i18n import gettext as _


class Display:
    """Base class of every Display. Subclasses implement ``from_*`` and ``plot``.

    Every ``plot`` is recorded (see :class:`Drawing`): the Display knows which
    artists it added to the figure, so :meth:`replot` can take them away again
    without touching what the caller drew there.
    """

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        plot = cls.__dict__.get("plot")
        if plot is not None and not getattr(plot, "records_drawing", False):
            cls.plot = _recorded(plot)

    def plot(self, *, ax=None, title: str | None = None) -> "Display":  # pragma: no cover - abstract
        raise NotImplementedError

    def replot(self, previous: "Display", **options: Any) -> list:
        """Draw in place of ``previous``, a Display drawn before; return the artists that changed.

        ``options`` are this Display's ``plot`` options (``title=...``). When
        ``previous`` is of the same kind and its picture can take the new
        numbers, its artists are updated in place (:meth:`update_drawn`) and
        only the ones that changed are returned. Otherwise what ``previous``
        drew is removed, and this Display is drawn into the same axes with
        ``plot``; the axes are returned then (everything in them changed).
        Either way ``ax_`` is ``previous.ax_``, and what the caller drew
        there stays.

        >>> old = tutor.ShuffleDisplay.from_params(n_elements=10, buffer_size=2).plot()  # doctest: +SKIP
        >>> new = tutor.ShuffleDisplay.from_params(n_elements=10, buffer_size=5)          # doctest: +SKIP
        >>> new.replot(old)                                     # doctest: +SKIP
        [<matplotlib.collections.PathCollection ...>, <matplotlib.lines.Line2D ...>, ...]
        """
        drawing = _drawing_of(previous)
        if type(previous) is type(self):
            before = drawing.figure_artists()
            changed = self.update_drawn(previous, **options)
            if changed is not None:
                self._drawing = drawing.passed_on(before)
                return [artist for artist in changed if artist is not None]
        drawing.remove()
        for ax in drawing.target_axes:
            ax.relim()
            ax.set_autoscale_on(True)
        self.plot(ax=drawing.target, **options)
        return list(drawing.target_axes)

    def update_drawn(self, previous: "Display", **options: Any) -> list | None:
        """Change ``previous``'s artists to show this Display's numbers; return those that changed.

        Called by :meth:`replot` with a ``previous`` of the same class. It sets
        ``ax_``, ``figure_`` and the artist attributes as ``plot`` does. Return
        None when the picture cannot take the new numbers (another number of
        rows, say): ``replot`` then draws anew. This default always does.
        """
        return None

    def remove_drawn(self) -> None:
        """Take away every artist this Display's last ``plot`` added (nothing the caller drew)."""
        _drawing_of(self).remove()

    @classmethod
    def compare(cls, displays: Sequence["Display"], *, labels: Sequence[str] | None = None) -> "ComparisonDisplay":
        """Several Displays of this kind, drawn side by side by :meth:`ComparisonDisplay.plot`.

        ``displays`` are Displays already computed with ``from_*``; ``labels``
        (one per Display) become their titles.
        """
        return ComparisonDisplay(_require_displays(displays, cls, f"{cls.__name__}.compare"), labels=labels)


class Drawing:
    """What one ``plot`` added to a figure: its target (the ``ax`` it drew into) and its own artists.

    Own artists are the lines, patches, collections, texts, images, tables,
    legends and inset or twin axes that were not in the figure before the
    ``plot``; the axes it drew into are the target, not its own.
    """

    def __init__(self, figure, target, target_axes: list, artists: list):
        self.figure, self.target, self.target_axes, self.artists = figure, target, target_axes, artists

    @classmethod
    def of_plot(cls, display: "Display", ax, before: list) -> "Drawing":
        figure = display.figure_
        if ax is None:  # a new figure: the axes it made are the target
            target = display.axes_ if isinstance(getattr(display, "axes_", None), list) else display.ax_
        else:
            target = ax
        target_axes = [target] if hasattr(target, "plot") else _flatten(target)
        seen = {id(a) for a in before} | {id(a) for a in target_axes}
        return cls(figure, target, target_axes, [a for a in drawn_artists(figure) if id(a) not in seen])

    def figure_artists(self) -> list:
        return drawn_artists(self.figure)

    def passed_on(self, before: list) -> "Drawing":
        """This drawing after an update in place: its artists still drawn, and those the update added."""
        now = drawn_artists(self.figure)
        current, known = {id(a) for a in now}, {id(a) for a in before}
        kept = [a for a in self.artists if id(a) in current]
        return Drawing(self.figure, self.target, self.target_axes, kept + [a for a in now if id(a) not in known])

    def remove(self) -> None:
        for artist in self.artists:
            try:
                artist.remove()
            except (ValueError, NotImplementedError, AttributeError):  # gone already (the axes were cleared)
                pass
        self.artists = []


def drawn_artists(figure) -> list:
    """Everything plotting can add to ``figure``: axes, figure texts and legends, each axes' own artists."""
    found = [*figure.axes, *figure.texts, *figure.legends]
    todo = list(figure.axes)
    while todo:
        ax = todo.pop()
        found += [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images, *ax.tables, *ax.artists,
                  *ax.child_axes]
        legend = ax.get_legend()
        if legend is not None:
            found.append(legend)
        todo += ax.child_axes
    return found


def _recorded(plot):
    """Wrap a Display's ``plot`` so that it records its :class:`Drawing` on the Display."""

    @functools.wraps(plot)
    def recording_plot(self, *args, ax=None, **kwargs):
        before = drawn_artists(_figure_of(ax)) if ax is not None else []
        result = plot(self, *args, ax=ax, **kwargs)
        self._drawing = Drawing.of_plot(self, ax, before)
        return result

    recording_plot.records_drawing = True
    return recording_plot


def _figure_of(ax):
    first = ax if hasattr(ax, "plot") else _flatten(ax)[0]
    return first.figure


def _drawing_of(display) -> Drawing:
    drawing = getattr(display, "_drawing", None)
    if not isinstance(display, Display):
        raise TypeError(_("replot expects the Display drawn before (one you called plot() on), got {kind}.").format(
            kind=type(display).__name__))
    if drawing is None:
        raise ValueError(_("replot: this {kind} has not been drawn yet; call its plot() first, or plot() the new "
                           "Display instead.").format(kind=type(display).__name__))
    return drawing


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
                raise ValueError(_("compare: got {labels} labels for {displays} displays.").format(
                    labels=len(labels), displays=len(self.displays)))
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
                raise ValueError(_("ComparisonDisplay.plot needs {n} axes, one per display; got {axes}.").format(
                    n=n, axes=len(axes)))
            figure = axes[0].figure
        for k, (display, a) in enumerate(zip(self.displays, axes)):
            display.plot(ax=a, title=None if self.labels is None else self.labels[k])
        if title is not None:
            figure.suptitle(title)
        self.axes_, self.ax_, self.figure_ = axes[:n], axes[0], figure
        return self

    def update_drawn(self, previous: "ComparisonDisplay", *, title: str | None = None, ncols: int = 2) -> list | None:
        """Replot each Display over its counterpart in ``previous``; None when the two hold other kinds or counts."""
        pairs = list(zip(self.displays, previous.displays))
        if len(self.displays) != len(previous.displays) or any(type(a) is not type(b) for a, b in pairs):
            return None
        changed = []
        for k, (display, before) in enumerate(pairs):
            changed += display.replot(before, title=None if self.labels is None else self.labels[k])
        if title is not None:
            changed.append(previous.figure_.suptitle(title))
        self.axes_, self.ax_, self.figure_ = previous.axes_, previous.ax_, previous.figure_
        return changed


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
        raise TypeError(_("{where} expects a non-empty list of {cls} objects, e.g. [a, b], got {value}.").format(
            where=where, cls=cls.__name__, value=repr(displays)))
    for d in displays:
        if not isinstance(d, cls):
            raise TypeError(_("{where} expects {cls} objects (made with {cls}.from_...), got {kind}.").format(
                where=where, cls=cls.__name__, kind=type(d).__name__))
    return list(displays)
