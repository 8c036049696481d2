"""Every tf.data performance fact that lessons 07 and 09 state, checked against real TensorFlow.

No test here decides by a wall-clock time or a speed ratio: a busy machine slows every run down, and the
figures themselves belong in benchmarks/. Each test asserts what happened instead: how many elements a
stage produced, which recorded intervals overlap, how many calls were in progress at once, how much CPU
Python used. The helpers in tests/busy.py make "several at once" independent of timing.
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

from busy import CallLog, Meeting, Progress, cores, intersects, most_at_once, switch_interval
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


def _eventually(condition, what, patience=30.0):
    """Wait until ``condition()`` holds. ``patience`` only stops a broken pipeline from hanging the suite."""
    give_up = time.monotonic() + patience
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError(f"{what} never happened")
        time.sleep(0.01)


def _map_in_python(body, *, n, parallel, threads=None):
    """Run ``body()`` once per element inside a ``tf.py_function`` in a parallel map, and read every element."""
    options = T.naive_options()
    if threads:
        options.threading.private_threadpool_size = threads

    def fn(x):
        def run(v):
            body()
            return v

        return tf.py_function(run, [x], Tout=tf.int64)

    ds = tf.data.Dataset.range(n).with_options(options).map(fn, num_parallel_calls=parallel)
    assert sorted(int(v) for v in ds.as_numpy_iterator()) == list(range(n))


# --- prefetch ----------------------------------------------------------------------------
def test_prefetch_counts_elements_of_its_input_after_batch_whole_batches():
    def produced_ahead(build, at_least):
        counter = Counter()
        ds = build(tf.data.Dataset.range(200).map(counter.fn)).with_options(T.naive_options())
        it = iter(ds)
        next(it)
        # the prefetch thread fills its buffer in the background: wait for it, then give it a moment to overfill
        _eventually(lambda: counter.n >= at_least, f"producing {at_least} elements ahead")
        time.sleep(0.2)
        return counter.n

    batches = produced_ahead(lambda ds: ds.batch(4).prefetch(2), at_least=12)
    elements = produced_ahead(lambda ds: ds.prefetch(2).batch(4), at_least=6)
    assert 12 <= batches <= 16  # the batch taken + 2 batches buffered (+ one being built)
    assert 6 <= elements <= 7  # the batch taken + 2 elements buffered (+ one being fetched)


def _work_during_steps(options, parallel=None):
    """For each element: did its recorded work overlap a consumer step (the "training")?"""
    pipe = T.Pipeline(tf.data.Dataset.range(8), options=options).map(
        T.sleep_work(0.03), name="work", num_parallel_calls=parallel)
    tl = T.record(pipe, steps=8, step_time=0.03)
    work = tl.stage_events("work")
    return intersects(work["start"], work["end"], tl.steps["start"], tl.steps["end"])


def test_default_options_inject_a_prefetch_and_naive_options_do_not():
    assert not _work_during_steps(T.naive_options()).any(), "naive options: producer and consumer take turns"
    assert _work_during_steps(None).any(), "TensorFlow's automatic prefetch should work while the step runs"


def test_parallel_map_also_works_ahead_without_prefetch():
    assert _work_during_steps(T.naive_options(), parallel=2).any()


# --- parallel map: order, cores and the GIL ------------------------------------------------
def test_parallel_map_keeps_order_unless_deterministic_false():
    def slow_first(x):
        def work(v):
            time.sleep(0.15 if int(v) == 0 else 0.001)
            return v

        return tf.py_function(work, [x], Tout=tf.int64)

    ds = tf.data.Dataset.range(8)
    assert list(ds.map(slow_first, num_parallel_calls=4).as_numpy_iterator()) == list(range(8))

    # Element 0 is held back until the consumer has received some other element: with
    # deterministic=False nothing waits for it (with the default, this would wait for the whole patience).
    overtaken = threading.Event()

    def held_back_first(x):
        def work(v):
            if int(v) == 0:
                overtaken.wait(30)
            return v

        return tf.py_function(work, [x], Tout=tf.int64)

    loose = []
    for v in ds.map(held_back_first, num_parallel_calls=4, deterministic=False).as_numpy_iterator():
        loose.append(int(v))
        overtaken.set()
    assert sorted(loose) == list(range(8)) and loose[0] != 0


def test_tf_data_threads_default_to_the_core_count_even_for_sleeps():
    n = cores()
    calls = CallLog()
    # One more caller than there are cores waits to meet: only a bigger thread pool could bring them together.
    meeting = Meeting(n + 1, patience=1.0)

    def sleep():
        with calls.call():
            meeting.attend()
            time.sleep(0.01)

    _map_in_python(sleep, n=2 * n + 2, parallel=4 * n)
    assert not meeting.met
    assert min(n, 2) <= calls.most_at_once <= n


def test_gil_releasing_work_parallelizes_beyond_the_cores_with_more_threads():
    k = cores() + 2
    calls, meeting = CallLog(), Meeting(k)

    def sleep():
        with calls.call():
            meeting.attend()
            time.sleep(0.01)

    _map_in_python(sleep, n=2 * k, parallel=k, threads=2 * k)
    assert meeting.met
    assert calls.most_at_once == k > cores()  # k sleeps at once, on fewer cores


def test_python_work_holding_the_gil_does_not_parallelize():
    started, work, progress = Meeting(3), CallLog(), Progress()

    def compute():
        started.attend()  # three calls start computing together ...
        with work.call():
            progress.compute(0.1)

    with switch_interval(0.02):
        _map_in_python(compute, n=6, parallel=4, threads=8)
    assert started.met and work.most_at_once >= 2  # ... so several calls were in progress at once ...
    # ... but they took turns to run Python: one ran alone for most of a 20 ms switch interval, on any core count
    assert progress.threads >= 2 and progress.longest_alone() >= 0.015


def test_tensorflow_work_is_limited_by_the_cores_not_by_the_threads():
    # Eight threads keep more TensorFlow calls in progress at once than there are cores, so the thread pool
    # is not what limits them. That they then finish at most about `cores` times faster is a speed figure
    # for benchmarks/, not a test: a busy machine changes it.
    options = T.naive_options()
    options.threading.private_threadpool_size = 8
    pipe = T.Pipeline(tf.data.Dataset.range(16), options=options).map(
        T.tf_busy_work(repeats=40, size=128), name="work", num_parallel_calls=8)
    work = T.record(pipe, steps=16).stage_events("work")
    assert most_at_once(work["start"], work["end"]) > cores()


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
def test_vectorized_map_after_batch_runs_once_per_batch():
    fn = lambda x: tf.math.sqrt(tf.cast(x, tf.float32) * 2.0 + 1.0)
    ds = tf.data.Dataset.range(1000)
    per_element, vectorized = Counter(), Counter()
    a = np.concatenate(list(ds.map(lambda x: fn(per_element.fn(x))).batch(100).as_numpy_iterator()))
    b = np.concatenate(list(ds.batch(100).map(lambda x: fn(vectorized.fn(x))).as_numpy_iterator()))
    np.testing.assert_allclose(a, b)
    assert (per_element.n, vectorized.n) == (1000, 10)  # the per-call cost is paid 10 times instead of 1000


# --- generators (lesson 09) ----------------------------------------------------------------
def _sleepy_generator(n=8, seconds=0.01, calls=None, meeting=None):
    """A generator whose every ``next()`` waits ``seconds`` (like a slow read), recorded in ``calls``."""
    calls = CallLog() if calls is None else calls

    def gen():
        for i in range(n):
            with calls.call():
                if meeting is not None:
                    meeting.attend()
                time.sleep(seconds)
            yield np.full((4,), i, dtype=np.float32)

    return gen


def test_generator_runs_on_one_thread_even_before_a_parallel_map():
    sig = tf.TensorSpec((4,), tf.float32)
    calls = CallLog()
    ds = tf.data.Dataset.from_generator(_sleepy_generator(calls=calls), output_signature=sig)
    ds = ds.map(lambda x: x * 2, num_parallel_calls=4)
    assert len(list(ds.as_numpy_iterator())) == 8
    assert len(calls) == 8 and calls.most_at_once == 1  # one next() at a time
    tl = T.record(T.Pipeline.from_generator(_sleepy_generator(), sig).map(lambda x: x, name="id",
                                                                        num_parallel_calls=4), steps=8)
    g = tl.stage_events("generator")
    assert len(g) == 8 and most_at_once(g["start"], g["end"]) == 1
    assert tl.stage_concurrency["generator"] <= 1.0 + 1e-6
    assert np.all(g["start"][1:] >= g["end"][:-1] - 1e-6)


def test_index_generator_with_parallel_py_function_map_loads_several_at_once():
    one_by_one, together, meeting = CallLog(), CallLog(), Meeting(4)

    def load(i, calls, meeting=None):
        with calls.call():
            if meeting is not None:
                meeting.attend()
            time.sleep(0.01)
        return np.full((4,), i, dtype=np.float32)

    slow = tf.data.Dataset.from_generator(lambda: (load(i, one_by_one) for i in range(8)),
                                          output_signature=tf.TensorSpec((4,), tf.float32))
    ids = tf.data.Dataset.from_generator(lambda: iter(range(8)), output_signature=tf.TensorSpec((), tf.int64))
    options = tf.data.Options()
    options.threading.private_threadpool_size = 8  # sleeps release the GIL: more threads than cores help
    fast = ids.with_options(options).map(
        lambda i: tf.py_function(lambda j: load(int(j), together, meeting), [i], tf.float32), num_parallel_calls=4)

    assert sorted(map(tuple, fast.as_numpy_iterator())) == sorted(map(tuple, slow.as_numpy_iterator()))
    assert one_by_one.most_at_once == 1  # inside the generator: one load after another
    assert meeting.met and together.most_at_once == 4  # in the parallel map: four loads at once


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
    alone, shards, meeting = CallLog(), CallLog(), Meeting(4)
    one = tf.data.Dataset.from_generator(_sleepy_generator(16, calls=alone), output_signature=sig)

    def shard(k):
        return tf.data.Dataset.from_generator(_sleepy_generator(4, calls=shards, meeting=meeting),
                                              output_signature=sig)

    options = tf.data.Options()
    options.threading.private_threadpool_size = 8
    four = tf.data.Dataset.range(4).with_options(options).interleave(shard, cycle_length=4, num_parallel_calls=4)
    assert len(list(one.as_numpy_iterator())) == len(list(four.as_numpy_iterator())) == 16
    assert alone.most_at_once == 1
    assert meeting.met and shards.most_at_once == 4  # four generators wait at once


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


def test_the_deprecated_output_types_give_the_same_element_spec_as_output_signature():
    """09 c33: the checker reads element_spec, so it cannot tell the deprecated arguments from output_signature."""
    def gen():
        yield np.zeros((8, 8), np.float32), np.int64(1)

    signature = (tf.TensorSpec((8, 8), tf.float32), tf.TensorSpec((), tf.int64))
    new = tf.data.Dataset.from_generator(gen, output_signature=signature)
    old = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.int64), output_shapes=((8, 8), ()))
    assert old.element_spec == new.element_spec == signature
