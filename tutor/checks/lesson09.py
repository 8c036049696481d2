"""Lesson 09 exercises: from_generator with a signature, the index trick, and the GIL.

No verdict depends on timing: q1 compares elements, q2 reads the pipeline's structure
(``tutor.doctor.read_pipeline``) and counts how often :func:`load_sample` ran; the time
a check took and how many loads overlapped are shown only as information.

>>> from tutor.checks import lesson09 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import numpy as np
import tensorflow as tf

from ..doctor import PY_FUNCTION_OPS
from ..i18n import N_
from ..i18n import gettext as _
from ..timeline.work import busy_wait
from . import _read, _stages
from ._core import Choices, fail, sentences, shorten
from .questions import Question

__all__ = ["BATCH_SIZE", "CHOICES", "LOAD_SECONDS", "N_SAMPLES", "SHAPE", "load_calls", "load_sample",
           "load_sample_python", "peak_concurrency", "q1", "q2", "q3", "samples", "signature"]

N_SAMPLES = 12
SHAPE = (8, 8)
LOAD_SECONDS = 0.03
#: The batch size exercise 2 asks for.
BATCH_SIZE = 4


def _make(i: int) -> tuple[np.ndarray, np.int64]:
    image = (np.arange(SHAPE[0] * SHAPE[1], dtype=np.float32).reshape(SHAPE) + 100 * i) / 1000
    return image, np.int64(i % 3)


_lock = threading.Lock()
_active = 0
_peak = 0
_calls = 0


def _index(index) -> int:
    value = index.numpy() if hasattr(index, "numpy") else index
    if np.ndim(value) != 0:
        raise ValueError(_("load_sample loads one sample: it needs one index, got {n} values (is the map after "
                           "batch?).").format(n=np.size(value)))
    return int(value)


def load_sample(index) -> tuple[np.ndarray, np.int64]:
    """The heavy work for one sample: waits ``LOAD_SECONDS`` like a file read (releasing the GIL).

    Accepts a Python int or the EagerTensor that ``tf.py_function`` passes in, and
    returns ``(image [8, 8] float32, label int64)``. It counts its calls
    (:func:`load_calls`) and how many ran at the same time (:func:`peak_concurrency`).
    """
    global _active, _peak, _calls
    i = _index(index)
    with _lock:
        _active += 1
        _calls += 1
        _peak = max(_peak, _active)
    try:
        time.sleep(LOAD_SECONDS)
    finally:
        with _lock:
            _active -= 1
    return _make(i)


def peak_concurrency(reset: bool = False) -> int:
    """The most :func:`load_sample` calls that ran at the same time (since the last reset)."""
    global _peak
    with _lock:
        peak = _peak
        if reset:
            _peak = 0
    return peak


def load_calls(reset: bool = False) -> int:
    """How many times :func:`load_sample` was called (since the last reset)."""
    global _calls
    with _lock:
        calls = _calls
        if reset:
            _calls = 0
    return calls


def load_sample_python(index) -> tuple[np.ndarray, np.int64]:
    """The same sample, but the 30 ms of work is pure-Python computing, which holds the GIL."""
    i = _index(index)
    busy_wait(LOAD_SECONDS)
    return _make(i)


def samples():
    """A generator doing all the work itself: yields ``(image [8, 8] float32, label int64)`` pairs."""
    for i in range(N_SAMPLES):
        yield load_sample(i)


def signature() -> tuple[tf.TensorSpec, tf.TensorSpec]:
    """The output_signature of :func:`samples` (q1's answer)."""
    return tf.TensorSpec(SHAPE, tf.float32), tf.TensorSpec((), tf.int64)


def _expected():
    return [_make(i) for i in range(N_SAMPLES)]


def _pair(spec: Any, what: str) -> tuple[tf.TensorSpec, tf.TensorSpec]:
    """The two TensorSpecs of a pair; otherwise fail, saying ``what`` (a translated clause) each element should be."""
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and all(isinstance(s, tf.TensorSpec) for s in spec):
        return spec[0], spec[1]
    if isinstance(spec, tf.TensorSpec) and spec.dtype == tf.string:
        # Translators: {spec} is an element's spec in short: (float32 (8, 8), int64 ()); {what} a clause below.
        fail(_("your dataset holds strings ({spec}); {what}.").format(spec=_describe(spec), what=what))
    fail(_("{what}; your elements are {spec}.").format(what=what, spec=_describe(spec)))


def _describe(spec: Any) -> str:
    """``(float32 (8, 8), int64 ())`` for a tuple of TensorSpecs; shortened repr otherwise."""
    if isinstance(spec, tf.TensorSpec):
        shape = tuple(spec.shape) if spec.shape.rank is not None else _("(unknown shape)")  # not inside an f-string:
        return f"{spec.dtype.name} {shape}"                 # Babel on Python 3.12+ finds it there, on 3.11 it does not
    if isinstance(spec, (tuple, list)):
        return "(" + ", ".join(_describe(s) for s in spec) + ")"
    return shorten(spec, 80)


def _one_pass(ds: tf.data.Dataset) -> None:
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        what = _("the {n} samples").format(n=N_SAMPLES)
        # Translators: {what} is what one pass reads: "the 12 samples".
        fail(_("your dataset never ends (it has repeat() with no count), so one pass cannot finish; the exercise "
               "wants {what} once. Remove the repeat().").format(what=what))


def _key(image, label) -> tuple:
    return (np.asarray(image, np.float32).tobytes(), int(label))


# --------------------------------------------------------------------------- q1
def _check_q1(answer: Any) -> str:
    ds = _read.dataset(answer, _("a tf.data.Dataset made with tf.data.Dataset.from_generator"))
    # Translators: a clause of "...; your elements are {spec}." and "your dataset holds strings (...); {what}."
    image, label = _pair(ds.element_spec, _("each element should be one sample, a pair (image, label): "
                                            "give output_signature two tf.TensorSpec"))
    if image.dtype == tf.int64 and label.dtype == tf.float32:
        fail(_("the two specs are swapped: ex.samples yields (image, label), so the image's TensorSpec comes first."))
    if image.shape.rank == 3 and image.shape[1:] == SHAPE and label.shape.rank == 1:
        fail(_("your elements are batches (images {shape}): exercise 1 asks for single samples, as ex.samples "
               "yields them. Remove the .batch(...).").format(shape=image.shape))
    if image.dtype != tf.float32 or label.dtype != tf.int64:
        # Translators: {image} and {label} are TensorFlow dtypes' names.
        fail(_("ex.samples yields a float32 image and an int64 label; your signature says {image} and "
               "{label}.").format(image=image.dtype.name, label=label.dtype.name))
    if image.shape.rank is None or not image.shape.is_fully_defined():
        fail(_("the image spec has shape {shape}; give the full shape {want}, so that later stages "
               "(batch, a model) know it.").format(shape=image.shape, want=SHAPE))
    if tuple(image.shape) != SHAPE:
        fail(_("ex.samples yields {height} x {width} images; your image spec says {shape}.").format(
            height=SHAPE[0], width=SHAPE[1], shape=image.shape))
    if label.shape.rank != 0:
        fail(_("the label is one number per sample: shape (), got {shape}.").format(shape=label.shape))
    _one_pass(ds)
    first = _read.elements(ds, limit=2 * N_SAMPLES)
    if len(first) != N_SAMPLES or any(_key(*g) != _key(*w) for g, w in zip(first, _expected())):
        fail(_("your dataset yields {n} elements, not the {samples} samples of ex.samples in order: "
               "build it from the function ex.samples, and keep every sample as it comes.").format(
            n=len(first), samples=N_SAMPLES))
    second = _read.elements(ds, limit=2 * N_SAMPLES)
    if len(second) != N_SAMPLES:
        fail(_("the first pass gave the {samples} samples, the second gave {n}: from_generator calls "
               "your function at the start of every pass, and yours handed back the same, used-up generator. Pass "
               "the function ex.samples itself, not ex.samples().").format(samples=N_SAMPLES, n=len(second)))
    # Translators: {spec} is an element_spec as TensorFlow prints it.
    return _("element_spec = {spec}, and a second pass yields the {samples} samples again.").format(
        spec=ds.element_spec, samples=N_SAMPLES)


q1 = Question(
    N_("Exercise 1: from_generator with a signature"),
    _check_q1,
    hints=[N_("tf.data.Dataset.from_generator(ex.samples, output_signature=(..., ...))."),
           N_("One tf.TensorSpec per part: shape (8, 8) float32 for the image, shape () int64 for the label.")],
    solution="""
    ex = tutor.checks.lesson09
    answer = tf.data.Dataset.from_generator(
        ex.samples,
        output_signature=(tf.TensorSpec((8, 8), tf.float32), tf.TensorSpec((), tf.int64)))
    """,
)


# --------------------------------------------------------------------------- q2
def _check_q2(answer: Any) -> str:
    ds = _read.dataset(answer, _("a tf.data.Dataset of (images, labels) batches"))
    images, labels = _pair(ds.element_spec, _("each element should be a batch pair (images, labels)"))
    stages = _stages.stages(ds, build_with=_("from_generator, map, batch and map"))
    loaders = [s for s in stages if s.kind == "map" and s.fn_ops & PY_FUNCTION_OPS]
    generators = [s for s in stages if s.kind == "source" and s.fn_name == "generator"]
    if generators and generators[0].dataset is not None:
        spec = generators[0].dataset.element_spec
        if not (isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and spec.shape.rank == 0):
            fail(_("your generator yields {spec}, so the loading still happens inside it, one sample "
                   "at a time. Make it yield only the indices 0..11 (output_signature=tf.TensorSpec((), tf.int64)) "
                   "and load in the map.").format(spec=_describe(spec)))
    if not loaders:
        fail(_("no map calls tf.py_function: load each sample in a map with "
               "tf.py_function(ex.load_sample, [i], Tout=[tf.float32, tf.int64])."))
    loader = loaders[0]
    parallel = loader.params.get("num_parallel_calls")
    if parallel in (None, 0, 1):
        fail(_("the map that calls tf.py_function runs one call at a time: give it "
               "num_parallel_calls=tf.data.AUTOTUNE, so that several samples load at once."))
    batches = [s for s in stages if s.kind == "batch"]
    if not batches and images.shape.rank in (None, 2):
        fail(_("your pipeline never batches: add .batch(4) after the loading map, then a map that restores the "
               "static shapes."))
    if batches and batches[0].number < loader.number:
        fail(_("batch comes before the loading map, so each tf.py_function call would get 4 indices at once: load "
               "one sample per call, then batch(4)."))
    if batches and batches[0].params.get("batch_size") not in (None, BATCH_SIZE):
        fail(_("your pipeline batches {size} samples at a time; use batch({batch}).").format(
            size=batches[0].params['batch_size'], batch=BATCH_SIZE))
    if images.shape.rank is None or labels.shape.rank is None:
        # Translators: {images} and {labels} are TensorShapes as TensorFlow prints them: <unknown>.
        fail(_("the batches have static shapes {images} and {labels}: tf.py_function does not say what "
               "it returns, and batch keeps that unknown. Restore them in a map after batch with "
               "tf.ensure_shape(images, [None, 8, 8]) and tf.ensure_shape(labels, [None]) (or set_shape).").format(
            images=images.shape, labels=labels.shape))
    if images.shape.rank != 3 or tuple(images.shape[1:]) != SHAPE:
        fail(_("the images have static shape {shape}; batches of 8 x 8 images are [None, 8, 8].").format(
            shape=images.shape))
    if labels.shape.rank != 1:
        fail(_("the labels have static shape {shape}; a batch of labels is [None].").format(shape=labels.shape))
    _one_pass(ds)
    load_calls(reset=True)
    peak_concurrency(reset=True)
    start = time.perf_counter()
    got = _read.elements(ds, limit=3 * N_SAMPLES)
    seconds = time.perf_counter() - start
    calls, peak = load_calls(reset=True), peak_concurrency(reset=True)
    sizes = [int(np.shape(b[0])[0]) for b in got]
    if calls == 0:
        fail(_("ex.load_sample never ran: load each sample with tf.py_function(ex.load_sample, [i], ...)."))
    flat = Counter(_key(img, lab) for b in got for img, lab in zip(b[0], np.ravel(b[1])))
    if flat != Counter(_key(*s) for s in _expected()):
        fail(_("expected the {samples} samples of ex.load_sample(0) ... ex.load_sample({last}), each "
               "once; got {n} samples that do not match. Does the generator yield 0..11 once?").format(
            samples=N_SAMPLES, last=N_SAMPLES - 1, n=sum(flat.values())))
    if any(size != BATCH_SIZE for size in sizes):
        fail(_("your batches hold {sizes} samples; use batch({batch}).").format(sizes=sizes, batch=BATCH_SIZE))
    if calls != N_SAMPLES:
        fail(_("ex.load_sample ran {calls} times for {samples} samples: load each sample once, in the map.").format(
            calls=calls, samples=N_SAMPLES))
    note = "" if generators else _("(You started from a dataset of numbers instead of a generator: that works "
                                   "too, and unlike from_generator it can move to another process.)")
    # Translators: {images} and {labels} are TensorShapes as TensorFlow prints them: (None, 8, 8).
    shapes = _("the generator yields indices, a map with num_parallel_calls loads them, and the shapes are "
               "{images} and {labels}.").format(images=images.shape, labels=labels.shape)
    # Translators: {seconds} and {serial} are seconds; {ms} the milliseconds of one load.
    timing = _("For information: up to {peak} samples loaded at the same time, and reading took {seconds:.2f} s "
               "({samples} loads of {ms:.0f} ms one after another take {serial:.2f} s).").format(
        peak=peak, seconds=seconds, samples=N_SAMPLES, ms=LOAD_SECONDS * 1000, serial=N_SAMPLES * LOAD_SECONDS)
    return sentences(shapes, note, timing)


q2 = Question(
    N_("Exercise 2: the index trick"),
    _check_q2,
    hints=[
        N_("Generator: yield only the numbers 0..11 (output_signature=tf.TensorSpec((), tf.int64))."),
        N_("map(lambda i: tf.py_function(ex.load_sample, [i], Tout=[tf.float32, tf.int64]), "
           "num_parallel_calls=tf.data.AUTOTUNE), then batch(4)."),
        N_("After batch: map(lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None])))."),
    ],
    solution="""
    ex = tutor.checks.lesson09
    ids = tf.data.Dataset.from_generator(lambda: iter(range(12)),
                                         output_signature=tf.TensorSpec((), tf.int64))
    ds = ids.map(lambda i: tf.py_function(ex.load_sample, [i], Tout=[tf.float32, tf.int64]),
                 num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(4).map(lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None])))
    answer = ds
    """,
)

# --------------------------------------------------------------------------- q3
CHOICES = Choices({
    "a": N_("A py_function that computes in pure Python holds the GIL while it runs, so the calls take turns."),
    "b": N_("AUTOTUNE chose num_parallel_calls=1 because the machine is small."),
    "c": N_("from_generator copies every element twice, and the copies take the time."),
    "d": N_("There is no prefetch at the end, so the map cannot run two calls at once."),
})
_WHY = {
    "b": N_("even where AUTOTUNE starts several calls at once, pure-Python calls take "
            "turns holding the GIL, so they cannot compute at the same time whatever num_parallel_calls is."),
    "c": N_("the generator only yields small indices here; the heavy work is in the map."),
    "d": N_("a parallel map starts several calls at once with or without a prefetch after it; prefetch lets the "
            "pipeline run ahead of its consumer."),
}


def _check_q3(answer: Any) -> str:
    letter = _read.choice(answer, sorted(CHOICES))
    if letter != "a":
        # Translators: {letter} is the learner's choice (b); {why} says why it is not the answer.
        fail(_("not ({letter}): {why}").format(letter=letter, why=_(_WHY[letter])))
    return _("right: Python bytecode runs only while its thread holds the GIL. Work that waits (files, network, "
             "sleep) or runs in NumPy or TensorFlow kernels that release the GIL gains from the parallel map; pure "
             "Python does not.")


q3 = Question(N_("Exercise 3: why no speed-up?"), _check_q3,
              hints=[N_("Compare the two timelines of the GIL section: which bars got longer when four ran at once?")],
              solution="answer = 'a'")
