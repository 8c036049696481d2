"""The facts lessons 07 (performance) and 08 (profile and fix) state, checked on real TensorFlow.

tests/test_performance_semantics.py holds the older facts (prefetch counts its input, parallel map order, the
thread pool and the GIL, cache rules, vectorizing). This file adds what the rewritten lessons say on top:
the profile's stage names and rewrite notes, the fair baseline, the file cache that goes stale, the parallel
interleave's own threads, and the 2019 case study (lesson 08). No test decides by a wall-clock time: each asserts
what happened (stage names, counts of calls, how many calls were in progress at once, element values).
"""
import json
import os
import random
import threading
import time

import numpy as np
import pytest
import tensorflow as tf

import tutor
from busy import CallLog, Meeting, cores
from tutor.doctor import PY_FUNCTION_OPS, read_pipeline

AUTOTUNE = tf.data.AUTOTUNE


def naive_options():
    """The fair baseline lesson 07 builds in the open."""
    options = tf.data.Options()
    options.autotune.enabled = False
    options.experimental_optimization.inject_prefetch = False
    options.experimental_optimization.map_parallelization = False
    return options


def waiting_map(seconds=0.005, log=None):
    """A map function that waits in Python (like lesson 07's decode), optionally recording its calls."""
    def wait(value):
        if log is None:
            time.sleep(seconds)
        else:
            with log.call():
                time.sleep(seconds)
        return value

    return lambda x: tf.py_function(wait, [x], Tout=tf.int64)


# --------------------------------------------------------------------------- lesson 07: the fair baseline
def _tf_version():
    return tuple(int(p) for p in tf.__version__.split(".")[:2])


def test_inject_prefetch_is_left_to_its_default_which_injects_a_prefetch():
    # Documented: "If None, defaults to True" from the 2.12 docs on (2.10 said False). The lesson says "about 2.11/2.12".
    assert tf.data.Options().experimental_optimization.inject_prefetch is None
    tl = tutor.profile(tf.data.Dataset.range(6).map(waiting_map()), steps=6)
    if _tf_version() >= (2, 12):
        assert tl.stages == ["Range", "Map", "Prefetch"]
        assert any("added a prefetch" in note and "inject_prefetch" in note for note in tl.notes)


def test_the_naive_options_keep_the_pipeline_as_written():
    tl = tutor.profile(tf.data.Dataset.range(6).map(waiting_map()).with_options(naive_options()), steps=6)
    assert tl.stages == ["Range", "Map"] and tl.notes == []


def test_switching_autotuning_off_already_stops_both_rewrites():
    off = tf.data.Options()
    off.autotune.enabled = False
    stateless = tf.data.Dataset.range(6).map(lambda x: x * 2)       # a map TensorFlow would parallelize
    stateful = tf.data.Dataset.range(6).map(waiting_map())  # stays a plain Map: a prefetch is injected after it
    assert tutor.profile(stateless, steps=6).stages == ["Range", "ParallelMapV2"]
    assert tutor.profile(stateful, steps=6).stages == ["Range", "Map", "Prefetch"]
    assert tutor.profile(stateless.with_options(off), steps=6).stages == ["Range", "Map"]
    assert tutor.profile(stateful.with_options(off), steps=6).stages == ["Range", "Map"]


def test_a_prefetch_is_injected_only_after_a_synchronous_last_stage():
    parallel_last = tf.data.Dataset.range(6).map(waiting_map(), num_parallel_calls=2)
    assert tutor.profile(parallel_last, steps=6).stages == ["Range", "ParallelMapV2"]


def test_profiled_stage_names_the_lesson_prints():
    naive = naive_options()
    one = tf.data.Dataset.range(4).map(waiting_map())
    assert tutor.profile(one.prefetch(1).with_options(naive), steps=4).stages == ["Range", "Map", "Prefetch"]
    parallel = tf.data.Dataset.range(4).map(waiting_map(), num_parallel_calls=2).prefetch(1).with_options(naive)
    assert tutor.profile(parallel, steps=4).stages == ["Range", "ParallelMapV2", "Prefetch"]
    cached = tf.data.Dataset.range(4).map(waiting_map()).cache().repeat(3).prefetch(1).with_options(naive)
    stages = tutor.profile(cached, steps=12).stages
    assert {"MemoryCache", "MemoryCacheImpl", "Map", "FiniteRepeat"} <= set(stages)
    files = tf.data.Dataset.range(3).interleave(lambda f: tf.data.Dataset.range(4).map(waiting_map()),
                                                cycle_length=3, num_parallel_calls=3)
    assert "ParallelInterleaveV4" in tutor.profile(files.prefetch(1).with_options(naive), steps=12).stages


def test_without_a_buffer_the_map_never_works_while_the_consumer_steps():
    tl = tutor.profile(tf.data.Dataset.range(6).map(waiting_map(0.01)).with_options(naive_options()),
                       steps=6, step_time=0.01)
    work, steps = tl.stage_events("Map"), tl.steps
    for s, e in zip(work["start"], work["end"]):  # pulled: a Map call never overlaps a training step
        assert not np.any((np.minimum(e, steps["end"]) - np.maximum(s, steps["start"])) > 1e-4)


def test_a_cache_runs_the_work_in_the_first_epoch_only():
    log = CallLog()
    naive = naive_options()
    no_cache = tf.data.Dataset.range(4).map(waiting_map(log=log)).repeat(3).prefetch(1).with_options(naive)
    tutor.profile(no_cache, steps=12)
    assert len(log) == 12
    log = CallLog()
    cached = tf.data.Dataset.range(4).map(waiting_map(log=log)).cache().repeat(3).prefetch(1).with_options(naive)
    tutor.profile(cached, steps=12)
    assert len(log) == 4


def test_a_file_cache_is_read_by_a_changed_pipeline(tmp_path):
    cache_file = str(tmp_path / "decoded")
    first = tf.data.Dataset.range(4).map(lambda x: x * 10).cache(cache_file)
    assert [int(v) for v in first.as_numpy_iterator()] == [0, 10, 20, 30]
    assert os.path.exists(cache_file + ".index")  # the files start with the name given
    changed = tf.data.Dataset.range(4).map(lambda x: x * 100).cache(cache_file)
    assert [int(v) for v in changed.as_numpy_iterator()] == [0, 10, 20, 30]  # stale, from the first pass on
    for name in os.listdir(tmp_path):
        os.remove(tmp_path / name)
    assert [int(v) for v in changed.as_numpy_iterator()] == [0, 100, 200, 300]  # deleted: computed again


def test_a_private_pool_lets_more_waiting_calls_run_than_the_shared_pool():
    """Lesson 07's count: sleeping calls, shared pool against a private pool with more threads than cores.

    The lesson asks for 4 calls at once on Colab's 2 cores; on a machine with more cores the test asks for
    two more than the cores, so the shared pool (one thread per core) is what limits, on any machine.
    """
    n = cores()
    k = max(4, n + 2)
    shared, private = CallLog(), CallLog()
    meet_shared, meet_private = Meeting(n + 1, patience=1.0), Meeting(k)

    def run(log, meeting, options):
        def wait(value):
            with log.call():
                meeting.attend()
                time.sleep(0.01)
            return value

        ds = tf.data.Dataset.range(2 * k).map(lambda x: tf.py_function(wait, [x], Tout=tf.int64),
                                              num_parallel_calls=k)
        assert sorted(int(v) for v in ds.with_options(options).as_numpy_iterator()) == list(range(2 * k))

    private_pool = tf.data.Options()
    private_pool.threading.private_threadpool_size = k
    run(shared, meet_shared, tf.data.Options())
    run(private, meet_private, private_pool)
    assert not meet_shared.met and shared.most_at_once <= n
    assert meet_private.met and private.most_at_once == k


def test_a_parallel_interleave_is_limited_by_the_pool_that_runs_its_map_functions():
    """Lesson 07: three files, each record waits inside a py_function map; the pool, not interleave, limits."""
    def three_files(log, meeting, threads=None):
        def wait(record):
            with log.call():
                meeting.attend()
                time.sleep(0.01)
            return record

        read_file = lambda f: tf.data.Dataset.range(4).map(lambda r: tf.py_function(wait, [r], Tout=tf.int64))
        ds = tf.data.Dataset.range(3).interleave(read_file, cycle_length=3, num_parallel_calls=3)
        if threads:
            options = tf.data.Options()
            options.threading.private_threadpool_size = threads
            ds = ds.with_options(options)
        assert len(list(ds.as_numpy_iterator())) == 12

    pooled, meet_pooled = CallLog(), Meeting(3)
    three_files(pooled, meet_pooled, threads=3)
    assert meet_pooled.met and pooled.most_at_once == 3
    if cores() < 3:
        shared, meet_shared = CallLog(), Meeting(3, patience=1.0)
        three_files(shared, meet_shared)
        assert not meet_shared.met and shared.most_at_once <= cores()
    single, meet_single = CallLog(), Meeting(2, patience=1.0)
    three_files(single, meet_single, threads=1)
    assert not meet_single.met and single.most_at_once == 1


def _readers_at_once(fifos, patience):
    """Poll until every FIFO has a reader (an open for writing then succeeds); return the write ends opened."""
    opened, give_up = {}, time.monotonic() + patience
    while len(opened) < len(fifos) and time.monotonic() < give_up:
        for path in fifos:
            if path not in opened:
                try:
                    opened[path] = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                except OSError:
                    pass
        time.sleep(0.01)
    return opened


def _files_open_at_once(folder, patience, **interleave):
    """How many of 3 named pipes a TextLineDataset interleave had open for reading at once, with a 1-thread pool."""
    fifos = [str(folder / f"shard{i}") for i in range(3)]
    for path in fifos:
        os.mkfifo(path)
    options = tf.data.Options()
    options.threading.private_threadpool_size = 1
    ds = tf.data.Dataset.from_tensor_slices(fifos).interleave(tf.data.TextLineDataset, **interleave)
    ds = ds.with_options(options)
    def read_all():  # TextLineDataset cannot seek in a pipe, so reading ends in an error: only the opening counts
        try:
            list(ds.as_numpy_iterator())
        except tf.errors.OpError:
            pass

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    opened = _readers_at_once(fifos, patience=patience)
    try:
        return len(opened)
    finally:
        for path in fifos:  # let every reader finish: write to each file and close it
            fd = opened.get(path)
            if fd is None:
                threading.Thread(target=lambda p=path: os.close(os.open(p, os.O_WRONLY)), daemon=True).start()
                continue
            try:
                os.write(fd, b"line\n")
            except BrokenPipeError:  # that reader already gave up
                pass
            os.close(fd)
        reader.join(30)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_parallel_interleave_reads_its_files_on_worker_threads_of_its_own(tmp_path):
    """Even with a pool of ONE thread, the three files of the cycle are open for reading at the same time."""
    (tmp_path / "parallel").mkdir()
    (tmp_path / "serial").mkdir()
    assert _files_open_at_once(tmp_path / "parallel", 30.0, cycle_length=3, num_parallel_calls=3) == 3
    assert _files_open_at_once(tmp_path / "serial", 1.0, cycle_length=1) == 1  # the control: one file at a time


# --------------------------------------------------------------------------- lesson 08: the 2019 case study
def test_the_posts_time_per_step_is_its_total_times_epochs_over_steps():
    minutes = {"1": 0.446, "2": 3.726, "3": 7.014}
    per_step = {"1": 0.803, "2": 6.707, "3": 12.625}
    factors = {k: per_step[k] / (minutes[k] * 60) for k in minutes}
    assert all(abs(f - 0.03) < 2e-4 for f in factors.values())  # one factor for all three: epochs / steps
    epochs, steps_per_epoch = 3, 100  # one pair with that ratio: the printed formula, and the right one
    total = minutes["1"] * 60
    assert round(total / steps_per_epoch * epochs, 3) == per_step["1"]
    assert total / (steps_per_epoch * epochs) < per_step["1"] / 9
    assert round(minutes["2"] / minutes["1"], 1) == 8.4 and round(minutes["3"] / minutes["1"], 1) == 15.7


@pytest.fixture(scope="module")
def jpegs(tmp_path_factory):
    paths = tutor.data.jpeg_folder(str(tmp_path_factory.mktemp("jpegs")), n=24, size=(64, 64), seed=0)
    labels = (tutor.data.labels_from_paths(paths) % 2).tolist()
    return paths, labels


CROP = (32, 32, 3)


def preprocessing(path, label):
    image = tf.image.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
    image = tf.image.random_crop(image, size=CROP)
    return tf.cast(image, tf.float32) / 255.0, tf.cast(label, tf.float32)


def seed_variants(paths, labels, batch=4):
    n = len(paths)
    source = tf.data.Dataset.from_tensor_slices((paths, labels))
    return {
        "1": source.shuffle(n).map(preprocessing).repeat().batch(batch).prefetch(AUTOTUNE),
        "2": source.shuffle(n).repeat().map(preprocessing, num_parallel_calls=AUTOTUNE).batch(batch).prefetch(AUTOTUNE),
        "3": source.shuffle(n).repeat().map(preprocessing, num_parallel_calls=AUTOTUNE).batch(batch).cache(),
    }


def test_the_posts_pipelines_as_tensorflow_runs_them(jpegs):
    v = seed_variants(*jpegs)
    # 1: random_crop makes the function stateful, so map_parallelization leaves the map sequential
    assert "Map" in tutor.profile(v["1"], steps=6).stages
    stateless = tf.data.Dataset.from_tensor_slices(jpegs[0]).map(
        lambda p: tf.image.decode_image(tf.io.read_file(p), channels=3, expand_animations=False)[:32, :32])
    assert "ParallelMapV2" in tutor.profile(stateless, steps=6).stages  # the control: without random, it is rewritten
    # 2: shuffle+repeat and map+batch fused
    tl2 = tutor.profile(v["2"], steps=6)
    assert {"ShuffleAndRepeat", "MapAndBatch", "Prefetch"} <= set(tl2.stages)
    assert sum("fused" in note for note in tl2.notes) == 2
    # 3: a prefetch is injected after the cache, and not when inject_prefetch is off (as in 2019)
    tl3 = tutor.profile(v["3"], steps=6)
    assert tl3.stages[-1] == "Prefetch" and any("added a prefetch" in note for note in tl3.notes)
    like_2019 = tf.data.Options()
    like_2019.experimental_optimization.inject_prefetch = False
    tl3_2019 = tutor.profile(v["3"].with_options(like_2019), steps=6)
    assert "Prefetch" not in tl3_2019.stages and not any("prefetch" in note for note in tl3_2019.notes)


def test_the_posts_map_runs_no_python(jpegs):
    maps = [s for s in read_pipeline(seed_variants(*jpegs)["2"]) if s.kind == "map"]
    assert len(maps) == 1 and not (maps[0].fn_ops & PY_FUNCTION_OPS)
    assert {"DecodeImage", "ReadFile"} <= maps[0].fn_ops


def _counted(paths, labels, log):
    def note(path):
        with log.call():
            return path

    source = tf.data.Dataset.from_tensor_slices((paths, labels))
    return source.map(lambda path, label: (tf.ensure_shape(tf.py_function(note, [path], tf.string), []), label))


def test_a_cache_after_the_endless_repeat_serves_nothing_even_to_a_second_iterator(jpegs):
    """Lesson 08's test of hypothesis 1, which could fail: a second iterator of the same dataset object."""
    paths, labels = jpegs
    log = CallLog()
    endless = _counted(paths, labels, log).shuffle(len(paths)).repeat().map(
        preprocessing, num_parallel_calls=AUTOTUNE).batch(4).cache()
    for _ in endless.take(2 * len(paths) // 4):
        pass
    assert len(log) >= 2 * len(paths)
    before = len(log)
    for _ in endless.take(len(paths) // 4):  # a second iterator: the cache holds nothing it could serve
        pass
    assert len(log) - before >= len(paths)


def generator_crop(seed=0):
    """Lesson 08's random crop: a tf.random.Generator gives every image in every epoch its own stateless seed."""
    seeds = tf.random.Generator.from_seed(seed)

    def random_crop(image, label):
        image = tf.image.stateless_random_crop(image, size=CROP, seed=seeds.make_seeds(1)[:, 0])
        return tf.cast(image, tf.float32) / 255.0, label

    return random_crop


def test_decoding_once_then_caching_reads_each_file_once_and_keeps_reshuffling(jpegs):
    paths, labels = jpegs
    log = CallLog()

    def read_and_decode(path, label):
        return tf.io.decode_jpeg(tf.io.read_file(path), channels=3), label

    def decode_once(files):
        return (files.map(read_and_decode, num_parallel_calls=AUTOTUNE).cache().shuffle(len(paths)).repeat()
                .map(generator_crop(), num_parallel_calls=AUTOTUNE).batch(4).prefetch(AUTOTUNE))

    fast = decode_once(_counted(paths, labels, log))
    batches = [b for _, b in fast.take(2 * len(paths) // 4).as_numpy_iterator()]
    assert len(log) == len(paths)  # each file read once, over two epochs
    for _ in fast.take(len(paths) // 4):  # a second iterator of the same dataset reads from the complete cache
        pass
    assert len(log) == len(paths)
    assert tutor.doctor.check(decode_once(tf.data.Dataset.from_tensor_slices((paths, labels)))).rules == []
    first, second = np.concatenate(batches[:len(batches) // 2]), np.concatenate(batches[len(batches) // 2:])
    assert sorted(first.tolist()) == sorted(second.tolist()) == sorted(labels)


def test_generator_seeded_crops_differ_every_epoch_and_every_iterator_while_a_global_seed_repeats_them():
    """08 c29/c42 follow lessons 05 and 12: a stateful random op restarts its sequence with every iterator."""
    image = tf.reshape(tf.range(64 * 64 * 3) % 251, (64, 64, 3))
    one = tf.data.Dataset.from_tensors((tf.cast(image, tf.uint8), 0.0)).cache().repeat(3)

    def crops(ds):
        return [c.tobytes() for c, _ in ds.as_numpy_iterator()]

    with_generator = one.map(generator_crop(), num_parallel_calls=AUTOTUNE)
    first, second = crops(with_generator), crops(with_generator)
    assert len(set(first)) == 3 and not set(first) & set(second)  # new crops in every epoch and every iterator
    tf.keras.utils.set_random_seed(0)
    stateful = one.map(lambda im, label: (tf.image.random_crop(im, CROP), label))
    assert crops(stateful) == crops(stateful)  # the control: the same crops again for a second iterator


def test_the_capstones_fixed_augment_flips_and_crops_per_image_and_epoch():
    seeds = tf.random.Generator.from_seed(1)

    def augment(image, label):
        pair = seeds.make_seeds(2)
        image = tf.image.stateless_random_flip_left_right(image, seed=pair[:, 0])
        return tf.image.stateless_random_crop(image, (8, 8, 3), seed=pair[:, 1]), label

    image = tf.random.stateless_uniform((16, 16, 3), seed=[0, 1])
    ds = tf.data.Dataset.from_tensors((image, 0.0)).repeat(8).map(augment, num_parallel_calls=AUTOTUNE)
    outs = [c.tobytes() for c, _ in ds.as_numpy_iterator()]
    assert len(set(outs)) == 8


def test_the_doctor_on_the_posts_baseline_and_on_the_capstone(jpegs):
    paths, labels = jpegs
    assert tutor.doctor.check(seed_variants(paths, labels)["1"]).rules == ["map-not-parallel"]

    def load_and_augment(path, label):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        image = tf.image.resize(image, (48, 48)) / 255.0
        if random.random() < 0.5:
            image = tf.image.flip_left_right(image)
        return tf.image.random_crop(image, CROP), tf.cast(label, tf.float32)

    files = tf.data.Dataset.from_tensor_slices((paths, labels)).shuffle(len(paths))
    slow = files.map(load_and_augment).batch(4).repeat()
    report = tutor.doctor.check(slow)  # TensorFlow adds the prefetch itself: the doctor says so in a note
    assert {"python-random-in-map", "map-not-parallel"} <= set(report.rules) and "no-prefetch-at-end" in report.note_rules

    def load(path, label):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return tf.image.resize(image, (48, 48)) / 255.0, tf.cast(label, tf.float32)

    def augment(image, label):
        return tf.image.random_crop(tf.image.random_flip_left_right(image), CROP), label

    fixed = (tf.data.Dataset.from_tensor_slices((paths, labels)).map(load, num_parallel_calls=AUTOTUNE).cache()
             .shuffle(len(paths)).repeat().map(augment, num_parallel_calls=AUTOTUNE).batch(4).prefetch(AUTOTUNE))
    assert tutor.doctor.check(fixed).rules == []


def test_python_random_in_a_map_ran_once_while_tensorflow_random_runs_per_element():
    images = tf.data.Dataset.from_tensor_slices(np.arange(40, dtype=np.float32).reshape(20, 1, 2, 1))
    for seed in range(6):  # whatever random.random() returned when map traced the function: all or none
        random.seed(seed)
        python_flip = images.map(lambda x: tf.image.flip_left_right(x) if random.random() < 0.5 else x)
        flipped = [bool(v[0, 0, 0] > v[0, 1, 0]) for v in python_flip.repeat(2).as_numpy_iterator()]
        assert len(set(flipped)) == 1
    tf.random.set_seed(0)
    tf_flip = images.map(tf.image.random_flip_left_right)
    flipped = [bool(v[0, 0, 0] > v[0, 1, 0]) for v in tf_flip.as_numpy_iterator()]
    assert 0 < sum(flipped) < len(flipped)


def test_the_saved_trace_is_json_with_the_fields_the_lesson_names():
    tl = tutor.profile(tf.data.Dataset.range(8).map(waiting_map()).prefetch(1), steps=8, step_time=0.002)
    path = tl.save_trace(os.path.join(os.environ.get("TMPDIR", "/tmp"), f"trace-{os.getpid()}.json"))
    try:
        with open(path) as f:
            trace = json.load(f)
    finally:
        os.remove(path)
    bars = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert sorted(bars[0]) == ["args", "cat", "dur", "name", "ph", "pid", "tid", "ts"]
    assert "step" in bars[0]["args"] and trace["otherData"]["stages"] == tl.stages


# --------------------------------------------------------------------------- lesson 07: an interleave's threads
@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc (Linux)")
def test_a_parallel_interleave_starts_about_four_threads_per_file_of_its_cycle():
    """07 c28: one manager, one worker per file in the cycle and three per file opened ahead (not "a few")."""
    def threads():
        return len(os.listdir("/proc/self/task"))

    def slow_file(i):
        return tf.data.Dataset.range(4).map(waiting_map(0.01))

    list(tf.data.Dataset.range(2).map(waiting_map(0.001), num_parallel_calls=2))  # TF's own pools exist now
    started = {}
    for cycle_length in (1, 4):
        before = threads()
        it = iter(tf.data.Dataset.range(8).interleave(slow_file, cycle_length=cycle_length,
                                                      num_parallel_calls=cycle_length))
        next(it)
        started[cycle_length] = threads() - before
        del it
    assert started[4] - started[1] >= 3 * 3  # at least three more threads for each further file in the cycle
