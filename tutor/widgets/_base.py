"""The shared explorer widget: controls on top, a readout, and a figure redrawn in place."""
from __future__ import annotations

import io
import time
from typing import Any, Callable, Mapping

import ipywidgets as widgets

from .. import render, style


class Explorer(widgets.VBox):
    """Controls plus one matplotlib figure that is redrawn whenever a control changes.

    Parameters
    ----------
    controls : mapping of name -> ipywidgets control
        Their ``.value`` are passed to ``compute`` as keyword arguments.
    compute : callable
        ``compute(**values) -> Display``; runs the real pipeline.
    draw : callable, optional
        ``draw(display, figure, previous)``, where ``previous`` is the Display
        drawn last (None the first time). Defaults to ``display.plot(ax=...)``
        the first time and ``display.replot(previous)`` after that.
    describe : callable, optional
        ``describe(display, values) -> str`` (HTML) for the readout line.
    figsize : (float, float)
        Size of the figure in inches.

    Attributes
    ----------
    controls : dict
    display : the Display drawn last
    figure : matplotlib Figure that is reused for every redraw
    image : ipywidgets.Image holding the latest PNG
    readout : ipywidgets.HTML with the current values and numbers
    last_render_seconds : float
    """

    def __init__(
        self,
        controls: Mapping[str, widgets.Widget],
        compute: Callable[..., Any],
        *,
        draw: Callable[[Any, Any], None] | None = None,
        describe: Callable[[Any, dict], str] | None = None,
        figsize: tuple[float, float] = (7.5, 4.2),
        columns: int = 3,
        name: str = "explorer",
        margins: dict | None = None,
    ):
        self.name = name
        self.controls = dict(controls)
        self._compute = compute
        self._draw = draw or _default_draw
        self._describe = describe or (lambda disp, values: _format_values(values))
        self._defaults = {name: c.value for name, c in self.controls.items()}
        self._holding = False
        self.display = None
        self.error = None
        self.last_render_seconds = float("nan")
        self.figure = style.new_figure(*figsize, margins=margins)
        self.figure.add_subplot()
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.readout = widgets.HTML()
        self.reset_button = widgets.Button(description="reset", tooltip="Back to the starting values")
        self.reset_button.on_click(lambda _: self.reset())
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        items = list(self.controls.values())
        rows = [widgets.HBox(items[i : i + columns]) for i in range(0, len(items), columns)]
        super().__init__(rows + [widgets.HBox([self.reset_button, self.readout]), self.image])
        self.render()

    def __repr__(self) -> str:
        # Shown as plain text where widgets cannot render (e.g. on GitHub); keep it short and stable.
        return f"{self.name} (interactive: needs Jupyter with ipywidgets; the static figure above shows the same)"

    @property
    def values(self) -> dict[str, Any]:
        """The current value of every control."""
        return {name: c.value for name, c in self.controls.items()}

    def set(self, **values: Any) -> "Explorer":
        """Set several controls at once and redraw once."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise KeyError(f"Unknown control(s) {sorted(unknown)}; this explorer has {sorted(self.controls)}.")
        self._holding = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._holding = False
        self.render()
        return self

    def reset(self) -> "Explorer":
        """Return every control to its starting value and redraw."""
        return self.set(**self._defaults)

    def _on_change(self, _change=None) -> None:
        if not self._holding:
            self.render()

    def render(self) -> None:
        """Recompute the Display from the controls and redraw the figure."""
        start = time.perf_counter()
        values = self.values
        try:
            disp = self._compute(**values)
        except (ValueError, TypeError) as exc:  # a combination the pipeline refuses
            self.error = exc
            self.readout.value = render.error_line(exc)
            return
        self.error = None
        self._draw(disp, self.figure, self.display)
        png = _png(self.figure)
        self.display = disp
        self.image.value = png
        self.readout.value = self._describe(disp, values)
        self.last_render_seconds = time.perf_counter() - start


def _default_draw(disp, figure, previous) -> None:
    if previous is None:
        disp.plot(ax=figure.axes[0])
    else:
        disp.replot(previous)


def _png(figure) -> bytes:
    """Draw ``figure`` once and encode it as PNG.

    ``savefig`` draws a figure that has a layout engine twice (a dry run, then
    the real draw); one ``canvas.draw()`` runs the layout and renders once,
    which takes about a quarter off every explorer's answer.
    """
    canvas = figure.canvas
    buffer = io.BytesIO()
    if not hasattr(canvas, "buffer_rgba"):  # not an Agg canvas: let matplotlib do it
        figure.savefig(buffer, format="png")
        return buffer.getvalue()
    import numpy as np
    from PIL import Image

    canvas.draw()
    Image.fromarray(np.asarray(canvas.buffer_rgba())).save(buffer, format="png", compress_level=3)
    return buffer.getvalue()


def _format_values(values: Mapping[str, Any]) -> str:
    parts = [render.code(f"{k}={v!r}") for k, v in values.items()]
    return " &nbsp; ".join(parts)


def int_slider(value: int, lo: int, hi: int, description: str, step: int = 1) -> widgets.IntSlider:
    """An IntSlider that redraws on release and shows its name in full."""
    return widgets.IntSlider(
        value=value,
        min=lo,
        max=hi,
        step=step,
        description=description,
        continuous_update=False,
        style={"description_width": "initial"},
    )
