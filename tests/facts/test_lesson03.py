"""The facts lesson 03 (Shuffle) states, checked on real TensorFlow.

* the buffer: the first element comes out after exactly buffer_size reads; an element moves at most
  buffer_size - 1 places earlier, but may come out much later; a small buffer over sorted data mixes little;
* a shuffle that reshuffles gives every iterator a new order, even with a seed; the seed fixes the sequence of
  orders;
* where shuffle sits: after batch it shuffles whole batches, before repeat every epoch gets a new order, repeat
  before shuffle mixes epochs (an id can come twice before another once); the pipeline is lazy;
* the splitting rule: a fixed order, take/skip, then a reshuffled training part never leaks, whatever the
  order of the source.
"""
import numpy as np
import pytest
import tensorflow as tf

from tutor.stats import shuffle_stats

from .helpers import R, Recorder, ids, without_injected_prefetch


# ------------------------------------------------------------------ how shuffle(buffer_size) works
def test_shuffle_one_is_identity():
    for seed in range(5):
        assert ids(tf.data.Dataset.range(50).shuffle(1, seed=seed)) == list(range(50))


def test_the_first_element_comes_out_after_exactly_buffer_size_reads():
    for buffer_size in (1, 5, 20):
        recorder = Recorder()
        iterator = iter(without_injected_prefetch(recorder.watch(R(1000)).shuffle(buffer_size, seed=0)))
        first = int(next(iterator))
        assert len(recorder.made) == buffer_size and first < buffer_size


def test_with_the_injected_prefetch_the_shuffle_reads_at_least_its_buffer():
    recorder = Recorder()
    next(iter(recorder.watch(R(1000)).shuffle(5, seed=0)))
    assert 5 <= len(recorder.made) < 1000


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


@pytest.mark.parametrize("buffer_size", [2, 10])
def test_late_moves_go_beyond_the_early_bound(buffer_size):
    from tutor.stats import shuffle_stats

    lates = [shuffle_stats(ids(R(100).shuffle(buffer_size, seed=s)))["max_moved_later"] for s in range(10)]
    assert min(lates) > buffer_size - 1


def test_full_shuffle_needs_buffer_at_least_dataset_size():
    firsts_small = {ids(tf.data.Dataset.range(50).shuffle(10, seed=s))[0] for s in range(200)}
    firsts_full = {ids(tf.data.Dataset.range(50).shuffle(50, seed=s))[0] for s in range(200)}
    assert max(firsts_small) <= 9
    assert max(firsts_full) > 40


def test_bigger_buffer_mixes_more():
    rho = [shuffle_stats(ids(tf.data.Dataset.range(100).shuffle(b, seed=0)))["rank_correlation"] for b in (1, 2, 10, 100)]
    assert rho[0] == 1.0 and rho[0] > rho[1] > rho[2] > rho[3]


def test_a_small_buffer_over_sorted_labels_leaves_batches_with_few_classes():
    labels = np.repeat(np.arange(5), 20)  # sorted: all 0s, then all 1s, ...
    batches = tf.data.Dataset.from_tensor_slices(labels).shuffle(10, seed=0).batch(10)
    classes = [len(set(b.tolist())) for b in batches.as_numpy_iterator()]
    assert max(classes) <= 3  # ids move at most buffer_size - 1 = 9 places earlier
    full = tf.data.Dataset.from_tensor_slices(labels).shuffle(100, seed=0).batch(10)
    assert max(len(set(b.tolist())) for b in full.as_numpy_iterator()) >= 4


# ------------------------------------------------------------------ a new order for every iterator; the seed
def test_every_iterator_of_a_reshuffling_shuffle_gets_a_new_order_even_with_a_seed():
    ds = R(20).shuffle(20, seed=0)
    first, second = ids(ds), [int(x) for x in ds]
    assert sorted(first) == sorted(second) == list(range(20))
    assert first != second


def test_reshuffle_off_gives_every_iterator_the_same_order():
    ds = R(20).shuffle(20, seed=0, reshuffle_each_iteration=False)
    assert ids(ds) == ids(ds) == [int(x) for x in ds]


def test_the_seed_fixes_the_sequence_of_orders():
    a, b = R(20).shuffle(20, seed=7), R(20).shuffle(20, seed=7)
    assert [ids(a), ids(a)] == [ids(b), ids(b)]


# ------------------------------------------------------------------ where shuffle sits in the pipeline
def test_shuffle_after_batch_shuffles_whole_batches():
    batches = [b.tolist() for b in tf.data.Dataset.range(20).batch(5).shuffle(4, seed=1).as_numpy_iterator()]
    assert all(b == list(range(b[0], b[0] + 5)) for b in batches)
    assert [b[0] for b in batches] != [0, 5, 10, 15]


def test_shuffle_then_repeat_keeps_epochs_apart_and_reshuffles():
    order = ids(tf.data.Dataset.range(10).shuffle(10, seed=0).repeat(3))
    epochs = [order[i * 10 : (i + 1) * 10] for i in range(3)]
    assert all(sorted(e) == list(range(10)) for e in epochs)
    assert epochs[0] != epochs[1]  # reshuffle_each_iteration=True by default


def test_repeat_reshuffles_each_epoch_like_a_new_iterator():
    order = ids(R(20).shuffle(20, seed=0).repeat(2))
    assert order[:20] != order[20:] and sorted(order[20:]) == list(range(20))


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


def test_repeat_then_shuffle_can_emit_an_id_twice_before_another_once():
    found = False
    for seed in range(20):
        order = ids(R(10).repeat(3).shuffle(10, seed=seed))
        for pos, x in enumerate(order):
            if x in order[:pos] and set(range(10)) - set(order[:pos + 1]):
                found = True
                break
    assert found


def test_pipeline_is_lazy_not_stage_after_stage():
    """The first element comes out after reading only B inputs, not the whole dataset."""
    seen = []

    def record(x):
        seen.append(int(x))
        return x

    ds = tf.data.Dataset.range(1000).map(lambda x: tf.py_function(record, [x], tf.int64)).shuffle(5, seed=0)
    next(iter(ds))
    assert len(seen) <= 10


# ------------------------------------------------------------------ leakage and the splitting rule
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


def test_the_splitting_rule_never_leaks_and_reshuffles_the_training_part():
    labels = np.repeat(np.arange(5), 20)  # a sorted source: splitting it raw would put one class in test
    fixed = tf.data.Dataset.from_tensor_slices(np.arange(100)).shuffle(100, seed=0, reshuffle_each_iteration=False)
    train, test = fixed.take(80).shuffle(80, seed=1), fixed.skip(80)
    epochs = [(ids(train), ids(test)) for _ in range(3)]
    test_ids = set(epochs[0][1])
    for tr, te in epochs:
        assert set(te) == test_ids and not set(tr) & test_ids and len(tr) == 80
    assert epochs[0][0] != epochs[1][0]  # a new training order every epoch
    assert len({labels[i] for i in test_ids}) >= 4  # the test part is a random sample of a sorted source
    raw_test = set(range(80, 100))
    assert {labels[i] for i in raw_test} == {4}  # the raw split would test on one class only


def test_the_splitting_rule_is_random_whatever_the_source_order():
    ordered = R(1000)  # sorted, like a file sorted by class
    fixed = ordered.shuffle(1000, seed=0, reshuffle_each_iteration=False)
    val = [int(v) for v in fixed.take(100)]
    assert max(val) > 900 and min(val) < 100  # not a slice of the sorted source
    assert [int(v) for v in ordered.take(100)] == list(range(100))  # what splitting the raw source would give
