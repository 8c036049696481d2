"""What kind of stage an op (or a Python dataset class, or a profiled iterator) is.

Three names lead to a kind: the dataset op in the serialized graph
(``ParallelMapDatasetV2``), the Python class of the dataset object
(``_ParallelMapDataset``) and the iterator name in a profile
(``ParallelMapV2``, ``Iterator::Root::Prefetch::ParallelMapV2``). All three
come down to the same short kinds (``map``, ``batch``, ``shuffle`` ...); an
op the doctor does not know gets a readable snake_case kind of its own
(``scan``, ``directed_interleave``), so an unknown op never stops a reading.
"""
from __future__ import annotations

import re

#: Dataset ops and their kinds. Ops not listed get a kind from their name (see :func:`op_kind`).
OP_KINDS = {
    "RangeDataset": "source", "TensorSliceDataset": "source", "TensorDataset": "source",
    "SparseTensorSliceDataset": "source", "TFRecordDatasetV2": "source", "TFRecordDataset": "source",
    "TextLineDataset": "source", "FixedLengthRecordDatasetV2": "source", "FixedLengthRecordDataset": "source",
    "RandomDatasetV2": "source", "RandomDataset": "source", "GeneratorDataset": "source", "LoadDataset": "source",
    "DataServiceDatasetV4": "distribute", "DataServiceDatasetV3": "distribute", "DataServiceDatasetV2": "distribute",
    "DataServiceDataset": "distribute", "CSVDatasetV2": "source", "CSVDataset": "source",
    "ShuffleDatasetV3": "shuffle", "ShuffleDatasetV2": "shuffle", "ShuffleDataset": "shuffle",
    "ShuffleAndRepeatDatasetV2": "shuffle_and_repeat", "ShuffleAndRepeatDataset": "shuffle_and_repeat",
    "BatchDatasetV2": "batch", "BatchDataset": "batch", "ParallelBatchDataset": "batch",
    "PaddedBatchDatasetV2": "batch", "PaddedBatchDataset": "batch", "MapAndBatchDataset": "map_and_batch",
    "RepeatDataset": "repeat", "TakeDataset": "take", "SkipDataset": "skip",
    "CacheDatasetV2": "cache", "CacheDataset": "cache",
    "MapDataset": "map", "ParallelMapDatasetV2": "map", "ParallelMapDataset": "map",
    "PrefetchDataset": "prefetch", "UnbatchDataset": "unbatch", "FilterDataset": "filter",
    "ParallelFilterDataset": "filter", "FlatMapDataset": "flat_map", "InterleaveDataset": "interleave",
    "ParallelInterleaveDatasetV4": "interleave", "ParallelInterleaveDatasetV3": "interleave",
    "ParallelInterleaveDatasetV2": "interleave", "ParallelInterleaveDataset": "interleave",
    "LegacyParallelInterleaveDatasetV2": "interleave", "ZipDataset": "zip",
    "ConcatenateDataset": "concatenate", "ShardDataset": "shard", "SnapshotDatasetV2": "snapshot",
    "OptionsDataset": "options", "ModelDataset": "options", "OptimizeDatasetV2": "options",
    "OptimizeDataset": "options", "MaxIntraOpParallelismDataset": "options",
    "PrivateThreadPoolDataset": "options", "AssertCardinalityDataset": "options",
    "IgnoreErrorsDataset": "ignore_errors", "DirectedInterleaveDataset": "directed_interleave",
}

#: Kinds that pass elements through unchanged (for order and size questions).
PASS_THROUGH = frozenset({"options", "prefetch", "ignore_errors", "assert_cardinality"})

#: Iterator names in a profile (after ``Iterator::...::``), when they differ from the op's.
_ITERATOR_ALIASES = {
    "MapAndBatch": "map_and_batch", "ParallelMap": "map", "Map": "map", "Prefetch": "prefetch",
    "TensorSlice": "source", "Range": "source", "Generator": "source", "TFRecord": "source",
    "TextLine": "source", "FixedLengthRecord": "source", "FromTensor": "source", "Tensor": "source",
    "MemoryCache": "cache", "MemoryWriter": "cache", "MemoryReader": "cache", "FileCache": "cache",
    "FileWriter": "cache", "FileReader": "cache", "Cache": "cache", "ForeverRepeat": "repeat",
    "FiniteRepeat": "repeat", "EmptyRepeat": "repeat", "FiniteTake": "take", "EmptyTake": "take",
    "FiniteSkip": "skip", "ParallelInterleave": "interleave", "LegacyParallelInterleave": "interleave",
    "ParallelBatch": "batch", "PaddedBatch": "batch", "ParallelFilter": "filter",
    "ShuffleAndRepeat": "shuffle_and_repeat", "DataService": "distribute", "Root": "root",
}


def camel_to_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def op_kind(op: str) -> str:
    """The kind of a dataset op: ``op_kind("ParallelMapDatasetV2") == "map"``; ``"ScanDataset"`` gives ``"scan"``."""
    if op in OP_KINDS:
        return OP_KINDS[op]
    base = re.sub(r"(Dataset)?(V\d+)?$", "", op)
    base = re.sub(r"^Experimental", "", base)
    return camel_to_snake(base) or op


def class_kind(cls_name: str) -> str:
    """The kind of a Python dataset class: ``"_ParallelMapDataset"`` gives ``"map"``."""
    base = re.sub(r"(DatasetV\d|Dataset)(V\d)?$", "", cls_name.lstrip("_"))
    guess = op_kind(base + "Dataset")
    return {"parallel_map": "map", "parallel_batch": "batch", "padded_batch": "batch", "tensor_slice": "source",
            "range": "source", "tensor": "source", "generator": "source", "t_f_record": "source",
            "text_line": "source", "fixed_length_record": "source", "random": "source", "load": "source",
            "parallel_interleave": "interleave", "memory_cache": "cache", "data_service": "distribute",
            "options": "options", "_options": "options", "parallel_filter": "filter"}.get(guess, guess)


def iterator_kind(name: str) -> str:
    """The kind of a profiled iterator: ``"Iterator::Root::Prefetch::ParallelMapV2"`` gives ``"map"``."""
    last = str(name).split("::")[-1]
    last = re.sub(r"\[.*\]$|\(.*\)$", "", last).strip()
    base = re.sub(r"(Dataset)?(V\d+)?$", "", last)
    if base in _ITERATOR_ALIASES:
        return _ITERATOR_ALIASES[base]
    return op_kind(base + "Dataset")
