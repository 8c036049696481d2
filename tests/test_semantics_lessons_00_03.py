"""Facts that lessons 01-03 state and tests/test_semantics_order.py does not yet check, on real TensorFlow.

* a dataset is a recipe; every for loop or iter() makes an iterator, one pass with its own state;
* elements are made on demand, and the prefetch TensorFlow injects (inject_prefetch, on by default) runs a
  little ahead of the loop; with it off, only the element asked for is made;
* element_spec is known without producing an element;
* batch() cannot stack elements of different shapes; with drop_remainder and a reshuffling shuffle, a different
  element is dropped in each epoch;
* a shuffle that reshuffles gives every iterator a new order, even with a seed; the seed fixes the sequence of
  orders; the first element out comes after exactly buffer_size reads (without the injected prefetch);
* repeat before shuffle can emit an id twice before another id once;
* a small buffer over sorted data leaves every batch with a few classes only;
* the splitting rule: a fixed order, take/skip, then a reshuffled training part never leaks.

"Runs ahead" is decided by an event, never by a duration: the test waits until the element after the one it
asked for has been made. A busy machine can only make that wait longer (up to a minute); it cannot change what
happened.
"""
import threading

import numpy as np
import re

import pytest
import tensorflow as tf

R = tf.data.Dataset.range


def ids(ds):
    return [int(x) for x in ds.as_numpy_iterator()]


def without_injected_prefetch(ds):
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    return ds.with_options(options)


class Recorder:
    """Records which ids a map computed; ``ahead`` is set once an id other than the first was computed."""

    def __init__(self):
        self.made = []
        self.ahead = threading.Event()

    def __call__(self, x):
        self.made.append(int(x))
        if int(x) > 0:
            self.ahead.set()
        return x

    def watch(self, ds):
        return ds.map(lambda x: tf.py_function(self, [x], tf.int64))


# ------------------------------------------------------------------ lesson 01: recipes and iterators
def test_from_tensor_slices_cuts_a_2d_array_into_rows():
    rows = [r.tolist() for r in tf.data.Dataset.from_tensor_slices(np.arange(6).reshape(3, 2)).as_numpy_iterator()]
    assert rows == [[0, 1], [2, 3], [4, 5]]


def test_every_iterator_is_its_own_pass_with_its_own_state():
    ds = R(5)
    first, second = iter(ds), iter(ds)
    assert [int(next(first)), int(next(first)), int(next(second)), int(next(first))] == [0, 1, 0, 2]
    assert ids(ds) == ids(ds) == [0, 1, 2, 3, 4]  # every loop starts over


def test_a_generator_is_used_up_but_a_dataset_starts_over():
    gen = (x for x in range(3))
    assert list(gen) == [0, 1, 2] and list(gen) == []
    ds = R(3)
    assert [int(x) for x in ds] == [int(x) for x in ds] == [0, 1, 2]


def test_injected_prefetch_is_on_by_default():
    assert tf.data.Options().experimental_optimization.inject_prefetch in (None, True)  # None means on


def test_the_injected_prefetch_runs_ahead_of_the_loop():
    recorder = Recorder()
    iterator = iter(recorder.watch(R(1000)))
    assert int(next(iterator)) == 0
    assert recorder.ahead.wait(60), "nothing was made after the element asked for"
    assert max(recorder.made) < 1000  # a little ahead, never the whole dataset up front


def test_without_the_injected_prefetch_only_the_asked_element_is_made():
    recorder = Recorder()
    iterator = iter(without_injected_prefetch(recorder.watch(R(1000))))
    assert int(next(iterator)) == 0
    assert recorder.made == [0]
    assert int(next(iterator)) == 1
    assert recorder.made == [0, 1]


def test_take_stops_reading_where_it_ends():
    recorder = Recorder()
    assert ids(recorder.watch(R(1000)).take(3)) == [0, 1, 2]
    assert recorder.made == [0, 1, 2]


def test_element_spec_is_known_before_any_element_is_made():
    recorder = Recorder()
    ds = recorder.watch(R(10)).batch(4)
    assert isinstance(ds.element_spec, tf.TensorSpec)
    assert recorder.made == []


def test_zip_accepts_datasets_as_separate_arguments_too():
    xs, ys = R(-3, 0), tf.data.Dataset.from_tensor_slices((tf.range(3), tf.range(10, 13)))
    assert tf.data.Dataset.zip(xs, ys).element_spec == tf.data.Dataset.zip((xs, ys)).element_spec


# ------------------------------------------------------------------ lesson 02: batch and repeat
def test_batch_groups_consecutive_elements_and_the_last_batch_is_short():
    assert [b.tolist() for b in R(10).batch(4).as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_batch_cannot_stack_sequences_of_different_lengths():
    sequences = R(1, 5).map(lambda n: tf.fill([n], n))
    with pytest.raises(tf.errors.InvalidArgumentError):
        next(iter(sequences.batch(2)))


def test_drop_remainder_drops_different_elements_when_each_epoch_is_reshuffled():
    ds = R(10).shuffle(10, seed=0).batch(4, drop_remainder=True).repeat(3)
    batches = [b.tolist() for b in ds.as_numpy_iterator()]
    assert [len(b) for b in batches] == [4] * 6
    dropped = [frozenset(range(10)) - {i for b in batches[2 * e:2 * e + 2] for i in b} for e in range(3)]
    assert all(len(d) == 2 for d in dropped)
    assert len(set(dropped)) > 1


def test_repeat_plays_the_dataset_count_times_in_a_row():
    assert ids(R(3).repeat(2)) == [0, 1, 2, 0, 1, 2]


def test_bucket_by_sequence_length_groups_similar_lengths():
    sequences = R(1, 9).map(lambda n: tf.fill([n], n))
    buckets = sequences.bucket_by_sequence_length(lambda s: tf.shape(s)[0], bucket_boundaries=[5],
                                                  bucket_batch_sizes=[4, 4])
    widths = sorted(b.shape[1] for b in buckets.as_numpy_iterator())
    assert widths == [4, 8]  # lengths 1-4 padded to 4, lengths 5-8 padded to 8 (not all to 8)


# ------------------------------------------------------------------ lesson 03: shuffle
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


def test_repeat_reshuffles_each_epoch_like_a_new_iterator():
    order = ids(R(20).shuffle(20, seed=0).repeat(2))
    assert order[:20] != order[20:] and sorted(order[20:]) == list(range(20))


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


def test_repeat_then_shuffle_can_emit_an_id_twice_before_another_once():
    found = False
    for seed in range(20):
        order = ids(R(10).repeat(3).shuffle(10, seed=seed))
        for pos, x in enumerate(order):
            if x in order[:pos] and set(range(10)) - set(order[:pos + 1]):
                found = True
                break
    assert found


def test_a_small_buffer_over_sorted_labels_leaves_batches_with_few_classes():
    labels = np.repeat(np.arange(5), 20)  # sorted: all 0s, then all 1s, ...
    batches = tf.data.Dataset.from_tensor_slices(labels).shuffle(10, seed=0).batch(10)
    classes = [len(set(b.tolist())) for b in batches.as_numpy_iterator()]
    assert max(classes) <= 3  # ids move at most buffer_size - 1 = 9 places earlier
    full = tf.data.Dataset.from_tensor_slices(labels).shuffle(100, seed=0).batch(10)
    assert max(len(set(b.tolist())) for b in full.as_numpy_iterator()) >= 4


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


def test_repeat_starts_a_new_pass_over_its_input_every_epoch():
    recorder = Recorder()
    assert ids(recorder.watch(R(3)).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert recorder.made == [0, 1, 2, 0, 1, 2]  # the map ran again: nothing was kept from the first pass


def test_the_batch_error_names_the_mismatch():
    sequences = R(1, 5).map(lambda n: tf.fill([n], n))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot add tensor to the batch: number of elements "
                                                             "does not match"):
        next(iter(sequences.batch(2)))


@pytest.mark.parametrize("buffer_size", [2, 10])
def test_late_moves_go_beyond_the_early_bound(buffer_size):
    from tutor.stats import shuffle_stats

    lates = [shuffle_stats(ids(R(100).shuffle(buffer_size, seed=s)))["max_moved_later"] for s in range(10)]
    assert min(lates) > buffer_size - 1


def test_keras_fit_makes_a_new_iterator_every_epoch_and_takes_dict_inputs():
    import keras

    recorder = Recorder()
    xs = recorder.watch(R(4))
    data = xs.map(lambda x: ({"height": tf.reshape(tf.cast(x, tf.float32), [1]),
                              "age": tf.reshape(tf.cast(x, tf.float32), [1])},
                             tf.reshape(tf.cast(x, tf.float32), [1]))).batch(2)
    height, age = keras.Input(shape=(1,), name="height"), keras.Input(shape=(1,), name="age")
    model = keras.Model([height, age], keras.layers.Dense(1)(keras.layers.Concatenate()([height, age])))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(data, epochs=2, verbose=0)
    assert sorted(recorder.made) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert recorder.made[:4] == [0, 1, 2, 3]  # epoch 2 started from the first element again: a new pass


# ------------------------------------------------------------------ lesson 02: shapes, full batches, parallel batch
def test_xla_traces_and_compiles_again_for_the_short_last_batch():
    @tf.function(jit_compile=True)
    def double_sum(x):
        return tf.reduce_sum(x * 2)

    for batch in R(10).batch(4):  # shapes [4], [4], [2]
        double_sum(batch)
    assert double_sum.experimental_get_tracing_count() == 2

    @tf.function(jit_compile=True)
    def double_sum_static(x):
        return tf.reduce_sum(x * 2)

    for batch in R(10).batch(4, drop_remainder=True):
        double_sum_static(batch)
    assert double_sum_static.experimental_get_tracing_count() == 1


def test_only_the_endless_repeat_gives_every_batch_full():
    assert [len(b) for b in R(10).repeat(3).batch(7).as_numpy_iterator()] == [7, 7, 7, 7, 2]
    assert {len(b) for b in R(10).repeat().batch(7).take(50).as_numpy_iterator()} == {7}


def test_parallel_batch_gives_the_same_batches_in_the_same_order():
    parallel = R(10).batch(4, num_parallel_calls=tf.data.AUTOTUNE)
    assert [b.tolist() for b in parallel.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    big = R(2000).map(lambda i: tf.fill([256], i))
    sequential = [b.tolist() for b in big.batch(32).as_numpy_iterator()]
    assert [b.tolist() for b in big.batch(32, num_parallel_calls=4).as_numpy_iterator()] == sequential
    graph = parallel._as_serialized_graph().numpy().decode("latin-1")
    assert "ParallelBatchDataset" in graph


def test_the_printed_batch_error_is_the_sentence_without_op_names():
    sequences = R(1, 5).map(lambda n: tf.fill([n], n))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        next(iter(sequences.batch(2)))
    sentence = info.value.message.split("}} ")[-1].split(" [Op:")[0]
    assert sentence.startswith("Cannot add tensor to the batch: number of elements does not match.")
    # Which of the two shapes TensorFlow calls "tensor" and which "batch" differs between releases (2.20, 2.21).
    assert re.search(r"Shapes are: \[tensor\]: \[[12]\], \[batch\]: \[[12]\]", sentence), sentence
    assert "IteratorGetNext" not in sentence
