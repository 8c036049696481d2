"""tutor.timeline: the simulator (exact), the Timeline numbers, the display and the errors."""
import math

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import timeline as T
from tutor.timeline.intervals import assign_lanes, cap_overlap, union_length
from tutor.timeline.schema import make_events, make_steps


# --- simulate: hand-computed cases, exactly --------------------------------------
@pytest.mark.parametrize("costs,t,n", [([0.02], 0.01, 5), ([0.01, 0.03], 0.02, 4), ([0.0, 0.05], 0.0, 3)])
def test_no_prefetch_is_the_sum(costs, t, n):
    tl = T.simulate([(f"s{i}", c) for i, c in enumerate(costs)], step_time=t, steps=n)
    assert tl.total_time == pytest.approx(n * (sum(costs) + t), abs=1e-12)
    assert tl.model and tl.label == "model"


@pytest.mark.parametrize("P,t", [(0.03, 0.01), (0.01, 0.03), (0.02, 0.02)])
@pytest.mark.parametrize("buffer", [1, 3])
def test_prefetch_overlaps_producer_and_consumer(P, t, buffer):
    n = 6
    tl = T.simulate([("map", P)], step_time=t, steps=n, prefetch=buffer)
    assert tl.total_time == pytest.approx(P + t + (n - 1) * max(P, t), abs=1e-12)


def test_parallel_map_with_instant_consumer():
    for p, n in [(2, 4), (2, 5), (3, 7)]:
        tl = T.simulate([("src", 0.0), ("map", 1.0)], steps=n, parallel=p)
        assert tl.total_time == pytest.approx(math.ceil(n / p) * 1.0)
        # never more than p elements in the map at once
        ev = tl.stage_events("map")
        assert tl.stage_concurrency["map"] <= p + 1e-9
        assert max(((ev["start"] <= x) & (ev["end"] > x)).sum() for x in ev["start"]) == p


def test_simulated_wait_fraction_and_busy_fraction():
    tl = T.simulate([("map", 0.03)], step_time=0.01, steps=4)  # no overlap: total 0.16
    assert tl.consumer_wait_fraction == pytest.approx(0.12 / 0.16)
    assert tl.stage_busy_fraction["map"] == pytest.approx(0.12 / 0.16)
    assert tl.consumer_time == pytest.approx(0.04)


@pytest.mark.parametrize("bad", [[], "map", [("a", -1.0)], [("a", 0.1, 0)], [object()]])
def test_simulate_rejects_bad_stages(bad):
    with pytest.raises((TypeError, ValueError)) as info:
        T.simulate(bad, steps=3)
    assert "stage" in str(info.value) or "parallel" in str(info.value)


def test_simulate_rejects_bad_numbers():
    with pytest.raises(ValueError, match="steps"):
        T.simulate([("a", 0.1)], steps=0)
    with pytest.raises(ValueError, match="prefetch"):
        T.simulate([("a", 0.1)], steps=2, prefetch=-1)
    with pytest.raises(ValueError, match="source"):
        T.simulate([("a", 0.1, 2)], steps=2)


# --- Timeline numbers -----------------------------------------------------------------
def test_union_length_counts_overlap_once():
    assert union_length(np.array([0.0, 1.0, 5.0]), np.array([2.0, 3.0, 6.0])) == 4.0
    assert union_length(np.array([]), np.array([])) == 0.0


def test_timeline_fractions_from_a_hand_made_table():
    events = make_events([("map", 0, 0, 0, 0.0, 1.0), ("map", 1, 1, 0, 0.5, 1.5), ("consumer", 0, 0, 0, 1.0, 2.0)])
    steps = make_steps([(0, 0.0, 1.0, 2.0), (1, 2.0, 2.0, 4.0)])
    tl = T.Timeline(events, steps, ["map"], label="hand")
    assert tl.total_time == 4.0
    assert tl.consumer_wait_fraction == 0.25
    assert tl.stage_busy_fraction == {"map": 1.5 / 4}
    assert tl.stage_busy_time == {"map": 2.0}
    assert tl.producer_time == 2.0 and tl.consumer_time == 3.0
    assert "hand" in repr(tl) and "0x" not in repr(tl)


def test_physical_limit():
    assert T.physical_limit(8.0, 3.0, 2) == 4.0
    assert T.physical_limit(2.0, 3.0, 2) == 3.0
    assert T.physical_limit(8.0, 3.0, 2, shared_cpu=True) == 5.5
    with pytest.raises(ValueError):
        T.physical_limit(1.0, 1.0, 0)


# --- Display --------------------------------------------------------------------------
def boxes(collection) -> np.ndarray:
    """A TimelineDisplay collection's bars as ``(n, 4, 2)`` corners: left-top, right-top, right-bottom, left-bottom."""
    return np.array([path.vertices[:4] for path in collection.get_paths()]).reshape(-1, 4, 2)


def test_display_draws_rows_bars_and_idle():
    tl = T.simulate([("read", 0.01), ("decode", 0.03)], step_time=0.01, steps=4)
    disp = T.TimelineDisplay.from_timeline(tl)
    assert not hasattr(disp, "ax_")  # from_* computes, plot draws
    assert disp.plot() is disp
    assert [r[1] for r in disp.rows_] == ["read", "decode", "consumer"]
    decode = boxes(disp.bars_[(0, "decode")])
    assert len(decode) == 4
    assert decode[:, 0, 0].tolist() == pytest.approx(tl.stage_events("decode")["start"].tolist())
    assert (decode[:, 1, 0] - decode[:, 0, 0]).tolist() == pytest.approx([0.03] * 4)
    (idle,) = disp.idle_  # one collection per timeline, one bar per step
    waits = boxes(idle)
    assert len(waits) == 4 and waits[1, 1, 0] - waits[1, 0, 0] == pytest.approx(0.04)
    assert "model" in disp.labels[0]
    assert disp.ax_.get_xlabel() and disp.ax_.get_ylabel() and disp.ax_.get_title()


def test_each_row_is_one_collection_however_many_events():
    n = 3000
    starts = np.arange(n) * 0.001
    rows = [(stage, k, k, 0, t, t + 0.0008) for k, t in enumerate(starts) for stage in ("read", "decode")]
    rows += [("consumer", k, k, 0, t + 0.0008, t + 0.001) for k, t in enumerate(starts)]
    steps = make_steps([(k, t, t + 0.0008, t + 0.001) for k, t in enumerate(starts)])
    tl = T.Timeline(make_events(rows), steps, ["read", "decode"])
    disp = T.TimelineDisplay.from_timeline(tl).plot()
    assert len(disp.ax_.collections) == 3 + 1 and not disp.ax_.patches  # a collection per row, and the waits
    assert [len(disp.bars_[(0, row)].get_paths()) for row in ("read", "decode", "consumer")] == [n, n, n]
    assert len(disp.idle_[0].get_paths()) == n


def test_display_colours_by_step_and_epoch():
    tl = T.simulate([("map", 0.01)], steps=3)
    by_step = T.TimelineDisplay.from_timeline(tl).plot(color_by="step")
    colours = {tuple(c) for c in by_step.bars_[(0, "map")].get_facecolor()}
    assert len(colours) == 3  # three steps, three colours
    by_epoch = T.TimelineDisplay.from_timeline(tl).plot(color_by="epoch")
    assert len({tuple(c) for c in by_epoch.bars_[(0, "map")].get_facecolor()}) == 1
    with pytest.raises(ValueError, match="color_by"):
        T.TimelineDisplay.from_timeline(tl).plot(color_by="stage")


def test_parallel_work_gets_lanes():
    tl = T.simulate([("src", 0.0), ("map", 1.0)], steps=4, parallel=2)
    disp = T.TimelineDisplay.from_timeline(tl).plot()
    tops = {round(float(y), 6) for y in boxes(disp.bars_[(0, "map")])[:, 0, 1]}
    assert len(tops) == 2


def test_assign_lanes_takes_the_lowest_free_lane():
    starts, ends = np.array([0.0, 0.1, 0.2, 1.0, 1.05, 3.0]), np.array([1.0, 2.0, 1.05, 2.0, 2.5, 4.0])
    assert assign_lanes(starts, ends).tolist() == [0, 1, 2, 0, 2, 0]
    assert assign_lanes(np.zeros(0), np.zeros(0)).tolist() == []


def most_open(starts, ends) -> int:
    """The most intervals open at one time (an end at t closes before a start at t)."""
    points = sorted([(float(e), -1) for e in ends] + [(float(s), 1) for s in starts])
    running = most = 0
    for _, change in points:
        running += change
        most = max(most, running)
    return most


@pytest.mark.parametrize("most", [1, 2, 3])
def test_cap_overlap_leaves_at_most_that_many_open_and_only_shortens(most):
    rng = np.random.default_rng(most)
    starts = np.sort(rng.uniform(0, 10, 200))
    ends = starts + rng.uniform(0.01, 0.5, 200)
    assert most_open(starts, ends) > most  # the random bars do overlap more than allowed
    capped = cap_overlap(starts, ends, most)
    assert most_open(starts, capped) <= most
    assert np.all(capped <= ends) and np.all(capped >= starts)
    assert assign_lanes(starts, capped).max() + 1 <= most


def test_cap_overlap_leaves_bars_within_the_limit_alone():
    starts, ends = np.array([0.0, 0.5, 0.9, 3.0]), np.array([1.0, 2.0, 2.5, 4.0])
    assert cap_overlap(starts, ends, 2).tolist() == [0.9, 2.0, 2.5, 4.0]  # the first to end ends as the 3rd starts
    assert cap_overlap(starts, ends, 3).tolist() == ends.tolist()
    with pytest.raises(ValueError, match="1 or more"):
        cap_overlap(starts, ends, 0)


def test_function_runs_and_calls_of_one_stage_get_their_own_sub_rows():
    # an asynchronous stage: two workers run its function, and the consumer's calls wait for their results
    rows = [("map", k, k, 0, 0.1 * k, 0.1 * k + 0.15) for k in range(4)]            # function runs, overlapping
    rows += [("map", k, k, 0, 0.1 * k + 0.1, 0.1 * k + 0.16) for k in range(4)]     # calls, one at a time
    rows += [("consumer", k, k, 0, 0.1 * k + 0.16, 0.1 * k + 0.2) for k in range(4)]
    steps = make_steps([(k, 0.1 * k + 0.1, 0.1 * k + 0.16, 0.1 * k + 0.2) for k in range(4)])
    runs = np.array([True] * 4 + [False] * 8)
    tl = T.Timeline(make_events(rows), steps, ["map"], function_run=runs)
    disp = T.TimelineDisplay.from_timeline(tl).plot()
    labels = [t.get_text() for t in disp.ax_.get_yticklabels()]
    assert labels == ["map: function runs", "map: calls", "consumer (train step)"]
    bars = boxes(disp.bars_[(0, "map")])
    run_tops, call_tops = bars[:4, 0, 1], bars[4:, 0, 1]
    assert len(set(run_tops.round(6))) == 2 and len(set(call_tops.round(6))) == 1  # two lanes of runs, one of calls
    assert run_tops.max() < call_tops.min()  # runs above calls, not mixed in one lane
    alpha = disp.bars_[(0, "map")].get_facecolor()[:, 3]
    assert np.all(alpha[4:] < alpha[:4])  # calls drawn pale
    with pytest.raises(ValueError, match="function_run"):
        T.Timeline(tl.events, tl.steps, tl.stages, function_run=runs[:3])


def test_epoch_colours_are_refused_when_the_epochs_are_unknown():
    tl = T.simulate([("map", 0.01)], steps=3)
    tl.meta["epochs_unknown"] = "fused into ShuffleAndRepeat"
    assert not tl.epochs_known
    with pytest.raises(ValueError, match="ShuffleAndRepeat"):
        T.TimelineDisplay.from_timeline(tl).plot(color_by="epoch")
    assert T.TimelineDisplay.from_timeline(tl).plot(color_by="step").bars_


def test_compare_stacks_timelines_on_one_axis():
    a = T.simulate([("map", 0.02)], step_time=0.01, steps=4, label="naive")
    b = T.simulate([("map", 0.02)], step_time=0.01, steps=4, prefetch=1, label="prefetch")
    disp = T.TimelineDisplay.compare([a, b]).plot()
    assert [t for t, _, _ in disp.rows_] == [0, 0, 1, 1]
    assert disp.labels == ["naive (model)", "prefetch (model)"]
    assert disp.ax_.get_xlim()[1] >= a.total_time > b.total_time
    with pytest.raises(TypeError):
        T.TimelineDisplay.compare(a)
    with pytest.raises(TypeError, match="Timeline"):
        T.TimelineDisplay.from_timeline([a])


def test_display_uses_given_axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    disp = T.TimelineDisplay.from_timeline(T.simulate([("m", 0.01)], steps=2)).plot(ax=ax)
    assert disp.ax_ is ax and disp.figure_ is fig
    plt.close(fig)


def test_exported_from_tutor():
    assert tutor.TimelineDisplay is T.TimelineDisplay
    assert callable(tutor.timeline.record) and callable(tutor.timeline.simulate)


# --- Pipeline and errors -----------------------------------------------------------------
def test_pipeline_builds_the_same_dataset():
    pipe = (T.Pipeline(tf.data.Dataset.range(10)).map(lambda x: x * 3, name="triple")
            .shuffle(10, seed=1).batch(4).prefetch(1))
    plain = tf.data.Dataset.range(10).map(lambda x: x * 3).shuffle(10, seed=1).batch(4).prefetch(1)
    got = [b.tolist() for b in pipe.build().as_numpy_iterator()]
    assert got == [b.tolist() for b in plain.as_numpy_iterator()]
    values = [v.tolist() for v, _ in pipe.build(instrument=True).as_numpy_iterator()]
    assert values == got
    assert pipe.stages == ["triple", "batch"]


def test_tuples_are_spread_over_arguments():
    pipe = T.Pipeline(tf.data.Dataset.from_tensor_slices(([1, 2], [10, 20]))).map(lambda a, b: a + b, name="add")
    assert list(pipe.build().as_numpy_iterator()) == [11, 22]
    tl = T.record(pipe, steps=2)
    assert len(tl.stage_events("add")) == 2


def test_record_refuses_a_plain_dataset_and_says_what_to_pass():
    with pytest.raises(TypeError) as info:
        T.record(tf.data.Dataset.range(3), steps=2)
    message = str(info.value)
    assert "Pipeline(" in message and "named stages" in message
    with pytest.raises(TypeError, match="Pipeline"):
        T.record([1, 2, 3], steps=2)


def test_record_requires_a_bounded_number_of_steps():
    pipe = T.Pipeline(tf.data.Dataset.range(3)).repeat()
    with pytest.raises(TypeError):
        T.record(pipe)  # steps is required
    with pytest.raises(ValueError):
        T.record(pipe, steps=0)
    with pytest.raises(ValueError, match="at most"):
        T.record(pipe, steps=10**6)
    tl = T.record(pipe, steps=7)  # an endless dataset stops after 7 steps
    assert tl.n_steps == 7


def test_pipeline_errors():
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        T.Pipeline([1, 2, 3])
    with pytest.raises(ValueError, match="already used"):
        T.Pipeline(tf.data.Dataset.range(3)).map(lambda x: x, name="a").map(lambda x: x, name="a")
    with pytest.raises(TypeError):
        T.Pipeline(tf.data.Dataset.range(3)).map(3)


def test_naive_options_turn_off_the_automatic_speedups():
    opts = T.naive_options()
    assert opts.autotune.enabled is False
    assert opts.experimental_optimization.inject_prefetch is False
    assert opts.experimental_optimization.map_parallelization is False
    ds = T.Pipeline(tf.data.Dataset.range(3), options=opts).build()
    assert ds.options().autotune.enabled is False


def test_timestamps_and_time_time_share_one_clock():
    import time

    before = time.time()
    stamp = float(tf.timestamp().numpy())
    after = time.time()
    assert before - 1e-3 <= stamp <= after + 1e-3


def test_work_helpers_pass_values_through():
    ds = tf.data.Dataset.range(3)
    for fn in (T.sleep_work(0.001), T.python_busy_work(0.001), T.tf_busy_work(2, 8)):
        assert list(ds.map(fn).as_numpy_iterator()) == [0, 1, 2]
        assert ds.map(fn).element_spec.shape == ()
    with pytest.raises(ValueError):
        T.sleep_work(-1)


def test_default_stage_names_are_made_unique():
    pipe = T.Pipeline(tf.data.Dataset.range(3)).map(lambda x: x + 1).map(lambda x: x * 2)
    assert pipe.stages == ["lambda", "lambda_2"]

    def decode(x):
        return x

    assert T.Pipeline(tf.data.Dataset.range(3)).map(decode).stages == ["decode"]


def test_colouring_by_epoch_draws_a_key_that_names_the_first_pass():
    import matplotlib.pyplot as plt

    from tutor.timeline import explorer_pipeline

    cached = explorer_pipeline(prefetch=True, num_parallel_calls=1, cache=True, interleave=False, element_ms=0)
    disp = tutor.TimelineDisplay.from_timeline(T.record(cached, steps=8, step_time=0.0)).plot(color_by="epoch")
    legend = disp.ax_.get_legend()
    assert legend.get_title().get_text() == "epoch"
    assert [t.get_text() for t in legend.get_texts()] == ["1 (first pass)", "2"]
    disp.figure_.canvas.draw()
    renderer = disp.figure_.canvas.get_renderer()
    assert legend.get_window_extent(renderer).x0 >= disp.ax_.get_window_extent(renderer).x1  # covers no bar
    by_step = tutor.TimelineDisplay.from_timeline(T.record(cached, steps=8, step_time=0.0)).plot()
    assert by_step.ax_.get_legend() is None
    plt.close("all")
