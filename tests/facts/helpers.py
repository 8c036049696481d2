"""Helpers that the fact tests of several lessons share; a helper one lesson's tests use stays in its file.

``R``, ``ids``, ``Recorder`` and ``without_injected_prefetch`` serve lessons 01-03; ``recording`` lessons 05 and
12; ``Gauge``, ``pool``, ``parallel_map`` and ``map_in_python`` the thread-pool and GIL facts of lessons 00, 07
and 09 (decided by :class:`busy.Meeting`, never by a duration); ``waiting_map`` lessons 07 and 08.
"""
import threading
import time

import tensorflow as tf

from busy import Meeting
from tutor import timeline as T


R = tf.data.Dataset.range  # R(5): the ids 0 to 4


def ids(ds):
    """The elements of a dataset of scalar ids, as Python ints."""
    return [int(x) for x in ds.as_numpy_iterator()]


def without_injected_prefetch(ds):
    """``ds`` without the prefetch TensorFlow adds at the end (inject_prefetch off)."""
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    return ds.with_options(options)


class Recorder:
    """Records which ids a map computed; ``ahead`` is set once an id other than the first was computed."""

    def __init__(self):
        self.made = []
        self.ahead = threading.Event()

    def __call__(self, x):
        self.made.append(int(x))
        if int(x) > 0:
            self.ahead.set()
        return x

    def watch(self, ds):
        return ds.map(lambda x: tf.py_function(self, [x], tf.int64))


def recording(ids: tf.data.Dataset, seen: list) -> tf.data.Dataset:
    """(image, label) pairs whose ids are noted, in the order the pipeline produces them."""
    def note(x):
        seen.append(int(x))
        return x

    images = tf.zeros([28, 28, 1], tf.uint8)
    return ids.map(lambda i: (images, tf.ensure_shape(tf.py_function(note, [i], tf.int64), []) % 10))


class Gauge:
    """Counts how many calls are inside ``with gauge:`` at once; the first ``meet`` of them meet first."""

    def __init__(self, meet: int = 0, patience: float = 30.0):
        self._lock = threading.Lock()
        self.active = self.peak = self.calls = 0
        self.meeting = Meeting(meet, patience=patience) if meet else None

    def __enter__(self):
        with self._lock:
            self.active += 1
            self.calls += 1
            self.peak = max(self.peak, self.active)
        if self.meeting:
            self.meeting.attend()

    def __exit__(self, *exc):
        with self._lock:
            self.active -= 1

    def sleeper(self, seconds: float = 0.01):
        """A function for ``tf.py_function``: counted, meets, sleeps (releasing the GIL), returns its input."""
        def work(x):
            with self:
                threading.Event().wait(seconds)
            return x
        return work


def pool(threads=None, **optimization) -> tf.data.Options:
    """Options with a private pool of ``threads`` threads (None: the shared pool) and optimizations set."""
    options = tf.data.Options()
    if threads:
        options.threading.private_threadpool_size = threads
    for name, value in optimization.items():
        setattr(options.experimental_optimization, name, value)
    return options


def parallel_map(gauge, num_parallel_calls, options=None, n=12):
    """Read ``range(n)`` through a py_function map whose calls ``gauge`` counts; return the ids read."""
    ds = tf.data.Dataset.range(n).map(lambda x: tf.py_function(gauge.sleeper(), [x], tf.int64),
                                      num_parallel_calls=num_parallel_calls)
    return [int(v) for v in (ds.with_options(options) if options else ds)]


def map_in_python(body, *, n, parallel, threads=None):
    """Run ``body()`` once per element inside a ``tf.py_function`` in a parallel map, and read every element."""
    options = T.naive_options()
    if threads:
        options.threading.private_threadpool_size = threads

    def fn(x):
        def run(v):
            body()
            return v

        return tf.py_function(run, [x], Tout=tf.int64)

    ds = tf.data.Dataset.range(n).with_options(options).map(fn, num_parallel_calls=parallel)
    assert sorted(int(v) for v in ds.as_numpy_iterator()) == list(range(n))


def waiting_map(seconds=0.005, log=None):
    """A map function that waits in Python (like lesson 07's decode), optionally recording its calls."""
    def wait(value):
        if log is None:
            time.sleep(seconds)
        else:
            with log.call():
                time.sleep(seconds)
        return value

    return lambda x: tf.py_function(wait, [x], Tout=tf.int64)
