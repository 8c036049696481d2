"""The facts lesson 01 (Datasets from data) states, checked on real TensorFlow.

* a dataset is a recipe; every for loop or iter() makes an iterator, one pass with its own state (Keras's fit
  makes one per epoch, and takes (dict, label) pairs);
* elements are made on demand, and the prefetch TensorFlow injects (inject_prefetch, on by default) runs a
  little ahead of the loop; with it off, only the element asked for is made;
* element_spec is known without producing an element; from_tensor_slices cuts arrays, lists, tuples and dicts,
  and rows of different lengths need a ragged tensor; zip keeps the nesting.

"Runs ahead" is decided by an event, never by a duration: the test waits until the element after the one it
asked for has been made. A busy machine can only make that wait longer (up to a minute); it cannot change what
happened.
"""
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
