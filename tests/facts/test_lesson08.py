"""The facts lesson 08 (Profile and fix a real pipeline) states, checked on real TensorFlow.

The 2019 case study: the post's figures, its three pipelines as TensorFlow runs them, each hypothesis tested by
a count (a cache after an endless repeat, decoding once), the generator-seeded crops, the saved trace, and the
doctor on the baseline and on the capstone. No test decides by a wall-clock time.
"""
import json
import os
import random

import numpy as np
import pytest
import tensorflow as tf

import tutor
from busy import CallLog, Meeting
from tutor.doctor import PY_FUNCTION_OPS, read_pipeline

from .helpers import waiting_map


# ------------------------------------------------------------------ the 2019 experiment and its pipelines
AUTOTUNE = tf.data.AUTOTUNE


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


def _two_calls_met_in_a_fused_map_and_batch(stateful, **optimization):
    """Whether two calls of a plain ``map(f).batch(4)`` ran at once: the first two wait for each other."""
    meeting = Meeting(2, patience=1.5)

    def attend(x):
        meeting.attend()
        return x

    def f(x):
        y = tf.numpy_function(attend, [x], Tout=tf.int64, stateful=False)   # stateless: TensorFlow may rewrite it
        return y + tf.random.uniform([], 0, 1, tf.int64) if stateful else y   # a random op makes it stateful

    options = tf.data.Options()
    options.threading.private_threadpool_size = 4   # the machine's core count does not matter
    for name, value in optimization.items():
        setattr(options.experimental_optimization, name, value)
    ds = tf.data.Dataset.range(8).map(f).batch(4).with_options(options)
    assert [b.tolist() for b in ds.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    return meeting.met


def test_a_plain_map_before_batch_is_made_parallel_then_fused_into_a_parallel_map_and_batch():
    plain = tf.data.Dataset.range(8).map(lambda x: x * 2).batch(4)
    assert "MapAndBatch" in tutor.profile(plain, steps=2).stages
    assert _two_calls_met_in_a_fused_map_and_batch(stateful=False)   # stateless: its calls ran at once
    assert not _two_calls_met_in_a_fused_map_and_batch(stateful=False, map_parallelization=False)
    assert not _two_calls_met_in_a_fused_map_and_batch(stateful=True)   # stateful: one call at a time


def test_the_posts_map_runs_no_python(jpegs):
    maps = [s for s in read_pipeline(seed_variants(*jpegs)["2"]) if s.kind == "map"]
    assert len(maps) == 1 and not (maps[0].fn_ops & PY_FUNCTION_OPS)
    assert {"DecodeImage", "ReadFile"} <= maps[0].fn_ops


# ---------------------------------------------------------- the hypotheses, and a pipeline that decodes each file once
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


# ------------------------------------------------------------------ the same run as a trace
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


# ------------------------------------------------------------------ the doctor and the capstone
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
