"""The facts lesson 09 (Generators) states, checked on real TensorFlow.

from_generator runs the function again for every iterator, on one thread, and only in this process; the index
trick moves the work into a parallel map; py_function loses the static shape and ensure_shape/set_shape give it
back; pure-Python work holds the GIL while waiting, NumPy and TensorFlow release it; interleave runs several
generators at once, capped by num_parallel_calls and the thread pool.

No test decides by wall-clock time. Where a fact is about calls running at the same time,
the calls meet at a barrier (:class:`busy.Meeting`), so a loaded machine can only delay them,
never change what the test sees; where it is about order, the order is compared.
"""
import os
import threading
import time

import numpy as np
import pytest
import tensorflow as tf

import tutor
from busy import CallLog, Meeting, Progress, cores, most_at_once, switch_interval
from tutor import timeline as T
from tutor.checks import lesson09 as ex
from tutor.timeline import busy_wait

from .helpers import Gauge, pool


# ------------------------------------------------------------------ from_generator: any Python code as a source
SCALAR = tf.TensorSpec((), tf.int64)


def test_from_generator_calls_the_function_again_for_every_iterator():
    opened = []

    def gen():
        opened.append(1)
        yield from range(3)

    ds = tf.data.Dataset.from_generator(gen, output_signature=SCALAR)
    assert [int(x) for x in ds.repeat(2)] == [0, 1, 2, 0, 1, 2] and len(opened) == 2
    used_up = gen()
    once = tf.data.Dataset.from_generator(lambda: used_up, output_signature=SCALAR)
    assert len(list(once)) == 3 and len(list(once)) == 0  # the same generator object, already exhausted


def test_from_generator_calls_the_function_again_every_epoch():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64)).repeat(2)
    assert [int(x) for x in ds] == [0, 1, 2, 0, 1, 2]
    assert len(calls) == 2


def test_none_in_a_signature_accepts_any_length_and_old_arguments_are_deprecated():
    def sequences():
        for n in (1, 3, 2):
            yield np.arange(n, dtype=np.int32)

    ds = tf.data.Dataset.from_generator(sequences, output_signature=tf.TensorSpec((None,), tf.int32))
    assert [len(x) for x in ds] == [1, 3, 2]
    doc = tf.data.Dataset.from_generator.__doc__
    assert "SOME ARGUMENTS ARE DEPRECATED" in doc and "output_types" in doc and "Use output_signature instead" in doc
    old = tf.data.Dataset.from_generator(ex.samples, output_types=(tf.float32, tf.int64), output_shapes=((8, 8), ()))
    assert old.element_spec == ex.signature()


def test_the_deprecated_output_types_give_the_same_element_spec_as_output_signature():
    """09 c33: the checker reads element_spec, so it cannot tell the deprecated arguments from output_signature."""
    def gen():
        yield np.zeros((8, 8), np.float32), np.int64(1)

    signature = (tf.TensorSpec((8, 8), tf.float32), tf.TensorSpec((), tf.int64))
    new = tf.data.Dataset.from_generator(gen, output_signature=signature)
    old = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.int64), output_shapes=((8, 8), ()))
    assert old.element_spec == new.element_spec == signature


_WORKER = """
import os, sys, time
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
svc = tf.data.experimental.service
port = int(sys.argv[2])
worker = svc.WorkerServer(svc.WorkerConfig(dispatcher_address=sys.argv[1], worker_address=f"localhost:{port}",
                                           port=port))
time.sleep(120)
"""


def test_generator_and_py_function_cannot_run_in_another_process(tmp_path):
    """A tf.data service worker in a second process runs range(), but not a Python generator or py_function."""
    import subprocess
    import sys

    from tutor.service.local import free_ports

    svc = tf.data.experimental.service
    dispatcher_port, worker_port = free_ports(2)
    dispatcher = svc.DispatchServer(svc.DispatcherConfig(port=dispatcher_port))
    script = tmp_path / "worker.py"
    script.write_text(_WORKER)
    worker = subprocess.Popen([sys.executable, str(script), f"localhost:{dispatcher_port}", str(worker_port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        remote = svc.distribute("parallel_epochs", dispatcher.target)
        assert sorted(int(x) for x in tf.data.Dataset.range(5).apply(remote)) == [0, 1, 2, 3, 4]
        generator = tf.data.Dataset.from_generator(lambda: iter(range(5)), output_signature=SCALAR)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not find callback"):
            list(generator.apply(remote))
        py_fn = tf.data.Dataset.range(5).map(lambda x: tf.py_function(lambda v: v, [x], tf.int64))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not find callback"):
            list(py_fn.apply(svc.distribute("parallel_epochs", dispatcher.target, job_name="py_fn")))
    finally:
        worker.kill()
        worker.wait()
        dispatcher._stop()


# ------------------------------------------------------------------ a generator runs on one thread
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


def test_a_generator_is_asked_for_one_element_at_a_time():
    inside = Gauge()

    def gen():
        for i in range(16):
            with inside:
                threading.Event().wait(0.002)
            yield i

    after = Gauge(meet=2)
    ds = (tf.data.Dataset.from_generator(gen, output_signature=SCALAR)
          .map(lambda x: tf.py_function(after.sleeper(), [x], tf.int64), num_parallel_calls=4)
          .prefetch(4).with_options(pool(4)))
    assert [int(x) for x in ds] == list(range(16))
    assert inside.peak == 1 and inside.calls == 16  # never two next() at once ...
    assert after.meeting.met  # ... although the map after it runs two calls at once


def test_profile_shows_from_generator_as_flatmap_over_generator():
    ds = (tf.data.Dataset.from_generator(lambda: iter(range(6)), output_signature=SCALAR)
          .map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE).prefetch(1))
    tl = tutor.profile(ds, steps=6)
    assert {"Generator", "FlatMap", "ParallelMapV2"} <= set(tl.stages)
    assert tl.stages.index("Generator") < tl.stages.index("FlatMap") < tl.stages.index("ParallelMapV2")


def test_from_generator_calls_python_through_numpy_function():
    assert "tf.numpy_function" in tf.data.Dataset.from_generator.__doc__
    ds = tf.data.Dataset.from_generator(lambda: iter(range(3)), output_signature=SCALAR)
    generator = [s for s in tutor.doctor.read_pipeline(ds) if s.fn_name == "generator"]
    assert generator and "PyFunc" in generator[0].fn_ops


# ------------------------------------------------------------------ the index trick
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


def test_the_index_trick_yields_what_the_generator_yields():
    direct = list(tf.data.Dataset.from_generator(ex.samples, output_signature=ex.signature()).as_numpy_iterator())
    trick = list(ex.q2.solution_answer().unbatch().as_numpy_iterator())
    assert len(direct) == len(trick) == 12
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(direct, trick))


# ------------------------------------------------------------------ giving the shapes back
def test_py_function_loses_the_static_shape_and_batch_keeps_it_unknown():
    ds = tf.data.Dataset.range(8).map(lambda i: tuple(tf.py_function(ex.load_sample, [i], [tf.float32, tf.int64])))
    assert all(s.shape.rank is None for s in ds.element_spec)
    assert all(s.shape.rank is None for s in ds.batch(4).element_spec)
    images = ds.batch(4).map(lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None])))
    assert images.element_spec[0].shape.as_list() == [None, 8, 8]
    assert ds.batch(4, drop_remainder=True).map(
        lambda x, y: (tf.ensure_shape(x, [4, 8, 8]), y)).element_spec[0].shape.as_list() == [4, 8, 8]


def test_the_shape_can_be_restored_right_after_the_py_function_before_batch():
    def load(i):
        image, label = tf.py_function(ex.load_sample, [i], [tf.float32, tf.int64])
        return tf.ensure_shape(image, [8, 8]), tf.ensure_shape(label, [])

    batched = tf.data.Dataset.range(10).map(load).batch(4)
    assert [s.shape.as_list() for s in batched.element_spec] == [[None, 8, 8], [None]]
    assert [int(y.shape[0]) for _, y in batched] == [4, 4, 2]


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


def test_ensure_shape_fails_inside_the_map_and_a_wrong_set_shape_at_the_iterator():
    ds = tf.data.Dataset.range(8).map(lambda i: tf.py_function(lambda v: np.zeros((8, 8), np.float32), [i],
                                                               tf.float32)).batch(4)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape of tensor .*\[4,8,8\].*\[\?,9,9\]"):
        list(ds.map(lambda x: tf.ensure_shape(x, [None, 9, 9])))

    def promise(x):
        x.set_shape([None, 9, 9])
        return x

    wrong = ds.map(promise)
    assert wrong.element_spec.shape.as_list() == [None, 9, 9]  # the promise is believed ...
    incompatible = r"Incompatible shapes.*expected \[\?,9,9\] but got \[4,8,8\]"
    with pytest.raises(tf.errors.InvalidArgumentError, match=incompatible):
        list(wrong)  # ... until the iterator compares a batch with the element_spec


def test_set_shape_only_promises_a_shape_and_the_iterator_catches_a_wrong_promise():
    ds = tf.data.Dataset.range(2).map(lambda i: tf.py_function(lambda j: tf.zeros((3, 2)), [i], tf.float32))

    def claim_wrong_shape(x):
        x.set_shape([4, 2])  # wrong, but py_function's shape is unknown, so tracing accepts it
        return x

    wrong = ds.map(claim_wrong_shape)
    assert wrong.element_spec.shape.as_list() == [4, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        next(iter(wrong))


# ---------------------------------------------------------- when the parallel map helps, and when it does not: the GIL
def test_load_sample_waits_and_load_sample_python_computes():
    start = time.thread_time()
    ex.load_sample(0)
    waiting_cpu = time.thread_time() - start
    start = time.thread_time()
    ex.load_sample_python(0)
    computing_cpu = time.thread_time() - start
    assert 3 * waiting_cpu < computing_cpu  # the sleep uses almost no CPU; the loop does the work


def test_pure_python_work_holds_the_gil():
    """Two threads computing in Python take turns: each runs alone until the switch interval hands the GIL on."""
    meeting, progress = Meeting(2, patience=30.0), Progress()

    def work():
        meeting.attend()
        progress.compute(0.3)

    with switch_interval(0.02):
        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert meeting.met and progress.threads == 2
    # most of a 20 ms turn with no moment from the other thread: it did not run Python meanwhile, on any core count
    assert progress.longest_alone() >= 0.015


def test_python_switches_threads_every_few_milliseconds():
    import sys

    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_pure_python_calls_in_a_parallel_map_start_together():
    """With four threads and num_parallel_calls=4, four pure-Python calls are inside the map at once."""
    gauge = Gauge(meet=4)

    def work(x):
        with gauge:
            busy_wait(0.01)
        return x

    ds = tf.data.Dataset.range(8).map(lambda x: tf.py_function(work, [x], tf.int64), num_parallel_calls=4)
    assert [int(v) for v in ds.with_options(pool(4))] == list(range(8))
    assert gauge.meeting.met


@pytest.mark.parametrize("wait", ["sleep", "pipe", "socket"])
def test_waiting_releases_the_gil(wait):
    """While one thread waits (sleep, a pipe like a file, a socket), another runs Python; for a pipe or socket
    the other thread is even the one that ends the wait, which it could not do if the GIL were held."""
    import socket

    ran_at = []
    if wait == "sleep":
        go = threading.Event()
        helper = threading.Thread(target=lambda: go.wait() and ran_at.append(time.perf_counter()))
        helper.start()
        go.set()
        begin = time.perf_counter()
        time.sleep(0.2)
        end = time.perf_counter()
        helper.join()
        assert begin < ran_at[0] < end  # the helper ran Python while this thread slept
        return
    if wait == "pipe":
        r, w = os.pipe()
        receive, send = (lambda: os.read(r, 1)), (lambda: os.write(w, b"x"))
    else:
        a, b = socket.socketpair()
        receive, send = (lambda: a.recv(1)), (lambda: b.sendall(b"x"))

    def helper():
        ran_at.append(time.perf_counter())
        send()

    thread = threading.Thread(target=helper)
    thread.start()
    assert receive() == b"x"  # blocks until the helper, running Python, has sent
    thread.join()


@pytest.mark.parametrize("heavy", ["numpy", "tensorflow"])
def test_numpy_and_tensorflow_release_the_gil_while_they_compute(heavy):
    """A second thread runs Python while the first is inside one long NumPy or TensorFlow call.

    Were the GIL held for the whole call, the second thread could run only before the call began or
    after it ended; it runs in the middle of it instead.
    """
    m = np.random.default_rng(0).random((2000, 2000))
    t = tf.constant(m)
    call = (lambda: np.matmul(m, m)) if heavy == "numpy" else (lambda: tf.linalg.matmul(t, t))
    call()  # warm up (TensorFlow's first call picks its kernel)
    started, done = threading.Event(), threading.Event()
    ran_at = []

    def other():
        started.wait()
        while not done.is_set():
            ran_at.append(time.perf_counter())  # Python code: needs the GIL
            threading.Event().wait(0.001)

    thread = threading.Thread(target=other)
    thread.start()
    started.set()
    threading.Event().wait(0.01)
    begin = time.perf_counter()
    call()
    end = time.perf_counter()
    done.set()
    thread.join()
    margin = min(0.02, (end - begin) / 4)
    assert any(begin + margin < r < end - margin for r in ran_at), (end - begin, len(ran_at))


# ------------------------------------------------------------------ interleave over several generators
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


def _shard_gauge(gauge):
    def gen(shard):
        for i in range(int(shard), 16, 4):
            with gauge:
                threading.Event().wait(0.01)
            yield i
    return lambda shard: tf.data.Dataset.from_generator(gen, args=(shard,), output_signature=SCALAR)


@pytest.mark.parametrize("cycle_length, parallel, threads, at_most", [
    (4, 4, 4, 4), (4, 2, 4, 2), (4, 4, 1, 1), (4, 4, 8, 4), (4, 4, None, None),
])
def test_generators_in_an_interleave_are_capped_by_parallel_calls_and_threads(cycle_length, parallel, threads,
                                                                              at_most):
    at_most = at_most or min(cores(), parallel)
    gauge = Gauge(meet=at_most, patience=30.0)
    ds = tf.data.Dataset.range(4).interleave(_shard_gauge(gauge), cycle_length=cycle_length,
                                             num_parallel_calls=parallel)
    got = [int(x) for x in ds.with_options(pool(threads))]
    assert sorted(got) == list(range(16))
    assert gauge.meeting.met and gauge.peak <= at_most


def test_num_parallel_calls_of_interleave_is_at_most_cycle_length():
    with pytest.raises(tf.errors.InvalidArgumentError, match="less than or equal to `cycle_length`"):
        tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(2), cycle_length=2, num_parallel_calls=4)


def test_generator_args_arrive_as_numpy_values_and_interleave_keeps_its_order():
    kinds = []

    def gen(shard):
        kinds.append(type(shard))
        for i in range(int(shard), 12, 4):
            yield i

    def open_shard(shard):
        shard_ds = tf.data.Dataset.from_generator(gen, args=(shard,), output_signature=SCALAR)
        return shard_ds.map(lambda i: (shard, i))

    ds = tf.data.Dataset.range(4).interleave(open_shard, cycle_length=4, num_parallel_calls=4)
    assert [(int(s), int(i)) for s, i in ds.take(8)] == [(k % 4, k) for k in range(8)]
    assert all(issubclass(kind, np.generic) for kind in kinds)
