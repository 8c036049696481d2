"""The Python side of a pipeline: who wrote each stage, how much data it holds, and a second reader.

* :func:`library_of` tells a function written inside a library utility (Keras'
  ``image_dataset_from_directory``, TensorFlow's ``rejection_resample``) from
  one the user wrote: its code lives in a library package *and* it is a
  private helper, a nested function or a lambda there. A public library
  function passed by the user (``ds.map(tf.image.per_image_standardization)``)
  is the user's choice, so it counts as the user's.
* :func:`mark_library_stages` sets ``Stage.library``: from the stage's own
  functions, and for a stage without a function from its consumers (a stage
  read only by library stages was built by that library too).
* :func:`python_inputs`, :func:`behind_service` and :func:`cardinality` read a
  Python dataset object's inputs, the pipeline it sent to the tf.data service,
  and its number of elements.
* :func:`in_memory_bytes` adds up the arrays the pipeline holds in memory
  without copying them; :func:`read_objects` reads the stages from the Python
  dataset objects when serializing the graph would copy too much or fails.
"""
from __future__ import annotations

import functools
import re
from typing import Any

import tensorflow as tf

from .functions import read_function
from .kinds import class_kind
from .stage import Stage, Stages

#: Top-level packages whose private helpers build stages the user did not write.
LIBRARY_PACKAGES = frozenset({
    "tensorflow", "keras", "tf_keras", "tensorflow_datasets", "tensorflow_text", "tensorflow_addons",
    "tensorflow_io", "tensorflow_hub", "tensorflow_transform",
})
_WRAPPERS = ("_dataset", "_impl")  # DatasetV1Adapter, the file readers (TFRecordDatasetV2 ...)
_PARAM_ATTRS = {"_start": "start", "_stop": "stop", "_step": "step", "_buffer_size": "buffer_size",
                "_batch_size": "batch_size", "_drop_remainder": "drop_remainder", "_count": "count",
                "_filename": "filename", "_num_parallel_calls": "num_parallel_calls",
                "_cycle_length": "cycle_length", "_block_length": "block_length", "_num_shards": "num_shards",
                "_index": "index"}
_OPS = {"map": "MapDataset", "batch": "BatchDatasetV2", "shuffle": "ShuffleDatasetV3", "cache": "CacheDatasetV2",
        "prefetch": "PrefetchDataset", "repeat": "RepeatDataset", "take": "TakeDataset", "skip": "SkipDataset",
        "interleave": "InterleaveDataset", "flat_map": "FlatMapDataset", "filter": "FilterDataset",
        "unbatch": "UnbatchDataset", "zip": "ZipDataset", "concatenate": "ConcatenateDataset",
        "options": "OptionsDataset", "shard": "ShardDataset"}


def python_functions(pyds: Any) -> list:
    """The Python functions the user (or a library) handed to this dataset's transformation."""
    return [w._func for w in _wrappers(_unwrapped(pyds)) if getattr(w, "_func", None) is not None]


def _unwrap(func: Any) -> Any:
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__func__", func)


def function_name(func: Any) -> str | None:
    """``decode``, ``lambda``, ``TFRecordDataset`` (a class passed as the function), or None."""
    name = getattr(_unwrap(func), "__name__", None) or type(func).__name__
    return re.sub(r"V\d+$", "", name.strip("<>")) if isinstance(name, str) and name else None


def library_of(func: Any) -> str | None:
    """The library package that wrote ``func`` as an internal helper, or None if the user wrote (or chose) it."""
    func = _unwrap(func)
    module = getattr(func, "__module__", None) or type(func).__module__ or ""
    top = module.split(".")[0]
    if top not in LIBRARY_PACKAGES:
        return None
    qualname = getattr(func, "__qualname__", None) or type(func).__qualname__
    parts = qualname.split(".")
    if "<locals>" in parts or "<lambda>" in parts or any(p.startswith("_") for p in parts):
        return top
    return None


def mark_library_stages(stages: list) -> None:
    """Set ``stage.library`` for every stage (consumers are always later in the list)."""
    for stage in reversed(stages):
        funcs = python_functions(stage.dataset) if stage.dataset is not None else []
        if funcs and stage.fn_name and stage.kind != "source":
            stage.fn_name = function_name(funcs[0]) or stage.fn_name
        if funcs:
            owners = [library_of(f) for f in funcs]
            stage.library = owners[0] if all(owners) else None
        elif stage.consumers and all(c.library for c in stage.consumers):
            stage.library = stage.consumers[0].library


def python_inputs(pyds: Any) -> list | None:
    """The input datasets of a Python dataset object (None when it cannot say)."""
    if pyds is None:
        return None
    try:
        return list(_unwrapped(pyds)._inputs())
    except Exception:  # an unusual dataset class
        return None


def behind_service(pyds: Any) -> Any:
    """The dataset that ``ds.apply(tf.data.experimental.service.distribute(...))`` sent to the service."""
    inputs = getattr(pyds, "_input_datasets", None) or []
    own = python_inputs(pyds) or []
    extra = [d for d in inputs if isinstance(d, tf.data.Dataset) and all(d is not o for o in own)]
    return extra[0] if extra else None


def cardinality(pyds: Any) -> int | None:
    if pyds is None:
        return None
    try:
        return int(pyds.cardinality())
    except Exception:
        return None


def _inputs_of(pyds: Any) -> list:
    inputs = python_inputs(pyds) or []
    service = behind_service(pyds)
    return inputs + ([service] if service is not None else [])


def _unwrapped(pyds: Any) -> Any:
    for _ in range(100):
        inner = next((getattr(pyds, a) for a in _WRAPPERS if getattr(pyds, a, None) is not None), None)
        if inner is None and type(pyds).__name__ == "_RestructuredDataset":
            inner = getattr(pyds, "_input_dataset", None)
        if inner is None:
            return pyds
        pyds = inner
    return pyds


def in_memory_bytes(dataset: Any) -> int:
    """Bytes of the arrays held by ``from_tensor_slices``/``from_tensors`` and by captured tensors."""
    total, seen, todo = 0, set(), [dataset]
    while todo:
        pyds = _unwrapped(todo.pop())
        if id(pyds) in seen:
            continue
        seen.add(id(pyds))
        tensors = list(getattr(pyds, "_tensors", None) or [])
        for wrapper in _wrappers(pyds):
            try:
                tensors.extend(wrapper.function.captured_inputs)
            except Exception:
                pass
        for t in tensors:
            try:
                if t.dtype.name not in ("resource", "variant", "string"):
                    total += int(t.shape.num_elements() or 0) * t.dtype.size
            except Exception:
                pass
        todo.extend(_inputs_of(pyds))
    return total


def _wrappers(pyds: Any) -> list:
    try:
        return list(pyds._functions())
    except Exception:
        return []


def _value(v: Any) -> Any:
    try:
        v = v.numpy() if hasattr(v, "numpy") else v
        v = v.item() if hasattr(v, "item") else v
    except Exception:
        return None
    return v.decode() if isinstance(v, bytes) else v


def read_objects(dataset: Any, note: str | None = None):
    """The stages, read from the Python dataset objects (no serialization, so no copy of the data)."""
    order: list = []
    built: dict[int, Any] = {}
    stack = [(dataset, False)]
    while stack:
        pyds, expanded = stack.pop()
        pyds = _unwrapped(pyds)
        if id(pyds) in built:
            continue
        inputs = [_unwrapped(d) for d in _inputs_of(pyds)]
        if not expanded:
            stack.append((pyds, True))
            stack.extend((d, False) for d in reversed(inputs) if id(d) not in built)
            continue
        kind = class_kind(type(pyds).__name__)
        stage = Stage(op=_OPS.get(kind, type(pyds).__name__.lstrip("_")), kind=kind)
        if "Slice" in type(pyds).__name__ or type(pyds).__name__ in ("_TensorDataset", "_RangeDataset"):
            stage.op = type(pyds).__name__.lstrip("_")
        stage.inputs = [built[id(d)] for d in inputs if id(d) in built]
        for parent in stage.inputs:
            parent.consumers.append(stage)
        stage.params = {name: _value(getattr(pyds, attr)) for attr, name in _PARAM_ATTRS.items() if hasattr(pyds, attr)}
        if kind == "shuffle":
            stage.params["reshuffle_each_iteration"] = bool(_value(getattr(pyds, "_reshuffle_each_iteration", True)))
        if kind == "batch" and type(pyds).__name__ == "_PaddedBatchDataset":
            stage.op = "PaddedBatchDatasetV2"
        if kind == "map" and "num_parallel_calls" in stage.params:
            stage.op = "ParallelMapDatasetV2"
        wrappers = _wrappers(pyds)
        if wrappers:
            _read_python_function(stage, wrappers[0])
        stage.data_bytes = sum(int(t.shape.num_elements() or 0) * t.dtype.size
                               for t in getattr(pyds, "_tensors", None) or [] if t.dtype.name != "string")
        stage.cardinality = cardinality(pyds)
        stage.dataset = pyds
        built[id(pyds)] = stage
        order.append(stage)
        stage.number = len(order)
    stages = Stages(order, read_from="objects", note=note)
    mark_library_stages(stages)
    return stages


def _read_python_function(stage, wrapper) -> None:
    try:
        concrete = wrapper.function
        library = {f.signature.name: f for f in concrete.graph.as_graph_def().library.function}
        fdef = concrete.function_def
        library[fdef.signature.name] = fdef
        read_function(stage, fdef, library)
        stage.fn_name = function_name(wrapper._func) or stage.fn_name
    except Exception:  # the reading degrades: no function contents
        pass
