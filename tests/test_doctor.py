"""tutor.doctor: every rule fires on a pipeline with the mistake and stays quiet on good ones."""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import doctor

AUTOTUNE = tf.data.AUTOTUNE
IMAGES = np.zeros((40, 28, 28, 1), np.float32)
LABELS = np.zeros((40,), np.int64)


def rules(ds, **kw):
    return doctor.check(ds, **kw).rules


def range_ds(n=100):
    return tf.data.Dataset.range(n)


def images():
    return tf.data.Dataset.from_tensor_slices((IMAGES, LABELS))


def random_crop(x, y):
    return tf.image.random_crop(x, [20, 20, 1]), y


def rotate(images, labels):
    """Random rotation of a batch (or of one image) with the TF-native projective transform."""
    batched = len(images.shape) == 4
    x = images if batched else images[None]
    n = tf.shape(x)[0]
    angle = tf.random.uniform([n], -0.3, 0.3)
    c, s = tf.cos(angle), tf.sin(angle)
    zeros = tf.zeros_like(c)
    transforms = tf.stack([c, -s, zeros, s, c, zeros, zeros, zeros], axis=1)
    out = tf.raw_ops.ImageProjectiveTransformV3(
        images=x, transforms=transforms, output_shape=[28, 28], fill_value=0.0, interpolation="BILINEAR"
    )
    return (out if batched else out[0]), labels


def normalize(x, y):
    return tf.cast(x, tf.float32) / 255.0, y


def decode(path):
    return tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(path), channels=3), [32, 32])


def jpeg_paths(n=50):
    return tf.data.Dataset.from_tensor_slices([f"img_{i}.jpg" for i in range(n)])


# ------------------------------------------------------------------ good pipelines
GOOD = {
    "shuffle-batch-repeat-prefetch": lambda: range_ds().shuffle(100).batch(10).repeat().prefetch(AUTOTUNE),
    "decode-cache-shuffle-crop-batch-prefetch": lambda: jpeg_paths()
    .map(decode, num_parallel_calls=AUTOTUNE)
    .cache()
    .shuffle(50)
    .map(lambda x: tf.image.random_crop(x, [24, 24, 3]), num_parallel_calls=AUTOTUNE)
    .batch(8)
    .prefetch(AUTOTUNE),
    "rotate-after-batch": lambda: images().shuffle(40).batch(8).map(rotate, num_parallel_calls=AUTOTUNE).prefetch(AUTOTUNE),
    "normalize-after-batch": lambda: images().shuffle(40, seed=0).batch(8).map(normalize).repeat(2).prefetch(AUTOTUNE),
    "normalize-cache-shuffle": lambda: images().map(normalize).cache().shuffle(40).batch(8).prefetch(AUTOTUNE),
    "split-then-shuffle": lambda: images().skip(10).shuffle(30).batch(8).prefetch(AUTOTUNE),
    "steps-from-endless-stream": lambda: range_ds().shuffle(100).batch(10).repeat().take(25).prefetch(AUTOTUNE),
    "tfrecord-interleave": lambda: tf.data.Dataset.from_tensor_slices(["a.tfrecord", "b.tfrecord"])
    .interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE)
    .shuffle(10)
    .batch(4)
    .map(lambda s: tf.io.parse_example(s, {"x": tf.io.FixedLenFeature([], tf.int64)}))
    .prefetch(AUTOTUNE),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_no_false_alarms_on_good_pipelines(name):
    report = doctor.check(GOOD[name]())
    assert report.rules == [], str(report)
    assert doctor.NO_PROBLEMS in str(report)
    assert doctor.NO_PROBLEMS in report._repr_html_()


# ------------------------------------------------------------------ one rule at a time
def test_shuffle_after_batch():
    report = doctor.check(range_ds().batch(10).shuffle(10).prefetch(1))
    assert report.rules == ["shuffle-after-batch"]
    finding = report[0]
    assert finding.where == "stage 3: shuffle(buffer_size=10)"
    assert "batch(batch_size=10)" in finding.message and "shuffle" in finding.fix
    # a second shuffle of batches after a shuffle of examples is deliberate
    assert "shuffle-after-batch" not in rules(range_ds().shuffle(100).batch(10).shuffle(10).prefetch(1))
    # unbatch in between: the shuffle sees examples again
    assert "shuffle-after-batch" not in rules(range_ds().batch(10).unbatch().shuffle(100).prefetch(1))


def test_small_shuffle_buffer():
    report = doctor.check(range_ds(1000).shuffle(10).batch(10).prefetch(1))
    assert report.rules == ["small-shuffle-buffer"]
    assert report[0].stage.number == 2 and "1000" in report[0].message and "ds.shuffle(1000)" in report[0].fix
    # a buffer of a tenth or more, or the full size, is not flagged
    assert rules(range_ds(1000).shuffle(100).prefetch(1)) == []
    assert rules(range_ds(1000).shuffle(1000).prefetch(1)) == []
    # unknown size (filter): nothing to compare with, so no finding
    assert rules(range_ds(1000).filter(lambda x: x % 2 == 0).shuffle(10).prefetch(1)) == []


def test_repeat_before_shuffle():
    report = doctor.check(range_ds().repeat(3).shuffle(100).batch(10).prefetch(1))
    assert report.rules == ["repeat-before-shuffle"]
    assert report[0].where == "stage 3: shuffle(buffer_size=100)" and "repeat(count=3)" in report[0].message
    assert "repeat-before-shuffle" in rules(range_ds().repeat().shuffle(100).prefetch(1))
    assert rules(range_ds().shuffle(100).repeat(3).batch(10).prefetch(1)) == []
    assert rules(range_ds().repeat(1).shuffle(100).prefetch(1)) == []


def test_random_map_before_cache():
    report = doctor.check(images().map(random_crop).cache().batch(8).prefetch(1))
    assert report.rules == ["random-map-before-cache"]
    assert report[0].where == "stage 3: cache()" and "random_crop" in report[0].message
    # augmentation after the cache is the fix
    assert rules(images().cache().map(random_crop).batch(8).prefetch(1)) == []
    # a stateful generator feeding stateless ops varies every epoch: still random
    gen = tf.random.Generator.from_seed(1)
    flip = images().map(lambda x, y: (tf.image.stateless_random_flip_left_right(x, seed=gen.make_seeds(2)[:, 0]), y))
    assert "random-map-before-cache" in rules(flip.cache().batch(8).prefetch(1))
    # a stateless op with a constant seed gives the same result every epoch: caching it is fine
    fixed = images().map(lambda x, y: (tf.image.stateless_random_brightness(x, 0.2, seed=(1, 2)), y))
    assert "random-map-before-cache" not in rules(fixed.cache().batch(8).prefetch(1))
    # seeded from the element itself: the same element gets the same result every epoch
    per_element = range_ds().map(lambda i: tf.random.stateless_uniform([4], seed=tf.stack([i, 0])))
    assert rules(per_element.cache().batch(8).prefetch(1)) == []
    # ... unless the seeds come from a random dataset (new seeds every epoch)
    seeds = tf.data.Dataset.random(seed=1).batch(2)
    zipped = tf.data.Dataset.zip((images(), seeds)).map(
        lambda xy, seed: tf.image.stateless_random_flip_left_right(xy[0], seed=seed))
    assert "random-map-before-cache" in rules(zipped.cache().batch(8).prefetch(1))


def test_cache_after_infinite_repeat():
    report = doctor.check(range_ds().repeat().cache().batch(10).prefetch(1))
    assert report.rules == ["cache-after-infinite-repeat"]
    assert report[0].where == "stage 3: cache()" and "repeat()" in report[0].message
    assert rules(range_ds().cache().repeat().batch(10).prefetch(1)) == []
    assert rules(range_ds().repeat().take(100).cache().batch(10).prefetch(1)) == []


def test_vectorizable_map_before_batch():
    report = doctor.check(images().map(normalize).batch(8).prefetch(1))
    assert report.rules == ["vectorizable-map-before-batch"]
    assert report[0].where == "stage 2: map(normalize)" and "RealDiv" in report[0].message
    per_image_rotation = doctor.check(images().map(rotate, num_parallel_calls=AUTOTUNE).batch(8).prefetch(1))
    assert per_image_rotation.rules == ["vectorizable-map-before-batch"]
    # not flagged: decoding (not batch-friendly), a cache in between, or no batch at all
    assert rules(jpeg_paths().map(decode).batch(8).prefetch(1)) == []
    assert rules(images().map(normalize).cache().batch(8).prefetch(1)) == []
    assert rules(images().map(normalize).prefetch(1)) == []
    # only reshuffling tuples: nothing to vectorize
    assert rules(images().map(lambda x, y: (y, x)).batch(8).prefetch(1)) == []


def test_py_function_in_parallel_map():
    def slow(x):
        return tf.py_function(lambda v: v * 2, [x], tf.int64)

    report = doctor.check(range_ds().map(slow, num_parallel_calls=AUTOTUNE).batch(10).prefetch(1))
    assert report.rules == ["py-function-in-parallel-map"]
    assert report[0].where == "stage 2: map(slow, num_parallel_calls=AUTOTUNE)" and "GIL" in report[0].message
    numpy_fn = range_ds().map(lambda x: tf.numpy_function(lambda v: v, [x], tf.int64), num_parallel_calls=2)
    assert "py-function-in-parallel-map" in rules(numpy_fn.prefetch(1))
    assert rules(range_ds().map(slow).batch(10).prefetch(1)) == []


def test_no_prefetch_at_end():
    report = doctor.check(range_ds().shuffle(100).batch(10))
    assert report.rules == ["no-prefetch-at-end"]
    assert report[0].where == "stage 3: batch(batch_size=10)" and "prefetch(tf.data.AUTOTUNE)" in report[0].fix
    # take() and with_options() after the prefetch do not hide it
    endless = range_ds().shuffle(100).batch(10).repeat().prefetch(AUTOTUNE)
    assert rules(endless.take(30).with_options(tf.data.Options())) == []


def test_split_after_reshuffle():
    shuffled = range_ds().shuffle(100, seed=0)
    for split in (shuffled.take(80), shuffled.skip(80)):
        report = doctor.check(split.batch(10).prefetch(1))
        assert report.rules == ["split-after-reshuffle"]
        assert report[0].stage.number == 3 and "leaks" in report[0].message
    fixed = range_ds().shuffle(100, seed=0, reshuffle_each_iteration=False)
    assert rules(fixed.take(80).batch(10).prefetch(1)) == []
    assert rules(range_ds().take(80).shuffle(80).batch(10).prefetch(1)) == []


def test_several_findings_are_sorted_by_stage_and_can_be_ignored():
    ds = range_ds().repeat().cache().batch(10).shuffle(10)
    report = doctor.check(ds)
    assert report.rules == ["cache-after-infinite-repeat", "shuffle-after-batch", "repeat-before-shuffle", "no-prefetch-at-end"]
    assert [f.stage.number for f in report] == sorted(f.stage.number for f in report)
    assert doctor.check(ds, ignore=["no-prefetch-at-end", "repeat-before-shuffle"]).rules == [
        "cache-after-infinite-repeat", "shuffle-after-batch"]


# ------------------------------------------------------------------ reading and reporting
def test_reads_stages_and_constants_without_iterating():
    calls = []

    def spy(x):
        calls.append(1)
        return x

    ds = range_ds(10).map(lambda x: tf.py_function(spy, [x], tf.int64)).repeat().batch(4, drop_remainder=True)
    stages = doctor.read_pipeline(ds.prefetch(AUTOTUNE))
    assert [s.label for s in stages] == [
        "range(10)", "map(lambda)", "repeat()", "batch(batch_size=4, drop_remainder=True)",
        "prefetch(buffer_size=AUTOTUNE)"]
    assert [s.cardinality for s in stages] == [10, 10, -1, -1, -1]
    assert stages[3].params == {"batch_size": 4, "drop_remainder": True}
    assert calls == []  # the endless dataset was never iterated


def test_zip_pipelines_are_read_as_a_tree():
    ds = tf.data.Dataset.zip((range_ds(5), range_ds(7).shuffle(7))).batch(2).prefetch(1)
    stages = doctor.read_pipeline(ds)
    zip_stage = next(s for s in stages if s.label == "zip(...)")
    assert sorted(s.label for s in zip_stage.inputs) == ["range(5)", "shuffle(buffer_size=7)"]
    assert doctor.check(ds).rules == []


def test_report_renders_as_text_and_html():
    report = doctor.check(range_ds().batch(10).shuffle(10))
    text, page = str(report), report._repr_html_()
    assert "stage 3: shuffle(buffer_size=10)" in text and "Fix:" in text and "Problem:" in text
    assert "stage 3: shuffle(buffer_size=10)" in page and "<b>Fix:</b>" in page
    assert isinstance(report, list) and len(report) == 2
    assert repr(report) == text


def test_bad_input():
    with pytest.raises(TypeError, match="from_tensor_slices"):
        doctor.check([1, 2, 3])
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        doctor.check("range(10)")
    with pytest.raises(ValueError, match="unknown rule"):
        doctor.check(range_ds(), ignore=["no-such-rule"])


def test_exported_from_tutor():
    assert tutor.doctor.check is doctor.check
    assert "doctor" in tutor.__all__
