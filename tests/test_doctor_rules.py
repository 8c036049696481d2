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
    """The rule ids of the problems (severity wrong or slow)."""
    return doctor.check(ds, **kw).rules


def notes(ds, **kw):
    """The rule ids of the notes."""
    return doctor.check(ds, **kw).note_rules


def severities(ds, **kw):
    """``{rule id: severity}`` of every finding, notes included."""
    report = doctor.check(ds, **kw)
    return {f.rule: f.severity for f in [*report, *report.notes]}


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


def test_every_rule_is_tested_here_or_in_test_doctor_rules_speed():
    import test_doctor_rules_speed

    names = [*globals(), *vars(test_doctor_rules_speed)]
    tested = {name[len("test_"):].replace("_", "-") for name in names if name.startswith("test_")}
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


def spectrogram(waveform):
    """TensorFlow's audio tutorial's get_spectrogram: an STFT of every clip, a channel axis added with ``...``."""
    return tf.abs(tf.signal.stft(waveform, frame_length=16, frame_step=8))[..., tf.newaxis]


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_shuffle_after_batch_sees_a_map_over_whole_batches(drop_remainder):
    """The miss of the audio tutorial: shuffled clips, batched, a spectrogram per batch, cached, shuffled again."""
    clips = tf.data.Dataset.from_tensor_slices((np.zeros((40, 64), np.float32), np.zeros(40, np.int64)))
    batches = clips.shuffle(40).batch(4, drop_remainder=drop_remainder)
    spectra = batches.map(lambda a, y: (spectrogram(a), y), num_parallel_calls=AUTOTUNE)
    report = doctor.check(spectra.cache().shuffle(1000).prefetch(AUTOTUNE))
    assert report.rules == ["shuffle-after-batch"] and "same batches" in report[0].message
    assert report[0].severity == "wrong"
    # without the cache the clips are reshuffled before every batching: nothing to say
    assert rules(spectra.shuffle(1000).prefetch(AUTOTUNE)) == []


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
    assert "assumed at least 1,000" in seed[0].message and seed[0].severity == "wrong"
    # a shuffle of batches on unknown size is shuffle-after-batch's business, not this rule's
    assert "small-shuffle-buffer" not in rules(unknown.batch(10).shuffle(10).prefetch(1))


@pytest.fixture(scope="module")
def text_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("lines")
    small, big = root / "small.txt", root / "big.txt"
    small.write_text("\n".join(f"line {i}" for i in range(30)) + "\n")
    big.write_text("\n".join(f"line {i}" for i in range(3000)))
    records = str(root / "big.tfrecord")
    with tf.io.TFRecordWriter(records) as w:
        for i in range(2000):
            w.write(f"record {i}".encode())
    return str(small), str(big), records


def test_small_shuffle_buffer_reads_the_real_size_of_files(text_files):
    small, big, records = text_files
    # false alarm fixed: a buffer larger than a small file is a full shuffle
    assert "small-shuffle-buffer" not in rules(tf.data.TextLineDataset(small).shuffle(100).prefetch(1))
    counted = doctor.check(tf.data.TextLineDataset(big).shuffle(100).prefetch(1))
    assert counted.rules == ["small-shuffle-buffer"] and "3000" in counted[0].message
    assert "counted the records" in counted[0].message
    assert rules(tf.data.TextLineDataset(big).shuffle(300).prefetch(1)) == []
    assert rules(tf.data.TFRecordDataset(records).shuffle(1000).prefetch(1)) == []
    seed = doctor.check(tf.data.TFRecordDataset(records).map(lambda r: r).shuffle(42).prefetch(1))
    assert seed.rules == ["small-shuffle-buffer"] and "2000" in seed[0].message and "seed=42" in seed[0].message
    # miss fixed: behind an endless repeat() of files, the files are still counted (per pass)
    endless = doctor.check(tf.data.TFRecordDataset(records).repeat().shuffle(42).prefetch(1))
    assert endless.rules == ["small-shuffle-buffer"] and "per pass" in endless[0].message
    assert rules(tf.data.TextLineDataset(small).repeat().shuffle(42).prefetch(1)) == []
    # a zip is as long as its shortest finite input (an endless counter does not count)
    zipped = tf.data.Dataset.zip((tf.data.Dataset.range(10**9).repeat(), tf.data.TextLineDataset(big)))
    assert rules(zipped.shuffle(100).prefetch(1)) == ["small-shuffle-buffer"]
    # files that are not on this machine: the size stays unknown and the assumption is said
    missing = doctor.check(tf.data.TextLineDataset("no-such-file.txt").shuffle(10).prefetch(1))
    assert missing.rules == ["small-shuffle-buffer"] and "assumed at least" in missing[0].message


def test_repeat_before_shuffle():
    report = doctor.check(range_ds().repeat(3).shuffle(100).batch(10).prefetch(1))
    assert report.rules == ["repeat-before-shuffle"] and report[0].severity == "wrong"
    assert report[0].where == "stage 3: shuffle(buffer_size=100)" and "repeat(count=3)" in report[0].message
    # an endless repeat() before shuffle is a documented trade-off (TPU and tensorflow/models input code): a note
    endless = doctor.check(range_ds().repeat().shuffle(100).batch(10).prefetch(1))
    assert endless.rules == [] and endless.note_rules == ["repeat-before-shuffle"] and endless.healthy
    assert endless.notes[0].severity == "note" and "steps_per_epoch" in endless.notes[0].message
    files = tf.data.Dataset.from_tensor_slices(["a.tfrecord", "b.tfrecord"]).shuffle(2).repeat()
    records = files.interleave(tf.data.TFRecordDataset, cycle_length=2, num_parallel_calls=AUTOTUNE)
    assert severities(records.shuffle(10_000).batch(4).prefetch(AUTOTUNE)) == {"repeat-before-shuffle": "note"}
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
    assert report.rules == [] and report.note_rules == ["cache-to-file"] and len(report.notes) == 1  # said once
    assert report.notes[0].stage.number == 2 and "2 file caches" in report.notes[0].message
    assert report.healthy and "No problems found. (1 note below.)" in str(report)
    assert notes(range_ds().cache().prefetch(1)) == []


def test_split_after_reshuffle():
    shuffled = range_ds().shuffle(100, seed=0)
    for split in (shuffled.take(80), shuffled.skip(80)):
        report = doctor.check(split.batch(10).prefetch(1))
        assert report.rules == ["split-after-reshuffle"]
        assert report[0].stage.number == 3 and "leaks" in report[0].message
    fixed = range_ds().shuffle(100, seed=0, reshuffle_each_iteration=False)
    assert rules(fixed.take(80).batch(10).prefetch(1)) == []
    assert rules(range_ds().take(80).shuffle(80).batch(10).prefetch(1)) == []


def test_split_after_reshuffle_is_not_a_step_limit():
    """False alarm fixed: take(n) of batches at the end of a training pipeline limits the steps of a run."""
    train = range_ds(1000).shuffle(1000).batch(10)
    limited = doctor.check(train.take(100).prefetch(AUTOTUNE))
    assert limited.healthy and limited.note_rules == ["split-after-reshuffle"], str(limited)
    assert "step" in limited.notes[0].message and limited.notes[0].severity == "note"
    assert rules(train.prefetch(AUTOTUNE).take(100)) == []
    # ... but a take of batches with more work after it, a skip, or examples taken, are splits
    assert rules(train.take(100).map(lambda x: x + 1).prefetch(AUTOTUNE)) == ["split-after-reshuffle"]
    assert rules(train.skip(10).prefetch(AUTOTUNE)) == ["split-after-reshuffle"]
    assert rules(range_ds(1000).shuffle(1000).take(100).batch(10).prefetch(AUTOTUNE)) == ["split-after-reshuffle"]


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
    for f in [*report, *report.notes]:
        assert f.doc == doctor.DOCS[f.rule][0] and f.quote == doctor.DOCS[f.rule][1] and f.quote
        assert f.quote in " ".join(str(report).split())
    assert set(doctor.DOCS) >= set(doctor.RULES) | set(doctor.MEASURED_RULES)


def test_several_findings_are_sorted_by_stage_and_can_be_ignored():
    ds = range_ds().repeat().cache().batch(10).shuffle(10)
    report = doctor.check(ds)
    assert report.rules == ["cache-after-infinite-repeat", "shuffle-after-batch"]
    assert report.note_rules == ["repeat-before-shuffle", "no-prefetch-at-end"]
    assert [f.stage.number for f in report] == sorted(f.stage.number for f in report)
    ignored = doctor.check(ds, ignore=["no-prefetch-at-end", "repeat-before-shuffle"])
    assert ignored.rules == ["cache-after-infinite-repeat", "shuffle-after-batch"] and ignored.notes == []
    with pytest.raises(ValueError, match="unknown rule"):
        doctor.check(ds, ignore=["no-such-rule"])


def test_rules_are_unique_and_every_finding_is_kept():
    two = range_ds().shuffle(100).batch(10).cache().prefetch(1).concatenate(
        range_ds().shuffle(100).batch(10).cache().prefetch(1))
    report = doctor.check(two.prefetch(1))
    assert report.rules == ["shuffle-before-cache"]
    assert len(report) == 2 and len({f.stage.number for f in report}) == 2
