"""tutor.profile on real pipelines: stages in pipeline order, epochs read from the trace, calls and function runs.

Every assertion is about what happened in the run (which iterators ran, in
which nesting, which epoch each element came from), never about how long it took.
"""
import time

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor.timeline import CONSUMER, naive_options

SLEEP = 0.005


def sleepy(x):
    time.sleep(SLEEP)
    return x


def slow(x):
    return tf.py_function(sleepy, [x], tf.int64)


def test_a_cache_comes_after_its_source_and_epochs_follow_the_repeat():
    files, epochs = 4, 3
    ds = tf.data.Dataset.range(files).map(slow).cache().repeat(epochs).prefetch(1).with_options(naive_options())
    tl = tutor.profile(ds, steps=files * epochs, step_time=0.001)
    assert tl.stages == ["Range", "Map", "MemoryCacheImpl", "MemoryCache", "FiniteRepeat", "Prefetch"]
    assert any("MemoryCacheImpl" in note for note in tl.notes)
    assert tl.epochs_known
    consumer = tl.stage_events(CONSUMER)
    assert consumer["epoch"].tolist() == [e for e in range(epochs) for _ in range(files)]
    assert set(tl.stage_events("Map")["epoch"].tolist()) == {0}  # only the first pass runs the map
    assert set(tl.stage_events("MemoryCacheImpl")["epoch"].tolist()) == set(range(epochs))
    disp = tutor.TimelineDisplay.from_timeline(tl).plot(color_by="epoch")
    assert len({tuple(c) for c in disp.bars_[(0, CONSUMER)].get_facecolor()}) == epochs


def test_epochs_of_a_parallel_map_after_the_repeat_and_of_its_function_runs():
    ds = tf.data.Dataset.range(6).repeat(3).map(slow, num_parallel_calls=2).batch(2)
    tl = tutor.profile(ds, steps=9)
    assert tl.stages.index("Range") < tl.stages.index("FiniteRepeat") < len(tl.stages) - 1
    assert tl.stage_events(CONSUMER)["epoch"].tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    last = tl.stages[-1]  # MapAndBatch (fused) or the map, depending on TensorFlow's rewrites
    served = tl.events[(tl.events["stage"] == last) & (tl.events["step"] >= 0)]
    assert np.array_equal(served["epoch"], served["step"] // 3)  # 3 batches of 2 per epoch of 6


def test_function_runs_and_calls_of_a_parallel_map_are_drawn_on_separate_sub_rows():
    steps = 6
    tl = tutor.profile(tf.data.Dataset.range(100).map(slow, num_parallel_calls=2), steps=steps)
    mine = tl.events["stage"] == "ParallelMapV2"
    runs, calls = tl.function_run & mine, ~tl.function_run & mine
    assert runs.sum() >= steps and calls.sum() >= steps
    assert not tl.function_run[tl.events["stage"] == "Range"].any()
    disp = tutor.TimelineDisplay.from_timeline(tl).plot()
    labels = [t.get_text() for t in disp.ax_.get_yticklabels()]
    assert labels.index("ParallelMapV2: function runs") + 1 == labels.index("ParallelMapV2: calls")
    corners = np.array([p.vertices[:4] for p in disp.bars_[(0, "ParallelMapV2")].get_paths()])
    order = np.flatnonzero(mine)  # the collection holds the stage's events in Timeline order
    tops = corners[:, 0, 1]
    assert tops[runs[order]].max() < tops[calls[order]].min()  # every run above every call


def test_fused_shuffle_and_repeat_cannot_tell_epochs_and_says_how_to_see_them():
    fused = tutor.profile(tf.data.Dataset.range(6).shuffle(6, seed=1).repeat(3).batch(2), steps=6)
    assert "ShuffleAndRepeat" in fused.stages and not fused.epochs_known
    with pytest.raises(ValueError, match="shuffle_and_repeat_fusion = False"):
        tutor.TimelineDisplay.from_timeline(fused).plot(color_by="epoch")
    options = tf.data.Options()
    options.experimental_optimization.shuffle_and_repeat_fusion = False
    ds = tf.data.Dataset.range(6).shuffle(6, seed=1).repeat(3).batch(2).with_options(options)
    apart = tutor.profile(ds, steps=6)
    assert "ShuffleAndRepeat" not in apart.stages and apart.epochs_known
    assert apart.stages.index("Range") < apart.stages.index("Shuffle") < apart.stages.index("FiniteRepeat")
    assert apart.stage_events(CONSUMER)["epoch"].tolist() == [0, 0, 0, 1, 1, 1]
