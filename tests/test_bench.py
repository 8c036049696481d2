"""tutor.bench.time_pipeline: whole passes, warm-up left out, bounded.

Which pass holds which cost is checked on a clock the test moves itself (``VirtualClock`` stands in for
the ``time`` module inside tutor.bench), so the numbers are exact however busy the machine is. One test
on the real clock checks that the times are wall-clock seconds.
"""
import threading
import time

import pytest
import tensorflow as tf

import tutor.bench
from tutor.bench import Timing, time_pipeline


class VirtualClock:
    """A clock that moves only when the test calls ``advance``: the pipeline says what each call costs."""

    def __init__(self):
        self.now = 0.0
        self._lock = threading.Lock()

    def perf_counter(self):
        return self.now

    def advance(self, seconds):
        with self._lock:  # map functions may run on several threads
            self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    clock = VirtualClock()
    monkeypatch.setattr(tutor.bench, "time", clock)
    return clock


def test_reads_every_element_each_pass():
    calls = []
    ds = tf.data.Dataset.range(30).map(lambda x: tf.py_function(lambda v: calls.append(1) or v, [x], tf.int64))
    t = time_pipeline(ds, repeats=3, warmup=1)
    assert t.elements == 30 and len(t.times) == 3
    assert len(calls) == 30 * 4  # one warm-up pass + three counted passes, all complete


def test_rows_count_images_in_batches():
    t = time_pipeline(tf.data.Dataset.range(100).batch(32), repeats=1, count="rows")
    assert t.elements == 100 and t.unit == "rows"
    assert time_pipeline(tf.data.Dataset.range(100).batch(32), repeats=1).elements == 4


def test_first_pass_is_kept_out_unless_asked(clock):
    state = {"first": True}

    def costs(v):  # 1 ms per element, plus 0.3 s on the very first call (start-up)
        if state["first"]:
            state["first"] = False
            clock.advance(0.3)
        clock.advance(0.001)
        return v

    ds = tf.data.Dataset.range(5).map(lambda x: tf.py_function(costs, [x], tf.int64))
    honest = time_pipeline(ds, repeats=2, warmup=1)
    assert honest.first_seconds == pytest.approx(0.305) and honest.times == pytest.approx([0.005, 0.005])
    state["first"] = True
    counted = time_pipeline(ds, repeats=2, include_first=True)
    assert counted.times == pytest.approx([0.305, 0.005]) and counted.first_seconds == counted.times[0]


def test_a_builder_is_timed_inside_the_first_pass(clock):
    def build():
        clock.advance(0.2)
        return tf.data.Dataset.range(3)

    t = time_pipeline(build, repeats=1)
    assert t.first_seconds == pytest.approx(0.2) and t.times == [0.0]
    with pytest.raises(TypeError, match="builder returned"):
        time_pipeline(lambda: [1, 2], repeats=1)


def test_times_are_wall_clock_seconds():
    def build():
        time.sleep(0.05)  # sleeping uses no CPU: a CPU-time clock would miss it
        return tf.data.Dataset.range(3)

    assert time_pipeline(build, repeats=1).first_seconds >= 0.05


def test_infinite_dataset_needs_a_bound():
    with pytest.raises(ValueError, match="max_elements"):
        time_pipeline(tf.data.Dataset.range(3).repeat())
    t = time_pipeline(tf.data.Dataset.range(3).repeat(), max_elements=10, repeats=1)
    assert t.elements == 10


def test_result_numbers_and_repr():
    t = Timing([2.0, 1.0, 4.0], 5.0, 100, label="demo")
    assert t.median == 2.0 and t.per_second == 50.0
    text = repr(t)
    assert "demo" in text and "median 2.000 s" in text and "50 elements/s" in text and "first pass 5.000 s" in text


def test_bad_arguments():
    ds = tf.data.Dataset.range(3)
    with pytest.raises(ValueError, match="repeats"):
        time_pipeline(ds, repeats=0)
    with pytest.raises(ValueError, match="count"):
        time_pipeline(ds, count="batches")
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        time_pipeline([1, 2, 3])
