"""Stage labels that read like the Python call: ``shuffle(buffer_size=10)``."""
from __future__ import annotations

from typing import Any

import numpy as np

AUTOTUNE = -1


def _num(value: Any) -> str:
    if value is None:
        return "?"
    if isinstance(value, (int, np.integer)) and int(value) == AUTOTUNE:
        return "AUTOTUNE"
    if isinstance(value, np.ndarray):
        return "[...]"
    return repr(value) if isinstance(value, str) else str(value)


#: File reader ops a stage's function may open, and the Python call that builds each.
READER_OPS = {"TFRecordDatasetV2": "TFRecordDataset", "TFRecordDataset": "TFRecordDataset",
              "TextLineDataset": "TextLineDataset", "FixedLengthRecordDatasetV2": "FixedLengthRecordDataset",
              "FixedLengthRecordDataset": "FixedLengthRecordDataset"}


def reader(s) -> str | None:
    """The file reader a stage's function opens (``"TFRecordDataset"``), or None."""
    return next((READER_OPS[op] for op in sorted(s.fn_ops) if op in READER_OPS), None)


def label(s) -> str:
    p, kind = s.params, s.kind
    fn = s.fn_name or "fn"
    if s.op == "RangeDataset" and "stop" in p:
        if p.get("start") == 0 and p.get("step") == 1:
            return f"range({_num(p['stop'])})"
        return f"range({_num(p['start'])}, {_num(p['stop'])}, {_num(p['step'])})"
    simple = {
        "TensorSliceDataset": "from_tensor_slices(...)", "TensorDataset": "from_tensors(...)",
        "UnbatchDataset": "unbatch()", "ZipDataset": "zip(...)", "ConcatenateDataset": "concatenate(...)",
        "OptionsDataset": "with_options(...)", "LoadDataset": "load(...)", "SnapshotDatasetV2": "snapshot(...)",
        "DataServiceDatasetV4": "distribute(...)", "DataServiceDatasetV3": "distribute(...)",
        "DataServiceDatasetV2": "distribute(...)", "DataServiceDataset": "distribute(...)",
        "TFRecordDatasetV2": "TFRecordDataset(...)", "TFRecordDataset": "TFRecordDataset(...)",
        "TextLineDataset": "TextLineDataset(...)", "FixedLengthRecordDatasetV2": "FixedLengthRecordDataset(...)",
        "LegacyParallelInterleaveDatasetV2": "parallel_interleave(...)", "MapAndBatchDataset": "map_and_batch(...)",
    }
    if s.op in simple:
        return simple[s.op]
    if kind == "source" and s.fn_name == "generator":
        return "from_generator(...)"
    if kind in ("shuffle", "shuffle_and_repeat"):
        extra = "" if p.get("reshuffle_each_iteration", True) else ", reshuffle_each_iteration=False"
        name = "shuffle" if kind == "shuffle" else "shuffle_and_repeat"
        return f"{name}(buffer_size={_num(p.get('buffer_size'))}{extra})"
    if kind == "batch":
        name = "padded_batch" if "Padded" in s.op else "batch"
        extra = ", drop_remainder=True" if p.get("drop_remainder") else ""
        if "num_parallel_calls" in p:
            extra += f", num_parallel_calls={_num(p['num_parallel_calls'])}"
        return f"{name}(batch_size={_num(p.get('batch_size'))}{extra})"
    if kind == "repeat":
        return "repeat()" if p.get("count") == -1 else f"repeat(count={_num(p.get('count'))})"
    if kind in ("take", "skip"):
        return f"{kind}(count={_num(p.get('count'))})"
    if kind == "cache":
        return "cache()" if not p.get("filename") else "cache(filename=...)"
    if kind == "prefetch":
        return f"prefetch(buffer_size={_num(p.get('buffer_size'))})"
    if kind == "map":
        extra = f", num_parallel_calls={_num(p['num_parallel_calls'])}" if "num_parallel_calls" in p else ""
        return f"map({fn}{extra})"
    if kind in ("flat_map", "interleave") and s.library and reader(s):
        return f"{reader(s)}(filenames)"
    if kind == "interleave":
        extra = f", cycle_length={_num(p['cycle_length'])}" if p.get("cycle_length") not in (None, AUTOTUNE) else ""
        if "num_parallel_calls" in p:
            extra += f", num_parallel_calls={_num(p['num_parallel_calls'])}"
        return f"interleave({fn}{extra})"
    if kind in ("filter", "flat_map"):
        return f"{kind}({fn})"
    if kind == "shuffle_and_repeat":
        return f"shuffle_and_repeat(buffer_size={_num(p.get('buffer_size'))})"
    if kind == "shard" and "num_shards" in p:
        return f"shard(num_shards={_num(p['num_shards'])}, index={_num(p['index'])})"
    return f"{s.op}(...)"
