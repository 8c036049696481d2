"""Lesson 11 exercises: right answers in every form pass; typical mistakes and bad input get a sentence.

q2 needs two logical CPUs; its right answer is checked in a fresh process by tests/facts/test_lesson11.py.
Here, in a process with one CPU device, it must say how to get them instead of failing obscurely.
"""
import glob
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor.checks import lesson11 as ex

R = tf.data.Dataset.range


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("lesson11-checks")
    image_root = tutor.data.class_folders(str(root / "digits"), n=60, classes=(0, 1, 2))
    return {"csv_path": tutor.data.weather_csv(str(root / "weather.csv")), "image_root": image_root,
            "class_names": sorted(os.listdir(image_root))}


_ONE_CPU_DEVICE = """
import tensorflow as tf
from tutor.checks import lesson11 as ex
assert len(tf.config.list_logical_devices("CPU")) == 1
result = ex.q2.check([4, 5, 6, 7])
print(result.passed, "Restart the kernel" in result.message, ex.q2.check(...).status)
"""


def test_q2_without_two_logical_cpus_says_how_to_get_them():
    # in a fresh process: this one may already have made two logical CPUs, which cannot be undone
    out = subprocess.run([sys.executable, "-c", _ONE_CPU_DEVICE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-3:] == ["False", "True", "unattempted"]


# ------------------------------------------------------------------ q1
@pytest.mark.parametrize("answer", [[5, 6], (5, 6), np.array([5, 6]), [np.int64(5), 6.0]])
def test_q1_right_predictions(answer):
    assert ex.q1.check(answer).passed


@pytest.mark.parametrize("answer, message", [
    ([2, 0], "not in it"),          # the epoch started again
    ([8, 3], "not in it"),          # resumed where the job stopped, not where it saved
    ([9, 7], "not in it"),
    ([6, 5], "different order"),
    ([5, 6, 9, 7], "not in it"),
    (R(3), "not a pipeline"),
    ("5, 6", "you predicted"),
    ([[4, 5], [6, 7]], "one flat list of 2 items; you predicted a list of lists"),  # batches, not the first batch
])


def test_q1_wrong_predictions(answer, message):
    result = ex.q1.check(answer)
    assert not result.passed and message in result.message, result.message


# ------------------------------------------------------------------ q3
def _csv(files, **options):
    settings = dict(batch_size=4, label_name="rain", num_epochs=1, shuffle=False,
                    column_defaults=[tf.int32, "", float("nan"), float("nan"), tf.int32])
    settings.update(options)
    return tf.data.experimental.make_csv_dataset(files["csv_path"], **settings)


def test_q3_other_right_answers(files):
    nan = tf.constant(float("nan"))
    assert ex.q3.check(_csv(files, column_defaults=[tf.int64, tf.constant(""), nan, nan, tf.int64])).passed
    assert ex.q3.check(_csv(files, column_defaults=[0, "?", np.nan, np.nan, 0])).passed
    rows = tf.data.experimental.CsvDataset(files["csv_path"], [tf.int32, "", float("nan"), float("nan"), tf.int32],
                                           header=True)
    as_dicts = rows.batch(4).map(lambda d, s, t, h, r: ({"day": d, "station": s, "temperature": t, "humidity": h}, r))
    assert ex.q3.check(as_dicts).passed


@pytest.mark.parametrize("options, message", [
    ({"column_defaults": None}, "becomes 0"),
    ({"num_epochs": None}, "num_epochs=1"),
    ({"shuffle": True, "shuffle_seed": 1}, "shuffle=False"),
    ({"label_name": None}, "label_name='rain'"),
    ({"batch_size": 5}, "batches of 4"),
    ({"column_defaults": [tf.int32, tf.string, float("nan"), float("nan"), tf.int32]}, "makes the column required"),
    ({"num_epochs": 2}, "more than once"),
    # defaults that make the numbers text: the missing values are "" and the present ones strings, never NaN
    ({"column_defaults": [tf.int32, "", "", "", tf.int32]}, "'temperature' comes out as text (strings)"),
    ({"column_defaults": [tf.int32, "", float("nan"), "", tf.int32]}, "'humidity' comes out as text (strings)"),
    ({"column_defaults": [tf.int32, "", 0, 0, tf.int32]}, "'temperature' comes out as int32 numbers"),
])


def test_q3_typical_mistakes(files, options, message):
    if options.get("column_defaults", 1) is None:
        options = {"column_defaults": None}
    result = ex.q3.check(_csv(files, **{k: v for k, v in options.items()}))
    assert not result.passed and message in result.message, result.message


# ------------------------------------------------------------------ q4
def _label(class_names):
    def with_label(path):
        folder = tf.strings.split(path, os.sep)[-2]
        return path, tf.argmax(tf.cast(folder == class_names, tf.int32))
    return with_label


def test_q4_other_right_answers(files):
    root, names = files["image_root"], files["class_names"]
    pattern = os.path.join(root, "*", "*.jpg")
    assert ex.q4.check(tf.data.Dataset.list_files(pattern, seed=3).map(_label(names))).passed
    paths = sorted(glob.glob(pattern))
    shuffled = tf.data.Dataset.from_tensor_slices(paths).shuffle(len(paths), seed=1)
    by_number = shuffled.map(lambda p: (p, tf.strings.to_number(tf.strings.split(p, os.sep)[-2], tf.int64)))
    assert ex.q4.check(by_number).passed
    folders = tf.data.Dataset.from_tensor_slices([os.path.join(root, c, "*.jpg") for c in names])
    per_class = folders.interleave(lambda p: tf.data.Dataset.list_files(p), cycle_length=3)
    assert ex.q4.check(per_class.map(_label(names))).passed
    # A seeded list_files inside interleave is built anew every epoch, so every epoch repeats one order.
    seeded = folders.interleave(lambda p: tf.data.Dataset.list_files(p, seed=2), cycle_length=3)
    assert "same order" in ex.q4.check(seeded.map(_label(names))).message


def test_q4_typical_mistakes(files):
    root, names = files["image_root"], files["class_names"]
    pattern = os.path.join(root, "*", "*.jpg")
    cases = [
        (tf.data.Dataset.list_files(pattern, shuffle=False).map(_label(names)), "sorted order"),
        (tf.data.Dataset.list_files(pattern, shuffle=False).shuffle(18, seed=0, reshuffle_each_iteration=False)
         .map(_label(names)), "same order"),
        (tf.data.Dataset.list_files(pattern).map(lambda p: (p, tf.strings.split(p, os.sep)[-2])), "text"),
        (tf.data.Dataset.list_files(pattern).map(_label(names)).batch(4), "batches"),
        (tf.data.Dataset.list_files(os.path.join(root, "0", "*.jpg")).map(_label(names)), "never came out"),
        (tf.data.Dataset.list_files(pattern).map(_label(names)).repeat(2), "once per epoch"),
        (tf.data.Dataset.list_files(pattern).map(lambda p: (p, _label(names)(p)[1] + 1)), "has label"),
        (tf.data.Dataset.list_files(pattern), "pair (path, label)"),
    ]
    for answer, message in cases:
        result = ex.q4.check(answer)
        assert not result.passed and message in result.message, (message, result.message)


# ------------------------------------------------------------------ q5
def test_q5_other_right_answers():
    def per_replica_by_hand(context):
        ds = R(64).shard(context.num_input_pipelines, context.input_pipeline_id)
        return ds.batch(16 // context.num_replicas_in_sync, drop_remainder=True)

    def shard_the_batches(context):
        ds = R(64).batch(context.get_per_replica_batch_size(16), drop_remainder=True)
        return ds.shard(context.num_input_pipelines, context.input_pipeline_id)

    for answer in (per_replica_by_hand, shard_the_batches,
                   lambda c: R(64).shard(c.num_input_pipelines, c.input_pipeline_id).batch(
                       c.get_per_replica_batch_size(16), drop_remainder=True).prefetch(2)):
        assert ex.q5.check(answer).passed


def _fn(shard=True, batch=None, drop=True, shard_by_replicas=False):
    def dataset_fn(context):
        ds = R(64)
        if shard:
            n = context.num_replicas_in_sync if shard_by_replicas else context.num_input_pipelines
            ds = ds.shard(n, context.input_pipeline_id)
        return ds.batch(batch or context.get_per_replica_batch_size(16), drop_remainder=drop)
    return dataset_fn


@pytest.mark.parametrize("answer, message", [
    (_fn(batch=16), "the global batch"),
    (_fn(drop=False), "drop_remainder=True"),
    (_fn(shard=False), "read the same ids"),
    (_fn(shard_by_replicas=True), "not by the number of replicas"),
    (_fn(batch=8), "16 / 4 = 4"),
    (lambda context: None, "forget the `return`"),
    (_fn()(tf.distribute.InputContext()), "the function itself"),
    (lambda context: R(64).map(lambda x: tf.strings.as_string(x)).batch(4), "batches of ids"),
    ("dataset_fn", "expected a function"),
    (lambda: R(64).batch(4, drop_remainder=True), "dataset_fn must take one argument, `input_context`"),
    # a method passed without being called: a function where its result (the batch size) was expected
    (lambda context: R(64).shard(context.num_input_pipelines, context.input_pipeline_id).batch(
        context.get_per_replica_batch_size, drop_remainder=True), "a function was used where its result was expected"),
])


def test_q5_typical_mistakes(answer, message):
    result = ex.q5.check(answer)
    assert not result.passed and message in result.message, result.message


# ------------------------------------------------------------------ bad input
def _bad_inputs():
    return [
        [1, 2, 3], None, "tf.data.Dataset.range(3)", R(10).repeat(), R(10 ** 9).filter(lambda x: x < 0),
        tf.data.Dataset.from_tensor_slices(["a", "b"]),
        R(5).map(lambda x: tf.strings.to_number(tf.strings.as_string(x) + "x", tf.int64)),
    ]


@pytest.mark.parametrize("name", ["q3", "q4"])
def test_bad_input_gets_a_sentence(name, short_deadline):
    question = getattr(ex, name)
    for answer in _bad_inputs():
        result = question.check(answer)
        assert not result.passed and result.message.startswith(question.title), (answer, result.message)
        assert "Traceback" not in result.message and len(result.message) < 600


def test_bad_input_to_q5_gets_a_sentence():
    def raises(context):
        raise ValueError("boom")

    for answer in (raises, 5, None, [1, 2]):
        result = ex.q5.check(answer)
        assert not result.passed and "Traceback" not in result.message


def test_checks_after_the_cleanup_ask_to_run_the_setup_again(tmp_path):
    """The lesson's last cell deletes its files; a dataset built before that gets a sentence, not a traceback."""
    csv_path = tutor.data.weather_csv(str(tmp_path / "weather.csv"))
    image_root = tutor.data.class_folders(str(tmp_path / "digits"), n=12, classes=(0, 1))
    names = sorted(os.listdir(image_root))
    csv = tf.data.experimental.make_csv_dataset(csv_path, batch_size=4, label_name="rain", num_epochs=1,
                                                shuffle=False,
                                                column_defaults=[tf.int32, "", float("nan"), float("nan"), tf.int32])
    pairs = tf.data.Dataset.list_files(os.path.join(image_root, "*", "*.jpg")).map(_label(names))
    import shutil

    shutil.rmtree(tmp_path)
    for question, answer in ((ex.q3, csv), (ex.q4, pairs)):
        result = question.check(answer)
        assert not result.passed and "run the lesson's setup cells again" in result.message.lower(), result.message
        assert "Traceback" not in result.message and "NotFoundError" not in result.message


def test_the_solutions_run_with_the_setup_cells_names():
    names = ex.lesson_files()
    assert {"csv_path", "image_root", "class_names", "os"} <= set(names)
    assert ex.q3.check(ex.q3.solution_answer()).passed and ex.q4.check(ex.q4.solution_answer()).passed


def test_the_stand_ins():
    for deterministic, first in ((True, 0), (False, 1)):
        options = tf.data.Options()
        options.deterministic = deterministic
        ds = R(6).map(ex.first_waits_for_second(), num_parallel_calls=2).with_options(options)
        assert int(next(iter(ds))) == first
