"""Which epoch each profiled call served, where TensorFlow's trace tells it.

A ``repeat()`` runs as a ``FiniteRepeat`` or ``ForeverRepeat`` iterator that
makes a fresh iterator of its input for every epoch, and the input's events
carry the epoch in their path: ``Iterator::Root::FiniteRepeat[2]::Map`` is a
call of ``Map`` in epoch 2 (0-based). Calls above the repeat (a ``batch``, a
``prefetch``, the consumer) served elements that came from below it: each
takes the epoch of the first call it waited for (the first element of a
batch), except a repeat's own call, which takes its last one (the calls
before it found the end of an epoch).

The trace cannot tell the epoch when TensorFlow fused ``shuffle`` and
``repeat`` into one ``ShuffleAndRepeat`` iterator (``shuffle_and_repeat_fusion``,
on by default): that iterator starts each epoch's input under the same name.
:func:`unknown_epochs` says so, and the timeline keeps epoch 0 there.
"""
from __future__ import annotations

import re
from collections import defaultdict

from ...i18n import gettext as _

#: A repeat's per-epoch component in an iterator path.
_REPEAT = re.compile(r"^(?:Finite|Forever)?Repeat\[(\d+)\]$")
#: A repeat's own calls: an element comes from the last input call (the ones before it ended an epoch).
_REPEATER = re.compile(r"Repeat$")
#: Iterators whose ``[k]`` opens an inner dataset: a repeat below one counts the inner dataset's passes, not epochs.
_NESTING = ("Interleave", "FlatMap")


def path_epoch(long_name: str) -> int | None:
    """The epoch in an iterator path, from the outermost ``repeat()`` of the pipeline itself; None if there is none.

    >>> path_epoch("Iterator::Root::Prefetch::FiniteRepeat[2]::ParallelMapV2::Range")
    2
    >>> path_epoch("Iterator::Root::ParallelInterleaveV4[1]::FiniteRepeat[3]::TFRecord") is None
    True
    """
    for part in long_name.split("::")[1:]:
        m = _REPEAT.match(part)
        if m:
            return int(m.group(1))
        if "[" in part and any(word in part for word in _NESTING):
            return None
    return None


def unknown_epochs(keys) -> str | None:
    """Why epochs cannot be read from this run (a sentence), or None when they can.

    ``keys`` are the stage keys of :func:`~tutor.timeline.profiler.build.stage_key`.
    """
    for key in keys:
        outer = True
        for part in key:
            if outer and part.split("[", 1)[0] == "ShuffleAndRepeat":
                return _("TensorFlow fused shuffle and repeat into one iterator, ShuffleAndRepeat, and its trace "
                         "does not say which epoch an element belongs to. To see epochs, profile it with the fusion "
                         "off: options = tf.data.Options(); "
                         "options.experimental_optimization.shuffle_and_repeat_fusion = False; "
                         "ds = ds.with_options(options)")
            if "[" in part and any(word in part for word in _NESTING):
                outer = False
    return None


def call_epochs(events, graph, rows: list[int], stage_of: dict) -> dict[int, int]:
    """Epoch of every row (call or function run) of ``graph``: from its path, else from the calls it waited for.

    A function run takes the epoch of the input call made for it; a call
    whose path and children say nothing takes the epoch of the stage's call
    before it (0 for the first).
    """
    kids = defaultdict(list)
    for i in rows:
        p = graph.parent.get(i, -1)
        if p >= 0:
            kids[p].append(i)
    for p in kids:
        kids[p].sort(key=lambda i: events[i].start)
    known: dict[int, int | None] = {}

    def epoch_of(i: int, depth: int = 0) -> int | None:
        if i in known:
            return known[i]
        known[i] = None  # guards against a cycle
        found = path_epoch(events[i].name) if events[i].name.startswith("Iterator::") else None
        if found is None and i in graph.work and depth < 64:
            found = epoch_of(graph.produce_child[graph.work[i]], depth + 1)
        children = kids.get(i, ())
        if _REPEATER.search(events[i].name):  # a call that ended one epoch and began the next: its last input
            children = children[::-1]
        for child in children:
            if found is not None or depth >= 64:
                break
            found = epoch_of(child, depth + 1)
        known[i] = found
        return found

    out, last = {}, {}
    for i in sorted(rows, key=lambda i: events[i].start):
        e = epoch_of(i)
        stage = stage_of.get(i)
        out[i] = last.get(stage, 0) if e is None else e
        last[stage] = out[i]
    return out
