"""Look inside one TFRecord record: feature names, types, lengths and first values.

>>> ex = tf.train.Example(features=tf.train.Features(feature={
...     "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}))
>>> print(inspect_record(ex.SerializeToString()))
Example with 1 feature
feature  type        length  first values
label    int64_list       1  [3]
"""
from __future__ import annotations

import os
from typing import Any

import tensorflow as tf

from .. import markup
from ..reading import DEFAULT_TIMEOUT, read
from .._validate import require_positive_int
from ..i18n import N_, ljust, ngettext, width
from ..i18n import gettext as _
from .errors import CorruptRecordError, compression_for

__all__ = ["RecordTable", "inspect_record", "read_record"]

#: The table's column titles ("section" only for a SequenceExample).
_SECTION = N_("section")
_HEAD = (N_("feature"), N_("type"), N_("length"), N_("first values"))


def _preview_bytes(value: bytes, max_bytes: int) -> str:
    head = repr(value[:max_bytes])
    if len(value) > max_bytes:
        # Translators: the first bytes of a value (Python's repr), cut short, then its whole size.
        return _("{head}... ({size:,} bytes)").format(head=head, size=len(value))
    return _("{head} ({size:,} bytes)").format(head=head, size=len(value))


def _preview(kind: str | None, values: list, max_values: int, max_bytes: int) -> str:
    if kind is None:
        # Translators: a feature with no values at all.
        return _("(empty)")
    if kind == "bytes_list":
        shown = [_preview_bytes(v, max_bytes) for v in values[:max_values]]
    elif kind == "float_list":
        shown = [f"{v:.4g}" for v in values[:max_values]]
    else:
        shown = [str(v) for v in values[:max_values]]
    more = ", ..." if len(values) > max_values else ""
    return "[" + ", ".join(shown) + more + "]"


class RecordTable:
    """A readable table of one record's features (plain text and HTML).

    ``rows`` holds dicts with ``section`` ("features", "context" or
    "feature_lists"), ``name``, ``type``, ``length`` and ``preview``.
    """

    def __init__(self, kind: str, rows: list[dict]):
        self.kind = kind
        self.rows = rows

    @property
    def names(self) -> list[str]:
        return [r["name"] for r in self.rows]

    def _head(self) -> list[str]:
        first = [_(_SECTION)] if self.kind == "SequenceExample" else []
        return first + [_(title) for title in _HEAD]

    def _cells(self) -> list[list[str]]:
        seq = self.kind == "SequenceExample"
        return [([r["section"]] if seq else []) + [r["name"], r["type"], str(r["length"]), r["preview"]]
                for r in self.rows]

    def title(self) -> str:
        n = len(self.rows)
        # Translators: {kind} is Example or SequenceExample, a protocol buffer's name.
        return ngettext("{kind} with {n} feature", "{kind} with {n} features", n).format(kind=self.kind, n=n)

    def __str__(self) -> str:
        table = [self._head()] + self._cells()
        widths = [max(width(r[i]) for r in table) for i in range(len(table[0]))]
        numeric = len(table[0]) - 2
        lines = ["  ".join(" " * (w - width(c)) + c if i == numeric else ljust(c, w)
                           for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                 for r in table]
        return "\n".join([self.title()] + lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return markup.table(self._cells(), header=self._head(), title=self.title())


def read_record(path: str | os.PathLike, index: int = 0, compression: str | None = "auto") -> bytes:
    """The serialized bytes of record ``index`` (from 0) in one TFRecord file.

    A truncated or corrupt file raises :class:`~tutor.tfrecord.errors.CorruptRecordError`.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(_("No TFRecord file '{name}'; write the file first.").format(name=os.path.basename(path)))
    comp = compression_for(path, compression)
    try:
        for value in tf.data.TFRecordDataset(path, compression_type=comp or "").skip(index).take(1):
            return value.numpy()
    except tf.errors.DataLossError as exc:
        raise CorruptRecordError(path, exc, comp) from None
    raise IndexError(_("'{name}' holds fewer than {n} records.").format(name=os.path.basename(path), n=index + 1))


def _as_message(record: Any) -> tf.train.Example | tf.train.SequenceExample:
    if isinstance(record, (tf.train.Example, tf.train.SequenceExample)):
        return record
    data = bytes(record)
    seq = tf.train.SequenceExample.FromString(data)
    if len(seq.feature_lists.feature_list):
        return seq
    return tf.train.Example.FromString(data)


def inspect_record(source: Any, index: int = 0, *, compression: str | None = "auto",
                   max_values: int = 5, max_bytes: int = 8, timeout: float = DEFAULT_TIMEOUT) -> RecordTable:
    """A table of one record's features: name, type, length and first values.

    Parameters
    ----------
    source : serialized bytes of an Example or SequenceExample, the message
        itself, a TFRecord file path, or a dataset of serialized records
        (``tf.data.TFRecordDataset``).
    index : which record of a file or dataset (from 0).
    compression : for a path: ``"auto"`` (GZIP when the name ends in ``.gz``),
        ``None`` or ``"GZIP"``.
    max_values, max_bytes : how much of each value list, and of each bytes
        value, to show.
    timeout : for a dataset: seconds to wait for record ``index`` (a ``filter``
        that never matches stops here with :class:`tutor.reading.ReadTimeout`).

    Examples
    --------
    >>> table = inspect_record(tf.train.Example().SerializeToString())
    >>> table.rows
    []
    """
    index = require_positive_int(index, "index", "inspect_record", minimum=0)
    if isinstance(source, (str, os.PathLike)):
        source = read_record(source, index, compression)
    elif isinstance(source, tf.data.Dataset):
        if source.element_spec != tf.TensorSpec([], tf.string):
            raise TypeError(_("inspect_record expects a dataset of serialized records, such as "
                              "tf.data.TFRecordDataset(paths); got element_spec={spec}.").format(spec=source.element_spec))
        got = read(source.skip(index), max_elements=1, timeout=timeout, where="inspect_record").elements
        if not got:
            raise IndexError(_("the dataset holds fewer than {n} records.").format(n=index + 1))
        source = got[0]
    elif tf.is_tensor(source):
        source = source.numpy()
    if not isinstance(source, (bytes, bytearray, tf.train.Example, tf.train.SequenceExample)):
        raise TypeError(_("inspect_record expects serialized bytes, a tf.train.Example, a TFRecord path or "
                          "a TFRecordDataset, got {type}.").format(type=type(source).__name__))
    try:
        message = _as_message(source)
    except Exception:  # noqa: BLE001 (protobuf's DecodeError differs across versions)
        raise ValueError(_("These bytes are not a serialized tf.train.Example or SequenceExample; "
                           "did you pass a whole file's contents instead of one record?")) from None

    def row(section, name, feature):
        kind = feature.WhichOneof("kind")
        values = list(getattr(feature, kind).value) if kind else []
        # Translators: the type column of a feature that holds no value list.
        return {"section": section, "name": name, "type": kind or _("empty"), "length": len(values),
                "preview": _preview(kind, values, max_values, max_bytes)}

    if isinstance(message, tf.train.Example):
        feats = message.features.feature
        return RecordTable("Example", [row("features", k, feats[k]) for k in sorted(feats)])
    ctx = message.context.feature
    rows = [row("context", k, ctx[k]) for k in sorted(ctx)]
    lists = message.feature_lists.feature_list
    for name in sorted(lists):
        steps = lists[name].feature
        kinds = {f.WhichOneof("kind") for f in steps}
        # Translators: the type of a feature list whose steps hold different kinds of values.
        kind = kinds.pop() if len(kinds) == 1 else _("mixed")
        firsts = [row("", "", f)["preview"] for f in list(steps)[:max_values]]
        more = ", ..." if len(steps) > max_values else ""
        # Translators: {kind} is int64_list, float_list, bytes_list (names in the record format) or "mixed".
        rows.append({"section": "feature_lists", "name": name, "type": _("{kind} per step").format(kind=kind),
                     "length": len(steps), "preview": "[" + ", ".join(firsts) + more + "]"})
    return RecordTable("SequenceExample", rows)
