"""tutor.timeline.record on real pipelines with known sleeps: the overlap a timeline must show.

Timing assertions are ratios measured in the same test, with generous
tolerances: the machine running the tests may be busy. Sleeps release the
CPU, so they keep their length under load far better than busy loops.
"""
import time

import numpy as np
import pytest
import tensorflow as tf

from tutor import timeline as T

WORK, STEP, N = 0.03, 0.03, 10


def _pipe(prefetch=False, parallel=None, n=N):
    pipe = T.Pipeline(tf.data.Dataset.range(n), options=T.naive_options())
    pipe = pipe.map(T.sleep_work(WORK), name="work", num_parallel_calls=parallel)
    return pipe.prefetch(1) if prefetch else pipe


def _overlap(tl, stage="work"):
    """Seconds during which the stage and the consumer were busy at the same time."""
    work, steps = tl.stage_events(stage), tl.steps
    total = 0.0
    for s, e in zip(work["start"], work["end"]):
        total += np.clip(np.minimum(e, steps["end"]) - np.maximum(s, steps["start"]), 0, None).sum()
    return total


def test_without_prefetch_producer_and_consumer_take_turns():
    tl = T.record(_pipe(), steps=N, step_time=STEP)
    assert _overlap(tl) < 0.1 * N * WORK
    assert tl.total_time > 0.9 * N * (WORK + STEP)  # the sum
    assert 0.3 < tl.consumer_wait_fraction < 0.7
    # every element's work finished before the step that used it started
    work = tl.stage_events("work")
    starts = tl.steps["start"][work["step"]]
    assert np.all(work["end"] <= starts + 1e-3)


def test_with_prefetch_the_total_is_near_the_larger_side_not_the_sum():
    naive = T.record(_pipe(), steps=N, step_time=STEP)
    fetched = T.record(_pipe(prefetch=True), steps=N, step_time=STEP)
    assert _overlap(fetched) > 0.4 * N * WORK
    ratio = fetched.total_time / naive.total_time
    assert ratio < 0.8, f"prefetch should save close to half the time, ratio={ratio:.2f}"
    ideal = WORK + STEP + (N - 1) * max(WORK, STEP)  # the simulator's answer
    assert fetched.total_time / ideal < 1.5
    assert fetched.consumer_wait_fraction < naive.consumer_wait_fraction


def test_recorded_run_is_close_to_the_model():
    tl = T.record(_pipe(prefetch=True), steps=N, step_time=STEP)
    model = T.simulate([("work", WORK)], step_time=STEP, steps=N, prefetch=1)
    assert 0.9 < tl.total_time / model.total_time < 1.6


def test_parallel_map_runs_elements_at_the_same_time():
    tl = T.record(_pipe(parallel=4), steps=N)
    assert tl.stage_concurrency["work"] > 1.5  # sleeps overlap
    assert tl.stage_busy_fraction["work"] <= 1.0


def test_events_table_has_the_documented_columns_and_order():
    pipe = (T.Pipeline(tf.data.Dataset.range(8), options=T.naive_options())
            .map(T.sleep_work(0.005), name="decode").batch(4).map(lambda x: x * 2, name="vectorized"))
    tl = T.record(pipe, steps=2, step_time=0.01)
    assert tl.events.dtype.names == ("stage", "element", "step", "epoch", "start", "end")
    assert tl.stages == ["decode", "batch", "vectorized"]
    decode = tl.stage_events("decode")
    assert decode["element"].tolist() == list(range(8))
    assert decode["step"].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert np.all(decode["end"] >= decode["start"])
    batch = tl.stage_events("batch")
    assert batch["element"].tolist() == [0, 4]
    assert batch["end"][0] == pytest.approx(decode["end"][:4].max())
    vec = tl.stage_events("vectorized")
    assert np.all(vec["start"] >= batch["end"] - 1e-6)
    consumer = tl.stage_events("consumer")
    assert np.all(consumer["start"] >= vec["end"] - 1e-3)


def test_the_consumer_never_sees_the_timestamps():
    seen = []
    pipe = T.Pipeline(tf.data.Dataset.range(3)).map(lambda x: x + 1, name="add")
    T.record(pipe, steps=3, train_step=lambda x: seen.append(x.numpy()))
    assert seen == [1, 2, 3]


def test_train_step_time_is_recorded():
    pipe = T.Pipeline(tf.data.Dataset.range(4)).map(lambda x: x, name="id").prefetch(2)
    tl = T.record(pipe, steps=4, train_step=lambda x: time.sleep(0.02))
    assert np.all(tl.steps["end"] - tl.steps["start"] >= 0.019)


def test_epochs_and_cache_replays():
    pipe = T.Pipeline(tf.data.Dataset.range(4)).map(T.sleep_work(0.005), name="decode").cache().repeat().batch(2)
    tl = T.record(pipe, steps=6)
    decode = tl.stage_events("decode")
    assert len(decode) == 4  # epochs 2 and 3 come from the cache: no work shown
    assert tl.meta["cache_replays"]["decode"] == 8
    assert tl.stage_events("consumer")["epoch"].tolist() == [0, 0, 1, 1, 2, 2]


def test_interleave_and_generator_stages_are_recorded():
    def gen():
        for i in range(4):
            time.sleep(0.005)
            yield i

    tl = T.record(T.Pipeline.from_generator(gen, tf.TensorSpec((), tf.int64)).map(lambda x: x, name="id"), steps=10)
    assert tl.n_steps == 4  # the generator ran out first
    g = tl.stage_events("generator")
    assert len(g) == 4 and np.all(g["end"] - g["start"] >= 0.004)
    assert np.all(g["start"][1:] >= g["end"][:-1] - 1e-6)  # one thread: never overlapping

    inner = lambda shard: tf.data.Dataset.range(3).map(T.sleep_work(0.02))
    pipe = T.Pipeline(tf.data.Dataset.range(3)).interleave(inner, cycle_length=3, num_parallel_calls=3, name="read")
    tl = T.record(pipe, steps=9)
    assert len(tl.stage_events("read")) == 9
    assert tl.stage_concurrency["read"] > 1.5
