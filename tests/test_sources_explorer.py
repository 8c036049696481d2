"""sources_explorer runs the real transformations and enables only the controls that apply."""
import matplotlib

matplotlib.use("Agg")

import tensorflow as tf  # noqa: E402

import tutor  # noqa: E402
from tutor.widgets.sources import LENGTHS, TRANSFORMATIONS, explorer_display, shard  # noqa: E402


def test_it_is_a_lazy_tutor_name():
    assert "sources_explorer" in tutor.__all__ and "sources_explorer" in tutor._EXPLORERS


def test_the_first_picture_is_the_real_interleave():
    ex = tutor.sources_explorer()
    real = tf.data.Dataset.range(3).interleave(shard, cycle_length=2, block_length=3)
    expected = [(int(v) // 100, int(v) % 100) for v in real.as_numpy_iterator()]
    assert ex.display.rows == [expected]
    assert ex.display.counts == {"A": 6, "B": 6, "C": 6}
    assert "cycle_length=2, block_length=3" in ex.readout.value


def test_only_the_controls_of_the_chosen_transformation_are_enabled_and_shown():
    ex = tutor.sources_explorer()
    for transformation, used in TRANSFORMATIONS.items():
        ex.set(transformation=transformation)
        enabled = {n for n, c in ex.controls.items() if not c.disabled} - {"transformation"}
        assert enabled == set(used), transformation
        shown = {n for n, c in ex.controls.items() if c.layout.display != "none"} - {"transformation"}
        assert shown == set(used), transformation  # a short panel: it fits a projector's screen
        assert ex.error is None


def test_block_length_and_cycle_length_move_the_cells():
    ex = tutor.sources_explorer()
    ex.set(cycle_length=3, block_length=1)
    assert ex.display.labels[0][:6] == ["A0", "B0", "C0", "A1", "B1", "C1"]
    ex.set(cycle_length=1, block_length=4)
    assert ex.display.sources == [[0] * 6 + [1] * 6 + [2] * 6]


def test_sampling_weights_and_stop_on_empty_dataset():
    ex = tutor.sources_explorer("sample_from_datasets")
    ex.set(weight_a=1.0, weight_b=0.0, weight_c=0.0)
    assert ex.display.counts == {"A": 6, "B": 0, "C": 0}
    ex.set(weight_a=0.5, weight_b=0.5, weight_c=0.0, stop_on_empty_dataset=True)
    counts = ex.display.counts
    assert counts["C"] == 0 and min(counts["A"], counts["B"]) < 6 and max(counts["A"], counts["B"]) == 6
    ex.set(weight_a=0.0, weight_b=0.0, weight_c=0.0)
    assert ex.error is not None and "weight above 0" in ex.readout.value


def test_window_controls():
    ex = tutor.sources_explorer("window")
    ex.set(size=4, shift=3, stride=2, drop_remainder=True)
    assert ex.display.positions == [[0, 2, 4, 6], [3, 5, 7, 9]]
    ex.set(drop_remainder=False)
    assert ex.display.positions[-1] == [9, 11]
    assert ex.display.row_name == "window"


def test_bucket_boundaries_keep_each_batch_in_one_length_range():
    for boundaries in [(3, 6), (2, 9), (5, 5)]:
        disp = explorer_display("bucket_by_sequence_length", boundaries=boundaries)
        assert sorted(p for row in disp.positions for p in row) == list(range(len(LENGTHS)))
        assert all(len(set(g)) == 1 for g in disp.groups), boundaries
    assert len(explorer_display("bucket_by_sequence_length", boundaries=(5, 5)).group_names) == 2


def test_reset_goes_back_to_the_first_picture():
    ex = tutor.sources_explorer()
    first = ex.display.rows
    ex.set(transformation="window", size=2)
    ex.reset()
    assert ex.controls["transformation"].value == "interleave" and ex.display.rows == first
    assert not ex.controls["cycle_length"].disabled and ex.controls["size"].disabled
