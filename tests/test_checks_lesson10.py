"""Tests for the lesson 10 exercises."""
import tensorflow as tf

import tutor
from tutor.checks import lesson10 as ex


GOOD = {
    "id": tf.io.FixedLenFeature([], tf.int64),
    "position": tf.io.FixedLenFeature([2], tf.float32),
    "caption": tf.io.FixedLenFeature([], tf.string),
    "tags": tf.io.VarLenFeature(tf.int64),
}


def test_q1_solution_passes_and_placeholder_is_unattempted():
    assert ex.q1.check(ex.q1.solution_answer()).passed
    assert ex.q1.check(...).status == "unattempted"
    assert ex.q1.check({**GOOD, "tags": tf.io.RaggedFeature(tf.int64)}).passed


def test_q1_wrong_specs_name_the_feature():
    cases = {
        "tags": {**GOOD, "tags": tf.io.FixedLenFeature([3], tf.int64)},
        "position": {**GOOD, "position": tf.io.FixedLenFeature([], tf.float32)},
        "caption": {**GOOD, "caption": tf.io.FixedLenFeature([], tf.int64)},
    }
    for name, spec in cases.items():
        result = ex.q1.check(spec)
        assert not result.passed and f"'{name}'" in result.message, result.message
    assert "VarLenFeature" in ex.q1.check(cases["tags"]).message
    missing = dict(GOOD)
    del missing["caption"]
    assert "leaves out 'caption'" in ex.q1.check(missing).message
    assert "no feature named 'label'" in ex.q1.check({**GOOD, "label": GOOD["id"]}).message
    assert not ex.q1.check([1, 2]).passed


def test_mystery_records_are_what_the_lesson_says():
    tables = [tutor.inspect_record(r) for r in ex.mystery_records()]
    assert [t.names for t in tables] == [["caption", "id", "position", "tags"]] * 3
    assert [{r["name"]: r["length"] for r in t.rows}["tags"] for t in tables] == [3, 2, 4]


def test_q2_solution_passes_and_per_record_parsing_fails():
    assert ex.q2.check(ex.q2.solution_answer()).passed
    files = ex.example_files(n=64, num_shards=2)
    spec = tutor.tfrecord.digit_spec()
    records = tf.data.Dataset.from_tensor_slices(files).interleave(tf.data.TFRecordDataset, cycle_length=2)
    per_record = (records.map(lambda s: tf.io.parse_single_example(s, spec)).batch(16)
                  .map(lambda f: (tutor.tfrecord.decode_digits(f), f["label"])))
    result = ex.q2.check(per_record)
    assert not result.passed and "one record at a time" in result.message
    stages = ex.parse_stages(per_record)
    assert [kind for kind, _ in stages][-2:] == ["batch", "map"]
    assert [p for _, p in stages].index(True) < [kind for kind, _ in stages].index("batch")


def test_q2_other_wrong_answers():
    assert "parses Examples" in ex.q2.check(
        tf.data.Dataset.from_tensors((tf.zeros([4, 28, 28, 1]), tf.zeros([4], tf.int64)))).message
    assert "(images, labels)" in ex.q2.check(tf.data.Dataset.range(3)).message
    assert not ex.q2.check("files").passed
    assert "[batch, 28, 28, 1]" in ex.q2.check(
        tf.data.Dataset.from_tensors((tf.zeros([4, 28, 28]), tf.zeros([4], tf.int64)))).message
    assert tutor.tfrecord.read_digits(ex.example_files(n=32, num_shards=2), vectorized=True) is not None
    assert ex.q2.check(tutor.tfrecord.read_digits(ex.example_files(n=32, num_shards=2), batch_size=8)).passed
    assert not ex.q2.check(tutor.tfrecord.read_digits(ex.example_files(n=32, num_shards=2), batch_size=8,
                                                      vectorized=False)).passed
