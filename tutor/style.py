"""Colours, figure helpers and the projector-friendly presentation mode."""
from __future__ import annotations


#: Okabe-Ito: eight colours that stay distinct for colour-blind readers.
OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#F0E442",  # yellow
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#999999",  # grey
)

_PRESENTATION_RC = {
    "font.size": 15,
    "axes.titlesize": 17,
    "axes.labelsize": 15,
    "xtick.labelsize": 13,
    "ytick.labelsize": 13,
    "legend.fontsize": 13,
    "lines.linewidth": 3.0,
    "lines.markersize": 9,
    "axes.linewidth": 1.6,
}
_saved_rc: dict | None = None


def color(i: int) -> str:
    """The i-th Okabe-Ito colour, cycling.

    >>> color(0)
    '#E69F00'
    """
    return OKABE_ITO[int(i) % len(OKABE_ITO)]


def presentation(on: bool = True) -> bool:
    """Switch large fonts and thick lines for projectors on (``True``) or off.

    Affects every figure drawn afterwards, explorers included. Returns the new
    state.

    >>> presentation(True); presentation(False)
    True
    False
    """
    import matplotlib as mpl

    global _saved_rc
    if not isinstance(on, bool):
        raise TypeError(f"presentation expects True or False, got {on!r}.")
    if on and _saved_rc is None:
        _saved_rc = {k: mpl.rcParams[k] for k in _PRESENTATION_RC}
        mpl.rcParams.update(_PRESENTATION_RC)
    elif not on and _saved_rc is not None:
        mpl.rcParams.update(_saved_rc)
        _saved_rc = None
    return is_presentation()


def is_presentation() -> bool:
    """True while presentation mode is on."""
    return _saved_rc is not None


def new_figure(width: float, height: float, margins: dict | None = None):
    """A Figure that pyplot does not track, for explorers that redraw in place.

    It uses fixed margins instead of a layout engine: re-running the layout on
    every redraw would cost more than the drawing itself.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    scale = 1.3 if is_presentation() else 1.0
    fig = Figure(figsize=(width * scale, height * scale), dpi=EXPLORER_DPI)
    FigureCanvasAgg(fig)
    fig.subplots_adjust(**{**EXPLORER_MARGINS, **(margins or {})})
    return fig


#: Explorer figures are PNGs redrawn on every move: a modest resolution keeps each redraw quick.
EXPLORER_DPI = 90

#: Room for two-line titles, axis labels and a legend on the right, as figure fractions.
EXPLORER_MARGINS = {"left": 0.11, "right": 0.97, "top": 0.83, "bottom": 0.14}
