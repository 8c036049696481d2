"""Exercises for lesson 10 (TFRecord).

q1: write the feature spec that parses :func:`mystery_records`.
q2: make a parsing pipeline vectorized (``parse_example`` after ``batch``).

>>> from tutor.checks import lesson10 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import atexit
import shutil
import tempfile
from typing import Any

import numpy as np
import tensorflow as tf

from .. import tfrecord
from ..doctor import read_pipeline
from ..tfrecord import FeatureSpecError
from ._core import Question, fail
from ._read import dataset as _dataset

__all__ = ["q1", "q2", "mystery_records", "example_files", "parse_stages"]

_TAGS = ([3, 1, 4], [1, 5], [9, 2, 6, 5])


def mystery_records() -> list[bytes]:
    """Three serialized Examples with features ``id``, ``position``, ``caption`` and ``tags``."""
    records = []
    for i, tags in enumerate(_TAGS):
        records.append(tfrecord.make_example({
            "id": 100 + i,
            "position": np.array([0.5 * i, 1.0 - 0.25 * i], np.float32),
            "caption": f"digit number {i}".encode(),
            "tags": np.array(tags, np.int64),
        }).SerializeToString())
    return records


def _check_spec(spec: Any) -> str:
    if not isinstance(spec, dict):
        fail(f"expected a dict from feature name to tf.io.FixedLenFeature / VarLenFeature, got {type(spec).__name__}.")
    wanted = {"id", "position", "caption", "tags"}
    missing, extra = sorted(wanted - set(spec)), sorted(set(spec) - wanted)
    if extra:
        fail(f"the records hold no feature named {extra[0]!r}; they hold {sorted(wanted)}. "
             "Look again at tutor.inspect_record(records[0]).")
    if missing:
        fail(f"your spec leaves out {missing[0]!r}; parse all four features: {sorted(wanted)}.")
    records = mystery_records()
    try:
        parsed = tfrecord.parse_example(records, spec)
    except FeatureSpecError as exc:
        fail(str(exc))
    ids = parsed["id"].numpy().ravel().tolist()
    if ids != [100, 101, 102]:
        fail(f"'id' parsed as {ids}; read it as tf.io.FixedLenFeature([], tf.int64) for one number per record.")
    position = parsed["position"]
    if isinstance(position, tf.SparseTensor) or position.shape[1:] != (2,):
        fail("'position' always holds exactly 2 floats: tf.io.FixedLenFeature([2], tf.float32) gives a dense "
             "[batch, 2] tensor.")
    caption = parsed["caption"]
    if isinstance(caption, tf.SparseTensor) or caption.shape.rank != 1:
        fail("'caption' is one string per record: tf.io.FixedLenFeature([], tf.string).")
    tags = parsed["tags"]
    if not isinstance(tags, (tf.SparseTensor, tf.RaggedTensor)):
        fail("'tags' has a different length in each record (3, 2 and 4 values): use "
             "tf.io.VarLenFeature(tf.int64), or tf.io.RaggedFeature(tf.int64).")
    if isinstance(tags, tf.SparseTensor):
        tags = tf.RaggedTensor.from_sparse(tags)
    if [list(t) for t in tags.to_list()] != [list(t) for t in _TAGS]:
        fail(f"'tags' parsed as {tags.to_list()}, expected {[list(t) for t in _TAGS]}.")
    return "all four features parse; 'tags' varies in length, so it comes back sparse (or ragged)."


q1 = Question(
    "Exercise 1 (a feature spec that fits)",
    _check_spec,
    hints=[
        "Print tutor.inspect_record(records[0]) and tutor.inspect_record(records[2]): note each feature's type and length.",
        "int64_list -> tf.int64, float_list -> tf.float32, bytes_list -> tf.string. A length that is the same "
        "in every record goes into FixedLenFeature's shape ([] for one value).",
        "A length that changes from record to record needs tf.io.VarLenFeature(dtype).",
    ],
    solution="""
        answer = {
            "id": tf.io.FixedLenFeature([], tf.int64),
            "position": tf.io.FixedLenFeature([2], tf.float32),
            "caption": tf.io.FixedLenFeature([], tf.string),
            "tags": tf.io.VarLenFeature(tf.int64),
        }
    """,
)


# --------------------------------------------------------------------- q2
PARSE_OPS = ("ParseExample", "ParseExampleV2", "ParseSingleExample")


def parse_stages(ds: tf.data.Dataset, ops: tuple[str, ...] = PARSE_OPS) -> list[tuple[str, bool]]:
    """The pipeline's stages from source to output, as ``(kind, calls one of ops?)``; kinds as in ``tutor.doctor``.

    By default ``ops`` are the Example-parsing ops. Read from the dataset's
    graph by the pipeline doctor's reader, so it shows what the pipeline does,
    whatever it was named.
    """
    wanted = set(ops)
    return [(stage.kind, bool(stage.fn_ops & wanted)) for stage in read_pipeline(ds)]


def example_files(n: int = 256, num_shards: int = 4, directory: str | None = None) -> list[str]:
    """Write ``n`` digits (PNG) as TFRecord shards for exercise 2; returns the paths."""
    from ..data import digits

    images, labels = digits(n, source="synthetic")
    if directory is None:
        directory = tempfile.mkdtemp(prefix="tutor_l07_")
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return tfrecord.write_digits(directory, images, labels, num_shards=num_shards)


def _check_vectorized(answer: Any) -> str:
    ds = _dataset(answer, "a tf.data.Dataset of (images, labels) batches")
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2):
        fail(f"expected elements (images, labels), got element_spec={spec}.")
    images_spec, labels_spec = spec
    if images_spec.shape.rank != 4 or tuple(images_spec.shape[1:]) != (28, 28, 1):
        fail(f"expected image batches of shape [batch, 28, 28, 1], got {images_spec.shape}; "
             "decode with tutor.tfrecord.decode_digits(features) or reshape after decoding.")
    stages = parse_stages(ds)
    parse_at = [i for i, (_, p) in enumerate(stages) if p]
    batch_at = [i for i, (kind, _) in enumerate(stages) if kind == "batch"]
    if not parse_at:
        fail("no stage of your pipeline parses Examples; map tf.io.parse_example over the batches.")
    if not batch_at:
        fail("your pipeline never batches: add .batch(...) before the map that parses.")
    if parse_at[0] < batch_at[0]:
        fail("your pipeline still parses one record at a time: the parsing map comes before batch. "
             "Batch the serialized records first, then map tf.io.parse_example over each batch.")
    first = next(iter(ds.take(1)))
    rows = int(first[0].shape[0])
    if rows < 2:
        fail(f"the first batch holds {rows} image; use a batch size of at least 2.")
    labels = first[1].numpy().ravel()
    if labels.min() < 0 or labels.max() > 9:
        fail(f"the labels should be digits 0..9, got {labels[:8].tolist()}.")
    return f"parse_example runs once per batch of {rows} records: one op call instead of {rows}."


q2 = Question(
    "Exercise 2 (vectorized parsing)",
    _check_vectorized,
    hints=[
        "The slow version is files -> interleave -> map(parse_single_example) -> batch -> map(decode).",
        "Move the batch up: records.batch(64).map(lambda s: tf.io.parse_example(s, spec)).",
        "tf.io.parse_example takes a vector of serialized records and returns a dict of batched tensors.",
    ],
    solution="""
        files = tutor.checks.lesson10.example_files()
        spec = tutor.tfrecord.digit_spec()
        records = tf.data.Dataset.from_tensor_slices(files).interleave(
            tf.data.TFRecordDataset, cycle_length=2)
        answer = (records.batch(64)
                  .map(lambda s: tf.io.parse_example(s, spec))
                  .map(lambda f: (tutor.tfrecord.decode_digits(f), f["label"])))
    """,
)
