"""Lesson 10 exercises: every question gets its solution, other correct answers, typical mistakes and bad input.

Nothing here depends on timing: q1 parses three records, q2 reads the pipeline's
structure and compares its elements with what was written.
"""
import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor.checks import lesson10 as ex
from .checking import refused

GOOD = {
    "id": tf.io.FixedLenFeature([], tf.int64),
    "position": tf.io.FixedLenFeature([2], tf.float32),
    "caption": tf.io.FixedLenFeature([], tf.string),
    "tags": tf.io.VarLenFeature(tf.int64),
}


# ----------------------------------------------------------------------------- q1
def test_q1_solution_passes():
    result = ex.q1.check(ex.q1.solution_answer())
    assert result.passed and "sparse" in result.message


@pytest.mark.parametrize("spec", [
    {**GOOD, "tags": tf.io.RaggedFeature(tf.int64)},
    {**GOOD, "id": tf.io.FixedLenFeature([1], tf.int64), "caption": tf.io.FixedLenFeature((1,), tf.string)},
    {**GOOD, "id": tf.io.FixedLenFeature([], tf.int64, default_value=0),
     "position": tf.io.FixedLenFeature((2,), tf.float32, default_value=[0.0, 0.0])},
    {"tags": tf.io.VarLenFeature(dtype=tf.int64), "caption": tf.io.FixedLenFeature(shape=[], dtype=tf.string),
     "position": tf.io.FixedLenFeature(shape=[2], dtype=tf.float32),
     "id": tf.io.FixedLenFeature(shape=(), dtype=tf.int64)},
    {**GOOD, "tags": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int32)},
    # parse_example reads a FixedLenSequenceFeature with allow_missing=True as a list of any length, padded
    {**GOOD, "tags": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)},
    {**GOOD, "id": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
     "caption": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True),
     "tags": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=-1)},
    # TensorFlow takes a dtype as a string or a NumPy type too
    {**GOOD, "tags": tf.io.VarLenFeature("int64"), "position": tf.io.FixedLenFeature([2], "float32"),
     "id": tf.io.FixedLenFeature([], np.int64)},
], ids=["ragged", "shape-1", "defaults", "keywords-other-order", "ragged-int32-splits", "sequence-feature-padded",
        "sequence-features-everywhere", "dtype-as-string-or-numpy"])


def test_q1_other_correct_answers(spec):
    result = ex.q1.check(spec)
    assert result.passed, result.message


@pytest.mark.parametrize("spec, words", [
    ({**GOOD, "tags": tf.io.FixedLenFeature([3], tf.int64)}, ["'tags'", "VarLenFeature"]),
    ({**GOOD, "position": tf.io.FixedLenFeature([], tf.float32)}, ["'position'", "[2]"]),
    ({**GOOD, "caption": tf.io.FixedLenFeature([], tf.int64)}, ["'caption'", "tf.string"]),
    ({**GOOD, "id": tf.io.FixedLenFeature([], tf.float32)}, ["'id'", "tf.int64"]),
    ({**GOOD, "id": tf.io.FixedLenFeature([], tf.int32)}, ["'id'", "int32", "cannot be parsed"]),
    ({**GOOD, "position": tf.io.VarLenFeature(tf.float32)}, ["'position'", "FixedLenFeature([2]"]),
    ({**GOOD, "id": tf.io.VarLenFeature(tf.int64)}, ["'id'", "FixedLenFeature([]"]),
    ({**GOOD, "id": tf.int64}, ["'id'", "not a feature description"]),
    ({**GOOD, "tags": tf.io.FixedLenSequenceFeature([], tf.int64)}, ["'tags'", "allow_missing=True"]),
    ({k: v for k, v in GOOD.items() if k != "caption"}, ["leaves out 'caption'"]),
    ({**{k: v for k, v in GOOD.items() if k != "tags"}, "tag": GOOD["tags"]}, ["'tag'", "did you mean 'tags'"]),
    ({**GOOD, "label": GOOD["id"]}, ["no feature named 'label'"]),
    (tutor.tfrecord.digit_spec(), ["no feature named"]),
], ids=["tags-fixed", "position-scalar", "caption-int", "id-float", "id-int32", "position-varlen", "id-varlen",
        "bare-dtype", "sequence-feature", "missing", "typo", "extra", "lesson-spec"])


def test_q1_mistakes_name_the_feature(spec, words):
    refused(ex.q1, spec, *words)


@pytest.mark.parametrize("answer, words", [
    ([1, 2], ["expected a dict", "list"]),
    ("spec", ["expected a dict", "str"]),
    (tf.data.Dataset.range(5).repeat(), ["feature spec itself", "tf.data.Dataset"]),
    (tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0), ["tf.data.Dataset"]),
    (tf.data.Dataset.from_tensor_slices(["a", "b"]), ["tf.data.Dataset"]),
    (tf.data.Dataset.range(3).map(lambda x: tf.py_function(lambda v: 1 / 0, [x], tf.float32)), ["tf.data.Dataset"]),
    ({**GOOD, "id": np.array([1, 2])}, ["'id'", "not a feature description"]),
    ({**GOOD, 3: GOOD["id"]}, ["no feature named '3'"]),
], ids=["list", "string", "endless", "never-yields", "strings", "raising-map", "array-value", "int-key"])


def test_q1_bad_input_gets_a_sentence(answer, words):
    refused(ex.q1, answer, *words)


def test_mystery_records_are_what_the_lesson_says():
    tables = [tutor.inspect_record(r) for r in ex.mystery_records()]
    assert [t.names for t in tables] == [["caption", "id", "position", "tags"]] * 3
    lengths = [{r["name"]: r["length"] for r in t.rows} for t in tables]
    assert [n["tags"] for n in lengths] == [3, 2, 4]
    assert {n["position"] for n in lengths} == {2} and {n["id"] for n in lengths} == {1}


# ----------------------------------------------------------------------------- q2
@pytest.fixture(scope="module")
def files():
    return ex.example_files()


SPEC = tutor.tfrecord.digit_spec()


def decode(features):
    return tutor.tfrecord.decode_digits(features, "png"), features["label"]


def records(files, **interleave):
    return tf.data.Dataset.from_tensor_slices(files).interleave(tf.data.TFRecordDataset,
                                                                **({"cycle_length": 4} | interleave))


def parse(serialized):
    return tf.io.parse_example(serialized, SPEC)


def test_q2_solution_passes():
    result = ex.q2.check(ex.q2.solution_answer())
    assert result.passed, result.message
    assert "4 op calls for 256 records" in result.message


@pytest.mark.parametrize("build", [
    lambda f: records(f, num_parallel_calls=tf.data.AUTOTUNE).batch(64)
    .map(parse, num_parallel_calls=tf.data.AUTOTUNE).map(decode, num_parallel_calls=2).prefetch(tf.data.AUTOTUNE),
    lambda f: tf.data.TFRecordDataset(f).batch(64).map(lambda s: decode(parse(s))),
    lambda f: records(f).batch(64).apply(tf.data.experimental.parse_example_dataset(SPEC)).map(decode),
    lambda f: records(f, cycle_length=2).batch(64, drop_remainder=True).map(parse).map(decode),
], ids=["parallel-and-prefetch", "one-map-no-interleave", "parse_example_dataset", "other-cycle-drop-remainder"])


def test_q2_other_correct_answers(files, build):
    result = ex.q2.check(build(files))
    assert result.passed, result.message


def test_q2_mistakes_name_the_fault(files, tmp_path):
    per_record = records(files).map(lambda s: tf.io.parse_single_example(s, SPEC)).batch(64).map(decode)
    refused(ex.q2, per_record, "one record at a time", "before batch")
    refused(ex.q2, records(files).map(parse).batch(64).map(decode), "one record at a time", "before batch")
    no_batch = records(files).map(lambda s: parse(tf.reshape(s, [1]))).map(decode)
    refused(ex.q2, no_batch, "one record at a time", "before any batch")
    refused(ex.q2, records(files).batch(32).map(parse).map(decode), "batches 32", "batch(64)")
    refused(ex.q2, records(files).batch(64).map(parse), "dicts of features", "decodes")
    raw = records(files).batch(64).map(parse).map(lambda f: (tutor.tfrecord.decode_digits(f, "raw"), f["label"]))
    refused(ex.q2, raw, "decode_raw", "PNG")
    refused(ex.q2, records(files).batch(64).map(parse).map(decode).take(2), "128 images", "256")
    lesson_files = tutor.tfrecord.write_digits(tmp_path, *tutor.data.digits(300, source="synthetic"), num_shards=4)
    refused(ex.q2, records(lesson_files).batch(64).map(parse).map(decode), "300 images", "example_files")
    # the lesson's own png_paths (more digits than `files`): named by its count, never blamed on repeat()
    png_paths = tutor.tfrecord.write_digits(tmp_path / "png", *tutor.data.digits(2000, source="synthetic"),
                                            num_shards=4, encoding="png")
    result = refused(ex.q2, records(png_paths).batch(64).map(parse).map(decode), "2000 images", "png_paths")
    assert "repeat" not in result.message
    ids_as_labels = records(files).batch(64).map(parse).map(lambda f: (tutor.tfrecord.decode_digits(f), f["id"]))
    refused(ex.q2, ids_as_labels, "labels differ")
    refused(ex.q2, tf.data.Dataset.from_tensors((tf.zeros([4, 28, 28, 1]), tf.zeros([4], tf.int64))),
                 "parses Examples")
    refused(ex.q2, tf.data.Dataset.from_tensors((tf.zeros([4, 28, 28]), tf.zeros([4], tf.int64))),
                 "[batch, 28, 28, 1]")


def test_q2_structure_is_read_from_the_graph(files):
    per_record = records(files).map(lambda s: tf.io.parse_single_example(s, SPEC)).batch(16).map(decode)
    stages = ex.parse_stages(per_record)
    assert [kind for kind, _ in stages][-2:] == ["batch", "map"]
    assert [p for _, p in stages].index(True) < [kind for kind, _ in stages].index("batch")
    vectorized = ex.parse_stages(records(files).batch(16).map(parse).map(decode))
    assert [p for _, p in vectorized].index(True) > [kind for kind, _ in vectorized].index("batch")


def test_q2_bad_input_gets_a_sentence(files):
    solution = ex.q2.solution_answer()
    cases = {
        "list": ([1, 2], ["expected a tf.data.Dataset", "list"]),
        "string": ("slow", ["expected a tf.data.Dataset", "text"]),
        "endless": (solution.repeat(), ["never ends", "repeat()"]),
        "never-yields": (tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0), ["(images, labels)"]),
        "strings": (tf.data.Dataset.from_tensor_slices(["a", "b"]), ["(images, labels)"]),
        "raising-map": (solution.map(lambda x, y: (x, y + tf.cast(tf.debugging.check_numerics(
            tf.cast(y, tf.float32) / 0.0, "boom"), tf.int64))), ["error"]),
        "raising-py-function": (tf.data.Dataset.range(3).map(
            lambda x: tf.py_function(lambda v: 1 / 0, [x], tf.float32)), ["(images, labels)"]),
    }
    for name, (answer, words) in cases.items():
        result = refused(ex.q2, answer, *words)
        assert len(result.message) < 600, name
    assert "None" in ex.q2.check(None).message


def test_q2_a_dataset_that_never_yields_stops_at_the_deadline(short_deadline):
    never = ex.q2.solution_answer().repeat().filter(lambda images, labels: False)
    refused(ex.q2, never, "no element", "filter()")


def test_example_files_hold_what_the_checker_expects(files):
    assert len(files) == 4
    counts = tutor.tfrecord.count_records(files)
    assert sum(counts.values()) == ex.N_EXAMPLES
    ids = [int(i) for i in tf.data.TFRecordDataset(files[1]).map(lambda s: tf.io.parse_single_example(s, SPEC)["id"])]
    assert ids == list(range(1, ex.N_EXAMPLES, 4))  # digit i goes to shard i % 4
