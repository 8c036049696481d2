"""Writing and reading TFRecord files: digits as tf.train.Example, token ids as SequenceExample.

>>> ex = make_example({"id": 7, "score": 0.5, "name": b"seven"})
>>> ex.features.feature["id"].int64_list.value[:]
[7]

Also here: :func:`write_digits` (sharded, optionally GZIP), :func:`read_digits`
(interleave over shards, batch, then vectorized ``parse_example``),
:func:`size_table` and :func:`round_trip`. Inspecting a record is in
:mod:`tutor.tfrecord.inspect`; clear errors live in :mod:`tutor.tfrecord.errors`.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

import numpy as np
import tensorflow as tf

from .. import markup
from .._validate import require_positive_int
from ..i18n import N_, ljust, width
from ..i18n import gettext as _
from ..reading import read
from .errors import compression_for, count_records

ENCODINGS = ("png", "raw")


# ------------------------------------------------------------------ building
def to_feature(value: Any) -> tf.train.Feature:
    """Wrap a scalar or 1-D value in the matching ``tf.train.Feature``.

    bytes/str become a ``BytesList``, integers and bools an ``Int64List``,
    floats a ``FloatList``.

    >>> to_feature([1, 2]).WhichOneof("kind"), to_feature(0.5).WhichOneof("kind")
    ('int64_list', 'float_list')
    """
    if isinstance(value, (bytes, str)):
        values = [value]
    else:
        values = np.asarray(value)
        if values.ndim > 1:
            raise ValueError(_("A feature holds a flat list; got an array of shape {shape}. Flatten it (.ravel()) "
                               "and store the shape in its own feature, or store .tobytes().").format(shape=values.shape))
        values = values.ravel().tolist() if values.dtype != object else list(values.ravel())
    if all(isinstance(v, (bytes, str)) for v in values) and values:
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[v.encode() if isinstance(v, str) else v
                                                                     for v in values]))
    if all(isinstance(v, (bool, int, np.integer)) for v in values):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(v) for v in values]))
    if all(isinstance(v, (float, int, np.floating, np.integer)) for v in values):
        return tf.train.Feature(float_list=tf.train.FloatList(value=[float(v) for v in values]))
    raise TypeError(_("Cannot store {values!r} in a tf.train.Feature: use bytes, integers or floats.")
                    .format(values=values))


def make_example(features: Mapping[str, Any]) -> tf.train.Example:
    """A ``tf.train.Example`` from ``{name: value}`` (see :func:`to_feature`).

    >>> make_example({"label": 3}).features.feature["label"].int64_list.value[:]
    [3]
    """
    return tf.train.Example(features=tf.train.Features(feature={k: to_feature(v) for k, v in features.items()}))


def make_sequence_example(context: Mapping[str, Any], feature_lists: Mapping[str, Sequence]) -> tf.train.SequenceExample:
    """A ``tf.train.SequenceExample``: fixed ``context`` plus variable-length feature lists.

    Each feature list is a sequence of steps; each step becomes one Feature.

    >>> seq = make_sequence_example({"label": 1}, {"tokens": [5, 9, 2]})
    >>> len(seq.feature_lists.feature_list["tokens"].feature)
    3
    """
    seq = tf.train.SequenceExample(context=tf.train.Features(feature={k: to_feature(v) for k, v in context.items()}))
    for name, steps in feature_lists.items():
        target = seq.feature_lists.feature_list[name]
        for step in steps:
            target.feature.append(to_feature(step))
    return seq


# ------------------------------------------------------------------- digits
def encode_image(image: np.ndarray, encoding: str = "png") -> bytes:
    """A uint8 image [H, W] as PNG bytes or raw bytes (``image.tobytes()``).

    >>> len(encode_image(np.zeros((28, 28), np.uint8), "raw"))
    784
    """
    if encoding not in ENCODINGS:
        raise ValueError(_("encoding must be one of {choices}, got {encoding!r}.").format(choices=ENCODINGS,
                                                                                          encoding=encoding))
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim != 2:
        raise ValueError(_("expected a uint8 image of shape [height, width], got {dtype} {shape}.")
                         .format(dtype=image.dtype, shape=image.shape))
    if encoding == "raw":
        return image.tobytes()
    return tf.io.encode_png(image[:, :, None]).numpy()


def digit_example(image: np.ndarray, label: int, index: int, encoding: str = "png") -> tf.train.Example:
    """One digit as an Example with features ``id``, ``label``, ``height``, ``width``, ``image``."""
    return make_example({"id": int(index), "label": int(label), "height": image.shape[0],
                         "width": image.shape[1], "image": encode_image(image, encoding)})


def digit_spec(encoding: str = "png") -> dict:
    """The feature spec that parses :func:`digit_example` records (same for both encodings)."""
    return {"id": tf.io.FixedLenFeature([], tf.int64), "label": tf.io.FixedLenFeature([], tf.int64),
            "height": tf.io.FixedLenFeature([], tf.int64), "width": tf.io.FixedLenFeature([], tf.int64),
            "image": tf.io.FixedLenFeature([], tf.string)}


def shard_names(name: str, num_shards: int, compression: str | None = None) -> list[str]:
    """File names ``name-00000-of-00004.tfrecord`` (+ ``.gz`` with GZIP).

    >>> shard_names("digits", 2)
    ['digits-00000-of-00002.tfrecord', 'digits-00001-of-00002.tfrecord']
    """
    suffix = ".tfrecord.gz" if compression == "GZIP" else ".tfrecord"
    return [f"{name}-{k:05d}-of-{num_shards:05d}{suffix}" for k in range(num_shards)]


def write_digits(directory: str | os.PathLike, images: np.ndarray, labels: np.ndarray, *,
                 num_shards: int = 4, encoding: str = "png", compression: str | None = None,
                 name: str = "digits") -> list[str]:
    """Write digits as serialized Examples into ``num_shards`` TFRecord files.

    Image ``i`` goes to shard ``i % num_shards`` and keeps ``id = i``.
    Returns the paths written, sorted.

    >>> import tempfile
    >>> paths = write_digits(tempfile.mkdtemp(), np.zeros((6, 28, 28), np.uint8), np.arange(6), num_shards=2)
    >>> [os.path.basename(p) for p in paths]
    ['digits-00000-of-00002.tfrecord', 'digits-00001-of-00002.tfrecord']
    """
    num_shards = require_positive_int(num_shards, "num_shards", "write_digits")
    compression = compression_for("", compression)
    images, labels = np.asarray(images), np.asarray(labels)
    if images.ndim != 3 or len(images) != len(labels):
        raise ValueError(_("expected images [n, height, width] and n labels, got {images} and {labels}.")
                         .format(images=images.shape, labels=labels.shape))
    os.makedirs(directory, exist_ok=True)
    paths = [os.path.join(directory, f) for f in shard_names(name, num_shards, compression)]
    options = tf.io.TFRecordOptions(compression_type=compression or "")
    writers = [tf.io.TFRecordWriter(p, options) for p in paths]
    try:
        for i, (image, label) in enumerate(zip(images, labels)):
            writers[i % num_shards].write(digit_example(image, label, i, encoding).SerializeToString())
    finally:
        for w in writers:
            w.close()
    return sorted(paths)


def decode_digits(features: Mapping[str, tf.Tensor], encoding: str = "png") -> tf.Tensor:
    """Decode the parsed ``image`` feature of a *batch* into uint8 [batch, 28, 28, 1]."""
    if encoding == "raw":
        pixels = tf.io.decode_raw(features["image"], tf.uint8)
        return tf.reshape(pixels, [-1, 28, 28, 1])
    if encoding != "png":
        raise ValueError(_("encoding must be one of {choices}, got {encoding!r}.").format(choices=ENCODINGS,
                                                                                          encoding=encoding))
    images = tf.map_fn(lambda b: tf.io.decode_png(b, channels=1), features["image"],
                       fn_output_signature=tf.TensorSpec([None, None, 1], tf.uint8))
    return tf.reshape(images, [-1, 28, 28, 1])


def read_digits(paths: Sequence[str], *, encoding: str = "png", compression: str | None = "auto",
                batch_size: int = 64, vectorized: bool = True, cycle_length: int = 2,
                with_ids: bool = False, verify: bool = False) -> tf.data.Dataset:
    """Read :func:`write_digits` shards back as batches of ``(images, labels)``.

    ``vectorized=True``: interleave over the shards, ``batch``, then one
    ``tf.io.parse_example`` per batch. ``vectorized=False``: one
    ``tf.io.parse_single_example`` per record in ``map``, then ``batch``.
    ``with_ids=True`` yields ``(images, labels, ids)``. ``verify=True`` reads
    every file once first, so that a truncated or corrupt shard raises
    :class:`CorruptRecordError` naming it before any training starts.
    """
    batch_size = require_positive_int(batch_size, "batch_size", "read_digits")
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError(_("read_digits needs at least one file; write them first with write_digits(...)."))
    comp = compression_for(paths[0], compression) or ""
    if verify:
        count_records(paths, comp or None)
    spec = digit_spec(encoding)

    def finish(f):
        images = decode_digits(f, encoding)
        return (images, f["label"], f["id"]) if with_ids else (images, f["label"])

    files = tf.data.Dataset.from_tensor_slices(paths)
    records = files.interleave(lambda p: tf.data.TFRecordDataset(p, compression_type=comp),
                               cycle_length=min(cycle_length, len(paths)))
    if vectorized:
        return records.batch(batch_size).map(lambda s: finish(tf.io.parse_example(s, spec)))
    one = records.map(lambda s: tf.io.parse_single_example(s, spec))
    return one.batch(batch_size).map(finish)


# ---------------------------------------------------------- sizes, round trip
def _human(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return _("{n:,.0f} bytes").format(n=n) if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return str(n)


class SizeTable:
    """Bytes on disk per storage format; ``rows`` holds ``(format, files, bytes)``."""

    def __init__(self, rows: Sequence[tuple[str, int, int]], n_images: int):
        self.rows = [(str(f), int(k), int(b)) for f, k, b in rows]
        self.n_images = int(n_images)

    @property
    def sizes(self) -> dict[str, int]:
        return {f: b for f, _files, b in self.rows}

    def _lines(self) -> list[list[str]]:
        base = self.rows[0][2]
        return [[_(f), str(k) if k else "-", _human(b), f"{b / self.n_images:,.0f}", f"{b / base:.2f}x"]
                for f, k, b in self.rows]

    # Translators: the columns of a table of file sizes; "vs NumPy" is the size as a multiple of the NumPy arrays'.
    _HEAD = [N_("format"), N_("files"), N_("size"), N_("bytes per image"), N_("vs NumPy")]

    def _head(self) -> list[str]:
        return [_(title) for title in self._HEAD]

    def __str__(self) -> str:
        lines = [self._head()] + self._lines()
        widths = [max(width(r[i]) for r in lines) for i in range(len(self._HEAD))]
        return "\n".join("  ".join(ljust(c, w) if i == 0 else " " * (w - width(c)) + c
                                   for i, (c, w) in enumerate(zip(r, widths)))
                         for r in lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return markup.table(self._lines(), header=self._head())


#: The rows of :func:`size_table`, in English (``SizeTable.sizes`` is keyed by them); translated when shown.
_IN_MEMORY = N_("NumPy arrays in memory")
_FORMATS = {("raw", None): N_("TFRecord, raw bytes"), ("raw", "GZIP"): N_("TFRecord, raw bytes, GZIP"),
            ("png", None): N_("TFRecord, png bytes"), ("png", "GZIP"): N_("TFRecord, png bytes, GZIP")}


def size_table(images: np.ndarray, labels: np.ndarray, directory: str | os.PathLike, *,
               num_shards: int = 4) -> SizeTable:
    """Write the digits four ways (raw / PNG, each plain and GZIP) and measure the files.

    The first row is the NumPy arrays in memory, for comparison.
    """
    images, labels = np.asarray(images), np.asarray(labels)
    rows = [(_IN_MEMORY, 0, images.nbytes + labels.nbytes)]
    for encoding in ("raw", "png"):
        for comp in (None, "GZIP"):
            paths = write_digits(os.path.join(directory, f"{encoding}-{comp or 'plain'}"), images, labels,
                                 num_shards=num_shards, encoding=encoding, compression=comp)
            rows.append((_FORMATS[encoding, comp], len(paths), sum(os.path.getsize(p) for p in paths)))
    return SizeTable(rows, len(images))


class RoundTrip:
    """The result of :func:`round_trip`: ``identical``, ``n_compared`` and ``mismatched_ids``."""

    def __init__(self, n_compared: int, mismatched_ids: Sequence[int], missing_ids: Sequence[int]):
        self.n_compared = int(n_compared)
        self.mismatched_ids = [int(i) for i in mismatched_ids]
        self.missing_ids = [int(i) for i in missing_ids]

    @property
    def identical(self) -> bool:
        return not self.mismatched_ids and not self.missing_ids

    def __str__(self) -> str:
        if self.identical:
            return _("Round trip OK: all {n:,} images and labels read back bit for bit identical.").format(
                n=self.n_compared)
        return _("Round trip FAILED: {bad} image(s) differ (first ids {first_bad}), {missing} missing "
                 "(first ids {first_missing}).").format(bad=len(self.mismatched_ids), first_bad=self.mismatched_ids[:5],
                                                        missing=len(self.missing_ids),
                                                        first_missing=self.missing_ids[:5])

    __repr__ = __str__


def round_trip(images: np.ndarray, labels: np.ndarray, dataset: tf.data.Dataset, *,
               max_batches: int = 10_000, timeout: float = 300.0) -> RoundTrip:
    """Compare what was written with what ``dataset`` reads back, by id, bit for bit.

    ``dataset`` yields ``(images, labels, ids)`` batches, as
    ``read_digits(..., with_ids=True)`` does. Reading stops after
    ``max_batches`` batches and ``timeout`` seconds (:func:`tutor.reading.read`).
    """
    images, labels = np.asarray(images), np.asarray(labels)
    batches = read(dataset, max_elements=max_batches, timeout=timeout, where="round_trip").elements
    seen, bad = set(), []
    for batch_images, batch_labels, ids in batches:
        for image, label, i in zip(batch_images, batch_labels, ids):
            seen.add(int(i))
            same = image.reshape(images[i].shape).tobytes() == images[i].tobytes() and int(label) == int(labels[i])
            if not same:
                bad.append(int(i))
    missing = sorted(set(range(len(images))) - seen)
    return RoundTrip(len(seen), bad, missing)
