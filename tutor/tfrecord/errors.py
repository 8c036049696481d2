"""Clear errors for TFRecord files: a corrupt file, and a feature spec that does not fit.

TensorFlow's own messages name an internal op (``IteratorGetNext``,
``ParseExampleV2``) and a byte offset. The errors here say which file or which
feature is wrong and what to do about it, and they stay catchable as the
TensorFlow errors they wrap:

>>> issubclass(CorruptRecordError, tf.errors.DataLossError)
True
>>> issubclass(FeatureSpecError, tf.errors.InvalidArgumentError)
True
"""
from __future__ import annotations

import os
import re
from typing import Any, Iterable, Mapping

import tensorflow as tf

__all__ = [
    "CorruptRecordError",
    "FeatureSpecError",
    "compression_for",
    "count_records",
    "diagnose_spec",
    "parse_example",
]

_KIND_OF_DTYPE = {tf.int64: "int64_list", tf.float32: "float_list", tf.string: "bytes_list"}
_DTYPE_OF_KIND = {"int64_list": "tf.int64", "float_list": "tf.float32", "bytes_list": "tf.string"}


class CorruptRecordError(tf.errors.DataLossError):
    """A TFRecord file is truncated or corrupt; the message names the file and the fix."""

    def __init__(self, path: str, original: Exception | str, compression: str | None = None):
        self.path = str(path)
        self.original = original
        said = _tf_message(original)
        name = os.path.basename(self.path) or self.path
        gz = "GZIP" if compression else "no"
        message = (
            f"The TFRecord file '{name}' is truncated or corrupt (read with {gz} compression). "
            f"TensorFlow said: {said}. A TFRecord file is a chain of length-prefixed, "
            "CRC-checked records, so a file that was cut short (a writer that was not closed, "
            "a copy that did not finish) or changed on disk fails its check. "
            "Regenerate it: delete the file and write it again, for example with "
            "tutor.tfrecord.write_digits(...)."
        )
        if not compression and self.path.endswith(".gz"):
            message += " The name ends in .gz: if it is compressed, read it with compression_type='GZIP'."
        elif compression:
            message += " If it was written without compression, read it with compression_type=None."
        super().__init__(None, None, message)


class FeatureSpecError(tf.errors.InvalidArgumentError):
    """A feature spec does not match the records; the message names the feature."""

    def __init__(self, feature: str | None, message: str):
        self.feature = feature
        super().__init__(None, None, message)


def _tf_message(error: Exception | str) -> str:
    """TensorFlow's message without the ``{{function_node ...}}`` and ``[Op:...]`` noise."""
    text = getattr(error, "message", None) or str(error)
    text = re.sub(r"\{\{function_node [^}]*\}\}", "", text)
    text = re.sub(r"\[Op:[^\]]*\]( name: \S*)?", "", text)
    text = text.replace("' failed with", ", failed with")
    return " ".join(text.split()).strip(" .'") or type(error).__name__


def compression_for(path: str | os.PathLike, compression: str | None = "auto") -> str | None:
    """``"GZIP"`` for names ending in ``.gz`` when ``compression="auto"``, else ``compression``.

    >>> compression_for("digits-00000-of-00004.tfrecord.gz"), compression_for("a.tfrecord")
    ('GZIP', None)
    """
    if compression == "auto":
        return "GZIP" if str(path).endswith(".gz") else None
    if compression not in (None, "", "GZIP", "ZLIB"):
        raise ValueError(f"compression must be None, 'GZIP', 'ZLIB' or 'auto', got {compression!r}.")
    return compression or None


def count_records(paths: str | os.PathLike | Iterable, compression: str | None = "auto") -> dict[str, int]:
    """Read every record of every file; return ``{file name: record count}``.

    A truncated or corrupt file raises :class:`CorruptRecordError` naming it,
    instead of TensorFlow's bare ``DataLossError``.

    >>> count_records([])
    {}
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    counts = {}
    for path in paths:
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"No TFRecord file '{os.path.basename(path)}' at the given path; "
                                    "check the folder, or write the files first.")
        comp = compression_for(path, compression)
        n = 0
        try:
            for _ in tf.data.TFRecordDataset(path, compression_type=comp or ""):
                n += 1
        except tf.errors.DataLossError as exc:
            raise CorruptRecordError(path, exc, comp) from None
        counts[os.path.basename(path)] = n
    return counts


# --------------------------------------------------------------- feature specs
def _kind_and_values(feature: tf.train.Feature) -> tuple[str | None, list]:
    kind = feature.WhichOneof("kind")
    return kind, (list(getattr(feature, kind).value) if kind else [])


def _as_examples(records) -> list[tf.train.Example]:
    if isinstance(records, (bytes, bytearray, tf.train.Example)):
        records = [records]
    out = []
    for index, r in enumerate(records):
        if isinstance(r, tf.train.Example):
            out.append(r)
            continue
        try:
            out.append(tf.train.Example.FromString(bytes(r)))
        except Exception:  # noqa: BLE001 (protobuf's DecodeError differs across versions)
            raise FeatureSpecError(None, f"Record {index} is not a serialized tf.train.Example; if it is a "
                                         "SequenceExample, parse it with tf.io.parse_sequence_example.") from None
    return out


def diagnose_spec(records: Any, spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What in ``spec`` does not fit the record(s), as ``[(feature name, explanation), ...]``.

    ``records``: one serialized Example (or the message), or a list of them.
    An empty list means every feature of the spec can be parsed from them.

    >>> ex = tf.train.Example(features=tf.train.Features(feature={
    ...     "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}))
    >>> diagnose_spec(ex, {"label": tf.io.FixedLenFeature([], tf.int64)})
    []
    >>> diagnose_spec(ex, {"label": tf.io.FixedLenFeature([], tf.float32)})[0][0]
    'label'
    """
    if not isinstance(spec, Mapping):
        raise TypeError(f"A feature spec is a dict from feature name to tf.io.FixedLenFeature(...) or "
                        f"tf.io.VarLenFeature(...), got {type(spec).__name__}.")
    examples = _as_examples(records)
    problems = []
    for name, item in spec.items():
        if not isinstance(item, (tf.io.FixedLenFeature, tf.io.VarLenFeature, tf.io.RaggedFeature,
                                 tf.io.FixedLenSequenceFeature)):
            problems.append((name, f"'{name}': {type(item).__name__} is not a feature description; use "
                                   "tf.io.FixedLenFeature(shape, dtype) or tf.io.VarLenFeature(dtype)."))
            continue
        if item.dtype not in _KIND_OF_DTYPE:
            problems.append((name, f"'{name}': dtype {item.dtype.name} cannot be parsed; records only hold "
                                   "tf.int64, tf.float32 and tf.string (cast after parsing)."))
            continue
        found = [(i, _kind_and_values(ex.features.feature[name])) for i, ex in enumerate(examples)
                 if name in ex.features.feature]
        required = isinstance(item, tf.io.FixedLenFeature) and item.default_value is None
        if len(found) < len(examples) and required:
            first = examples[0].features.feature
            have = ", ".join(f"{k} ({first[k].WhichOneof('kind')})" for k in sorted(first)) or "nothing"
            where = ("the records" if not found else
                     f"record {next(i for i, ex in enumerate(examples) if name not in ex.features.feature)}")
            problems.append((name, f"'{name}' is in your spec but not in {where}; record 0 holds: {have}. "
                                   "Fix the name, or give a default_value."))
            continue
        if not found:
            continue
        index, (kind, _) = next(((i, kv) for i, kv in found if kv[0] != _KIND_OF_DTYPE[item.dtype]), found[0])
        if kind != _KIND_OF_DTYPE[item.dtype]:
            problems.append((name, f"'{name}' is stored as {kind} (record {index}), so read it with dtype "
                                   f"{_DTYPE_OF_KIND.get(kind, '?')}, not {item.dtype.name}."))
            continue
        if isinstance(item, tf.io.FixedLenFeature):
            shape = [int(d) for d in item.shape]
            expected = int(_prod(shape))
            lengths = [len(values) for _, (_, values) in found]
            if len(set(lengths)) > 1:
                shown = ", ".join(str(n) for n in lengths[:6]) + (", ..." if len(lengths) > 6 else "")
                problems.append((name, f"'{name}' holds {shown} values in different records: its length varies, so "
                                       f"use tf.io.VarLenFeature(tf.{item.dtype.name}) (or tf.io.RaggedFeature), "
                                       f"not FixedLenFeature({shape})."))
            elif lengths[0] != expected:
                fix = "[]" if lengths[0] == 1 else f"[{lengths[0]}]"
                problems.append((name, f"'{name}' holds {lengths[0]} value(s) per record but your shape {shape} "
                                       f"expects {expected}; use tf.io.FixedLenFeature({fix}, tf.{item.dtype.name})."))
    return problems


def _prod(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def parse_example(serialized: Any, spec: Mapping[str, Any], *, max_records: int = 1000) -> dict:
    """``tf.io.parse_example`` that names the feature when the spec is wrong.

    On failure it looks at up to ``max_records`` of the records and raises
    :class:`FeatureSpecError` saying which feature is missing or has the wrong
    type or shape.

    >>> ex = tf.train.Example(features=tf.train.Features(feature={
    ...     "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))}))
    >>> parse_example([ex.SerializeToString()], {"id": tf.io.FixedLenFeature([], tf.int64)})["id"].numpy()
    array([7])
    """
    diagnose_spec(tf.train.Example(), spec)  # raises TypeError on a spec that is not a dict
    try:
        return tf.io.parse_example(serialized, dict(spec))
    except (tf.errors.InvalidArgumentError, ValueError, TypeError) as exc:
        records = tf.reshape(tf.convert_to_tensor(serialized, tf.string), [-1]).numpy()[:max_records]
        problems = diagnose_spec(list(records), spec)
        if problems:
            name, text = problems[0]
            more = f" ({len(problems) - 1} more problem(s) after this one)" if len(problems) > 1 else ""
            raise FeatureSpecError(name, f"The feature spec does not fit the records: {text}{more}") from None
        raise FeatureSpecError(None, f"parse_example failed: {_tf_message(exc)}") from None
