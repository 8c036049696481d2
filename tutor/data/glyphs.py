"""Render handwritten-looking 28x28 digits from the fonts that matplotlib ships.

This is the engine behind ``tutor.data.digits(source="synthetic")``. It works in
two steps:

1. :func:`templates` draws every digit once per font with PIL on a large canvas,
   brings every font to a common stroke width and blurs them a little. The
   result is cached, so this costs well under a second once per process.
2. :func:`draw` draws many digits at once. Each output pixel looks up its
   position in a template through a random affine map (rotation, slant, scale,
   aspect, shift) plus a smooth random wobble, and vectorised
   ``scipy.ndimage.map_coordinates`` calls (1,024 images each) sample them. A random
   threshold on the blurred template then makes the stroke thinner or thicker.

Like MNIST, the digit fills about a 20x20 box and its centre of mass sits at the
centre of the 28x28 image.
"""

from __future__ import annotations

import functools
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage

# Fonts in matplotlib's own data folder that every release from 3.7 to 3.11 ships
# (cmti10 is newer: older and Colab's matplotlib lack it), so the set is the same everywhere.
FONT_FILES = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSans-Oblique.ttf",
    "DejaVuSans-BoldOblique.ttf",
    "DejaVuSerif.ttf",
    "DejaVuSerif-Italic.ttf",
    "DejaVuSansMono.ttf",
    "DejaVuSansMono-Oblique.ttf",
    "STIXGeneral.ttf",
    "STIXGeneralItalic.ttf",
    "cmss10.ttf",
    "cmb10.ttf",
    "cmr10.ttf",
)

SIDE = 28  # output image side, as in MNIST
_CANVAS = 128  # template side in pixels
_FONT_SIZE = 72  # digits come out about 52 px tall
_STROKE = 6.0  # width the thinner strokes of every font are brought to (pixels)
_BLUR = 2.5  # template blur (sigma, template pixels): anti-aliasing + thickness range
_CHUNK = 1024  # images sampled per map_coordinates call (bounds memory)


def font_dir() -> str:
    """Folder holding matplotlib's TrueType fonts."""
    import matplotlib

    return os.path.join(matplotlib.get_data_path(), "fonts", "ttf")


def _draw(font: ImageFont.FreeTypeFont, digit: int, stroke_width: int) -> np.ndarray:
    image = Image.new("L", (_CANVAS, _CANVAS), 0)
    ImageDraw.Draw(image).text(
        (_CANVAS // 2, _CANVAS // 2), str(digit), fill=255, font=font,
        anchor="mm", stroke_width=stroke_width, stroke_fill=255,
    )
    return np.asarray(image, dtype=np.float32) / 255.0


def _thin_width(glyph: np.ndarray) -> float:
    """Width of a glyph's thinner strokes (10th percentile along the ridges)."""
    ink = glyph > 0.5
    depth = ndimage.distance_transform_edt(ink)
    ridge = ink & (depth > 1) & (depth >= ndimage.maximum_filter(depth, 3))
    return 2.0 * float(np.percentile(depth[ridge], 10))


@functools.lru_cache(maxsize=1)
def templates() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Blurred glyph templates for every font and digit (cached).

    Returns
    -------
    glyphs : float32 array [len(FONT_FILES) * 10, 128, 128], values 0..1.
        Template ``k`` shows digit ``k % 10`` in font ``k // 10``.
    digit : int64 array [K], the digit each template shows.
    centre : float64 array [K, 2], (row, col) centre of mass of each template.
    extent : float64 array [K], the larger side of each template's bounding box.
    """
    glyphs, digit, centre, extent = [], [], [], []
    for name in FONT_FILES:
        font = ImageFont.truetype(os.path.join(font_dir(), name), _FONT_SIZE)
        for d in range(10):
            glyph = _draw(font, d, 0)
            # Half the missing (or extra) width goes on each side of the stroke.
            change = round((_STROKE - _thin_width(glyph)) / 2)
            if change > 0:
                glyph = _draw(font, d, change)
            elif change < 0:
                glyph = ndimage.grey_erosion(glyph, size=(1 - 2 * change,) * 2)
            rows, cols = np.nonzero(glyph > 0.5)
            extent.append(max(np.ptp(rows), np.ptp(cols)) + 1.0)
            centre.append(ndimage.center_of_mass(glyph))
            glyphs.append(ndimage.gaussian_filter(glyph, _BLUR))
            digit.append(d)
    return (np.stack(glyphs), np.array(digit, dtype=np.int64),
            np.array(centre), np.array(extent))


def _smooth(coarse: np.ndarray) -> np.ndarray:
    """Upsample random displacements [n, 2, 4, 4] to smooth fields [n, 2, 28, 28]."""
    # Linear interpolation from a 4x4 grid to 28x28, as one matrix per axis.
    pos = np.linspace(0, 3, SIDE)
    up = np.maximum(0.0, 1.0 - np.abs(pos[:, None] - np.arange(4)[None, :]))
    return np.einsum("ia,nkab,jb->nkij", up, coarse, up)


def draw(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw one jittered digit per label.

    Parameters
    ----------
    labels : int array [n], values 0..9.
    rng : the generator all randomness comes from.

    Returns
    -------
    uint8 array [n, 28, 28]: white strokes on black, MNIST style.
    """
    glyphs, _, centre, extent = templates()
    n = len(labels)
    n_fonts = len(glyphs) // 10
    k = rng.integers(0, n_fonts, size=n) * 10 + labels

    # Forward map template -> image is A = R(angle) @ Slant @ diag(sy, sx);
    # each output pixel p samples the template at centre + A^-1 (p - mid).
    height = rng.uniform(17.0, 21.0, size=n)
    sy = height / extent[k]
    sx = sy * np.exp(rng.normal(0.0, 0.1, size=n))
    angle = np.deg2rad(np.clip(rng.normal(0.0, 8.0, size=n), -15.0, 15.0))
    slant = rng.uniform(-0.1, 0.35, size=n)
    cos, sin = np.cos(angle), np.sin(angle)
    rot = np.stack([np.stack([cos, -sin], -1), np.stack([sin, cos], -1)], -2)
    shear = np.zeros((n, 2, 2))
    shear[:, 0, 0] = shear[:, 1, 1] = 1.0
    shear[:, 1, 0] = -slant  # rows above the centre move right
    scale = np.zeros((n, 2, 2))
    scale[:, 0, 0], scale[:, 1, 1] = sy, sx
    inverse = np.linalg.inv(rot @ shear @ scale)

    mid = (SIDE - 1) / 2.0 + rng.uniform(-1.0, 1.0, size=(n, 2))
    wobble = rng.normal(0.0, 0.8, size=(n, 2, 4, 4))  # pixels, on a coarse grid
    threshold = rng.uniform(0.25, 0.55, size=n)[:, None, None]

    grid = np.mgrid[:SIDE, :SIDE].astype(np.float64)
    out = np.empty((n, SIDE, SIDE), dtype=np.uint8)
    for start in range(0, n, _CHUNK):
        s = slice(start, start + _CHUNK)
        offset = grid - mid[s, :, None, None] + _smooth(wobble[s])
        where = np.einsum("nij,njhw->nihw", inverse[s], offset)
        where += centre[k[s], :, None, None]
        coords = np.concatenate(
            [np.broadcast_to(k[s, None, None, None], where[:, :1].shape), where], 1
        ).transpose(1, 0, 2, 3)
        ink = ndimage.map_coordinates(glyphs, coords, order=1, cval=0.0)
        # Soft threshold: a low threshold thickens the stroke, a high one thins it.
        ink = np.clip((ink - threshold[s]) / 0.3 + 0.5, 0.0, 1.0)
        out[s] = np.rint(ink * 255.0)
    return out
