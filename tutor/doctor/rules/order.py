"""Rules about order: shuffling, repeating, caching and splitting in the wrong place."""
from __future__ import annotations

from typing import Iterator

from ..graph import Stage
from ..report import Finding
from .walk import (downstream, finite_take, finite_zip, infinite_repeat, is_, mine, random_map, repeats, reshuffles,
                   size_through_repeat, upstream)

#: A shuffle buffer under this fraction of a dataset of known size counts as "small".
SMALL_BUFFER_FRACTION = 0.1
#: On a dataset of unknown size (files, generators, filter), a buffer under this many elements only mixes neighbours.
TINY_BUFFER = 1000
#: Numbers people pass as seeds: ``shuffle(42)`` is a buffer of 42, not a seed.
COMMON_SEEDS = frozenset({0, 1, 7, 13, 21, 42, 123, 1234, 1337, 2020, 2021, 2022, 2023, 2024, 2025, 12345})
_SHUFFLES = ("shuffle", "shuffle_and_repeat")


def _between(lower: Stage, upper: Stage) -> list[Stage]:
    """The stages on the first-input path from ``upper`` up to (not including) ``lower``."""
    path, s = [], upper.inputs[0] if upper.inputs else None
    while s is not None and s is not lower:
        path.append(s)
        s = s.inputs[0] if s.inputs else None
    return path if s is lower else []


def _leading_dims(stage: Stage) -> set | None:
    try:
        import tensorflow as tf

        specs = tf.nest.flatten(stage.dataset.element_spec)
        return {(s.shape[0] if s.shape.rank else "scalar") for s in specs}
    except Exception:
        return None


def _consumes_batch(m: Stage, batch: Stage) -> bool:
    """A map after ``batch`` that turns the batch axis into something else (sequences split into input, target)."""
    if m.kind not in ("map", "flat_map"):
        return False
    if m.splits_first_axis:
        return True
    before, after = _leading_dims(batch), _leading_dims(m)
    return bool(before and after and len(before) == 1 and None not in before and not (after <= before))


def shuffle_after_batch(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "shuffle" or not mine(s):
            continue
        batch = upstream(s, is_("batch"), stop=is_("unbatch", *_SHUFFLES))
        if batch is None or any(_consumes_batch(m, batch) for m in _between(batch, s)):
            continue  # the batches are sequences the map took apart: shuffling them is right
        earlier = upstream(batch, reshuffles, stop=is_("unbatch"))
        cache = upstream(s, is_("cache"), stop=lambda u: u is earlier or u.kind == "unbatch") if earlier else None
        if earlier is not None and (cache is None or upstream(cache, lambda u: u is earlier) is None):
            continue  # examples were shuffled before batching, and nothing froze that
        if cache is not None:
            why = (f"The examples were shuffled at {earlier.where} and then batched, but {cache.where} stores the "
                   "first epoch's batches and replays them: every epoch sees the same batches, only in a new order.")
            fix = ("Cache before the shuffle and batch (ds.cache().shuffle(n).batch(b)); with a Keras utility that "
                   "batches for you, pass batch_size=None, or unbatch() before cache() and batch again after the shuffle.")
        else:
            why = (f"It comes after {batch.where}, so it shuffles whole batches: the same examples always share a "
                   "batch, and only the order of the batches changes.")
            fix = f"Shuffle the examples before batching: ds.shuffle(...).batch({batch.params.get('batch_size', '...')})."
        yield Finding("shuffle-after-batch", s, why, fix)


def small_shuffle_buffer(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        buffer = s.params.get("buffer_size")
        if s.kind != "shuffle" or not mine(s) or not isinstance(buffer, int) or buffer < 0:
            continue
        size = size_through_repeat(s)
        seed_like = (f" {buffer} is also a number people use as a seed: shuffle({buffer}) sets the buffer size; a "
                     f"seed is shuffle(buffer_size, seed={buffer}).") if buffer in COMMON_SEEDS else ""
        if size is not None and size > 0:
            if buffer >= SMALL_BUFFER_FRACTION * size:
                continue
            behind = " (per pass, behind the repeat)" if s.input_cardinality is not None and s.input_cardinality < 0 else ""
            why = (f"The buffer holds {buffer} of the {size} elements that reach it{behind} "
                   f"({100 * buffer / size:.1f}%). An element can come out at most {buffer - 1} places earlier than "
                   "it went in, so the output stays close to the input order: the first batches all come from the "
                   f"start of the data.{seed_like}")
            fix = (f"For a full shuffle use a buffer at least as large as the dataset: ds.shuffle({size}). If the "
                   "elements are too big for that, shuffle something small (file names or indices) with a full "
                   "buffer before the expensive map.")
        elif size == -2 and buffer < TINY_BUFFER and upstream(s, is_("batch"), stop=is_("unbatch")) is None:
            why = (f"The dataset's size is unknown here, and a buffer of {buffer} elements only mixes neighbours: "
                   f"an element moves at most {max(buffer - 1, 0)} places earlier, whatever the size of the data."
                   f"{seed_like}")
            fix = ("Use a buffer of thousands of elements (or the dataset's size if it fits in memory), and shuffle "
                   "the file list too: files.shuffle(len(files)).interleave(...).shuffle(10_000).")
        else:
            continue
        yield Finding("small-shuffle-buffer", s, why, fix)


def repeat_before_shuffle(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "shuffle":
            continue
        rep = upstream(s, repeats, stop=finite_zip)
        if rep is None:
            continue
        yield Finding(
            "repeat-before-shuffle", s,
            f"It comes after {rep.where}, so the buffer mixes epochs: an element can come back a second time before "
            "another one has appeared once, and there is no clean epoch boundary.",
            "Shuffle first, then repeat: ds.shuffle(...).repeat(...) keeps the epochs apart and gives a new order in "
            "every epoch.",
        )


def shuffle_before_cache(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "cache" or s.input_cardinality == -1:
            continue  # an endless input never completes the cache (cache-after-infinite-repeat says so)
        shuf = upstream(s, reshuffles, stop=is_("cache"))
        if shuf is None or downstream(s, is_(*_SHUFFLES)) is not None:
            continue  # a shuffle after the cache gives new orders (shuffle-after-batch covers batches)
        batch = upstream(s, is_("batch"), stop=lambda u: u is shuf)
        what = f"the batches that {batch.where} made from that order" if batch else "that order"
        yield Finding(
            "shuffle-before-cache", s,
            f"It stores the first epoch's output of {shuf.where} and replays it: every later epoch gets {what} "
            "again, so the shuffle's new order each epoch is lost.",
            "Cache first, then shuffle (and batch): ds.cache().shuffle(n).batch(b).",
        )


def random_map_before_cache(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "cache":
            continue
        rnd = upstream(s, random_map, stop=is_("cache"))
        if rnd is None:
            continue
        yield Finding(
            "random-map-before-cache", s,
            f"It stores the output of {rnd.where}, which draws random numbers. From the second epoch on, the cache "
            "replays the first epoch's random results: the augmentation is frozen.",
            "Cache the deterministic work (decoding, resizing) and apply the random augmentation after cache(): "
            "ds.map(decode).cache().map(augment).",
        )


def cache_after_infinite_repeat(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind != "cache":
            continue
        rep = upstream(s, infinite_repeat, stop=lambda u: finite_take(u) or finite_zip(u))
        if rep is None and s.input_cardinality != -1:
            continue
        after = f"It comes after {rep.where}, so its" if rep else "Its"
        yield Finding(
            "cache-after-infinite-repeat", s,
            f"{after} input never ends: the cache can never finish its first pass, memory (or the cache file) grows "
            "without limit, and nothing is ever read back from it.",
            "Cache the finite data, then repeat: ds.cache().repeat().",
        )


def cache_to_file(stages: list[Stage]) -> Iterator[Finding]:
    files = [s for s in stages if s.kind == "cache" and s.params.get("filename") != ""]
    if files:
        more = f" ({len(files)} file caches in this pipeline)" if len(files) > 1 else ""
        yield Finding(
            "cache-to-file", files[0],
            "A cache written to a file outlives this run: the next run reads the file back instead of running the "
            f"stages before the cache, even after you change them. The cache goes stale silently{more}.",
            "Delete the cache files (the file name plus its .index and .data suffixes) whenever the stages before "
            "cache() change, or put a version in the file name; cache() without a file name lives in memory for "
            "this run only.",
        )


def split_after_reshuffle(stages: list[Stage]) -> Iterator[Finding]:
    for s in stages:
        if s.kind not in ("take", "skip") or s.params.get("count") in (None, -1, 0):
            continue
        shuf = upstream(s, reshuffles, stop=is_("repeat"))
        if shuf is None or s.input_cardinality == -1 or upstream(s, infinite_repeat, stop=finite_zip):
            continue  # taking steps from an endless stream is a step limit, not a split
        yield Finding(
            "split-after-reshuffle", s,
            f"It splits the output of {shuf.where}, which draws a new order every time the dataset is iterated. "
            f"So {s.kind}() picks different elements in every epoch: a train/test split made this way leaks test "
            "examples into training.",
            "Split first and shuffle only the training part: train = ds.skip(n).shuffle(...), test = ds.take(n); or "
            "pass reshuffle_each_iteration=False to the shuffle before splitting.",
        )
