"""tutor.doctor rules: each fires on a pipeline with its mistake and stays quiet where it must."""
import random

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import doctor
from tutor.doctor import rules as doctor_rules

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


def decode_and_crop(path):
    return tf.image.random_crop(decode(path), [24, 24, 3])


def jpeg_paths(n=50):
    return tf.data.Dataset.from_tensor_slices([f"img_{i}.jpg" for i in range(n)])


def test_every_rule_is_tested_here():
    tested = {name[len("test_"):].replace("_", "-") for name in globals() if name.startswith("test_")}
    assert set(doctor.RULES) <= tested, sorted(set(doctor.RULES) - tested)


def test_shuffle_after_batch():
    report = doctor.check(range_ds().batch(10).shuffle(10).prefetch(1))
    assert report.rules == ["shuffle-after-batch"]
    assert report[0].where == "stage 3: shuffle(buffer_size=10)"
    assert "batch(batch_size=10)" in report[0].message and "shuffle" in report[0].fix
    # a second shuffle of batches after a shuffle of examples is deliberate
    assert "shuffle-after-batch" not in rules(range_ds().shuffle(100).batch(10).shuffle(10).prefetch(1))
    # unbatch in between: the shuffle sees examples again
    assert "shuffle-after-batch" not in rules(range_ds().batch(10).unbatch().shuffle(100).prefetch(1))
    # ... but a cache between the example shuffle and the batch shuffle freezes the batches (miss fixed)
    frozen = doctor.check(range_ds().shuffle(100).batch(10).cache().shuffle(10).prefetch(1))
    assert frozen.rules == ["shuffle-after-batch"] and "cache()" in frozen[0].message
    assert "same batches" in frozen[0].message
    # a cache before the example shuffle freezes nothing
    assert rules(range_ds().cache().shuffle(100).batch(10).shuffle(10).prefetch(1)) == []


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_shuffle_after_batch_quiet_when_a_map_takes_the_batches_apart(drop_remainder):
    sequences = range_ds(1000).batch(101, drop_remainder=drop_remainder)
    split = sequences.map(lambda s: (s[:-1], s[1:]))
    assert rules(split.shuffle(1000).batch(8, drop_remainder=True).prefetch(AUTOTUNE)) == []
    first = sequences.map(lambda s: s[0])
    assert rules(first.shuffle(1000).batch(8).prefetch(AUTOTUNE)) == []
    # a map that keeps the batch (element-wise work) does not take it apart
    kept = sequences.map(lambda s: s * 2)
    assert "shuffle-after-batch" in rules(kept.shuffle(1000).prefetch(AUTOTUNE))


def test_small_shuffle_buffer():
    report = doctor.check(range_ds(1000).shuffle(10).batch(10).prefetch(1))
    assert report.rules == ["small-shuffle-buffer"]
    assert report[0].stage.number == 2 and "1000" in report[0].message and "ds.shuffle(1000)" in report[0].fix
    assert rules(range_ds(1000).shuffle(100).prefetch(1)) == []
    assert rules(range_ds(1000).shuffle(1000).prefetch(1)) == []
    # a known size behind repeat() counts (miss fixed): 13 of 5000 per pass
    behind = doctor.check(range_ds(5000).repeat().shuffle(13).prefetch(1))
    assert "small-shuffle-buffer" in behind.rules and "5000" in behind[0].message
    assert "small-shuffle-buffer" not in rules(range_ds(50).repeat().shuffle(13).prefetch(1))
    # unknown size (filter): a seed-like or tiny buffer is flagged, a real one is not (miss fixed)
    unknown = range_ds(1000).filter(lambda x: x % 2 == 0)
    seed = doctor.check(unknown.shuffle(42).prefetch(1))
    assert seed.rules == ["small-shuffle-buffer"] and "seed=42" in seed[0].message
    assert rules(unknown.shuffle(doctor_rules.TINY_BUFFER).prefetch(1)) == []
    # a shuffle of batches on unknown size is shuffle-after-batch's business, not this rule's
    assert "small-shuffle-buffer" not in rules(unknown.batch(10).shuffle(10).prefetch(1))


def test_repeat_before_shuffle():
    report = doctor.check(range_ds().repeat(3).shuffle(100).batch(10).prefetch(1))
    assert report.rules == ["repeat-before-shuffle"]
    assert report[0].where == "stage 3: shuffle(buffer_size=100)" and "repeat(count=3)" in report[0].message
    assert "repeat-before-shuffle" in rules(range_ds().repeat().shuffle(100).prefetch(1))
    assert rules(range_ds().shuffle(100).repeat(3).batch(10).prefetch(1)) == []
    assert rules(range_ds().repeat(1).shuffle(100).prefetch(1)) == []
    # an endless constant zipped with finite data repeats no epoch
    pairs = tf.data.Dataset.zip((range_ds(), tf.data.Dataset.from_tensors(1).repeat()))
    assert rules(pairs.shuffle(100).prefetch(1)) == []


def test_shuffle_before_cache():
    report = doctor.check(range_ds().shuffle(100).cache().batch(10).prefetch(1))
    assert report.rules == ["shuffle-before-cache"]
    assert report[0].where == "stage 3: cache()" and "shuffle(buffer_size=100)" in report[0].message
    batches = doctor.check(range_ds().shuffle(100).batch(10).cache().prefetch(1))
    assert batches.rules == ["shuffle-before-cache"] and "batches" in batches[0].message
    assert rules(range_ds().cache().shuffle(100).batch(10).prefetch(1)) == []
    # a fixed order (reshuffle_each_iteration=False) loses nothing in the cache
    assert rules(range_ds().shuffle(100, reshuffle_each_iteration=False).cache().prefetch(1)) == []
    # batches without any shuffle are the same every epoch anyway
    assert rules(range_ds().batch(10).cache().prefetch(1)) == []


def test_random_map_before_cache():
    report = doctor.check(images().map(random_crop, num_parallel_calls=AUTOTUNE).cache().batch(8).prefetch(1))
    assert report.rules == ["random-map-before-cache"]
    assert report[0].where == "stage 3: cache()" and "random_crop" in report[0].message
    assert rules(images().cache().map(random_crop, num_parallel_calls=AUTOTUNE).batch(8).prefetch(1)) == []
    gen = tf.random.Generator.from_seed(1)
    flip = images().map(lambda x, y: (tf.image.stateless_random_flip_left_right(x, seed=gen.make_seeds(2)[:, 0]), y))
    assert "random-map-before-cache" in rules(flip.cache().batch(8).prefetch(1))
    fixed = images().map(lambda x, y: (tf.image.stateless_random_brightness(x, 0.2, seed=(1, 2)), y))
    assert "random-map-before-cache" not in rules(fixed.cache().batch(8).prefetch(1))
    per_element = range_ds().map(lambda i: tf.random.stateless_uniform([4], seed=tf.stack([i, 0])))
    assert rules(per_element.cache().batch(8).prefetch(1)) == []
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


def test_cache_to_file(tmp_path):
    report = doctor.check(range_ds().cache(str(tmp_path / "a")).map(lambda x: x + 1).cache(str(tmp_path / "b")).prefetch(1))
    assert report.rules == ["cache-to-file"] and len(report) == 1  # said once
    assert report[0].stage.number == 2 and "2 file caches" in report[0].message
    assert rules(range_ds().cache().prefetch(1)) == []


def test_split_after_reshuffle():
    shuffled = range_ds().shuffle(100, seed=0)
    for split in (shuffled.take(80), shuffled.skip(80)):
        report = doctor.check(split.batch(10).prefetch(1))
        assert report.rules == ["split-after-reshuffle"]
        assert report[0].stage.number == 3 and "leaks" in report[0].message
    fixed = range_ds().shuffle(100, seed=0, reshuffle_each_iteration=False)
    assert rules(fixed.take(80).batch(10).prefetch(1)) == []
    assert rules(range_ds().take(80).shuffle(80).batch(10).prefetch(1)) == []


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
    assert "num_parallel_reads" in doctor.check(tf.data.TFRecordDataset(["a", "b"]).prefetch(1))[0].fix
    assert rules(files.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE).prefetch(1)) == []
    assert rules(tf.data.TFRecordDataset(["a", "b"], num_parallel_reads=AUTOTUNE).prefetch(1)) == []
    assert rules(tf.data.TFRecordDataset(["a"]).prefetch(1)) == []  # one file


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
    assert report.rules == ["large-in-memory-source"]
    assert report[0].stage.number == 1 and "2 GB" in report[0].message
    monkeypatch.setattr(doctor_rules.code, "LARGE_SOURCE_BYTES", 300_000)
    assert rules(tf.data.Dataset.from_tensor_slices(data).batch(10).prefetch(1)) == []


def test_deprecated_experimental():
    files = tf.data.Dataset.from_tensor_slices(["a.tfrecord", "b.tfrecord"])
    legacy = files.apply(tf.data.experimental.parallel_interleave(tf.data.TFRecordDataset, cycle_length=2))
    report = doctor.check(legacy.prefetch(1))
    assert report.rules == ["deprecated-experimental"] and "parallel_interleave" in report[0].message
    assert report[0].doc.endswith("parallel_interleave") and "interleave" in report[0].quote
    fused = range_ds().apply(tf.data.experimental.map_and_batch(lambda x: x + 1, 10))
    assert rules(fused.prefetch(1)) == ["deprecated-experimental"]
    # core replacements and tf.data.experimental.AUTOTUNE (the same number) are fine
    assert rules(range_ds().batch(10).map(lambda x: x + 1, num_parallel_calls=tf.data.experimental.AUTOTUNE)
                 .prefetch(tf.data.experimental.AUTOTUNE)) == []


def test_no_prefetch_at_end():
    report = doctor.check(range_ds().shuffle(100).batch(10))
    assert report.rules == ["no-prefetch-at-end"]
    assert report[0].where == "stage 3: batch(batch_size=10)" and "prefetch(tf.data.AUTOTUNE)" in report[0].fix
    endless = range_ds().shuffle(100).batch(10).repeat().prefetch(AUTOTUNE)
    assert rules(endless.take(30).with_options(tf.data.Options())) == []


def test_library_stages_are_not_blamed():
    """rejection_resample builds maps and batches of its own: the user's map before it is not 'before batch'."""
    pairs = range_ds().map(lambda x: (x, x % 2))
    resampled = pairs.rejection_resample(lambda x, y: y, target_dist=[0.5, 0.5], seed=0)
    stages = doctor.read_pipeline(resampled)
    assert any(s.library == "tensorflow" for s in stages) and any(s.library is None for s in stages)
    assert rules(resampled.prefetch(1)) == []


def test_findings_cite_the_docs():
    report = doctor.check(range_ds().repeat().cache().batch(10).shuffle(10))
    assert {f.rule for f in report} == set(report.rules)
    for f in report:
        assert f.doc == doctor.DOCS[f.rule][0] and f.quote == doctor.DOCS[f.rule][1] and f.quote
        assert f.quote in " ".join(str(report).split())
    assert set(doctor.DOCS) >= set(doctor.RULES) | set(doctor.MEASURED_RULES)


def test_several_findings_are_sorted_by_stage_and_can_be_ignored():
    ds = range_ds().repeat().cache().batch(10).shuffle(10)
    report = doctor.check(ds)
    assert report.rules == ["cache-after-infinite-repeat", "shuffle-after-batch", "repeat-before-shuffle",
                            "no-prefetch-at-end"]
    assert [f.stage.number for f in report] == sorted(f.stage.number for f in report)
    assert doctor.check(ds, ignore=["no-prefetch-at-end", "repeat-before-shuffle"]).rules == [
        "cache-after-infinite-repeat", "shuffle-after-batch"]


def test_rules_are_unique_and_every_finding_is_kept():
    two = range_ds().shuffle(100).batch(10).cache().prefetch(1).concatenate(
        range_ds().shuffle(100).batch(10).cache().prefetch(1))
    report = doctor.check(two.prefetch(1))
    assert report.rules == ["shuffle-before-cache"]
    assert len(report) == 2 and len({f.stage.number for f in report}) == 2
