"""timeline_explorer: switch prefetch, parallel map, cache and interleave on a small real pipeline."""
from __future__ import annotations

import html
import statistics
import time

import ipywidgets as widgets
import numpy as np
import tensorflow as tf

from ..timeline import Pipeline, TimelineDisplay, naive_options, record, sleep_work
from ._base import Explorer, int_slider

FILES, RECORDS, EPOCHS = 2, 2, 2
READ_SECONDS = 0.003
#: Consumer steps per run: both epochs, so that cache() shows its effect in the second one.
STEPS = FILES * RECORDS * EPOCHS
#: Runs of the starting setting made when the explorer opens: they measure the run-to-run noise.
CALIBRATION_RUNS = 3


def explorer_pipeline(*, prefetch: bool, num_parallel_calls: int, cache: bool, interleave: bool,
                      element_ms: int) -> Pipeline:
    """The explorer's pipeline: 2 files x 2 records, read (3 ms each), decode (``element_ms``), 2 epochs.

    >>> explorer_pipeline(prefetch=True, num_parallel_calls=2, cache=False, interleave=False, element_ms=5).stages
    ['read', 'decode']
    """
    return _pipeline(prefetch, num_parallel_calls, cache, interleave, sleep_work(element_ms / 1000))


class DecodeCost:
    """The decode stage's cost, read each time an element is decoded (not fixed when the pipeline is traced).

    One built pipeline then serves every position of the *decode ms* slider:
    moving it needs no new trace of the pipeline's functions, which takes
    longer than the run itself.

    >>> cost = DecodeCost(0.002)
    >>> [int(v) for v in tf.data.Dataset.range(2).map(cost.work()).as_numpy_iterator()]
    [0, 1]
    """

    def __init__(self, seconds: float = 0.0):
        self.seconds = float(seconds)

    def work(self):
        """A map function that sleeps ``self.seconds`` as it is when the element is decoded."""
        def run(value):
            time.sleep(self.seconds)
            return value

        def decode(x):
            y = tf.py_function(run, [x], Tout=x.dtype)
            y.set_shape(x.shape)
            return y

        return decode


def _pipeline(prefetch, num_parallel_calls, cache, interleave, decode) -> Pipeline:
    def read_file(file_id):
        return tf.data.Dataset.range(RECORDS).map(sleep_work(READ_SECONDS))

    pipe = Pipeline(tf.data.Dataset.range(FILES), name="files", options=naive_options())
    if interleave:
        pipe = pipe.interleave(read_file, cycle_length=FILES, num_parallel_calls=FILES, name="read")
    else:
        pipe = pipe.interleave(read_file, cycle_length=1, name="read")
    npc = None if num_parallel_calls == 1 else int(num_parallel_calls)
    pipe = pipe.map(decode, name="decode", num_parallel_calls=npc)
    if cache:
        pipe = pipe.cache()
    pipe = pipe.repeat(EPOCHS)
    return pipe.prefetch(1) if prefetch else pipe


def _code(prefetch, num_parallel_calls, cache, interleave, element_ms):
    read = (f"interleave(read_file, cycle_length={FILES}, num_parallel_calls={FILES})" if interleave
            else "interleave(read_file, cycle_length=1)")
    npc = "" if num_parallel_calls == 1 else f", num_parallel_calls={num_parallel_calls}"
    parts = [f"files.{read}", f"map(decode_{element_ms}ms{npc})"]
    parts += ["cache()"] if cache else []
    parts += [f"repeat({EPOCHS})"] + (["prefetch(1)"] if prefetch else [])
    return ".".join(parts)


def step_period(timeline) -> float:
    """Seconds per consumer step after the first one: the pipeline's steady pace.

    The first step also waits for the iterator to start, which varies a lot
    from run to run; the later steps show what the settings change.
    """
    ends = timeline.steps["end"]
    return float((ends[-1] - ends[0]) / (len(ends) - 1)) if len(ends) > 1 else float(timeline.total_time)


class Prebuilt(Pipeline):
    """A :class:`Pipeline` that builds its dataset once and hands the same one to every run.

    Each run still makes its own iterator (its own pass, with its own buffers
    and threads); only TensorFlow's tracing of the stage functions, a good part
    of a short run's cost, happens once. Not for pipelines with ``cache()``:
    a cache filled by one run would serve the next.
    """

    def __init__(self, pipeline: Pipeline):
        self.__dict__.update(pipeline.__dict__)
        self._built: dict = {}

    def build(self, *, instrument: bool = False):
        if instrument not in self._built:
            self._built[instrument] = Pipeline.build(self, instrument=instrument)
        return self._built[instrument]


class RunBook:
    """Every recorded run, grouped by setting: the median run, and how far runs of one setting spread.

    >>> book = RunBook()
    >>> book.noise_ms() is None
    True
    """

    def __init__(self):
        self.runs: dict[tuple, list] = {}

    def add(self, key: tuple, timeline) -> None:
        self.runs.setdefault(key, []).append(timeline)

    def median_run(self, key: tuple):
        """The run of this setting whose pace is the median (the lower one of an even count)."""
        runs = sorted(self.runs[key], key=step_period)
        return runs[(len(runs) - 1) // 2]

    def pace_ms(self, key: tuple) -> float:
        return 1000 * statistics.median(step_period(t) for t in self.runs[key])

    def noise_ms(self) -> float | None:
        """Half the widest spread of step pace seen between runs of one setting (None before any repeat)."""
        spreads = [np.ptp([step_period(t) for t in runs]) for runs in self.runs.values() if len(runs) > 1]
        return 1000 * max(spreads) / 2 if spreads else None


def timeline_explorer(*, element_ms: int = 4, step_ms: int = 4, steps: int = STEPS) -> Explorer:
    """Toggles for prefetch, parallel map, cache and interleave, sliders for the costs; redraws a recorded run.

    Every change runs the small pipeline for real (well under a second) and
    draws its timeline. The readout gives the time per step after the first
    (the first also waits for the iterator to start, which varies from run to
    run), the median over every run of that setting so far, and whether the
    last change moved it by more than the run-to-run noise. Three runs of the
    starting setting, made when the explorer opens, measure that noise;
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
        "element_ms": int_slider(element_ms, 0, max(12, element_ms), "decode ms per element", step=2),
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
            pipe = _pipeline(*shape, cost.work())
            if not values["cache"]:
                pipe = built[shape] = Prebuilt(pipe)
        label = _code(values["prefetch"], values["num_parallel_calls"], values["cache"], values["interleave"],
                      values["element_ms"])
        book.add(key_of(values), record(pipe, steps=steps, step_time=values["step_ms"] / 1000, label=label))

    def compute(**values):
        key = key_of(values)
        times = CALIBRATION_RUNS if not book.runs else 1
        for _ in range(times):
            run(values)
        if not history or history[-1][0] != key:
            history.append((key, values))
        return TimelineDisplay.from_timeline(book.median_run(key), label="median run")

    figures = {}  # per figure (the explorer's, and the hidden one that draws ahead): what the last plot() added

    def draw(disp, fig, previous):
        ax = fig.axes[0]
        state = figures.setdefault(id(fig), {"added": [], "xmax": 0.0, "layout": None})
        if previous is None:
            state.update(added=[], layout=None)
        for artist in state["added"]:  # removing the last run's artists is cheaper than clearing the axes
            artist.remove()
        before = set(ax.get_children())
        tl = disp.timelines[0]
        title = ("Train step of 0 ms: the consumer is always waiting (input-bound)" if tl.meta.get("step_time") == 0
                 else "Who is busy when? Grey: the train step waits for input")
        disp.plot(ax=ax, color_by="epoch" if tl.meta.get("cache_replays") else "step", title=title)
        state["added"] = [a for a in ax.get_children() if a not in before]
        if tl.total_time * 1.02 > state["xmax"]:  # one time axis for every setting: it only ever grows
            state["xmax"] = np.ceil(tl.total_time * 1.15 / 0.05) * 0.05
        ax.set_xlim(0, state["xmax"])
        layout = (ax.get_ylim(), tuple(ax.get_yticks()), state["xmax"], title)
        if layout != state["layout"]:  # rows, lanes, time axis or title moved: draw everything
            state["layout"] = layout
            return None
        return state["added"]  # only the bars and labels of this run: the axes are reused

    def describe(disp, values):
        return describe_runs(disp, values, book, history)

    explorer = Explorer(controls, compute, draw=draw, describe=describe, figsize=(8.0, 4.4),
                        name="timeline_explorer")
    again = widgets.Button(description="run again", tooltip="Record the current setting once more",
                           layout=widgets.Layout(width="auto"))
    again.on_click(lambda _: explorer.render())  # compute() records one more run of this setting
    explorer.buttons.children = (*explorer.buttons.children, again)
    explorer.book = book
    return explorer


def describe_runs(disp, values, book: RunBook, history: list) -> str:
    """The readout: pace, waiting, and the last change measured against the run-to-run noise."""
    key = tuple(sorted(values.items()))
    tl = disp.timelines[0]
    n = len(book.runs[key])
    pace, noise = book.pace_ms(key), book.noise_ms()
    runs = "1 run" if n == 1 else f"median of {n} runs"
    first = float(tl.steps["start"][0]) if len(tl.steps) else 0.0
    lines = [f"<code>{html.escape(tl.label)}</code>",
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
        if noise is None:
            verdict = "run-to-run noise not measured yet"
        elif abs(delta) > 2 * noise:
            verdict = f"more than the run-to-run noise (±{noise:.1f} ms)"
        else:
            verdict = f"within the run-to-run noise (±{noise:.1f} ms): no measurable effect here"
        lines.append(f"{html.escape(what)}: {before:.1f} → {pace:.1f} ms per step ({delta:+.1f} ms), {verdict}")
    return "<br>".join(lines)
