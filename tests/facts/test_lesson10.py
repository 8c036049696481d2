"""The facts lesson 10 (TFRecord) states, checked on real TensorFlow.

Records and their framing, tf.train.Example's three kinds of lists, sizes on disk (PNG, raw, GZIP), reading the
shards back in turn, parsing per record or per batch, and what a damaged file does.
"""
import os
import threading

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import tfrecord


# ------------------------------------------------------------------ records, tf.train.Example and the files on disk
@pytest.fixture(scope="module")
def digits():
    return tutor.data.digits(200, source="synthetic")


@pytest.fixture(scope="module")
def shards(tmp_path_factory, digits):
    images, labels = digits
    folder = tmp_path_factory.mktemp("shards")
    return {
        "png": tfrecord.write_digits(folder / "png", images, labels, num_shards=4, encoding="png"),
        "raw": tfrecord.write_digits(folder / "raw", images, labels, num_shards=4, encoding="raw"),
    }


def test_a_record_is_its_bytes_plus_16_bytes_of_framing(shards):
    for path in shards["raw"] + shards["png"]:
        sizes = [len(r) for r in tf.data.TFRecordDataset(path).as_numpy_iterator()]
        assert os.path.getsize(path) == sum(sizes) + 16 * len(sizes)  # 8 length + 4 CRC + data + 4 CRC


def test_queue_runners_are_gone_from_the_tf2_api():
    assert not hasattr(tf.train, "string_input_producer")
    assert not hasattr(tf.train, "start_queue_runners")
    assert not hasattr(tf, "TFRecordReader")
    assert hasattr(tf.compat.v1.train, "string_input_producer") and hasattr(tf.compat.v1, "TFRecordReader")
    with pytest.raises(RuntimeError, match="eager"):
        tf.compat.v1.train.string_input_producer(["a.tfrecord"])


def test_a_feature_is_one_of_exactly_three_lists_and_a_single_value_is_a_list():
    kinds = [f.name for f in tf.train.Feature.DESCRIPTOR.oneofs_by_name["kind"].fields]
    assert sorted(kinds) == ["bytes_list", "float_list", "int64_list"]
    label = tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))
    assert list(label.int64_list.value) == [7]


def test_make_example_writes_the_same_bytes_as_the_hand_written_example(digits):
    images, labels = digits
    image, label = images[0], labels[0]
    png = tf.io.encode_png(image[:, :, None]).numpy()
    by_hand = tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
        "mean_brightness": tf.train.Feature(float_list=tf.train.FloatList(value=[image.mean() / 255])),
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[png])),
    }))
    same = tfrecord.make_example({"label": label, "mean_brightness": image.mean() / 255, "image": png})
    assert same.SerializeToString() == by_hand.SerializeToString()


def test_every_record_repeats_its_feature_names(shards):
    for record in tf.data.TFRecordDataset(shards["raw"][0]).take(3).as_numpy_iterator():
        assert all(name in record for name in (b"image", b"label", b"height", b"width", b"id"))


def test_sizes_on_disk(tmp_path, digits):
    images, labels = digits
    sizes = tfrecord.size_table(images, labels, tmp_path, num_shards=2).sizes
    raw, png = sizes["TFRecord, raw bytes"], sizes["TFRecord, png bytes"]
    raw_gz, png_gz = sizes["TFRecord, raw bytes, GZIP"], sizes["TFRecord, png bytes, GZIP"]
    assert raw > images.nbytes + labels.nbytes  # raw TFRecord is bigger than the arrays
    extra = (raw - images.nbytes - labels.nbytes) / len(labels)
    assert 80 <= extra <= 100  # "about 90 bytes more per digit": feature names, small ints, 16 bytes of framing
    assert png < raw and raw_gz < raw / 2  # PNG is smaller; GZIP shrinks raw bytes a lot
    assert png_gz < png and png_gz / png > raw_gz / raw  # on top of PNG, GZIP gains less


def test_gzip_files_need_compression_type(tmp_path, digits):
    images, labels = digits
    path = tfrecord.write_digits(tmp_path, images[:8], labels[:8], num_shards=1, compression="GZIP")[0]
    with pytest.raises(tf.errors.DataLossError):
        list(tf.data.TFRecordDataset(path))
    assert len(list(tf.data.TFRecordDataset(path, compression_type="GZIP"))) == 8


def test_png_round_trip_is_exact_and_jpeg_is_not(shards, digits):
    images, labels = digits
    result = tfrecord.round_trip(images, labels, tfrecord.read_digits(shards["png"], with_ids=True))
    assert result.identical
    jpeg = tf.io.decode_jpeg(tf.io.encode_jpeg(images[0][:, :, None], quality=95)).numpy()[:, :, 0]
    assert not np.array_equal(jpeg, images[0])


# ------------------------------------------------------------------ reading the shards back
def _tagged(paths, **interleave):
    files = tf.data.Dataset.from_tensor_slices(paths)
    tagged = files.enumerate().interleave(
        lambda shard, path: tf.data.TFRecordDataset(path).map(lambda record: (shard, record)),
        cycle_length=4, **interleave)
    spec = tfrecord.digit_spec()
    return [(int(s), int(tf.io.parse_single_example(r, spec)["id"])) for s, r in tagged.take(12)]


def test_interleave_takes_one_record_from_each_shard_in_turn(shards):
    expected = [(i % 4, i) for i in range(12)]  # write_digits sends digit i to shard i % 4
    assert _tagged(shards["png"]) == expected
    assert _tagged(shards["png"], num_parallel_calls=tf.data.AUTOTUNE) == expected  # deterministic by default


def test_num_parallel_reads_is_the_same_interleave_in_one_call(shards):
    spec = tfrecord.digit_spec()

    def ids(ds):
        return [int(tf.io.parse_single_example(r, spec)["id"]) for r in ds]

    files = tf.data.Dataset.from_tensor_slices(shards["raw"])
    by_interleave = ids(files.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE))
    assert by_interleave[:8] == list(range(8))
    assert ids(tf.data.TFRecordDataset(shards["raw"], num_parallel_reads=4)) == by_interleave
    assert [s.kind for s in tutor.doctor.read_pipeline(tf.data.TFRecordDataset(shards["raw"], num_parallel_reads=4))
            ][-1] == "interleave"
    chosen = ids(tf.data.TFRecordDataset(shards["raw"], num_parallel_reads=tf.data.AUTOTUNE))
    assert sorted(chosen) == sorted(by_interleave)  # TensorFlow chooses how many files at once; every record once


@pytest.mark.parametrize("deterministic, first_from", [(True, 0), (False, 1)])
def test_nondeterministic_interleave_hands_out_whatever_is_ready_first(deterministic, first_from):
    """Inner dataset 0 cannot produce until the test lets it; inner dataset 1 can at once."""
    gate = threading.Event()

    def produce(which):
        if int(which) == 0:
            gate.wait(30.0)
        return which

    def inner(which):
        return tf.data.Dataset.from_tensors(which).map(lambda w: tf.py_function(produce, [w], tf.int64))

    ds = tf.data.Dataset.range(2).interleave(inner, cycle_length=2, num_parallel_calls=2,
                                             deterministic=deterministic)
    timer = threading.Timer(0.5, gate.set) if deterministic else None  # deterministic: it must wait for 0
    if timer:
        timer.start()
    iterator = iter(ds)
    first = int(next(iterator))
    gate.set()
    assert first == first_from
    assert sorted([first] + [int(x) for x in iterator]) == [0, 1]


# ------------------------------------------------------------------ parse per record, or per batch?
def test_parse_before_batch_runs_once_per_record_and_after_batch_once_per_batch(shards):
    spec = tfrecord.digit_spec()
    calls = {"per_record": 0, "vectorized": 0}

    def count(name):
        def tick(x):
            calls[name] += 1
            return x
        return lambda s: tf.py_function(tick, [s], tf.string)

    records = tf.data.Dataset.from_tensor_slices(shards["raw"]).interleave(tf.data.TFRecordDataset, cycle_length=4)
    per_record = records.map(lambda s: tf.io.parse_single_example(count("per_record")(s), spec)).batch(64)
    vectorized = records.batch(64).map(lambda s: tf.io.parse_example(count("vectorized")(s), spec))
    for ds in (per_record, vectorized):
        for _ in ds:
            pass
    assert calls == {"per_record": 200, "vectorized": 4}  # 200 records, batches of 64: 64, 64, 64, 8


def test_profile_of_the_two_parsers_shows_the_fused_and_the_vectorized_stages(shards):
    spec = tfrecord.digit_spec()
    records = tf.data.Dataset.from_tensor_slices(shards["raw"]).interleave(tf.data.TFRecordDataset, cycle_length=4)
    decode = lambda f: (tfrecord.decode_digits(f, "raw"), f["label"])  # noqa: E731
    per_record = records.map(lambda s: tf.io.parse_single_example(s, spec)).batch(64).map(decode)
    vectorized = records.batch(64).map(lambda s: tf.io.parse_example(s, spec)).map(decode)
    fused = tutor.profile(per_record, steps=4)
    assert "MapAndBatch" in fused.stages and not any(s.startswith("BatchV2") for s in fused.stages)
    split = tutor.profile(vectorized, steps=4)
    assert "BatchV2" in split.stages and "MapAndBatch" not in split.stages
    assert split.stages.index("BatchV2") < max(i for i, s in enumerate(split.stages) if "ParallelMapV2" in s)


def test_parse_example_error_names_the_key(shards):
    spec = {**tfrecord.digit_spec(), "label": tf.io.FixedLenFeature([], tf.float32)}
    records = next(iter(tf.data.TFRecordDataset(shards["png"][0]).batch(8)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="label"):
        tf.io.parse_example(records, spec)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'label' is stored as int64_list"):
        tfrecord.parse_example(records, spec)


# ------------------------------------------------------------------ when a file is broken
def _damaged_copy(path, target, fraction=0.2):
    data = bytearray(open(path, "rb").read())
    data[int(len(data) * fraction)] ^= 0xFF
    with open(target, "wb") as f:
        f.write(bytes(data))
    return target


def test_damaged_file_raises_data_loss_after_the_good_records(tmp_path, shards):
    broken = _damaged_copy(shards["raw"][0], tmp_path / "broken.tfrecord")
    good = 0
    with pytest.raises(tf.errors.DataLossError, match="corrupted record"):
        for _ in tf.data.TFRecordDataset(str(broken)):
            good += 1
    assert 0 < good < 50
    with pytest.raises(tf.errors.DataLossError, match="broken.tfrecord"):
        tfrecord.count_records([shards["raw"][1], str(broken)])


def test_ignore_errors_drops_the_rest_of_a_damaged_file_silently(tmp_path, shards):
    broken = str(_damaged_copy(shards["raw"][0], tmp_path / "broken.tfrecord"))
    good = 0
    try:
        for _ in tf.data.TFRecordDataset(broken):
            good += 1
    except tf.errors.DataLossError:
        pass
    per_shard = 50
    delivered = list(tf.data.TFRecordDataset([shards["raw"][1], broken]).ignore_errors().as_numpy_iterator())
    assert len(delivered) == per_shard + good < 2 * per_shard  # every record after the damage is gone
    after = list(tf.data.TFRecordDataset([broken, shards["raw"][1]]).ignore_errors().as_numpy_iterator())
    assert len(after) == good + per_shard  # ... and the next file is still read


def test_dataset_ignore_errors_replaces_the_deprecated_experimental_one():
    assert "deprecated" in tf.data.experimental.ignore_errors.__doc__.lower()
    assert "Dataset.ignore_errors" in tf.data.experimental.ignore_errors.__doc__
    ds = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 4.0]).map(lambda x: tf.debugging.check_numerics(1 / x, ""))
    assert list(ds.ignore_errors().as_numpy_iterator()) == [1.0, 0.25]


def test_a_damaged_file_stops_model_fit(tmp_path, shards):
    import keras

    broken = str(_damaged_copy(shards["raw"][0], tmp_path / "broken.tfrecord"))
    ds = tfrecord.read_digits([broken], encoding="raw", batch_size=8).map(
        lambda images, labels: (tf.cast(images, tf.float32) / 255.0, labels))
    model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Flatten(), keras.layers.Dense(10)])
    model.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with pytest.raises(tf.errors.DataLossError):
        model.fit(ds, epochs=1, verbose=0)
