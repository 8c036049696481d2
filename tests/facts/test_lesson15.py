"""The facts lesson 15 (Memory and CPU) states, checked on real TensorFlow.

* memory: a buffer keeps whole elements (shuffle, prefetch, a parallel map, a parallel interleave: 3 x cycle_length
  inputs open, 2 x block_length + 1 elements each; a plain interleave keeps cycle_length inputs and reads nothing
  ahead); TensorFlow's tensor count holds them while the iterator lives and falls back once it is gone; a plain
  stateless map runs in parallel by default; RSS grows by about a new buffer's size and mostly stays after; a buffered id costs
  about usage.BOOKKEEPING_BYTES besides its 8 bytes;
* the fixes: shuffling ids then decoding gives the same order as decoding then shuffling (same seed, first pass);
  map(slow).cache().map(big) runs the slow step once and caches the small results; a cache after a filter keeps
  what passes; cache().take(k) keeps nothing and take(k).cache() keeps k; a cache lives as long as its dataset;
  a shuffle buffer fills before its first element;
* CPU: the process's CPU time counts TensorFlow's threads; max_intra_op_parallelism is an option that changes no
  element;
* outer parallelism: a filter calls its predicate one element at a time, however many threads; shard pipelines
  run side by side in a parallel interleave; their order is the interleave's turn order, the same in every run;
* remote storage: a parallel interleave over files has up to 3 x cycle_length first reads in progress at once.

No test decides by a wall-clock time: bytes, counts, orders, and meetings of calls (tests/busy.py).
"""
import gc
import inspect
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import tensorflow as tf

import tutor
from busy import CallLog, Meeting
from tutor import usage
from tutor.timeline import naive_options
from tutor.usage.memory import settled

from .helpers import R, Recorder, ids

MB = 2**20


def decode(file_id):
    return tf.fill([512, 512], tf.cast(file_id, tf.float32))   # 1 MB, as in the lesson


def naive(ds):
    return ds.with_options(naive_options())


def memory_use(ds, **kwargs):
    """usage.memory_use, with a count that must stay unchanged for a whole second: on a machine whose cores are
    busy, the threads that fill a buffer can pause for longer than the lesson's default."""
    return usage.memory_use(ds, quiet=1.0, **kwargs)


@pytest.fixture(autouse=True)
def no_earlier_iterator_at_work():
    """An earlier test's iterators may still be freeing their buffers in TensorFlow's threads: wait until the
    tensor count is still, so that each test measures only its own pipeline."""
    gc.collect()
    settled(usage.tensor_bytes, quiet=1.0, longest=30.0)
    yield


# ----------------------------------------------------------------------------- where the memory goes
@pytest.mark.parametrize("ds, buffered", [
    (R(300).map(decode).shuffle(100, seed=0), 100),
    (R(300).map(decode).prefetch(5), 5),
    (R(300).map(decode, num_parallel_calls=4), 4),
    (R(40).interleave(lambda f: R(100).map(decode), cycle_length=3, num_parallel_calls=3), 27),
    (R(40).interleave(lambda f: R(100).map(decode), cycle_length=3, block_length=2, num_parallel_calls=3), 45),
], ids=["shuffle", "prefetch", "parallel-map", "parallel-interleave", "interleave-block-2"])
def test_a_buffer_keeps_whole_elements_as_the_arithmetic_says(ds, buffered):
    use = memory_use(naive(ds))
    assert use.buffers.total == buffered * MB
    assert buffered * MB <= use.tensors_held <= (buffered + 2) * MB + MB // 2   # plus the element we hold (TF 2.20
                                                                               # keeps one more for a while)
    assert use.tensors_after <= MB // 2                                # the buffers belong to the iterator


def test_with_default_options_the_count_is_the_arithmetic_plus_a_few_elements():
    use = memory_use(R(300).map(decode).shuffle(100, seed=15).prefetch(2))
    assert use.buffers.total == 102 * MB
    assert 102 * MB <= use.tensors_held <= (102 + 1 + 2 * tutor.env.cpu_report().tensorflow_threads + 4) * MB
    assert use.tensors_after <= MB // 2


def test_tensorflow_runs_the_plain_decode_map_in_parallel_by_default():
    tl = tutor.profile(R(20).map(decode).shuffle(10, seed=0).prefetch(2), steps=5)
    assert "ParallelMapV2" in tl.stages
    assert "ParallelMapV2" not in tutor.profile(naive(R(20).map(decode).shuffle(10).prefetch(2)), steps=5).stages


def test_a_parallel_interleave_opens_three_cycles_of_inputs_and_works_ahead_in_each():
    for cycle, block, calls in [(3, 1, 3), (3, 1, 1), (2, 2, 2)]:
        opened, reads, lock = [], {}, threading.Lock()

        def note_open(f):
            with lock:
                opened.append(int(f))
            return f

        def note_read(f, r):
            with lock:
                reads[int(f)] = reads.get(int(f), 0) + 1
            return r

        def open_file(f):
            f = tf.py_function(note_open, [f], tf.int64)
            return R(100).map(lambda r: tf.py_function(note_read, [f, r], tf.int64))

        ds = naive(R(40).interleave(open_file, cycle_length=cycle, block_length=block, num_parallel_calls=calls))
        iterator = iter(ds)
        next(iterator)
        settled(lambda: (len(opened), sorted(reads.items())), quiet=0.3, longest=30.0)
        with lock:
            assert sorted(opened) == list(range(3 * cycle))                  # the cycle and 2 x cycle_length ahead
            per_input = sorted(reads.values())
        assert per_input == [2 * block + 1] * (3 * cycle - 1) + [2 * block + 2]   # one element was taken out
        del iterator


def test_a_plain_interleave_keeps_cycle_length_inputs_and_reads_nothing_ahead():
    recorder = Recorder()
    iterator = iter(naive(R(40).interleave(lambda f: recorder.watch(R(f * 100, f * 100 + 100)), cycle_length=3)))
    got = [int(next(iterator)) for _ in range(3)]
    time.sleep(0.2)
    assert got == [0, 100, 200] and recorder.made == [0, 100, 200]
    del iterator


def test_rss_grows_by_about_a_new_buffer_and_mostly_stays_after():
    """In a fresh process (memory it never held before), on Linux: RSS grows by about the buffer's 200 MB while
    the iterator lives, and most of it stays after the iterator is gone, while TensorFlow's count falls back."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the allocators' behaviour checked here is that of TensorFlow's Linux builds")
    code = textwrap.dedent("""
        import tutor, tensorflow as tf
        from tutor import usage
        ds = tf.data.Dataset.range(300).map(lambda i: tf.fill([512, 512], tf.cast(i, tf.float32))).shuffle(200)
        use = usage.memory_use(ds, quiet=1.0)
        print(use.rss_held, use.rss_after, use.tensors_held, use.tensors_after)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rss_held, rss_after, held, after = (int(v) for v in out.stdout.split()[-4:])
    assert 200 * MB <= held <= (201 + 2 * tutor.env.cpu_report().tensorflow_threads + 4) * MB and after <= MB // 2
    assert rss_held >= 0.8 * 200 * MB
    assert rss_after >= 0.5 * rss_held


# ----------------------------------------------------------------------------- the fixes
def test_shuffling_ids_then_decoding_gives_the_same_order_as_decoding_then_shuffling():
    for seed in (15, 0, 3):
        first = [int(x[0, 0]) for x in R(300).map(decode).shuffle(100, seed=seed).take(40)]
        second = [int(x[0, 0]) for x in R(300).shuffle(100, seed=seed).map(decode).take(40)]
        assert first == second
    shuffled_ids = usage.buffers(R(300).shuffle(100, seed=15).map(decode).prefetch(2))
    assert [(b.kind, b.bytes) for b in shuffled_ids] == [("shuffle", 800), ("prefetch", 2 * MB)]


def test_each_pass_of_a_seeded_shuffle_draws_a_new_order():
    ds = R(300).shuffle(100, seed=15)
    assert ids(ds.take(20)) != ids(ds.take(20)) or ids(ds) != ids(ds)


def _caches(calls):
    def read_file(file_id):
        calls.append(int(file_id))
        return file_id

    def parse(file_id):
        file_id = tf.numpy_function(read_file, [file_id], tf.int64)
        return tf.fill([64], tf.cast(file_id, tf.float32))

    def expand(numbers):
        return tf.tile(tf.reshape(numbers, [8, 8]), [64, 64])

    files = R(60)
    return files.map(parse).map(expand).cache(), files.map(parse).cache().map(expand)


def test_cache_the_small_thing_runs_the_slow_step_once_and_keeps_small_results():
    calls = []
    big, small = _caches(calls)
    for ds, kept in ((big, 60 * MB), (small, 60 * 256)):
        calls.clear()
        use = memory_use(ds.repeat(2), elements=1000)
        assert use.elements == 120 and sorted(calls) == list(range(60))
        assert use.buffers.total == kept
        if kept >= 256 * 1024:
            assert kept <= use.tensors_after <= kept + MB + MB // 2   # TF 2.20 keeps one more element
        else:                                                 # too small for TensorFlow's count (see below)
            assert use.tensors_after <= kept + 60 * 64
    assert [x.shape for x in small.take(1)] == [(512, 512)]


def test_tensorflows_count_holds_large_tensors_and_leaves_out_small_ones():
    """On the usual Linux builds (oneDNN on) tensors of 256 KB and more are counted, smaller ones are not.

    The count is the whole process's: a thread of an earlier test that still allocates adds to one reading, never
    takes away, so the smallest growth of three tries is this test's own."""
    large_growth, small_growth = [], []
    for _ in range(3):
        gc.collect()
        before = usage.tensor_bytes()
        large = [tf.fill([256 * 1024 // 4], float(i)) for i in range(4)]
        large_growth.append(usage.tensor_bytes() - before)
        small = [tf.fill([1024], float(i)) for i in range(64)]
        small_growth.append(usage.tensor_bytes() - before - large_growth[-1])
        del large, small
    # each large tensor is counted; after many other tests an op may keep a scratch buffer of its own beside them
    assert 4 * 256 * 1024 <= min(large_growth) <= 4 * 256 * 1024 + 512 * 1024
    assert min(small_growth) <= 64 * 4096


def test_a_cache_lives_as_long_as_its_dataset():
    gc.collect()
    before = usage.tensor_bytes()
    ds = R(20).map(decode).cache()
    for element in ds:
        pass
    del element
    assert usage.tensor_bytes() - before >= 20 * MB
    del ds
    gc.collect()
    assert usage.tensor_bytes() - before <= MB // 2


@pytest.mark.parametrize("build, kept", [
    (lambda files: files.map(decode).cache().filter(lambda x: x[0, 0] % 2 == 0), 60),
    (lambda files: files.map(decode).filter(lambda x: x[0, 0] % 2 == 0).cache(), 30),
    (lambda files: files.map(decode).cache().take(10), 0),
    (lambda files: files.map(decode).take(10).cache(), 10),
], ids=["cache-then-filter", "filter-then-cache", "cache-then-take", "take-then-cache"])
def test_a_cache_after_the_cut_keeps_only_what_is_used(build, kept):
    use = memory_use(build(R(60)), elements=1000)
    assert kept * MB <= use.tensors_after <= kept * MB + MB // 2
    table = use.buffers[0].bytes
    assert table is None if kept == 30 else table == kept * MB


def test_a_cache_read_in_part_is_filled_again_in_every_pass():
    recorder = Recorder()
    partly = naive(recorder.watch(R(40)).cache().take(10))
    assert ids(partly) == ids(partly) == list(range(10)) and recorder.made == list(range(10)) * 2
    recorder = Recorder()
    whole = naive(recorder.watch(R(40)).take(10).cache())
    assert ids(whole) == ids(whole) == list(range(10)) and recorder.made == list(range(10))


def test_a_shuffle_buffer_fills_before_its_first_element():
    recorder = Recorder()
    iterator = iter(naive(recorder.watch(R(1000)).shuffle(200, seed=0)))
    next(iterator)
    assert len(recorder.made) == 200


def test_a_buffered_id_costs_about_the_bookkeeping_bytes_more_than_its_eight():
    """In a fresh process on Linux: a shuffle buffer of a million ids grows RSS by about 200 bytes an id (the
    figure usage.BOOKKEEPING_BYTES gives and lesson 15 sizes with), not by the 8 bytes of data."""
    if not sys.platform.startswith("linux"):
        pytest.skip("measured on TensorFlow's Linux builds")
    code = textwrap.dedent("""
        import tutor, tensorflow as tf
        from tutor import usage
        use = usage.memory_use(tf.data.Dataset.range(10**6).shuffle(10**6), quiet=1.0)
        print(use.rss_held)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    per_id = int(out.stdout.split()[-1]) / 10**6
    assert 0.5 * usage.BOOKKEEPING_BYTES <= per_id <= 2 * usage.BOOKKEEPING_BYTES, per_id


def test_a_buffer_of_ids_is_eight_bytes_an_element():
    assert usage.element_bytes(R(10).element_spec) == 8
    assert usage.buffers(R(10**6).shuffle(10**6))[0].bytes == 8 * 10**6


# ----------------------------------------------------------------------------- CPU
def test_the_process_cpu_time_counts_tensorflows_threads():
    x = tf.random.stateless_uniform([256, 256], seed=[1, 2])
    ds = R(64).map(lambda i: tf.reduce_sum(tf.linalg.matmul(x + tf.cast(i, tf.float32), x)), num_parallel_calls=2)
    list(ds)
    process, thread = time.process_time(), time.thread_time()
    iterator = iter(ds)
    for _ in iterator:
        pass
    assert time.process_time() - process > 2 * (time.thread_time() - thread)


def test_max_intra_op_parallelism_is_an_option_that_changes_no_element():
    options = tf.data.Options()
    assert options.threading.max_intra_op_parallelism is None
    options.threading.max_intra_op_parallelism = 1
    ds = R(64).batch(8).map(lambda x: tf.math.tanh(tf.cast(x, tf.float32)), num_parallel_calls=2)
    limited = ds.with_options(options)
    assert limited.options().threading.max_intra_op_parallelism == 1
    assert all((a == b).all() for a, b in zip(ds.as_numpy_iterator(), limited.as_numpy_iterator()))


def test_the_vectorized_transform_gives_the_same_batches():
    def transform(x):
        for _ in range(20):
            x = tf.math.tanh(x * 1.01 + 0.01)
            x = x - tf.reduce_mean(x, axis=-1, keepdims=True)
        return x

    records = R(256).map(lambda r: tf.fill([64], tf.cast(r % 100, tf.float32) / 100.0))
    one = records.map(transform, num_parallel_calls=2).batch(64)
    vectorized = records.batch(64).map(transform)
    import numpy as np

    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(one.as_numpy_iterator(), vectorized.as_numpy_iterator()))


# ----------------------------------------------------------------------------- outer parallelism
def test_filter_and_unbatch_have_no_num_parallel_calls():
    assert "num_parallel_calls" not in inspect.signature(tf.data.Dataset.filter).parameters
    assert "num_parallel_calls" not in inspect.signature(tf.data.Dataset.unbatch).parameters
    assert "num_parallel_calls" in inspect.signature(tf.data.Dataset.interleave).parameters


def _predicate(log, meeting):
    def keep(record):
        if meeting is not None:
            meeting.attend()
        with log.call():
            time.sleep(0.002)
        return record % 3 != 0

    return lambda r: tf.ensure_shape(tf.py_function(keep, [r], Tout=tf.bool), [])


def _records(file_id):
    return R(file_id * 10, file_id * 10 + 10)


def _pool(n):
    options = tf.data.Options()
    options.threading.private_threadpool_size = n
    return options


def test_a_filter_calls_its_predicate_one_element_at_a_time_however_many_threads():
    log = CallLog()
    meeting = Meeting(2, patience=2.0)
    got = ids(R(8).flat_map(_records).filter(_predicate(log, meeting)).with_options(_pool(4)))
    assert not meeting.met and log.most_at_once == 1 and len(got) == 53


def test_shard_pipelines_in_a_parallel_interleave_run_their_filters_side_by_side():
    log = CallLog()
    meeting = Meeting(4)
    keep = _predicate(log, meeting)
    files = R(8)
    outer = R(4).interleave(lambda i: files.shard(4, i).flat_map(_records).filter(keep), cycle_length=4,
                            num_parallel_calls=4).with_options(_pool(4))
    got = ids(outer)
    assert meeting.met and log.most_at_once >= 4
    assert sorted(got) == sorted(ids(R(8).flat_map(_records).filter(lambda r: r % 3 != 0)))


def test_the_outer_order_is_the_interleaves_turn_order_in_every_run():
    files = R(8)
    keep = lambda r: r % 3 != 0  # noqa: E731
    outer = R(4).interleave(lambda i: files.shard(4, i).flat_map(_records).filter(keep), cycle_length=4,
                            num_parallel_calls=4)
    shards = [[r for f in range(8) if f % 4 == i for r in range(f * 10, f * 10 + 10) if r % 3 != 0] for i in range(4)]
    turns = [shard[k] for k in range(max(map(len, shards))) for shard in shards if k < len(shard)]
    assert ids(outer) == ids(outer) == turns
    assert ids(outer)[:12] == [1, 10, 20, 31, 2, 11, 22, 32, 4, 13, 23, 34]
    loose = R(4).interleave(lambda i: files.shard(4, i).flat_map(_records).filter(keep), cycle_length=4,
                            num_parallel_calls=4, deterministic=False)
    assert sorted(ids(loose)) == sorted(turns)
    assert [int(f) for f in files.shard(4, tf.constant(1, tf.int64))] == [1, 5]


# ----------------------------------------------------------------------------- remote storage
def test_a_parallel_interleave_has_up_to_three_cycles_of_first_reads_in_progress():
    meeting = Meeting(12)
    first_reads = []

    def arrive(f, r):
        if int(r) == 0:
            first_reads.append(int(f))
            meeting.attend()
        return r

    def open_file(f):
        return R(5).map(lambda r: tf.py_function(arrive, [f, r], tf.int64))

    ds = R(24).interleave(open_file, cycle_length=4, num_parallel_calls=4).with_options(_pool(16))
    assert len(ids(ds)) == 120 and meeting.met and sorted(first_reads) == list(range(24))


def test_reading_files_one_at_a_time_has_one_wait_in_progress():
    store = usage.RemoteStorage(first_byte=0.002, per_record=0.001)
    got = list(R(6).flat_map(lambda f: store.open(f, records=3)).with_options(_pool(16)).as_numpy_iterator())
    assert len(got) == 18 and store.files_opened == 6 and store.most_at_once == 1
