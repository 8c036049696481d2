"""shuffle_explorer: each control reruns the real shuffle and redraws; the readout gives every epoch's numbers."""
import re

import numpy as np

import tutor


def test_shuffle_explorer_redraws_on_each_control():
    ex = tutor.shuffle_explorer(n_elements=30)
    first_png = ex.image.value
    assert ex.display.buffer_size == 10 and ex.display.order.size == 30
    ex.controls["buffer_size"].value = 1
    assert ex.display.buffer_size == 1 and ex.display.order.tolist() == list(range(30))
    assert ex.image.value != first_png
    assert "buffer_size=1" in ex.readout.value
    ex.controls["epochs"].value = 2
    assert ex.display.order.size == 60
    ex.controls["buffer_size"].value = 30
    ex.controls["reshuffle_each_iteration"].value = False
    assert ex.display.order[:30].tolist() == ex.display.order[30:].tolist()
    assert "(= epoch 1)" in ex.readout.value
    ex.controls["seed"].value = 5
    assert ex.display.seed == 5


def test_shuffle_explorer_reports_each_epoch_with_enough_decimals():
    ex = tutor.shuffle_explorer(n_elements=100, buffer_size=2, epochs=3)
    rows = re.findall(r"<tr><td>(\d)[^<]*</td><td>([-0-9.]+)</td><td>(\d+) of (\d+)</td>", ex.readout.value)
    assert [r[0] for r in rows] == ["1", "2", "3"]  # one row per epoch
    for epoch, (_, rho, moved, size) in enumerate(rows):
        assert int(size) == 100 and int(moved) > 0
        assert float(rho) < 1.0  # a changed order never reads as unchanged
        assert rho == tutor.stats.format_correlation(ex.display.epoch_stats[epoch]["rank_correlation"])
    assert "1 = order kept" in ex.readout.value  # says what the number means


def test_reshuffle_toggle_is_disabled_with_one_epoch():
    ex = tutor.shuffle_explorer()
    assert ex.controls["reshuffle_each_iteration"].disabled
    ex.controls["epochs"].value = 2
    assert not ex.controls["reshuffle_each_iteration"].disabled


def test_reset_returns_to_defaults():
    ex = tutor.shuffle_explorer()
    ex.controls["buffer_size"].value = 77
    ex.controls["epochs"].value = 3
    ex.reset_button.click()
    assert ex.controls["buffer_size"].value == 10 and ex.display.buffer_size == 10
    assert ex.display.order.size == 100


def test_a_buffer_change_redraws_only_the_points():
    ex = tutor.shuffle_explorer()
    ex.controls["buffer_size"].value = 20  # the first frame of this kind saves the static layer
    points, full = ex.display.points_, ex.canvas.full_frames
    for b in (30, 40, 50):
        ex.controls["buffer_size"].value = b
    assert ex.canvas.full_frames == full and ex.canvas.frames >= full + 3  # axes, ticks, labels reused
    assert ex.display.points_ is points  # the same artist, new data
    assert np.array_equal(ex.display.points_.get_offsets()[:, 1], ex.display.order)
    ex.controls["epochs"].value = 2  # new limits: drawn in full
    assert ex.canvas.full_frames == full + 1
