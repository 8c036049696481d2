"""TFRecord: write digits as ``tf.train.Example`` shards, read them back, look inside, and get clear errors.

* :mod:`~tutor.tfrecord.io`: build Examples and SequenceExamples, write sharded
  (optionally GZIP) files, read them back with vectorized parsing, compare sizes.
* :mod:`~tutor.tfrecord.inspect`: show what one record holds, feature by feature.
* :mod:`~tutor.tfrecord.errors`: errors that name the broken file or the feature
  that does not fit the spec, and stay catchable as TensorFlow's own errors.

>>> from tutor import tfrecord
>>> tfrecord.make_example({"id": 7}).features.feature["id"].int64_list.value[:]
[7]
"""
from .errors import CorruptRecordError, FeatureSpecError, compression_for, count_records, diagnose_spec, parse_example
from .inspect import RecordTable, inspect_record, read_record
from .io import (
    ENCODINGS,
    RoundTrip,
    SizeTable,
    decode_digits,
    digit_example,
    digit_spec,
    encode_image,
    make_example,
    make_sequence_example,
    read_digits,
    round_trip,
    shard_names,
    size_table,
    to_feature,
    write_digits,
)

__all__ = [
    "CorruptRecordError", "ENCODINGS", "FeatureSpecError", "RecordTable", "RoundTrip", "SizeTable",
    "compression_for", "count_records", "decode_digits", "diagnose_spec", "digit_example", "digit_spec",
    "encode_image", "inspect_record", "make_example", "make_sequence_example", "parse_example", "read_digits",
    "read_record", "round_trip", "shard_names", "size_table", "to_feature", "write_digits",
]
