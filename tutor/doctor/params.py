"""The constant arguments of a dataset op in a serialized graph: ``buffer_size``, ``count`` ...

The inputs of a ``NodeDef`` are positional; TensorFlow's op registry names
them (``input_dataset``, ``buffer_size``, ``seed`` ...), list arguments
included, so one reader serves every op. Only scalar constants are decoded:
the data of ``from_tensor_slices`` is never copied, only measured in bytes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .functions import is_dataset_node, node_name
from .kinds import op_kind

#: The arguments the rules and labels use.
PARAM_NAMES = frozenset({
    "start", "stop", "step", "buffer_size", "batch_size", "drop_remainder", "count", "filename",
    "num_parallel_calls", "cycle_length", "block_length", "num_shards", "index", "seed", "seed2", "address",
})
_SIZES = {1: 4, 2: 8, 3: 4, 4: 1, 5: 2, 6: 1, 9: 8, 10: 1, 14: 2, 17: 2, 19: 2, 22: 4, 23: 8}  # DataType -> bytes


def _input_names(op: str, node) -> list[str] | None:
    """The registry's name for each input of ``node`` (list arguments repeat their name)."""
    try:
        from tensorflow.python.framework import op_def_registry

        op_def = op_def_registry.get(op)
    except Exception:
        return None
    if op_def is None:
        return None
    names = []
    for arg in op_def.input_arg:
        if arg.number_attr:
            n = node.attr[arg.number_attr].i
        elif arg.type_list_attr:
            n = len(node.attr[arg.type_list_attr].list.type)
        else:
            n = 1
        names.extend([arg.name] * n)
    return names


def const_value(name: str, nodes: dict) -> Any:
    """A scalar constant's value; ``np.empty(0)`` for a constant array (not decoded); None if not constant."""
    node = nodes.get(node_name(name))
    if node is None or node.op != "Const":
        return None
    proto = node.attr["value"].tensor
    if proto.tensor_shape.dim:
        return np.empty(0)
    try:
        import tensorflow as tf

        value = tf.make_ndarray(proto).item()
    except (KeyError, TypeError, ValueError):  # resources and variants have no NumPy value
        return None
    return value.decode() if isinstance(value, bytes) else value


def const_bytes(name: str, nodes: dict) -> int:
    """Bytes of data in a constant input (0 for anything else), read from its header only."""
    node = nodes.get(node_name(name))
    if node is None or node.op != "Const":
        return 0
    proto = node.attr["value"].tensor
    if proto.tensor_content:
        return len(proto.tensor_content)
    if proto.string_val:
        return sum(len(s) for s in proto.string_val)
    count = int(np.prod([d.size for d in proto.tensor_shape.dim])) if proto.tensor_shape.dim else 1
    return count * _SIZES.get(proto.dtype, 4)


def read_params(node, nodes: dict) -> tuple[dict, int]:
    """``(params, data_bytes)`` of a dataset node: named scalar constants, and bytes of constant data."""
    args = [i for i in node.input if not i.startswith("^")]
    names = _input_names(node.op, node)
    p: dict[str, Any] = {}
    data_bytes = 0
    for k, arg in enumerate(args):
        if is_dataset_node(nodes.get(node_name(arg))):
            continue
        name = names[k] if names and k < len(names) else None
        if name in PARAM_NAMES:
            p[name] = const_value(arg, nodes)
        elif name in ("components", "other_arguments", "input", None):
            data_bytes += const_bytes(arg, nodes)
    kind = op_kind(node.op)
    if "drop_remainder" in p:
        p["drop_remainder"] = bool(p["drop_remainder"]) if p["drop_remainder"] is not None else None
    if kind in ("shuffle", "shuffle_and_repeat"):
        attr = node.attr.get("reshuffle_each_iteration")
        p["reshuffle_each_iteration"] = bool(attr.b) if attr is not None and attr.WhichOneof("value") else True
        for seed in ("seed", "seed2"):
            p.pop(seed, None)
    if kind in ("map", "interleave") and "deterministic" in node.attr:
        p["deterministic"] = node.attr["deterministic"].s.decode() or "default"
    if kind == "source" and node.op == "RangeDataset":
        p.pop("count", None)
    return p, data_bytes
