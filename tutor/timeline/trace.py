"""Any Timeline as Chrome trace-event JSON, the format Perfetto (ui.perfetto.dev) and chrome://tracing open.

The format (the "Trace Event Format" document): a JSON object whose
``traceEvents`` list holds complete events (``"ph": "X"``, start ``ts`` and
duration ``dur`` in microseconds) on numbered threads (``tid``) of a process
(``pid``), plus metadata events (``"ph": "M"``) that name the process and
threads and fix their order. Complete events on one thread must nest, so a
stage whose calls overlap (parallel workers) gets one thread per lane.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ..i18n import N_
from ..i18n import gettext as _
from .intervals import assign_lanes
from .schema import CONSUMER

#: Name of the consumer's waiting bars in the trace.
WAIT = N_("wait for input")


def trace_events(timeline) -> list[dict]:
    """The ``traceEvents`` list for ``timeline``: one thread per stage lane, then the consumer."""
    out = [{"ph": "M", "pid": 1, "tid": 0, "name": "process_name",
            "args": {"name": timeline.label or (_("model") if timeline.model else _("tf.data pipeline"))}}]
    tid = 0
    for row in [*timeline.stages, CONSUMER]:
        rows = np.flatnonzero(timeline.events["stage"] == row)
        ev = timeline.events[rows]
        lanes = assign_lanes(ev["start"], ev["end"]) if len(ev) else np.zeros(0, dtype=np.int64)
        for lane in range(int(lanes.max()) + 1 if len(lanes) else 1):
            tid += 1
            title = _("consumer (train step)") if row == CONSUMER else row
            out.append({"ph": "M", "pid": 1, "tid": tid, "name": "thread_name",
                        "args": {"name": title if lane == 0 else f"{title} ({lane + 1})"}})
            out.append({"ph": "M", "pid": 1, "tid": tid, "name": "thread_sort_index", "args": {"sort_index": tid}})
            for j in np.flatnonzero(lanes == lane):
                e = ev[j]
                args = {"step": int(e["step"]), "element": int(e["element"]), "epoch": int(e["epoch"])}
                if timeline.parent[rows[j]] >= 0:
                    args["waited_for_by"] = str(timeline.events["stage"][timeline.parent[rows[j]]])
                out.append(_complete(str(e["stage"]) if row != CONSUMER else _("train step"), tid,
                                     e["start"], e["end"], args))
            if row == CONSUMER and lane == 0:
                for st in timeline.steps:
                    if st["start"] > st["request"]:
                        out.append(_complete(_(WAIT), tid, st["request"], st["start"], {"step": int(st["step"])}))
    return out


def _complete(name: str, tid: int, start: float, end: float, args: dict) -> dict:
    return {"name": name, "cat": "tf.data", "ph": "X", "pid": 1, "tid": tid,
            "ts": round(float(start) * 1e6, 3), "dur": round(max(float(end) - float(start), 0.0) * 1e6, 3),
            "args": args}


def write_trace(timeline, path) -> str:
    """Write ``timeline`` to ``path`` as Chrome trace-event JSON; return the path."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(_("save_trace expects a file path such as 'trace.json', got {type}.")
                        .format(type=type(path).__name__))
    path = os.fspath(path)
    data = {"traceEvents": trace_events(timeline), "displayTimeUnit": "ms",
            "otherData": {"label": timeline.label, "stages": list(timeline.stages),
                          "notes": list(timeline.meta.get("notes", [])),
                          "bottleneck": timeline.bottleneck}}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path
