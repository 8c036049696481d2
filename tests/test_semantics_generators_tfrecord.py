"""Every fact lessons 09 (generators) and 10 (TFRecord) state, checked on real TensorFlow.

No test decides by wall-clock time. Where a fact is about calls running at the same time,
the calls meet at a barrier (:class:`busy.Meeting`), so a loaded machine can only delay them,
never change what the test sees; where it is about order, the order is compared.
"""
from __future__ import annotations

import os
import time
import threading

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import tfrecord


# =============================================================================== lesson 10: TFRecord
@pytest.fixture(scope="module")
def digits():
    return tutor.data.digits(200, source="synthetic")


@pytest.fixture(scope="module")
def shards(tmp_path_factory, digits):
    images, labels = digits
    folder = tmp_path_factory.mktemp("shards")
    return {
        "png": tfrecord.write_digits(folder / "png", images, labels, num_shards=4, encoding="png"),
        "raw": tfrecord.write_digits(folder / "raw", images, labels, num_shards=4, encoding="raw"),
    }


def test_a_record_is_its_bytes_plus_16_bytes_of_framing(shards):
    for path in shards["raw"] + shards["png"]:
        sizes = [len(r) for r in tf.data.TFRecordDataset(path).as_numpy_iterator()]
        assert os.path.getsize(path) == sum(sizes) + 16 * len(sizes)  # 8 length + 4 CRC + data + 4 CRC


def test_queue_runners_are_gone_from_the_tf2_api():
    assert not hasattr(tf.train, "string_input_producer")
    assert not hasattr(tf.train, "start_queue_runners")
    assert not hasattr(tf, "TFRecordReader")
    assert hasattr(tf.compat.v1.train, "string_input_producer") and hasattr(tf.compat.v1, "TFRecordReader")
    with pytest.raises(RuntimeError, match="eager"):
        tf.compat.v1.train.string_input_producer(["a.tfrecord"])


def test_a_feature_is_one_of_exactly_three_lists_and_a_single_value_is_a_list():
    kinds = [f.name for f in tf.train.Feature.DESCRIPTOR.oneofs_by_name["kind"].fields]
    assert sorted(kinds) == ["bytes_list", "float_list", "int64_list"]
    label = tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))
    assert list(label.int64_list.value) == [7]


def test_make_example_writes_the_same_bytes_as_the_hand_written_example(digits):
    images, labels = digits
    image, label = images[0], labels[0]
    png = tf.io.encode_png(image[:, :, None]).numpy()
    by_hand = tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
        "mean_brightness": tf.train.Feature(float_list=tf.train.FloatList(value=[image.mean() / 255])),
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[png])),
    }))
    same = tfrecord.make_example({"label": label, "mean_brightness": image.mean() / 255, "image": png})
    assert same.SerializeToString() == by_hand.SerializeToString()


def test_every_record_repeats_its_feature_names(shards):
    for record in tf.data.TFRecordDataset(shards["raw"][0]).take(3).as_numpy_iterator():
        assert all(name in record for name in (b"image", b"label", b"height", b"width", b"id"))


def test_sizes_on_disk(tmp_path, digits):
    images, labels = digits
    sizes = tfrecord.size_table(images, labels, tmp_path, num_shards=2).sizes
    raw, png = sizes["TFRecord, raw bytes"], sizes["TFRecord, png bytes"]
    raw_gz, png_gz = sizes["TFRecord, raw bytes, GZIP"], sizes["TFRecord, png bytes, GZIP"]
    assert raw > images.nbytes + labels.nbytes  # raw TFRecord is bigger than the arrays
    assert png < raw and raw_gz < raw / 2  # PNG is smaller; GZIP shrinks raw bytes a lot
    assert png_gz < png and png_gz / png > raw_gz / raw  # on top of PNG, GZIP gains less


def test_gzip_files_need_compression_type(tmp_path, digits):
    images, labels = digits
    path = tfrecord.write_digits(tmp_path, images[:8], labels[:8], num_shards=1, compression="GZIP")[0]
    with pytest.raises(tf.errors.DataLossError):
        list(tf.data.TFRecordDataset(path))
    assert len(list(tf.data.TFRecordDataset(path, compression_type="GZIP"))) == 8


def _tagged(paths, **interleave):
    files = tf.data.Dataset.from_tensor_slices(paths)
    tagged = files.enumerate().interleave(
        lambda shard, path: tf.data.TFRecordDataset(path).map(lambda record: (shard, record)),
        cycle_length=4, **interleave)
    spec = tfrecord.digit_spec()
    return [(int(s), int(tf.io.parse_single_example(r, spec)["id"])) for s, r in tagged.take(12)]


def test_interleave_takes_one_record_from_each_shard_in_turn(shards):
    expected = [(i % 4, i) for i in range(12)]  # write_digits sends digit i to shard i % 4
    assert _tagged(shards["png"]) == expected
    assert _tagged(shards["png"], num_parallel_calls=tf.data.AUTOTUNE) == expected  # deterministic by default


@pytest.mark.parametrize("deterministic, first_from", [(True, 0), (False, 1)])
def test_nondeterministic_interleave_hands_out_whatever_is_ready_first(deterministic, first_from):
    """Inner dataset 0 cannot produce until the test lets it; inner dataset 1 can at once."""
    gate = threading.Event()

    def produce(which):
        if int(which) == 0:
            gate.wait(30.0)
        return which

    def inner(which):
        return tf.data.Dataset.from_tensors(which).map(lambda w: tf.py_function(produce, [w], tf.int64))

    ds = tf.data.Dataset.range(2).interleave(inner, cycle_length=2, num_parallel_calls=2,
                                             deterministic=deterministic)
    timer = threading.Timer(0.5, gate.set) if deterministic else None  # deterministic: it must wait for 0
    if timer:
        timer.start()
    iterator = iter(ds)
    first = int(next(iterator))
    gate.set()
    assert first == first_from
    assert sorted([first] + [int(x) for x in iterator]) == [0, 1]


def test_png_round_trip_is_exact_and_jpeg_is_not(shards, digits):
    images, labels = digits
    result = tfrecord.round_trip(images, labels, tfrecord.read_digits(shards["png"], with_ids=True))
    assert result.identical
    jpeg = tf.io.decode_jpeg(tf.io.encode_jpeg(images[0][:, :, None], quality=95)).numpy()[:, :, 0]
    assert not np.array_equal(jpeg, images[0])


def test_parse_before_batch_runs_once_per_record_and_after_batch_once_per_batch(shards):
    spec = tfrecord.digit_spec()
    calls = {"per_record": 0, "vectorized": 0}

    def count(name):
        def tick(x):
            calls[name] += 1
            return x
        return lambda s: tf.py_function(tick, [s], tf.string)

    records = tf.data.Dataset.from_tensor_slices(shards["raw"]).interleave(tf.data.TFRecordDataset, cycle_length=4)
    per_record = records.map(lambda s: tf.io.parse_single_example(count("per_record")(s), spec)).batch(64)
    vectorized = records.batch(64).map(lambda s: tf.io.parse_example(count("vectorized")(s), spec))
    for ds in (per_record, vectorized):
        for _ in ds:
            pass
    assert calls == {"per_record": 200, "vectorized": 4}  # 200 records, batches of 64: 64, 64, 64, 8


def _damaged_copy(path, target, fraction=0.2):
    data = bytearray(open(path, "rb").read())
    data[int(len(data) * fraction)] ^= 0xFF
    with open(target, "wb") as f:
        f.write(bytes(data))
    return target


def test_damaged_file_raises_data_loss_after_the_good_records(tmp_path, shards):
    broken = _damaged_copy(shards["raw"][0], tmp_path / "broken.tfrecord")
    good = 0
    with pytest.raises(tf.errors.DataLossError, match="corrupted record"):
        for _ in tf.data.TFRecordDataset(str(broken)):
            good += 1
    assert 0 < good < 50
    with pytest.raises(tf.errors.DataLossError, match="broken.tfrecord"):
        tfrecord.count_records([shards["raw"][1], str(broken)])


def test_ignore_errors_drops_the_rest_of_a_damaged_file_silently(tmp_path, shards):
    broken = str(_damaged_copy(shards["raw"][0], tmp_path / "broken.tfrecord"))
    good = 0
    try:
        for _ in tf.data.TFRecordDataset(broken):
            good += 1
    except tf.errors.DataLossError:
        pass
    per_shard = 50
    delivered = list(tf.data.TFRecordDataset([shards["raw"][1], broken]).ignore_errors().as_numpy_iterator())
    assert len(delivered) == per_shard + good < 2 * per_shard  # every record after the damage is gone
    after = list(tf.data.TFRecordDataset([broken, shards["raw"][1]]).ignore_errors().as_numpy_iterator())
    assert len(after) == good + per_shard  # ... and the next file is still read


def test_dataset_ignore_errors_replaces_the_deprecated_experimental_one():
    assert "deprecated" in tf.data.experimental.ignore_errors.__doc__.lower()
    assert "Dataset.ignore_errors" in tf.data.experimental.ignore_errors.__doc__
    ds = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 4.0]).map(lambda x: tf.debugging.check_numerics(1 / x, ""))
    assert list(ds.ignore_errors().as_numpy_iterator()) == [1.0, 0.25]


def test_parse_example_error_names_the_key(shards):
    spec = {**tfrecord.digit_spec(), "label": tf.io.FixedLenFeature([], tf.float32)}
    records = next(iter(tf.data.TFRecordDataset(shards["png"][0]).batch(8)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="label"):
        tf.io.parse_example(records, spec)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'label' is stored as int64_list"):
        tfrecord.parse_example(records, spec)


# =============================================================================== lesson 09: generators
from busy import Meeting, Progress, cores, switch_interval  # noqa: E402  tests/busy.py: "several at once" decided by a meeting point

from tutor.checks import lesson09 as ex  # noqa: E402
from tutor.timeline import busy_wait  # noqa: E402

SCALAR = tf.TensorSpec((), tf.int64)


class Gauge:
    """Counts how many calls are inside ``with gauge:`` at once; the first ``meet`` of them meet first."""

    def __init__(self, meet: int = 0, patience: float = 30.0):
        self._lock = threading.Lock()
        self.active = self.peak = self.calls = 0
        self.meeting = Meeting(meet, patience=patience) if meet else None

    def __enter__(self):
        with self._lock:
            self.active += 1
            self.calls += 1
            self.peak = max(self.peak, self.active)
        if self.meeting:
            self.meeting.attend()

    def __exit__(self, *exc):
        with self._lock:
            self.active -= 1

    def sleeper(self, seconds: float = 0.01):
        """A function for ``tf.py_function``: counted, meets, sleeps (releasing the GIL), returns its input."""
        def work(x):
            with self:
                threading.Event().wait(seconds)
            return x
        return work


def _pool(threads=None, **optimization) -> tf.data.Options:
    options = tf.data.Options()
    if threads:
        options.threading.private_threadpool_size = threads
    for name, value in optimization.items():
        setattr(options.experimental_optimization, name, value)
    return options


def _parallel_map(gauge, num_parallel_calls, options=None, n=12):
    ds = tf.data.Dataset.range(n).map(lambda x: tf.py_function(gauge.sleeper(), [x], tf.int64),
                                      num_parallel_calls=num_parallel_calls)
    return [int(v) for v in (ds.with_options(options) if options else ds)]


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
          .prefetch(4).with_options(_pool(4)))
    assert [int(x) for x in ds] == list(range(16))
    assert inside.peak == 1 and inside.calls == 16  # never two next() at once ...
    assert after.meeting.met  # ... although the map after it runs two calls at once


def test_profile_shows_from_generator_as_flatmap_over_generator():
    ds = (tf.data.Dataset.from_generator(lambda: iter(range(6)), output_signature=SCALAR)
          .map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE).prefetch(1))
    tl = tutor.profile(ds, steps=6)
    assert {"Generator", "FlatMap", "ParallelMapV2"} <= set(tl.stages)
    assert tl.stages.index("Generator") < tl.stages.index("FlatMap") < tl.stages.index("ParallelMapV2")


def test_py_function_gets_eager_tensors_and_returns_tout():
    seen = []

    def work(x):
        seen.append(int(x.numpy()))
        return x * 2, float(x)

    ds = tf.data.Dataset.range(3).map(lambda x: tuple(tf.py_function(work, [x], Tout=[tf.int64, tf.float32])))
    assert [(int(a), float(b)) for a, b in ds] == [(0, 0.0), (2, 1.0), (4, 2.0)] and seen == [0, 1, 2]
    assert [s.dtype for s in ds.element_spec] == [tf.int64, tf.float32]


def test_default_pool_has_one_thread_per_core_whatever_num_parallel_calls_says():
    n = cores()
    for parallel in (tf.data.AUTOTUNE, 2 * n + 2):
        gauge = Gauge(meet=n)
        assert _parallel_map(gauge, parallel, n=3 * n + 3) == list(range(3 * n + 3))
        assert gauge.meeting.met and gauge.peak <= n  # up to one call per core, never more


_ONE_CORE = """
import os, threading, sys
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
lock, state = threading.Lock(), {"active": 0, "peak": 0}
def work(x):
    with lock:
        state["active"] += 1; state["peak"] = max(state["peak"], state["active"])
    threading.Event().wait(0.02)
    with lock:
        state["active"] -= 1
    return x
ds = tf.data.Dataset.range(12).map(lambda x: tf.py_function(work, [x], tf.int64), num_parallel_calls=4)
assert [int(v) for v in ds] == list(range(12))
print(state["peak"])
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs Linux CPU affinity")
def test_default_pool_follows_the_cores_the_process_may_use():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _ONE_CORE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "1"  # one allowed core: one thread, one call at a time


def test_a_private_pool_sets_how_many_run_at_once_even_beyond_the_cores():
    gauge = Gauge(meet=4)
    _parallel_map(gauge, 4, _pool(4))
    assert gauge.meeting.met and gauge.peak <= 4
    single = Gauge(meet=2, patience=0.3)
    _parallel_map(single, 4, _pool(1), n=6)
    assert single.peak == 1 and not single.meeting.met


def test_a_parallel_map_runs_calls_at_once_without_a_prefetch_after_it():
    gauge = Gauge(meet=2)
    _parallel_map(gauge, 2, _pool(2, inject_prefetch=False))
    assert gauge.meeting.met


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
    got = [int(x) for x in ds.with_options(_pool(threads))]
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


def test_py_function_loses_the_static_shape_and_batch_keeps_it_unknown():
    ds = tf.data.Dataset.range(8).map(lambda i: tuple(tf.py_function(ex.load_sample, [i], [tf.float32, tf.int64])))
    assert all(s.shape.rank is None for s in ds.element_spec)
    assert all(s.shape.rank is None for s in ds.batch(4).element_spec)
    images = ds.batch(4).map(lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None])))
    assert images.element_spec[0].shape.as_list() == [None, 8, 8]
    assert ds.batch(4, drop_remainder=True).map(
        lambda x, y: (tf.ensure_shape(x, [4, 8, 8]), y)).element_spec[0].shape.as_list() == [4, 8, 8]


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


def test_dense_and_tf_image_need_static_shapes():
    import keras

    with pytest.raises(ValueError):
        keras.layers.Dense(3)(keras.Input(shape=(None,)))
    unknown = tf.data.Dataset.range(2).map(lambda i: tf.py_function(lambda v: np.zeros((8, 8, 1), np.float32), [i],
                                                                    tf.float32))
    with pytest.raises(ValueError, match="no shape"):
        unknown.map(lambda x: tf.image.resize(x, [4, 4]))


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
    assert [int(v) for v in ds.with_options(_pool(4))] == list(range(8))
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


def test_load_sample_waits_and_load_sample_python_computes():
    start = time.thread_time()
    ex.load_sample(0)
    waiting_cpu = time.thread_time() - start
    start = time.thread_time()
    ex.load_sample_python(0)
    computing_cpu = time.thread_time() - start
    assert 3 * waiting_cpu < computing_cpu  # the sleep uses almost no CPU; the loop does the work


def test_the_index_trick_yields_what_the_generator_yields():
    direct = list(tf.data.Dataset.from_generator(ex.samples, output_signature=ex.signature()).as_numpy_iterator())
    trick = list(ex.q2.solution_answer().unbatch().as_numpy_iterator())
    assert len(direct) == len(trick) == 12
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(direct, trick))


def test_profile_of_the_two_parsers_shows_the_fused_and_the_vectorized_stages(shards):
    spec = tfrecord.digit_spec()
    records = tf.data.Dataset.from_tensor_slices(shards["raw"]).interleave(tf.data.TFRecordDataset, cycle_length=4)
    decode = lambda f: (tfrecord.decode_digits(f, "raw"), f["label"])  # noqa: E731
    per_record = records.map(lambda s: tf.io.parse_single_example(s, spec)).batch(64).map(decode)
    vectorized = records.batch(64).map(lambda s: tf.io.parse_example(s, spec)).map(decode)
    fused = tutor.profile(per_record, steps=4)
    assert "MapAndBatch" in fused.stages and not any(s.startswith("BatchV2") for s in fused.stages)
    split = tutor.profile(vectorized, steps=4)
    assert "BatchV2" in split.stages and "MapAndBatch" not in split.stages
    assert split.stages.index("BatchV2") < max(i for i, s in enumerate(split.stages) if "ParallelMapV2" in s)


def test_a_damaged_file_stops_model_fit(tmp_path, shards):
    import keras

    broken = str(_damaged_copy(shards["raw"][0], tmp_path / "broken.tfrecord"))
    ds = tfrecord.read_digits([broken], encoding="raw", batch_size=8).map(
        lambda images, labels: (tf.cast(images, tf.float32) / 255.0, labels))
    model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Flatten(), keras.layers.Dense(10)])
    model.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with pytest.raises(tf.errors.DataLossError):
        model.fit(ds, epochs=1, verbose=0)


def test_from_generator_calls_python_through_numpy_function():
    assert "tf.numpy_function" in tf.data.Dataset.from_generator.__doc__
    ds = tf.data.Dataset.from_generator(lambda: iter(range(3)), output_signature=SCALAR)
    generator = [s for s in tutor.doctor.read_pipeline(ds) if s.fn_name == "generator"]
    assert generator and "PyFunc" in generator[0].fn_ops
