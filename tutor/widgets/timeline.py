"""timeline_explorer: switch prefetch, parallel map, cache and interleave on a small real pipeline."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from ..timeline import (STEPS, DecodeCost, Prebuilt, RunBook, TimelineDisplay, explorer_pipeline, pipeline_code,
                        record)
from ..verdict import decide
from ._base import Explorer, int_slider
from ._frontend import code_html

#: Runs made of a setting the first time it is drawn: the verdict helper judges at least 3 runs of each side.
RUNS_PER_SETTING = 3
#: What the readout says for each verdict of :func:`tutor.verdict.decide` (the new setting against the last one).
VERDICTS = {
    # Translators: the new setting's time per step against the last one's, judged over {old} and {new} runs.
    "faster": N_("faster (the medians and the spread of {old} and {new} runs, as tutor.verdict.compare judges)"),
    "slower": N_("slower (the medians and the spread of {old} and {new} runs, as tutor.verdict.compare judges)"),
    "no clear difference": N_("no clear difference on this machine (the medians and the spread of {old} and {new} "
                              "runs, as tutor.verdict.compare judges)"),
}


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
        # Translators: a checkbox: read the files with a parallel interleave.
        "interleave": widgets.Checkbox(value=False, description=_("parallel interleave"),
                                       style={"description_width": "initial"}),
        # Short names: in the 270-pixel panel a long one ("decode ms per element") left the track 19 pixels wide.
        # Translators: a slider's name, keep it short: milliseconds of work to decode each element.
        "element_ms": int_slider(element_ms, 0, max(12, element_ms), _("decode ms"), step=2),
        # Translators: a slider's name, keep it short: milliseconds each training step takes.
        "step_ms": int_slider(step_ms, 0, max(12, step_ms), _("train step ms"), step=2),
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
        for _run in range(times):
            run(values)
        if not history or history[-1][0] != key:
            history.append((key, values))
        # Translators: the label of the run drawn: the one with the median time per step.
        return TimelineDisplay.from_timeline(book.median_run(key), label=_("median run"))

    def options(disp, previous):
        tl = disp.timelines[0]
        title = (_("Train step of 0 ms: the consumer is always waiting (input-bound)") if tl.meta.get("step_time") == 0
                 else _("Who is busy when? Grey: the train step waits for input"))
        # One time axis for every setting drawn in this figure: it only ever grows, so most runs change only bars.
        limit = previous.ax_.get_xlim()[1] if previous is not None else 0.0
        if tl.total_time * 1.02 > limit:
            limit = float(np.ceil(tl.total_time * 1.15 / 0.05) * 0.05)
        return {"title": title, "color_by": "epoch" if tl.meta.get("cache_replays") else "step", "time_limit": limit}

    def describe(disp, values):
        return describe_runs(disp, values, book, history)

    explorer = Explorer(controls, compute, options=options, describe=describe, figsize=(8.0, 4.4),
                        name="timeline_explorer")
    # Translators: a button that records the current setting once more (the readout asks to press it by name).
    again = widgets.Button(description=_("run again"), tooltip=_("Record the current setting once more"),
                           layout=widgets.Layout(width="auto"))
    again.on_click(lambda _button: explorer.refresh())  # compute() records one more run of this setting
    explorer.buttons.children = (*explorer.buttons.children, again)
    explorer.book = book
    return explorer


def describe_runs(disp, values, book: RunBook, history: list) -> str:
    """The readout: pace, waiting, and the last change judged by the verdict helper's rule."""
    key = tuple(sorted(values.items()))
    tl = disp.timelines[0]
    n = len(book.runs[key])
    pace = book.pace_ms(key)
    # Translators: how the time per step was taken: from the one run, or the median over several.
    runs = _("1 run") if n == 1 else ngettext("median of {n} run", "median of {n} runs", n).format(n=n)
    first = float(tl.steps["start"][0]) if len(tl.steps) else 0.0
    lines = [code_html(tl.label),
             _("<b>{pace:.1f} ms per step</b> after the first ({runs}); total {total:.2f} s, of which {first:.2f} s "
               "before the first element (the iterator starting)").format(pace=pace, runs=runs,
                                                                           total=tl.total_time, first=first)]
    if values["step_ms"] == 0:
        lines.append(_("The train step takes no time, so the consumer is always waiting: input-bound. "
                       "Every millisecond per step is input time."))
    else:
        # Translators: {share} is a percentage, e.g. "35%".
        lines.append(_("train step waiting {share} of the time").format(share=f"{tl.consumer_wait_fraction:.0%}"))
    if len(history) > 1:
        (old_key, old_values), _last = history[-2], history[-1]
        changed = [k for k in values if old_values.get(k) != values[k]]
        before = book.pace_ms(old_key)
        # Translators: in the readout, where a change of setting is named: the setting did not change.
        what = ", ".join(f"{k}={values[k]}" for k in changed) or _("same setting")
        old, new = book.paces_ms(old_key), book.paces_ms(key)
        if min(len(old), len(new)) < RUNS_PER_SETTING:
            # Translators: "run again" is the button's name.
            verdict = _("press <i>run again</i> for a verdict (it needs {n} runs of each setting)").format(
                n=RUNS_PER_SETTING)
        else:
            verdict = _(VERDICTS[decide(old, new)]).format(old=len(old), new=len(new))
        # Translators: a change of setting and what it did, e.g. "prefetch=True: 9.1 → 4.2 ms per step (-4.9 ms), ...".
        lines.append(_("{what}: {before:.1f} → {after:.1f} ms per step ({delta:+.1f} ms), {verdict}").format(
            what=html.escape(what), before=before, after=pace, delta=pace - before, verdict=verdict))
    return "<br>".join(lines)
