"""The explorers' figure layout: a figure without a layout engine, and margins and fonts fitted to what was drawn.

Re-running matplotlib's layout engine on every redraw would cost more than the
drawing itself, so an explorer's figure has fixed margins that
:func:`fit_margins` moves only when a label sticks out or space is wasted, and
:func:`shrink_wide_texts` shrinks a title or axis label that no margin can
help.
"""
from __future__ import annotations

#: Explorer figures start at this resolution; the explorer then draws them at the size shown.
EXPLORER_DPI = 96

#: Starting margins (figure fractions) of explorer figures, before they are fitted to the labels.
EXPLORER_MARGINS = {"left": 0.11, "right": 0.97, "top": 0.83, "bottom": 0.14}

#: The share of an explorer figure's width and height that the data keeps; labels give way first.
MIN_DATA_SHARE = 0.4


def new_figure(width: float, height: float, margins: dict | None = None):
    """A Figure that pyplot does not track, for explorers that redraw in place.

    It uses fixed margins instead of a layout engine (re-running the layout on
    every redraw would cost more than the drawing itself); an explorer fits
    them to what was drawn with :func:`fit_margins`.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=EXPLORER_DPI)
    FigureCanvasAgg(fig)
    fig.subplots_adjust(**{**EXPLORER_MARGINS, **(margins or {})})
    return fig


def fit_margins(figure, renderer, *, pad: float = 4.0, slack: float = 24.0) -> bool:
    """Move the subplot margins so that every label, title and legend lies inside ``figure``.

    Measures the drawn extents (``renderer`` from the last draw) against the
    block of axes. Changes the margins, and returns True, only when something
    sticks out or a margin wastes more than ``slack`` pixels; the caller then
    draws again. Figures with a layout engine are left alone.
    """
    from matplotlib.transforms import Bbox

    axes = [a for a in figure.axes if a.get_visible()]
    if not axes or figure.get_layout_engine() is not None:
        return False
    drawn = Bbox.union([a.get_tightbbox(renderer) for a in axes]
                       + [t.get_window_extent(renderer) for t in figure.texts if t.get_visible() and t.get_text()])
    block = Bbox.union([a.bbox for a in axes])
    width, height = figure.bbox.width, figure.bbox.height
    need = {"left": block.x0 - drawn.x0, "right": drawn.x1 - block.x1,
            "bottom": block.y0 - drawn.y0, "top": drawn.y1 - block.y1}
    have = {"left": block.x0, "right": width - block.x1, "bottom": block.y0, "top": height - block.y1}
    if any(a.get_aspect() != "auto" for a in axes):  # fixed-aspect axes keep their slack: only fix what sticks out
        slack = float("inf")
    if all(-0.5 <= have[k] - (max(need[k], 0) + pad) <= slack for k in need):  # half a pixel: rounding
        return False
    margin = {k: max(need[k], 0) + pad for k in need}
    params = figure.subplotpars
    # The block keeps its proportions inside the figure; only the margins move.
    left, right = margin["left"] / width, 1 - margin["right"] / width
    bottom, top = margin["bottom"] / height, 1 - margin["top"] / height
    if right - left < MIN_DATA_SHARE or top - bottom < MIN_DATA_SHARE:  # labels would crowd out the data
        spare = min((1 - MIN_DATA_SHARE) * width / (margin["left"] + margin["right"]),
                    (1 - MIN_DATA_SHARE) * height / (margin["bottom"] + margin["top"]))
        scale_texts(figure, max(min(spare, 0.95), 0.5))
        return True
    shift_x = (left - block.x0 / width, right - block.x1 / width)
    shift_y = (bottom - block.y0 / height, top - block.y1 / height)
    figure.subplots_adjust(left=params.left + shift_x[0], right=params.right + shift_x[1],
                           bottom=params.bottom + shift_y[0], top=params.top + shift_y[1])
    return True


def scale_texts(figure, factor: float) -> None:
    """Multiply the font size of every text in ``figure`` (tick labels included) by ``factor``."""
    from matplotlib.text import Text

    for ax in figure.axes:
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            labels = axis.get_ticklabels()
            if labels:
                ax.tick_params(axis=name, labelsize=labels[0].get_fontsize() * factor)
    for text in figure.findobj(Text):
        text.set_fontsize(max(text.get_fontsize() * factor, 5.0))


def shrink_wide_texts(figure, renderer, *, pad: float = 4.0) -> bool:
    """Make titles and axis labels just small enough to stay inside the figure.

    Margins cannot help a title or an axis label: they move with their axes
    (a centred label longer than its axes reaches past both ends). Each title,
    figure text and axis label that reaches past an edge of the figure gets
    the font size that fits, measured from the point it is anchored at.
    Returns True when a font size changed (the caller then draws again).
    """
    from matplotlib.text import Text

    anchored = [(t, t.get_horizontalalignment(), None) for t in figure.texts]
    for ax in figure.axes:
        wanted = {ax.get_title(loc) for loc in ("left", "center", "right")} - {""}
        anchored += [(t, t.get_horizontalalignment(), None) for t in ax.get_children()
                     if isinstance(t, Text) and t.get_text() in wanted]
        anchored += [(ax.xaxis.label, "center", None), (ax.yaxis.label, None, "center")]
    box0 = figure.bbox
    left, right, bottom, top = box0.x0 + pad, box0.x1 - pad, box0.y0 + pad, box0.y1 - pad
    changed = False
    for text, h_anchor, v_anchor in anchored:
        if not text.get_visible() or not text.get_text():
            continue
        box = text.get_window_extent(renderer)
        ratio = _fit_ratio(box.x0, box.x1, left, right, h_anchor)
        ratio = min(ratio, _fit_ratio(box.y0, box.y1, bottom, top, v_anchor))
        if ratio < 1.0:
            text.set_fontsize(max(text.get_fontsize() * max(ratio, 0.0) * 0.97, 5.0))
            changed = True
    return changed


def _fit_ratio(lo: float, hi: float, low_edge: float, high_edge: float, anchor: str | None) -> float:
    """How much a span [lo, hi] anchored at its left/center/right end must shrink to fit between the edges."""
    if hi - lo > high_edge - low_edge:
        return (high_edge - low_edge) / (hi - lo)
    if anchor is None:
        return 1.0
    at = {"left": lo, "right": hi}.get(anchor, (lo + hi) / 2)
    ratio = 1.0
    if hi > high_edge and hi > at:
        ratio = min(ratio, max(high_edge - at, 0.0) / (hi - at))
    if lo < low_edge and lo < at:
        ratio = min(ratio, max(at - low_edge, 0.0) / (at - lo))
    return ratio
