"""The explorer's figure: sized in CSS pixels, drawn at the screen's pixel density, encoded as PNG.

Three things keep a redraw quick:

* one reused Figure with no layout engine: margins are fitted to the text
  extents only after a full draw, and only redrawn when something sticks out;
* cached static layers: when the explorer says which artists changed, the
  rest of the picture (axes, ticks, labels) is restored from a saved copy and
  only the changed artists are drawn on top (matplotlib's blitting);
* PNG encoding by PIL at the lowest compression level, without the alpha channel.
"""
from __future__ import annotations

import io

import numpy as np

from ..i18n import gettext as _
from .layout import fit_margins, new_figure, shrink_wide_texts

#: CSS pixels per inch, as browsers count them: a 10 pt label is 13.3 CSS pixels high.
CSS_PX_PER_INCH = 96

#: Room left around everything drawn, in CSS pixels.
PAD_PX = 4

#: The picture grows at most this much past the explorer's ``figsize`` when there is room.
MAX_GROWTH = 1.25

#: The picture never gets smaller than this, in CSS pixels, whatever the room.
MIN_WIDTH, MIN_HEIGHT = 280, 180


class ExplorerCanvas:
    """One reused Figure whose pixel size follows where it is shown.

    Parameters
    ----------
    figsize : (float, float)
        The preferred size in inches at 96 CSS pixels per inch. Its aspect
        ratio is always kept; the picture shrinks to the room it is given and
        grows at most ``MAX_GROWTH`` times past it.
    margins : dict, optional
        Starting subplot margins (figure fractions); fitted after each full draw.
    """

    def __init__(self, figsize: tuple[float, float], margins: dict | None = None):
        width, height = (float(v) for v in figsize)
        if width <= 0 or height <= 0:
            raise ValueError(_("figsize must be two positive numbers (inches), got {value}.").format(
                value=repr(figsize)))
        self.aspect = height / width
        self.preferred_width = width * CSS_PX_PER_INCH
        self.figure = new_figure(width, height, margins=margins)
        self.css_width, self.dpr = 0, 1.0
        #: (width, height) of the last PNG, in device pixels.
        self.pixel_size = (0, 0)
        #: Frames rendered, and how many of them were drawn in full (the rest reused the static layer).
        self.frames, self.full_frames = 0, 0
        self._background = None
        self.set_size(round(self.preferred_width), 0, 1.0)

    # ------------------------------------------------------------------ size
    def set_size(self, room_width: int, room_height: int, dpr: float) -> bool:
        """Fit the picture into ``room_width`` x ``room_height`` CSS pixels (0: no height limit).

        Returns True when the pixel size changed (the next draw must be a full one).
        """
        width = min(float(room_width), MAX_GROWTH * self.preferred_width)
        if room_height and width * self.aspect > room_height - 2 * PAD_PX:
            width = (room_height - 2 * PAD_PX) / self.aspect
        width = max(width, MIN_WIDTH, MIN_HEIGHT / self.aspect)
        css_width = int(width)
        if css_width == self.css_width and dpr == self.dpr:
            return False
        self.css_width, self.dpr = css_width, float(dpr)
        dpi = CSS_PX_PER_INCH * self.dpr
        pixels_w = round(css_width * self.dpr)
        pixels_h = round(css_width * self.aspect * self.dpr)
        self.figure.set_dpi(dpi)
        # A hair over the exact size, so that rounding inside matplotlib never loses a pixel.
        self.figure.set_size_inches((pixels_w + 0.01) / dpi, (pixels_h + 0.01) / dpi, forward=False)
        self.invalidate()
        return True

    def invalidate(self) -> None:
        """Forget the saved static layer: the next frame is drawn in full."""
        self._background = None

    # ------------------------------------------------------------------ draw
    def png(self, changed=None) -> bytes:
        """Draw the figure and return it as PNG bytes.

        ``changed``: the artists that differ from the last frame, or None when
        anything may have changed. With a list, everything else comes from the
        saved static layer: saved on the first such frame (with these artists
        left out) and kept until a frame is drawn in full.
        """
        figure, canvas = self.figure, self.figure.canvas
        changed = [a for a in (changed or []) if a is not None] if changed is not None else None
        self.frames += 1
        if changed is None:
            self.invalidate()
            self._full_draw()
            self.full_frames += 1
        else:
            if self._background is None:
                self.full_frames += 1
                for artist in changed:
                    artist.set_animated(True)
                try:
                    self._full_draw()
                finally:
                    for artist in changed:
                        artist.set_animated(False)
                self._background = canvas.copy_from_bbox(figure.bbox)
            else:
                canvas.restore_region(self._background)
            for artist in changed:
                figure.draw_artist(artist)
            if _sticks_out(changed, figure):  # a longer legend or title: lay out again, in full
                self.invalidate()
                self._full_draw()
                self.full_frames += 1
        return self._png()

    def _full_draw(self) -> None:
        canvas = self.figure.canvas
        canvas.draw()
        pad = PAD_PX * self.dpr
        for _round in range(5):  # tick labels change with the axes' size, titles with the margins: settle in a few rounds
            shrunk = shrink_wide_texts(self.figure, canvas.get_renderer(), pad=pad)
            moved = fit_margins(self.figure, canvas.get_renderer(), pad=pad)
            if not (shrunk or moved):
                break
            canvas.draw()

    def _png(self) -> bytes:
        rgba = np.asarray(self.figure.canvas.buffer_rgba())
        self.pixel_size = (int(rgba.shape[1]), int(rgba.shape[0]))
        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(rgba[..., :3])).save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def _sticks_out(artists, figure) -> bool:
    """True when a changed text or legend reaches past the figure's edge."""
    from matplotlib.legend import Legend
    from matplotlib.text import Text

    renderer = figure.canvas.get_renderer()
    box = figure.bbox
    for artist in artists:
        if not isinstance(artist, (Text, Legend)) or not artist.get_visible():
            continue
        extent = artist.get_window_extent(renderer)
        if extent.width and (extent.x0 < box.x0 - 0.5 or extent.x1 > box.x1 + 0.5
                             or extent.y0 < box.y0 - 0.5 or extent.y1 > box.y1 + 0.5):
            return True
    return False

