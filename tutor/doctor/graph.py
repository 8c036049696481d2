"""Read a pipeline's stages from the dataset's own op graph, without iterating it.

``tf.raw_ops.DatasetToGraphV2`` serializes the dataset *as built* (the options
and the automatic rewrites such as injected prefetches only apply when an
iterator is made). We walk that GraphDef from the final dataset node through
its dataset inputs, read the constant arguments (``buffer_size``, ``count``,
``batch_size``, ...) from the ``Const`` nodes that feed each op, and look
inside each stage's function (nested functions included). The Python dataset
objects are walked in step to learn each stage's cardinality, who wrote its
function (see :mod:`tutor.doctor.objects`, which also holds the accessors of
the Python objects) and to hand each :class:`Stage` (:mod:`tutor.doctor.stage`)
its dataset object. This module and :mod:`tutor.doctor.objects` are the only
places in ``tutor`` that read TensorFlow's private pipeline structure.

**Cost.** Serializing copies the data that ``from_tensor_slices`` and
``from_tensors`` hold in memory into the GraphDef: the time grows with those
bytes (a few tenths of a second per 100 MB on a laptop). A pipeline holding
more than :data:`GRAPH_BYTES_LIMIT` bytes is read from its Python objects
instead, which copies nothing. A pipeline TensorFlow cannot serialize is read
the same way. Every walk here is iterative, so a pipeline of any length is read.
"""
from __future__ import annotations

from typing import Any

import tensorflow as tf

from ..i18n import gettext as _
from . import objects
from .functions import is_dataset_node, node_name, read_function
from .kinds import op_kind
from .objects import behind_service, cardinality, python_inputs
from .params import read_params
from .stage import Stage, Stages

#: Policy 1 = ignore external state (py_function, resources): we only read the graph.
_IGNORE_EXTERNAL_STATE = 1
#: In-memory data above this many bytes: read the Python objects instead of serializing.
GRAPH_BYTES_LIMIT = 64 * 2**20
_FUNCTION_ATTRS = ("f", "predicate", "next_func", "scan_func", "key_func", "reduce_func", "init_func", "finalize_func")


def read_pipeline(dataset: tf.data.Dataset) -> Stages:
    """The stages of ``dataset`` from source (stage 1) to the final one (last).

    >>> [s.label for s in read_pipeline(tf.data.Dataset.range(8).batch(4))]
    ['range(8)', 'batch(batch_size=4)']
    """
    held = objects.in_memory_bytes(dataset)
    if held > GRAPH_BYTES_LIMIT:
        note = _("The pipeline holds {megabytes:.0f} MB of in-memory data, so the doctor read its Python "
                 "objects instead of copying that data into a graph.").format(megabytes=held / 2**20)
        return objects.read_objects(dataset, note)
    try:
        stages = _read_graph(dataset)
    except (tf.errors.OpError, ValueError, TypeError, AttributeError, KeyError, StopIteration) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        # Translators: {error} is TensorFlow's own error, e.g. "InvalidArgumentError: ...", in English.
        note = _("TensorFlow could not serialize this pipeline ({error}), so the doctor read its Python objects "
                 "instead.").format(error=f"{type(exc).__name__}: {first[:160]}")
        return objects.read_objects(dataset, note)
    objects.mark_library_stages(stages)
    return stages


def _serialize(dataset: tf.data.Dataset):
    serialized = tf.raw_ops.DatasetToGraphV2(
        input_dataset=dataset._variant_tensor,
        external_state_policy=_IGNORE_EXTERNAL_STATE,
        strip_device_assignment=True,
    )
    return tf.compat.v1.GraphDef.FromString(serialized.numpy())


def _read_graph(dataset: tf.data.Dataset) -> Stages:
    order: list[Stage] = []
    _read_graph_into(dataset, order)
    return Stages(order, read_from="graph")


def _read_graph_into(dataset: tf.data.Dataset, order: list) -> Stage:
    """Append the stages of ``dataset`` to ``order`` (inputs first); return the final stage."""
    graph = _serialize(dataset)
    nodes = {n.name: n for n in graph.node}
    functions = {f.signature.name: f for f in graph.library.function}
    final = next(n for n in graph.node if n.op == "_Retval")
    root = node_name(final.input[0])
    built: dict[str, Stage] = {}
    pending: dict[str, tuple] = {}
    service_for: dict[str, Any] = {}  # graph nodes below a Python object that knows what it sent to the service
    stack: list[tuple[str, Any, bool]] = [(root, dataset, False)]
    while stack:  # depth-first, inputs before the stage that reads them, without recursion
        name, pyds, expanded = stack.pop()
        if name in built:
            continue
        if not expanded:
            node = nodes[name]
            inputs = [node_name(i) for i in node.input
                      if not i.startswith("^") and is_dataset_node(nodes.get(node_name(i)))]
            py_inputs = python_inputs(pyds)
            if py_inputs is not None and len(py_inputs) != len(inputs):
                py_inputs = None  # the Python objects do not line up with the graph: stop pairing here
            sent = behind_service(pyds) or service_for.get(name)
            if sent is not None and py_inputs is None:
                service_for.update((n, sent) for n in inputs)
            pending[name] = (node, inputs, pyds)
            stack.append((name, pyds, True))
            for k in reversed(range(len(inputs))):
                if inputs[k] not in built:
                    stack.append((inputs[k], py_inputs[k] if py_inputs else None, False))
            continue
        node, inputs, pyds = pending.pop(name)
        stage = Stage(op=node.op, kind=op_kind(node.op))
        stage.inputs = [built[n] for n in inputs]
        sent = behind_service(pyds) or service_for.get(name)
        if stage.kind == "distribute" and sent is not None:
            try:  # the pipeline the tf.data service workers run feeds this stage
                stage.inputs.append(_read_graph_into(sent, order))
            except Exception:
                pass
        for parent in stage.inputs:
            parent.consumers.append(stage)
        stage.params, stage.data_bytes = read_params(node, nodes)
        _read_functions(stage, node, functions)
        stage.cardinality = cardinality(pyds)
        stage.dataset = pyds
        built[name] = stage
        order.append(stage)
        stage.number = len(order)
    return built[root]


def _read_functions(stage: Stage, node, functions: dict) -> None:
    names = []
    for attr in _FUNCTION_ATTRS:
        value = node.attr.get(attr)
        if value is not None and value.WhichOneof("value") == "func" and value.func.name in functions:
            names.append(value.func.name)
    if not names:
        return
    read_function(stage, functions[names[0]], functions)
    for other in names[1:]:  # the ops of every function the stage runs
        extra = Stage(op=stage.op, kind=stage.kind)
        read_function(extra, functions[other], functions)
        stage.fn_ops |= extra.fn_ops
        stage.data_ops |= extra.data_ops
        stage.random_fn |= extra.random_fn
        stage.element_seeded |= extra.element_seeded
        stage.slices_element |= extra.slices_element
        if extra.kind == "source" and extra.fn_name == "generator":
            stage.kind, stage.fn_name = "source", "generator"
