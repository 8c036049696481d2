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
from ..i18n import N_, ngettext
from ..i18n import gettext as _
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
        # Translators: {name} is a feature's name; {shape} is code: [] or [2].
        fail(ngettext("'{name}' has exactly {values} value in every record, so read it with "
                      "tf.io.FixedLenFeature({shape}, ...): it gives a dense tensor. VarLenFeature and RaggedFeature "
                      "are for features whose length varies from record to record.",
                      "'{name}' has exactly {values} values in every record, so read it with "
                      "tf.io.FixedLenFeature({shape}, ...): it gives a dense tensor. VarLenFeature and RaggedFeature "
                      "are for features whose length varies from record to record.", values).format(
            name=name, values=values, shape=shape))
    return ""


def _check_spec(spec: Any) -> str:
    if isinstance(spec, tf.data.Dataset):
        fail(_("expected the feature spec itself, a dict such as {'id': tf.io.FixedLenFeature([], tf.int64), ...}, "
               "got a tf.data.Dataset."))
    if not isinstance(spec, Mapping):
        fail(_("expected a dict from feature name to tf.io.FixedLenFeature / tf.io.VarLenFeature, got "
               "{kind} {spec}.").format(kind=type(spec).__name__, spec=shorten(spec, 40)))
    extra, missing = _names(spec)
    if len(extra) == 1 and len(missing) == 1:
        # Translators: {extra} and {missing} are feature names in quotes.
        fail(_("the records hold no feature named {extra!r}; did you mean {missing!r}? Names must match "
               "exactly.").format(extra=extra[0], missing=missing[0]))
    if extra:
        close = difflib.get_close_matches(extra[0], _WANTED, n=1)
        if close:
            # Translators: {names} is a Python list of the four feature names.
            fail(_("the records hold no feature named {extra!r} (did you mean {close!r}?); they hold {names}. Look "
                   "again at tutor.inspect_record(mystery[0]).").format(extra=extra[0], close=close[0],
                                                                       names=list(_WANTED)))
        fail(_("the records hold no feature named {extra!r}; they hold {names}. Look again at "
               "tutor.inspect_record(mystery[0]).").format(extra=extra[0], names=list(_WANTED)))
    if missing:
        fail(_("your spec leaves out {missing!r}; parse all four features: {names}.").format(
            missing=missing[0], names=list(_WANTED)))
    for name in _WANTED:
        item = spec[name]
        if isinstance(item, (tf.dtypes.DType, type)):
            fail(_("'{name}': {item} is a type, not a feature description; wrap it, e.g. "
                   "tf.io.FixedLenFeature([], tf.int64).").format(name=name, item=shorten(item, 30)))
        if not isinstance(item, _FEATURE_TYPES):
            fail(_("'{name}': {kind} is not a feature description; use tf.io.FixedLenFeature(shape, "
                   "dtype), or tf.io.VarLenFeature(dtype) for a length that varies.").format(
                name=name, kind=type(item).__name__))
        if isinstance(item, tf.io.FixedLenSequenceFeature) and not item.allow_missing:
            fail(_("'{name}': in tf.io.parse_example, a FixedLenSequenceFeature needs allow_missing=True (it then "
                   "reads a list of any length and pads the shorter ones); or use FixedLenFeature, or VarLenFeature "
                   "for a length that varies.").format(name=name))
        if isinstance(item, tf.io.SparseFeature):
            fail(_("'{name}': SparseFeature builds a SparseTensor out of index and value features that these records "
                   "do not have; use FixedLenFeature or VarLenFeature.").format(name=name))
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
        # Translators: {shape} is a shape as a Python list: [3, 1].
        fail(_("'id' parsed with shape {shape}; one number per record is "
               "tf.io.FixedLenFeature([], tf.int64).").format(shape=ids.shape.as_list()))
    if tuple(position.shape[1:]) != (2,):
        fail(_("'position' parsed with shape {shape}; its 2 floats per record are "
               "tf.io.FixedLenFeature([2], tf.float32), which gives a [batch, 2] tensor.").format(
            shape=position.shape.as_list()))
    if caption.shape[1:] not in ((), (1,)):
        fail(_("'caption' parsed with shape {shape}; one string per record is "
               "tf.io.FixedLenFeature([], tf.string).").format(shape=caption.shape.as_list()))
    padded = isinstance(spec["tags"], tf.io.FixedLenSequenceFeature) and not isinstance(tags, tf.SparseTensor)
    if not isinstance(tags, (tf.SparseTensor, tf.RaggedTensor)) and not padded:
        fail(_("'tags' has a different length in each record (3, 2 and 4 values): use tf.io.VarLenFeature(tf.int64), "
               "or tf.io.RaggedFeature(tf.int64)."))
    if isinstance(tags, tf.SparseTensor):
        tags = tf.RaggedTensor.from_sparse(tags)
    if padded:  # a dense [records, longest] tensor: each record's list, padded with the default value
        fill = spec["tags"].default_value if spec["tags"].default_value is not None else 0
        got = [_strip(row, fill) for row in np.asarray(tags).tolist()]
    else:
        got = [list(t) for t in tags.to_list()]
    if got != [list(t) for t in _TAGS]:
        fail(_("'tags' parsed as {got}, expected {want}.").format(got=got, want=[list(t) for t in _TAGS]))
    if padded:
        return _("all four features parse; 'tags' varies in length, so it comes back dense, padded to the longest "
                 "record, and the others are dense.")
    if isinstance(parsed["tags"], tf.SparseTensor):
        return _("all four features parse; 'tags' varies in length, so it comes back sparse, and the others are "
                 "dense.")
    return _("all four features parse; 'tags' varies in length, so it comes back ragged, and the others are dense.")


def _strip(row: list, fill: Any) -> list:
    """``row`` without the padding ``fill`` at its end."""
    while row and row[-1] == fill:
        row = row[:-1]
    return row


q1 = Question(
    N_("Exercise 1 (a feature spec that fits)"),
    _check_spec,
    hints=[
        N_("Print tutor.inspect_record(mystery[0]) and tutor.inspect_record(mystery[2]): note each feature's type and "
           "length."),
        N_("int64_list -> tf.int64, float_list -> tf.float32, bytes_list -> tf.string. A length that is the same "
           "in every record goes into FixedLenFeature's shape ([] for one value, [2] for two)."),
        N_("A length that changes from record to record needs tf.io.VarLenFeature(dtype)."),
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
    ds = _read.dataset(answer, _("a tf.data.Dataset of (images, labels) batches"))
    spec = ds.element_spec
    if isinstance(spec, dict):
        # Translators: {keys} lists the features' names: image, label.
        fail(_("your elements are dicts of features ({keys}): finish with the map that "
               "decodes them into (images, labels), as `slow` does.").format(keys=", ".join(sorted(map(str, spec)))))
    if not (isinstance(spec, (tuple, list)) and len(spec) == 2
            and all(isinstance(s, tf.TensorSpec) for s in spec)):
        fail(_("expected elements (images, labels), got element_spec={spec}.").format(spec=shorten(spec, 120)))
    images_spec, labels_spec = spec
    if images_spec.shape.rank == 3 and tuple(images_spec.shape) == (28, 28, 1):
        fail(_("your elements are single images [28, 28, 1], not batches: batch the serialized records (batch(64)) "
               "before the map that parses them."))
    if images_spec.shape.rank != 4 or tuple(images_spec.shape[1:]) != (28, 28, 1):
        fail(_("expected image batches of shape [batch, 28, 28, 1], got {shape}; decode with "
               "tutor.tfrecord.decode_digits(features, 'png') as `slow` does.").format(shape=images_spec.shape))
    stages = _stages.stages(ds, build_with=_("tf.data.TFRecordDataset, batch, map and tf.io.parse_example as in "
                                             "`slow`"))
    parse_at = [i for i, stage in enumerate(stages) if _parses(stage)]
    if not parse_at:
        fail(_("no stage of your pipeline parses Examples: read the files with tf.data.TFRecordDataset, batch the "
               "serialized records, then map tf.io.parse_example over each batch."))
    batch_before = [i for i, s in enumerate(stages) if s.kind == "batch" and i < parse_at[0]]
    if not batch_before:
        if any(s.kind == "batch" for s in stages):
            fail(_("your pipeline still parses one record at a time: the parsing map comes before batch. Batch the "
                   "serialized records first, then map tf.io.parse_example over each batch."))
        fail(_("your pipeline still parses one record at a time: it parses before any batch. Batch the serialized "
               "records first, then map tf.io.parse_example over each batch."))
    size = stages[batch_before[-1]].params.get("batch_size")
    if size is not None and size != BATCH_SIZE:
        fail(_("your pipeline batches {size} records at a time; keep batch({batch}) as `slow` does.").format(
            size=size, batch=BATCH_SIZE))
    decoders = set().union(*(s.fn_ops for s in stages))
    if "DecodeRaw" in decoders and not decoders & {"DecodePng", "DecodeImage"}:
        fail(_("your pipeline decodes the images with decode_raw, but these files hold PNG bytes: decode with "
               "tutor.tfrecord.decode_digits(features, 'png') as `slow` does."))
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail(_("your dataset never ends (it has repeat() with no count), so one pass cannot finish; the exercise "
               "wants the {digits} digits once. Remove the repeat().").format(digits=N_EXAMPLES))
    batches = _read.elements(ds, limit=N_EXAMPLES)  # batches; more data than `files` is counted, then named
    rows = [len(images) for images, _unused in batches]
    n = sum(rows)
    if n != N_EXAMPLES:
        fail(_("your pipeline yields {n} images; `slow` yields all {digits} digits of `files` "
               "(ex.example_files()). Read those files (the lesson's own png_paths hold more), and drop no "
               "records.").format(n=n, digits=N_EXAMPLES))
    if any(r != BATCH_SIZE for r in rows):
        # Translators: {sizes} is a Python list of batch sizes.
        fail(_("your batches hold {sizes} images; keep batch({batch}) as `slow` does.").format(
            sizes=rows, batch=BATCH_SIZE))
    got = Counter((int(label), np.asarray(image).astype(np.uint8).reshape(28, 28).tobytes())
                  for images, labels in batches for image, label in zip(images, np.ravel(labels)))
    if got != _expected():
        fail(_("your pipeline yields 256 images, but some images or labels differ from what `slow` yields: decode "
               "each image with tutor.tfrecord.decode_digits(features, 'png') and pair it with features['label']."))
    calls = len(rows)
    return _("tf.io.parse_example runs once per batch of {batch} records: {calls} op calls for {n} records "
             "instead of {n}.").format(batch=BATCH_SIZE, calls=calls, n=n)


q2 = Question(
    N_("Exercise 2 (vectorized parsing)"),
    _check_vectorized,
    hints=[
        N_("`slow` is files -> interleave -> map(parse_single_example) -> batch(64) -> map(decode)."),
        N_("Move the batch up: records.batch(64).map(lambda s: tf.io.parse_example(s, spec)), then the decode map."),
        N_("tf.io.parse_example takes a vector of serialized records and returns a dict of batched tensors, so the "
           "decode map after it stays the same."),
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
