"""timeline_explorer: switch prefetch, parallel map, cache and interleave on a small real pipeline."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from ..timeline import (STEPS, DecodeCost, Prebuilt, RunBook, TimelineDisplay, explorer_pipeline, pipeline_code,
                        record)
from ..verdict import decide
from ._base import Explorer, int_slider
from ._frontend import code_html

#: Runs made of a setting the first time it is drawn: the verdict helper judges at least 3 runs of each side.
RUNS_PER_SETTING = 3


def timeline_explorer(*, element_ms: int = 4, step_ms: int = 4, steps: int = STEPS) -> Explorer:
    """Toggles for prefetch, parallel map, cache and interleave, sliders for the costs; redraws a recorded run.

    Every change runs the small pipeline for real (well under a second) and
    draws its timeline. The readout gives the time per step after the first
    (the first also waits for the iterator to start, which varies from run to
    run), the median over every run of that setting so far, and whether the
    last change made it faster, slower or neither, by the verdict helper's
    rule (:func:`tutor.verdict.decide`: the medians and the spread of the
    runs). Each setting is run three times when it is first drawn;
    *run again* adds a run of the current setting. ``.display`` is the
    :class:`TimelineDisplay` of the median run.

    >>> ex = timeline_explorer()                                 # doctest: +SKIP
    >>> ex.set(prefetch=True).display.timelines[0].meta["code"]  # doctest: +SKIP
    """
    controls = {
        "prefetch": widgets.Checkbox(value=False, description="prefetch(1)", style={"description_width": "initial"}),
        "num_parallel_calls": widgets.ToggleButtons(options=[1, 2, 4], value=1, description="num_parallel_calls",
                                                    style={"description_width": "initial", "button_width": "36px"}),
        "cache": widgets.Checkbox(value=False, description="cache()", style={"description_width": "initial"}),
        "interleave": widgets.Checkbox(value=False, description="parallel interleave",
                                       style={"description_width": "initial"}),
        # Short names: in the 270-pixel panel a long one ("decode ms per element") left the track 19 pixels wide.
        "element_ms": int_slider(element_ms, 0, max(12, element_ms), "decode ms", step=2),
        "step_ms": int_slider(step_ms, 0, max(12, step_ms), "train step ms", step=2),
    }
    book, history, built = RunBook(), [], {}  # history: the settings drawn, in order; built: reusable pipelines

    def key_of(values):
        return tuple(sorted(values.items()))

    cost = DecodeCost()

    def run(values):
        shape = (values["prefetch"], values["num_parallel_calls"], values["cache"], values["interleave"])
        cost.seconds = values["element_ms"] / 1000  # read by the decode function of whichever pipeline runs
        pipe = built.get(shape)
        if pipe is None:
            pipe = explorer_pipeline(prefetch=shape[0], num_parallel_calls=shape[1], cache=shape[2],
                                     interleave=shape[3], element_ms=values["element_ms"], decode=cost.work())
            if not values["cache"]:
                pipe = built[shape] = Prebuilt(pipe)
        label = pipeline_code(**{k: values[k] for k in ("prefetch", "num_parallel_calls", "cache", "interleave",
                                                         "element_ms")})
        book.add(key_of(values), record(pipe, steps=steps, step_time=values["step_ms"] / 1000, label=label))

    def compute(**values):
        key = key_of(values)
        times = max(1, RUNS_PER_SETTING - len(book.runs.get(key, [])))
        for _ in range(times):
            run(values)
        if not history or history[-1][0] != key:
            history.append((key, values))
        return TimelineDisplay.from_timeline(book.median_run(key), label="median run")

    def options(disp, previous):
        tl = disp.timelines[0]
        title = ("Train step of 0 ms: the consumer is always waiting (input-bound)" if tl.meta.get("step_time") == 0
                 else "Who is busy when? Grey: the train step waits for input")
        # One time axis for every setting drawn in this figure: it only ever grows, so most runs change only bars.
        limit = previous.ax_.get_xlim()[1] if previous is not None else 0.0
        if tl.total_time * 1.02 > limit:
            limit = float(np.ceil(tl.total_time * 1.15 / 0.05) * 0.05)
        return {"title": title, "color_by": "epoch" if tl.meta.get("cache_replays") else "step", "time_limit": limit}

    def describe(disp, values):
        return describe_runs(disp, values, book, history)

    explorer = Explorer(controls, compute, options=options, describe=describe, figsize=(8.0, 4.4),
                        name="timeline_explorer")
    again = widgets.Button(description="run again", tooltip="Record the current setting once more",
                           layout=widgets.Layout(width="auto"))
    again.on_click(lambda _: explorer.render())  # compute() records one more run of this setting
    explorer.buttons.children = (*explorer.buttons.children, again)
    explorer.book = book
    return explorer


def describe_runs(disp, values, book: RunBook, history: list) -> str:
    """The readout: pace, waiting, and the last change judged by the verdict helper's rule."""
    key = tuple(sorted(values.items()))
    tl = disp.timelines[0]
    n = len(book.runs[key])
    pace = book.pace_ms(key)
    runs = "1 run" if n == 1 else f"median of {n} runs"
    first = float(tl.steps["start"][0]) if len(tl.steps) else 0.0
    lines = [code_html(tl.label),
             f"<b>{pace:.1f} ms per step</b> after the first ({runs}); total {tl.total_time:.2f} s, "
             f"of which {first:.2f} s before the first element (the iterator starting)"]
    if values["step_ms"] == 0:
        lines.append("The train step takes no time, so the consumer is always waiting: input-bound. "
                     "Every millisecond per step is input time.")
    else:
        lines.append(f"train step waiting {tl.consumer_wait_fraction:.0%} of the time")
    if len(history) > 1:
        (old_key, old_values), _ = history[-2], history[-1]
        changed = [k for k in values if old_values.get(k) != values[k]]
        before = book.pace_ms(old_key)
        what = ", ".join(f"{k}={values[k]}" for k in changed) or "same setting"
        delta = pace - before
        old, new = book.paces_ms(old_key), book.paces_ms(key)
        if min(len(old), len(new)) < RUNS_PER_SETTING:
            verdict = f"press <i>run again</i> for a verdict (it needs {RUNS_PER_SETTING} runs of each setting)"
        else:
            said = decide(old, new)
            verdict = ("no clear difference on this machine" if said == "no clear difference" else said) + (
                f" (the medians and the spread of {len(old)} and {len(new)} runs, as tutor.verdict.compare judges)")
        lines.append(f"{html.escape(what)}: {before:.1f} → {pace:.1f} ms per step ({delta:+.1f} ms), {verdict}")
    return "<br>".join(lines)
