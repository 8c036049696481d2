"""Look inside a stage's function: which ops it runs, and whether it is random."""
from __future__ import annotations

import re

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


def node_name(name: str) -> str:
    return name.lstrip("^").split(":")[0]


def is_dataset_node(node) -> bool:
    return node is not None and "Dataset" in node.op and node.op != "DatasetToGraphV2"


def read_function(stage, node, functions: dict) -> None:
    """Fill ``stage.fn_name``, ``fn_ops``, ``random_fn`` and ``element_seeded`` from the op's function."""
    attr = node.attr.get("f") or node.attr.get("predicate")
    if attr is None or not attr.func.name or attr.func.name not in functions:
        return
    fdef = functions[attr.func.name]
    stage.fn_name = _pretty_fn_name(fdef.signature.name)
    stage.fn_ops = frozenset(_all_ops(fdef, functions, set()))
    found: dict = {}
    _is_random(fdef, functions, set(), found)
    stage.random_fn = found.get("random", False)
    stage.element_seeded = found.get("element_seeded", False)
    if "GeneratorDataset" in stage.fn_ops and stage.kind == "flat_map":
        stage.kind, stage.fn_name = "source", "generator"


def _pretty_fn_name(name: str) -> str:
    m = re.match(r"^__inference_Dataset_(?:flat_map|map|filter|interleave|parallel_interleave)_(.+?)_\d+$", name)
    if m:
        return m.group(1)
    return re.sub(r"^__inference_|_\d+$", "", name)


def _called_functions(ndef, functions: dict) -> list[str]:
    names = [ndef.op] if ndef.op in functions else []
    for value in ndef.attr.values():
        if value.WhichOneof("value") == "func":
            names.append(value.func.name)
        elif value.WhichOneof("value") == "list":
            names.extend(f.name for f in value.list.func)
    return [n for n in names if n in functions]


def _all_ops(fdef, functions: dict, seen: set) -> set[str]:
    if fdef.signature.name in seen:
        return set()
    seen.add(fdef.signature.name)
    ops = set()
    for ndef in fdef.node_def:
        ops.add(ndef.op)
        for callee in _called_functions(ndef, functions):
            ops |= _all_ops(functions[callee], functions, seen)
    return ops


def _is_random(fdef, functions: dict, seen: set, found: dict) -> None:
    """Record in ``found`` whether the function can give a different result each run.

    ``found["random"]``: a stateful random op, or a stateless one whose seed comes
    from changing state (a ``tf.random.Generator``, a variable). A seed built only
    from constants is fixed. ``found["element_seeded"]``: a stateless op seeded from
    the element itself (or a captured value): the same element gets the same
    result every epoch, unless the seeds come from a random dataset upstream.
    """
    if fdef.signature.name in seen:
        return
    seen.add(fdef.signature.name)
    by_name = {n.name: n for n in fdef.node_def}
    args = {a.name for a in fdef.signature.input_arg}
    for ndef in fdef.node_def:
        if ndef.op in STATEFUL_RANDOM_OPS:
            found["random"] = True
        elif ndef.op.startswith("Stateless") and ("Random" in ndef.op or "Multinomial" in ndef.op):
            source = _seed_source(ndef, by_name, args)
            if source == "state":
                found["random"] = True
            elif source == "element":
                found["element_seeded"] = True
        for callee in _called_functions(ndef, functions):
            _is_random(functions[callee], functions, seen, found)


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


