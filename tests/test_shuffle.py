import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import ShuffleDisplay


def test_from_params_runs_real_shuffle():
    disp = ShuffleDisplay.from_params(50, buffer_size=10, seed=3)
    expected = list(tf.data.Dataset.range(50).shuffle(10, seed=3).as_numpy_iterator())
    assert disp.order.tolist() == expected
    assert sorted(disp.order.tolist()) == list(range(50))


def test_epochs_and_reshuffle_toggle():
    again = ShuffleDisplay.from_params(20, 20, seed=1, epochs=2, reshuffle_each_iteration=True).order
    same = ShuffleDisplay.from_params(20, 20, seed=1, epochs=2, reshuffle_each_iteration=False).order
    assert again[:20].tolist() != again[20:].tolist()
    assert same[:20].tolist() == same[20:].tolist()


def test_from_dataset_flattens_batches_and_bounds_infinite():
    disp = ShuffleDisplay.from_dataset(tf.data.Dataset.range(10).batch(3))
    assert disp.order.tolist() == list(range(10))
    endless = ShuffleDisplay.from_dataset(tf.data.Dataset.range(10).repeat(), max_elements=25)
    assert endless.order.size == 25 and endless.truncated


def test_stats_property_uses_shuffle_stats():
    disp = ShuffleDisplay.from_params(30, 5)
    assert disp.stats == tutor.shuffle_stats(disp.order, 30)


def test_plot_sets_artists_and_limit_line():
    disp = ShuffleDisplay.from_params(40, 5).plot()
    offsets = disp.points_.get_offsets()
    assert offsets.shape == (40, 2)
    assert np.array_equal(offsets[:, 1], disp.order)
    ys = np.asarray(disp.limit_.get_ydata(), dtype=float)
    assert ys[0] == 4 and np.nanmax(ys) == 39
    assert "buffer_size=5" in disp.ax_.get_title("left")


def test_compare_draws_one_panel_per_buffer():
    displays = ShuffleDisplay.compare([1, 2, 10, 100], n_elements=100)
    assert [d.buffer_size for d in displays] == [1, 2, 10, 100]
    assert len({id(d.figure_) for d in displays}) == 1
    assert displays[0].order.tolist() == list(range(100))


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
    with pytest.raises(TypeError, match="list of buffer sizes"):
        ShuffleDisplay.compare(10)
