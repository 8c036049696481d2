"""Lookahead: the pictures one key press away, drawn in the background before they are asked for.

After every change the explorer shows, a helper thread computes and draws the
states that a single key press can reach next (the next slider positions in the
direction just taken first, then the other way, then the other controls) into a
second, hidden figure of the same size, and keeps the PNGs. When the next key
press asks for one of them, the explorer shows the stored picture at once and
updates its own figure's artists only when someone looks at them.

Only pure explorers use it: their ``compute``, ``draw`` and ``describe`` must
depend on the values alone (the timeline explorer, which times real runs,
does not: a background run would disturb the one being timed).
"""
from __future__ import annotations

import copy
import threading
import weakref
from collections import OrderedDict
from typing import Any, NamedTuple

from ._canvas import ExplorerCanvas

#: One drawing at a time, whichever thread: matplotlib is not made for concurrent drawing.
DRAWING = threading.RLock()

#: Pictures kept per explorer (a few tens of kilobytes each).
MAX_FRAMES = 48

#: States drawn ahead after each change.
MAX_AHEAD = 6


class Frame(NamedTuple):
    """A state drawn ahead: its Display (not drawn in the explorer's figure yet), PNG and readout."""

    display: Any
    png: bytes
    readout: str


def neighbours(controls: dict, values: dict, last: tuple[str, int] | None) -> list[dict]:
    """The states one key press away from ``values``, the likeliest first.

    ``last`` is ``(name, direction)`` of the control changed last (direction
    +1 or -1): the next position the same way comes first.

    >>> import ipywidgets as w
    >>> controls = {"a": w.IntSlider(value=3, min=0, max=5), "b": w.Checkbox(value=False)}
    >>> [s["a"] for s in neighbours(controls, {"a": 3, "b": False}, ("a", -1))][:2]
    [2, 4]
    """
    order = list(controls)
    if last and last[0] in controls:
        order.remove(last[0])
        order.insert(0, last[0])
    states = []
    for name in order:
        forward = last[1] if last and last[0] == name else 1
        for value in _steps(controls[name], values[name], forward):
            states.append({**values, name: value})
    return states[:MAX_AHEAD]


def _steps(control, value, forward: int) -> list:
    if getattr(control, "disabled", False):
        return []
    if isinstance(value, bool):
        return [not value]
    options = getattr(control, "options", None)
    if options is not None and not hasattr(control, "step"):  # dropdowns and toggle buttons: the next options
        labels = [o[1] if isinstance(o, tuple) else o for o in options]
        if value not in labels:
            return []
        i = labels.index(value)
        return [labels[j] for j in (i + forward, i - forward) if 0 <= j < len(labels)]
    step, lo, hi = getattr(control, "step", None), getattr(control, "min", None), getattr(control, "max", None)
    if step is None or lo is None:
        return []
    if isinstance(value, tuple):  # a range slider: each end one step either way
        found = []
        for end in (0, 1):
            for d in (forward, -forward):
                moved = list(value)
                moved[end] += d * step
                if lo <= moved[0] <= moved[1] <= hi:
                    found.append(tuple(moved))
        return found
    return [v for v in (value + forward * step, value - forward * step) if lo <= v <= hi]


def _margins(figure) -> dict:
    p = figure.subplotpars
    return {"left": p.left, "right": p.right, "bottom": p.bottom, "top": p.top}


class Lookahead:
    """Draws the states one key press away in a helper thread and keeps their pictures.

    Parameters
    ----------
    explorer : Explorer
        Its ``_compute``, ``draw`` and ``_describe`` are used (held weakly).
    figsize, margins
        As the explorer's; the hidden figure follows the explorer's size.
    """

    def __init__(self, explorer, figsize: tuple[float, float], margins: dict | None = None):
        self._explorer = weakref.ref(explorer)
        self.canvas = ExplorerCanvas(figsize, margins)
        self.canvas.figure.add_subplot()
        self._frames: OrderedDict = OrderedDict()
        self._todo: list[tuple[tuple, dict]] = []
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._previous = None  # the Display drawn last in the hidden figure
        #: The first error the helper met, if any (it then stops drawing ahead).
        self.error: BaseException | None = None

    def get(self, key: tuple) -> Frame | None:
        with self._cond:
            frame = self._frames.get(key)
            if frame is not None:
                self._frames.move_to_end(key)
            return frame

    def put(self, key: tuple, frame: Frame) -> None:
        with self._cond:
            self._frames[key] = frame
            self._frames.move_to_end(key)
            while len(self._frames) > MAX_FRAMES:
                self._frames.popitem(last=False)

    def resize(self, width: int, height: int, dpr: float) -> None:
        """Follow the explorer's new size: the pictures kept so far no longer fit."""
        with DRAWING:
            self.canvas.set_size(width, height, dpr)
            self._previous = None
        with self._cond:
            self._frames.clear()

    def plan(self, states: list[tuple[tuple, dict]]) -> None:
        """Draw these ``(key, values)`` next, dropping what was planned before."""
        with self._cond:
            self._todo = [(k, v) for k, v in states if k not in self._frames]
            if self._todo and self._thread is None and self.error is None:
                self._thread = threading.Thread(target=self._run, name="tutor-lookahead", daemon=True)
                self._thread.start()

    def wait(self, timeout: float = 60.0) -> bool:
        """Block until everything planned is drawn (for tests); True when it finished in time."""
        with self._cond:
            return self._cond.wait_for(lambda: self._thread is None, timeout=timeout)

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    if not self._todo:
                        return
                    key, values = self._todo.pop(0)
                    if key in self._frames:
                        continue
                explorer = self._explorer()
                if explorer is None:
                    return
                frame = self._draw(explorer, values)
                if frame is not None:
                    self.put(key, frame)
                del explorer
        except Exception as exc:  # never take the kernel down for a picture nobody asked for yet
            self.error = exc
        finally:
            with self._cond:
                self._thread = None
                self._cond.notify_all()

    def _draw(self, explorer, values: dict) -> Frame | None:
        try:
            disp = explorer._compute(**values)
        except (ValueError, TypeError):  # a combination the pipeline refuses: the explorer will say so
            return None
        drawn = copy.copy(disp)  # the hidden figure's artists go on a copy; the explorer draws ``disp`` itself
        figure = self.canvas.figure
        with DRAWING:
            margins = _margins(explorer.canvas.figure)
            if _margins(figure) != margins:  # start from the explorer's margins, so both draw the same picture
                figure.subplots_adjust(**margins)
                self.canvas.invalidate()
            png = explorer._render_on(self.canvas, drawn, self._previous)
            self._previous = drawn
        return Frame(disp, png, explorer._describe(disp, values))
