"""record: run a real pipeline and write down who worked on which element when.

Timestamps are taken *inside* the tf.data graph with ``tf.timestamp()`` (see
:mod:`tutor.timeline.pipeline`); the consumer loop uses ``time.time()``. Both
read the same wall clock (seconds since the Unix epoch), so they line up on
one time axis. The consumer loop is :func:`tutor.reading.pull`'s, so a run
whose pipeline stops yielding (or whose train step never returns) stops at a
deadline with a sentence, as every read of a dataset does.
"""
from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from .. import reading
from .._validate import require_positive_int, require_seconds
from ..i18n import gettext as _
from .events import Timeline
from .schema import CONSUMER, make_events, make_steps
from .pipeline import Pipeline, call_like_map

#: The longest run record() agrees to make, so that nothing hangs a notebook.
MAX_STEPS = 10_000


def _require_pipeline(pipeline: Any, where: str) -> Pipeline:
    if isinstance(pipeline, Pipeline):
        return pipeline
    if isinstance(pipeline, tf.data.Dataset):
        raise TypeError(
            _("{where} cannot look inside a finished tf.data.Dataset: it cannot tell where one stage ends and the "
              "next begins. Build the same pipeline with named stages and pass that instead, for example "
              "tutor.timeline.Pipeline(tf.data.Dataset.range(20)).map(decode, name='decode').batch(4).prefetch(1).")
            .format(where=where)
        )
    raise TypeError(
        _("{where} expects a tutor.timeline.Pipeline, got {type}; build one with "
          "tutor.timeline.Pipeline(source_dataset).map(fn, name='work')...")
        .format(where=where, type=type(pipeline).__name__)
    )


def record(pipeline: Pipeline, *, steps: int, step_time: float = 0.0, train_step: Callable | None = None,
           label: str = "", timeout: float | None = None) -> Timeline:
    """Run ``pipeline`` for ``steps`` consumer steps and record its timeline.

    Parameters
    ----------
    pipeline : Pipeline
        The pipeline with named stages. A plain ``tf.data.Dataset`` cannot be
        instrumented and raises a TypeError that says what to pass instead.
    steps : int
        How many elements the consumer takes (required: an endless
        ``repeat()`` stops here). Fewer if the dataset ends first.
    step_time : float
        Seconds each consumer step "trains" (``time.sleep``, like an
        accelerator that leaves the CPU free). Ignored when ``train_step`` is given.
    train_step : callable, optional
        A real step, called with the element as tf.data's ``map`` would
        (a tuple is spread over the arguments), e.g. ``lambda x, y: model.train_on_batch(x, y)``.
    label : str
        Shown in plots.
    timeout : float, optional
        Seconds the run may wait for one element, or for one train step,
        before it stops with ``tutor.reading.ReadTimeout`` (default
        ``tutor.reading.PASS_TIMEOUT``); a long run that keeps going is fine.

    Returns
    -------
    Timeline

    Examples
    --------
    >>> pipe = Pipeline(tf.data.Dataset.range(4)).map(lambda x: x + 1, name="add")
    >>> tl = record(pipe, steps=4)
    >>> tl.n_steps, tl.stages
    (4, ['add'])
    """
    pipeline = _require_pipeline(pipeline, "record")
    steps = require_positive_int(steps, "steps", "record")
    if steps > MAX_STEPS:
        raise ValueError(_("record: steps must be at most {most} so that a run stays short, got {steps}.")
                         .format(most=MAX_STEPS, steps=steps))
    if isinstance(step_time, bool) or not isinstance(step_time, (int, float)) or step_time < 0:
        raise ValueError(_("record: step_time must be seconds >= 0, got {step_time!r}.").format(step_time=step_time))
    if train_step is not None and not callable(train_step):
        raise TypeError(_("record: train_step must be a function of one element, got {type}.")
                        .format(type=type(train_step).__name__))

    timeout = require_seconds(reading.PASS_TIMEOUT if timeout is None else timeout, "timeout", "record")

    ds = pipeline.build(instrument=True)
    step_rows: list[tuple] = []
    clock = {"t0": 0.0, "request": 0.0}

    def stamp(what: str, step: int | None):
        # Before the iterator is made (t0), and before each request for an element.
        clock["t0" if step is None else "request"] = time.time()
        return contextlib.nullcontext()

    def consume(s: int, element) -> None:
        t_got = time.time()
        value, _unused = element
        if train_step is not None:
            call_like_map(train_step, value)
        elif step_time:
            time.sleep(step_time)
        t_end = time.time()
        t0 = clock["t0"]
        # The first step has been waiting since the iterator was created.
        step_rows.append((s, clock["request"] - t0 if s else 0.0, t_got - t0, t_end - t0))

    traces = reading.pull(ds, timeout=timeout, where="record", convert=lambda element: element[1],
                          on_element=consume, limit=steps, around=stamp, idle=True)
    t0 = clock["t0"]
    if not step_rows:
        raise ValueError(_("record: the pipeline produced no elements; check its source and take()/filter() stages."))
    traces = [{k: v.numpy() for k, v in tr.items()} for tr in traces]
    events, meta = trace_events(traces, pipeline, t0)
    steps_arr = make_steps(step_rows)
    consumer = [(CONSUMER, meta["first_element"][s], s, meta["first_epoch"][s], r[2], r[3])
                for s, r in enumerate(step_rows)]
    events = np.concatenate([events, make_events(consumer)])
    meta.update(code=repr(pipeline), step_time=float(step_time), passive_stages=list(pipeline.batch_inputs()))
    return Timeline(events, steps_arr, pipeline.stages, label=label, model=False, meta=meta)


def _per_element(values: np.ndarray, elements: np.ndarray, epochs: np.ndarray):
    """Spread stamps over the elements they belong to (one per element, or one per batch)."""
    flat = np.ravel(values)
    if flat.size == elements.size:
        return flat, elements, epochs
    every = max(elements.size // max(flat.size, 1), 1)
    idx = np.arange(flat.size) * every
    return flat, elements[idx], epochs[idx]


def trace_events(traces: list[dict], pipeline: Pipeline, t0: float) -> tuple[np.ndarray, dict]:
    """Turn the consumed traces into event rows (seconds since ``t0``), dropping cache replays."""
    seen_ids: dict[int, int] = defaultdict(int)
    rows = []
    first_element, first_epoch = [], []
    batch_inputs = pipeline.batch_inputs()
    next_element = 0
    for s, tr in enumerate(traces):
        ids = np.ravel(tr["id"])
        elements = np.arange(next_element, next_element + ids.size)
        next_element += ids.size
        epochs = np.empty(ids.size, dtype=np.int64)
        for j, i in enumerate(ids.tolist()):
            epochs[j] = seen_ids[i]
            seen_ids[i] += 1
        first_element.append(int(elements[0]) if ids.size else -1)
        first_epoch.append(int(epochs[0]) if ids.size else 0)
        for stage in pipeline.stages:
            if stage in batch_inputs:
                source = batch_inputs[stage]
                if source is not None and f"{source}:end" in tr:
                    ends = np.ravel(tr[f"{source}:end"]) - t0
                    rows.append((stage, elements[0], s, epochs[0], ends.min(), ends.max()))
            else:
                starts, el, ep = _per_element(tr[f"{stage}:start"], elements, epochs)
                ends = np.ravel(tr[f"{stage}:end"])
                rows.extend((stage, el[j], s, ep[j], starts[j] - t0, ends[j] - t0) for j in range(starts.size))
    events, replays = _drop_replays(make_events(rows))
    meta = {"cache_replays": replays, "first_element": first_element, "first_epoch": first_epoch}
    return events, meta


def _drop_replays(events: np.ndarray) -> tuple[np.ndarray, dict[str, int]]:
    """Events whose timestamps were already seen came out of a cache: the stage did no work for them."""
    keep = np.ones(len(events), dtype=bool)
    seen: set[tuple] = set()
    replays: dict[str, int] = defaultdict(int)
    for j, e in enumerate(events):
        key = (e["stage"], float(e["start"]), float(e["end"]))
        if key in seen:
            keep[j] = False
            replays[str(e["stage"])] += 1
        seen.add(key)
    return events[keep], dict(replays)
