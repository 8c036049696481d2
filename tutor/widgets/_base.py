"""The shared explorer widget: a compact control panel beside a picture drawn at the size it is shown."""
from __future__ import annotations

import time
from typing import Any, Callable, Mapping

import ipywidgets as widgets
from matplotlib.axes import Axes

from .. import markup, style
from ..i18n import get_language
from ..i18n import gettext as _
from . import _frontend, _static
from ._ahead import DRAWING, Frame, Lookahead, neighbours
from ._canvas import ExplorerCanvas

#: Width of the control panel, in CSS pixels (presentation mode zooms it).
PANEL_WIDTH = 270


class Explorer(_static.StaticFallback, widgets.Box):
    """Controls beside one matplotlib figure that is redrawn whenever a control changes.

    The picture is drawn at the size the browser shows it at, times the
    screen's device pixel ratio (the page tells the kernel, see
    :mod:`tutor.widgets._frontend`), so it is never stretched; its aspect ratio
    is ``figsize``'s. The controls and the readout sit in a narrow panel on the
    left; where the output is too narrow for both, the picture moves below.

    Parameters
    ----------
    controls : mapping of name -> ipywidgets control
        Their ``.value`` are passed to ``compute`` as keyword arguments.
    compute : callable
        ``compute(**values) -> Display``; runs the real pipeline.
    options : callable, optional
        ``options(display, previous) -> dict``: the keyword options of the
        Display's ``plot`` (``title=...``), where ``previous`` is the Display
        drawn last in that figure (None the first time and after a resize).
        The explorer draws the first Display with ``plot(ax=..., **options)``
        and every later one with ``replot(previous, **options)``, the one
        redraw path: only the artists ``replot`` reports as changed are drawn
        again, the rest of the picture comes from the previous frame.
    axes : callable, optional
        ``axes(figure, display)``: what the first ``plot`` draws into (the
        figure's one Axes by default; the augmentation grid makes its own).
    describe : callable, optional
        ``describe(display, values) -> str`` (HTML) for the readout.
    figsize : (float, float)
        Preferred size in inches (96 CSS pixels each); its aspect ratio is kept.
    name : str
        Shown where widgets cannot render.
    margins : dict, optional
        Starting subplot margins; they are fitted to the drawn labels.
    precompute : bool
        Draw the states one key press away in the background while the
        explorer is shown (see :mod:`tutor.widgets._ahead`), so that the next
        key press finds its picture ready. Only for explorers whose
        ``compute``, ``options`` and ``describe`` depend on the values alone.

    Attributes
    ----------
    controls : dict
    display : the Display shown (drawn into ``figure`` when you look at it)
    figure : matplotlib Figure that is reused for every redraw
    image : ipywidgets.Image holding the latest PNG
    readout : ipywidgets.HTML with the current values and numbers
    buttons : ipywidgets.HBox holding ``reset_button`` (explorers may add more)
    last_render_seconds : float
        Kernel time of the last change: computing and drawing, or showing a picture drawn ahead.
    last_source : str
        ``"drawn"`` or ``"ahead"``: where the last picture came from.
    """

    def __init__(
        self,
        controls: Mapping[str, widgets.Widget],
        compute: Callable[..., Any],
        *,
        options: Callable[[Any, Any], dict] | None = None,
        axes: Callable[[Any, Any], Any] | None = None,
        describe: Callable[[Any, dict], str] | None = None,
        figsize: tuple[float, float] = (7.5, 4.2),
        name: str = "explorer",
        margins: dict | None = None,
        precompute: bool = False,
    ):
        self.name = name
        self.controls = dict(controls)
        self._compute = compute
        self._options = options or (lambda disp, previous: {})
        self._axes = axes or (lambda figure, disp: figure.axes[0])
        self._describe = describe or (lambda disp, values: _format_values(values))
        self._defaults = {key: c.value for key, c in self.controls.items()}
        self._holding = False
        self._drawn = None  # the Display drawn last into the figure
        self._current = None  # the Display shown (maybe drawn ahead, not yet into the figure)
        self._current_values: dict = {}
        self._last_change: tuple[str, int] | None = None
        self._shown = False  # set once the page reports where the explorer is shown
        self.error = None
        self.last_render_seconds = float("nan")
        self.last_source = "drawn"
        self.canvas = ExplorerCanvas(figsize, margins)
        self.canvas.figure.add_subplot()
        self.lookahead = Lookahead(self, figsize, margins) if precompute else None
        self.image = widgets.Image(format="png", layout=widgets.Layout(height="auto", max_width="100%", margin="0"))
        self.readout = widgets.HTML()
        # Translators: a button that puts every control back to its starting value.
        self.reset_button = widgets.Button(description=_("reset"), tooltip=_("Back to the starting values"),
                                           layout=widgets.Layout(width="auto"))
        self.reset_button.on_click(lambda _button: self.reset())
        self.buttons = widgets.HBox([self.reset_button])
        for control in self.controls.values():
            _compact(control)
            control.observe(self._on_change, names="value")
        panel = widgets.VBox([*self.controls.values(), self.buttons, self.readout],
                             layout=widgets.Layout(width=f"{PANEL_WIDTH}px", flex="0 0 auto", margin="0 12px 6px 0",
                                                   overflow="visible"))
        panel.add_class(_frontend.PANEL_CLASS)
        picture = widgets.Box([self.image], layout=widgets.Layout(flex="1 1 360px", min_width="0",
                                                                   overflow="visible", align_items="flex-start"))
        picture.add_class(_frontend.PICTURE_CLASS)
        self._size = widgets.Text(value="", layout=widgets.Layout(display="none"))
        self._size.add_class(_frontend.SIZE_CLASS)
        self._size.observe(self._on_size, names="value")
        probe = widgets.HTML(value=_frontend.probe_html(style.PRESENTATION_SCALE), layout=widgets.Layout(display="none"))
        super().__init__([panel, picture, self._size, probe],
                         layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start", overflow="visible"))
        self.add_class(_frontend.ROOT_CLASS)
        if style.is_presentation():
            self.add_class(_frontend.PRESENTING_CLASS)
        self.refresh()

    def __repr__(self) -> str:
        # Where widgets do not render, the display bundle also holds a picture and this sentence (see _static.py).
        return _static.plain_text(self.name)

    @property
    def display(self):
        """The Display shown, drawn into :attr:`figure`."""
        self._sync()
        return self._current

    @property
    def figure(self):
        """The matplotlib Figure the explorer draws into, up to date with :attr:`display`."""
        self._sync()
        return self.canvas.figure

    @property
    def values(self) -> dict[str, Any]:
        """The current value of every control."""
        return {key: c.value for key, c in self.controls.items()}

    def set(self, **values: Any) -> "Explorer":
        """Set several controls at once and redraw once."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise KeyError(_("Unknown control(s) {unknown}; this explorer has {controls}.").format(
                unknown=sorted(unknown), controls=sorted(self.controls)))
        self._holding = True
        try:
            for key, value in values.items():
                self.controls[key].value = value
        finally:
            self._holding = False
        self.refresh()
        return self

    def reset(self) -> "Explorer":
        """Return every control to its starting value and redraw."""
        return self.set(**self._defaults)

    def resize(self, width: int, height: int = 0, dpr: float = 1.0) -> "Explorer":
        """Fit the picture into ``width`` x ``height`` CSS pixels (0: any height) at ``dpr`` device pixels each.

        The page calls this through the hidden size field whenever the
        picture's room changes; tests call it directly.
        """
        with DRAWING:
            changed = self.canvas.set_size(int(width), int(height), float(dpr))
        if changed:
            if self.lookahead is not None:
                self.lookahead.resize(int(width), int(height), float(dpr))
            self._drawn = None  # draw afresh at the new size
            if self._current is None:
                self.refresh()
            else:  # same numbers, new size: no need to run the pipeline again
                self._paint(self._current, self._current_values)
                self._plan()
        return self

    def _on_size(self, change) -> None:
        size = _frontend.parse_size(change["new"])
        if size is not None:
            self._shown = True
            self.resize(*size)
            self._plan()

    def _on_change(self, change=None) -> None:
        if change is not None:
            name = next((k for k, c in self.controls.items() if c is change["owner"]), None)
            self._last_change = (name, _direction(change["old"], change["new"]))
        if not self._holding:
            self.refresh()

    def refresh(self) -> None:
        """Recompute the Display from the controls and redraw the figure (or show the picture drawn ahead)."""
        start = time.perf_counter()
        values = self.values
        key = self._key(values)
        frame = self.lookahead.get(key) if self.lookahead is not None and key is not None else None
        if frame is not None:
            self.error = None
            self._current, self._current_values = frame.display, values
            self._show(frame.png, frame.readout)
            self.last_source = "ahead"
        else:
            try:
                disp = self._compute(**values)
            except (ValueError, TypeError) as exc:  # a combination the pipeline refuses
                self.error = exc
                self.readout.value = markup.error_line(exc)
                return
            self.error = None
            png, readout = self._paint(disp, values)
            self.last_source = "drawn"
            if self.lookahead is not None and key is not None:
                self.lookahead.put(key, Frame(disp, png, readout))
        self.last_render_seconds = time.perf_counter() - start
        self._plan()


    def draw(self, disp, figure, previous) -> list | None:
        """Draw ``disp`` into ``figure`` over ``previous``, the Display drawn there last; return what changed.

        The first time (``previous`` None) the figure's axes are cleared and
        ``disp`` is plotted: None, everything changed. After that,
        ``disp.replot(previous)``: the artists that changed.
        """
        if previous is None:
            for ax in figure.axes:
                ax.clear()
            disp.plot(ax=self._axes(figure, disp), **self._options(disp, None))
            return None
        return disp.replot(previous, **self._options(disp, previous))

    def _render_on(self, canvas, disp, previous):
        """Draw ``disp`` on ``canvas``'s figure over ``previous`` (None: from clear axes); returns the PNG.

        Only the artists that changed are rendered again; a changed Axes (or a first draw) means all of them.
        """
        changed = self.draw(disp, canvas.figure, previous)
        full = changed is None or any(isinstance(a, Axes) for a in changed)
        return canvas.png(None if full else changed)

    def _paint(self, disp, values: dict) -> tuple[bytes, str]:
        """Draw ``disp`` (computed from ``values``) into the figure and show it."""
        with DRAWING:
            png = self._render_on(self.canvas, disp, self._drawn)
        self._drawn = self._current = disp
        self._current_values = values
        readout = self._describe(disp, values)
        self._show(png, readout)
        return png, readout

    def _show(self, png: bytes, readout: str) -> None:
        self.image.value = png
        self.image.layout.width = f"{self.canvas.css_width}px"  # after the new picture: never shown stretched
        self.readout.value = readout

    def _sync(self) -> None:
        """Draw the Display shown into the figure, when its picture was drawn ahead in the hidden one."""
        if self._current is None or self._current is self._drawn:
            return
        figure = self.canvas.figure
        with DRAWING:
            self.draw(self._current, figure, self._drawn)
            self.canvas.invalidate()  # the artists changed without being drawn: the next frame is drawn in full
        self._drawn = self._current

    def _key(self, values: dict):
        """What a stored picture must match: the values, the picture's size, presentation mode and the language."""
        key = (tuple(sorted(values.items())), self.canvas.css_width, self.canvas.dpr, style.is_presentation(),
               get_language())
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _plan(self) -> None:
        """Ask the lookahead to draw the states one key press away (only while the explorer is shown)."""
        if self.lookahead is None or not self._shown or self.error is not None:
            return
        states = neighbours(self.controls, self.values, self._last_change)
        self.lookahead.plan([(k, s) for s in states for k in [self._key(s)] if k is not None])


def _direction(old, new) -> int:
    """+1 or -1: which way a control moved (sums for range sliders; +1 for anything else)."""
    try:
        old_v, new_v = (sum(v) if isinstance(v, tuple) else v for v in (old, new))
        return -1 if new_v < old_v else 1
    except TypeError:
        return 1


def _compact(control: widgets.Widget) -> None:
    """Fit a control to the panel's width; labels take their own width; checkboxes lose their left indent."""
    if control.layout.width is None:
        control.layout.width = "100%"
    style = getattr(control, "style", None)
    if style is not None and "description_width" in style.keys and not style.description_width:
        style.description_width = "initial"
    if "indent" in control.keys:
        control.indent = False


def _format_values(values: Mapping[str, Any]) -> str:
    parts = [_frontend.code_html(f"{k}={v!r}") for k, v in values.items()]
    return " &nbsp; ".join(parts)


def choice(options, value, description: str) -> widgets.RadioButtons:
    """Radio buttons for one of ``options``, their name above them.

    Not a dropdown: inside JupyterLab the arrow keys on a focused dropdown move
    to the next cell, while radio buttons move with ArrowLeft and ArrowRight
    (and, where the explorer's page script runs, ArrowUp and ArrowDown too).

    >>> choice(["a", "b"], "b", "path").value
    'b'
    """
    return widgets.RadioButtons(options=list(options), value=value, description=description,
                                style={"description_width": "initial"},
                                layout=widgets.Layout(flex_flow="column", width="100%"))


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
