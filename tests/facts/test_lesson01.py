"""The facts lesson 01 (Datasets from data) states, checked on real TensorFlow.

* a dataset is a recipe; every for loop or iter() makes an iterator, one pass with its own state (Keras's fit
  makes one per epoch, and takes (dict, label) pairs);
* elements are made on demand, and the prefetch TensorFlow injects (inject_prefetch, on by default) runs a
  little ahead of the loop; with it off, only the element asked for is made;
* element_spec is known without producing an element; from_tensor_slices cuts arrays, lists, tuples and dicts,
  and rows of different lengths need a ragged tensor; zip keeps the nesting;
* a pandas DataFrame goes in as dict(df), one dict per row, strings as bytes; NumPy and pandas floats stay
  float64, Python floats become float32; a ragged row's spec has ragged_rank 0 and comes out as a plain Tensor;
* a list is one tensor (one dtype, rectangular), a tuple a structure; a list returned by map becomes a tuple,
  tf.stack makes one tensor; NamedTuple and OrderedDict elements keep their types, and map gets a NamedTuple as
  one argument; a SparseTensor element has a SparseTensorSpec, and value_type names each part's type.

"Runs ahead" is decided by an event, never by a duration: the test waits until the element after the one it
asked for has been made. A busy machine can only make that wait longer (up to a minute); it cannot change what
happened.
"""
import collections
import typing

import numpy as np
import pytest
import tensorflow as tf

from .helpers import R, Recorder, ids, without_injected_prefetch


# ------------------------------------------- a dataset from arrays, lists, tuples and dicts; rows of different lengths
def test_from_tensor_slices_cuts_a_2d_array_into_rows():
    rows = [r.tolist() for r in tf.data.Dataset.from_tensor_slices(np.arange(6).reshape(3, 2)).as_numpy_iterator()]
    assert rows == [[0, 1], [2, 3], [4, 5]]


def test_from_tensor_slices_on_lists_arrays_tuples_dicts():
    assert ids(tf.data.Dataset.from_tensor_slices([0, 1, 2])) == [0, 1, 2]
    assert ids(tf.data.Dataset.from_tensor_slices(np.arange(3))) == [0, 1, 2]
    pairs = list(tf.data.Dataset.from_tensor_slices((tf.range(3), tf.range(10, 13))).as_numpy_iterator())
    assert [(int(a), int(b)) for a, b in pairs] == [(0, 10), (1, 11), (2, 12)]
    d = next(iter(tf.data.Dataset.from_tensor_slices({"x": [1, 2], "y": [3, 4]}).as_numpy_iterator()))
    assert d == {"x": 1, "y": 3}


def test_ragged_list_fails_and_ragged_constant_works():
    with pytest.raises((ValueError, TypeError)):
        tf.data.Dataset.from_tensor_slices([[1, 2], [3], [4, 5, 6]])
    rows = [r.tolist() for r in tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6]])).as_numpy_iterator()]
    assert rows == [[1, 2], [3], [4, 5, 6]]


# ------------------------------------------------------------------ recipes and iterators
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


# ------------------------------------------------------------------ when is the work done?
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


# ------------------------------------------------------------------ element_spec and zip
def test_element_spec_is_known_before_any_element_is_made():
    recorder = Recorder()
    ds = recorder.watch(R(10)).batch(4)
    assert isinstance(ds.element_spec, tf.TensorSpec)
    assert recorder.made == []


def test_zip_accepts_datasets_as_separate_arguments_too():
    xs, ys = R(-3, 0), tf.data.Dataset.from_tensor_slices((tf.range(3), tf.range(10, 13)))
    assert tf.data.Dataset.zip(xs, ys).element_spec == tf.data.Dataset.zip((xs, ys)).element_spec


def test_zip_keeps_nesting():
    xs = tf.data.Dataset.range(-3, 0)
    ys = tf.data.Dataset.from_tensor_slices((tf.range(3), tf.range(10, 13)))
    first = next(iter(tf.data.Dataset.zip((xs, ys)).as_numpy_iterator()))
    assert first[0] == -3 and tuple(int(v) for v in first[1]) == (0, 10)


# ------------------------------------------- pandas, dtypes, and the structures an element can have
def test_a_dataframe_goes_in_as_a_dict_of_its_columns_one_dict_per_row():
    import pandas as pd
    table = pd.DataFrame({"height": [1.5, 1.75], "age": [30, 41], "city": ["Oslo", "Lima"]})
    rows = tf.data.Dataset.from_tensor_slices(dict(table))
    assert list(rows.as_numpy_iterator()) == [{"height": 1.5, "age": 30, "city": b"Oslo"},
                                              {"height": 1.75, "age": 41, "city": b"Lima"}]
    assert {k: spec.dtype for k, spec in rows.element_spec.items()} == {
        "height": tf.float64, "age": tf.int64, "city": tf.string}


def test_numpy_floats_stay_float64_python_floats_become_float32():
    assert tf.data.Dataset.from_tensor_slices(np.array([0.5, 1.0])).element_spec.dtype == tf.float64
    assert tf.data.Dataset.from_tensor_slices([0.5, 1.0]).element_spec.dtype == tf.float32


def test_a_ragged_row_has_no_ragged_dimension_and_comes_out_as_a_plain_tensor():
    spec = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3]])).element_spec
    assert isinstance(spec, tf.RaggedTensorSpec)
    assert spec.shape.as_list() == [None] and spec.ragged_rank == 0 and spec.row_splits_dtype == tf.int64
    assert spec.value_type is tf.Tensor
    first = next(iter(tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3]]))))
    assert isinstance(first, tf.Tensor) and not isinstance(first, tf.RaggedTensor)


def test_a_list_is_one_tensor_and_a_tuple_a_structure():
    as_list = tf.data.Dataset.from_tensor_slices([[1, 2, 3], [4, 5, 6]])
    assert isinstance(as_list.element_spec, tf.TensorSpec) and as_list.element_spec.shape == (3,)
    assert [r.tolist() for r in as_list.as_numpy_iterator()] == [[1, 2, 3], [4, 5, 6]]
    as_tuple = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6]))
    assert [(int(a), int(b)) for a, b in as_tuple.as_numpy_iterator()] == [(1, 4), (2, 5), (3, 6)]
    with pytest.raises((ValueError, TypeError)):  # a list must become one tensor: one dtype
        tf.data.Dataset.from_tensor_slices([[1, 2], ["a", "b"]])
    mixed = tf.data.Dataset.from_tensor_slices(([1, 2], ["a", "b"]))  # a tuple's parts may differ
    assert [s.dtype for s in mixed.element_spec] == [tf.int32, tf.string]


def test_a_list_returned_by_map_becomes_a_tuple_and_tf_stack_makes_one_tensor():
    returns_list = tf.data.Dataset.range(3).map(lambda x: [x, x * 10])
    assert isinstance(returns_list.element_spec, tuple) and len(returns_list.element_spec) == 2
    assert [(int(a), int(b)) for a, b in returns_list.as_numpy_iterator()] == [(0, 0), (1, 10), (2, 20)]
    stacked = tf.data.Dataset.range(3).map(lambda x: tf.stack([x, x * 10]))
    assert isinstance(stacked.element_spec, tf.TensorSpec) and stacked.element_spec.shape == (2,)


class _Point(typing.NamedTuple):
    x: float
    y: float


def test_named_tuple_and_ordered_dict_elements_keep_their_types():
    points = tf.data.Dataset.from_tensor_slices(_Point(x=[1.0, 2.0], y=[10.0, 20.0]))
    assert isinstance(points.element_spec, _Point)
    first = next(iter(points))
    assert isinstance(first, _Point) and float(first.x) == 1.0
    # map gets the named tuple as one argument (only a plain tuple is split into arguments)
    assert [float(v) for v in points.map(lambda p: p.x + p.y).as_numpy_iterator()] == [11.0, 22.0]
    with pytest.raises(TypeError):
        tf.data.Dataset.from_tensor_slices(([1.0], [2.0])).map(lambda p: p[0] + p[1])
    ordered = tf.data.Dataset.from_tensor_slices(collections.OrderedDict(height=[1.5, 1.75], age=[30, 41]))
    element = next(iter(ordered))
    assert isinstance(element, collections.OrderedDict) and list(element) == ["height", "age"]


def test_a_sparse_element_has_a_sparse_spec_and_value_type_names_each_part():
    sparse = tf.data.Dataset.from_tensors(
        tf.sparse.SparseTensor(indices=[[0, 1], [2, 3]], values=[7, 8], dense_shape=[3, 4]))
    assert isinstance(sparse.element_spec, tf.SparseTensorSpec)
    assert sparse.element_spec.value_type is tf.sparse.SparseTensor
    element = next(iter(sparse))
    assert isinstance(element, tf.sparse.SparseTensor)
    assert tf.sparse.to_dense(element).numpy().tolist() == [[0, 7, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]]
    assert tf.data.Dataset.range(3).element_spec.value_type is tf.Tensor
