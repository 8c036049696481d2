"""Lesson 09 exercises: from_generator with a signature, the index trick, and the GIL.

>>> from tutor.checks import lesson09 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np
import tensorflow as tf

from ..timeline.work import busy_wait
from . import _read
from ._core import Question, fail

__all__ = ["N_SAMPLES", "SHAPE", "LOAD_SECONDS", "load_sample", "load_sample_python", "samples", "signature",
           "peak_concurrency", "q1", "q2", "q3"]

N_SAMPLES = 12
SHAPE = (8, 8)
LOAD_SECONDS = 0.03


def _make(i: int) -> tuple[np.ndarray, np.int64]:
    image = (np.arange(SHAPE[0] * SHAPE[1], dtype=np.float32).reshape(SHAPE) + 100 * i) / 1000
    return image, np.int64(i % 3)


_lock = threading.Lock()
_active = 0
_peak = 0


def load_sample(index) -> tuple[np.ndarray, np.int64]:
    """The heavy work for one sample: waits ``LOAD_SECONDS`` like a file read (releasing the GIL).

    Accepts a Python int or the EagerTensor that ``tf.py_function`` passes in. It also counts how many
    calls run at the same time (:func:`peak_concurrency`), which is how q2 sees a parallel map.
    """
    global _active, _peak
    i = int(index.numpy()) if hasattr(index, "numpy") else int(index)
    with _lock:
        _active += 1
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


def load_sample_python(index) -> tuple[np.ndarray, np.int64]:
    """The same sample, but the work is pure-Python computing that holds the GIL."""
    i = int(index.numpy()) if hasattr(index, "numpy") else int(index)
    busy_wait(LOAD_SECONDS)
    return _make(i)


def samples():
    """A generator doing all the work itself: yields ``(image [8, 8] float32, label int64)`` pairs."""
    for i in range(N_SAMPLES):
        yield load_sample(i)


def signature() -> tuple[tf.TensorSpec, tf.TensorSpec]:
    """The output_signature of :func:`samples` (q1's answer, used by q2's baseline)."""
    return tf.TensorSpec(SHAPE, tf.float32), tf.TensorSpec((), tf.int64)


def _expected():
    return [_make(i) for i in range(N_SAMPLES)]


def _check_q1(answer: Any) -> str:
    answer = _read.dataset(answer, "a tf.data.Dataset made with tf.data.Dataset.from_generator")
    spec = answer.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2):
        fail(f"each element should be a pair (image, label); element_spec is {spec}.")
    image, label = spec
    if image.dtype != tf.float32 or label.dtype != tf.int64:
        fail(f"the dtypes should be float32 for the image and int64 for the label, got {image.dtype.name} "
             f"and {label.dtype.name}.")
    if image.shape.rank is None or image.shape.as_list() != list(SHAPE):
        fail(f"the image spec has shape {image.shape}; give the full shape {SHAPE} so that later stages "
             "(batch, the model) know it.")
    if label.shape.rank != 0:
        fail(f"the label is one number per sample: shape (), got {label.shape}.")
    got = list(answer.take(N_SAMPLES + 1).as_numpy_iterator())
    want = _expected()
    if len(got) != N_SAMPLES or any(not np.array_equal(g[0], w[0]) or g[1] != w[1] for g, w in zip(got, want)):
        fail("the elements are not the 12 samples of ex.samples in order; pass the function ex.samples "
             "itself (not ex.samples()) to from_generator.")
    return f"element_spec = {spec}."


q1 = Question(
    "Exercise 1: from_generator with a signature",
    _check_q1,
    hints=["tf.data.Dataset.from_generator(ex.samples, output_signature=(..., ...)).",
           "One tf.TensorSpec per part: shape (8, 8) float32 for the image, shape () int64 for the label."],
    solution="""
    ex = tutor.checks.lesson09
    answer = tf.data.Dataset.from_generator(
        ex.samples,
        output_signature=(tf.TensorSpec((8, 8), tf.float32), tf.TensorSpec((), tf.int64)))
    """,
)


def _check_q2(answer: Any) -> str:
    answer = _read.dataset(answer, "a tf.data.Dataset")
    spec = answer.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2):
        fail(f"each element should be a batch pair (images, labels); element_spec is {spec}.")
    images, labels = spec
    if images.shape.rank is None or images.shape.as_list()[1:] != list(SHAPE):
        fail(f"the images have static shape {images.shape}: after py_function and batch the shape is lost. "
             "Restore it with tf.ensure_shape(images, [None, 8, 8]) (or set_shape) in a map after batch.")
    if labels.shape.rank != 1:
        fail(f"the labels have static shape {labels.shape}; restore it with tf.ensure_shape(labels, [None]).")
    peak_concurrency(reset=True)
    start = time.perf_counter()
    batches = list(answer.take(N_SAMPLES + 1).as_numpy_iterator())
    mine = time.perf_counter() - start
    parallel = peak_concurrency(reset=True)
    if not batches or any(np.ndim(b[0]) != 3 for b in batches):
        fail("expected batches: add .batch(4) after the map.")
    got = sorted(tuple(img.ravel().tolist()) + (int(lab),) for b in batches for img, lab in zip(*b))
    want = sorted(tuple(img.ravel().tolist()) + (int(lab),) for img, lab in _expected())
    if got != want:
        fail(f"expected the {N_SAMPLES} samples of ex.load_sample(0..{N_SAMPLES - 1}), each once; got "
             f"{len(got)} samples that do not match.")
    if parallel < 2 and (os.cpu_count() or 1) > 1:
        fail("ex.load_sample never ran twice at the same time: is the map parallel "
             "(num_parallel_calls=tf.data.AUTOTUNE), and does the generator yield only indices?")
    serial = N_SAMPLES * LOAD_SECONDS
    return (f"up to {parallel} samples loaded at once; {mine:.2f} s for {N_SAMPLES} samples that take "
            f"{serial:.2f} s one after another. Static shapes: {images.shape}.")


q2 = Question(
    "Exercise 2: the index trick",
    _check_q2,
    hints=[
        "Generator: yield only the numbers 0..11 (output_signature=tf.TensorSpec((), tf.int64)).",
        "map(lambda i: tf.py_function(ex.load_sample, [i], [tf.float32, tf.int64]), "
        "num_parallel_calls=tf.data.AUTOTUNE), then batch(4).",
        "After batch: map(lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None]))).",
    ],
    solution="""
    ex = tutor.checks.lesson09
    ids = tf.data.Dataset.from_generator(lambda: iter(range(ex.N_SAMPLES)),
                                         output_signature=tf.TensorSpec((), tf.int64))
    ds = ids.map(lambda i: tf.py_function(ex.load_sample, [i], [tf.float32, tf.int64]),
                 num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(4).map(lambda x, y: (tf.ensure_shape(x, [None, 8, 8]), tf.ensure_shape(y, [None])))
    answer = ds
    """,
)

CHOICES = {
    "a": "A py_function that computes in pure Python holds the GIL, so only one call runs at a time.",
    "b": "AUTOTUNE chose num_parallel_calls=1 because the machine is small.",
    "c": "from_generator copies every element twice, and the copies take the time.",
    "d": "There is no prefetch at the end, so nothing can run in parallel.",
}
_WHY = {
    "b": "AUTOTUNE gives the map several threads (look at the lanes in the timeline); the calls still take turns.",
    "c": "the generator only yields small indices here; the heavy work is in the map.",
    "d": "a parallel map runs its calls at once with or without prefetch; the sleeping version showed that.",
}


def _check_q3(answer: Any) -> str:
    if not isinstance(answer, str) or answer.strip().lower() not in CHOICES:
        fail(f"answer with one letter from {sorted(CHOICES)} as a string, e.g. 'a'; got {answer!r}.")
    letter = answer.strip().lower()
    if letter != "a":
        fail(f"({letter}) {_WHY[letter]}")
    return ("right: Python bytecode runs under the GIL. Work that waits (files, network, sleep) or runs in "
            "NumPy/TensorFlow kernels that release the GIL gains from the parallel map; pure Python does not.")


q3 = Question("Exercise 3: why no speed-up?", _check_q3,
              hints=["Compare the two timelines: which bars got longer when several ran at once?"],
              solution="answer = 'a'")
