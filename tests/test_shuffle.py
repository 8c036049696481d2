"""tutor/shuffle.py: ShuffleDisplay runs the real shuffle, measures the order (tutor.stats) and draws it."""
import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import ShuffleDisplay


def test_from_params_runs_real_shuffle():
    disp = ShuffleDisplay.from_params(n_elements=50, buffer_size=10, seed=3)
    expected = list(tf.data.Dataset.range(50).shuffle(10, seed=3).as_numpy_iterator())
    assert disp.order.tolist() == expected
    assert sorted(disp.order.tolist()) == list(range(50))


def test_epochs_and_reshuffle_toggle():
    again = ShuffleDisplay.from_params(n_elements=20, buffer_size=20, seed=1, epochs=2, reshuffle_each_iteration=True).order
    same = ShuffleDisplay.from_params(n_elements=20, buffer_size=20, seed=1, epochs=2, reshuffle_each_iteration=False).order
    assert again[:20].tolist() != again[20:].tolist()
    assert same[:20].tolist() == same[20:].tolist()


def test_from_dataset_flattens_batches_and_bounds_infinite():
    disp = ShuffleDisplay.from_dataset(tf.data.Dataset.range(10).batch(3))
    assert disp.order.tolist() == list(range(10))
    endless = ShuffleDisplay.from_dataset(tf.data.Dataset.range(10).repeat(), max_elements=25)
    assert endless.order.size == 25 and endless.truncated


def test_stats_property_uses_shuffle_stats():
    disp = ShuffleDisplay.from_params(n_elements=30, buffer_size=5)
    assert disp.stats == tutor.shuffle_stats(disp.order, 30)


def test_plot_sets_artists_and_limit_line():
    disp = ShuffleDisplay.from_params(n_elements=40, buffer_size=5).plot()
    offsets = disp.points_.get_offsets()
    assert offsets.shape == (40, 2)
    assert np.array_equal(offsets[:, 1], disp.order)
    ys = np.asarray(disp.limit_.get_ydata(), dtype=float)
    assert ys[0] == 4 and np.nanmax(ys) == 39
    assert "buffer_size=5" in disp.ax_.get_title("left")


def test_compare_draws_one_panel_per_display():
    displays = [ShuffleDisplay.from_params(n_elements=100, buffer_size=b) for b in (1, 2, 10, 100)]
    both = ShuffleDisplay.compare(displays, labels=["b=1", "b=2", "b=10", "b=100"])
    assert not hasattr(both, "figure_")  # compare computes and draws nothing
    both.plot()
    assert len({id(d.figure_) for d in displays}) == 1 and displays[0].figure_ is both.figure_
    assert [a.get_title(loc="left") for a in both.axes_] == ["b=1", "b=2", "b=10", "b=100"]
    assert displays[0].order.tolist() == list(range(100))


def test_from_dataset_with_a_buffer_size_draws_the_limit():
    disp = ShuffleDisplay.from_dataset(tf.data.Dataset.range(30).shuffle(4, seed=0), buffer_size=4).plot()
    assert disp.limit_ is not None and disp.stats["max_moved_earlier"] <= 3


def test_replot_changes_only_the_data():
    first = ShuffleDisplay.from_params(n_elements=40, buffer_size=5).plot()
    points = first.points_
    second = ShuffleDisplay.from_params(n_elements=40, buffer_size=20, seed=1)
    changed = second.replot(first)
    assert second.points_ is points and np.array_equal(points.get_offsets()[:, 1], second.order)
    assert "buffer_size=20" in second.ax_.get_title("left")
    assert changed == [second.ax_]  # the default title says buffer_size: a new title, the axes drawn anew
    third = ShuffleDisplay.from_params(n_elements=40, buffer_size=30, seed=1)
    changed = third.replot(second, title="fixed")
    fourth = ShuffleDisplay.from_params(n_elements=40, buffer_size=35, seed=1)
    changed = fourth.replot(third, title="fixed")  # same title: only the data artists changed
    assert fourth.points_ is points and points in changed and second.ax_ not in changed


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(n_elements=10, buffer_size=0), ValueError, "buffer_size must be >= 1"),
        (dict(n_elements=0, buffer_size=3), ValueError, "n_elements"),
        (dict(n_elements=10, buffer_size=2.5), TypeError, "buffer_size"),
        (dict(n_elements=10, buffer_size=3, seed="a"), TypeError, "seed"),
        (dict(n_elements=10, buffer_size=3, epochs=0), ValueError, "epochs"),
    ],
)
def test_bad_params(kwargs, error, match):
    with pytest.raises(error, match=match):
        ShuffleDisplay.from_params(**kwargs)


def test_bad_datasets():
    with pytest.raises(TypeError, match="from_tensor_slices"):
        ShuffleDisplay.from_dataset(np.arange(5))
    with pytest.raises(TypeError, match="integer element ids"):
        ShuffleDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(["a", "b"]))
    with pytest.raises(TypeError, match="list of ShuffleDisplay"):
        ShuffleDisplay.compare(10)


def test_summary_gives_each_epoch_on_its_own():
    one = ShuffleDisplay.from_params(n_elements=100, buffer_size=1)
    assert one.summary() == "Spearman ρ 1.00 (1 = order kept), 0 of 100 moved"
    three = ShuffleDisplay.from_params(n_elements=100, buffer_size=10, epochs=3)
    assert len(three.epoch_stats) == 3 and all(s["size"] == 100 for s in three.epoch_stats)
    shown = three.summary().split("per epoch ")[1].split(" (")[0].split(", ")
    assert [float(v) for v in shown] == pytest.approx([s["rank_correlation"] for s in three.epoch_stats], abs=0.006)
    same = ShuffleDisplay.from_params(n_elements=20, buffer_size=20, epochs=2, reshuffle_each_iteration=False)
    assert same.summary().endswith("every epoch in one order")
    assert "Spearman ρ" in three.plot().ax_.get_title("left")


def test_dots_grow_with_presentation_mode():
    plain = ShuffleDisplay.from_params(n_elements=50, buffer_size=5).plot()
    tutor.presentation(True)
    try:
        big = ShuffleDisplay.from_params(n_elements=50, buffer_size=5).plot()
    finally:
        tutor.presentation(False)
    assert big.points_.get_sizes()[0] > plain.points_.get_sizes()[0]


# ------------------------------------------------------------------ bad input: endless data, unknown shapes, huge buffers
def _draw(disp):
    import warnings

    import matplotlib.pyplot as plt

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        disp.plot()
        disp.figure_.canvas.draw()
    return caught


def test_an_endless_dataset_is_read_to_max_elements_and_says_so():
    import matplotlib.pyplot as plt

    disp = ShuffleDisplay.from_dataset(tf.data.Dataset.range(10).repeat())
    assert disp.truncated and disp.order.size == 1000
    assert "reading stopped at max_elements=1000" in repr(disp)
    caught = _draw(disp)
    assert not [w for w in caught if "layout" in str(w.message)], [str(w.message) for w in caught]
    title = disp.ax_.get_title(loc="left")
    assert "reading stopped at max_elements=1000" in title and "shuffled order" not in title
    assert max(len(line) for line in title.splitlines()) < 80, title  # 100 epochs, but not 100 values
    assert "(100 epochs; all in one order)" in title and title.count("1.00") < 6
    box, figure = disp.ax_.get_position(), disp.figure_
    assert box.width > 0.4 and box.height > 0.4, box  # a readable picture, not a squashed thumbnail
    plt.close(figure)


def test_ids_whose_shape_py_function_lost_are_refused_with_ensure_shape():
    lost = tf.data.Dataset.range(5).map(lambda i: tf.py_function(lambda v: v, [i], tf.int64))
    with pytest.raises(TypeError, match="shape is unknown.*tf.ensure_shape") as info:
        ShuffleDisplay.from_dataset(lost)
    assert "Map it to ids first" not in str(info.value)
    restored = lost.map(lambda i: tf.ensure_shape(i, []))
    assert ShuffleDisplay.from_dataset(restored).order.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("buffer_size", [10 ** 12, 100_001])
def test_a_huge_buffer_is_refused_before_tensorflow_reserves_it(buffer_size):
    with pytest.raises(ValueError, match="buffer_size must be <= 100,000.*crash the kernel"):
        ShuffleDisplay.from_params(n_elements=100, buffer_size=buffer_size)
    with pytest.raises(ValueError, match="buffer_size must be <= 100,000"):
        ShuffleDisplay.from_dataset(tf.data.Dataset.range(3), buffer_size=buffer_size)
    assert ShuffleDisplay.from_params(n_elements=100, buffer_size=200).order.size == 100  # larger than the data: fine


def test_the_key_names_each_epoch_colour_outside_the_axes_and_ticks_are_whole_ids():
    import matplotlib.pyplot as plt

    disp = ShuffleDisplay.from_params(n_elements=20, buffer_size=20, seed=0, epochs=3).plot()
    disp.figure_.canvas.draw()
    legend = disp.ax_.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["epoch 1 (first pass)", "epoch 2", "epoch 3", "limit: id <= position + 19"]
    renderer = disp.figure_.canvas.get_renderer()
    assert legend.get_window_extent(renderer).x0 >= disp.ax_.get_window_extent(renderer).x1  # covers no dot
    ticks = disp.ax_.get_yticks()
    assert np.allclose(ticks, np.round(ticks)), ticks
    one = ShuffleDisplay.from_params(n_elements=20, buffer_size=5).plot()
    assert [t.get_text() for t in one.ax_.get_legend().get_texts()] == ["limit: id <= position + 4"]
    plt.close("all")


def test_replot_keeps_the_key_when_only_the_order_changes():
    import matplotlib.pyplot as plt

    old = ShuffleDisplay.from_params(n_elements=20, buffer_size=5, seed=0, epochs=2).plot()
    new = ShuffleDisplay.from_params(n_elements=20, buffer_size=8, seed=0, epochs=2)
    changed = new.replot(old)
    texts = [t.get_text() for t in new.ax_.get_legend().get_texts()]
    assert texts == ["epoch 1 (first pass)", "epoch 2", "limit: id <= position + 7"] and changed
    plt.close("all")
