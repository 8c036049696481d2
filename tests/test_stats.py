import numpy as np
import pytest

from tutor.stats import epochs_of, input_positions, shuffle_stats, spearman


def test_identity_order():
    s = shuffle_stats(list(range(10)))
    assert s["max_moved_earlier"] == 0
    assert s["max_moved_later"] == 0
    assert s["mean_abs_displacement"] == 0
    assert s["rank_correlation"] == 1.0
    assert s["fraction_in_place"] == 1.0


def test_swap_neighbours():
    s = shuffle_stats([1, 0, 3, 2])
    assert s["max_moved_earlier"] == 1
    assert s["max_moved_later"] == 1
    assert s["mean_abs_displacement"] == 1.0


def test_reversed_order_is_minus_one():
    assert shuffle_stats(list(range(9, -1, -1)))["rank_correlation"] == -1.0


def test_spearman_matches_pearson_on_ranks():
    rng = np.random.default_rng(0)
    a, b = rng.permutation(50), rng.permutation(50)
    assert spearman(a, b) == pytest.approx(np.corrcoef(a, b)[0, 1])


def test_epochs_and_input_positions_for_repeats():
    assert epochs_of([0, 1, 1, 0]).tolist() == [0, 0, 1, 1]
    assert input_positions([0, 1, 1, 0], n_elements=2).tolist() == [0, 1, 3, 2]


@pytest.mark.parametrize("bad", [[], [[1, 2]], [0.5, 1.5], [-1, 0]])
def test_bad_orders_are_explained(bad):
    with pytest.raises((TypeError, ValueError), match="element ids"):
        shuffle_stats(bad)
