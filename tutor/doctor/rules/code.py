"""Rules about the code around the pipeline: Python randomness, the service, big arrays, old APIs.

``deprecated-experimental`` sees only the deprecated calls that build their own
ops (``parallel_interleave``, ``map_and_batch``, ``shuffle_and_repeat``).
``tf.data.experimental.AUTOTUNE`` is the same number (-1) as
``tf.data.AUTOTUNE``, and ``tf.data.experimental.ignore_errors()`` builds the
same op as ``Dataset.ignore_errors()``: the built pipeline cannot tell them
apart, and they behave the same, so the doctor says nothing about them.
"""
from __future__ import annotations

import builtins
import dis
import types
from typing import Any

from ...i18n import N_
from ...i18n import gettext as _
from ..functions import PY_FUNCTION_OPS
from ..objects import library_of, python_functions
from ..registry import API, EVERY_STAGE, EXPERIMENTAL, GUIDE, PIPELINE, Found, rule
from ..stage import Stage
from .walk import upstream

#: In-memory data from this many bytes on: a real risk for the 2 GB GraphDef limit when serialized.
LARGE_SOURCE_BYTES = 512 * 2**20
_EXPERIMENTAL = EXPERIMENTAL
#: op -> (deprecated call, replacement, its API page, the deprecation note)
DEPRECATED_OPS = {
    "LegacyParallelInterleaveDatasetV2": (
        "tf.data.experimental.parallel_interleave",
        "ds.interleave(fn, cycle_length=..., num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)",
        _EXPERIMENTAL + "parallel_interleave",
        "Use tf.data.Dataset.interleave(map_func, cycle_length, block_length, num_parallel_calls=tf.data.AUTOTUNE) instead."),
    "MapAndBatchDataset": (
        "tf.data.experimental.map_and_batch", "ds.map(fn, num_parallel_calls=tf.data.AUTOTUNE).batch(batch_size)",
        _EXPERIMENTAL + "map_and_batch",
        "Static tf.data optimizations will take care of using the fused implementation."),
    "ShuffleAndRepeatDatasetV2": (
        "tf.data.experimental.shuffle_and_repeat", "ds.shuffle(buffer_size).repeat(count)",
        _EXPERIMENTAL + "shuffle_and_repeat",
        "Static tf.data optimizations will take care of using the fused implementation."),
}
DEPRECATED_OPS["ShuffleAndRepeatDataset"] = DEPRECATED_OPS["ShuffleAndRepeatDatasetV2"]
DEPRECATED_OPS["ParallelInterleaveDataset"] = DEPRECATED_OPS["LegacyParallelInterleaveDatasetV2"]
_LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF")
_ATTRS = ("LOAD_ATTR", "LOAD_METHOD")
#: Calls whose function argument runs as Python for every element: random numbers there are fine.
_PY_CALLS = frozenset({"numpy_function", "py_function", "py_func", "eager_py_func"})


def _random_object(obj: Any) -> bool:
    """Python's or NumPy's random numbers: the modules, their functions, Generator/RandomState objects."""
    names = []
    if isinstance(obj, types.ModuleType):
        names.append(obj.__name__)
    else:
        names.append(getattr(obj, "__module__", None) or "")
        owner = getattr(obj, "__self__", None)
        names.append(type(owner).__module__ if owner is not None else "")
        names.append(type(obj).__module__ or "")
    return any(n == "random" or n.startswith("numpy.random") for n in names if isinstance(n, str))


def python_random_uses(func: Any, limit: int = 50) -> list[str]:
    """Names of Python/NumPy random calls in ``func`` and the plain Python functions it calls (bounded)."""
    found, seen, todo = [], set(), [func]
    while todo and len(seen) < limit:
        f = todo.pop()
        f = getattr(f, "__func__", f)
        code = getattr(f, "__code__", None)
        if code is None or id(code) in seen or library_of(f) or not isinstance(f, types.FunctionType):
            continue
        seen.add(id(code))
        cells = dict(zip(code.co_freevars, f.__closure__ or ()))
        codes = [code]
        while codes:
            c = codes.pop()
            instructions = list(dis.get_instructions(c))
            python_side = _python_side(instructions)
            codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType) and id(k) not in python_side)
            for k, ins in enumerate(instructions):
                if ins.opname not in _LOADS or k in python_side:
                    continue
                obj = _resolve(ins, f, cells if c is code else {})
                nxt = instructions[k + 1] if k + 1 < len(instructions) else None
                if _random_object(obj) or (isinstance(obj, types.ModuleType) and obj.__name__ == "numpy"
                                           and nxt is not None and nxt.opname in _ATTRS and nxt.argval == "random"):
                    found.append(str(ins.argval) + ("." + nxt.argval if nxt is not None and nxt.opname in _ATTRS else ""))
                elif isinstance(obj, types.FunctionType):
                    todo.append(obj)
    return sorted(set(found))


def _python_side(instructions: list) -> set:
    """The function handed to ``tf.numpy_function``/``tf.py_function`` in these instructions.

    Returns the positions of the instructions that load it (a name) and the ids of
    the code objects that build it (a lambda): that code runs as Python for every
    element, so its random numbers are drawn each time.
    """
    out = set()
    for k, ins in enumerate(instructions):
        named = ins.opname in _ATTRS + _LOADS and ins.argval in _PY_CALLS
        if not named:
            continue
        for j in range(k + 1, min(k + 4, len(instructions))):  # the first argument follows the call's name
            nxt = instructions[j]
            if nxt.opname in ("PUSH_NULL", "PRECALL", "KW_NAMES"):
                continue
            if nxt.opname in _LOADS:
                out.add(j)
            elif nxt.opname == "LOAD_CONST" and isinstance(nxt.argval, types.CodeType):
                out.add(id(nxt.argval))
            break
    return out


def _resolve(ins, f, cells: dict) -> Any:
    name = ins.argval
    if ins.opname == "LOAD_DEREF":
        try:
            return cells[name].cell_contents if name in cells else None
        except ValueError:
            return None
    return f.__globals__.get(name, vars(builtins).get(name))


@rule("python-random-in-map", severity="wrong", on=EVERY_STAGE, skip_library=True,
      summary=N_("Python's random or np.random called in a map function's traced code (not inside the function it "
                 "hands to numpy_function or py_function)."),
      why=N_("tf.data traces the function once: the Python call ran once, so every element gets the same 'random' "
             "value in every epoch."),
      fix=N_("Draw random numbers with TensorFlow ops: tf.random.uniform, the tf.image.random_* ops, "
             "tf.random.Generator."),
      doc=f"{API}#map", quote="tf.data traces the function and executes it as a graph.",
      example='tf.data.Dataset.range(100).map(lambda x: tf.cast(x, tf.float32) * np.random.uniform())',
      fixed='tf.data.Dataset.range(100).map(lambda x: tf.cast(x, tf.float32) * tf.random.uniform([]))')
def python_random_in_map(s: Stage) -> Found | None:
    if s.dataset is None:
        return None
    uses = sorted({u for f in python_functions(s.dataset) for u in python_random_uses(f)})
    if not uses:
        return None
    return Found(
        # Translators: {calls} lists Python calls, e.g. "np.random.uniform, random.random".
        _("Its Python function calls {calls}. tf.data traces the function once into a graph, so that Python call ran "
          "once, at trace time: its result is a constant, and every element gets the same 'random' value in every "
          "epoch.").format(calls=", ".join(uses)),
        _("Draw random numbers with TensorFlow ops inside the function: tf.random.uniform(...), the tf.image.random_* "
          "ops, or tf.random.Generator / stateless ops with a seed per element."))


@rule("python-before-service", severity="wrong", on="distribute",
      summary=N_("py_function, numpy_function or from_generator in the pipeline sent to the tf.data service."),
      why=N_("The service's workers run a serialized graph: Python functions are not part of it."),
      fix=N_("Write that step with TensorFlow ops, or run it after distribute() on the trainer."),
      doc=f"{API}#from_generator", quote="using from_generator will preclude the use of tf.data service for "
      "scaling out dataset processing.")
def python_before_service(s: Stage) -> Found | None:
    py = upstream(s, lambda u: bool(u.fn_ops & PY_FUNCTION_OPS) or (u.kind == "source" and u.fn_name == "generator"))
    if py is None:
        return None
    return Found(
        _("The pipeline it sends to the tf.data service runs Python at {stage}. The service's workers run a "
          "serialized graph, and Python functions (py_function, numpy_function, from_generator) are not part of it: "
          "workers in another process cannot run them.").format(stage=py.where),
        _("Write that step with TensorFlow ops before distributing, or run it after distribute() on the trainer; "
          "replace from_generator with a native source (files, from_tensor_slices of indices)."))


@rule("large-in-memory-source", severity="note", on=PIPELINE,
      summary=N_("512 MB or more of arrays embedded by from_tensor_slices or from_tensors."),
      why=N_("Serializing the dataset (the tf.data service, some distribution strategies) puts those bytes into one "
             "GraphDef, limited to 2 GB, and memory holds extra copies."),
      fix=N_("Write the arrays to TFRecord files (or Dataset.save) and read those."),
      doc=f"{GUIDE}#consuming_numpy_arrays", quote="can run into the 2GB limit for the tf.GraphDef protocol buffer.")
def large_in_memory_source(stages: list[Stage]) -> Found | None:
    total = sum(s.data_bytes for s in stages)
    if total < LARGE_SOURCE_BYTES:
        return None
    return Found(
        _("The pipeline embeds {megabytes:.0f} MB of in-memory arrays as constants. Whenever the dataset is "
          "serialized (the tf.data service, some distribution strategies, saving it inside a model graph) those "
          "bytes go into one GraphDef, which cannot exceed 2 GB, and memory holds extra copies.").format(
            megabytes=total / 2**20),
        _("Write the arrays to TFRecord files (or Dataset.save) and read those; or keep the arrays outside the "
          "graph and slice indices: tf.data.Dataset.range(n).map(lambda i: tf.gather(x, i)) with x a tf.Variable."),
        stage=max(stages, key=lambda s: s.data_bytes))


@rule("deprecated-experimental", severity="note", on=EVERY_STAGE, skip_library=True,
      summary=N_("tf.data.experimental calls that build their own ops and have core replacements (parallel_interleave, "
                 "map_and_batch, shuffle_and_repeat), in the user's own code (never in a library utility's stages)."),
      why=N_("They still work, but they are deprecated: the core Dataset methods do the same, and TensorFlow fuses "
             "or parallelizes them on its own."),
      fix=N_("Use the core method the deprecation note names."),
      doc=EXPERIMENTAL + "map_and_batch", quote="Static tf.data optimizations will take care of using the fused "
      "implementation.",
      example='tf.data.Dataset.range(100).apply(tf.data.experimental.map_and_batch(lambda x: x + 1, 10))',
      fixed='tf.data.Dataset.range(100).map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE).batch(10)')
def deprecated_experimental(s: Stage) -> Found | None:
    if s.op not in DEPRECATED_OPS:
        return None
    call, replacement, page, note = DEPRECATED_OPS[s.op]
    return Found(
        _("It was built with {call}, which is deprecated: the core Dataset methods do the same, and TensorFlow fuses "
          "or parallelizes them on its own.").format(call=call),
        _("Use {replacement}.").format(replacement=replacement), doc=page, quote=note)
