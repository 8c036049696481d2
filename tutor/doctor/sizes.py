"""How many elements reach a stage: from TensorFlow's cardinality, or by counting the records of local files.

TensorFlow does not know how many lines a ``TextLineDataset`` or how many
records a ``TFRecordDataset`` holds (its cardinality is unknown, -2). When the
file names are constants of the pipeline and the files are on this machine and
small (at most :data:`COUNT_BYTES_LIMIT` bytes in all, uncompressed), the doctor
counts them: lines by their line breaks, records by their length headers. It
never runs the pipeline.
"""
from __future__ import annotations

import os
import struct

import numpy as np

from .labels import READER_OPS, reader
from .stage import Stage

#: Files are counted only up to this many bytes in all.
COUNT_BYTES_LIMIT = 64 * 2**20
#: Stages that pass every element through, one out for one in.
_ONE_FOR_ONE = ("map", "prefetch", "options", "cache", "ignore_errors")


def _names(source: Stage) -> list[str] | None:
    tensors = getattr(source.dataset, "_tensors", None) if source.dataset is not None else None
    if not tensors or len(tensors) != 1 or tensors[0].dtype.name != "string":
        return None
    try:
        names = np.atleast_1d(tensors[0].numpy()).ravel()
    except Exception:
        return None
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names]


def _count_lines(path: str) -> int:
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _count_records(path: str) -> int | None:
    n, size = 0, os.path.getsize(path)
    with open(path, "rb") as f:
        at = 0
        while at < size:
            head = f.read(12)
            if len(head) < 12:
                return None
            length = struct.unpack("<Q", head[:8])[0]
            at += 12 + length + 4
            f.seek(at)
            n += 1
    return n if at == size else None


def file_records(stage: Stage) -> int | None:
    """The lines or records of the local files ``stage`` reads, or None when they cannot be counted here."""
    name = reader(stage) or READER_OPS.get(stage.op)
    if name not in ("TextLineDataset", "TFRecordDataset") or stage.params.get("compression_type") not in (None, ""):
        return None
    source = stage.inputs[0] if stage.inputs else None
    while source is not None and source.kind in ("prefetch", "options", "shuffle", "repeat") and source.inputs:
        source = source.inputs[0]  # the file names, in any order, once per pass
    names = _names(source) if source is not None else None
    if not names or not all(os.path.isfile(p) for p in names):
        return None
    if sum(os.path.getsize(p) for p in names) > COUNT_BYTES_LIMIT:
        return None
    try:
        counts = [_count_lines(p) if name == "TextLineDataset" else _count_records(p) for p in names]
    except OSError:
        return None
    return None if any(c is None for c in counts) else sum(counts)


def _size(up: Stage, depth: int = 0) -> tuple[int | None, str]:
    """The elements one pass over ``up`` gives (None when unknown), and where that number comes from."""
    while up is not None:
        if up.cardinality is not None and up.cardinality >= 0:
            return up.cardinality, "cardinality"
        if up.kind in ("flat_map", "interleave") and reader(up):
            counted = file_records(up)
            return (counted, "files") if counted is not None else (None, "")
        if up.kind == "zip" and depth < 8:  # as long as its shortest finite input
            sizes = [_size(i, depth + 1) for i in up.inputs if i.cardinality != -1]
            if not sizes or any(n is None for n, _ in sizes):
                return None, ""
            return min(sizes)
        if up.kind != "repeat" and up.kind not in _ONE_FOR_ONE or not up.inputs:
            return None, ""
        up = up.inputs[0]
    return None, ""


def elements_per_pass(s: Stage) -> tuple[int | None, str]:
    """The elements per pass that reach ``s`` and where that number comes from.

    Returns ``(size, source)``: ``source`` is ``"cardinality"`` (TensorFlow
    knows it), ``"files"`` (the doctor counted the records of the files), or
    ``""`` when the size is unknown (``size`` is then None). A ``repeat``
    before ``s`` is looked through: the size is that of one pass; a ``zip``
    gives as many as its shortest finite input.
    """
    return _size(s.inputs[0] if s.inputs else None)
