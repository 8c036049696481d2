"""TimelineDisplay: a Gantt chart of a pipeline, one row per stage plus the consumer."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import style
from .._validate import require_choice
from ..display import Display, new_axes
from .events import CONSUMER, Timeline

#: Colour of the consumer's waiting time.
IDLE_COLOUR = "#BBBBBB"


def assign_lanes(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Give overlapping bars different lanes (0, 1, ...) so parallel work is visible.

    >>> assign_lanes(np.array([0.0, 0.5, 2.0]), np.array([1.0, 1.5, 3.0])).tolist()
    [0, 1, 0]
    """
    lanes = np.zeros(len(starts), dtype=np.int64)
    free_at: list[float] = []
    for j in np.argsort(starts, kind="stable"):
        for lane, t in enumerate(free_at):
            if t <= starts[j] + 1e-9:
                free_at[lane] = ends[j]
                lanes[j] = lane
                break
        else:
            free_at.append(ends[j])
            lanes[j] = len(free_at) - 1
    return lanes


class TimelineDisplay(Display):
    """One or more timelines drawn on one shared time axis.

    Parameters
    ----------
    timelines : list of Timeline
    labels : list of str
        One per timeline (a simulated timeline is always marked "model").

    Attributes (after :meth:`plot`)
    ----------
    ax_, figure_ : the Axes and Figure
    bars_ : dict ``(timeline index, row name) -> list of Rectangle``
    idle_ : list of Rectangle, the consumer's waiting time (shaded grey)
    rows_ : list of ``(timeline index, row name, y)``

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
            raise ValueError(f"TimelineDisplay: got {len(labels)} labels for {len(self.timelines)} timelines.")
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
            raise TypeError("TimelineDisplay.compare expects a list of Timeline objects, e.g. [naive, fast].")
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
             figsize: tuple[float, float] | None = None) -> "TimelineDisplay":
        """Draw the Gantt chart; returns ``self``.

        ``color_by="step"`` colours each bar by the consumer step that used its
        element (the same colour across rows is the same data); ``"epoch"``
        colours by epoch.
        """
        require_choice(color_by, "color_by", "TimelineDisplay.plot", ("step", "epoch"))
        n_rows = sum(len(tl.stages) + 1 for tl in self.timelines)
        fig, ax = new_axes(ax, figsize or (9, 1.0 + 0.55 * n_rows + 0.3 * len(self.timelines)))
        self.ax_, self.figure_ = ax, fig
        self.bars_, self.idle_, self.rows_ = {}, [], []
        epochs = max([int(tl.events["epoch"].max()) + 1 if len(tl.events) else 1 for tl in self.timelines])
        y, ticks, ticklabels = 0.0, [], []
        for t, (tl, label) in enumerate(zip(self.timelines, self.labels)):
            if t:
                ax.axhline(y - 0.25, color="black", linewidth=0.8)
            block_top = y
            for row in [*tl.stages, CONSUMER]:
                height = self._draw_row(ax, t, tl, row, y, color_by, epochs)
                ticks.append(y + height / 2)
                ticklabels.append("consumer (train step)" if row == CONSUMER else row)
                self.rows_.append((t, row, y))
                y += height + 0.25
            if len(self.timelines) > 1 or label:
                ax.text(1.005, (block_top + y - 0.25) / 2, f"{label}\n{tl.total_time:.2f} s",
                        transform=ax.get_yaxis_transform(), va="center", ha="left", fontsize="small")
            ax.plot([tl.total_time] * 2, [block_top - 0.1, y - 0.35], color="black", linewidth=1.2)
        ax.set_ylim(y, -0.35)
        ax.set_yticks(ticks)
        ax.set_yticklabels(ticklabels)
        ax.set_xlim(0, max(self.total_times + [1e-3]) * 1.02)
        ax.set_xlabel("time since the iterator was created (s)")
        ax.set_ylabel("stage")
        if title is None:
            title = ("Which rows are busy, and how long does the consumer wait (grey)?" if len(self.timelines) > 1
                     else "Who is busy when? Grey = the consumer waits for input")
        ax.set_title(title)
        return self

    def _draw_row(self, ax, t: int, tl: Timeline, row: str, y: float, color_by: str, epochs: int) -> float:
        events = tl.stage_events(row)
        starts, ends = events["start"], events["end"]
        lanes = assign_lanes(starts, ends) if len(events) else np.zeros(0, dtype=int)
        n_lanes = int(lanes.max()) + 1 if len(lanes) else 1
        height = 0.8 if n_lanes == 1 else min(0.8 * n_lanes, 2.0)
        lane_h = height / n_lanes
        if color_by == "epoch":
            cmap = style_colormap()
            colours = [cmap(0.85 * e / max(epochs - 1, 1)) for e in events["epoch"]]  # no pale yellow
        else:
            colours = [style.color(s % (len(style.OKABE_ITO) - 1)) for s in events["step"]]
        widths = np.maximum(ends - starts, 0.0)
        bars = ax.barh(y + lanes * lane_h + lane_h / 2, widths, left=starts, height=lane_h * 0.9,
                       color=colours, edgecolor="white", linewidth=0.3 if len(events) <= 60 else 0.0)
        self.bars_[(t, row)] = list(bars.patches)
        if row == CONSUMER:
            waits = tl.steps
            gaps = np.maximum(waits["start"] - waits["request"], 0.0)
            idle = ax.barh(np.full(len(gaps), y + height / 2), gaps, left=waits["request"], height=height,
                           color=IDLE_COLOUR, hatch="//", edgecolor="white", linewidth=0)
            self.idle_.extend(idle.patches)
        return height


def style_colormap():
    """viridis, looked up the current matplotlib way (``matplotlib.cm.get_cmap`` is gone)."""
    import matplotlib

    return matplotlib.colormaps["viridis"]


def _require_timeline(obj, where: str) -> None:
    if not isinstance(obj, Timeline):
        raise TypeError(f"{where} expects a Timeline from tutor.timeline.record(...) or simulate(...), "
                        f"got {type(obj).__name__}.")
