"""The trace viewer's events of one profile, and the questions TensorFlow's guide asks of them.

XProf's trace viewer shows one row per thread of the host (``python``,
``tf_data_iterator_get_next``, ``tf_data_iterator_resource`` ...) and one bar
per event. For tf.data, TensorFlow's profiler records:

* ``IteratorGetNextOp::DoCompute`` (``IteratorGetNextAsOptionalOp::DoCompute``
  when the step asks for an optional, as a distributed iterator does): the
  training step's request for its next batch, on a ``tf_data_iterator_get_next``
  (``..._as_optional``) thread. Its length is how long the step waited;
* ``Iterator::Root`` inside it, the outermost iterator (TensorFlow's guide, written
  before TF 2.5, calls it ``Iterator::Model``), and inside that one event per
  ``GetNext`` call of every synchronous stage. The trace viewer shows a short name
  (``Iterator::BatchV2``); its arguments hold the long name, the path from the
  root (``Iterator::Root::BatchV2::Map``), the iterator's ``id`` and its ``parent_id``;
* an asynchronous stage (``Prefetch``, ``ParallelMapV2``, ``MapAndBatch`` ...) calls its
  input on threads of its own, so those events sit on other rows; their
  ``parent_id`` is the asynchronous stage's ``id``, which is how to find them.

:class:`TraceEvents` holds those events; :meth:`TraceEvents.step_waits` pairs
each step (a ``train N`` step marker, see :class:`~tutor.tftrace.StepMarkers`)
with the ``DoCompute`` events inside it.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..i18n import gettext as _
from .convert import tool_data

#: The step's request for its next batch, as the profiler names it (plain and optional iterators).
GET_NEXT = ("IteratorGetNextOp::DoCompute", "IteratorGetNextAsOptionalOp::DoCompute")
#: Step markers: events named ``train`` or ``train N`` (TensorFlow's tools also take ``test`` and ``TraceContext``).
STEP_RE = re.compile(r"^train(?: (\d+))?$")
WHERE = "tutor.tftrace"


def thread_kind(name: str) -> str:
    """A thread's name without the number TensorFlow appends: ``tf_data_iterator_get_next/-348`` -> ``tf_data_iterator_get_next``."""
    return name.split("/", 1)[0]


def chain(long_name: str) -> list[str]:
    """The stages of a long name, from the outermost to this one.

    >>> chain("Iterator::Root::Prefetch::ParallelMapV2::BatchV2")
    ['Root', 'Prefetch', 'ParallelMapV2', 'BatchV2']
    """
    if not isinstance(long_name, str) or not long_name.startswith("Iterator::"):
        raise ValueError(_("{where}.chain expects an iterator's long name such as 'Iterator::Root::Prefetch', "
                           "got {name!r}.").format(where=WHERE, name=long_name))
    return long_name.split("::")[1:]


@dataclass(frozen=True)
class TraceEvent:
    """One bar of the trace viewer; times in microseconds from the start of the profile."""

    name: str
    long_name: str
    thread: str
    tid: int
    start: float
    duration: float
    args: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def end(self) -> float:
        return self.start + self.duration

    @property
    def id(self) -> str | None:
        """The iterator's (or op's) id, as the profiler wrote it."""
        return self.args.get("id")

    @property
    def parent_id(self) -> str | None:
        """The ``id`` of the iterator that called this one (iterator events only)."""
        return self.args.get("parent_id")


@dataclass(frozen=True)
class StepWait:
    """One training step and the time it spent in ``DoCompute`` getting its batch (milliseconds)."""

    step: int
    step_ms: float
    wait_ms: float
    thread: str
    #: How long after the step's start the first request began.
    offset_ms: float
    #: How many ``DoCompute`` events the step held (one per replica under a distribution strategy).
    requests: int


class TraceEvents:
    """The events XProf's trace viewer shows for one profile.

    Build it with :meth:`from_logdir` (the folder the profiler wrote) or
    :meth:`from_json` (the trace viewer's JSON). ``events`` are sorted by start.
    """

    def __init__(self, events: Iterable[TraceEvent]):
        self.events = sorted(events, key=lambda e: (e.start, -e.duration))

    @classmethod
    def from_logdir(cls, logdir: Any) -> "TraceEvents":
        """Convert the profile under ``logdir`` with XProf's trace viewer tool and keep its events."""
        return cls.from_json(tool_data(logdir, "trace_viewer", f"{WHERE}.read"))

    @classmethod
    def from_json(cls, trace: Any) -> "TraceEvents":
        """The complete events (``"ph": "X"``) of a trace viewer JSON object, with their threads' names."""
        if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
            raise TypeError(_("{where}: expected the trace viewer's JSON, a dict with a 'traceEvents' list; got "
                              "{type}.").format(where=WHERE, type=type(trace).__name__))
        raw = trace["traceEvents"]
        threads = {(e.get("pid"), e.get("tid")): str(e.get("args", {}).get("name", ""))
                   for e in raw if e.get("ph") == "M" and e.get("name") == "thread_name"}
        events = []
        for e in raw:
            if e.get("ph") != "X" or "dur" not in e:
                continue
            args = e.get("args") or {}
            name = str(e.get("name", ""))
            thread = threads.get((e.get("pid"), e.get("tid")), str(e.get("tid")))
            events.append(TraceEvent(name, str(args.get("long_name", name)), thread, int(e.get("tid", 0)),
                                     float(e["ts"]), float(e["dur"]), dict(args)))
        return cls(events)

    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        return f"TraceEvents({len(self.events):,} events on {len(self.threads())} threads)"

    # ------------------------------------------------------------------ selections
    def threads(self) -> list[str]:
        """Every thread's full name, in the order its first event started."""
        return list(dict.fromkeys(e.thread for e in self.events))

    def named(self, name: str) -> list[TraceEvent]:
        """Events whose short or long name is ``name`` (``"Iterator::Map"`` or ``"Iterator::Root::BatchV2::Map"``)."""
        return [e for e in self.events if name in (e.name, e.long_name)]

    def iterators(self) -> list[TraceEvent]:
        """Every ``Iterator::...`` event: the calls of tf.data's iterators."""
        return [e for e in self.events if e.name.startswith("Iterator::")]

    def get_next(self) -> list[TraceEvent]:
        """The training step's requests for a batch (``IteratorGetNextOp::DoCompute`` and its optional twin)."""
        return [e for e in self.events if e.name in GET_NEXT]

    def upstream(self, event: TraceEvent) -> list[TraceEvent]:
        """The calls ``event``'s iterator made to its input: the events whose ``parent_id`` is its ``id``."""
        if not isinstance(event, TraceEvent) or event.id is None:
            raise TypeError(_("{where}: upstream expects an iterator's event (from events.named(...)), got {type}.")
                            .format(where=WHERE, type=type(event).__name__))
        return [e for e in self.events if e.parent_id == event.id]

    def inside(self, event: TraceEvent) -> list[TraceEvent]:
        """The events on ``event``'s thread that start and end inside it (what it was doing meanwhile)."""
        return [e for e in self.events if e.tid == event.tid and e is not event
                and event.start <= e.start and e.end <= event.end]

    def long_names(self) -> list[tuple[str, str, int]]:
        """``(long name, thread kind, count)`` of every iterator event, sorted: where each stage ran, how often."""
        counts = Counter((e.long_name, thread_kind(e.thread)) for e in self.iterators())
        return [(name, thread, n) for (name, thread), n in sorted(counts.items())]

    def steps(self) -> list[tuple[int, TraceEvent]]:
        """``(step number, marker event)`` of every step marker, in time order."""
        found = []
        for e in self.events:
            m = STEP_RE.match(e.name)
            if m:
                number = m.group(1) or e.args.get("step_num")
                found.append((int(number) if number is not None else len(found), e))
        return found

    def step_waits(self) -> list[StepWait]:
        """For every step marker: how long its requests for a batch took (the longest, if there were several)."""
        steps = self.steps()
        if not steps:
            raise ValueError(_("{where}: this profile has no step markers, so its steps cannot be told apart. Record "
                               "model.fit with callbacks=[tutor.tftrace.StepMarkers()] (after a TensorBoard callback, "
                               "if there is one), or wrap each step of your own loop in "
                               "tf.profiler.experimental.Trace('train', step_num=step, _r=1).").format(where=WHERE))
        requests = self.get_next()
        out = []
        for number, marker in steps:
            mine = [r for r in requests if marker.start <= r.start < marker.end]
            longest = max(mine, key=lambda r: r.duration) if mine else None
            out.append(StepWait(number, marker.duration / 1e3, longest.duration / 1e3 if longest else 0.0,
                                thread_kind(longest.thread) if longest else "",
                                (min(r.start for r in mine) - marker.start) / 1e3 if mine else 0.0, len(mine)))
        return out
