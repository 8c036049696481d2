"""Exercises for lesson 10 (TFRecord).

q1: write the feature spec that parses :func:`mystery_records`.
q2: make a parsing pipeline vectorized (``parse_example`` after ``batch``), reading :func:`example_files`.

>>> from tutor.checks import lesson10 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import atexit
import difflib
import shutil
import tempfile
from collections import Counter
from typing import Any, Mapping

import numpy as np
import tensorflow as tf

from .. import tfrecord
from ..doctor import read_pipeline
from ..tfrecord import FeatureSpecError
from . import _read, _stages
from ._core import fail, shorten
from .questions import Question

__all__ = ["BATCH_SIZE", "N_EXAMPLES", "PARSE_OPS", "example_files", "mystery_records", "parse_stages", "q1", "q2"]

_TAGS = ([3, 1, 4], [1, 5], [9, 2, 6, 5])
_WANTED = ("caption", "id", "position", "tags")
_FEATURE_TYPES = (tf.io.FixedLenFeature, tf.io.VarLenFeature, tf.io.RaggedFeature, tf.io.FixedLenSequenceFeature,
                  tf.io.SparseFeature)


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


# --------------------------------------------------------------------- q1
def _names(spec: Mapping) -> tuple[list, list]:
    keys = {k if isinstance(k, str) else repr(k) for k in spec}
    return sorted(keys - set(_WANTED)), sorted(set(_WANTED) - keys)


def _dense(name: str, value: Any, values: int) -> str:
    if isinstance(value, (tf.SparseTensor, tf.RaggedTensor)):
        shape = "[]" if values == 1 else f"[{values}]"
        fail(f"'{name}' has exactly {values} value{'s' if values > 1 else ''} in every record, so read it with "
             f"tf.io.FixedLenFeature({shape}, ...): it gives a dense tensor. VarLenFeature and RaggedFeature are for "
             "features whose length varies from record to record.")
    return ""


def _check_spec(spec: Any) -> str:
    if isinstance(spec, tf.data.Dataset):
        fail("expected the feature spec itself, a dict such as {'id': tf.io.FixedLenFeature([], tf.int64), ...}, "
             "got a tf.data.Dataset.")
    if not isinstance(spec, Mapping):
        fail(f"expected a dict from feature name to tf.io.FixedLenFeature / tf.io.VarLenFeature, got "
             f"{type(spec).__name__} {shorten(spec, 40)}.")
    extra, missing = _names(spec)
    if len(extra) == 1 and len(missing) == 1:
        fail(f"the records hold no feature named {extra[0]!r}; did you mean {missing[0]!r}? Names must match "
             "exactly.")
    if extra:
        close = difflib.get_close_matches(extra[0], _WANTED, n=1)
        fail(f"the records hold no feature named {extra[0]!r}{f' (did you mean {close[0]!r}?)' if close else ''}; "
             f"they hold {list(_WANTED)}. Look again at tutor.inspect_record(mystery[0]).")
    if missing:
        fail(f"your spec leaves out {missing[0]!r}; parse all four features: {list(_WANTED)}.")
    for name in _WANTED:
        item = spec[name]
        if isinstance(item, (tf.dtypes.DType, type)):
            fail(f"'{name}': {shorten(item, 30)} is a type, not a feature description; wrap it, e.g. "
                 "tf.io.FixedLenFeature([], tf.int64).")
        if not isinstance(item, _FEATURE_TYPES):
            fail(f"'{name}': {type(item).__name__} is not a feature description; use tf.io.FixedLenFeature(shape, "
                 "dtype), or tf.io.VarLenFeature(dtype) for a length that varies.")
        if isinstance(item, tf.io.FixedLenSequenceFeature) and not item.allow_missing:
            fail(f"'{name}': in tf.io.parse_example, a FixedLenSequenceFeature needs allow_missing=True (it then "
                 "reads a list of any length and pads the shorter ones); or use FixedLenFeature, or VarLenFeature "
                 "for a length that varies.")
        if isinstance(item, tf.io.SparseFeature):
            fail(f"'{name}': SparseFeature builds a SparseTensor out of index and value features that these records "
                 "do not have; use FixedLenFeature or VarLenFeature.")
    records = mystery_records()
    problems = tfrecord.diagnose_spec(records, spec)
    if problems:
        fail(problems[0][1])
    try:
        parsed = tfrecord.parse_example(records, dict(spec))
    except FeatureSpecError as exc:
        fail(str(exc))
    ids, position, caption, tags = (parsed[n] for n in ("id", "position", "caption", "tags"))
    _dense("id", ids, 1)
    _dense("position", position, 2)
    _dense("caption", caption, 1)
    if ids.shape[1:] not in ((), (1,)) or ids.numpy().ravel().tolist() != [100, 101, 102]:
        fail(f"'id' parsed with shape {ids.shape.as_list()}; one number per record is "
             "tf.io.FixedLenFeature([], tf.int64).")
    if tuple(position.shape[1:]) != (2,):
        fail(f"'position' parsed with shape {position.shape.as_list()}; its 2 floats per record are "
             "tf.io.FixedLenFeature([2], tf.float32), which gives a [batch, 2] tensor.")
    if caption.shape[1:] not in ((), (1,)):
        fail(f"'caption' parsed with shape {caption.shape.as_list()}; one string per record is "
             "tf.io.FixedLenFeature([], tf.string).")
    padded = isinstance(spec["tags"], tf.io.FixedLenSequenceFeature) and not isinstance(tags, tf.SparseTensor)
    if not isinstance(tags, (tf.SparseTensor, tf.RaggedTensor)) and not padded:
        fail("'tags' has a different length in each record (3, 2 and 4 values): use tf.io.VarLenFeature(tf.int64), "
             "or tf.io.RaggedFeature(tf.int64).")
    if isinstance(tags, tf.SparseTensor):
        tags = tf.RaggedTensor.from_sparse(tags)
    if padded:  # a dense [records, longest] tensor: each record's list, padded with the default value
        fill = spec["tags"].default_value if spec["tags"].default_value is not None else 0
        got = [_strip(row, fill) for row in np.asarray(tags).tolist()]
    else:
        got = [list(t) for t in tags.to_list()]
    if got != [list(t) for t in _TAGS]:
        fail(f"'tags' parsed as {got}, expected {[list(t) for t in _TAGS]}.")
    kind = ("dense, padded to the longest record" if padded else
            "sparse" if isinstance(parsed["tags"], tf.SparseTensor) else "ragged")
    return f"all four features parse; 'tags' varies in length, so it comes back {kind}, and the others are dense."


def _strip(row: list, fill: Any) -> list:
    """``row`` without the padding ``fill`` at its end."""
    while row and row[-1] == fill:
        row = row[:-1]
    return row


q1 = Question(
    "Exercise 1 (a feature spec that fits)",
    _check_spec,
    hints=[
        "Print tutor.inspect_record(mystery[0]) and tutor.inspect_record(mystery[2]): note each feature's type and "
        "length.",
        "int64_list -> tf.int64, float_list -> tf.float32, bytes_list -> tf.string. A length that is the same "
        "in every record goes into FixedLenFeature's shape ([] for one value, [2] for two).",
        "A length that changes from record to record needs tf.io.VarLenFeature(dtype).",
    ],
    solution="""
        spec_answer = {
            "id": tf.io.FixedLenFeature([], tf.int64),
            "position": tf.io.FixedLenFeature([2], tf.float32),
            "caption": tf.io.FixedLenFeature([], tf.string),
            "tags": tf.io.VarLenFeature(tf.int64),
        }
    """,
    answer_name="spec_answer",
)


# --------------------------------------------------------------------- q2
#: Ops that parse serialized Examples inside a map function (``parse_single_example`` also runs
#: ``ParseExampleV2`` in TF 2, so what tells the two apart is whether the map comes after a batch).
PARSE_OPS = ("ParseExample", "ParseExampleV2", "ParseSingleExample")
#: How many digits :func:`example_files` writes, and the batch size exercise 2 keeps.
N_EXAMPLES = 256
BATCH_SIZE = 64


def parse_stages(ds: tf.data.Dataset, ops: tuple[str, ...] = PARSE_OPS) -> list[tuple[str, bool]]:
    """The pipeline's stages from source to output, as ``(kind, parses Examples?)``; kinds as in ``tutor.doctor``.

    A stage parses when its function calls one of ``ops`` (by default the
    Example-parsing ops), or when it is a ``ParseExampleDataset`` stage
    (``tf.data.experimental.parse_example_dataset``). Read from the dataset's
    graph by the pipeline doctor's reader, so it shows what the pipeline does,
    whatever it was named.

    >>> parse_stages(tf.data.Dataset.range(3).batch(2))
    [('source', False), ('batch', False)]
    """
    return [(stage.kind, _parses(stage, ops)) for stage in read_pipeline(ds)]


def _parses(stage, ops: tuple[str, ...] = PARSE_OPS) -> bool:
    return bool(stage.fn_ops & set(ops)) or stage.op.startswith("ParseExampleDataset")


def example_files(n: int = N_EXAMPLES, num_shards: int = 4, directory: str | None = None) -> list[str]:
    """Write ``n`` offline digits (PNG) as TFRecord shards for exercise 2; returns the paths.

    Digit ``i`` goes to shard ``i % num_shards``, as with
    :func:`tutor.tfrecord.write_digits`. Without ``directory`` the files go to
    a temporary folder that is removed when Python exits.
    """
    from ..data import digits

    images, labels = digits(n, source="synthetic")
    if directory is None:
        directory = tempfile.mkdtemp(prefix="tutor_lesson10_")
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return tfrecord.write_digits(directory, images, labels, num_shards=num_shards)


def _expected() -> Counter:
    from ..data import digits

    images, labels = digits(N_EXAMPLES, source="synthetic")
    return Counter((int(label), image.tobytes()) for image, label in zip(images, labels))


def _check_vectorized(answer: Any) -> str:
    ds = _read.dataset(answer, "a tf.data.Dataset of (images, labels) batches")
    spec = ds.element_spec
    if isinstance(spec, dict):
        fail(f"your elements are dicts of features ({', '.join(sorted(map(str, spec)))}): finish with the map that "
             "decodes them into (images, labels), as `slow` does.")
    if not (isinstance(spec, (tuple, list)) and len(spec) == 2
            and all(isinstance(s, tf.TensorSpec) for s in spec)):
        fail(f"expected elements (images, labels), got element_spec={shorten(spec, 120)}.")
    images_spec, labels_spec = spec
    if images_spec.shape.rank == 3 and tuple(images_spec.shape) == (28, 28, 1):
        fail("your elements are single images [28, 28, 1], not batches: batch the serialized records (batch(64)) "
             "before the map that parses them.")
    if images_spec.shape.rank != 4 or tuple(images_spec.shape[1:]) != (28, 28, 1):
        fail(f"expected image batches of shape [batch, 28, 28, 1], got {images_spec.shape}; decode with "
             "tutor.tfrecord.decode_digits(features, 'png') as `slow` does.")
    stages = _stages.stages(ds, build_with="tf.data.TFRecordDataset, batch, map and tf.io.parse_example as in `slow`")
    parse_at = [i for i, stage in enumerate(stages) if _parses(stage)]
    if not parse_at:
        fail("no stage of your pipeline parses Examples: read the files with tf.data.TFRecordDataset, batch the "
             "serialized records, then map tf.io.parse_example over each batch.")
    batch_before = [i for i, s in enumerate(stages) if s.kind == "batch" and i < parse_at[0]]
    if not batch_before:
        where = ("the parsing map comes before batch" if any(s.kind == "batch" for s in stages)
                 else "it parses before any batch")
        fail(f"your pipeline still parses one record at a time: {where}. Batch the serialized records first, then "
             "map tf.io.parse_example over each batch.")
    size = stages[batch_before[-1]].params.get("batch_size")
    if size is not None and size != BATCH_SIZE:
        fail(f"your pipeline batches {size} records at a time; keep batch({BATCH_SIZE}) as `slow` does.")
    decoders = set().union(*(s.fn_ops for s in stages))
    if "DecodeRaw" in decoders and not decoders & {"DecodePng", "DecodeImage"}:
        fail("your pipeline decodes the images with decode_raw, but these files hold PNG bytes: decode with "
             "tutor.tfrecord.decode_digits(features, 'png') as `slow` does.")
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail("your dataset never ends (it has repeat() with no count), so one pass cannot finish; the exercise "
             f"wants the {N_EXAMPLES} digits once. Remove the repeat().")
    batches = _read.elements(ds, limit=N_EXAMPLES)  # batches; more data than `files` is counted, then named
    rows = [len(images) for images, _ in batches]
    n = sum(rows)
    if n != N_EXAMPLES:
        fail(f"your pipeline yields {n} images; `slow` yields all {N_EXAMPLES} digits of `files` "
             f"(ex.example_files()). Read those files (the lesson's own png_paths hold more), and drop no records.")
    if any(r != BATCH_SIZE for r in rows):
        fail(f"your batches hold {rows} images; keep batch({BATCH_SIZE}) as `slow` does.")
    got = Counter((int(label), np.asarray(image).astype(np.uint8).reshape(28, 28).tobytes())
                  for images, labels in batches for image, label in zip(images, np.ravel(labels)))
    if got != _expected():
        fail("your pipeline yields 256 images, but some images or labels differ from what `slow` yields: decode "
             "each image with tutor.tfrecord.decode_digits(features, 'png') and pair it with features['label'].")
    calls = len(rows)
    return (f"tf.io.parse_example runs once per batch of {BATCH_SIZE} records: {calls} op calls for {n} records "
            f"instead of {n}.")


q2 = Question(
    "Exercise 2 (vectorized parsing)",
    _check_vectorized,
    hints=[
        "`slow` is files -> interleave -> map(parse_single_example) -> batch(64) -> map(decode).",
        "Move the batch up: records.batch(64).map(lambda s: tf.io.parse_example(s, spec)), then the decode map.",
        "tf.io.parse_example takes a vector of serialized records and returns a dict of batched tensors, so the "
        "decode map after it stays the same.",
    ],
    solution="""
        files = tutor.checks.lesson10.example_files()
        spec = tutor.tfrecord.digit_spec()
        records = tf.data.Dataset.from_tensor_slices(files).interleave(tf.data.TFRecordDataset, cycle_length=4)
        answer = (records.batch(64)
                  .map(lambda s: tf.io.parse_example(s, spec))
                  .map(lambda f: (tutor.tfrecord.decode_digits(f, "png"), f["label"])))
    """,
)
