"""The facts lesson 02 (Batch and repeat) states, checked on real TensorFlow.

* batch() groups consecutive elements and the last batch is short; drop_remainder gives a static batch
  dimension (XLA compiles once), and with a reshuffling shuffle it drops different elements each epoch;
* repeat plays the dataset again, a new pass over its input each time; repeat() never ends;
* the order of batch and repeat decides where the short batches fall;
* batch() cannot stack elements of different shapes (the error says so); padded_batch and ragged_batch can;
  padded_shapes fixes the padded length per dimension (static; a longer element fails; None pads to the
  longest), padding_values sets the value padded in and must have the element's dtype;
* batch(num_parallel_calls=...) works ahead in the background, as a prefetch does.
"""
import re
import time

import pytest
import tensorflow as tf

from tutor.timeline import naive_options

from .helpers import R, Recorder, ids


# ------------------------------------------------------------------ batch, drop_remainder and static shapes
def sizes(ds):
    return [len(b) for b in ds.as_numpy_iterator()]


def test_batch_groups_consecutive_elements_and_the_last_batch_is_short():
    assert [b.tolist() for b in R(10).batch(4).as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_drop_remainder_gives_static_batch_dimension():
    assert tf.data.Dataset.range(10).batch(4).element_spec.shape.as_list() == [None]
    assert tf.data.Dataset.range(10).batch(4, drop_remainder=True).element_spec.shape.as_list() == [4]
    assert sizes(tf.data.Dataset.range(10).batch(4, drop_remainder=True)) == [4, 4]


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


def test_drop_remainder_drops_different_elements_when_each_epoch_is_reshuffled():
    ds = R(10).shuffle(10, seed=0).batch(4, drop_remainder=True).repeat(3)
    batches = [b.tolist() for b in ds.as_numpy_iterator()]
    assert [len(b) for b in batches] == [4] * 6
    dropped = [frozenset(range(10)) - {i for b in batches[2 * e:2 * e + 2] for i in b} for e in range(3)]
    assert all(len(d) == 2 for d in dropped)
    assert len(set(dropped)) > 1


def test_drop_remainder_leaves_out_a_different_few_each_epoch_when_the_data_reshuffles():
    ds = R(100).shuffle(100, seed=1).batch(32, drop_remainder=True)
    left_out = [set(range(100)) - {int(i) for b in ds for i in b} for _ in range(2)]
    assert [len(s) for s in left_out] == [4, 4] and left_out[0] != left_out[1]
    assert ds.element_spec.shape.as_list() == [32]


def test_parallel_batch_gives_the_same_batches_in_the_same_order():
    parallel = R(10).batch(4, num_parallel_calls=tf.data.AUTOTUNE)
    assert [b.tolist() for b in parallel.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    big = R(2000).map(lambda i: tf.fill([256], i))
    sequential = [b.tolist() for b in big.batch(32).as_numpy_iterator()]
    assert [b.tolist() for b in big.batch(32, num_parallel_calls=4).as_numpy_iterator()] == sequential
    graph = parallel._as_serialized_graph().numpy().decode("latin-1")
    assert "ParallelBatchDataset" in graph


# ------------------------------------------------------------------ repeat
def test_repeat_plays_the_dataset_count_times_in_a_row():
    assert ids(R(3).repeat(2)) == [0, 1, 2, 0, 1, 2]


def test_repeat_starts_a_new_pass_over_its_input_every_epoch():
    recorder = Recorder()
    assert ids(recorder.watch(R(3)).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert recorder.made == [0, 1, 2, 0, 1, 2]  # the map ran again: nothing was kept from the first pass


def test_repeat_without_count_is_infinite():
    ds = tf.data.Dataset.range(3).repeat()
    assert int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY)
    assert ids(ds.take(7)) == [0, 1, 2, 0, 1, 2, 0]


# ------------------------------------------------------------------ the order of batch and repeat
def test_repeat_then_batch_sizes():
    assert sizes(tf.data.Dataset.range(10).repeat(3).batch(7)) == [7, 7, 7, 7, 2]


def test_batch_then_repeat_sizes():
    assert sizes(tf.data.Dataset.range(10).batch(7).repeat(3)) == [7, 3, 7, 3, 7, 3]


def test_only_the_endless_repeat_gives_every_batch_full():
    assert [len(b) for b in R(10).repeat(3).batch(7).as_numpy_iterator()] == [7, 7, 7, 7, 2]
    assert {len(b) for b in R(10).repeat().batch(7).take(50).as_numpy_iterator()} == {7}


# -------------------------------------------------------- elements of different lengths: padded_batch and ragged_batch
def test_batch_cannot_stack_sequences_of_different_lengths():
    sequences = R(1, 5).map(lambda n: tf.fill([n], n))
    with pytest.raises(tf.errors.InvalidArgumentError):
        next(iter(sequences.batch(2)))


def test_the_batch_error_names_the_mismatch():
    sequences = R(1, 5).map(lambda n: tf.fill([n], n))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot add tensor to the batch: number of elements "
                                                             "does not match"):
        next(iter(sequences.batch(2)))


def test_the_printed_batch_error_is_the_sentence_without_op_names():
    sequences = R(1, 5).map(lambda n: tf.fill([n], n))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        next(iter(sequences.batch(2)))
    sentence = info.value.message.split("}} ")[-1].split(" [Op:")[0]
    assert sentence.startswith("Cannot add tensor to the batch: number of elements does not match.")
    # Which of the two shapes TensorFlow calls "tensor" and which "batch" differs between releases (2.20, 2.21).
    assert re.search(r"Shapes are: \[tensor\]: \[[12]\], \[batch\]: \[[12]\]", sentence), sentence
    assert "IteratorGetNext" not in sentence


def test_padded_batch_pads_to_longest_in_batch():
    seqs = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    batches = [b.tolist() for b in seqs.padded_batch(2).as_numpy_iterator()]
    assert batches == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]


def test_ragged_batch_keeps_lengths():
    seqs = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n))
    batch = next(iter(seqs.ragged_batch(3)))
    assert isinstance(batch, tf.RaggedTensor)
    assert batch.row_lengths().numpy().tolist() == [1, 2, 3]


def test_padded_shapes_fixes_the_length_per_dimension_and_padding_values_the_pad():
    seqs = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    fixed = seqs.padded_batch(2, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64))
    assert [b.tolist() for b in fixed.as_numpy_iterator()] == [
        [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]], [[3, 3, 3, -1, -1], [4, 4, 4, 4, -1]]]
    assert fixed.element_spec.shape.as_list() == [None, 5]  # the padded dimension is static
    assert seqs.padded_batch(2).element_spec.shape.as_list() == [None, None]
    # one entry per dimension: None pads that dimension to the longest in the batch, a number to that length
    grids = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n, 2], n))
    batch = next(iter(grids.padded_batch(3, padded_shapes=[None, 4])))
    assert batch.shape == (3, 3, 4) and batch[0].numpy().tolist() == [[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


def test_an_element_longer_than_padded_shapes_fails():
    seqs = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    with pytest.raises(tf.errors.OpError, match="pad to a smaller size"):
        list(seqs.padded_batch(2, padded_shapes=[3]).as_numpy_iterator())


def test_padding_values_must_have_the_elements_dtype():
    seqs = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))  # int64
    with pytest.raises(TypeError, match="padding_values"):
        seqs.padded_batch(2, padded_shapes=[5], padding_values=-1)  # a Python int becomes int32


def test_a_parallel_batch_works_ahead_in_the_background():
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False  # only the batch itself may work ahead
    recorder = Recorder()
    iterator = iter(recorder.watch(R(1000)).batch(1, num_parallel_calls=2).with_options(options))
    assert next(iterator).numpy().tolist() == [0]
    assert recorder.ahead.wait(60), "the parallel batch made nothing after the batch asked for"
    plain = Recorder()  # no optimization at all: map_and_batch_fusion would make map + batch one parallel stage
    iterator = iter(plain.watch(R(1000)).batch(1).with_options(naive_options()))
    assert next(iterator).numpy().tolist() == [0]
    time.sleep(0.2)
    assert plain.made == [0]
