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

from ..i18n import gettext as _

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
        if compression:
            # Translators: {compression} is GZIP, the name of a compression format.
            what = _("The TFRecord file '{name}' is truncated or corrupt (read with {compression} compression).")
        else:
            what = _("The TFRecord file '{name}' is truncated or corrupt (read with no compression).")
        sentences = [
            what.format(name=name, compression="GZIP"),
            _("TensorFlow said: {said}. A TFRecord file is a chain of length-prefixed, "
              "CRC-checked records, so a file that was cut short (a writer that was not closed, "
              "a copy that did not finish) or changed on disk fails its check. "
              "Regenerate it: delete the file and write it again, for example with "
              "tutor.tfrecord.write_digits(...).").format(said=said),
        ]
        if not compression and self.path.endswith(".gz"):
            sentences.append(_("The name ends in .gz: if it is compressed, read it with compression_type='GZIP'."))
        elif compression:
            sentences.append(_("If it was written without compression, read it with compression_type=None."))
        super().__init__(None, None, " ".join(sentences))


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
        raise ValueError(_("compression must be None, 'GZIP', 'ZLIB' or 'auto', got {compression!r}.")
                         .format(compression=compression))
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
            raise FileNotFoundError(_("No TFRecord file '{name}' at the given path; check the folder, or write the "
                                      "files first.").format(name=os.path.basename(path)))
        comp = compression_for(path, compression)
        n = 0
        try:
            for _unused in tf.data.TFRecordDataset(path, compression_type=comp or ""):
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
            raise FeatureSpecError(None, _("Record {index} is not a serialized tf.train.Example; if it is a "
                                           "SequenceExample, parse it with tf.io.parse_sequence_example.")
                                   .format(index=index)) from None
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
        raise TypeError(_("A feature spec is a dict from feature name to tf.io.FixedLenFeature(...) or "
                          "tf.io.VarLenFeature(...), got {type}.").format(type=type(spec).__name__))
    examples = _as_examples(records)
    problems = []
    for name, item in spec.items():
        if not isinstance(item, (tf.io.FixedLenFeature, tf.io.VarLenFeature, tf.io.RaggedFeature,
                                 tf.io.FixedLenSequenceFeature)):
            problems.append((name, _("'{name}': {type} is not a feature description; use "
                                     "tf.io.FixedLenFeature(shape, dtype) or tf.io.VarLenFeature(dtype).")
                             .format(name=name, type=type(item).__name__)))
            continue
        try:  # TensorFlow also takes a dtype as a string ('float32') or a NumPy type
            item = item._replace(dtype=tf.as_dtype(item.dtype))
        except TypeError:
            pass
        if item.dtype not in _KIND_OF_DTYPE:
            problems.append((name, _("'{name}': dtype {dtype} cannot be parsed; records only hold "
                                     "tf.int64, tf.float32 and tf.string (cast after parsing).")
                             .format(name=name, dtype=getattr(item.dtype, "name", item.dtype))))
            continue
        found = [(i, _kind_and_values(ex.features.feature[name])) for i, ex in enumerate(examples)
                 if name in ex.features.feature]
        required = isinstance(item, tf.io.FixedLenFeature) and item.default_value is None
        if len(found) < len(examples) and required:
            first = examples[0].features.feature
            # Translators: what record 0 holds when it has no feature at all (else a list such as "id (int64_list)").
            have = ", ".join(f"{k} ({first[k].WhichOneof('kind')})" for k in sorted(first)) or _("nothing")
            if not found:
                text = _("'{name}' is in your spec but not in the records; record 0 holds: {have}. "
                         "Fix the name, or give a default_value.")
            else:
                text = _("'{name}' is in your spec but not in record {index}; record 0 holds: {have}. "
                         "Fix the name, or give a default_value.")
            index = next((i for i, ex in enumerate(examples) if name not in ex.features.feature), 0)
            problems.append((name, text.format(name=name, index=index, have=have)))
            continue
        if not found:
            continue
        index, (kind, _values) = next(((i, kv) for i, kv in found if kv[0] != _KIND_OF_DTYPE[item.dtype]), found[0])
        if kind != _KIND_OF_DTYPE[item.dtype]:
            problems.append((name, _("'{name}' is stored as {kind} (record {index}), so read it with dtype "
                                     "{dtype}, not {wrong}.")
                             .format(name=name, kind=kind, index=index, dtype=_DTYPE_OF_KIND.get(kind, "?"),
                                     wrong=item.dtype.name)))
            continue
        if isinstance(item, tf.io.FixedLenFeature):
            shape = [int(d) for d in item.shape]
            expected = int(_prod(shape))
            lengths = [len(values) for _index, (_kind, values) in found]
            if len(set(lengths)) > 1:
                shown = ", ".join(str(n) for n in lengths[:6]) + (", ..." if len(lengths) > 6 else "")
                problems.append((name, _("'{name}' holds {shown} values in different records: its length varies, "
                                         "so use tf.io.VarLenFeature(tf.{dtype}) (or tf.io.RaggedFeature), "
                                         "not FixedLenFeature({shape}).")
                                 .format(name=name, shown=shown, dtype=item.dtype.name, shape=shape)))
            elif lengths[0] != expected:
                fix = "[]" if lengths[0] == 1 else f"[{lengths[0]}]"
                problems.append((name, _("'{name}' holds {n} value(s) per record but your shape {shape} "
                                         "expects {expected}; use tf.io.FixedLenFeature({fix}, tf.{dtype}).")
                                 .format(name=name, n=lengths[0], shape=shape, expected=expected, fix=fix,
                                         dtype=item.dtype.name)))
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
            if len(problems) > 1:
                # Translators: {problem} is a sentence about one feature; {more} counts the other problems.
                message = _("The feature spec does not fit the records: {problem} ({more} more problem(s) after "
                            "this one)")
            else:
                message = _("The feature spec does not fit the records: {problem}")
            raise FeatureSpecError(name, message.format(problem=text, more=len(problems) - 1)) from None
        raise FeatureSpecError(None, _("parse_example failed: {why}").format(why=_tf_message(exc))) from None
