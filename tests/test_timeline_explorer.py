"""timeline_explorer: driven from code, each toggle changes the recorded run; the readout judges it by tutor.verdict."""
import numpy as np

import tutor
from tutor.timeline import EPOCHS, FILES, RECORDS, STEPS, RunBook, explorer_pipeline, simulate, step_period
from tutor.timeline.intervals import overlap_length
from tutor.widgets.timeline import RUNS_PER_SETTING, describe_runs


def test_explorer_redraws_a_recorded_run_for_each_setting():
    ex = tutor.timeline_explorer(element_ms=4, step_ms=4)
    first = ex.display.timelines[0]
    assert not first.model and first.n_steps == STEPS
    assert "prefetch" not in first.label
    ex.set(prefetch=True)
    tl = ex.display.timelines[0]
    assert "prefetch(1)" in tl.label and tl is not first
    ex.set(num_parallel_calls=2)
    assert "num_parallel_calls=2" in ex.display.timelines[0].label
    ex.set(cache=True)
    cached = ex.display.timelines[0]
    assert len(cached.stage_events("decode")) == FILES * RECORDS  # only the first epoch decodes
    assert cached.meta["cache_replays"]["decode"] >= 1
    ex.set(interleave=True)
    assert "cycle_length=2" in ex.display.timelines[0].label
    ex.controls["element_ms"].value = 0
    assert "decode_0ms" in ex.display.timelines[0].label
    assert "ms per step" in ex.readout.value and "total" in ex.readout.value
    ex.reset()
    assert ex.values["prefetch"] is False and ex.values["num_parallel_calls"] == 1


def test_the_starting_setting_is_run_several_times_and_the_median_run_is_shown():
    ex = tutor.timeline_explorer()
    (key, runs), = ex.book.runs.items()
    assert len(runs) == RUNS_PER_SETTING and "median of 3 runs" in ex.readout.value
    paces = sorted(step_period(t) for t in runs)
    assert step_period(ex.display.timelines[0]) == paces[1]
    ex.buttons.children[-1].click()  # run again: one more run of the same setting
    assert len(ex.book.runs[key]) == RUNS_PER_SETTING + 1 and "median of 4 runs" in ex.readout.value
    ex.set(prefetch=True)  # a new setting is run three times too, so the verdict helper can judge it
    assert len(ex.book.runs[tuple(sorted(ex.values.items()))]) == RUNS_PER_SETTING
    assert "tutor.verdict.compare judges" in ex.readout.value


def _decode_during_train_steps(tl) -> float:
    """Seconds of decoding that ran while the consumer was in a train step (prefetch overlaps the two)."""
    decode = tl.stage_events("decode")
    return overlap_length(decode["start"], decode["end"], tl.steps["start"], tl.steps["end"])


def test_prefetch_toggle_overlaps_decoding_with_the_train_step():
    ex = tutor.timeline_explorer(element_ms=20, step_ms=20)
    naive = ex.display.timelines[0]
    assert _decode_during_train_steps(naive) == 0.0  # without prefetch, decode runs only while the consumer asks
    ex.set(prefetch=True)
    fetched = ex.display.timelines[0]
    assert _decode_during_train_steps(fetched) > 0.0  # with prefetch(1), the next element is decoded meanwhile


def test_a_zero_ms_train_step_reads_as_input_bound_not_as_an_error():
    ex = tutor.timeline_explorer().set(step_ms=0)
    assert "always waiting: input-bound" in ex.readout.value
    assert "waiting 100%" not in ex.readout.value
    assert "input-bound" in ex.display.ax_.get_title()


def _model(step_time, steps=STEPS):
    return simulate([("read", 0.003), ("decode", 0.006)], step_time=step_time, steps=steps)


def test_runbook_median_and_paces():
    book = RunBook()
    assert book.paces_ms(("a",)) == []
    for step_time in (0.004, 0.006, 0.005):  # three runs of one setting
        book.add(("a",), _model(step_time))
    assert step_period(book.median_run(("a",))) == sorted(step_period(_model(t)) for t in (0.004, 0.005, 0.006))[1]
    assert book.paces_ms(("a",)) == [1000 * step_period(_model(t)) for t in (0.004, 0.006, 0.005)]
    assert book.pace_ms(("a",)) == 1000 * step_period(_model(0.005))


def _readout(book, history, values, step_time):
    return describe_runs(tutor.TimelineDisplay.from_timeline(_model(step_time)), values, book, history)


def test_readout_judges_a_change_by_the_verdict_helpers_rule():
    from tutor.verdict import decide

    book, history = RunBook(), []

    def runs(values, step_times):
        key = tuple(sorted(values.items()))
        for t in step_times:
            book.add(key, _model(t))
        history.append((key, values))
        return book.paces_ms(key)

    base = {"prefetch": False, "step_ms": 4}
    before = runs(base, (0.004, 0.0045, 0.005))
    overlapping = {**base, "prefetch": True}  # runs that overlap the first setting's: no verdict either way
    after = runs(overlapping, (0.0042, 0.0047, 0.0052))
    assert decide(before, after) == "no clear difference"
    assert "no clear difference on this machine" in _readout(book, history, overlapping, 0.0047)
    slower = {**overlapping, "step_ms": 12}
    after_slower = runs(slower, (0.012, 0.0125, 0.013))
    assert decide(after, after_slower) == "slower"
    text = _readout(book, history, slower, 0.0125)
    assert "step_ms=12" in text and ", slower (the medians and the spread of 3 and 3 runs" in text
    one = {**slower, "prefetch": False}
    runs(one, (0.004,))  # one run only: too few for a verdict
    assert "press <i>run again</i> for a verdict" in _readout(book, history, one, 0.004)


def test_explorer_pipeline_stages():
    pipe = explorer_pipeline(prefetch=False, num_parallel_calls=1, cache=True, interleave=True, element_ms=0)
    values = sorted(int(v) for v in pipe.build().as_numpy_iterator())
    assert values == sorted(list(range(RECORDS)) * FILES * EPOCHS)
    assert pipe.stages == ["read", "decode"]


def test_a_new_run_redraws_only_its_bars_on_one_time_axis():
    ex = tutor.timeline_explorer()
    figure, draw = ex.canvas.figure, ex.draw
    runs = [tutor.TimelineDisplay.from_timeline(_model(t, steps=8)) for t in (0.006, 0.004, 0.5)]  # the last: 4 s, longer than any real run
    assert draw(runs[0], figure, None) is None  # first draw: everything
    changed = draw(runs[1], figure, runs[0])  # a faster run: same rows, same time axis
    assert isinstance(changed, list) and changed
    assert all(a.axes is figure.axes[0] for a in changed)
    drawn = figure.axes[0].collections  # one per row and one for the waits: the old run's are gone
    assert len(drawn) == len(runs[1].bars_) + len(runs[1].idle_) and not figure.axes[0].patches
    assert all(c in drawn for c in [*runs[1].bars_.values(), *runs[1].idle_])
    axis = figure.axes[0].get_xlim()
    assert draw(runs[2], figure, runs[1]) == [figure.axes[0]]  # a slower run widens the time axis: drawn in full
    assert figure.axes[0].get_xlim()[1] > axis[1] >= runs[1].timelines[0].total_time
