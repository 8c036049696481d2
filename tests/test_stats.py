"""tutor/stats.py: the numbers of an element order (moves, Spearman's ρ, epochs), in pure NumPy."""
import numpy as np
import pytest

from tutor.stats import epoch_stats, epochs_of, format_correlation, input_positions, shuffle_stats, spearman


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


def test_epoch_stats_measures_each_epoch_on_its_own():
    kept = list(range(10)) * 3
    per_epoch = epoch_stats(kept)
    assert [e["rank_correlation"] for e in per_epoch] == [1.0, 1.0, 1.0]
    assert [e["moved"] for e in per_epoch] == [0, 0, 0] and all(e["same_as_first"] for e in per_epoch)
    # Over the whole stream the correlation grows with the number of epochs; per epoch it does not.
    rng = np.random.default_rng(0)
    orders = [rng.permutation(50).tolist() for _ in range(4)]
    whole = [shuffle_stats(sum(orders[:k], []))["rank_correlation"] for k in (1, 2, 4)]
    assert whole[0] < whole[1] < whole[2]
    per = [e["rank_correlation"] for e in epoch_stats(sum(orders, []))]
    assert per == [shuffle_stats(o)["rank_correlation"] for o in orders]
    assert [e["same_as_first"] for e in epoch_stats(orders[0] * 2)] == [True, True]


@pytest.mark.parametrize("n", [10, 100, 200, 400])
def test_a_changed_order_never_reads_as_unchanged(n):
    for i in range(n - 1):  # the smallest change there is: one pair of neighbours swapped
        order = list(range(n))
        order[i], order[i + 1] = order[i + 1], order[i]
        stats = epoch_stats(order)[0]
        text = format_correlation(stats["rank_correlation"], changed=stats["moved"] > 0)
        assert stats["moved"] == 2 and float(text) < 1.0 and not text.startswith("1.0"), (i, text)
    assert format_correlation(1.0, changed=False) == "1.00"
    assert format_correlation(-1.0) == "-1.00"  # a reversed order really is -1
    assert format_correlation(0.123456) == "0.12"
