"""Tests for tutor.tfrecord: building and writing records (io), looking inside (inspect), clear errors (errors)."""
import os

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import tfrecord as tr
from tutor.tfrecord import CorruptRecordError, FeatureSpecError, diagnose_spec


@pytest.fixture(scope="module")
def digits():
    x, y = tutor.data.digits(96, source="synthetic")
    return x, y


@pytest.fixture
def shards(tmp_path, digits):
    x, y = digits
    return tr.write_digits(tmp_path, x, y, num_shards=3)


# --- building records ----------------------------------------------------------
def test_to_feature_picks_the_list_type():
    assert tr.to_feature(3).WhichOneof("kind") == "int64_list"
    assert tr.to_feature(np.int64(3)).WhichOneof("kind") == "int64_list"
    assert tr.to_feature([0.5, 1.5]).float_list.value[:] == [0.5, 1.5]
    assert tr.to_feature(b"ab").bytes_list.value[:] == [b"ab"]
    assert tr.to_feature("ab").bytes_list.value[:] == [b"ab"]
    with pytest.raises(ValueError, match="flat list"):
        tr.to_feature(np.zeros((2, 2)))


def test_sequence_example_keeps_variable_length_steps():
    seqs = [[5, 9, 2], [7], [1, 2, 3, 4, 5]]
    records = [tr.make_sequence_example({"length": len(s)}, {"tokens": s}).SerializeToString() for s in seqs]
    ctx_spec = {"length": tf.io.FixedLenFeature([], tf.int64)}
    seq_spec = {"tokens": tf.io.FixedLenSequenceFeature([], tf.int64)}
    for rec, s in zip(records, seqs):
        ctx, seq = tf.io.parse_single_sequence_example(rec, ctx_spec, seq_spec)
        assert int(ctx["length"]) == len(s) and seq["tokens"].numpy().tolist() == s
    ctx, seq, lengths = tf.io.parse_sequence_example(records, context_features=ctx_spec, sequence_features=seq_spec)
    assert lengths["tokens"].numpy().tolist() == [3, 1, 5]
    assert seq["tokens"].shape == (3, 5)  # padded to the longest


# --- writing and reading ---------------------------------------------------------
def test_write_digits_shards_and_names(shards):
    names = [os.path.basename(p) for p in shards]
    assert names == [f"digits-0000{k}-of-00003.tfrecord" for k in range(3)]
    assert tr.count_records(shards) == {n: 32 for n in names}


@pytest.mark.parametrize("encoding", ["raw", "png"])
@pytest.mark.parametrize("compression", [None, "GZIP"])
@pytest.mark.parametrize("vectorized", [True, False])
def test_round_trip_is_bit_for_bit(tmp_path, digits, encoding, compression, vectorized):
    x, y = digits
    paths = tr.write_digits(tmp_path, x, y, num_shards=2, encoding=encoding, compression=compression)
    assert all(p.endswith(".gz") == (compression == "GZIP") for p in paths)
    ds = tr.read_digits(paths, encoding=encoding, batch_size=10, vectorized=vectorized, with_ids=True)
    result = tr.round_trip(x, y, ds)
    assert result.identical and result.n_compared == len(y), str(result)


def test_round_trip_reports_a_changed_image(tmp_path, digits):
    x, y = digits
    paths = tr.write_digits(tmp_path, x, y, num_shards=2, encoding="raw")
    changed = x.copy()
    changed[5] = 255 - changed[5]
    result = tr.round_trip(changed, y, tr.read_digits(paths, encoding="raw", with_ids=True))
    assert not result.identical and result.mismatched_ids == [5] and "FAILED" in str(result)


def test_vectorized_and_per_record_read_the_same(shards):
    a = [b for b in tr.read_digits(shards, vectorized=True, batch_size=16).as_numpy_iterator()]
    b = [b for b in tr.read_digits(shards, vectorized=False, batch_size=16).as_numpy_iterator()]
    assert len(a) == len(b) == 6
    for (ia, la), (ib, lb) in zip(a, b):
        assert ia.shape == (16, 28, 28, 1) and np.array_equal(ia, ib) and np.array_equal(la, lb)


def test_size_table_png_and_gzip_are_smaller_than_raw(tmp_path, digits):
    x, y = digits
    table = tr.size_table(x, y, tmp_path, num_shards=2)
    sizes = table.sizes
    raw = sizes["TFRecord, raw bytes"]
    assert raw > x.nbytes  # every record carries its framing and feature names
    assert sizes["TFRecord, png bytes"] < raw and sizes["TFRecord, raw bytes, GZIP"] < raw
    text = str(table)
    assert "format" in text.splitlines()[0] and len(text.splitlines()) == 6
    assert "<table>" in table._repr_html_()


# --- inspecting -----------------------------------------------------------------------
def test_inspect_record_from_path_bytes_and_dataset(shards):
    from_path = tutor.inspect_record(shards[0], index=1)
    assert from_path.kind == "Example" and from_path.names == ["height", "id", "image", "label", "width"]
    rows = {r["name"]: r for r in from_path.rows}
    assert rows["id"]["preview"] == "[3]"  # record 1 of shard 0 is image 3 (round robin over 3 shards)
    assert rows["image"]["type"] == "bytes_list" and rows["image"]["preview"].startswith("[b'\\x89PNG")
    assert "bytes)" in rows["image"]["preview"]
    raw = tr.read_record(shards[0], 1)
    assert tutor.inspect_record(raw).rows == from_path.rows
    assert tutor.inspect_record(tf.data.TFRecordDataset(shards[0]), 1).rows == from_path.rows
    text = str(from_path)
    assert text.splitlines()[0] == "Example with 5 features" and "int64_list" in text
    assert "<table>" in from_path._repr_html_()


def test_inspect_truncates_long_lists_and_reads_sequence_examples():
    ex = tr.make_example({"v": np.arange(100), "f": [0.125] * 3})
    rows = {r["name"]: r for r in tutor.inspect_record(ex).rows}
    assert rows["v"]["length"] == 100 and rows["v"]["preview"] == "[0, 1, 2, 3, 4, ...]"
    assert rows["f"]["type"] == "float_list" and rows["f"]["preview"] == "[0.125, 0.125, 0.125]"
    seq = tr.make_sequence_example({"label": 2}, {"tokens": [4, 8, 15]})
    table = tutor.inspect_record(seq.SerializeToString())
    assert table.kind == "SequenceExample"
    assert [(r["section"], r["name"], r["length"]) for r in table.rows] == [("context", "label", 1),
                                                                           ("feature_lists", "tokens", 3)]


def test_inspect_bad_input():
    with pytest.raises(TypeError, match="TFRecordDataset"):
        tutor.inspect_record([1, 2])
    with pytest.raises(ValueError, match="not a serialized"):
        tutor.inspect_record(b"\xff\xff\xff")
    with pytest.raises(IndexError, match="fewer than"):
        tutor.inspect_record(tf.data.Dataset.from_tensor_slices([b""]), index=3)


def test_inspect_record_of_a_dataset_that_never_yields_stops():
    from tutor.reading import ReadTimeout

    never = tf.data.Dataset.from_tensors(b"").repeat().filter(lambda r: tf.strings.length(r) > 0)
    with pytest.raises(ReadTimeout, match="inspect_record"):
        tutor.inspect_record(never, timeout=1.0)


# --- corrupt files -------------------------------------------------------------------
def test_truncated_file_raises_clear_data_loss_error(shards):
    path = shards[1]
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:-10])
    with pytest.raises(CorruptRecordError) as info:
        tr.count_records(shards)
    err = info.value
    assert isinstance(err, tf.errors.DataLossError)
    msg = str(err)
    assert os.path.basename(path) in msg and "truncated or corrupt" in msg and "Regenerate" in msg
    assert "function_node" not in msg and err.path == path
    with pytest.raises(tf.errors.DataLossError, match="truncated or corrupt"):
        tutor.inspect_record(path, index=31)
    with pytest.raises(CorruptRecordError, match="digits-00001-of-00003"):
        tr.read_digits(shards, verify=True)


def test_flipped_byte_raises_clear_data_loss_error(shards):
    path = shards[0]
    data = bytearray(open(path, "rb").read())
    data[40] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))
    with pytest.raises(CorruptRecordError, match="digits-00000-of-00003.tfrecord"):
        tr.count_records(shards)  # the data CRC of record 0 no longer matches
    with pytest.raises(CorruptRecordError, match="truncated or corrupt"):
        tutor.inspect_record(path, index=0)


def test_gzip_file_read_without_compression_says_so(tmp_path, digits):
    x, y = digits
    paths = tr.write_digits(tmp_path, x[:8], y[:8], num_shards=1, compression="GZIP")
    with pytest.raises(CorruptRecordError, match="compression_type='GZIP'"):
        tr.count_records(paths, compression=None)
    assert list(tr.count_records(paths).values()) == [8]  # "auto" picks GZIP from the name


# --- wrong feature specs ---------------------------------------------------------------
@pytest.mark.parametrize("spec, name, words", [
    ({"label": tf.io.FixedLenFeature([], tf.float32)}, "label", "tf.int64"),
    ({"lable": tf.io.FixedLenFeature([], tf.int64)}, "lable", "not in the records"),
    ({"image": tf.io.FixedLenFeature([2], tf.string)}, "image", "holds 1 value"),
    ({"label": tf.io.FixedLenFeature([], tf.int32)}, "label", "cannot be parsed"),
])
def test_wrong_spec_names_the_feature(shards, spec, name, words):
    records = [tr.read_record(shards[0], i) for i in range(4)]
    with pytest.raises(FeatureSpecError) as info:
        tr.parse_example(records, {**tr.digit_spec(), **spec} if name != "lable" else spec)
    assert info.value.feature == name and f"'{name}'" in str(info.value) and words in str(info.value)
    assert isinstance(info.value, tf.errors.InvalidArgumentError)


def test_varying_length_asks_for_varlen():
    records = [tr.make_example({"tags": list(range(k))}).SerializeToString() for k in (3, 2, 4)]
    problems = diagnose_spec(records, {"tags": tf.io.FixedLenFeature([3], tf.int64)})
    assert problems[0][0] == "tags" and "VarLenFeature" in problems[0][1]
    assert diagnose_spec(records, {"tags": tf.io.VarLenFeature(tf.int64)}) == []
    parsed = tr.parse_example(records, {"tags": tf.io.VarLenFeature(tf.int64)})
    assert isinstance(parsed["tags"], tf.SparseTensor)


def test_parse_example_passes_a_good_spec_through(shards):
    records = [tr.read_record(shards[2], i) for i in range(3)]
    parsed = tr.parse_example(records, tr.digit_spec())
    assert parsed["id"].numpy().tolist() == [2, 5, 8]
    with pytest.raises(TypeError, match="dict"):
        tr.parse_example(records, [tf.io.FixedLenFeature([], tf.int64)])
