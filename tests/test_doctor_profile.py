"""tutor.doctor.check(ds, profile=tl): measured findings from simulated, recorded and profiled timelines.

Simulated timelines are exact. Recorded and profiled runs are real, so each
test makes one side dominate by far (a 40 ms stage against a 0 ms consumer, or
a 300 ms consumer against a trivial map) and asserts only who held the time.
"""
import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import doctor
from tutor import timeline as T
from tutor.timeline.events import make_events, make_steps

AUTOTUNE = tf.data.AUTOTUNE


def named_pipeline(work):
    return T.Pipeline(tf.data.Dataset.range(40)).map(work, name="decode").batch(2).prefetch(1)


def test_simulated_map_bound_run_names_the_map_and_its_fix():
    tl = T.simulate([("decode", 0.02)], step_time=0.001, steps=20, prefetch=1)
    ds = T.Pipeline(tf.data.Dataset.range(40)).map(lambda x: x + 1, name="decode").prefetch(1).build()
    report = doctor.check(ds, profile=tl)
    measured = [f for f in report if f.category == "measured"]
    assert [f.rule for f in measured] == ["input-bound"]
    assert measured[0].stage.kind == "map" and measured[0].stage.number == 2
    assert "decode" in measured[0].message and "num_parallel_calls=tf.data.AUTOTUNE" in measured[0].fix
    assert measured[0].doc.endswith("data_performance_analysis") and "keep up" in measured[0].quote


def test_simulated_consumer_bound_run_says_the_input_is_not_the_bottleneck():
    tl = T.simulate([("decode", 0.001)], step_time=0.05, steps=20, prefetch=1)
    ds = T.Pipeline(tf.data.Dataset.range(40)).map(lambda x: x + 1, name="decode").prefetch(1).build()
    report = doctor.check(ds, profile=tl)
    assert report.rules == [] and report.note_rules == ["input-keeps-up"] and report.healthy
    note = report.notes[0]
    assert note.severity == "note" and note.category == "measured"
    assert "not your bottleneck" in note.message and note.stage is report.stages[-1]
    assert doctor.check(ds, profile=tl, ignore=["input-keeps-up"]).note_rules == []


def test_speed_findings_are_notes_when_the_input_keeps_up():
    """Slow means slow on this pipeline: with a profile where the consumer rarely waits, nothing is slow."""
    tl = T.simulate([("decode", 0.001)], step_time=0.05, steps=20, prefetch=1)
    ds = tf.data.Dataset.range(40).map(lambda x: tf.cast(x, tf.float32) * 2.0).batch(4).prefetch(1)
    assert doctor.check(ds).rules == ["vectorizable-map-before-batch"]
    report = doctor.check(ds, profile=tl)
    assert report.rules == [] and report.note_rules == ["vectorizable-map-before-batch", "input-keeps-up"]
    # wrong results stay wrong whatever the profile says
    wrong = tf.data.Dataset.range(40).batch(4).shuffle(10).prefetch(1)
    assert doctor.check(wrong, profile=tl).rules == ["shuffle-after-batch"]


def test_recorded_map_bound_run_is_matched_to_the_static_map():
    pipe = named_pipeline(T.sleep_work(0.04))
    tl = T.record(pipe, steps=6, step_time=0.0)
    report = doctor.check(pipe.build(), profile=tl)
    measured = next(f for f in report if f.category == "measured")
    assert measured.rule == "input-bound"
    assert measured.stage.kind == "map" and measured.stage.number == 2
    # the static finding about the same stage is pointed to
    assert "map-not-parallel" in report.rules and "[map-not-parallel]" in measured.fix


def test_recorded_consumer_bound_run():
    pipe = T.Pipeline(tf.data.Dataset.range(40)).map(lambda x: x + 1, name="add").prefetch(2)
    tl = T.record(pipe, steps=10, step_time=0.3)
    assert doctor.check(pipe.build(), profile=tl).note_rules == ["input-keeps-up"]


def _timeline(stages, busy, wait, *, buffers=(), step=0.01):
    """A small Timeline with TensorFlow's iterator names: ``busy`` seconds per stage, consumer waits ``wait``."""
    rows, steps, t = [], [], 0.0
    for k in range(10):
        request = t
        for s, b in zip(stages, busy):
            rows.append((s, k, k, 0, t, t + b))
        t += wait
        steps.append((k, request, t, t + step))
        t += step
    return T.Timeline(make_events(rows), make_steps(steps), stages,
                      meta={"tf_version": tf.__version__, "buffer_stages": list(buffers)})


def test_a_buffer_stage_is_never_named_as_the_slowest():
    # Prefetch is busy the whole wait (it waits for its input); the map's own work is smaller but is real work
    ds = tf.data.Dataset.range(8).map(lambda x: x * 2, num_parallel_calls=AUTOTUNE).prefetch(1)
    names = ["Range", "ParallelMapV2", "Prefetch"]
    plain = _timeline(names, [0.0001, 0.01, 0.02], wait=0.02)
    assert plain.bottleneck == "Prefetch"  # without knowing what a buffer is, the buffer looks slowest
    tl = _timeline(names, [0.0001, 0.01, 0.02], wait=0.02, buffers=["Prefetch"])
    assert tl.buffer_stages == ["Prefetch"] and tl.bottleneck == "ParallelMapV2"
    finding = next(f for f in doctor.check(ds, profile=tl) if f.category == "measured")
    assert finding.rule == "input-bound" and finding.stage.kind == "map"
    assert "ParallelMapV2" in finding.message and "Prefetch" not in finding.message
    # a consumer that keeps the input waiting for nothing: the busiest stage named is still not the buffer
    slow = _timeline(names, [0.0001, 0.01, 0.02], wait=0.0, buffers=["Prefetch"], step=0.3)
    finding = next(f for f in doctor.check(ds, profile=slow).notes if f.category == "measured")
    assert finding.rule == "input-keeps-up"
    assert "ParallelMapV2 holds the most (99%)" in finding.message and "Prefetch" not in finding.message


def test_a_real_profile_marks_prefetch_and_cache_as_buffers():
    def slow(x):
        return tf.py_function(lambda v: (__import__("time").sleep(0.02), v)[1], [x], tf.int64)

    ds = tf.data.Dataset.range(8).map(slow).cache().prefetch(1)
    tl = T.profile(ds, steps=6)
    assert set(tl.buffer_stages) == {"MemoryCacheImpl", "MemoryCache", "Prefetch"}, tl.stages
    assert tl.working_stage("Prefetch") == tl.working_stage("MemoryCache") == "Map"  # py_function: not parallel
    assert tl.bottleneck == "Map" and tl.credited_wait_share["Prefetch"] == 0.0


@pytest.mark.parametrize("names, kind", [
    (["TensorSlice", "ParallelMapV2", "Prefetch"], "map"),
    (["Range", "MapAndBatch", "Prefetch"], "map"),
    (["TensorSlice", "Prefetch/ParallelMapV2", "Prefetch"], "map"),
    (["Root::Prefetch::FlatMap", "Root::Prefetch"], "flat_map"),
])
def test_profiled_iterator_names_are_matched_by_kind(names, kind):
    ds = tf.data.Dataset.from_tensor_slices(np.arange(8)).map(lambda x: x * 2, num_parallel_calls=AUTOTUNE)
    if kind == "flat_map":
        ds = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x))
    ds = (ds.batch(2) if kind == "map" else ds).prefetch(1)
    busy = [0.0001] * len(names)
    busy[-2 if kind == "flat_map" else 1] = 0.02
    tl = _timeline(names, busy, wait=0.02)
    stage = doctor.match_stage(tl.bottleneck, doctor.read_pipeline(ds), tl)
    assert stage is not None and stage.kind == kind
    report = doctor.check(ds, profile=tl)
    assert "input-bound" in report.rules
    assert next(f for f in report if f.rule == "input-bound").stage.number == stage.number


def test_a_real_profile_of_a_slow_parallel_map():
    def slow(x):
        return tf.py_function(lambda v: (__import__("time").sleep(0.03), v)[1], [x], tf.int64)

    ds = tf.data.Dataset.range(40).map(slow, num_parallel_calls=2).batch(2).prefetch(1)
    tl = T.profile(ds, steps=6)
    report = doctor.check(ds, profile=tl)
    measured = next(f for f in report if f.category == "measured")
    assert measured.rule == "input-bound", (tl.stages, tl.bottleneck)
    assert measured.stage.kind == "map" and "already runs in parallel" in measured.fix


def test_a_real_profile_of_a_slow_consumer():
    ds = tf.data.Dataset.range(40).batch(2).map(lambda x: x + 1).prefetch(2)
    tl = T.profile(ds, steps=10, step_time=0.3)  # 10% of the run is 270 ms of waiting: far above any stall
    report = doctor.check(ds, profile=tl)
    assert report.rules == [] and report.note_rules == ["input-keeps-up"], (tl.stages, tl.bottleneck)
