"""tutor.doctor's speed rules and the rules about the code around a pipeline: where each fires, and where not.

The order and randomness rules are in test_doctor_rules.py (which also checks that every rule is tested).
"""
import random

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from test_doctor_rules import (decode, decode_and_crop, images, jpeg_paths, normalize, notes, range_ds, rotate, rules,
                               severities)
from tutor import doctor
from tutor.doctor import rules as doctor_rules

AUTOTUNE = tf.data.AUTOTUNE


def test_python_random_in_map():
    report = doctor.check(range_ds().map(lambda x: tf.cast(x, tf.float32) * np.random.uniform()).prefetch(1))
    assert report.rules == ["python-random-in-map"] and "np.random" in report[0].message

    def jitter(x):
        return tf.cast(x, tf.float32) + random.random()

    assert rules(range_ds().map(jitter).prefetch(1)) == ["python-random-in-map"]
    rng = np.random.default_rng(0)

    def helper():
        return rng.normal()

    def calls_a_helper(x):
        return tf.cast(x, tf.float32) + helper()

    assert rules(range_ds().map(calls_a_helper).prefetch(1)) == ["python-random-in-map"]
    # TensorFlow's random ops, and Python random inside py_function (runs per element), are fine
    assert rules(range_ds().map(lambda x: tf.cast(x, tf.float32) + tf.random.uniform([])).prefetch(1)) == []
    in_py = range_ds().map(lambda x: tf.py_function(lambda v: v + random.randint(0, 3), [x], tf.int64),
                           num_parallel_calls=AUTOTUNE)
    assert rules(in_py.prefetch(1)) == []

    def load(path):
        return np.float32(random.random())  # runs as Python for every element: fine

    def named_function_only(x):
        return tf.numpy_function(load, [x], tf.float32)

    assert rules(range_ds().map(named_function_only, num_parallel_calls=AUTOTUNE).prefetch(1)) == []

    def traced_choice_too(x):
        y = tf.numpy_function(load, [x], tf.float32)
        return y * random.choice([1.0, -1.0])  # runs once, at trace time

    # miss fixed: Python's random next to numpy_function in the same function
    report = doctor.check(range_ds().map(traced_choice_too, num_parallel_calls=AUTOTUNE).prefetch(1))
    assert report.rules == ["python-random-in-map"] and report[0].message.count("random.choice") == 1
    assert "random.random" not in report[0].message and report[0].severity == "wrong"


def test_python_before_service():
    from tutor.service import LocalService

    with LocalService(num_workers=1, name="doctor-test") as service:
        def distribute(ds):
            return ds.apply(tf.data.experimental.service.distribute("parallel_epochs", service.target))

        py = range_ds(10).map(lambda x: tf.py_function(lambda v: v, [x], tf.int64), num_parallel_calls=AUTOTUNE)
        report = doctor.check(distribute(py).prefetch(1))
        assert report.rules == ["python-before-service"]
        assert report[0].stage.kind == "distribute" and "map(lambda" in report[0].message
        assert [s.kind for s in report.stages][:2] == ["source", "map"]  # the workers' pipeline was read
        assert rules(distribute(range_ds(10).map(lambda x: x * x)).prefetch(1)) == []


def test_vectorizable_map_before_batch():
    report = doctor.check(images().map(normalize).batch(8).prefetch(1))
    assert report.rules == ["vectorizable-map-before-batch"]
    assert report[0].where == "stage 2: map(normalize)" and "RealDiv" in report[0].message
    per_image_rotation = doctor.check(images().map(rotate, num_parallel_calls=AUTOTUNE).batch(8).prefetch(1))
    assert per_image_rotation.rules == ["vectorizable-map-before-batch"]
    assert rules(jpeg_paths().map(decode).batch(8).prefetch(1)) == []
    assert rules(images().map(normalize).cache().batch(8).prefetch(1)) == []
    assert rules(images().map(normalize).prefetch(1)) == []
    assert rules(images().map(lambda x, y: (y, x)).batch(8).prefetch(1)) == []
    # false alarms fixed: work on a constant only, and slicing the element
    assert rules(images().map(lambda x, y: (x, y, tf.cast(1, tf.float32))).batch(8).prefetch(1)) == []
    assert rules(images().map(lambda x, y: (x[2:] * 2.0, y)).batch(8).prefetch(1)) == []
    assert rules(images().map(lambda x, y: (x[:, ::-1] * 2.0, y)).batch(8).prefetch(1)) == []


def test_map_not_parallel():
    report = doctor.check(jpeg_paths().map(decode_and_crop).batch(8).prefetch(1))
    assert report.rules == ["map-not-parallel"]
    finding = report[0]
    assert finding.where == "stage 2: map(decode_and_crop)" and "stateful (RandomUniformInt" in finding.message
    assert "decodes" in finding.message and "num_parallel_calls=tf.data.AUTOTUNE" in finding.fix
    python = doctor.check(range_ds().map(lambda x: tf.py_function(lambda v: v * 2, [x], tf.int64)).prefetch(1))
    assert python.rules == ["map-not-parallel"] and "GIL" in python[0].fix
    # stateless work: TensorFlow's map_parallelization (on by default) runs it in parallel
    assert rules(jpeg_paths().map(decode).batch(8).prefetch(1)) == []
    # ... unless the options turn that off
    off = tf.data.Options()
    off.experimental_optimization.map_parallelization = False
    assert rules(jpeg_paths().map(decode).batch(8).prefetch(1).with_options(off)) == ["map-not-parallel"]
    # parallel maps, and maps without real work, are fine
    assert rules(jpeg_paths().map(decode_and_crop, num_parallel_calls=AUTOTUNE).batch(8).prefetch(1)) == []
    assert rules(range_ds().map(lambda x: x + tf.random.uniform([], 0, 2, tf.int64)).prefetch(1)) == []


def test_sequential_file_reading():
    files = tf.data.Dataset.from_tensor_slices(["a.tfrecord", "b.tfrecord"])
    for ds in (files.flat_map(tf.data.TFRecordDataset), files.interleave(tf.data.TFRecordDataset, cycle_length=2),
               tf.data.TFRecordDataset(["a.tfrecord", "b.tfrecord"])):
        report = doctor.check(ds.prefetch(1))
        assert report.rules == ["sequential-file-reading"], str(report)
        assert report[0].severity == "slow"
    assert "num_parallel_reads" in doctor.check(tf.data.TFRecordDataset(["a", "b"]).prefetch(1))[0].fix
    assert rules(files.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE).prefetch(1)) == []
    assert rules(tf.data.TFRecordDataset(["a", "b"], num_parallel_reads=AUTOTUNE).prefetch(1)) == []
    assert rules(tf.data.TFRecordDataset(["a"]).prefetch(1)) == []  # one file
    assert rules(tf.data.TextLineDataset("titanic.csv").prefetch(1)) == []


def test_sequential_file_reading_of_one_file_or_aligned_files():
    """False alarms fixed: the guide's zip(Counter(), TextLineDataset(one_file)), and source/target line files."""
    lines = tf.data.TextLineDataset("train.csv")
    counted = tf.data.Dataset.zip((tf.data.Dataset.range(10**9), lines))
    assert rules(counted.shuffle(10_000).batch(20).prefetch(AUTOTUNE)) == []
    pairs = tf.data.Dataset.zip((tf.data.TextLineDataset(["train.en"]), tf.data.TextLineDataset(["train.de"])))
    assert rules(pairs.shuffle(10_000).prefetch(AUTOTUNE)) == []
    shards = tf.data.Dataset.zip((tf.data.TextLineDataset(["en-0", "en-1"]), tf.data.TextLineDataset(["de-0", "de-1"])))
    assert rules(shards.map(lambda e, d: (e, d)).prefetch(AUTOTUNE)) == []  # reading in parallel would reorder the lines
    # several files whose lines are not zipped are still read one after another
    assert rules(tf.data.TextLineDataset(["en-0", "en-1"]).prefetch(AUTOTUNE)) == ["sequential-file-reading"]


def test_generator_source():
    def samples():
        for i in range(4):
            yield np.full((8, 8), i, np.float32), i

    signature = (tf.TensorSpec((8, 8), tf.float32), tf.TensorSpec((), tf.int64))
    report = doctor.check(tf.data.Dataset.from_generator(samples, output_signature=signature).prefetch(1))
    assert report.rules == ["generator-source"] and "index trick" in report[0].fix
    # the index trick: a generator of scalar ids is cheap by design
    ids = tf.data.Dataset.from_generator(lambda: iter(range(4)), output_signature=tf.TensorSpec((), tf.int64))
    assert rules(ids.map(lambda i: i * 2, num_parallel_calls=AUTOTUNE).prefetch(1)) == []


def test_large_in_memory_source(monkeypatch):
    data = np.zeros((1000, 64), np.float32)  # 256 kB
    monkeypatch.setattr(doctor_rules.code, "LARGE_SOURCE_BYTES", 200_000)
    report = doctor.check(tf.data.Dataset.from_tensor_slices(data).batch(10).prefetch(1))
    assert report.rules == [] and report.note_rules == ["large-in-memory-source"]  # nothing wrong until serialized
    assert report.notes[0].stage.number == 1 and "2 GB" in report.notes[0].message
    monkeypatch.setattr(doctor_rules.code, "LARGE_SOURCE_BYTES", 300_000)
    assert notes(tf.data.Dataset.from_tensor_slices(data).batch(10).prefetch(1)) == []


def test_deprecated_experimental():
    files = tf.data.Dataset.from_tensor_slices(["a.tfrecord", "b.tfrecord"])
    legacy = files.apply(tf.data.experimental.parallel_interleave(tf.data.TFRecordDataset, cycle_length=2))
    report = doctor.check(legacy.prefetch(1))
    assert report.note_rules == ["deprecated-experimental"] and "parallel_interleave" in report.notes[0].message
    assert report.notes[0].doc.endswith("parallel_interleave") and "interleave" in report.notes[0].quote
    fused = range_ds().apply(tf.data.experimental.map_and_batch(lambda x: x + 1, 10))
    assert severities(fused.prefetch(1)) == {"deprecated-experimental": "note"}
    # core replacements and tf.data.experimental.AUTOTUNE (the same number) are fine
    assert notes(range_ds().batch(10).map(lambda x: x + 1, num_parallel_calls=tf.data.experimental.AUTOTUNE)
                 .prefetch(tf.data.experimental.AUTOTUNE)) == []


def test_deprecated_experimental_is_not_blamed_on_library_stages(tmp_path):
    """False alarm fixed: make_csv_dataset builds its own (deprecated) stages; the user wrote none of them."""
    path = tmp_path / "titanic.csv"
    path.write_text("survived,age\n" + "\n".join(f"{i % 2},{i}" for i in range(50)) + "\n")
    csv = tf.data.experimental.make_csv_dataset(str(path), batch_size=4, label_name="survived", num_epochs=1)
    assert severities(csv) == {}


def test_no_prefetch_at_end():
    # TensorFlow adds prefetch(AUTOTUNE) itself (inject_prefetch, on by default): a note, never a problem
    report = doctor.check(range_ds().shuffle(100).batch(10))
    assert report.rules == [] and report.note_rules == ["no-prefetch-at-end"] and report.healthy
    note = report.notes[0]
    assert note.severity == "note" and note.where == "stage 3: batch(batch_size=10)" and "inject_prefetch" in note.message
    endless = range_ds().shuffle(100).batch(10).repeat().prefetch(AUTOTUNE)
    assert severities(endless.take(30).with_options(tf.data.Options())) == {}
    # a last stage that already works ahead on its own threads needs nothing
    assert severities(range_ds().map(lambda x: x + 1, num_parallel_calls=AUTOTUNE)) == {}
    assert severities(range_ds().batch(10, num_parallel_calls=AUTOTUNE)) == {}
    files = tf.data.Dataset.from_tensor_slices(["a", "b"])
    assert severities(files.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE)) == {}


@pytest.mark.parametrize("switch", ["inject_prefetch", "autotune"])
def test_no_prefetch_at_end_is_slow_when_the_options_stop_the_injection(switch):
    options = tf.data.Options()
    if not hasattr(options.experimental_optimization, "inject_prefetch"):
        pytest.skip("this TensorFlow has no inject_prefetch option")
    if switch == "autotune":
        options.autotune.enabled = False
    else:
        options.experimental_optimization.inject_prefetch = False
    report = doctor.check(range_ds().shuffle(100).batch(10).with_options(options))
    assert report.rules == ["no-prefetch-at-end"] and report[0].severity == "slow" and switch in report[0].message
    assert severities(range_ds().shuffle(100).batch(10).prefetch(AUTOTUNE).with_options(options)) == {}
