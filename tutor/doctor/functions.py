"""Look inside a stage's function: which ops it runs, which of them touch the element, whether it is random.

The function is a ``FunctionDef`` from the serialized graph. Three readings:

* ``fn_ops``: every op type, nested functions included.
* ``data_ops``: the op types that work on the element's values (their inputs
  depend on the function's arguments). Shape questions (``tf.shape(x)``) do not
  count, and neither do ops on constants, so a map that only casts a constant
  does no work on the element.
* ``splits_first_axis``: the function slices, splits or unstacks its argument
  along the first axis (``x[:-1]``, ``x[0]``, ``tf.unstack(x)``). After a
  ``batch`` that axis is the batch, so such a map turns the batch into
  something else (a sequence split into input and target, for example).

Every walk is iterative: a function may call functions to any depth.
"""
from __future__ import annotations

import re

import numpy as np

#: Ops that emit a different random value every time they run.
STATEFUL_RANDOM_OPS = frozenset({
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal", "RandomShuffle",
    "RandomGamma", "RandomGammaV2", "RandomPoisson", "RandomPoissonV2", "Multinomial", "RandomCrop",
    "RngReadAndSkip", "RngSkip", "StatefulUniform", "StatefulUniformInt", "StatefulUniformFullInt",
    "StatefulStandardNormal", "StatefulStandardNormalV2", "StatefulTruncatedNormal",
    "StatefulRandomBinomial", "NonDeterministicInts", "ParameterizedTruncatedNormal",
})
PY_FUNCTION_OPS = frozenset({"EagerPyFunc", "PyFunc", "PyFuncStateless"})
#: Ops that read state which changes between runs: a seed built from them varies.
_STATE_READING_OPS = frozenset({"ReadVariableOp", "VarHandleOp", "ResourceGather"}) | STATEFUL_RANDOM_OPS
_SEED_ARGS = {"seed", "key", "counter"}
#: Ops that read only the shape of their input, not its values.
_SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank", "TensorListLength"})
_PASS_OPS = frozenset({"Identity", "IdentityN", "EnsureShape", "CheckNumerics"})


def node_name(name: str) -> str:
    return name.lstrip("^").split(":")[0]


def is_dataset_node(node) -> bool:
    return node is not None and "Dataset" in node.op and node.op != "DatasetToGraphV2"


def _called_functions(ndef, functions: dict) -> list[str]:
    names = [ndef.op] if ndef.op in functions else []
    for value in ndef.attr.values():
        if value.WhichOneof("value") == "func":
            names.append(value.func.name)
        elif value.WhichOneof("value") == "list":
            names.extend(f.name for f in value.list.func)
    return [n for n in names if n in functions]


def all_ops(fdef, functions: dict) -> set[str]:
    """Every op type in ``fdef`` and in the functions it calls, to any depth."""
    ops, seen, todo = set(), set(), [fdef]
    while todo:
        f = todo.pop()
        if f.signature.name in seen:
            continue
        seen.add(f.signature.name)
        for ndef in f.node_def:
            ops.add(ndef.op)
            todo.extend(functions[c] for c in _called_functions(ndef, functions))
    return ops


def _data_nodes(fdef) -> set[str]:
    """Names of the nodes of ``fdef`` whose values depend on its arguments (shape reads excluded)."""
    data = {a.name for a in fdef.signature.input_arg}
    nodes = [n for n in fdef.node_def if n.op not in _SHAPE_OPS]
    changed = True
    while changed:  # a fixed point: node_def is not always in topological order
        changed = False
        for n in nodes:
            if n.name not in data and any(node_name(i) in data for i in n.input if not i.startswith("^")):
                data.add(n.name)
                changed = True
    return data


def data_ops(fdef, functions: dict) -> set[str]:
    """Op types that work on the element's values; a called function that gets data counts whole."""
    data = _data_nodes(fdef)
    ops = set()
    for n in fdef.node_def:
        if n.name in data:
            ops.add(n.op)
            for callee in _called_functions(n, functions):
                ops |= all_ops(functions[callee], functions)
    return ops


def _const_value(name: str, by_name: dict):
    node = by_name.get(node_name(name))
    while node is not None and node.op in _PASS_OPS and node.input:
        node = by_name.get(node_name(node.input[0]))
    if node is None or node.op != "Const":
        return None
    try:
        import tensorflow as tf

        return np.atleast_1d(tf.make_ndarray(node.attr["value"].tensor))
    except Exception:
        return None


def _from_argument(name: str, by_name: dict, args: set) -> bool:
    name = node_name(name)
    while name not in args:
        node = by_name.get(name)
        if node is None or node.op not in _PASS_OPS or not node.input:
            return False
        name = node_name(node.input[0])
    return True


def _slice_axes(n, by_name: dict) -> set | None:
    """The axes a StridedSlice or Slice really cuts (empty: a no-op or only new axes); None if unknown."""
    if n.op == "StridedSlice" and len(n.input) >= 4:
        begin, end, strides = (_const_value(i, by_name) for i in n.input[1:4])
        if begin is None or end is None:
            return None
        bit = lambda mask, i: bool(n.attr[mask].i >> i & 1)  # noqa: E731
        ellipsis = next((i for i in range(len(begin)) if bit("ellipsis_mask", i)), None)
        cut, axis = set(), 0
        for i in range(len(begin)):
            if i == ellipsis:
                axis = -len(begin)  # the entries after ``...`` index the last axes (counted as negative)
                continue
            if bit("new_axis_mask", i):
                continue
            full = ((bit("begin_mask", i) or begin[i] == 0) and bit("end_mask", i)
                    and (strides is None or strides[i] == 1) and not bit("shrink_axis_mask", i))
            if not full:
                cut.add(axis)
            axis += 1
        return cut
    if n.op == "Slice" and len(n.input) >= 3:
        begin, size = _const_value(n.input[1], by_name), _const_value(n.input[2], by_name)
        if begin is None or size is None:
            return None
        return {i for i in range(len(begin)) if begin[i] != 0 or size[i] != -1}
    return None


def _argument_cuts(fdef) -> list[set | None]:
    """For each op that cuts one of the function's arguments: the axes it cuts (None: unknown)."""
    by_name = {n.name: n for n in fdef.node_def}
    args = {a.name for a in fdef.signature.input_arg}
    cuts = []
    for n in fdef.node_def:
        value = n.input[1] if n.op == "Split" and len(n.input) > 1 else (n.input[0] if n.input else None)
        if value is None or not _from_argument(value, by_name, args):
            continue
        if n.op in ("StridedSlice", "Slice"):
            axes = _slice_axes(n, by_name)
            if axes is None or axes:
                cuts.append(axes)
        elif n.op == "Unpack":
            cuts.append({n.attr["axis"].i})
        elif n.op in ("Split", "SplitV"):
            axis = _const_value(n.input[0] if n.op == "Split" else n.input[2], by_name)
            cuts.append({int(axis[0])} if axis is not None else None)
        elif n.op in ("GatherV2", "Gather"):
            axis = _const_value(n.input[2], by_name) if n.op == "GatherV2" and len(n.input) > 2 else np.array([0])
            cuts.append({int(axis[0])} if axis is not None else None)
    return cuts


def splits_first_axis(fdef) -> bool:
    """Whether the function slices, splits or unstacks one of its arguments along the first axis.

    Only cuts with constant bounds count: a cut computed from shapes (``tf.signal.frame`` inside ``stft``)
    works along whatever axis the shapes say, usually the last.
    """
    return any(c is not None and 0 in c for c in _argument_cuts(fdef))


def slices_element(fdef) -> bool:
    """Whether the function cuts one of its arguments along any axis (``x[:, ::-1]``, ``x[2:]``, ``tf.unstack``)."""
    return bool(_argument_cuts(fdef))


def read_function(stage, fdef, functions: dict) -> None:
    """Fill ``stage.fn_name``, ``fn_ops``, ``data_ops``, ``splits_first_axis``, ``slices_element``,
    ``random_fn`` and ``element_seeded`` from the function ``fdef``."""
    stage.fn_name = _pretty_fn_name(fdef.signature.name)
    stage.fn_ops = frozenset(all_ops(fdef, functions))
    stage.data_ops = frozenset(data_ops(fdef, functions))
    stage.splits_first_axis = splits_first_axis(fdef)
    stage.slices_element = slices_element(fdef)
    found: dict = {}
    _is_random(fdef, functions, found)
    stage.random_fn = found.get("random", False)
    stage.element_seeded = found.get("element_seeded", False)
    if "GeneratorDataset" in stage.fn_ops and stage.kind == "flat_map":
        stage.kind, stage.fn_name = "source", "generator"


def _pretty_fn_name(name: str) -> str:
    m = re.match(r"^__inference_Dataset_(?:flat_map|map|filter|interleave|parallel_interleave)_(.+?)_\d+$", name)
    if m:
        return m.group(1)
    return re.sub(r"^__inference_|_\d+$", "", name)


def _is_random(fdef, functions: dict, found: dict) -> None:
    """Record in ``found`` whether the function can give a different result each run.

    ``found["random"]``: a stateful random op, or a stateless one whose seed comes
    from changing state (a ``tf.random.Generator``, a variable). A seed built only
    from constants is fixed. ``found["element_seeded"]``: a stateless op seeded from
    the element itself (or a captured value): the same element gets the same
    result every epoch, unless the seeds come from a random dataset upstream.
    """
    seen, todo = set(), [fdef]
    while todo:
        f = todo.pop()
        if f.signature.name in seen:
            continue
        seen.add(f.signature.name)
        by_name = {n.name: n for n in f.node_def}
        args = {a.name for a in f.signature.input_arg}
        for ndef in f.node_def:
            if ndef.op in STATEFUL_RANDOM_OPS:
                found["random"] = True
            elif ndef.op.startswith("Stateless") and ("Random" in ndef.op or "Multinomial" in ndef.op):
                source = _seed_source(ndef, by_name, args)
                if source == "state":
                    found["random"] = True
                elif source == "element":
                    found["element_seeded"] = True
            todo.extend(functions[c] for c in _called_functions(ndef, functions))


def _seed_source(ndef, by_name: dict, args: set) -> str | None:
    """``'state'``, ``'element'`` or None (constants only) for a stateless random op's seed."""
    names = _input_arg_names(ndef.op)
    inputs = [i for i in ndef.input if not i.startswith("^")]
    seeds = [i for k, i in enumerate(inputs) if (names[k] in _SEED_ARGS if names and k < len(names) else k > 0)]
    todo, seen, source = [node_name(i) for i in seeds], set(), None
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in args:
            source = "element"
            continue
        node = by_name.get(name)
        if node is None:
            continue
        if node.op in _STATE_READING_OPS:
            return "state"
        todo.extend(node_name(i) for i in node.input if not i.startswith("^"))
    return source


def _input_arg_names(op: str) -> list[str] | None:
    try:
        from tensorflow.python.framework import op_def_registry

        return [a.name for a in op_def_registry.get(op).input_arg]
    except Exception:
        return None
