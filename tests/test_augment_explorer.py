"""augment_explorer: controls drive a real rotation, and a redraw only swaps what changed."""
import numpy as np
import pytest

from tutor.augment.rotation import available_paths
from tutor.widgets.augment import augment_explorer


def digits_like(n=16):
    rng = np.random.default_rng(0)
    x = np.zeros((n, 28, 28), np.uint8)
    for k in range(n):
        r, c = rng.integers(4, 18, 2)
        x[k, r : r + 4, c : c + 9] = 255
    return x


def test_controls_drive_the_display():
    ex = augment_explorer(digits_like())
    assert set(ex.controls) == {"degrees", "path", "seed"}
    assert list(ex.controls["path"].options) == list(available_paths())
    before = ex.display.images.copy()
    ex.controls["seed"].value = 3
    assert ex.display.title.endswith("seed 3") and not np.array_equal(before, ex.display.images)
    ex.set(degrees=(0, 0))
    assert np.array_equal(ex.display.images[..., 0], digits_like())  # no rotation at all
    ex.set(path="scipy", degrees=(-60, 60))
    assert ex.display.title.startswith("path 'scipy'")
    assert len(ex.figure.axes) == 16 and [a.get_title() for a in ex.figure.axes] == ex.display.titles


def test_paths_agree_in_the_explorer():
    ex = augment_explorer(digits_like(), path="tf")
    per_element = ex.display.images.copy()
    ex.set(path="tf-batched")
    assert np.array_equal(per_element, ex.display.images)


def test_redraw_swaps_pixels_and_reuses_the_rest_of_the_picture():
    ex = augment_explorer(digits_like())
    first = ex.figure.axes[0].images[0]
    ex.controls["seed"].value = 1  # the first such frame saves the static layer
    full, frames, png = ex.canvas.full_frames, ex.canvas.frames, ex.image.value
    for seed in range(2, 6):
        ex.controls["seed"].value = seed
        assert ex.image.value != png  # a new picture every time ...
        png = ex.image.value
    assert ex.figure.axes[0].images[0] is first  # ... from the same artists, with new data
    assert np.array_equal(first.get_array(), ex.display.images[0][..., 0] if ex.display.images.ndim == 4
                          else ex.display.images[0])
    assert ex.canvas.frames == frames + 4 and ex.canvas.full_frames == full  # nothing else was drawn again
    assert [a.get_title() for a in ex.figure.axes] == ex.display.titles


def test_bad_input():
    with pytest.raises(ValueError, match="path must be one of"):
        augment_explorer(digits_like(), path="opencv")
    with pytest.raises(ValueError, match="expects images"):
        augment_explorer(np.zeros((0, 28, 28)))
