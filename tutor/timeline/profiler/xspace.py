"""Reading the XSpace file that TensorFlow's profiler writes, into plain Python records.

``tf.profiler.experimental.stop()`` writes ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``:
an ``XSpace`` protobuf with one ``XPlane`` per device (``/host:CPU`` for the
CPU threads), one ``XLine`` per thread, and ``XEvent`` rows that hold a name
(through ``event_metadata``), an offset and a duration in picoseconds, and
typed statistics (through ``stat_metadata``).

TensorFlow ships the protobuf module itself; it moved between releases, so
:func:`xplane_module` tries each place it has lived. Only the events that the
timeline needs are decoded (:func:`wanted`): the rest of a profile, which
with a Keras step can be tens of thousands of op events, is skipped by name.
"""
from __future__ import annotations

import glob
import importlib
import os
from dataclasses import dataclass, field

from ...i18n import gettext as _

#: Where TensorFlow keeps ``xplane_pb2``, newest first (TF 2.15 to 2.21 ship the first two).
XPLANE_MODULES = (
    "tensorflow.tsl.profiler.protobuf.xplane_pb2",
    "tensorflow.core.profiler.protobuf.xplane_pb2",
    "tsl.profiler.protobuf.xplane_pb2",
    "xla.tsl.profiler.protobuf.xplane_pb2",
)

#: Names of the events the timeline is built from (exact names; ``Iterator::...`` by prefix).
FUNCTION_CALLS = ("FunctionRun", "InstantiatedCapturedFunction::RunAsync")
#: The statistics read from them (the others, such as shapes and buffer sizes, are skipped).
STATS = ("id", "parent_id", "name", "element_id", "step", "parallelism")
EXECUTOR = "ExecutorState::Process"
MARKER_PREFIX = "tutor."


def xplane_module():
    """The ``xplane_pb2`` module of the installed TensorFlow."""
    errors = []
    for name in XPLANE_MODULES:
        try:
            return importlib.import_module(name)
        except ImportError as exc:  # moved in this TensorFlow: try the next place
            errors.append(f"{name}: {exc}")
    raise ImportError(_("tutor.profile cannot find TensorFlow's profiler protobuf (xplane_pb2); tried {tried}. "
                        "Install a TensorFlow release from 2.15 on.").format(tried="; ".join(errors)))


def wanted(name: str) -> bool:
    """True for the events a timeline is built from."""
    return (name.startswith("Iterator::") or name.endswith("Produce") or name.endswith("Consume")
            or name in FUNCTION_CALLS or name == EXECUTOR or name.startswith(MARKER_PREFIX))


@dataclass
class Event:
    """One profiler event, with times in picoseconds on the profiler's clock."""

    name: str
    line: int
    start: int
    end: int
    stats: dict
    #: The nearest enclosing wanted event on the same thread (index into the event list), or -1.
    enclosing: int = -1
    children: list = field(default_factory=list)

    def stat(self, key: str, default=None):
        return self.stats.get(key, default)


def find_xspace(logdir: str) -> str:
    """The newest ``*.xplane.pb`` file under ``logdir``."""
    files = glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True)
    if not files:
        raise RuntimeError(_("tutor.profile: TensorFlow's profiler wrote no trace file, so there is nothing to read. "
                             "This happens when another program stopped the profiler during the run; call again."))
    return max(files, key=os.path.getmtime)


def read_events(path: str) -> list[Event]:
    """The wanted events of the host plane(s) in the XSpace file at ``path``, nested per thread."""
    pb2 = xplane_module()
    space = pb2.XSpace()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    events: list[Event] = []
    line_no = 0
    for plane in space.planes:
        if not plane.name.startswith("/host"):
            continue
        names = {k: v.name for k, v in plane.event_metadata.items()}
        keep = {k for k, name in names.items() if wanted(name)}
        executor = {k for k in keep if names[k] == EXECUTOR}
        stat_names = {k: v.name for k, v in plane.stat_metadata.items() if v.name in STATS}
        id_keys = {k for k, v in stat_names.items() if v == "id"}
        ref_names = {k: v.name for k, v in plane.stat_metadata.items()}
        for line in plane.lines:
            base = int(line.timestamp_ns) * 1000
            first = len(events)
            for ev in line.events:
                if ev.metadata_id not in keep:
                    continue
                if ev.metadata_id in executor:  # many, and only their function run id is needed
                    stats = _run_id(ev.stats, id_keys)
                else:
                    stats = _stats(ev.stats, stat_names, ref_names)
                    meta = plane.event_metadata[ev.metadata_id]
                    if len(meta.stats):
                        stats = {**_stats(meta.stats, stat_names, ref_names), **stats}
                start = base + int(ev.offset_ps)
                events.append(Event(names[ev.metadata_id], line_no, start, start + int(ev.duration_ps), stats))
            _nest(events, first)
            line_no += 1
    return events


def _run_id(stats, id_keys: set) -> dict:
    """``{"id": value}`` of an executor event (the id is its first statistic in every release seen)."""
    if len(stats) and stats[0].metadata_id in id_keys:
        return {"id": stats[0].int64_value or stats[0].uint64_value}
    return {"id": getattr(s, s.WhichOneof("value")) for s in stats if s.metadata_id in id_keys}


def _stats(stats, stat_names: dict, ref_names: dict) -> dict:
    out = {}
    for s in stats:
        if s.metadata_id not in stat_names:
            continue
        kind = s.WhichOneof("value")
        if kind is None:
            continue
        value = getattr(s, kind)
        if kind == "ref_value":  # a string kept once in stat_metadata
            value = ref_names.get(value, value)
        elif kind == "bytes_value":
            value = bytes(value)
        out[stat_names.get(s.metadata_id, str(s.metadata_id))] = value
    return out


def _nest(events: list[Event], first: int) -> None:
    """Set ``enclosing`` and ``children`` for the events ``events[first:]`` of one thread.

    Events on one thread nest like function calls: an event that starts and
    ends inside another ran while the other was open.
    """
    order = sorted(range(first, len(events)), key=lambda i: (events[i].start, -events[i].end))
    stack: list[int] = []
    for i in order:
        ev = events[i]
        while stack and not (events[stack[-1]].start <= ev.start and ev.end <= events[stack[-1]].end):
            stack.pop()
        if stack:
            ev.enclosing = stack[-1]
            events[stack[-1]].children.append(i)
        stack.append(i)
