"""Who holds the time, for every kind of Timeline (pure NumPy), and the Chrome trace export."""
import json

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor.timeline import CONSUMER, Timeline, simulate
from tutor.timeline.events import make_events, make_steps, merge_intervals, overlap_length


def _nested():
    """A hand-made run: "map" calls "read" twice inside one call; the consumer waits for all of it."""
    events = make_events([("map", 0, 0, 0, 0.0, 10.0), ("read", 0, 0, 0, 2.0, 5.0), ("read", 0, 0, 0, 4.0, 6.0),
                          ("map", 1, 1, 0, 11.0, 13.0), (CONSUMER, 0, 0, 0, 10.0, 11.0),
                          (CONSUMER, 1, 1, 0, 13.0, 14.0)])
    steps = make_steps([(0, 0.0, 10.0, 11.0), (1, 11.0, 13.0, 14.0)])
    return Timeline(events, steps, ["read", "map"], parent=np.array([-1, 0, 0, -1, -1, -1]))


def test_intervals():
    starts, ends = merge_intervals(np.array([5.0, 0.0, 1.0, 7.0]), np.array([6.0, 2.0, 3.0, 7.0]))
    assert starts.tolist() == [0.0, 5.0] and ends.tolist() == [3.0, 6.0]  # empty [7, 7] dropped
    assert overlap_length([0.0, 4.0], [2.0, 6.0], [1.0, 5.5], [5.0, 9.0]) == pytest.approx(1.0 + 1.0 + 0.5)
    assert overlap_length([], [], [0.0], [1.0]) == 0.0


def test_self_time_subtracts_the_inputs_it_waited_for_once():
    tl = _nested()
    own = tl.stage_self_time
    assert own["read"] == pytest.approx(3.0 + 2.0)        # both reads, summed like parallel workers
    assert own["map"] == pytest.approx((10.0 - 4.0) + 2.0)  # [2, 6] overlapping reads count once
    assert tl.stage_busy_time["map"] == pytest.approx(12.0)


def test_bottleneck_is_the_stage_whose_own_work_covers_the_consumers_waits():
    tl = _nested()  # after step 0, the consumer waits [11, 13], all of it map's own work
    assert tl.stage_wait_share == {"read": 0.0, "map": 1.0}
    assert tl.bottleneck == "map"


def test_a_timeline_built_the_old_way_has_no_links_and_self_time_equals_busy_time():
    tl = simulate([("read", 0.01), ("decode", 0.02)], step_time=0.005, steps=6)
    assert tl.parent.tolist() == [-1] * len(tl.events)
    assert tl.stage_self_time == pytest.approx(tl.stage_busy_time)
    with pytest.raises(ValueError, match="one entry per event"):
        Timeline(tl.events, tl.steps, tl.stages, parent=np.zeros(2))


@pytest.mark.parametrize("stages, step_time, expected", [
    ([("read", 0.001), ("decode", 0.02)], 0.001, "decode"),
    ([("read", 0.02), ("decode", 0.001)], 0.001, "read"),
    ([("read", 0.001), ("decode", 0.002)], 0.05, CONSUMER),
])
def test_bottleneck_of_simulated_pipelines(stages, step_time, expected):
    for prefetch in (0, 2):
        tl = simulate(stages, step_time=step_time, steps=20, prefetch=prefetch)
        assert tl.bottleneck == expected


def test_start_up_does_not_decide_the_bottleneck():
    # one slow first element (start-up), then a consumer that never waits again
    events = make_events([("read", 0, 0, 0, 0.0, 5.0), ("read", 1, 1, 0, 5.0, 5.1), ("read", 2, 2, 0, 6.0, 6.1)])
    steps = make_steps([(0, 0.0, 5.0, 6.0), (1, 6.0, 6.0, 7.0), (2, 7.0, 7.0, 8.0)])
    tl = Timeline(events, steps, ["read"])
    assert tl.consumer_wait_fraction > 0.5 and tl.steady_wait_fraction == 0.0
    assert tl.bottleneck == CONSUMER


def test_waiting_that_no_stage_works_through_is_the_consumers():
    # after step 0 the consumer waits half the time, but "read" works through only a tenth of each wait
    events = make_events([("read", i, i, 0, 2.0 * i - 1.0, 2.0 * i - 0.9) for i in range(1, 5)])
    steps = make_steps([(0, 0.0, 1.0, 1.0)] + [(i, 2.0 * i - 1.0, 2.0 * i, 2.0 * i + 1.0) for i in range(1, 5)])
    tl = Timeline(events, steps, ["read"])
    assert tl.steady_wait_fraction > 0.4 and tl.stage_wait_share["read"] < 0.2
    assert tl.bottleneck == CONSUMER


def test_recorded_pipelines_name_their_bottleneck():
    from tutor import timeline as T

    pipe = T.Pipeline(tf.data.Dataset.range(20), options=T.naive_options()).map(T.sleep_work(0.02), name="work")
    assert T.record(pipe.prefetch(1), steps=6, step_time=0.0).bottleneck == "work"
    assert T.record(pipe.prefetch(2), steps=6, step_time=0.1).bottleneck == CONSUMER


def _trace(tl, path):
    tl.save_trace(path)
    with open(path) as f:
        return json.load(f)


def test_save_trace_writes_chrome_trace_events_for_any_timeline(tmp_path):
    tl = simulate([("read", 0.01), ("decode", 0.02, 2)], step_time=0.01, steps=6, prefetch=1)
    data = _trace(tl, tmp_path / "model.json")
    events = data["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"read", "decode", "consumer (train step)"} <= set(threads.values())
    work = [e for e in events if e["ph"] == "X" and e["name"] in ("read", "decode")]
    assert len(work) == len(tl.events) - tl.n_steps
    for e in work:  # complete events on one thread never overlap: parallel workers get their own thread
        others = [o for o in work if o["tid"] == e["tid"] and o is not e]
        assert all(o["ts"] >= e["ts"] + e["dur"] - 1e-3 or o["ts"] + o["dur"] <= e["ts"] + 1e-3 for o in others)
    assert {e["name"] for e in events if e["ph"] == "X" and threads[e["tid"]].startswith("consumer")} == {
        "train step", "wait for input"}
    assert data["otherData"]["bottleneck"] == tl.bottleneck


def test_a_profiled_trace_names_tensorflows_stages_and_links(tmp_path):
    tl = tutor.profile(tf.data.Dataset.range(30).map(lambda x: x * 2).batch(3).prefetch(1), steps=4)
    data = _trace(tl, str(tmp_path / "profile.json"))
    spans = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in spans} >= set(tl.stages)
    assert sum(e["name"] == "Range" for e in spans) == len(tl.stage_events("Range"))
    assert all(e["args"]["waited_for_by"] in tl.stages for e in spans if "waited_for_by" in e["args"])
    assert data["otherData"]["notes"] == tl.notes
    with pytest.raises(TypeError, match="file path"):
        tl.save_trace(3)
