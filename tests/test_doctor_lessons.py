"""The lessons' own good pipelines raise no finding.

Each pipeline is rebuilt as the lesson (notebooks/NN_*.ipynb) or its exercise
solution (tutor/checks/lessonNN.py) writes it, with the cell or question named
in a comment. Two groups:

* TRAINING pipelines, the ones a lesson presents as the good version to train
  with: no problem (notes are fine: a pipeline with notes only is healthy).
* SNIPPETS that show one idea (a split, an order, a vectorized map) and feed no
  training step: no wrong-results finding (speed is not their topic).
"""
import os

import numpy as np
import pytest

import tutor
import tensorflow as tf

from tutor import augment, doctor, tfrecord
from tutor import timeline as T
from tutor.checks import lesson05, lesson07, lesson08, lesson09

AUTOTUNE = tf.data.AUTOTUNE


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("lessons")
    images, labels = tutor.data.digits(300, seed=0)
    paths = tutor.data.jpeg_folder(str(root / "jpegs"), n=12, size=(32, 32), seed=0)
    shards = tfrecord.write_digits(str(root / "png"), images[:64], labels[:64], num_shards=4, encoding="png")
    return {"images": images, "labels": labels, "paths": paths, "shards": shards}


def _lesson08_fast(d):
    # notebooks/08_profile_and_fix.ipynb, "4 decode, cache, shuffle, crop" (the fixed pipeline)
    def read_decode(path):
        return tf.io.decode_jpeg(tf.io.read_file(path), channels=3)

    def random_crop(image):
        return tf.cast(tf.image.random_crop(image, (24, 24, 3)), tf.float32) / 255.0

    fast = (T.Pipeline(tf.data.Dataset.from_tensor_slices(d["paths"]))
            .map(read_decode, name="read+decode", num_parallel_calls=AUTOTUNE)
            .cache().shuffle(12, seed=0).repeat()
            .map(random_crop, name="random crop", num_parallel_calls=AUTOTUNE)
            .batch(4).prefetch(AUTOTUNE))
    return fast.build()


def _lesson09_index_trick(d):
    # notebooks/09_generators.ipynb, the index trick (indices from a generator, py_function loads in parallel)
    def indices():
        yield from range(12)

    def load(i):
        image, label = tf.py_function(lesson09.load_sample, [i], Tout=[tf.float32, tf.int64])
        return image, label

    ids = tf.data.Dataset.from_generator(indices, output_signature=tf.TensorSpec(shape=(), dtype=tf.int64))
    return ids.map(load, num_parallel_calls=AUTOTUNE).prefetch(1)


def _lesson09_shards(d):
    # notebooks/09_generators.ipynb, interleave over 4 generators
    signature = (tf.TensorSpec(shape=(8, 8), dtype=tf.float32), tf.TensorSpec(shape=(), dtype=tf.int64))

    def shard_samples(shard):
        for i in range(int(shard), 24, 4):
            yield lesson09.load_sample(i)

    def open_shard(shard):
        return tf.data.Dataset.from_generator(shard_samples, args=(shard,), output_signature=signature)

    return tf.data.Dataset.range(4).interleave(open_shard, cycle_length=4, num_parallel_calls=4).prefetch(1)


def _lesson10_parse_after_batch(d):
    # notebooks/10_tfrecord.ipynb, the vectorized reading pipeline `ds`
    spec = tfrecord.digit_spec()
    files = tf.data.Dataset.from_tensor_slices(d["shards"])
    records = files.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=AUTOTUNE)
    return (records.batch(64).map(lambda s: tf.io.parse_example(s, spec))
            .map(lambda f: (tfrecord.decode_digits(f, "png"), f["label"])).prefetch(AUTOTUNE))


def _lesson12_train(d):
    # notebooks/12_training_end_to_end.ipynb, train_ds
    x = d["images"][..., None]
    return (tf.data.Dataset.from_tensor_slices((x, d["labels"])).shuffle(len(d["labels"]), seed=0)
            .batch(64).prefetch(AUTOTUNE))


def _lesson12_tuned(d):
    # notebooks/12_training_end_to_end.ipynb, tuned_ds (and the lesson 12 exercise 1 solution)
    x = d["images"][..., None]
    return (tf.data.Dataset.from_tensor_slices((x, d["labels"])).cache().shuffle(len(d["labels"]), seed=0)
            .batch(64).map(augment.rotate_batch, num_parallel_calls=AUTOTUNE).prefetch(AUTOTUNE))


def _lesson12_jpeg(d):
    # notebooks/12_training_end_to_end.ipynb, jpeg_ds
    labels = tutor.data.labels_from_paths(d["paths"])

    def read_and_decode(path, label):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return tf.ensure_shape(image, (32, 32, 3)), label

    def random_crop(image, label):
        return tf.image.random_crop(image, (24, 24, 3)), label

    return (tf.data.Dataset.from_tensor_slices((d["paths"], labels))
            .map(read_and_decode, num_parallel_calls=AUTOTUNE).cache().shuffle(len(d["paths"]), seed=0)
            .map(random_crop, num_parallel_calls=AUTOTUNE).batch(32).prefetch(AUTOTUNE))


def _lesson13_careful(d):
    # notebooks/13_scaling_out.ipynb, `careful`
    def heavy(i):
        x = tf.random.stateless_uniform([8, 8], seed=tf.stack([i, 0]))
        body = lambda k, x: (k + 1, tf.sin(x) * 1.01 + tf.cos(x) * 0.5)  # noqa: E731
        return tf.reduce_mean(tf.while_loop(lambda k, x: k < 4, body, (0, x))[1])

    def augment_one(x):
        return x + tf.random.uniform(tf.shape(x), -0.1, 0.1)

    return (tf.data.Dataset.range(1000).map(heavy).cache().shuffle(1000).batch(32).map(augment_one).repeat()
            .prefetch(tf.data.AUTOTUNE))


def _lesson13_q3(d):
    # tutor/checks/lesson13.py, q3 solution
    return tf.data.Dataset.range(1000).shuffle(1000).batch(32).repeat().prefetch(tf.data.AUTOTUNE)


TRAINING = {f.__name__[1:]: f for f in (_lesson08_fast, _lesson09_index_trick, _lesson09_shards,
                                        _lesson10_parse_after_batch, _lesson12_train, _lesson12_tuned,
                                        _lesson12_jpeg, _lesson13_careful, _lesson13_q3)}

SNIPPETS = {
    # notebooks/01_datasets_from_data.ipynb: pairs and zip
    "lesson01_pairs": lambda d: tf.data.Dataset.from_tensor_slices((np.zeros((3, 2)), np.array([0, 1, 0]))),
    "lesson01_zip": lambda d: tf.data.Dataset.zip((tf.data.Dataset.range(-3, 0), tf.data.Dataset.from_tensor_slices(
        (tf.range(3), tf.range(10, 13))))),
    # tutor/checks/lesson02.py, q1 and q3 solutions
    "lesson02_q1": lambda d: tf.data.Dataset.range(10).batch(4).repeat(3),
    "lesson02_q3": lambda d: tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n)).padded_batch(2),
    # notebooks/03_shuffle.ipynb, the fixed split, and tutor/checks/lesson03.py q2 and q3 solutions
    "lesson03_fixed_split": lambda d: tf.data.Dataset.range(100).shuffle(100, seed=0,
                                                                         reshuffle_each_iteration=False).take(80),
    "lesson03_q2": lambda d: tf.data.Dataset.range(20).shuffle(20, seed=0).batch(5).repeat(2),
    # notebooks/04_map.ipynb, scaled
    "lesson04_scaled": lambda d: tf.data.Dataset.from_tensor_slices((d["images"], d["labels"])).map(
        lambda image, label: (tf.cast(image, tf.float32) / 255.0, label)),
    # tutor/checks/lesson05.py, q1, q2 and q3 solutions
    "lesson05_q1": lambda d: tf.data.Dataset.from_tensor_slices(d["images"][:256]).batch(32).map(
        lambda x: tf.reverse(x, axis=[2])),
    "lesson05_q2": lambda d: tf.data.Dataset.from_tensor_slices(d["images"][:64]).cache().map(
        augment.random_rotate).batch(16),
    "lesson05_q3": lambda d: tf.data.Dataset.from_tensor_slices((d["images"][:256], d["labels"][:256])).shuffle(
        256, seed=0).batch(32).map(augment.rotate_batch),
    # tutor/checks/lesson07.py and lesson08.py, q1 solutions (the order exercises)
    "lesson07_q1": lambda d: tf.data.Dataset.range(12).map(lesson07.decode).cache().repeat(3).map(
        lesson07.augment).batch(4),
    "lesson08_q1": lambda d: tf.data.Dataset.range(12).map(lesson08.decode).cache().shuffle(12, seed=0).repeat(
        3).map(lesson08.augment).batch(4),
    # tutor/checks/lesson12.py, q2 solution: split first, shuffle only the training part
    "lesson12_q2_train": lambda d: tf.data.Dataset.range(500).skip(100).shuffle(400, seed=0),
    "lesson12_q2_val": lambda d: tf.data.Dataset.range(500).take(100),
    # notebooks/05_augmentation.ipynb, the augmentation kept alive after the cache
    "lesson05_alive": lambda d: tf.data.Dataset.from_tensor_slices(d["images"][:64, ..., None]).cache().map(
        lambda image: augment.random_rotate(image)),
}


@pytest.mark.parametrize("name", sorted(TRAINING))
def test_training_pipelines_raise_no_finding(name, data):
    report = doctor.check(TRAINING[name](data))
    assert report.rules == [] and report.healthy, str(report)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippets_raise_no_correctness_finding(name, data):
    report = doctor.check(SNIPPETS[name](data))
    assert [f.rule for f in report if f.severity == "wrong"] == [], str(report)


def test_the_lessons_broken_pipelines_are_still_caught(data):
    """The mistakes the lessons teach keep their findings (lessons 05, 08 and 13 print these reports)."""
    broken = lesson05.broken_cache_pipeline(data["images"][:64])
    assert "random-map-before-cache" in doctor.check(broken).rules
    hurried = tf.data.Dataset.range(1000).map(lambda i: tf.cast(i, tf.float32)).map(
        lambda x: x + tf.random.uniform([])).cache().repeat().batch(32).shuffle(10)
    report = doctor.check(hurried)
    assert {"random-map-before-cache", "shuffle-after-batch"} == set(report.rules)
    assert all(f.severity == "wrong" for f in report)
    # the endless repeat() before the shuffle and the missing prefetch are notes (lesson 07 teaches both)
    assert {f.rule: f.severity for f in report.notes} == {"repeat-before-shuffle": "note", "no-prefetch-at-end": "note"}
    assert os.path.exists(data["paths"][0])
