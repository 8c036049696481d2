"""Explorers, driven from code as a test (or a learner) would: set a control, read .display."""
import pytest

import tutor
from tutor.widgets.order import ORDERS


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
    ex.controls["seed"].value = 5
    assert ex.display.seed == 5


def test_order_explorer_every_stage_order():
    ex = tutor.order_explorer()
    ex.set(batch_size=7, count=3, order="batch→repeat")
    assert ex.display.batch_sizes == [7, 3, 7, 3, 7, 3]
    ex.controls["order"].value = "repeat→batch"
    assert ex.display.batch_sizes == [7, 7, 7, 7, 2]
    assert "ds.repeat(3).batch(7, drop_remainder=False)" in ex.readout.value
    ex.controls["drop_remainder"].value = True
    assert ex.display.batch_sizes == [7, 7, 7, 7]
    for order in ORDERS:
        ex.controls["order"].value = order
        assert ex.display.code and sum(ex.display.batch_sizes) <= 30


def test_order_explorer_shows_epoch_mixing_after_repeat_then_shuffle():
    ex = tutor.order_explorer().set(order="repeat→shuffle", batch_size=5, count=3, buffer_size=10, drop_remainder=False)
    assert ex.display.mixed_batches


def test_reset_returns_to_defaults():
    ex = tutor.shuffle_explorer()
    ex.controls["buffer_size"].value = 77
    ex.controls["epochs"].value = 3
    ex.reset_button.click()
    assert ex.controls["buffer_size"].value == 10 and ex.display.buffer_size == 10
    assert ex.display.order.size == 100


def test_set_rejects_unknown_controls():
    with pytest.raises(KeyError, match="buffer_size"):
        tutor.shuffle_explorer().set(bufsize=3)


def test_explorers_validate_arguments():
    with pytest.raises(ValueError, match="buffer_size"):
        tutor.shuffle_explorer(buffer_size=0)
    with pytest.raises(ValueError, match="order must be one of"):
        tutor.order_explorer(order="shuffle→shuffle")


def test_explorers_answer_fast():
    ex = tutor.shuffle_explorer()
    ex.controls["buffer_size"].value = 50
    assert ex.last_render_seconds < 2.0  # generous: CI machines are noisy; benchmarks/widgets.py measures for real


def test_presentation_mode_switches_and_restores():
    import matplotlib as mpl

    before = mpl.rcParams["font.size"]
    assert tutor.presentation(True) is True
    assert mpl.rcParams["font.size"] > before
    ex = tutor.shuffle_explorer()
    assert ex.figure.get_figwidth() > 7.5
    assert tutor.presentation(False) is False
    assert mpl.rcParams["font.size"] == before
    with pytest.raises(TypeError):
        tutor.presentation("yes")
