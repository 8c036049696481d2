"""The facts lesson 04 (`map`) states, checked on real TensorFlow.

* the Python function given to map runs once, when map() traces it; the graph then runs per element;
* inside map the argument is symbolic; inside py_function it is eager and runs per element, per pass;
* a Python random number drawn in that function is drawn once; a TF random op draws per element;
* py_function loses the static shape; ensure_shape restores it and checks it at run time; set_shape only records
  it; Keras layers and tf.image need it;
* map_parallelization (on by default, with autotuning) runs a plain *stateless* map in parallel and leaves a
  py_function map alone (one call at a time); turning it or autotuning off keeps any plain map sequential;
* tutor.bench.CallRecorder, which the lesson counts calls with, sees calls in parallel.

Concurrency is decided by a meeting point, never by a duration: the first calls wait for each other
(releasing the GIL, as a sleep does). Where tf.data runs two calls at once they meet however busy the machine
is; where it runs one at a time the wait gives up and nobody met.
"""
import numpy as np
import pytest
import tensorflow as tf

import tutor
from busy import Meeting  # tests/busy.py: concurrency decided by a meeting point, never by a duration
from tutor.bench import CallRecorder, most_at_once

from .helpers import R


# ---------------------------------------------------------------- when your Python function runs: tracing, py_function
def test_map_runs_the_python_function_once_when_map_is_called():
    calls = []

    def times_ten(x):
        calls.append(type(x).__name__)
        return x * 10

    ds = tf.data.Dataset.range(6).map(times_ten)
    assert len(calls) == 1 and calls[0] != "EagerTensor"  # traced at map(), with a symbolic tensor
    assert [int(v) for v in ds] == [0, 10, 20, 30, 40, 50]
    assert [int(v) for v in ds] == [0, 10, 20, 30, 40, 50]
    assert len(calls) == 1  # reading twice ran the graph, not the Python function


def test_py_function_runs_python_for_every_element_in_every_pass():
    counter = CallRecorder(lambda x: x + 1)
    traced = []

    def outer(x):
        traced.append(1)
        return tf.py_function(counter, [x], Tout=tf.int64)

    ds = tf.data.Dataset.range(5).map(outer)
    for _ in range(3):
        assert [int(v) for v in ds] == [1, 2, 3, 4, 5]
    assert len(traced) == 1 and counter.calls == 15


def test_inside_map_is_symbolic_inside_py_function_is_eager():
    seen = []

    def in_python(x):
        seen.append(("py", type(x).__name__, tf.executing_eagerly(), int(x.numpy())))
        return x

    def in_graph(x):
        seen.append(("map", type(x).__name__, tf.executing_eagerly(), hasattr(x, "numpy") and tf.executing_eagerly()))
        return tf.py_function(in_python, [x], Tout=x.dtype)

    assert [int(v) for v in tf.data.Dataset.range(2).map(in_graph)] == [0, 1]
    assert seen[0][0] == "map" and seen[0][1] != "EagerTensor" and seen[0][2] is False
    assert [s[:3] for s in seen[1:]] == [("py", "EagerTensor", True)] * 2


def test_py_function_gets_eager_tensors_and_returns_tout():
    seen = []

    def work(x):
        seen.append(int(x.numpy()))
        return x * 2, float(x)

    ds = tf.data.Dataset.range(3).map(lambda x: tuple(tf.py_function(work, [x], Tout=[tf.int64, tf.float32])))
    assert [(int(a), float(b)) for a, b in ds] == [(0, 0.0), (2, 1.0), (4, 2.0)] and seen == [0, 1, 2]
    assert [s.dtype for s in ds.element_spec] == [tf.int64, tf.float32]


def test_a_python_random_number_is_drawn_once_a_tf_random_op_per_element():
    rng = np.random.default_rng(0)
    numbers = tf.data.Dataset.range(6)
    frozen = numbers.map(lambda x: tf.cast(x, tf.float64) + rng.uniform())
    offsets = [float(v) - i for i, v in enumerate(frozen)]
    assert len({round(o, 9) for o in offsets}) == 1  # one draw, at trace time, baked into the graph
    fresh = numbers.map(lambda x: tf.cast(x, tf.float32) + tf.random.uniform([]))
    offsets = [float(v) - i for i, v in enumerate(fresh)]
    assert len({round(o, 5) for o in offsets}) == 6  # a new draw for every element


def test_map_returns_tuples_and_unpacks_them():
    squares = tf.data.Dataset.range(4).map(lambda x: (x, x ** 2))
    assert isinstance(squares.element_spec, tuple) and len(squares.element_spec) == 2
    assert [(int(a), int(b)) for a, b in squares] == [(0, 0), (1, 1), (2, 4), (3, 9)]
    summed = squares.map(lambda a, b: a + b)  # a tuple element arrives as separate arguments
    assert [int(v) for v in summed] == [0, 2, 6, 12]
    with pytest.raises(TypeError):
        squares.map(lambda pair: pair)  # one parameter for a two-part element
    records = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    assert [int(v) for v in records.map(lambda d: d["a"] + d["b"])] == [4, 6]  # a dict arrives as one argument


def test_uint8_divided_by_255_is_float32_between_0_and_1():
    pixels = tf.constant([0, 128, 255], tf.uint8)
    scaled = pixels / 255
    assert scaled.dtype == tf.float32 and float(tf.reduce_max(scaled)) == 1.0
    assert (tf.cast(pixels, tf.float32) / 255.0).dtype == tf.float32


# ------------------------------------------------------------------ static shapes
def test_py_function_loses_the_static_shape_and_ensure_shape_restores_it():
    images = tf.data.Dataset.from_tensor_slices(np.zeros((4, 28, 28), np.uint8))
    lost = images.map(lambda x: tf.py_function(lambda v: v, [x], Tout=tf.uint8))
    assert images.element_spec.shape == (28, 28)
    assert lost.element_spec.shape.rank is None
    fixed = lost.map(lambda x: tf.ensure_shape(x, [28, 28]))
    assert fixed.element_spec.shape == (28, 28)
    assert len(list(fixed)) == 4


def test_ensure_shape_checks_at_run_time_set_shape_only_records():
    images = tf.data.Dataset.from_tensor_slices(np.zeros((2, 28, 28), np.uint8))
    lost = images.map(lambda x: tf.py_function(lambda v: v, [x], Tout=tf.uint8))
    wrong = lost.map(lambda x: tf.ensure_shape(x, [28, 28, 1]))
    assert wrong.element_spec.shape == (28, 28, 1)  # the promise is believed while building ...
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[28,28\].*\[28,28,1\]"):
        list(wrong)  # ... and checked when the elements are read, with both shapes in the message

    def promise(x):
        x.set_shape([28, 28])
        return x

    assert lost.map(promise).element_spec.shape == (28, 28)


def test_batch_of_restored_shapes_has_an_unknown_batch_dimension():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((5, 3, 3), np.float32))
    ds = ds.map(lambda x: tf.ensure_shape(tf.py_function(lambda v: v, [x], tf.float32), [3, 3])).batch(2)
    assert ds.element_spec.shape.as_list() == [None, 3, 3]


def test_dense_and_tf_image_need_static_shapes():
    import keras

    with pytest.raises(ValueError):
        keras.layers.Dense(3)(keras.Input(shape=(None,)))
    unknown = tf.data.Dataset.range(2).map(lambda i: tf.py_function(lambda v: np.zeros((8, 8, 1), np.float32), [i],
                                                                    tf.float32))
    with pytest.raises(ValueError, match="no shape"):
        unknown.map(lambda x: tf.image.resize(x, [4, 4]))


# ------------------------------------------------------------------ who parallelizes a map: map_parallelization
PATIENCE = 1.5  # seconds the first call waits for a second one; only the one-at-a-time cases pay it


def meeting():
    """The first two calls wait for each other (busy.Meeting); ``attend(x)`` returns ``x`` for use in a map."""
    m = Meeting(2, patience=PATIENCE)

    def attend(x):
        m.attend()
        return x

    m.attend_and_return = attend
    return m


def four_threads(**optimization):
    """Options with a private pool of 4 threads, so the core count of the machine does not matter."""
    options = tf.data.Options()
    options.threading.private_threadpool_size = 4
    for name, value in optimization.items():
        if name == "autotune":
            options.autotune.enabled = value
        else:
            setattr(options.experimental_optimization, name, value)
    return options


def run_meeting(wrap, options, num_parallel_calls=None):
    m = meeting()
    ds = tf.data.Dataset.range(4).map(lambda x: wrap(m.attend_and_return, x), num_parallel_calls=num_parallel_calls)
    values = [int(v) for v in ds.with_options(options)]
    assert values == [0, 1, 2, 3]  # order is kept either way
    return m.met


def py_function(fn, x):
    return tf.py_function(fn, [x], Tout=tf.int64)


def stateless_numpy_function(fn, x):
    return tf.numpy_function(fn, [x], Tout=tf.int64, stateful=False)


def test_map_parallelization_is_on_by_default():
    options = tf.data.Dataset.range(3).options()
    assert options.experimental_optimization.map_parallelization in (None, True)
    assert options.autotune.enabled in (None, True)


def test_a_plain_stateless_map_runs_in_parallel_on_its_own():
    assert run_meeting(stateless_numpy_function, four_threads()) is True


def test_with_a_pool_of_one_thread_the_stateless_map_runs_one_call_at_a_time():
    # "where TensorFlow's thread pool has more than one thread": the pool, not the rewrite, is then the limit
    one_thread = tf.data.Options()
    one_thread.threading.private_threadpool_size = 1
    assert run_meeting(stateless_numpy_function, one_thread) is False


def test_a_py_function_map_stays_one_call_at_a_time():
    # py_function is a stateful op, and map_parallelization only rewrites stateless maps
    assert run_meeting(py_function, four_threads()) is False


def test_the_same_py_function_runs_in_parallel_when_asked():
    assert run_meeting(py_function, four_threads(), num_parallel_calls=2) is True


def test_a_stateful_random_op_or_a_generator_keeps_a_map_sequential():
    gen = tf.random.Generator.from_seed(0)

    def with_random_op(fn, x):  # the same stateless Python call, plus a stateful random op in the function
        return stateless_numpy_function(fn, x + tf.cast(tf.random.uniform([]) * 0, tf.int64))

    def with_generator(fn, x):
        return stateless_numpy_function(fn, x + tf.cast(gen.uniform([]) * 0, tf.int64))

    assert run_meeting(with_random_op, four_threads()) is False
    assert run_meeting(with_generator, four_threads()) is False


def test_without_map_parallelization_or_autotuning_a_plain_map_is_sequential():
    assert run_meeting(stateless_numpy_function, four_threads(map_parallelization=False)) is False
    assert run_meeting(stateless_numpy_function, four_threads(autotune=False)) is False


def test_options_set_on_the_source_reach_every_map_downstream():
    no_rewrite = four_threads(map_parallelization=False)
    m = meeting()
    source = tf.data.Dataset.range(4).with_options(no_rewrite)
    ds = source.map(lambda x: stateless_numpy_function(m.attend_and_return, x)).batch(2)
    assert ds.options().experimental_optimization.map_parallelization is False
    assert [v.tolist() for v in ds.as_numpy_iterator()] == [[0, 1], [2, 3]]
    assert m.met is False


def test_map_parallelization_rewrites_a_stateless_map_but_never_a_py_function_map():
    stateless = tutor.profile(R(16).map(lambda x: x * 2), steps=8)
    python = tutor.profile(R(16).map(lambda x: tf.py_function(lambda v: v * 2, [x], tf.int64)), steps=8)
    assert "ParallelMapV2" in stateless.stages
    assert "Map" in python.stages and "ParallelMapV2" not in python.stages


def test_py_function_ops_are_stateful_in_the_op_registry():
    from tensorflow.python.framework import op_def_registry  # what the rewrite asks about each op

    assert op_def_registry.get("EagerPyFunc").is_stateful  # tf.py_function
    assert op_def_registry.get("PyFunc").is_stateful  # tf.numpy_function(stateful=True), the default
    assert not op_def_registry.get("PyFuncStateless").is_stateful  # tf.numpy_function(stateful=False)
    assert op_def_registry.get("RandomUniform").is_stateful  # tf.random.uniform
    assert not op_def_registry.get("ImageProjectiveTransformV3").is_stateful  # the rotation op


def test_a_random_generator_map_is_stateful_too():
    # the op graph of a map drawing from a tf.random.Generator holds stateful ops, which the rewrite skips
    from tutor.doctor import read_pipeline

    gen = tf.random.Generator.from_seed(0)
    ds = tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) + gen.uniform([]))
    stage = [s for s in read_pipeline(ds) if s.kind == "map"][0]
    assert stage.random_fn
    from tensorflow.python.framework import op_def_registry  # the registry says which ops are stateful

    stateful = {op for op in stage.fn_ops if op_def_registry.get(op) is not None and op_def_registry.get(op).is_stateful}
    assert stateful  # e.g. RngReadAndSkip / StatefulUniform


# ------------------------------------------------------------ tutor.bench.CallRecorder, which the lesson measures with
def test_call_recorder_counts_calls_and_overlap():
    assert most_at_once([]) == 0
    assert most_at_once([(0, 1), (1, 2)]) == 1  # touching is not overlapping
    assert most_at_once([(0, 3), (1, 2), (1.5, 4)]) == 3
    rec = CallRecorder(lambda x: x * 2)
    ds = tf.data.Dataset.range(4).map(lambda x: tf.py_function(rec, [x], Tout=tf.int64))
    assert [int(v) for v in ds] == [0, 2, 4, 6]
    assert rec.calls == 4 and rec.most_at_once == 1 and all(s <= e for s, e in rec.intervals)
    rec.reset()
    assert rec.calls == 0 and "CallRecorder" in repr(rec)
    with pytest.raises(TypeError, match="function to wrap"):
        CallRecorder(42)


def test_call_recorder_sees_parallel_calls():
    m = meeting()
    rec = CallRecorder(m.attend_and_return)
    ds = tf.data.Dataset.range(4).map(lambda x: tf.py_function(rec, [x], Tout=tf.int64), num_parallel_calls=2)
    assert [int(v) for v in ds.with_options(four_threads())] == [0, 1, 2, 3]
    assert m.met and rec.most_at_once >= 2
