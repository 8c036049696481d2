"""The timeline explorer's model: its small pipeline, the decode cost it reads at run time, and its book of runs.

:func:`explorer_pipeline` is the pipeline that ``tutor.timeline_explorer`` runs
(lesson 07 records it at both ends of the explorer's settings);
:class:`DecodeCost` and :class:`Prebuilt` let one traced pipeline serve many
runs; :class:`RunBook` keeps every recorded run by setting, and gives the pace
of each (:func:`step_period`) for the verdict helper to judge.
"""
from __future__ import annotations

import statistics
import time
from typing import Callable

import tensorflow as tf

from .pipeline import Pipeline, naive_options
from .work import sleep_work

#: Files, records per file and epochs of :func:`explorer_pipeline`; ``READ_SECONDS`` per record read.
FILES, RECORDS, EPOCHS = 2, 2, 2
READ_SECONDS = 0.003
#: Consumer steps per run: both epochs, so that cache() shows its effect in the second one.
STEPS = FILES * RECORDS * EPOCHS


def explorer_pipeline(*, prefetch: bool, num_parallel_calls: int, cache: bool, interleave: bool,
                      element_ms: int, decode: Callable | None = None) -> Pipeline:
    """The timeline explorer's pipeline: 2 files x 2 records, read (3 ms each), decode (``element_ms``), 2 epochs.

    ``decode`` replaces the decode stage's map function (by default it
    sleeps ``element_ms``), e.g. with :meth:`DecodeCost.work`.

    >>> explorer_pipeline(prefetch=True, num_parallel_calls=2, cache=False, interleave=False, element_ms=5).stages
    ['read', 'decode']
    """
    def read_file(file_id):
        return tf.data.Dataset.range(RECORDS).map(sleep_work(READ_SECONDS))

    pipe = Pipeline(tf.data.Dataset.range(FILES), name="files", options=naive_options())
    if interleave:
        pipe = pipe.interleave(read_file, cycle_length=FILES, num_parallel_calls=FILES, name="read")
    else:
        pipe = pipe.interleave(read_file, cycle_length=1, name="read")
    npc = None if num_parallel_calls == 1 else int(num_parallel_calls)
    pipe = pipe.map(decode or sleep_work(element_ms / 1000), name="decode", num_parallel_calls=npc)
    if cache:
        pipe = pipe.cache()
    pipe = pipe.repeat(EPOCHS)
    return pipe.prefetch(1) if prefetch else pipe


def pipeline_code(*, prefetch: bool, num_parallel_calls: int, cache: bool, interleave: bool, element_ms: int) -> str:
    """The code of :func:`explorer_pipeline` with these settings, as one line.

    >>> pipeline_code(prefetch=True, num_parallel_calls=1, cache=False, interleave=False, element_ms=4)
    'files.interleave(read_file, cycle_length=1).map(decode_4ms).repeat(2).prefetch(1)'
    """
    read = (f"interleave(read_file, cycle_length={FILES}, num_parallel_calls={FILES})" if interleave
            else "interleave(read_file, cycle_length=1)")
    npc = "" if num_parallel_calls == 1 else f", num_parallel_calls={num_parallel_calls}"
    parts = [f"files.{read}", f"map(decode_{element_ms}ms{npc})"]
    parts += ["cache()"] if cache else []
    parts += [f"repeat({EPOCHS})"] + (["prefetch(1)"] if prefetch else [])
    return ".".join(parts)


class DecodeCost:
    """The decode stage's cost, read each time an element is decoded (not fixed when the pipeline is traced).

    One built pipeline then serves every position of the *decode ms* slider:
    moving it needs no new trace of the pipeline's functions, which takes
    longer than the run itself.

    >>> cost = DecodeCost(0.002)
    >>> [int(v) for v in tf.data.Dataset.range(2).map(cost.work()).as_numpy_iterator()]
    [0, 1]
    """

    def __init__(self, seconds: float = 0.0):
        self.seconds = float(seconds)

    def work(self):
        """A map function that sleeps ``self.seconds`` as it is when the element is decoded."""
        def run(value):
            time.sleep(self.seconds)
            return value

        def decode(x):
            y = tf.py_function(run, [x], Tout=x.dtype)
            y.set_shape(x.shape)
            return y

        return decode


def step_period(timeline) -> float:
    """Seconds per consumer step after the first one: the pipeline's steady pace.

    The first step also waits for the iterator to start, which varies a lot
    from run to run; the later steps show what the settings change.
    """
    ends = timeline.steps["end"]
    return float((ends[-1] - ends[0]) / (len(ends) - 1)) if len(ends) > 1 else float(timeline.total_time)


class Prebuilt(Pipeline):
    """A :class:`Pipeline` that builds its dataset once and hands the same one to every run.

    Each run still makes its own iterator (its own pass, with its own buffers
    and threads); only TensorFlow's tracing of the stage functions, a good part
    of a short run's cost, happens once. Not for pipelines with ``cache()``:
    a cache filled by one run would serve the next.
    """

    def __init__(self, pipeline: Pipeline):
        self.__dict__.update(pipeline.__dict__)
        self._built: dict = {}

    def build(self, *, instrument: bool = False):
        if instrument not in self._built:
            self._built[instrument] = Pipeline.build(self, instrument=instrument)
        return self._built[instrument]


class RunBook:
    """Every recorded run, grouped by setting: the median run, and the pace of each run.

    >>> book = RunBook()
    >>> book.add(("a",), tutor.timeline.simulate([("read", 0.002)], step_time=0.004, steps=4))
    >>> [round(p, 1) for p in book.paces_ms(("a",))]  # 2 ms to read, then a 4 ms step, one after the other
    [6.0]
    """

    def __init__(self):
        self.runs: dict[tuple, list] = {}

    def add(self, key: tuple, timeline) -> None:
        self.runs.setdefault(key, []).append(timeline)

    def median_run(self, key: tuple):
        """The run of this setting whose pace is the median (the lower one of an even count)."""
        runs = sorted(self.runs[key], key=step_period)
        return runs[(len(runs) - 1) // 2]

    def paces_ms(self, key: tuple) -> list[float]:
        """Milliseconds per step after the first, of each run of this setting, in the order they ran."""
        return [1000 * step_period(t) for t in self.runs.get(key, [])]

    def pace_ms(self, key: tuple) -> float:
        return statistics.median(self.paces_ms(key))
