"""tutor.profile on real pipelines: who held the time, TensorFlow's stage names, and the pipelines learners write.

Every verdict is about what happened, with bounds load cannot break: a
``time.sleep`` inside a ``py_function`` lasts at least as long as asked, so a
stage that sleeps holds at least that much time; a consumer that sleeps far
longer than the pipeline needs waits for almost nothing.
"""
import time

import numpy as np
import tensorflow as tf

import tutor
from tutor.timeline import CONSUMER, naive_options

SLEEP = 0.02


def sleepy(x, seconds=SLEEP):
    time.sleep(seconds)
    return x


def slow_map(ds, seconds=SLEEP, **kwargs):
    """A Python map that sleeps ``seconds`` per element (py_function: TensorFlow cannot make it parallel)."""
    return ds.map(lambda x: tf.py_function(lambda v: sleepy(v, seconds), [x], tf.int64), **kwargs)


def test_a_slow_python_map_is_named_the_bottleneck():
    # Long sleeps: the consumer's own work between elements is what a busy machine stretches, and it must stay
    # small next to the waiting for the waiting share to say "most of the time" on any machine.
    steps, seconds = 8, 0.1
    tl = tutor.profile(slow_map(tf.data.Dataset.range(100), seconds).prefetch(1), steps=steps)
    assert tl.stages == ["Range", "Map", "Prefetch"]
    assert tl.bottleneck == "Map"
    own = tl.stage_self_time
    assert own["Map"] >= 0.99 * steps * seconds  # every element's sleep is Map's own time ...
    assert own["Range"] < 0.5 * own["Map"]     # ... not its input's, and not the buffer's
    assert own["Prefetch"] < 0.5 * own["Map"]
    assert tl.stage_wait_share["Map"] > 0.5
    assert tl.consumer_wait_fraction > 0.5


def test_a_slow_consumer_is_named_the_bottleneck():
    # Steps of a whole second: the consumer waits for input only when the map's thread got no CPU for a tenth
    # of a step, which a busy machine did to steps of 0.1 s (a CI run on TF 2.15 named ParallelMapV2).
    steps, step_time = 4, 1.0
    tl = tutor.profile(tf.data.Dataset.range(100).map(lambda x: x * 2).prefetch(2), steps=steps, step_time=step_time)
    assert tl.bottleneck == CONSUMER
    assert tl.steady_wait_fraction < 0.1
    consumer = tl.stage_events(CONSUMER)
    assert len(consumer) == steps and np.all(consumer["end"] - consumer["start"] >= step_time - 0.001)


def test_a_parallel_maps_function_runs_are_its_own_work():
    steps = 6
    tl = tutor.profile(slow_map(tf.data.Dataset.range(100), num_parallel_calls=2), steps=steps)
    assert "ParallelMapV2" in tl.stages
    assert tl.bottleneck == "ParallelMapV2"
    assert tl.stage_self_time["ParallelMapV2"] >= 0.99 * steps * SLEEP


def test_a_stage_runs_no_more_calls_at_once_than_its_parallelism():
    # TensorFlow fuses map + batch into MapAndBatch; a map it cannot make parallel (py_function) keeps one call
    # at a time there, and each call's row ends by the time the next starts, however late its thread closes.
    steps = 5
    for calls, expected in ((None, 1), (2, 2)):
        kwargs = {} if calls is None else {"num_parallel_calls": calls}
        tl = tutor.profile(slow_map(tf.data.Dataset.range(100), **kwargs).batch(2), steps=steps)
        assert tl.meta["parallelism"] == {"MapAndBatch": expected}
        runs = tl.events[(tl.events["stage"] == "MapAndBatch") & tl.function_run]
        # two calls per step; a run on a loaded machine recorded one fewer (likely a call at an end of the recording,
        # not traced further), so one call at each end may be missing
        assert len(runs) >= 2 * steps - 2
        order = np.argsort(runs["start"])
        starts, ends = runs["start"][order], runs["end"][order]
        at_once = max(int(np.sum((starts <= t) & (ends > t))) for t in starts)
        assert at_once == expected  # the two sleeping calls do overlap when two are allowed


def test_stage_names_and_notes_after_tensorflows_rewrites():
    fused = tutor.profile(tf.data.Dataset.range(64).map(lambda x: x * 2).batch(4), steps=3)
    assert "MapAndBatch" in fused.stages
    assert any("map_and_batch_fusion" in n for n in fused.notes)

    injected = tutor.profile(tf.data.Dataset.range(6).shuffle(6, seed=1).repeat().batch(2), steps=4)
    order = [injected.stages.index(s) for s in ("Range", "ShuffleAndRepeat", "BatchV2", "Prefetch")]
    assert order == sorted(order)  # source -> consumer
    assert any("inject_prefetch" in n for n in injected.notes)
    assert any("shuffle_and_repeat_fusion" in n for n in injected.notes)

    parallel = tutor.profile(tf.data.Dataset.range(8).map(lambda x: x + 1), steps=3)
    assert "ParallelMapV2" in parallel.stages
    assert any("map_parallelization" in n for n in parallel.notes)


def test_without_tensorflows_rewrites_the_stages_are_the_code_as_written():
    ds = slow_map(tf.data.Dataset.range(40)).batch(2).with_options(naive_options())
    tl = tutor.profile(ds, steps=3)
    assert tl.stages == ["Range", "Map", "BatchV2"]
    assert tl.notes == []


def test_calls_are_linked_to_the_call_that_waited_for_them():
    tl = tutor.profile(slow_map(tf.data.Dataset.range(100)).prefetch(1), steps=6)
    stage_of_parent = lambda e: tl.events["stage"][tl.parent[e]]  # noqa: E731
    served = [i for i in np.flatnonzero(tl.events["stage"] == "Map") if tl.events["step"][i] >= 0]
    assert len(served) >= 6
    # a Map call runs on the prefetch thread, for the Prefetch call that later hands its element on
    parents = [str(stage_of_parent(i)) if tl.parent[i] >= 0 else None for i in served]
    assert parents == ["Prefetch"] * len(served), (parents, tl.events, tl.parent, tl.steps)
    ranges = [i for i in np.flatnonzero(tl.events["stage"] == "Range") if tl.events["step"][i] >= 0]
    assert all(stage_of_parent(i) == "Map" for i in ranges)  # Range is called inside Map, on its thread


def test_without_a_buffer_each_call_happens_while_its_step_waits():
    ds = slow_map(tf.data.Dataset.range(40)).with_options(naive_options())
    tl = tutor.profile(ds, steps=5)
    work = tl.stage_events("Map")
    assert sorted(work["step"].tolist()) == [0, 1, 2, 3, 4]
    steps = tl.steps[work["step"]]
    assert np.all(work["start"] >= steps["request"]) and np.all(work["end"] <= steps["start"])


def test_from_generator_profiles():
    def numbers():
        yield from range(50)

    ds = tf.data.Dataset.from_generator(numbers, output_signature=tf.TensorSpec([], tf.int64))
    tl = tutor.profile(ds, steps=5)
    assert tl.n_steps == 5
    assert "Generator" in tl.stages and len(tl.stage_events("Generator")) >= 5
    assert any("from_generator" in n for n in tl.notes)


def test_interleave_over_tfrecord_shards_profiles(tmp_path):
    files = []
    for shard in range(3):
        path = str(tmp_path / f"shard-{shard}.tfrecord")
        with tf.io.TFRecordWriter(path) as writer:
            for i in range(10):
                writer.write(f"{shard}-{i}".encode())
        files.append(path)
    ds = tf.data.Dataset.from_tensor_slices(files).interleave(
        tf.data.TFRecordDataset, cycle_length=2, num_parallel_calls=2)
    tl = tutor.profile(ds, steps=12)
    assert tl.n_steps == 12
    assert "TFRecord" in tl.stages  # one stage for the reads of every shard
    interleave = [s for s in tl.stages if s.startswith("ParallelInterleave") and "/" not in s]
    assert len(interleave) == 1
    assert tl.stages.index("TFRecord") < tl.stages.index(interleave[0]) == len(tl.stages) - 1
    assert len(tl.stage_events("TFRecord")) >= 12


def test_zip_keeps_its_two_inputs_apart():
    ds = tf.data.Dataset.zip((tf.data.Dataset.range(20), tf.data.Dataset.range(20).map(lambda x: x + 1)))
    tl = tutor.profile(ds, steps=5)
    assert "Zip" in tl.stages
    ranges = [s for s in tl.stages if s.endswith("Range")]
    assert len(ranges) == 2 and len(set(tl.stages)) == len(tl.stages)
    assert all(tl.stages.index(r) < tl.stages.index("Zip") for r in ranges)


def test_an_endless_repeat_stops_after_steps_and_a_short_dataset_stops_early():
    assert tutor.profile(tf.data.Dataset.range(3).repeat(), steps=7).n_steps == 7
    assert tutor.profile(tf.data.Dataset.range(3), steps=10).n_steps == 3


def test_train_step_gets_each_element_spread_like_map():
    seen = []
    ds = tf.data.Dataset.from_tensor_slices((np.arange(6), np.arange(6) * 10))
    tl = tutor.profile(ds, steps=4, train_step=lambda x, y: seen.append((int(x), int(y))))
    assert seen == [(0, 0), (1, 10), (2, 20), (3, 30)]
    assert tl.n_steps == 4 and tl.meta["train_step"] is True


def test_a_profile_draws_and_compares_like_any_timeline():
    import matplotlib.pyplot as plt

    tl = tutor.profile(slow_map(tf.data.Dataset.range(40)).prefetch(1), steps=4, label="mine")
    disp = tutor.TimelineDisplay.from_timeline(tl).plot()
    assert len(disp.bars_[(0, "Map")].get_paths()) == len(tl.stage_events("Map"))
    assert len(disp.bars_[(0, CONSUMER)].get_paths()) == 4
    assert len(disp.ax_.collections) == len(tl.stages) + 2  # one per stage, the consumer, its waits
    model = tutor.timeline.simulate([("Map", SLEEP)], steps=4, prefetch=1)
    both = tutor.TimelineDisplay.compare([tl, model]).plot()
    assert both.labels == ["mine", "model"]
    plt.close("all")


def test_a_plain_map_made_parallel_before_the_fusion_gets_both_notes():
    import os

    def heavy(x):
        return tf.reduce_sum(tf.random.stateless_uniform([100, 100], seed=[1, 2])) + tf.cast(x, tf.float32)

    def stateful(x):
        return tf.random.uniform([]) + tf.cast(x, tf.float32)  # state: map_parallelization leaves it alone

    plain = tutor.profile(tf.data.Dataset.range(64).map(heavy).batch(4), steps=4)
    calls = plain.meta["parallelism"]["MapAndBatch"]
    parallel_note = [n for n in plain.notes if "made a plain map parallel" in n]
    assert any("map_and_batch_fusion" in n for n in plain.notes)
    assert bool(parallel_note) == (calls > 1), (calls, plain.notes)  # the note follows what TensorFlow did
    if len(os.sched_getaffinity(0)) > 1:  # TensorFlow's pool has several threads: AUTOTUNE allows several calls
        assert calls > 1 and f"ran up to {calls} calls at once" in parallel_note[0]
        assert plain.notes.index(parallel_note[0]) < next(i for i, n in enumerate(plain.notes) if "fused" in n)
    kept = tutor.profile(tf.data.Dataset.range(64).map(stateful).batch(4), steps=4)
    assert kept.meta["parallelism"]["MapAndBatch"] == 1
    assert not any("made a plain map parallel" in n for n in kept.notes)
    assert any("map_and_batch_fusion" in n for n in kept.notes)


def test_rewrite_notes_decide_the_parallel_fusion_from_the_calls_allowed_at_once():
    from tutor.timeline.profiler.build import rewrite_notes

    key = ("MapAndBatch",)
    nodes, names = {key: {"fused(MapDataset:1,BatchDatasetV2:2)"}}, {key: "MapAndBatch"}
    assert len(rewrite_notes(nodes, [key], names, {"MapAndBatch": 4})) == 2
    assert len(rewrite_notes(nodes, [key], names, {"MapAndBatch": 1})) == 1
    written = {key: {"fused(ParallelMapDatasetV2:1,BatchDatasetV2:2)"}}  # the learner asked for it: nothing to say
    assert not any("plain map" in n for n in rewrite_notes(written, [key], names, {"MapAndBatch": 4}))
