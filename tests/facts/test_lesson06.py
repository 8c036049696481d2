"""The facts lesson 06 (Reshaping streams) states, checked on real TensorFlow.

Among them: interleave refills an emptied slot when the cycle reaches it; reduce counts class shares for rejection_resample's
initial_dist, which the sampler takes as a tensor, and the sampler prints its high-rejection warning (up to ten
lines, to stderr) whenever more than half would be rejected, as it always is for two unequal classes; windows cut
side by side with batch(drop_remainder=True), and labels from a skip(1) copy zipped to them.
"""
import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor.checks._read import plain
from tutor.reading import ReadTimeout, read

from .helpers import R


# ------------------------------------------------------------------ from_tensors, unbatch, rebatch
def ids(ds):
    return [plain(x) for x in ds.as_numpy_iterator()]


def shard(i):
    return R(10 * i, 10 * i + 4)


def test_from_tensor_slices_cuts_rows_and_from_tensors_keeps_one_element():
    data = np.arange(6).reshape(3, 2)
    slices, whole = tf.data.Dataset.from_tensor_slices(data), tf.data.Dataset.from_tensors(data)
    assert slices.element_spec.shape == (2,) and ids(slices) == [[0, 1], [2, 3], [4, 5]]
    assert whole.element_spec.shape == (3, 2) and ids(whole) == [data.tolist()]
    assert ids(whole.repeat(3)) == [data.tolist()] * 3


def test_unbatch_undoes_batch_and_rebatch_equals_unbatch_batch():
    batches = R(10).batch(4)
    assert ids(batches.unbatch()) == list(range(10))
    assert ids(batches.rebatch(3)) == ids(batches.unbatch().batch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert "one copy instead of two" in " ".join(tf.data.Dataset.rebatch.__doc__.split())


# ------------------------------------------------------------------ filter, take_while, flat_map
def test_filter_reads_everything_and_take_while_stops_at_the_first_false():
    read_ids = []

    def note(x):
        read_ids.append(int(x))
        return x

    counted = R(10).map(lambda x: tf.py_function(note, [x], tf.int64))
    assert ids(counted.take_while(lambda x: x % 4 != 3)) == [0, 1, 2]
    assert read_ids == [0, 1, 2, 3], "take_while read past the first element that failed"
    read_ids.clear()
    assert ids(counted.filter(lambda x: x % 4 != 3)) == [0, 1, 2, 4, 5, 6, 8, 9]
    assert read_ids == list(range(10))


def test_filter_and_take_while_make_the_length_unknown():
    for ds in (R(10).filter(lambda x: x > 3), R(10).take_while(lambda x: x < 3)):
        assert int(ds.cardinality()) == int(tf.data.UNKNOWN_CARDINALITY) == -2
        with pytest.raises(TypeError, match="unknown"):
            len(ds)


def test_a_filter_that_never_matches_an_endless_stream_never_yields():
    with pytest.raises(ReadTimeout):
        read(R(5).repeat().filter(lambda x: x < 0), max_elements=1, timeout=1.0)


def test_flat_map_plays_the_datasets_in_order_and_can_drop_an_element():
    copies = R(4).flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
    assert ids(copies) == [1, 2, 2, 3, 3, 3]


def test_flat_map_reads_files_one_after_another(tmp_path):
    paths = []
    for k in range(2):
        path = tmp_path / f"part{k}.txt"
        path.write_text(f"{k}a\n{k}b\n")
        paths.append(str(path))
    lines = tf.data.Dataset.from_tensor_slices(paths).flat_map(tf.data.TextLineDataset)
    assert [x.decode() for x in lines.as_numpy_iterator()] == ["0a", "0b", "1a", "1b"]


# ------------------------------------------------------------------ concatenate, zip, interleave
def test_concatenate_plays_one_after_the_other_and_needs_the_same_types():
    a, b = R(0, 8), R(100, 104)
    assert ids(a.concatenate(b)) == list(range(8)) + [100, 101, 102, 103]
    with pytest.raises(TypeError):
        a.concatenate(tf.data.Dataset.from_tensor_slices(["text"]))


def test_zip_stops_at_the_shorter():
    pairs = ids(tf.data.Dataset.zip((R(0, 8), R(100, 104))))
    assert pairs == [[0, 100], [1, 101], [2, 102], [3, 103]]


def test_interleave_cycle_length_2_block_length_3_order():
    mixed = R(3).interleave(shard, cycle_length=2, block_length=3)
    assert ids(mixed) == [0, 1, 2, 10, 11, 12, 3, 13, 20, 21, 22, 23]


def test_interleave_refills_an_emptied_slot_when_the_cycle_reaches_it():
    """Shard 2 takes shard 0's slot when the cycle comes back to it: after A3 and B3, not when shard 0 runs out."""
    events = []

    def note(kind, value):
        events.append((kind, int(value)))
        return value

    def seen(kind):
        return lambda x: tf.py_function(lambda v: note(kind, v), [x], tf.int64)

    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    shards = R(3).map(seen("open")).interleave(lambda i: shard(i).map(seen("read")), cycle_length=2, block_length=3)
    assert ids(shards.with_options(options)) == [0, 1, 2, 10, 11, 12, 3, 13, 20, 21, 22, 23]
    assert events.index(("read", 3)) < events.index(("read", 13)) < events.index(("open", 2)) < events.index(("read", 20))


def test_interleave_with_cycle_length_1_is_flat_map():
    assert ids(R(3).interleave(shard, cycle_length=1)) == ids(R(3).flat_map(shard)) == \
        [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]


def test_parallel_interleave_keeps_the_order_by_default():
    sequential = R(3).interleave(shard, cycle_length=2, block_length=3)
    parallel = R(3).interleave(shard, cycle_length=2, block_length=3, num_parallel_calls=2)
    assert ids(parallel) == ids(sequential)
    assert "the tf.data runtime decides" in " ".join(tf.data.Dataset.interleave.__doc__.split())


# ------------------------------------------------------------------ sample_from_datasets, choose_from_datasets
def test_sample_from_datasets_default_goes_on_until_all_are_empty():
    a, b = R(0, 8), R(100, 104)
    for seed in range(5):
        out = ids(tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=seed))
        assert sorted(out) == list(range(8)) + [100, 101, 102, 103]


def test_sample_from_datasets_with_stop_on_empty_dataset_stops_at_the_first_pick_of_an_empty_source():
    small, big = R(0, 2), R(100, 200)
    for seed in range(5):
        out = ids(tf.data.Dataset.sample_from_datasets([small, big], weights=[0.5, 0.5], seed=seed,
                                                       stop_on_empty_dataset=True))
        assert [x for x in out if x < 100] == [0, 1], "the small source was not used up"
        assert len(out) < 102, "the stream went on after the small source ran out"
    a, b = R(0, 8), R(100, 104)
    keep = ids(tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=2))
    stop = ids(tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=2, stop_on_empty_dataset=True))
    assert keep[:len(stop)] == stop and set(range(100, 104)) <= set(stop) and len(stop) < len(keep)


def test_sample_from_datasets_weights_are_floats_and_relative():
    with pytest.raises(TypeError, match="float"):
        tf.data.Dataset.sample_from_datasets([R(3), R(10, 13)], weights=[1, 1])
    out = np.array(ids(tf.data.Dataset.sample_from_datasets([R(0, 3000), R(10000, 13000)], weights=[2.0, 2.0],
                                                            seed=0).take(2000)))
    assert 0.4 < np.mean(out >= 10000) < 0.6


def test_choose_from_datasets_stops_on_an_empty_source_by_default():
    a, b = R(0, 8), R(100, 104)
    choices = tf.data.Dataset.from_tensor_slices(tf.constant([1, 0, 1, 1, 0, 1, 1, 0], tf.int64))
    assert ids(tf.data.Dataset.choose_from_datasets([a, b], choices)) == [100, 0, 101, 102, 1, 103]
    skipping = tf.data.Dataset.choose_from_datasets([a, b], choices, stop_on_empty_dataset=False)
    assert ids(skipping) == [100, 0, 101, 102, 1, 103, 2]


# ------------------------------------------------------------------ rejection_resample
LABELS = [0] * 8 + [1] + [0] * 3 + [1] + [0] * 4 + [1] + [0] * 2


def _examples(labels):
    table = tf.constant(labels, tf.int64)
    return R(len(labels)).map(lambda i: (i, table[i]))


def test_rejection_resample_returns_class_and_example_pairs_and_drops_majority_examples():
    resampled = _examples(LABELS).rejection_resample(lambda i, label: label, target_dist=[0.5, 0.5],
                                                     initial_dist=[0.85, 0.15], seed=0)
    out = ids(resampled)
    assert all(cls == example[1] for cls, example in out)
    labels_out = [example[1] for _, example in out]
    assert labels_out.count(1) == 3 and labels_out.count(0) < 17 / 2


def test_rejection_resample_balances_a_long_stream():
    rng = np.random.default_rng(0)
    labels = (rng.random(3000) < 0.15).astype(int).tolist()
    resampled = _examples(labels).rejection_resample(lambda i, label: label, target_dist=[0.5, 0.5],
                                                     initial_dist=[0.85, 0.15], seed=0)
    share = np.mean([example[1] for _, example in ids(resampled)])
    assert 0.4 < share < 0.6


def test_rejection_resample_can_repeat_an_example():
    labels = [0] * 8 + [1] + [0] * 3 + [1] + [0] * 4 + [1] + [0] * 2
    out = ids(_examples(labels).rejection_resample(lambda i, label: label, target_dist=[0.5, 0.5],
                                                   initial_dist=[0.6, 0.4], seed=0).map(lambda c, e: e))
    assert len({tuple(e) for e in out}) < len(out), "no example came out twice"
    assert "reject **or repeat**" in tf.data.Dataset.rejection_resample.__doc__
    # it mixes the original stream with a filtered one: its last stage samples from the two
    resampled = _examples(labels).rejection_resample(lambda i, label: label, target_dist=[0.5, 0.5],
                                                     initial_dist=[0.85, 0.15], seed=0)
    stages = [stage.op for stage in tutor.doctor.read_pipeline(resampled)]
    assert stages[-1] == "DirectedInterleaveDataset" and "FilterDataset" in stages


def test_reduce_counts_the_class_shares_for_initial_dist():
    examples = _examples(LABELS)
    counts = examples.reduce(tf.zeros(2, tf.int64), lambda c, example: c + tf.one_hot(example[1], 2, dtype=tf.int64))
    assert counts.numpy().tolist() == [17, 3]
    initial_dist = counts / tf.reduce_sum(counts)
    counted = examples.rejection_resample(lambda i, label: label, target_dist=[0.5, 0.5], initial_dist=initial_dist,
                                          seed=0)
    typed = examples.rejection_resample(lambda i, label: label, target_dist=[0.5, 0.5], initial_dist=[0.85, 0.15],
                                        seed=0)
    assert ids(counted) == ids(typed)


@pytest.mark.parametrize("target", [[0.5, 0.5], [0.7, 0.3]])
def test_the_sampler_warns_about_high_rejection_on_stderr_up_to_ten_times(capfd, target):
    resampled = _examples(LABELS).rejection_resample(lambda i, label: label, target_dist=target,
                                                     initial_dist=[0.85, 0.15], seed=0)
    ids(resampled)
    lines = [line for line in capfd.readouterr().err.splitlines() if "rejected by sampler is high" in line]
    assert 1 <= len(lines) <= 10
    # the share rejected, the initial_dist, and the chance of keeping each class (class 0 never, class 1 always)
    assert lines[0].endswith("Proportion of examples rejected by sampler is high: [0.85][0.85 0.15][0 1]")


def test_the_sampler_is_quiet_when_at_most_half_would_be_rejected(capfd):
    three = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0] * 3  # 40 % of class 0: the filtered copy rejects only those, 0.4 < 0.5
    ids(_examples(three).rejection_resample(lambda i, label: label, target_dist=[0.3, 0.35, 0.35],
                                            initial_dist=[0.4, 0.3, 0.3], seed=0))
    assert "rejected by sampler is high" not in capfd.readouterr().err


# ------------------------------------------------------------------ window
def windows(ds, size, **options):
    return ds.window(size, **options).flat_map(lambda w: w.batch(size))


def test_windows_are_datasets_until_flat_mapped():
    assert isinstance(R(10).window(3).element_spec, tf.data.DatasetSpec)


def test_window_3_shift_2_drop_remainder_contents():
    assert ids(windows(R(10), 3, shift=2, drop_remainder=True)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8]]
    assert ids(windows(R(10), 3, shift=2))[-1] == [8, 9]


def test_window_stride_and_the_default_shift_is_the_size():
    assert ids(windows(R(10), 3, shift=3, stride=2, drop_remainder=True)) == [[0, 2, 4], [3, 5, 7]]
    assert ids(windows(R(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]


def test_time_series_pairs():
    pairs = windows(R(100, 110), 4, shift=1, drop_remainder=True).map(lambda w: (w[:-1], w[-1]))
    assert ids(pairs.take(3)) == [[[100, 101, 102], 103], [[101, 102, 103], 104], [[102, 103, 104], 105]]


def test_windows_side_by_side_from_batch_and_labels_from_a_skipped_copy():
    series = R(100, 120)
    chunks = series.batch(5, drop_remainder=True)
    assert ids(chunks.map(lambda c: (c[:-1], c[1:])).take(1)) == [[[100, 101, 102, 103], [101, 102, 103, 104]]]
    following = series.batch(5).skip(1).map(lambda c: c[:2])
    pairs = ids(tf.data.Dataset.zip((chunks, following)))
    assert pairs == [[[100, 101, 102, 103, 104], [105, 106]], [[105, 106, 107, 108, 109], [110, 111]],
                     [[110, 111, 112, 113, 114], [115, 116]]]  # four windows, three pairs: zip stops at the shorter


# ------------------------------------------------------------------ group_by_window, bucket_by_sequence_length
def test_group_by_window_emits_full_groups_then_the_open_ones():
    grouped = R(10).group_by_window(key_func=lambda x: x % 3, reduce_func=lambda key, group: group.batch(2),
                                    window_size=2)
    assert ids(grouped) == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]


LENGTHS = [1, 5, 2, 7, 1, 3, 6, 2, 4, 8, 3, 5]


def _sequences():
    table = tf.constant(LENGTHS, tf.int64)
    return R(12).map(lambda k: tf.range(10 * k + 1, 10 * k + 1 + table[k]))


def _padding(batches):
    return sum(int(np.sum(np.asarray(b) == 0)) for b in batches)


def test_bucket_by_sequence_length_batches_one_length_range_and_saves_padding():
    bucketed = _sequences().bucket_by_sequence_length(lambda s: tf.shape(s)[0], bucket_boundaries=[3, 6],
                                                      bucket_batch_sizes=[2, 2, 2])
    batches = ids(bucketed)
    ranges = [{0 if n < 3 else 1 if n < 6 else 2 for n in (int(np.count_nonzero(row)) for row in b)} for b in batches]
    assert all(len(r) == 1 for r in ranges)
    # each batch is padded to its own longest sequence only
    assert all(len(b[0]) == max(int(np.count_nonzero(row)) for row in b) for b in batches)
    # a bucket sends its batch as soon as it is full; the half-full ones come at the end
    firsts = [(row[0] - 1) // 10 for b in batches for row in b]
    assert firsts[:4] == [0, 2, 1, 5] and [len(b) for b in batches] == [2, 2, 2, 2, 2, 1, 1]
    assert _padding(batches) < _padding(ids(_sequences().padded_batch(2)))


def test_bucket_by_sequence_length_groups_similar_lengths():
    sequences = R(1, 9).map(lambda n: tf.fill([n], n))
    buckets = sequences.bucket_by_sequence_length(lambda s: tf.shape(s)[0], bucket_boundaries=[5],
                                                  bucket_batch_sizes=[4, 4])
    widths = sorted(b.shape[1] for b in buckets.as_numpy_iterator())
    assert widths == [4, 8]  # lengths 1-4 padded to 4, lengths 5-8 padded to 8 (not all to 8)


# ------------------------------------------------------------------ enumerate, scan, reduce
def test_enumerate_scan_and_reduce():
    temperatures = tf.data.Dataset.from_tensor_slices([12.0, 14.0, 9.0, 11.0, 16.0])
    assert ids(temperatures.enumerate())[0] == [0, 12.0]

    def running_mean(state, t):
        total, count = state[0] + t, state[1] + 1
        return (total, count), total / count

    means = ids(temperatures.scan((0.0, 0.0), running_mean))
    assert np.allclose(means, [12.0, 13.0, 35 / 3, 11.5, 12.4])
    total, count = temperatures.reduce((0.0, 0.0), lambda state, t: (state[0] + t, state[1] + 1))
    assert tf.is_tensor(total) and not isinstance(total, tf.data.Dataset)
    assert float(total / count) == pytest.approx(12.4) and int(count) == 5


# ------------------------------------------------------------------ keras.utils.timeseries_dataset_from_array
def test_timeseries_dataset_from_array_gives_the_window_pairs_batched():
    import keras

    values = np.arange(100, 110)
    ds = keras.utils.timeseries_dataset_from_array(values[:-1], targets=values[3:], sequence_length=3, batch_size=4)
    assert isinstance(ds, tf.data.Dataset)
    batches = list(ds.as_numpy_iterator())
    assert [len(t) for _, t in batches] == [4, 3]
    keras_pairs = [(w.tolist(), int(t)) for x, y in batches for w, t in zip(x, y)]
    windows = R(100, 110).window(4, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(4))
    by_hand = [(w[:-1].tolist(), int(w[-1])) for w in windows.as_numpy_iterator()]
    assert keras_pairs == by_hand  # the same pairs as window(4, shift=1) split into inputs and target


def test_timeseries_start_and_end_index_split_by_time_without_shared_input_rows():
    import keras

    values = np.arange(100, 110)

    def rows(**part):
        ds = keras.utils.timeseries_dataset_from_array(values[:-1], targets=values[3:], sequence_length=3, **part)
        return {int(v) for x, _ in ds.as_numpy_iterator() for w in x for v in w}

    train, val = rows(end_index=5), rows(start_index=5)
    assert train == {100, 101, 102, 103, 104} and val == {105, 106, 107, 108} and not train & val


def test_timeseries_stride_and_rate_are_shift_and_stride():
    import keras

    values = np.arange(12)
    ds = keras.utils.timeseries_dataset_from_array(values, None, sequence_length=3, sequence_stride=2, sampling_rate=2,
                                                   batch_size=100)
    keras_windows = next(ds.as_numpy_iterator()).tolist()
    by_hand = R(12).window(3, shift=2, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(3))
    assert keras_windows == [w.tolist() for w in by_hand.as_numpy_iterator()]
