"""Stand-ins for real work inside a pipeline, each with a known cost.

* :func:`sleep_work`: Python ``time.sleep`` in ``tf.py_function``. Sleeping
  releases the GIL, like reading a file or waiting on a network, so several
  of them run at once in a parallel ``map``.
* :func:`python_busy_work`: a pure-Python loop in ``tf.py_function``. It holds
  the GIL, so a parallel ``map`` starts them together but they take turns
  holding the GIL: they add up, they do not overlap.
* :func:`tf_busy_work`: TensorFlow's own ops (matrix products). No Python,
  no GIL: it runs in parallel, up to the number of CPU cores.

Each returns a function for ``map`` that passes its input through unchanged
(shape and dtype kept) after doing the work.
"""
from __future__ import annotations

import functools
import time
from typing import Callable

import tensorflow as tf

from .. import reading
from .._validate import require_positive_int, require_seconds
from .pipeline import naive_options


def _through_py_function(work: Callable[[], None]) -> Callable:
    def fn(x):
        def run(value):
            work()
            return value

        y = tf.py_function(run, [x], Tout=x.dtype)
        y.set_shape(x.shape)  # py_function forgets static shapes; give it back
        return y

    return fn


def sleep_work(seconds: float) -> Callable:
    """A map function that sleeps ``seconds`` (releasing the GIL), then returns its input.

    >>> ds = tf.data.Dataset.range(3).map(sleep_work(0.001))
    >>> [int(v) for v in ds.as_numpy_iterator()]
    [0, 1, 2]
    """
    seconds = require_seconds(seconds, "seconds", "sleep_work", maximum=10)
    return _through_py_function(lambda: time.sleep(seconds))


@functools.lru_cache(maxsize=1)
def loops_per_second() -> float:
    """How many iterations of :func:`spin` this machine runs per second (measured once, best of 3)."""
    n = 200_000
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        spin(n)
        best = min(best, time.perf_counter() - start)
    return n / best


def spin(loops: int) -> int:
    """A fixed amount of pure-Python work: ``loops`` additions, holding the GIL."""
    x = 0
    for i in range(loops):
        x += i
    return x


def busy_wait(seconds: float) -> None:
    """Compute in pure Python for about ``seconds`` (on an idle core), holding the GIL.

    The amount of *work* is fixed, not the wall time: two threads sharing the
    GIL take twice as long, which is the point.
    """
    spin(int(seconds * loops_per_second()))


def python_busy_work(seconds: float) -> Callable:
    """A map function that computes in pure Python for ``seconds`` (holding the GIL).

    >>> ds = tf.data.Dataset.range(2).map(python_busy_work(0.001))
    >>> [int(v) for v in ds.as_numpy_iterator()]
    [0, 1]
    """
    seconds = require_seconds(seconds, "seconds", "python_busy_work", maximum=10)
    return _through_py_function(lambda: busy_wait(seconds))


def tf_busy_work(repeats: int = 20, size: int = 96) -> Callable:
    """A map function doing ``repeats`` TensorFlow matrix products of ``size`` x ``size`` (no Python, no GIL).

    >>> ds = tf.data.Dataset.range(2).map(tf_busy_work(2, 8))
    >>> [int(v) for v in ds.as_numpy_iterator()]
    [0, 1]
    """
    repeats = require_positive_int(repeats, "repeats", "tf_busy_work")
    size = require_positive_int(size, "size", "tf_busy_work")

    def fn(x):
        # A random start (a stateful op) so that TensorFlow cannot fold the products into a constant ahead of time;
        # entries in [0, 2/size) keep the products from growing without bound.
        m = tf.random.uniform([size, size], 0.0, 2.0 / size)
        m = tf.while_loop(lambda i, a: i < repeats, lambda i, a: (i + 1, tf.matmul(a, a)), (0, m))[1]
        with tf.control_dependencies([m]):
            return tf.identity(x)

    return fn


def seconds_per_element(fn: Callable, n: int = 100) -> float:
    """Seconds per element of ``range(n).map(fn).batch(50)``, automatic speed-ups off, after one warm-up pass."""
    ds = tf.data.Dataset.range(n).map(fn).batch(50).with_options(naive_options())
    reading.time_pass(ds, where="seconds_per_element")  # the warm-up pass; both bounded like every read
    return reading.time_pass(ds, where="seconds_per_element")[1] / n


def fitted_tf_busy_work(seconds: float, size: int = 128):
    """:func:`tf_busy_work` with its repeats fitted to take about ``seconds`` per element on this machine.

    It measures 4 and 16 repeats with :func:`seconds_per_element` and reads the repeats off the line through
    those two points. Returns ``(fn, repeats)``. For benchmarks: the fit is only as steady as the machine.
    """
    low = seconds_per_element(tf_busy_work(repeats=4, size=size))
    high = seconds_per_element(tf_busy_work(repeats=16, size=size))
    per_repeat = max((high - low) / 12, 1e-7)
    repeats = max(1, round((seconds - low) / per_repeat) + 4)
    return tf_busy_work(repeats=repeats, size=size), repeats
