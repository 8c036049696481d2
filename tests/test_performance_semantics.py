"""Every tf.data performance fact that lessons 07 and 06 state, checked against real TensorFlow.

Timing facts are checked as ratios measured in the same test, with generous
tolerances, because the test machine may be busy.
"""
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import tensorflow as tf

from tutor import timeline as T


class Counter:
    """Counts how often a map function really ran (cache hits do not run it)."""

    def __init__(self):
        self.n = 0
        self._lock = threading.Lock()

    def fn(self, x):
        def bump(v):
            with self._lock:
                self.n += 1
            return v

        y = tf.py_function(bump, [x], Tout=x.dtype)
        y.set_shape(x.shape)
        return y


def _seconds(ds, limit=1000):
    start = time.perf_counter()
    for _ in ds.take(limit):
        pass
    return time.perf_counter() - start


def _best_of(make, repeats=2):
    return min(_seconds(make()) for _ in range(repeats))


# --- prefetch ----------------------------------------------------------------------------
def test_prefetch_counts_elements_of_its_input_after_batch_whole_batches():
    def produced_ahead(build):
        counter = Counter()
        ds = build(tf.data.Dataset.range(200).map(counter.fn)).with_options(T.naive_options())
        it = iter(ds)
        next(it)
        time.sleep(0.4)  # let the prefetch thread fill its buffer
        return counter.n

    batches = produced_ahead(lambda ds: ds.batch(4).prefetch(2))
    elements = produced_ahead(lambda ds: ds.prefetch(2).batch(4))
    assert 12 <= batches <= 16  # the batch taken + 2 batches buffered (+ one being built)
    assert 6 <= elements <= 7  # the batch taken + 2 elements buffered (+ one being fetched)


def test_default_options_inject_a_prefetch_and_naive_options_do_not():
    def run(options):
        pipe = T.Pipeline(tf.data.Dataset.range(8), options=options).map(T.sleep_work(0.03), name="work")
        return T.record(pipe, steps=8, step_time=0.03).total_time

    naive = run(T.naive_options())
    default = run(None)
    assert naive > 0.9 * 8 * 0.06  # no overlap at all
    assert default < 0.85 * naive, "TensorFlow's automatic prefetch should overlap work and steps"


def test_parallel_map_also_works_ahead_without_prefetch():
    pipe = T.Pipeline(tf.data.Dataset.range(8), options=T.naive_options()).map(
        T.sleep_work(0.03), name="work", num_parallel_calls=2)
    tl = T.record(pipe, steps=8, step_time=0.03)
    naive_sum = 8 * 0.06
    assert tl.total_time < 0.8 * naive_sum


# --- parallel map: order, cores and the GIL ------------------------------------------------
def _slow_first(x):
    def work(v):
        time.sleep(0.15 if int(v) == 0 else 0.001)
        return v

    y = tf.py_function(work, [x], Tout=tf.int64)
    y.set_shape(())
    return y


def test_parallel_map_keeps_order_unless_deterministic_false():
    ds = tf.data.Dataset.range(8)
    ordered = list(ds.map(_slow_first, num_parallel_calls=4).as_numpy_iterator())
    assert ordered == list(range(8))
    loose = list(ds.map(_slow_first, num_parallel_calls=4, deterministic=False).as_numpy_iterator())
    assert sorted(loose) == list(range(8)) and loose[0] != 0


def _speedup(fn, n=8, parallel=4, threads=None):
    options = T.naive_options()
    if threads:
        options.threading.private_threadpool_size = threads
    ds = tf.data.Dataset.range(n).with_options(options)
    one = _best_of(lambda: ds.map(fn))
    many = _best_of(lambda: ds.map(fn, num_parallel_calls=parallel))
    return one / many


def test_tf_data_threads_default_to_the_core_count_even_for_sleeps():
    cores = os.cpu_count() or 1
    assert _speedup(T.sleep_work(0.03), parallel=4 * cores) < cores * 1.35 + 0.3


def test_gil_releasing_work_parallelizes_beyond_the_cores_with_more_threads():
    assert _speedup(T.sleep_work(0.03), parallel=4, threads=8) > 2.2  # 4 sleeps at once


def test_python_work_holding_the_gil_does_not_parallelize():
    gil = _speedup(T.python_busy_work(0.04), threads=8)
    sleeps = _speedup(T.sleep_work(0.04), threads=8)
    assert gil < 1.6, f"pure-Python work should not run in parallel, speedup={gil:.2f}"
    assert gil < 0.7 * sleeps


def test_tensorflow_work_is_bounded_by_the_cores():
    cores = os.cpu_count() or 1
    # eight calls and eight threads: only the cores limit how many products run at once
    speedup = _speedup(T.tf_busy_work(repeats=12, size=128), n=16, parallel=8, threads=8)
    assert speedup < cores * 1.35 + 0.3


# --- cache --------------------------------------------------------------------------------
def test_cache_then_repeat_runs_the_work_once():
    counter = Counter()
    ds = tf.data.Dataset.range(5).map(counter.fn).cache().repeat(3)
    assert len(list(ds.as_numpy_iterator())) == 15
    assert counter.n == 5


def test_cache_after_repeat_caches_an_endless_stream_and_saves_nothing():
    counter = Counter()
    ds = tf.data.Dataset.range(5).map(counter.fn).repeat().cache()
    assert len(list(ds.take(15).as_numpy_iterator())) == 15
    assert counter.n == 15  # every element computed again: the cache never completes


def test_random_augmentation_before_cache_is_frozen_after_the_first_epoch():
    tf.random.set_seed(0)
    noisy = lambda x: tf.cast(x, tf.float32) + tf.random.uniform(())
    frozen = tf.data.Dataset.range(4).map(noisy).cache().repeat(2)
    values = np.array(list(frozen.as_numpy_iterator()))
    assert np.array_equal(values[:4], values[4:])
    fresh = tf.data.Dataset.range(4).cache().map(noisy).repeat(2)
    values = np.array(list(fresh.as_numpy_iterator()))
    assert not np.allclose(values[:4], values[4:])


def test_partial_cache_is_discarded():
    counter = Counter()
    ds = tf.data.Dataset.range(6).map(counter.fn).cache().take(3).repeat(2)
    assert list(ds.as_numpy_iterator()) == [0, 1, 2, 0, 1, 2]
    assert counter.n == 6  # the 3 cached elements were thrown away and computed again


def test_partial_cache_warning_is_logged():
    code = textwrap.dedent("""
        import tensorflow as tf
        ds = tf.data.Dataset.range(6).cache().take(3).repeat(2)
        print([int(x) for x in ds.as_numpy_iterator()])
    """)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "[0, 1, 2, 0, 1, 2]" in out.stdout
    assert "partially cached" in out.stderr


# --- vectorizing ----------------------------------------------------------------------------
def test_vectorized_map_after_batch_is_faster():
    fn = lambda x: tf.math.sqrt(tf.cast(x, tf.float32) * 2.0 + 1.0)
    ds = tf.data.Dataset.range(4000).with_options(T.naive_options())
    per_element = _best_of(lambda: ds.map(fn).batch(100))
    vectorized = _best_of(lambda: ds.batch(100).map(fn))
    a = np.concatenate(list(ds.map(fn).batch(100).as_numpy_iterator()))
    b = np.concatenate(list(ds.batch(100).map(fn).as_numpy_iterator()))
    np.testing.assert_allclose(a, b)
    assert per_element / vectorized > 2.0


# --- generators (lesson 09) ----------------------------------------------------------------
def _sleepy_generator(n=8, seconds=0.02):
    def gen():
        for i in range(n):
            time.sleep(seconds)
            yield np.full((4,), i, dtype=np.float32)

    return gen


def test_generator_runs_on_one_thread_even_before_a_parallel_map():
    sig = tf.TensorSpec((4,), tf.float32)
    ds = tf.data.Dataset.from_generator(_sleepy_generator(), output_signature=sig)
    ds = ds.map(lambda x: x * 2, num_parallel_calls=4)
    assert _seconds(ds) > 0.9 * 8 * 0.02
    tl = T.record(T.Pipeline.from_generator(_sleepy_generator(), sig).map(lambda x: x, name="id",
                                                                        num_parallel_calls=4), steps=8)
    g = tl.stage_events("generator")
    assert tl.stage_concurrency["generator"] <= 1.0 + 1e-6
    assert np.all(g["start"][1:] >= g["end"][:-1] - 1e-6)


def test_index_generator_with_parallel_py_function_map_is_faster():
    def load(i):
        time.sleep(0.05)
        return np.full((4,), i, dtype=np.float32)

    def slow():
        return tf.data.Dataset.from_generator(lambda: (load(i) for i in range(8)),
                                              output_signature=tf.TensorSpec((4,), tf.float32))

    def fast():
        ids = tf.data.Dataset.from_generator(lambda: iter(range(8)), output_signature=tf.TensorSpec((), tf.int64))
        options = tf.data.Options()
        options.threading.private_threadpool_size = 8  # sleeps release the GIL: more threads than cores help
        ids = ids.with_options(options)
        return ids.map(lambda i: tf.py_function(lambda j: load(int(j)), [i], tf.float32), num_parallel_calls=4)

    assert sorted(map(tuple, fast().as_numpy_iterator())) == sorted(map(tuple, slow().as_numpy_iterator()))
    assert _best_of(slow) / _best_of(fast) > 2.0


def test_py_function_loses_static_shape_and_ensure_shape_restores_it():
    ds = tf.data.Dataset.range(6).map(lambda i: tf.py_function(lambda j: tf.zeros((3, 2)) + float(j), [i], tf.float32))
    assert ds.element_spec.shape.rank is None  # unknown, even the rank
    batched = ds.batch(2)
    assert batched.element_spec.shape.rank is None
    fixed = batched.map(lambda x: tf.ensure_shape(x, [None, 3, 2]))
    assert fixed.element_spec.shape.as_list() == [None, 3, 2]

    def set_shape(x):
        x.set_shape([None, 3, 2])
        return x

    assert batched.map(set_shape).element_spec.shape.as_list() == [None, 3, 2]
    bad = batched.map(lambda x: tf.ensure_shape(x, [None, 4, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(bad.as_numpy_iterator())


def test_interleave_over_several_generators_runs_them_at_once():
    sig = tf.TensorSpec((4,), tf.float32)

    def shard(k):
        return tf.data.Dataset.from_generator(_sleepy_generator(4, 0.02), output_signature=sig)

    one = lambda: tf.data.Dataset.from_generator(_sleepy_generator(16, 0.02), output_signature=sig)
    options = tf.data.Options()
    options.threading.private_threadpool_size = 8
    four = lambda: tf.data.Dataset.range(4).with_options(options).interleave(
        shard, cycle_length=4, num_parallel_calls=4)
    assert len(list(four().as_numpy_iterator())) == 16
    assert _best_of(one) / _best_of(four) > 2.0  # four generators sleep at once


def test_set_shape_only_promises_a_shape_and_the_iterator_catches_a_wrong_promise():
    ds = tf.data.Dataset.range(2).map(lambda i: tf.py_function(lambda j: tf.zeros((3, 2)), [i], tf.float32))

    def claim_wrong_shape(x):
        x.set_shape([4, 2])  # wrong, but py_function's shape is unknown, so tracing accepts it
        return x

    wrong = ds.map(claim_wrong_shape)
    assert wrong.element_spec.shape.as_list() == [4, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        next(iter(wrong))


def test_from_generator_calls_the_function_again_every_epoch():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64)).repeat(2)
    assert [int(x) for x in ds] == [0, 1, 2, 0, 1, 2]
    assert len(calls) == 2
