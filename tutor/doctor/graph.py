"""Read a pipeline's stages from the dataset's own op graph, without iterating it.

``tf.raw_ops.DatasetToGraphV2`` serializes the dataset *as built* (the options
and the automatic rewrites such as injected prefetches only apply when an
iterator is made). We walk that GraphDef from the final dataset node through
its dataset inputs, read the constant arguments (``buffer_size``, ``count``,
``batch_size``, ...) from the ``Const`` nodes that feed each op, and collect
the op types inside map functions (nested functions included). The Python
dataset objects are walked in step (``ds._inputs()``) to learn each stage's
cardinality and to hand each :class:`Stage` its dataset object. This is the
only place in ``tutor`` that reads TensorFlow's private pipeline structure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import tensorflow as tf

from .functions import PY_FUNCTION_OPS, STATEFUL_RANDOM_OPS, node_name, is_dataset_node, read_function  # noqa: F401
from .labels import AUTOTUNE, label

#: Policy 1 = ignore external state (py_function, resources): we only read the graph.
_IGNORE_EXTERNAL_STATE = 1

_KINDS = {
    "RangeDataset": "source", "TensorSliceDataset": "source", "TensorDataset": "source",
    "SparseTensorSliceDataset": "source", "TFRecordDatasetV2": "source", "TFRecordDataset": "source",
    "TextLineDataset": "source", "FixedLengthRecordDatasetV2": "source", "RandomDatasetV2": "source",
    "RandomDataset": "source", "GeneratorDataset": "source", "LoadDataset": "source",
    "DataServiceDatasetV4": "source", "DataServiceDatasetV3": "source", "DataServiceDatasetV2": "source",
    "ShuffleDatasetV3": "shuffle", "ShuffleDatasetV2": "shuffle", "ShuffleDataset": "shuffle",
    "ShuffleAndRepeatDatasetV2": "shuffle_and_repeat", "ShuffleAndRepeatDataset": "shuffle_and_repeat",
    "BatchDatasetV2": "batch", "BatchDataset": "batch", "ParallelBatchDataset": "batch",
    "PaddedBatchDatasetV2": "batch", "PaddedBatchDataset": "batch",
    "RepeatDataset": "repeat", "TakeDataset": "take", "SkipDataset": "skip",
    "CacheDatasetV2": "cache", "CacheDataset": "cache",
    "MapDataset": "map", "ParallelMapDatasetV2": "map", "ParallelMapDataset": "map",
    "PrefetchDataset": "prefetch", "UnbatchDataset": "unbatch", "FilterDataset": "filter",
    "FlatMapDataset": "flat_map", "InterleaveDataset": "interleave",
    "ParallelInterleaveDatasetV4": "interleave", "ParallelInterleaveDatasetV3": "interleave",
    "ParallelInterleaveDatasetV2": "interleave", "OptionsDataset": "options", "ZipDataset": "zip",
    "ConcatenateDataset": "concatenate", "ShardDataset": "shard", "SnapshotDatasetV2": "snapshot",
    "ModelDataset": "options", "OptimizeDatasetV2": "options", "MaxIntraOpParallelismDataset": "options",
    "PrivateThreadPoolDataset": "options", "AssertCardinalityDataset": "options",
}

@dataclass
class Stage:
    """One transformation of a pipeline, read from its op graph.

    ``number`` counts from 1 at the source; ``label`` reads like the Python call
    (``shuffle(buffer_size=10)``); ``params`` holds the constant arguments
    (None where the value is not a constant); ``fn_ops`` the op types inside the
    stage's function; ``cardinality`` the number of elements the stage emits
    (-1 infinite, -2 unknown, None when it could not be read); ``dataset``
    the Python ``tf.data.Dataset`` object of the stage, where it could be paired
    with the graph (None otherwise).
    """

    op: str
    kind: str
    params: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)
    consumers: list = field(default_factory=list)
    fn_name: str | None = None
    fn_ops: frozenset = frozenset()
    random_fn: bool = False
    element_seeded: bool = False
    cardinality: int | None = None
    number: int = 0
    dataset: Any = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        return label(self)

    @property
    def where(self) -> str:
        """``'stage 3: shuffle(buffer_size=10)'``."""
        return f"stage {self.number}: {self.label}"

    @property
    def input_cardinality(self) -> int | None:
        return self.inputs[0].cardinality if self.inputs else None

    def __repr__(self) -> str:
        return f"Stage({self.where})"


def read_pipeline(dataset: tf.data.Dataset) -> list[Stage]:
    """The stages of ``dataset`` from source (stage 1) to the final one (last).

    >>> [s.label for s in read_pipeline(tf.data.Dataset.range(8).batch(4))]
    ['range(8)', 'batch(batch_size=4)']
    """
    try:
        serialized = tf.raw_ops.DatasetToGraphV2(
            input_dataset=dataset._variant_tensor,
            external_state_policy=_IGNORE_EXTERNAL_STATE,
            strip_device_assignment=True,
        )
    except (tf.errors.OpError, AttributeError) as exc:
        raise RuntimeError(
            "tutor.doctor could not read this pipeline's op graph (TensorFlow cannot serialize one of its "
            f"stages): {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        ) from exc
    graph = tf.compat.v1.GraphDef.FromString(serialized.numpy())
    nodes = {n.name: n for n in graph.node}
    functions = {f.signature.name: f for f in graph.library.function}
    final = next(n for n in graph.node if n.op == "_Retval")
    root_name = node_name(final.input[0])
    built: dict[str, Stage] = {}
    order: list[Stage] = []

    def build(name: str, pyds: Any) -> Stage:
        if name in built:
            return built[name]
        node = nodes[name]
        dataset_inputs = [node_name(i) for i in node.input if not i.startswith("^") and is_dataset_node(nodes.get(node_name(i)))]
        py_inputs = _py_inputs(pyds)
        if py_inputs is not None and len(py_inputs) != len(dataset_inputs):
            py_inputs = None  # the Python objects do not line up with the graph: stop pairing here
        stage = Stage(op=node.op, kind=_KINDS.get(node.op, _generic_kind(node.op)))
        stage.inputs = [build(n, py_inputs[k] if py_inputs else None) for k, n in enumerate(dataset_inputs)]
        for parent in stage.inputs:
            parent.consumers.append(stage)
        stage.params = _params(node, nodes)
        read_function(stage, node, functions)
        stage.cardinality = _cardinality(pyds)
        stage.dataset = pyds
        built[name] = stage
        order.append(stage)
        stage.number = len(order)
        return stage

    build(root_name, dataset)
    return order


# ----------------------------------------------------------------- graph helpers
def _py_inputs(pyds: Any) -> list | None:
    if pyds is None:
        return None
    try:
        return list(pyds._inputs())
    except Exception:  # an unusual dataset class: give up on cardinalities upstream
        return None


def _cardinality(pyds: Any) -> int | None:
    if pyds is None:
        return None
    try:
        return int(pyds.cardinality())
    except Exception:
        return None


def _const(name: str, nodes: dict) -> Any:
    node = nodes.get(node_name(name))
    if node is None or node.op != "Const":
        return None
    proto = node.attr["value"].tensor
    if proto.tensor_shape.dim:  # not a scalar (e.g. the data of from_tensor_slices): not needed
        return np.empty(0)
    try:
        value = tf.make_ndarray(proto).item()
    except (KeyError, TypeError, ValueError):  # resources and variants have no NumPy value
        return None
    return value.decode() if isinstance(value, bytes) else value


def _generic_kind(op: str) -> str:
    base = re.sub(r"(Dataset)?(V\d+)?$", "", op)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower() or op


def _params(node, nodes: dict) -> dict:
    """Named constant arguments of a dataset op (only the ones the rules and labels use)."""
    args = [i for i in node.input if not i.startswith("^") and not is_dataset_node(nodes.get(node_name(i)))]
    value = [(_const(a, nodes)) for a in args]
    kind, op = _KINDS.get(node.op), node.op
    p: dict[str, Any] = {}
    if op == "RangeDataset" and len(value) == 3:
        p.update(start=value[0], stop=value[1], step=value[2])
    elif kind in ("shuffle", "shuffle_and_repeat") and value:
        p["buffer_size"] = value[0]
        attr = node.attr.get("reshuffle_each_iteration")
        p["reshuffle_each_iteration"] = bool(attr.b) if attr is not None and attr.WhichOneof("value") else True
        if kind == "shuffle_and_repeat" and len(value) >= 4:
            p["count"] = value[3]
    elif kind == "batch" and value:
        p["batch_size"] = value[0]
        if op in ("BatchDatasetV2", "ParallelBatchDataset", "PaddedBatchDatasetV2"):
            p["drop_remainder"] = bool(value[-1]) if value[-1] is not None else None
        if op == "ParallelBatchDataset" and len(value) >= 2:
            p["num_parallel_calls"] = value[1]
    elif kind in ("repeat", "take", "skip") and value:
        p["count"] = value[0]
    elif kind == "cache" and value:
        p["filename"] = value[0]
    elif kind == "prefetch" and value:
        p["buffer_size"] = value[0]
    elif op in ("ParallelMapDatasetV2", "ParallelMapDataset") and value:
        p["num_parallel_calls"] = value[-1]
    elif op == "ShardDataset" and len(value) >= 2:
        p.update(num_shards=value[0], index=value[1])
    if kind == "map" and "deterministic" in node.attr:
        p["deterministic"] = node.attr["deterministic"].s.decode() or "default"
    return p


