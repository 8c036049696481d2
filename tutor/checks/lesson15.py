"""Lesson 15 exercises: a shuffle buffer of ids, a cache of the small thing, the fork of a saturated CPU,
and outer parallelism.

No verdict depends on a clock or on a measurement of memory: q1 and q2 read what each buffer holds by
arithmetic (:func:`tutor.usage.buffers`) and count how often the slow step ran; q4 reads where the
``filter`` runs (inside each shard's pipeline) and compares the records.

>>> from tutor.checks import lesson15 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
import tensorflow as tf

from ..bench import CallRecorder
from ..i18n import N_
from ..i18n import gettext as _
from ..usage import buffers, megabytes
from . import _read, _stages
from ._core import Choices, fail
from .questions import FunctionQuestion, Question

__all__ = ["CHOICES", "decode", "exercise_files", "exercise_source", "expand", "heavy_pipeline", "keep", "parse",
           "parse_calls", "records", "slow_and_big", "one_pipeline", "q1", "q2", "q3", "q4"]

N_FILES, BUFFER, BATCH = 64, 64, 8
IMAGE = (256, 256)  # float32: 256 KB


# --------------------------------------------------------------------------- q1
def exercise_source() -> tf.data.Dataset:
    """The ids of 64 image files: ``tf.data.Dataset.range(64)``."""
    return tf.data.Dataset.range(N_FILES)


def decode(file_id):
    """Stands in for reading and decoding one image file: a 256 x 256 float32 image (256 KB) filled with its id."""
    return tf.fill(IMAGE, tf.cast(file_id, tf.float32))


def heavy_pipeline(source: tf.data.Dataset) -> tf.data.Dataset:
    """q1's starting point: the shuffle buffer holds 64 decoded images."""
    return source.map(decode).shuffle(BUFFER, seed=15).batch(BATCH)


def _shuffle_buffer(ds) -> Any:
    return next((b for b in buffers(ds) if b.kind == "shuffle"), None)


def _check_q1(answer: Any) -> str:
    ds = q1.dataset_of(answer)
    found = _stages.stages(ds)
    shuffles, maps, batches = (_stages.where(found, kind) for kind in ("shuffle", "map", "batch"))
    if not shuffles:
        fail(_("your pipeline ({chain}) has no shuffle: keep shuffle({buffer}) and move it.").format(
            chain=_stages.chain_text(found), buffer=BUFFER))
    size = found[shuffles[0]].params.get("buffer_size")
    if isinstance(size, int) and size < BUFFER:
        fail(_("shuffle(buffer_size={size}) mixes less than before: keep buffer_size={buffer}, and change only "
               "where the shuffle sits.").format(size=size, buffer=BUFFER))
    if not maps:
        fail(_("map(ex.decode) is missing: the images must still be decoded, after the shuffle."))
    if not batches or batches[-1] < shuffles[0]:
        fail(_("batch({batch}) must come after the shuffle, or whole batches are shuffled (lesson 03).").format(
            batch=BATCH))
    held = _shuffle_buffer(ds)
    if held is not None and (held.element_bytes is None or held.element_bytes > 8):
        # Translators: {size} and {total} are sizes with their unit: 0.25 MB, 16.0 MB.
        fail(_("the shuffle buffer still holds decoded images: {elements} x {size} = "
               "{total}. Shuffle the ids first, then map(ex.decode).").format(
            elements=held.elements, size=megabytes(held.element_bytes, 2), total=megabytes(held.bytes)))
    values = _read.elements(ds, limit=4 * N_FILES)
    shapes = {tuple(np.shape(v)) for v in values}
    if shapes != {(BATCH, *IMAGE)}:
        # Translators: {shapes} is a Python list of shapes.
        fail(_("expected batches of {batch} images of {height} x {width}; got shapes {shapes}. Keep "
               "map(ex.decode) and batch({batch}), and nothing else.").format(
            batch=BATCH, height=IMAGE[0], width=IMAGE[1], shapes=sorted(shapes)))
    ids = sorted(int(image[0, 0]) for batch in values for image in batch)
    if ids != list(range(N_FILES)):
        fail(_("every image should come out once: expected the ids 0 to {last}, got {n} images "
               "with other ids.").format(last=N_FILES - 1, n=len(ids)))
    # Translators: {size} and {total} count bytes; {images_size} is a size with its unit: 16.0 MB.
    return _("the shuffle buffer holds {elements} ids of {size} bytes ({total} bytes) "
             "instead of {buffer} images ({images_size}), and every image comes "
             "out once, in batches of {batch}.").format(
        elements=held.elements, size=held.element_bytes, total=held.bytes, buffer=BUFFER,
        images_size=megabytes(BUFFER * IMAGE[0] * IMAGE[1] * 4), batch=BATCH)


q1 = FunctionQuestion(
    N_("Exercise 1: a shuffle buffer of ids"),
    _check_q1,
    hints=[
        N_("Print tutor.usage.buffers(ex.heavy_pipeline(ex.exercise_source())): what does the shuffle buffer hold?"),
        N_("The same three stages, in another order: shuffle the ids first, decode them after."),
    ],
    solution="""
    ex = tutor.checks.lesson15

    def lean_pipeline(source):
        return source.shuffle(64, seed=15).map(ex.decode).batch(8)

    answer = lean_pipeline
    """,
    name="lean_pipeline",
    source=exercise_source,
)


# --------------------------------------------------------------------------- q2
N_PARSED, PARSED = 32, 16  # 32 files, 16 float32 numbers each (64 bytes)


def _parse_file(file_id):
    time.sleep(0.001)
    return np.full(PARSED, float(file_id), np.float32)


_parser = CallRecorder(_parse_file)


def parse(file_id):
    """The slow step that makes elements small: 1 ms of waiting, 16 float32 numbers out (64 bytes)."""
    return tf.ensure_shape(tf.numpy_function(_parser, [file_id], tf.float32), [PARSED])


def parse_calls() -> int:
    """How often :func:`parse` has run so far."""
    return _parser.calls


def expand(numbers):
    """The cheap step that makes elements big: 16 numbers tiled into a 256 x 256 image (256 KB)."""
    return tf.tile(tf.reshape(numbers, [4, 4]), [IMAGE[0] // 4, IMAGE[1] // 4])


def slow_and_big(source: tf.data.Dataset) -> tf.data.Dataset:
    """q2's starting point: the cache keeps every expanded image."""
    return source.map(parse).map(expand).cache().repeat(2)


def _check_q2(answer: Any) -> str:
    ds = q2.dataset_of(answer)
    found = _stages.stages(ds)
    if not _stages.where(found, "cache"):
        fail(_("there is no cache(): without it, parse runs again in the second epoch."))
    held = next(b for b in buffers(ds) if b.kind == "cache")
    if held.element_bytes is None or held.element_bytes > PARSED * 4:
        # Translators: {size} is a size with its unit: 0.25 MB.
        fail(_("the cache keeps the expanded images ({size} each): put cache() between "
               "map(ex.parse) and map(ex.expand).").format(size=megabytes(held.element_bytes, 2)))
    before = parse_calls()
    values = _read.elements(ds, limit=4 * N_PARSED)
    runs = parse_calls() - before
    if len(values) != 2 * N_PARSED:
        fail(_("expected {want} images (two epochs of {files}), got {n}. Keep repeat(2).").format(
            want=2 * N_PARSED, files=N_PARSED, n=len(values)))
    if runs != N_PARSED:
        fail(_("parse ran {runs} times instead of {files}: cache() must come before repeat(2), so that the "
               "second epoch reads the cache.").format(runs=runs, files=N_PARSED))
    shapes = {tuple(np.shape(v)) for v in values}
    if shapes != {IMAGE}:
        fail(_("expected images of {height} x {width}, got shapes {shapes}: keep map(ex.expand), after "
               "the cache.").format(height=IMAGE[0], width=IMAGE[1], shapes=sorted(shapes)))
    ids = sorted(int(v[0, 0]) for v in values)
    if ids != sorted(list(range(N_PARSED)) * 2):
        fail(_("every file should come out once per epoch: expected the ids 0 to {last} twice each.").format(
            last=N_PARSED - 1))
    # Translators: {size} and {total} count bytes; {images_size} is a size with its unit: 8.0 MB.
    return _("parse ran {runs} times for two epochs, and the cache keeps {files} x {size} bytes "
             "= {total} bytes instead of {images_size}.").format(
        runs=runs, files=N_PARSED, size=held.element_bytes, total=N_PARSED * held.element_bytes,
        images_size=megabytes(N_PARSED * IMAGE[0] * IMAGE[1] * 4))


q2 = FunctionQuestion(
    N_("Exercise 2: cache the small thing"),
    _check_q2,
    hints=[
        N_("Which of the two maps is slow, and which one makes the elements big?"),
        N_("map(time_consuming).cache().map(memory_consuming): the cache sits between the two maps."),
    ],
    solution="""
    ex = tutor.checks.lesson15

    def small_cache(source):
        return source.map(ex.parse).cache().map(ex.expand).repeat(2)

    answer = small_cache
    """,
    name="small_cache",
    source=lambda: tf.data.Dataset.range(N_PARSED),
)


# --------------------------------------------------------------------------- q3
CHOICES = Choices({
    "a": N_("Raise num_parallel_calls to 16, one call for every core the machine shows."),
    "b": N_("Add prefetch(tf.data.AUTOTUNE) at the end of the pipeline."),
    "c": N_("Spend less CPU per element: batch before the map (vectorize), or cache the part that never changes."),
    "d": N_("Give the pipeline a private thread pool of 16 threads (options.threading.private_threadpool_size = "
            "16)."),
})

_WHY_Q3 = {
    "a": N_("the notebook may use about 1 CPU of time (the quota), and the map already uses 97 % of it. More calls "
            "at once only take turns on that one CPU; the 6 % is a share of cores it may not use."),
    "b": N_("prefetch lets the pipeline work while the training step runs, but the map already keeps the one CPU "
            "busy and the consumer still waits for it: a buffer adds no CPU time."),
    "d": N_("more threads help calls that wait (a file, the network); these calls compute, and computing threads "
            "take turns on the CPU time the quota gives."),
}


def _check_q3(answer: Any) -> str:
    letter = _read.choice(answer, CHOICES)
    if letter != "c":
        fail(f"({letter}) {_(_WHY_Q3[letter])}")
    return _("right: near the limit, only less work per element helps on this machine (or moving the work to other "
             "machines, with the tf.data service of lesson 13).")


q3 = Question(N_("Exercise 3: the fork"), _check_q3,
              hints=[N_("Against which number is 97 % measured, and against which one 6 %?"),
                     N_("Near the limit, which of these gives the pipeline more CPU time, and which needs less?")],
              solution="answer = 'c'")


# --------------------------------------------------------------------------- q4
N_RECORD_FILES, RECORDS, SHARDS = 8, 10, 4


def exercise_files() -> tf.data.Dataset:
    """The ids of 8 files: ``tf.data.Dataset.range(8)``."""
    return tf.data.Dataset.range(N_RECORD_FILES)


def records(file_id):
    """The 10 records of one file: ``file_id * 10`` to ``file_id * 10 + 9``."""
    return tf.data.Dataset.range(file_id * RECORDS, file_id * RECORDS + RECORDS)


def _keep_record(record):
    time.sleep(0.002)
    return record % 3 != 0


_keeper = CallRecorder(_keep_record)


def keep(record):
    """A slow filter predicate (2 ms of waiting per record): keeps the records not divisible by 3."""
    return tf.ensure_shape(tf.py_function(_keeper, [record], Tout=tf.bool), [])


def one_pipeline(files: tf.data.Dataset) -> tf.data.Dataset:
    """q4's starting point: one pipeline, whose filter calls ``keep`` one record at a time."""
    return files.flat_map(records).filter(keep)


def _cycle_left_out(stage) -> bool:
    """Whether the learner's interleave left ``cycle_length`` to TensorFlow (AUTOTUNE, resolved per machine)."""
    value = tf.get_static_value(getattr(stage.dataset, "_cycle_length", None))
    return value is not None and int(value) == tf.data.AUTOTUNE


def _check_q4(answer: Any) -> str:
    ds = q4.dataset_of(answer)
    found = _stages.stages(ds)
    interleaves = _stages.where(found, "interleave")
    if not interleaves:
        fail(_("your pipeline ({chain}) has no interleave: build one pipeline per shard and run "
               "them with tf.data.Dataset.range({shards}).interleave(..., num_parallel_calls={shards}).").format(
            chain=_stages.chain_text(found), shards=SHARDS))
    outer = found[interleaves[-1]]
    calls, cycle = outer.params.get("num_parallel_calls"), outer.params.get("cycle_length")
    if _cycle_left_out(outer) and (cycle or 0) < SHARDS:
        fail(_("cycle_length was left out, so TensorFlow chose it from this machine's cores: {cycle} here, fewer "
               "than the {shards} shard pipelines that should run side by side (and a num_parallel_calls above it "
               "is an error). Give cycle_length={shards}.").format(cycle=cycle, shards=SHARDS))
    if calls is None or calls == 1:
        fail(_("this interleave runs its pipelines one at a time: give it num_parallel_calls (4, or "
               "tf.data.AUTOTUNE)."))
    if cycle == 1:
        fail(_("cycle_length=1 opens one shard pipeline at a time: use cycle_length=4."))
    if any(i > interleaves[-1] for i in _stages.where(found, "filter")):
        fail(_("the filter comes after the interleave, where it calls ex.keep one record at a time again: put it "
               "inside each shard's pipeline."))
    if "FilterDataset" not in outer.fn_ops and "ParallelFilterDataset" not in outer.fn_ops:
        fail(_("each shard's pipeline should end with .filter(ex.keep), inside the function you give interleave."))
    got = [int(v) for v in _read.elements(ds, limit=4 * N_RECORD_FILES * RECORDS)]
    want = [int(v) for v in _read.elements(one_pipeline(exercise_files()), limit=N_RECORD_FILES * RECORDS)]
    if sorted(got) != sorted(want):
        fail(_("expected the {want} records the one pipeline keeps, each once, got {n} records. Each "
               "shard pipeline reads files.shard({shards}, index) with the index that interleave hands it.").format(
            want=len(want), n=len(got), shards=SHARDS))
    # Translators: {first} is a Python list: the first records.
    return _("{shards} shard pipelines, each with its own filter, run side by side: the same {n} records, in "
             "another order ({first} ...).").format(shards=SHARDS, n=len(got), first=got[:6])


q4 = FunctionQuestion(
    N_("Exercise 4: outer parallelism"),
    _check_q4,
    hints=[
        N_("Write a function shard_pipeline(index) that returns files.shard(4, index).flat_map(ex.records)"
           ".filter(ex.keep)."),
        N_("Then tf.data.Dataset.range(4).interleave(shard_pipeline, cycle_length=4, num_parallel_calls=4)."),
    ],
    solution="""
    ex = tutor.checks.lesson15

    def outer(files):
        def shard_pipeline(index):
            return files.shard(4, index).flat_map(ex.records).filter(ex.keep)

        return tf.data.Dataset.range(4).interleave(shard_pipeline, cycle_length=4, num_parallel_calls=4)

    answer = outer
    """,
    name="outer",
    source=exercise_files,
)
