"""The doctor's rules: each looks at the stages and returns findings.

Every rule is deliberately conservative: it speaks only when the graph shows
the mistake, so the lessons' good pipelines come back clean.
"""
from __future__ import annotations

from typing import Callable, Iterator

from .graph import AUTOTUNE, PY_FUNCTION_OPS, Stage
from .report import Finding

#: A shuffle buffer under this fraction of a dataset of known size counts as "small".
SMALL_BUFFER_FRACTION = 0.1

#: Element-wise maths and image ops that work the same on a whole batch.
VECTORIZABLE_OPS = frozenset({
    "Cast", "Mul", "RealDiv", "Div", "DivNoNan", "AddV2", "Add", "Sub", "Neg", "Abs", "Square",
    "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Pow", "Maximum", "Minimum", "ClipByValue", "Floor",
    "Ceil", "Round", "Tanh", "Sigmoid", "Relu", "Sin", "Cos", "SquaredDifference", "FloorDiv",
    "FloorMod", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "Select",
    "SelectV2", "ImageProjectiveTransformV2", "ImageProjectiveTransformV3", "AdjustContrastv2",
    "AdjustContrast", "AdjustSaturation", "AdjustHue", "RGBToHSV", "HSVToRGB",
})
#: Ops that may sit around the maths (constants, reshaping, random numbers, calls).
_HELPER_OPS = frozenset({
    "Const", "Identity", "IdentityN", "NoOp", "Placeholder", "Shape", "Reshape", "ExpandDims",
    "Squeeze", "Pack", "Unpack", "ConcatV2", "StridedSlice", "Fill", "ZerosLike", "OnesLike",
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
    "PartitionedCall", "StatefulPartitionedCall",
})
_PASS_THROUGH_AT_END = {"options", "take"}


def upstream(stage: Stage, want: Callable[[Stage], bool], stop: Callable[[Stage], bool] = lambda s: False) -> Stage | None:
    """The nearest stage before ``stage`` for which ``want`` holds, not looking past ``stop``."""
    for s in stage.inputs:
        if want(s):
            return s
        if not stop(s):
            found = upstream(s, want, stop)
            if found is not None:
                return found
    return None


def downstream(stage: Stage, want: Callable[[Stage], bool], stop: Callable[[Stage], bool] = lambda s: False) -> Stage | None:
    """The nearest stage after ``stage`` for which ``want`` holds, not looking past ``stop``."""
    for s in stage.consumers:
        if want(s):
            return s
        if not stop(s):
            found = downstream(s, want, stop)
            if found is not None:
                return found
    return None


def _is(*kinds: str) -> Callable[[Stage], bool]:
    return lambda s: s.kind in kinds


def _repeats(s: Stage) -> bool:
    return s.kind == "repeat" and s.params.get("count") not in (0, 1)


def _infinite_repeat(s: Stage) -> bool:
    return s.kind in ("repeat", "shuffle_and_repeat") and s.params.get("count") == -1


def _finite_take(s: Stage) -> bool:
    return s.kind == "take" and s.params.get("count") not in (None, -1)


def _reshuffles(s: Stage) -> bool:
    return s.kind in ("shuffle", "shuffle_and_repeat") and s.params.get("reshuffle_each_iteration", True)


def _parallel(s: Stage) -> bool:
    n = s.params.get("num_parallel_calls")
    return n is not None and (n == AUTOTUNE or n > 1)


def _random_map(s: Stage) -> bool:
    """A map whose output changes between epochs (seeds from a random dataset count too)."""
    if s.kind != "map":
        return False
    return s.random_fn or (s.element_seeded and upstream(s, lambda u: u.op.startswith("RandomDataset")) is not None)


def _vectorizable(s: Stage) -> bool:
    ops = s.fn_ops
    return bool(ops) and ops <= (VECTORIZABLE_OPS | _HELPER_OPS) and bool(ops & VECTORIZABLE_OPS)


# ----------------------------------------------------------------------- rules
def shuffle_after_batch(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "shuffle":
            continue
        batch = upstream(s, _is("batch"), stop=_is("unbatch", "shuffle"))
        if batch is None or upstream(batch, _is("shuffle", "shuffle_and_repeat"), stop=_is("unbatch")):
            continue
        yield Finding(
            "shuffle-after-batch", s,
            f"It comes after {batch.where}, so it shuffles whole batches: the same examples always "
            "share a batch, and only the order of the batches changes.",
            f"Shuffle the examples before batching: ds.shuffle(...).batch({batch.params.get('batch_size', '...')}).",
        )


def small_shuffle_buffer(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        size, buffer = s.input_cardinality, s.params.get("buffer_size")
        if s.kind != "shuffle" or not isinstance(buffer, int) or size is None or size < 0:
            continue
        if buffer >= SMALL_BUFFER_FRACTION * size:
            continue
        yield Finding(
            "small-shuffle-buffer", s,
            f"The buffer holds {buffer} of the {size} elements that reach it ({100 * buffer / size:.1f}%). "
            f"An element can come out at most {buffer - 1} places earlier than it went in, so the output "
            "stays close to the input order: the first batches all come from the start of the data.",
            f"For a full shuffle use a buffer at least as large as the dataset: ds.shuffle({size}). If the "
            "elements are too big for that, shuffle something small (file names or indices) with a full "
            "buffer before the expensive map.",
        )


def repeat_before_shuffle(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "shuffle":
            continue
        rep = upstream(s, _repeats)
        if rep is None:
            continue
        yield Finding(
            "repeat-before-shuffle", s,
            f"It comes after {rep.where}, so the buffer mixes epochs: an element can come back a second "
            "time before another one has appeared once, and there is no clean epoch boundary.",
            "Shuffle first, then repeat: ds.shuffle(...).repeat(...) keeps the epochs apart and gives a "
            "new order in every epoch.",
        )


def random_map_before_cache(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "cache":
            continue
        rnd = upstream(s, _random_map, stop=_is("cache"))
        if rnd is None:
            continue
        yield Finding(
            "random-map-before-cache", s,
            f"It stores the output of {rnd.where}, which draws random numbers. From the second epoch on, "
            "the cache replays the first epoch's random results: the augmentation is frozen.",
            "Cache the deterministic work (decoding, resizing) and apply the random augmentation after "
            "cache(): ds.map(decode).cache().map(augment).",
            category="correctness",
        )


def cache_after_infinite_repeat(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "cache":
            continue
        rep = upstream(s, _infinite_repeat, stop=_finite_take)
        if rep is None and s.input_cardinality != -1:
            continue
        after = f"It comes after {rep.where}, so its" if rep else "Its"
        yield Finding(
            "cache-after-infinite-repeat", s,
            f"{after} input never ends: the cache can never finish its first pass, memory (or the cache "
            "file) grows without limit, and nothing is ever read back from it.",
            "Cache the finite data, then repeat: ds.cache().repeat().",
        )


def vectorizable_map_before_batch(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "map" or not _vectorizable(s):
            continue
        batch = downstream(s, _is("batch"), stop=_is("cache", "unbatch", "batch"))
        if batch is None:
            continue
        ops = ", ".join(sorted(s.fn_ops & VECTORIZABLE_OPS))
        yield Finding(
            "vectorizable-map-before-batch", s,
            f"Its function only uses element-wise TensorFlow ops ({ops}) that work just as well on a "
            f"whole batch, yet it runs once per element before {batch.where}. Each call has a fixed cost, "
            "so many small calls are slower than one big one.",
            "Batch first and map the batch: ds.batch(...).map(fn) (check that fn handles the extra "
            "batch dimension; random values then need one draw per image).",
            category="performance",
        )


def py_function_in_parallel_map(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "map" or not _parallel(s) or not (s.fn_ops & PY_FUNCTION_OPS):
            continue
        yield Finding(
            "py-function-in-parallel-map", s,
            "Its function calls Python (tf.py_function or tf.numpy_function). Python code holds the GIL, "
            "so the parallel calls mostly wait for each other; only work that releases the GIL (large "
            "NumPy/SciPy operations, file reads) overlaps.",
            "Rewrite the function with TensorFlow ops so the parallel calls really run at once, or time "
            "the pipeline with and without num_parallel_calls to see whether it helps.",
            category="performance",
        )


def no_prefetch_at_end(stages: list[Stage]) -> Iterator[Finding]:
    if not stages:
        return
    last = stages[-1]
    end = last
    while end.kind in _PASS_THROUGH_AT_END and end.inputs:
        end = end.inputs[0]
    if end.kind == "prefetch":
        return
    yield Finding(
        "no-prefetch-at-end", last,
        "The pipeline does not end with prefetch, so preparing the next element does not overlap "
        "with the training step that uses this one. (Recent TensorFlow versions may inject a prefetch "
        "on their own, but that depends on options and versions.)",
        "Add .prefetch(tf.data.AUTOTUNE) as the last step.",
        category="performance",
    )


def split_after_reshuffle(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind not in ("take", "skip") or s.params.get("count") in (None, -1, 0):
            continue
        shuf = upstream(s, _reshuffles, stop=_is("repeat"))
        if shuf is None or s.input_cardinality == -1 or upstream(s, _infinite_repeat):
            continue  # taking steps from an endless stream is a step limit, not a split
        yield Finding(
            "split-after-reshuffle", s,
            f"It splits the output of {shuf.where}, which draws a new order every time the dataset is "
            f"iterated. So {s.kind}() picks different elements in every epoch: a train/test split made this "
            "way leaks test examples into training.",
            "Split first and shuffle only the training part: train = ds.skip(n).shuffle(...), "
            "test = ds.take(n); or pass reshuffle_each_iteration=False to the shuffle before splitting.",
        )


#: rule id -> rule function, in the order the report lists them.
RULES = {
    "shuffle-after-batch": shuffle_after_batch,
    "small-shuffle-buffer": small_shuffle_buffer,
    "repeat-before-shuffle": repeat_before_shuffle,
    "random-map-before-cache": random_map_before_cache,
    "cache-after-infinite-repeat": cache_after_infinite_repeat,
    "vectorizable-map-before-batch": vectorizable_map_before_batch,
    "py-function-in-parallel-map": py_function_in_parallel_map,
    "no-prefetch-at-end": no_prefetch_at_end,
    "split-after-reshuffle": split_after_reshuffle,
}
