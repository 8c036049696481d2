"""timeline_explorer: switch prefetch, parallel map, cache and interleave on a small real pipeline."""
from __future__ import annotations

import html

import ipywidgets as widgets
import tensorflow as tf

from ..timeline import Pipeline, TimelineDisplay, naive_options, record, sleep_work
from ._base import Explorer, int_slider

FILES, RECORDS, EPOCHS = 2, 4, 2
READ_SECONDS = 0.003


def explorer_pipeline(*, prefetch: bool, num_parallel_calls: int, cache: bool, interleave: bool,
                      element_ms: int) -> Pipeline:
    """The explorer's pipeline: 2 files x 4 records, read (3 ms each), decode (``element_ms``), 2 epochs.

    >>> explorer_pipeline(prefetch=True, num_parallel_calls=2, cache=False, interleave=False, element_ms=5).stages
    ['read', 'decode']
    """
    def read_file(file_id):
        return tf.data.Dataset.range(RECORDS).map(sleep_work(READ_SECONDS))

    pipe = Pipeline(tf.data.Dataset.range(FILES), name="files", options=naive_options())
    if interleave:
        pipe = pipe.interleave(read_file, cycle_length=FILES, num_parallel_calls=FILES, name="read")
    else:
        pipe = pipe.interleave(read_file, cycle_length=1, name="read")
    npc = None if num_parallel_calls == 1 else int(num_parallel_calls)
    pipe = pipe.map(sleep_work(element_ms / 1000), name="decode", num_parallel_calls=npc)
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


def timeline_explorer(*, element_ms: int = 15, step_ms: int = 10, steps: int = 10) -> Explorer:
    """Toggles for prefetch, parallel map, cache and interleave, sliders for the costs; redraws a recorded run.

    Every change runs the small pipeline for real (well under a second) and
    draws its timeline. ``.display`` is the :class:`TimelineDisplay`;
    ``.display.timelines[0]`` the recorded :class:`Timeline`.

    >>> ex = timeline_explorer()                                 # doctest: +SKIP
    >>> ex.set(prefetch=True).display.timelines[0].meta["code"]  # doctest: +SKIP
    """
    controls = {
        "prefetch": widgets.Checkbox(value=False, description="prefetch(1)", style={"description_width": "initial"}),
        "num_parallel_calls": widgets.ToggleButtons(options=[1, 2, 4], value=1, description="num_parallel_calls",
                                                    style={"description_width": "initial", "button_width": "40px"}),
        "cache": widgets.Checkbox(value=False, description="cache()", style={"description_width": "initial"}),
        "interleave": widgets.Checkbox(value=False, description="parallel interleave",
                                       style={"description_width": "initial"}),
        "element_ms": int_slider(element_ms, 0, 20, "decode ms per element", step=5),
        "step_ms": int_slider(step_ms, 0, 20, "train step ms", step=5),
    }

    def compute(prefetch, num_parallel_calls, cache, interleave, element_ms, step_ms):
        pipe = explorer_pipeline(prefetch=prefetch, num_parallel_calls=num_parallel_calls, cache=cache,
                                 interleave=interleave, element_ms=element_ms)
        tl = record(pipe, steps=steps, step_time=step_ms / 1000,
                    label=_code(prefetch, num_parallel_calls, cache, interleave, element_ms))
        return TimelineDisplay.from_timeline(tl, label="recorded")

    def draw(disp, fig, previous):
        ax = fig.axes[0]
        ax.clear()
        disp.plot(ax=ax, color_by="epoch" if disp.timelines[0].meta.get("cache_replays") else "step",
                  title="Recorded run: who is busy when? Grey = the train step waits")

    def describe(disp, values):
        tl = disp.timelines[0]
        return (f"<code>{html.escape(tl.label)}</code><br>total {tl.total_time:.2f} s &nbsp; "
                f"train step waiting {tl.consumer_wait_fraction:.0%} of the time")

    return Explorer(controls, compute, draw=draw, describe=describe, figsize=(8.5, 4.2), columns=3,
                    name="timeline_explorer")
