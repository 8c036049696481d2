"""Colours and the projector-friendly presentation mode (the explorers' figure layout is in ``tutor.widgets.layout``)."""
from __future__ import annotations

from .i18n import gettext as _
from .i18n import width


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


def row_label_width(labels: list[str], fontsize: float) -> float:
    """About how wide, in points, the widest of ``labels`` is drawn at ``fontsize`` (digits, spaces, brackets).

    A Japanese or Chinese character counts as two (:func:`tutor.i18n.width`).

    >>> round(row_label_width(["0 (12)", "1 (4)"], 10.0)), round(row_label_width(["入力"], 10.0))
    (36, 24)
    """
    return 0.6 * fontsize * max([width(label) for label in labels] + [1])


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
        raise TypeError(_("presentation expects True or False, got {value}.").format(value=repr(on)))
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


#: How much presentation mode enlarges an explorer's controls and readout (its figure follows the fonts above).
PRESENTATION_SCALE = 1.4


def presentation_scale() -> float:
    """1.0 normally, :data:`PRESENTATION_SCALE` while presentation mode is on."""
    return PRESENTATION_SCALE if is_presentation() else 1.0
