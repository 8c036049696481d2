"""Every batch/repeat/shuffle fact that lessons 01-03 state, checked on real TensorFlow."""
import numpy as np
import pytest
import tensorflow as tf

from tutor.stats import shuffle_stats


def sizes(ds):
    return [len(b) for b in ds.as_numpy_iterator()]


def ids(ds):
    return [int(x) for x in ds.as_numpy_iterator()]


def test_repeat_then_batch_sizes():
    assert sizes(tf.data.Dataset.range(10).repeat(3).batch(7)) == [7, 7, 7, 7, 2]


def test_batch_then_repeat_sizes():
    assert sizes(tf.data.Dataset.range(10).batch(7).repeat(3)) == [7, 3, 7, 3, 7, 3]


def test_drop_remainder_gives_static_batch_dimension():
    assert tf.data.Dataset.range(10).batch(4).element_spec.shape.as_list() == [None]
    assert tf.data.Dataset.range(10).batch(4, drop_remainder=True).element_spec.shape.as_list() == [4]
    assert sizes(tf.data.Dataset.range(10).batch(4, drop_remainder=True)) == [4, 4]


def test_repeat_without_count_is_infinite():
    ds = tf.data.Dataset.range(3).repeat()
    assert int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY)
    assert ids(ds.take(7)) == [0, 1, 2, 0, 1, 2, 0]


def test_shuffle_one_is_identity():
    for seed in range(5):
        assert ids(tf.data.Dataset.range(50).shuffle(1, seed=seed)) == list(range(50))


@pytest.mark.parametrize("buffer_size", [2, 5, 10, 40])
def test_shuffle_bound_on_moving_earlier(buffer_size):
    """Output position j can only hold input index <= j + B - 1."""
    for seed in range(25):
        order = ids(tf.data.Dataset.range(60).shuffle(buffer_size, seed=seed))
        assert all(element <= j + buffer_size - 1 for j, element in enumerate(order))
        assert shuffle_stats(order)["max_moved_earlier"] <= buffer_size - 1


def test_shuffle_two_only_moves_one_place_earlier_but_can_be_late():
    lates = []
    for seed in range(25):
        s = shuffle_stats(ids(tf.data.Dataset.range(100).shuffle(2, seed=seed)))
        assert s["max_moved_earlier"] <= 1
        lates.append(s["max_moved_later"])
    assert max(lates) > 3  # no bound on coming out late


def test_full_shuffle_needs_buffer_at_least_dataset_size():
    firsts_small = {ids(tf.data.Dataset.range(50).shuffle(10, seed=s))[0] for s in range(200)}
    firsts_full = {ids(tf.data.Dataset.range(50).shuffle(50, seed=s))[0] for s in range(200)}
    assert max(firsts_small) <= 9
    assert max(firsts_full) > 40


def test_bigger_buffer_mixes_more():
    rho = [shuffle_stats(ids(tf.data.Dataset.range(100).shuffle(b, seed=0)))["rank_correlation"] for b in (1, 2, 10, 100)]
    assert rho[0] == 1.0 and rho[0] > rho[1] > rho[2] > rho[3]


def test_shuffle_after_batch_shuffles_whole_batches():
    batches = [b.tolist() for b in tf.data.Dataset.range(20).batch(5).shuffle(4, seed=1).as_numpy_iterator()]
    assert all(b == list(range(b[0], b[0] + 5)) for b in batches)
    assert [b[0] for b in batches] != [0, 5, 10, 15]


def test_shuffle_then_repeat_keeps_epochs_apart_and_reshuffles():
    order = ids(tf.data.Dataset.range(10).shuffle(10, seed=0).repeat(3))
    epochs = [order[i * 10 : (i + 1) * 10] for i in range(3)]
    assert all(sorted(e) == list(range(10)) for e in epochs)
    assert epochs[0] != epochs[1]  # reshuffle_each_iteration=True by default


def test_reshuffle_each_iteration_false_repeats_the_order():
    order = ids(tf.data.Dataset.range(10).shuffle(10, seed=0, reshuffle_each_iteration=False).repeat(3))
    assert order[:10] == order[10:20] == order[20:]


def test_repeat_then_shuffle_mixes_epochs():
    mixed = 0
    for seed in range(10):
        order = ids(tf.data.Dataset.range(10).repeat(3).shuffle(10, seed=seed))
        if any(sorted(order[i * 10 : (i + 1) * 10]) != list(range(10)) for i in range(3)):
            mixed += 1
    assert mixed >= 8


def test_pipeline_is_lazy_not_stage_after_stage():
    """The first element comes out after reading only B inputs, not the whole dataset."""
    seen = []

    def record(x):
        seen.append(int(x))
        return x

    ds = tf.data.Dataset.range(1000).map(lambda x: tf.py_function(record, [x], tf.int64)).shuffle(5, seed=0)
    next(iter(ds))
    assert len(seen) <= 10


def test_take_skip_split_after_reshuffling_shuffle_leaks():
    ds = tf.data.Dataset.range(100).shuffle(100, seed=0)
    train, test = ds.take(80), ds.skip(80)
    train_ids = set(ids(train)) | set(ids(train))
    assert set(ids(test)) & train_ids


def test_take_skip_split_with_fixed_order_does_not_leak():
    ds = tf.data.Dataset.range(100).shuffle(100, seed=0, reshuffle_each_iteration=False)
    train, test = ds.take(80), ds.skip(80)
    for _ in range(2):
        assert not set(ids(train)) & set(ids(test))


def test_ragged_list_fails_and_ragged_constant_works():
    with pytest.raises((ValueError, TypeError)):
        tf.data.Dataset.from_tensor_slices([[1, 2], [3], [4, 5, 6]])
    rows = [r.tolist() for r in tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6]])).as_numpy_iterator()]
    assert rows == [[1, 2], [3], [4, 5, 6]]


def test_from_tensor_slices_on_lists_arrays_tuples_dicts():
    assert ids(tf.data.Dataset.from_tensor_slices([0, 1, 2])) == [0, 1, 2]
    assert ids(tf.data.Dataset.from_tensor_slices(np.arange(3))) == [0, 1, 2]
    pairs = list(tf.data.Dataset.from_tensor_slices((tf.range(3), tf.range(10, 13))).as_numpy_iterator())
    assert [(int(a), int(b)) for a, b in pairs] == [(0, 10), (1, 11), (2, 12)]
    d = next(iter(tf.data.Dataset.from_tensor_slices({"x": [1, 2], "y": [3, 4]}).as_numpy_iterator()))
    assert d == {"x": 1, "y": 3}


def test_zip_keeps_nesting():
    xs = tf.data.Dataset.range(-3, 0)
    ys = tf.data.Dataset.from_tensor_slices((tf.range(3), tf.range(10, 13)))
    first = next(iter(tf.data.Dataset.zip((xs, ys)).as_numpy_iterator()))
    assert first[0] == -3 and tuple(int(v) for v in first[1]) == (0, 10)


def test_padded_batch_pads_to_longest_in_batch():
    seqs = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    batches = [b.tolist() for b in seqs.padded_batch(2).as_numpy_iterator()]
    assert batches == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]


def test_ragged_batch_keeps_lengths():
    seqs = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n))
    batch = next(iter(seqs.ragged_batch(3)))
    assert isinstance(batch, tf.RaggedTensor)
    assert batch.row_lengths().numpy().tolist() == [1, 2, 3]
