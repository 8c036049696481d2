"""TimelineDisplay: a Gantt chart of a pipeline, one row per stage plus the consumer."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import style
from .._validate import require_choice, require_seconds
from ..display import Display, new_axes
from ..i18n import N_
from ..i18n import gettext as _
from .events import Timeline
from .intervals import assign_lanes
from .schema import CONSUMER

#: Colour of the consumer's waiting time.
IDLE_COLOUR = "#BBBBBB"
#: Opacity of the calls of a stage that also has function runs: they mostly wait for its buffer.
CALL_ALPHA = 0.4
#: Names of the two sub-rows of such a stage, as the tick labels say them after the stage's name (``row_parts``),
#: and the room between them (y units; a lane is at most 0.8).
# Translators: a tick label of the timeline: the workers running a stage's function ({stage} is the stage's name).
RUNS = N_("{stage}: function runs")
# Translators: a tick label of the timeline: the calls that asked the stage {stage} for an element.
CALLS = N_("{stage}: calls")
SUBROW_GAP = 0.1


class TimelineDisplay(Display):
    """One or more timelines drawn on one shared time axis.

    Each stage is a row, from the source at the top to the consumer at the
    bottom; a bar is one event (a call, or a piece of work), coloured by the
    consumer step that used its element (or by epoch). Events that overlap in
    time (parallel workers) are spread over lanes, so the number of lanes shows
    how many ran at once. In a profiled timeline an asynchronous stage (a
    parallel ``map``, ``MapAndBatch``, ...) has two kinds of events
    (:attr:`Timeline.function_run`), drawn on two sub-rows: **function runs**,
    the workers running its function, in solid colours, one lane per run in
    progress at once; and below them **calls**, pale, the ``GetNext`` calls
    that asked the stage for an element and waited for one to be ready in its
    buffer. Grey hatching in the consumer row is the consumer waiting for input.

    Each row is drawn as one collection, so timelines with thousands of
    events draw in a fraction of a second.

    Parameters
    ----------
    timelines : list of Timeline
    labels : list of str
        One per timeline (a simulated timeline is always marked "model").

    Attributes (after :meth:`plot`)
    ----------
    ax_, figure_ : the Axes and Figure
    bars_ : dict ``(timeline index, row name) -> PolyCollection``
        One polygon per event of the row, in the order of ``Timeline.stage_events(row)``.
    idle_ : list of PolyCollection
        One per timeline: the consumer's waits for input (grey, hatched), one polygon per step.
    rows_ : list of ``(timeline index, row name, y)``
        ``y`` is the top of the row (the y axis points down).

    Examples
    --------
    >>> from tutor.timeline import simulate
    >>> disp = TimelineDisplay.from_timeline(simulate([("map", 0.02)], step_time=0.01, steps=4))
    >>> disp.labels
    ['model']
    """

    def __init__(self, timelines: Sequence[Timeline], *, labels: Sequence[str] | None = None):
        self.timelines = list(timelines)
        if labels is None:
            labels = [tl.label for tl in self.timelines]
        if len(labels) != len(self.timelines):
            raise ValueError(_("TimelineDisplay: got {labels} labels for {timelines} timelines.").format(
                labels=len(labels), timelines=len(self.timelines)))
        self.labels = [self._label(str(lab), tl) for lab, tl in zip(labels, self.timelines)]
        self.total_times = [tl.total_time for tl in self.timelines]
        self.wait_fractions = [tl.consumer_wait_fraction for tl in self.timelines]

    @staticmethod
    def _label(label: str, tl: Timeline) -> str:
        if tl.model and "model" not in label:
            return f"{label} (model)" if label else "model"
        return label

    @classmethod
    def from_timeline(cls, timeline: Timeline, *, label: str | None = None) -> "TimelineDisplay":
        """A display of one timeline (it does not draw; call :meth:`plot`)."""
        _require_timeline(timeline, "TimelineDisplay.from_timeline")
        return cls([timeline], labels=[timeline.label if label is None else label])

    @classmethod
    def compare(cls, displays: Sequence, *, labels: Sequence[str] | None = None) -> "TimelineDisplay":
        """Several timelines stacked on one shared time axis, for comparing pipelines; draws on :meth:`plot`.

        ``displays`` are TimelineDisplays or the Timelines themselves
        (``record(...)``, ``simulate(...)``, ``tutor.profile(...)``).
        """
        if isinstance(displays, (Timeline, TimelineDisplay)) or not hasattr(displays, "__len__") or not len(displays):
            raise TypeError(_("TimelineDisplay.compare expects a list of Timeline objects, e.g. [naive, fast]."))
        timelines, own_labels = [], []
        for item in displays:
            if isinstance(item, TimelineDisplay):
                timelines.extend(item.timelines)
                own_labels.extend(item.labels)
            else:
                _require_timeline(item, "TimelineDisplay.compare")
                timelines.append(item)
                own_labels.append(item.label)
        return cls(timelines, labels=own_labels if labels is None else labels)

    # -------------------------------------------------------------------- draw
    def plot(self, *, ax=None, title: str | None = None, color_by: str = "step",
             figsize: tuple[float, float] | None = None, time_limit: float | None = None) -> "TimelineDisplay":
        """Draw the Gantt chart; returns ``self``.

        ``time_limit``: the right end of the time axis in seconds (default: the
        longest timeline plus 2%); a fixed one lets several runs be compared.

        ``color_by="step"`` colours each bar by the consumer step that used its
        element (the same colour across rows is the same data); ``"epoch"``
        colours by epoch, and raises ValueError for a profiled timeline that
        cannot tell epochs apart (:attr:`Timeline.epochs_known`), rather than
        draw one colour that would read as "one epoch".
        """
        from matplotlib.collections import PolyCollection

        require_choice(color_by, "color_by", "TimelineDisplay.plot", ("step", "epoch"))
        if time_limit is not None:
            time_limit = require_seconds(time_limit, "time_limit", "TimelineDisplay.plot")
            if time_limit == 0:
                raise ValueError(_("TimelineDisplay.plot: time_limit must be more than 0 seconds (or None: fit the "
                                   "runs)."))
        if color_by == "epoch":
            _require_epochs(self.timelines, self.labels)
        layouts = [[row_parts(tl, row) for row in [*tl.stages, CONSUMER]] for tl in self.timelines]
        n_rows = sum(len(parts.labels) for rows in layouts for parts in rows)
        fig, ax = new_axes(ax, figsize or (9, 1.0 + 0.55 * n_rows + 0.3 * len(self.timelines)))
        self.ax_, self.figure_ = ax, fig
        self.bars_, self.idle_, self.rows_ = {}, [], []
        epochs = max([int(tl.events["epoch"].max()) + 1 if len(tl.events) else 1 for tl in self.timelines])
        y, ticks, ticklabels = 0.0, [], []
        for t, (tl, label, rows) in enumerate(zip(self.timelines, self.labels, layouts)):
            if t:
                ax.axhline(y - 0.25, color="black", linewidth=0.8)
            block_top = y
            for row, parts in zip([*tl.stages, CONSUMER], rows):
                colours = _colours(tl.events[parts.index], color_by, epochs)
                colours[parts.calls, 3] *= CALL_ALPHA
                bars = PolyCollection(parts.boxes(y), facecolors=colours, edgecolors="white",
                                      linewidths=0.3 if len(parts.index) <= 60 else 0.0)
                ax.add_collection(bars, autolim=False)
                self.bars_[(t, row)] = bars
                for centre, text in parts.ticks(y):
                    ticks.append(centre)
                    ticklabels.append(text)
                if row == CONSUMER:
                    self.idle_.append(self._draw_idle(ax, tl, y, parts.height))
                self.rows_.append((t, row, y))
                y += parts.height + 0.25
            if len(self.timelines) > 1 or label:
                ax.text(1.005, (block_top + y - 0.25) / 2, f"{shown_label(label)}\n{tl.total_time:.2f} s",
                        transform=ax.get_yaxis_transform(), va="center", ha="left", fontsize="small")
            ax.plot([tl.total_time] * 2, [block_top - 0.1, y - 0.35], color="black", linewidth=1.2)
        ax.set_ylim(y, -0.35)
        ax.set_yticks(ticks)
        ax.set_yticklabels(ticklabels)
        right = max(self.total_times + [1e-3]) * 1.02 if time_limit is None else time_limit
        ax.set_xlim(0, right)
        ax.set_xlabel(_("time since the iterator was created (s)"))
        # Translators: y axis label of a timeline: each row is a stage of the pipeline.
        ax.set_ylabel(_("stage"))
        if title is None:
            title = (_("Which rows are busy, and how long does the consumer wait (grey)?") if len(self.timelines) > 1
                     else _("Who is busy when? Grey = the consumer waits for input"))
        ax.set_title(title)
        if color_by == "epoch":  # a key of the epoch colours (ax.get_legend()), epoch 1 being the first pass
            self._epoch_key(ax, epochs)
        self._layout = (y, tuple(ticks), tuple(ticklabels), right, title)
        return self

    @staticmethod
    def _epoch_key(ax, epochs: int) -> None:
        """The key of the epoch colours, outside the axes at the top right (the run labels sit lower, by their rows)."""
        from matplotlib.patches import Patch

        shown = list(range(epochs)) if epochs <= 6 else [0, 1, 2, epochs - 1]
        # Translators: the key of epoch colours; epoch 1 is the first pass over the data.
        labels = [_("{epoch} (first pass)").format(epoch=1) if e == 0 else str(e + 1) for e in shown]
        handles = [Patch(facecolor=style_colormap()(0.85 * e / max(epochs - 1, 1)), edgecolor="white", label=label)
                   for e, label in zip(shown, labels)]
        # Translators: the title of the key of epoch colours (one pass over the data is an epoch).
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), frameon=False, fontsize="small",
                  title=_("epoch"), title_fontsize="small", borderaxespad=0.0)

    def update_drawn(self, previous: "TimelineDisplay", **options) -> list | None:
        """Take away ``previous``'s bars and draw these in the same axes (see :meth:`Display.replot`).

        Removing one run's artists costs far less than clearing the axes. When
        the rows, their lanes, the time axis and the title stay as they were,
        only the new bars, waits and labels changed and are returned; otherwise
        the axes (everything changed). None (draw anew) for another number of
        timelines.
        """
        if len(previous.timelines) != len(self.timelines):
            return None
        ax = previous.ax_
        previous.remove_drawn()
        self.plot(ax=ax, **options)
        if self._layout != previous._layout:
            return [ax]
        return list(self._drawing.artists)  # what this plot added: bars, waits, end lines, labels

    @staticmethod
    def _draw_idle(ax, tl: Timeline, y: float, height: float):
        from matplotlib.collections import PolyCollection

        waits = tl.steps
        gaps = np.maximum(waits["start"] - waits["request"], 0.0)
        idle = PolyCollection(_rectangles(waits["request"], gaps, np.full(len(gaps), y), height),
                              facecolors=IDLE_COLOUR, edgecolors="white", linewidths=0, hatch="//")
        ax.add_collection(idle, autolim=False)
        return idle


class RowParts:
    """Where the bars of one row go: lanes, and the sub-rows of a stage with both calls and function runs.

    ``index`` are the row's event numbers (in :attr:`Timeline.events` order),
    ``calls`` marks those drawn pale (calls of a stage that also has function
    runs), ``height`` is the row's height in y units.
    """

    def __init__(self, index: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 parts: list[tuple[str, np.ndarray, bool]]):
        self.index, self.starts, self.ends = index, starts, ends
        self.calls = np.zeros(len(index), dtype=bool)
        self.offset = np.zeros(len(index))  # the bar's top, below the row's top
        self.lane_height = np.zeros(len(index))
        self.labels: list[tuple[float, str]] = []  # (centre below the row's top, tick label)
        top = 0.0
        for label, mask, calls in parts:
            sel = np.flatnonzero(mask)
            lanes = assign_lanes(starts[sel], ends[sel]) if len(sel) else np.zeros(0, dtype=np.int64)
            n_lanes = int(lanes.max()) + 1 if len(lanes) else 1
            height = 0.8 if n_lanes == 1 else min(0.8 * n_lanes, 2.0)
            lane_h = height / n_lanes
            self.offset[sel] = top + lanes * lane_h + lane_h * 0.05
            self.lane_height[sel] = lane_h * 0.9
            self.calls[sel] = calls
            self.labels.append((top + height / 2, label))
            top += height + SUBROW_GAP
        self.height = top - SUBROW_GAP

    def boxes(self, y: float) -> np.ndarray:
        """The bars as polygons, ``(n, 4, 2)``, for a row whose top is at ``y``."""
        return _rectangles(self.starts, np.maximum(self.ends - self.starts, 0.0), y + self.offset, self.lane_height)

    def ticks(self, y: float) -> list[tuple[float, str]]:
        return [(y + centre, label) for centre, label in self.labels]


def row_parts(tl: Timeline, row: str) -> RowParts:
    """The layout of ``row`` of ``tl``: one part, or function runs above calls (see :class:`TimelineDisplay`)."""
    index = np.flatnonzero(tl.events["stage"] == row)
    events = tl.events[index]
    runs = tl.function_run[index]
    # Translators: the tick label of the timeline's last row: the training loop that consumes the elements.
    title = _("consumer (train step)") if row == CONSUMER else row
    if runs.any() and not runs.all():
        parts = [(_(RUNS).format(stage=title), runs, False), (_(CALLS).format(stage=title), ~runs, True)]
    else:
        parts = [(title, np.ones(len(index), dtype=bool), False)]
    return RowParts(index, events["start"].astype(float), events["end"].astype(float), parts)


def shown_label(label: str) -> str:
    """A run's label as the picture shows it: "model" (a simulated run) in the current language.

    :attr:`TimelineDisplay.labels` stay as they were made ("fast (model)"), so code can compare them.

    >>> shown_label("fast (model)"), shown_label("model"), shown_label("fast")
    ('fast (model)', 'model', 'fast')
    """
    if label == "model":
        # Translators: the label of a simulated timeline (made by tutor.timeline.simulate, not measured).
        return _("model")
    if label.endswith(" (model)"):
        # Translators: the label of a simulated timeline: {label} is its own name, then "model" as above.
        return _("{label} (model)").format(label=label[: -len(" (model)")])
    return label


def _rectangles(lefts, widths, tops, heights) -> np.ndarray:
    """Axis-aligned rectangles as polygons, ``(n, 4, 2)``: no Python loop, however many."""
    lefts, widths = np.asarray(lefts, dtype=float), np.asarray(widths, dtype=float)
    tops = np.broadcast_to(np.asarray(tops, dtype=float), lefts.shape)
    bottoms = tops + np.broadcast_to(np.asarray(heights, dtype=float), lefts.shape)
    rights = lefts + widths
    xs = np.stack([lefts, rights, rights, lefts], axis=1)
    ys = np.stack([tops, tops, bottoms, bottoms], axis=1)
    return np.stack([xs, ys], axis=2)


def _colours(events: np.ndarray, color_by: str, epochs: int) -> np.ndarray:
    """RGBA per event: the step's Okabe-Ito colour, or viridis by epoch (stopping short of its pale yellow)."""
    from matplotlib.colors import to_rgba_array

    if color_by == "epoch":
        return np.array(style_colormap()(0.85 * events["epoch"] / max(epochs - 1, 1)), dtype=float).reshape(-1, 4)
    palette = to_rgba_array([style.color(k) for k in range(len(style.OKABE_ITO) - 1)])
    return palette[np.mod(events["step"], len(palette))].copy()


def _require_epochs(timelines: Sequence[Timeline], labels: Sequence[str]) -> None:
    for tl, label in zip(timelines, labels):
        if not tl.epochs_known:
            raise ValueError(_(
                "TimelineDisplay.plot: color_by='epoch' needs each event's epoch, and the timeline {label} cannot "
                "tell them apart: {why}. Or colour by step (color_by='step', the default)."
            ).format(label=repr(label or tl.label or "given"), why=tl.meta["epochs_unknown"]))


def style_colormap():
    """viridis, looked up the current matplotlib way (``matplotlib.cm.get_cmap`` is gone)."""
    import matplotlib

    return matplotlib.colormaps["viridis"]


def _require_timeline(obj, where: str) -> None:
    if not isinstance(obj, Timeline):
        raise TypeError(_("{where} expects a Timeline from tutor.timeline.record(...) or simulate(...), got "
                          "{kind}.").format(where=where, kind=type(obj).__name__))
