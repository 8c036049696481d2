"""tutor.timeline.record on real pipelines with known sleeps: the overlap a timeline must show.

The tests assert what the recorded intervals say (which bars overlap, which lie inside which wait, how
many run at once), never how long the run took: the machine running the tests may be busy, and that only
stretches the bars. tests/busy.py makes "several at once" independent of timing.
"""
import time

import numpy as np
import pytest
import tensorflow as tf

from busy import CLOCK_TOLERANCE, CallLog, Meeting, intersects, most_at_once
from tutor import timeline as T

WORK, STEP, N = 0.03, 0.03, 10


def _pipe(prefetch=False, parallel=None, n=N, work=None):
    pipe = T.Pipeline(tf.data.Dataset.range(n), options=T.naive_options())
    pipe = pipe.map(work or T.sleep_work(WORK), name="work", num_parallel_calls=parallel)
    return pipe.prefetch(1) if prefetch else pipe


def _during_steps(tl, stage="work"):
    """For each bar of the stage: does it overlap a consumer step?"""
    work = tl.stage_events(stage)
    return intersects(work["start"], work["end"], tl.steps["start"], tl.steps["end"])


def _meeting_sleep(meeting, seconds, calls=None):
    """A map function that sleeps ``seconds`` after its first calls have met (see tests/busy.py)."""
    calls = CallLog() if calls is None else calls

    def fn(x):
        def run(v):
            with calls.call():
                meeting.attend()
                time.sleep(seconds)
            return v

        y = tf.py_function(run, [x], Tout=x.dtype)
        y.set_shape(x.shape)
        return y

    return fn


def test_without_prefetch_producer_and_consumer_take_turns():
    tl = T.record(_pipe(), steps=N, step_time=STEP)
    work, steps = tl.stage_events("work"), tl.steps
    assert not _during_steps(tl).any()  # never busy at the same time
    # every element's work happened while the step that used it was waiting for it
    assert np.all(work["start"] >= steps["request"][work["step"]] - CLOCK_TOLERANCE)
    assert np.all(work["end"] <= steps["start"][work["step"]] + CLOCK_TOLERANCE)
    # so the run lasts at least the sum of both sides
    assert tl.total_time >= tl.stage_busy_time["work"] + tl.consumer_time - 2 * N * CLOCK_TOLERANCE


def test_with_prefetch_the_producer_works_while_the_consumer_trains():
    naive = T.record(_pipe(), steps=N, step_time=STEP)
    fetched = T.record(_pipe(prefetch=True), steps=N, step_time=STEP)
    assert not _during_steps(naive).any()
    assert _during_steps(fetched).any(), "with prefetch the next element should be made during a step"
    # fetched ahead: some element's work began before the consumer asked for it (never without prefetch)
    for tl, ahead in ((naive, False), (fetched, True)):
        work = tl.stage_events("work")
        assert (work["start"] < tl.steps["request"][work["step"]] - CLOCK_TOLERANCE).any() == ahead


def test_recorded_run_has_the_models_rows_and_is_never_faster_than_the_model():
    tl = T.record(_pipe(prefetch=True), steps=N, step_time=STEP)
    model = T.simulate([("work", WORK)], step_time=STEP, steps=N, prefetch=1)
    rows = lambda t: sorted(t.events[["stage", "element", "step", "epoch"]].tolist())  # noqa: E731
    assert rows(tl) == rows(model)
    # the model has no overhead: every real bar is at least as long as the model's, and so is the whole run
    for stage in ("work", "consumer"):
        real, ideal = tl.stage_events(stage), model.stage_events(stage)
        assert np.all(real["end"] - real["start"] >= ideal["end"] - ideal["start"] - CLOCK_TOLERANCE)
    assert tl.total_time >= model.total_time - CLOCK_TOLERANCE


def test_parallel_map_runs_elements_at_the_same_time():
    calls = CallLog()
    tl = T.record(_pipe(parallel=4, work=_meeting_sleep(Meeting(2), WORK, calls)), steps=N)
    assert calls.most_at_once >= 2
    work = tl.stage_events("work")
    assert most_at_once(work["start"], work["end"]) >= 2  # the recorded bars overlap too
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
    calls = CallLog()

    def train_step(x):
        with calls.call():
            time.sleep(0.02)

    pipe = T.Pipeline(tf.data.Dataset.range(4)).map(lambda x: x, name="id").prefetch(2)
    tl = T.record(pipe, steps=4, train_step=train_step)
    assert len(calls) == 4
    # each recorded step spans the real call of train_step
    assert np.all(tl.steps["end"] - tl.steps["start"] >= calls.ends - calls.starts - CLOCK_TOLERANCE)


def test_epochs_and_cache_replays():
    pipe = T.Pipeline(tf.data.Dataset.range(4)).map(T.sleep_work(0.005), name="decode").cache().repeat().batch(2)
    tl = T.record(pipe, steps=6)
    decode = tl.stage_events("decode")
    assert len(decode) == 4  # epochs 2 and 3 come from the cache: no work shown
    assert tl.meta["cache_replays"]["decode"] == 8
    assert tl.stage_events("consumer")["epoch"].tolist() == [0, 0, 1, 1, 2, 2]


def test_interleave_and_generator_stages_are_recorded():
    calls = CallLog()

    def gen():
        for i in range(4):
            with calls.call():
                time.sleep(0.005)
            yield i

    tl = T.record(T.Pipeline.from_generator(gen, tf.TensorSpec((), tf.int64)).map(lambda x: x, name="id"), steps=10)
    assert tl.n_steps == 4  # the generator ran out first
    g = tl.stage_events("generator")
    assert len(g) == 4 and np.all(g["end"] - g["start"] >= calls.ends - calls.starts - CLOCK_TOLERANCE)
    assert np.all(g["start"][1:] >= g["end"][:-1] - 1e-6)  # one thread: never overlapping

    meeting = Meeting(2)
    inner = lambda shard: tf.data.Dataset.range(3).map(_meeting_sleep(meeting, 0.02))  # noqa: E731
    pipe = T.Pipeline(tf.data.Dataset.range(3)).interleave(inner, cycle_length=3, num_parallel_calls=3, name="read")
    tl = T.record(pipe, steps=9)
    read = tl.stage_events("read")
    assert len(read) == 9
    assert meeting.met and most_at_once(read["start"], read["end"]) >= 2  # files read at the same time
