"""Rules about speed: work that runs one element at a time on one core when it need not."""
from __future__ import annotations

from ...i18n import N_, join_sentences
from ...i18n import gettext as _
from ..functions import PY_FUNCTION_OPS
from ..labels import reader
from ..registry import API, EVERY_STAGE, PERF, PIPELINE, Found, rule
from ..stage import Stage
from .walk import downstream, mine, parallel

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
# Translators: what a map function does to every element, completing "Its function ... for every element".
_DECODES, _RESIZES, _PARSES, _TOKENISES = N_("decodes"), N_("resizes"), N_("parses"), N_("tokenises")
# Translators: what a map function does to every element, completing "Its function ... for every element".
_SPECTROGRAMS, _ENCODES = N_("computes spectrograms"), N_("encodes")
_WHAT = {"Decode": _DECODES, "Resize": _RESIZES, "CropAndResize": _RESIZES, "ScaleAndTranslate": _RESIZES,
         "Parse": _PARSES, "ReadFile": N_("reads files"), "Unicode": _TOKENISES, "Regex": _TOKENISES,
         "StaticRegex": _TOKENISES, "StringSplit": _TOKENISES, "StringNGrams": _TOKENISES,
         "LookupTableFind": N_("looks up tokens"), "StringToHashBucket": N_("hashes tokens"),
         "AudioSpectrogram": _SPECTROGRAMS, "Mfcc": _SPECTROGRAMS, "RFFT": _SPECTROGRAMS, "EncodeJpeg": _ENCODES,
         "EncodePng": _ENCODES, "DeserializeSparse": _PARSES}


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
    """What the op does, in English (translate it where it is shown: ``_(_what(op))``)."""
    if op in PY_FUNCTION_OPS:
        return N_("runs Python")
    if "Tokenize" in op:
        return _TOKENISES
    return next((v for k, v in _WHAT.items() if op.startswith(k)), N_("does heavy work"))


def _both(doings: list[str]) -> str:
    """The translated verb phrases joined: "decodes and resizes and runs Python"."""
    text = _(doings[0])
    for doing in doings[1:]:
        # Translators: two things a map function does, e.g. "decodes and resizes" (the first may be a longer list).
        text = _("{first} and {second}").format(first=text, second=_(doing))
    return text


def _last(s: Stage) -> Stage:
    """The pipeline's last stage, the one whose options hold for all of it."""
    return downstream(s, lambda u: not u.consumers) or s


def _map_parallelization_off(s: Stage) -> bool:
    try:
        return _last(s).dataset.options().experimental_optimization.map_parallelization is False
    except Exception:
        return False


def _fully_defined(s: Stage | None) -> bool | None:
    try:
        import tensorflow as tf

        return all(spec.shape.is_fully_defined() for spec in tf.nest.flatten(s.dataset.element_spec))
    except Exception:
        return None


def _vectorizable(s: Stage) -> bool:
    ops = s.data_ops
    if not (ops & VECTORIZABLE_OPS) or not ops <= (VECTORIZABLE_OPS | _HELPER_OPS) or s.slices_element:
        return False
    # a map that turns same-shaped elements into elements of varying shape (tf.fill([n], x)) has no batch form
    return not (_fully_defined(s.inputs[0] if s.inputs else None) and _fully_defined(s) is False)


@rule("vectorizable-map-before-batch", severity="slow", on="map", skip_library=True,
      summary=N_("A map, later batched (no cache between), whose work on the element is only element-wise maths and "
                 "batch-friendly image ops."),
      why=N_("Each call of a map function has a fixed cost: one call per batch is cheaper than one per element."),
      fix=N_("Batch first and map the batch: ds.batch(b).map(fn)."),
      doc=f"{PERF}#vectorizing_mapping", quote="Vectorize the user-defined function (that is, have it operate over a "
      "batch of inputs at once) and apply the batch transformation before the map transformation.",
      example='tf.data.Dataset.range(100).map(lambda x: x * 2).batch(10)',
      fixed='tf.data.Dataset.range(100).batch(10).map(lambda x: x * 2)')
def vectorizable_map_before_batch(s: Stage) -> Found | None:
    if not _vectorizable(s):
        return None
    batch = downstream(s, lambda u: u.kind == "batch" and mine(u),
                       stop=lambda u: u.kind in ("cache", "unbatch", "batch") or not mine(u))
    if batch is None:
        return None
    ops = ", ".join(sorted(s.data_ops & VECTORIZABLE_OPS))
    return Found(
        _("Its function only uses element-wise TensorFlow ops ({ops}) that work just as well on a whole batch, yet "
          "it runs once per element before {batch}. Each call has a fixed cost, so many small calls are slower than "
          "one big one.").format(ops=ops, batch=batch.where),
        _("Batch first and map the batch: ds.batch(...).map(fn) (check that fn handles the extra batch dimension; "
          "random values then need one draw per image)."))


@rule("map-not-parallel", severity="slow", on="map", skip_library=True,
      summary=N_("A map that decodes, resizes, parses, tokenises or runs Python, without num_parallel_calls, that "
                 "TensorFlow will not parallelize on its own (its function is stateful, or the options turn that "
                 "off)."),
      why=N_("The map runs one element at a time on one core while the others wait."),
      fix=N_("ds.map(fn, num_parallel_calls=tf.data.AUTOTUNE)."),
      doc="https://www.tensorflow.org/api_docs/python/tf/data/experimental/OptimizationOptions",
      quote="Whether to parallelize stateless map transformations.",
      example="tf.data.Dataset.from_tensor_slices(['a.jpg']).map(lambda p: tf.image.random_crop("
              "tf.io.decode_jpeg(tf.io.read_file(p)), [8, 8, 3]))",
      fixed="tf.data.Dataset.from_tensor_slices(['a.jpg']).map(lambda p: tf.image.random_crop("
            "tf.io.decode_jpeg(tf.io.read_file(p)), [8, 8, 3]), num_parallel_calls=tf.data.AUTOTUNE)")
def map_not_parallel(s: Stage) -> Found | None:
    if s.op != "MapDataset":
        return None
    work = work_ops(s)
    if not work:
        return None
    state = stateful_ops(s)
    if not state and not _map_parallelization_off(s):
        return None  # stateless: TensorFlow's map_parallelization (on by default) runs it in parallel
    kinds = sorted({_what(op) for op in work})
    if state:
        # Translators: {does} is what the function does, e.g. "decodes and resizes"; {ops} and {stateful} list ops.
        message = _("Its function {does} ({ops}) for every element, one element at a time on one core: it has no "
                    "num_parallel_calls, and its function is stateful ({stateful}), and TensorFlow's automatic "
                    "map_parallelization only rewrites stateless functions.")
    else:
        # Translators: {does} is what the function does, e.g. "decodes and resizes"; {ops} lists ops.
        message = _("Its function {does} ({ops}) for every element, one element at a time on one core: it has no "
                    "num_parallel_calls, and this pipeline's options turn map_parallelization off.")
    fix = _("Run it in parallel: ds.map({name}, num_parallel_calls=tf.data.AUTOTUNE).").format(name=s.fn_name or "fn")
    if set(work) & PY_FUNCTION_OPS:
        fix = join_sentences(fix, _("Parallel calls help Python that waits (file or network reads) because waiting "
                                    "releases the GIL; pure-Python computation holds the GIL, so write that part "
                                    "with TensorFlow ops."))
    return Found(message.format(does=_both(kinds), ops=_(", ").join(work[:4]), stateful=_(", ").join(state[:4])), fix)


def _one_file(s: Stage) -> bool:
    """The reader's file names are a constant list of one name."""
    src = s.inputs[0] if s.inputs else None
    tensors = getattr(src.dataset, "_tensors", None) if src is not None and src.dataset is not None else None
    try:
        return bool(tensors) and len(tensors) == 1 and int(tensors[0].shape.num_elements()) == 1
    except Exception:
        return False


def _zipped(s: Stage) -> bool:
    """The lines feed a zip (first stage after the reader that is not a map): two files kept line by line together."""
    after = downstream(s, lambda u: u.kind not in ("map", "prefetch", "options"), stop=lambda u: u.kind == "zip")
    return after is not None and after.kind == "zip"


@rule("sequential-file-reading", severity="slow", on=EVERY_STAGE,
      summary=N_("Several files read one after another: flat_map(TFRecordDataset), interleave without "
                 "num_parallel_calls, or a reader without num_parallel_reads (one file, or line-aligned files "
                 "zipped together, are left alone)."),
      why=N_("While one file waits for the disk or the network, nothing else is read."),
      fix=N_("files.interleave(reader, num_parallel_calls=tf.data.AUTOTUNE), or num_parallel_reads=tf.data.AUTOTUNE."),
      doc="https://www.tensorflow.org/api_docs/python/tf/data/TFRecordDataset",
      quote="If None, files will be read sequentially.",
      example="tf.data.TFRecordDataset(['a.tfrecord', 'b.tfrecord'])",
      fixed="tf.data.TFRecordDataset(['a.tfrecord', 'b.tfrecord'], num_parallel_reads=tf.data.AUTOTUNE)")
def sequential_file_reading(s: Stage) -> Found | None:
    name = reader(s)
    if s.op not in ("FlatMapDataset", "InterleaveDataset") or name is None or s.input_cardinality in (0, 1):
        return None
    if _one_file(s) or _zipped(s):
        return None  # nothing to read in parallel, or the order of the lines must be kept
    if s.library:
        fix = _("Read several files at once: tf.data.{reader}(filenames, num_parallel_reads=tf.data.AUTOTUNE).")
    else:
        fix = _("Interleave the files in parallel: files.interleave(tf.data.{reader}, cycle_length=..., "
                "num_parallel_calls=tf.data.AUTOTUNE) (add deterministic=False if the order may vary).")
    return Found(_("It reads its files one after another on one thread: while one file waits for the disk (or the "
                   "network), nothing else is read."), fix.format(reader=name))


def _cheap_generator(s: Stage) -> bool:
    """A generator of scalar ids or file names: the index trick, cheap by design."""
    try:
        import tensorflow as tf

        specs = tf.nest.flatten(s.dataset.element_spec)
        return all(sp.shape.rank == 0 and (sp.dtype.is_integer or sp.dtype in (tf.string, tf.bool)) for sp in specs)
    except Exception:
        return False


@rule("generator-source", severity="slow", on="source",
      summary=N_("from_generator that yields the data itself (a generator of scalar indices or file names is fine)."),
      why=N_("A Python generator runs in one thread and holds the GIL, and the pipeline cannot be sent to the "
             "tf.data service."),
      fix=N_("A native source, or a generator of indices and ds.map(load, num_parallel_calls=tf.data.AUTOTUNE)."),
      doc=f"{API}#from_generator", quote="using from_generator will preclude the use of tf.data service for "
      "scaling out dataset processing.",
      example='tf.data.Dataset.from_generator(lambda: iter([np.zeros(3)]), output_signature=tf.TensorSpec((3,), tf.float64))',
      fixed='tf.data.Dataset.from_tensor_slices(np.zeros((1, 3)))')
def generator_source(s: Stage) -> Found | None:
    if s.fn_name != "generator" or _cheap_generator(s):
        return None
    return Found(
        _("Its elements come from a Python generator, which runs in one thread and holds the GIL: nothing upstream "
          "of it can run in parallel, and the pipeline cannot be sent to the tf.data service or serialized."),
        _("Use a native source when one fits (from_tensor_slices, TFRecordDataset, ...), or the index trick: a "
          "generator (or range) of indices, then ds.map(load, num_parallel_calls=tf.data.AUTOTUNE) does the work."))


#: Ops that hand over elements made on background threads: nothing to prefetch after them.
_ASYNC = ("Prefetch", "ParallelMap", "ParallelBatch", "MapAndBatch", "ParallelInterleave",
          "LegacyParallelInterleave", "ParallelFilter", "DataServiceDataset")


def _injection_off(stages: list[Stage]) -> str | None:
    """Why TensorFlow will not add a prefetch itself (its options turn autotuning or inject_prefetch off), or None."""
    try:
        options = stages[-1].dataset.options()
    except Exception:
        return None
    if options.autotune.enabled is False:
        return "options.autotune.enabled = False"
    if options.experimental_optimization.inject_prefetch is False:
        return "options.experimental_optimization.inject_prefetch = False"
    return None


def _asynchronous(s: Stage) -> bool:
    return s.op.startswith(_ASYNC) or (s.kind == "batch" and parallel(s))


@rule("no-prefetch-at-end", severity="note", severities=("slow",), on=PIPELINE,
      summary=N_("The last stage runs synchronously and is not a prefetch: a note where TensorFlow adds "
                 "prefetch(AUTOTUNE) itself (inject_prefetch, on by default), slow where the options turn that off."),
      why=N_("Without a prefetch at the end, preparing the next element does not overlap with the training step."),
      fix=N_("Add .prefetch(tf.data.AUTOTUNE) as the last step (or leave it to TensorFlow's inject_prefetch)."),
      doc=f"{PERF}#prefetching", quote="Prefetching overlaps the preprocessing and model execution of a "
      "training step.",
      example='tf.data.Dataset.range(100).batch(10)',
      fixed='tf.data.Dataset.range(100).batch(10).prefetch(tf.data.AUTOTUNE)')
def no_prefetch_at_end(stages: list[Stage]) -> Found | None:
    if not stages:
        return None
    end = stages[-1]
    while end.kind in ("options", "take") and end.inputs:
        end = end.inputs[0]
    if _asynchronous(end):
        return None  # a prefetch, or a stage that already works ahead on its own threads
    off = _injection_off(stages)
    if off is None:
        return Found(
            _("The pipeline ends with {stage}, which works only when asked. TensorFlow adds "
              "prefetch(tf.data.AUTOTUNE) after it by itself when the iterator is made (its inject_prefetch "
              "optimization, on by default), so the next element is prepared during the training step "
              "anyway.").format(stage=end.where),
            _("Nothing to do. Writing .prefetch(tf.data.AUTOTUNE) at the end makes that explicit and keeps it on "
              "TensorFlow versions or options without the injection."),
            severity="note", stage=end)
    return Found(
        _("The pipeline ends with {stage}, which works only when asked, and its options ({option}) stop TensorFlow "
          "from adding a prefetch itself: preparing the next element does not overlap with the training step that "
          "uses this one.").format(stage=end.where, option=off),
        _("Add .prefetch(tf.data.AUTOTUNE) as the last step."), severity="slow", stage=end)
