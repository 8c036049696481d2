"""Rules about speed: work that runs one element at a time on one core when it need not."""
from __future__ import annotations

from typing import Iterator

from ..functions import PY_FUNCTION_OPS
from ..graph import Stage
from ..labels import reader
from ..report import Finding
from .walk import downstream, mine

#: Element-wise maths and image ops that work the same on a whole batch.
VECTORIZABLE_OPS = frozenset({
    "Cast", "Mul", "RealDiv", "Div", "DivNoNan", "AddV2", "Add", "Sub", "Neg", "Abs", "Square",
    "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Pow", "Maximum", "Minimum", "ClipByValue", "Floor",
    "Ceil", "Round", "Tanh", "Sigmoid", "Relu", "Sin", "Cos", "SquaredDifference", "FloorDiv",
    "FloorMod", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "Select",
    "SelectV2", "ImageProjectiveTransformV2", "ImageProjectiveTransformV3", "AdjustContrastv2",
    "AdjustContrast", "AdjustSaturation", "AdjustHue", "RGBToHSV", "HSVToRGB",
})
#: Ops that may sit around the maths (constants, reshaping, random numbers, calls). A function that cuts
#: its element (``x[2:]``, ``x[:, ::-1]``) is never flagged: one element and a batch cut differently.
_HELPER_OPS = frozenset({
    "Const", "Identity", "IdentityN", "NoOp", "Placeholder", "Shape", "Reshape", "ExpandDims",
    "Squeeze", "Pack", "Unpack", "ConcatV2", "StridedSlice", "Fill", "ZerosLike", "OnesLike",
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
    "PartitionedCall", "StatefulPartitionedCall",
})
#: Real work in a map function: decoding, resizing, parsing, tokenising, file reads, audio, Python.
_WORK_PREFIXES = ("Decode", "Resize", "Parse", "Unicode", "Regex", "StaticRegex", "StringSplit", "StringNGrams",
                  "LookupTableFind", "StringToHashBucket", "CropAndResize", "ScaleAndTranslate", "AudioSpectrogram",
                  "Mfcc", "RFFT", "EncodeJpeg", "EncodePng", "ReadFile", "DeserializeSparse")
_NOT_STATE = frozenset({"Assert", "Print", "PrintV2"})  # TensorFlow's own rewrite ignores these too
_WHAT = {"Decode": "decodes", "Resize": "resizes", "CropAndResize": "resizes", "ScaleAndTranslate": "resizes",
         "Parse": "parses", "ReadFile": "reads files", "Unicode": "tokenises", "Regex": "tokenises",
         "StaticRegex": "tokenises", "StringSplit": "tokenises", "StringNGrams": "tokenises",
         "LookupTableFind": "looks up tokens", "StringToHashBucket": "hashes tokens", "AudioSpectrogram": "computes spectrograms",
         "Mfcc": "computes spectrograms", "RFFT": "computes spectrograms", "EncodeJpeg": "encodes",
         "EncodePng": "encodes", "DeserializeSparse": "parses"}


def work_ops(s: Stage) -> list[str]:
    """The ops of real work the stage's function runs on the element."""
    ops = s.data_ops or s.fn_ops
    return sorted(op for op in ops if op.startswith(_WORK_PREFIXES) or "Tokenize" in op or op in PY_FUNCTION_OPS)


def stateful_ops(s: Stage) -> list[str]:
    """The ops of the stage's function that TensorFlow marks stateful (random ops, Python, variables)."""
    try:
        from tensorflow.python.framework import op_def_registry
    except Exception:
        return []
    out = []
    for op in sorted(s.fn_ops - _NOT_STATE):
        op_def = op_def_registry.get(op)
        if op_def is not None and op_def.is_stateful:
            out.append(op)
    return out


def _what(op: str) -> str:
    if op in PY_FUNCTION_OPS:
        return "runs Python"
    if "Tokenize" in op:
        return "tokenises"
    return next((v for k, v in _WHAT.items() if op.startswith(k)), "does heavy work")


def _map_parallelization_off(stages: list[Stage]) -> bool:
    try:
        return stages[-1].dataset.options().experimental_optimization.map_parallelization is False
    except Exception:
        return False


def _vectorizable(s: Stage) -> bool:
    ops = s.data_ops
    return bool(ops & VECTORIZABLE_OPS) and ops <= (VECTORIZABLE_OPS | _HELPER_OPS) and not s.slices_element


def vectorizable_map_before_batch(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "map" or not mine(s) or not _vectorizable(s):
            continue
        batch = downstream(s, lambda u: u.kind == "batch" and mine(u),
                           stop=lambda u: u.kind in ("cache", "unbatch", "batch") or not mine(u))
        if batch is None:
            continue
        ops = ", ".join(sorted(s.data_ops & VECTORIZABLE_OPS))
        yield Finding(
            "vectorizable-map-before-batch", s,
            f"Its function only uses element-wise TensorFlow ops ({ops}) that work just as well on a whole batch, "
            f"yet it runs once per element before {batch.where}. Each call has a fixed cost, so many small calls "
            "are slower than one big one.",
            "Batch first and map the batch: ds.batch(...).map(fn) (check that fn handles the extra batch "
            "dimension; random values then need one draw per image).",
            category="performance",
        )


def map_not_parallel(stages: list[Stage]) -> Iterator[Finding]:
    off = _map_parallelization_off(stages)
    for s in stages:
        if s.kind != "map" or s.op not in ("MapDataset",) or not mine(s):
            continue
        work = work_ops(s)
        state = stateful_ops(s)
        if not work or not (state or off):
            continue  # stateless: TensorFlow's map_parallelization (on by default) runs it in parallel
        kinds = sorted({_what(op) for op in work})
        because = (f"its function is stateful ({', '.join(state[:4])}), and TensorFlow's automatic "
                   "map_parallelization only rewrites stateless functions" if state else
                   "this pipeline's options turn map_parallelization off")
        python = set(work) & PY_FUNCTION_OPS
        extra = (" Parallel calls help Python that waits (file or network reads) because waiting releases the "
                 "GIL; pure-Python computation holds the GIL, so write that part with TensorFlow ops."
                 if python else "")
        yield Finding(
            "map-not-parallel", s,
            f"Its function {' and '.join(kinds)} ({', '.join(work[:4])}) for every element, one element at a time "
            f"on one core: it has no num_parallel_calls, and {because}.",
            f"Run it in parallel: ds.map({s.fn_name or 'fn'}, num_parallel_calls=tf.data.AUTOTUNE).{extra}",
            category="performance",
        )


def sequential_file_reading(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        name = reader(s)
        if s.op not in ("FlatMapDataset", "InterleaveDataset") or name is None or s.input_cardinality in (0, 1):
            continue
        if s.library:
            fix = f"Read several files at once: tf.data.{name}(filenames, num_parallel_reads=tf.data.AUTOTUNE)."
        else:
            fix = (f"Interleave the files in parallel: files.interleave(tf.data.{name}, cycle_length=..., "
                   "num_parallel_calls=tf.data.AUTOTUNE) (add deterministic=False if the order may vary).")
        yield Finding(
            "sequential-file-reading", s,
            "It reads its files one after another on one thread: while one file waits for the disk (or the "
            "network), nothing else is read.",
            fix, category="performance",
        )


def _cheap_generator(s: Stage) -> bool:
    """A generator of scalar ids or file names: the index trick, cheap by design."""
    try:
        import tensorflow as tf

        specs = tf.nest.flatten(s.dataset.element_spec)
        return all(sp.shape.rank == 0 and (sp.dtype.is_integer or sp.dtype in (tf.string, tf.bool)) for sp in specs)
    except Exception:
        return False


def generator_source(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "source" or s.fn_name != "generator" or _cheap_generator(s):
            continue
        yield Finding(
            "generator-source", s,
            "Its elements come from a Python generator, which runs in one thread and holds the GIL: nothing "
            "upstream of it can run in parallel, and the pipeline cannot be sent to the tf.data service or "
            "serialized.",
            "Use a native source when one fits (from_tensor_slices, TFRecordDataset, ...), or the index trick: a "
            "generator (or range) of indices, then ds.map(load, num_parallel_calls=tf.data.AUTOTUNE) does the work.",
            category="performance",
        )


def no_prefetch_at_end(stages: list[Stage]) -> Iterator[Finding]:
    if not stages:
        return
    last = end = stages[-1]
    while end.kind in ("options", "take") and end.inputs:
        end = end.inputs[0]
    if end.kind == "prefetch":
        return
    yield Finding(
        "no-prefetch-at-end", last,
        "The pipeline does not end with prefetch, so preparing the next element does not overlap with the "
        "training step that uses this one. (Recent TensorFlow versions may inject a prefetch on their own, but "
        "that depends on options and versions.)",
        "Add .prefetch(tf.data.AUTOTUNE) as the last step.",
        category="performance",
    )
