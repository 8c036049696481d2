"""From profiler events to a :class:`~tutor.timeline.Timeline`: stages, links, steps and rewrite notes.

What TensorFlow's profiler records for a tf.data pipeline (TF 2.15 to 2.21):

* every ``GetNext`` call of every iterator is an event named after its path,
  ``Iterator::Root::Prefetch::MapAndBatch::Range``, with the iterator's ``id``,
  its ``parent_id`` and ``name`` (the dataset's node in the rewritten graph,
  e.g. ``fused(MapDataset:1,BatchDatasetV2:2)`` or ``inject/prefetch_...``);
* a synchronous iterator calls its input on the same thread, so the input's
  event is nested inside it;
* an asynchronous iterator (Prefetch, ParallelMap, MapAndBatch,
  ParallelInterleave, ParallelBatch) pulls its input on a background thread
  inside an ``XProduce`` event, and hands the element over inside an
  ``XConsume`` event nested in the consumer-side call; both carry the same
  ``element_id``. This is how TensorFlow's own tf.data analysis links the two
  calls (``EventForest::ConnectTfDataEvents``), and it is what we do too;
* the user function of an asynchronous map runs on a thread pool as
  ``ExecutorState::Process`` events whose ``id`` matches the ``FunctionRun``
  started inside the ``XProduce`` event: those runs are the stage's own work.

Each linked or nested pair gives the inner event a *parent*: the call that
waited for it. :attr:`Timeline.parent` keeps that, so
:attr:`Timeline.stage_self_time` can subtract the time a stage waited for its
inputs, as TensorFlow's analysis does.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict

import numpy as np

from ...i18n import N_
from ...i18n import gettext as _
from ..events import Timeline
from ..intervals import cap_overlap
from ..schema import CONSUMER, make_events, make_steps
from .epochs import call_epochs, unknown_epochs
from .links import CallGraph
from .xspace import Event

#: Iterators whose ``[k]`` suffix names a different input (kept); for the others (FlatMap, Interleave,
#: Repeat ...) ``[k]`` counts the elements or epochs they opened an inner iterator for, and is dropped.
MULTI_INPUT = ("Zip", "Concatenate", "DirectedInterleave")
#: The longest stage name a Timeline stores (its ``stage`` field is 32 characters).
NAME_LIMIT = 32

_INDEX = re.compile(r"^(.*)\[(\d+)\]$")


def stage_key(long_name: str) -> tuple:
    """The stage an iterator event belongs to, as a tuple of path components without ``Root``.

    >>> stage_key("Iterator::Root::Prefetch::ParallelInterleaveV4[3]::TFRecord")
    ('Prefetch', 'ParallelInterleaveV4[*]', 'TFRecord')
    >>> stage_key("Iterator::Root::Zip[1]::Range")
    ('Zip[1]', 'Range')
    """
    parts = long_name.split("::")[1:]
    if parts and parts[0] == "Root":
        parts = parts[1:]
    out = []
    for part in parts:
        m = _INDEX.match(part)
        if m and m.group(1) not in MULTI_INPUT:
            part = m.group(1) + "[*]"
        out.append(part)
    return tuple(out)


def _bare(part: str) -> str:
    return part.split("[", 1)[0]


def _parent_key(key: tuple) -> tuple:
    return key[:-2] + (_bare(key[-2]),) if len(key) > 1 else ()


def order_stages(keys, first_seen: dict, parents: dict | None = None) -> list:
    """Stage keys from source to consumer: every input before the stage that reads it (post-order).

    ``parents`` maps a key to the key of the iterator that called it, read from
    the trace's ``parent_id`` (see :func:`parent_keys`); a key without an entry
    falls back on its path. The path can mislead: ``cache()`` runs as
    ``...::MemoryCache`` and, inside it, ``...::MemoryCacheImpl``, whose path
    makes it look like a sibling, not an input, of ``MemoryCache``.

    >>> keys = {("Shuffle",), ("Shuffle", "MemoryCache"), ("Shuffle", "MemoryCacheImpl"),
    ...         ("Shuffle", "MemoryCacheImpl", "Range")}
    >>> parents = {("Shuffle", "MemoryCacheImpl"): ("Shuffle", "MemoryCache")}
    >>> [k[-1] for k in order_stages(keys, {}, parents)]
    ['Range', 'MemoryCacheImpl', 'MemoryCache', 'Shuffle']
    """
    children = defaultdict(list)
    tops = []
    for key in keys:
        parent = parents[key] if parents is not None and key in parents else _parent_key(key)
        (children[parent] if parent in keys and parent != key else tops).append(key)

    def rank(key):
        m = _INDEX.match(key[-2]) if len(key) > 1 else None
        return (int(m.group(2)) if m else -1, first_seen.get(key, 0))

    out: list = []

    def visit(key):
        if key in out:
            return
        for child in sorted(children[key], key=rank):
            visit(child)
        out.append(key)

    for top in sorted(tops, key=rank):
        visit(top)
    return out


def parent_keys(events: list[Event], calls: list[int], key_of_id: dict) -> dict:
    """Per stage key, the key of the iterator that called it (most of its calls agree), from ``parent_id``."""
    votes: dict = defaultdict(Counter)
    for i in calls:
        key = key_of_id.get(events[i].stat("id"))
        parent = key_of_id.get(events[i].stat("parent_id"))
        if key is not None and parent is not None and parent != key:
            votes[key][parent] += 1
    return {key: counts.most_common(1)[0][0] for key, counts in votes.items()}


def display_names(keys: list) -> dict:
    """A short unique name per stage: its last component, longer only where two stages would clash."""
    def text(key, k, marks=False):
        parts = key[-k:] if marks else [p.replace("[*]", "") for p in key[-k:]]
        return "/".join(parts)

    names = {}
    for key in keys:
        for k in range(1, len(key) + 1):
            mine = text(key, k)
            if all(text(other, k) != mine for other in keys if other != key):
                break
        else:
            mine = text(key, len(key), marks=True)
        names[key] = mine if len(mine) <= NAME_LIMIT else "…" + mine[-(NAME_LIMIT - 1):]
    return names


def _op(node: str) -> str:
    """``BatchDatasetV2:4`` -> ``batch``; ``ParallelMapDatasetV2:1`` -> ``map``."""
    base = re.sub(r"V\d+$", "", node.split(":")[0].split("/")[-1].replace("Dataset", ""))
    return {"ParallelMap": "map", "ParallelBatch": "batch", "ParallelInterleave": "interleave"}.get(
        base, re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower())


#: The tf.data option behind each fusion, and whether it is on by default (tf.data.experimental.OptimizationOptions).
FUSIONS = {("map", "batch"): ("map_and_batch_fusion", True),
           ("shuffle", "repeat"): ("shuffle_and_repeat_fusion", True),
           ("map", "map"): ("map_fusion", False), ("filter", "filter"): ("filter_fusion", False),
           ("map", "filter"): ("map_and_filter_fusion", False)}


#: What the two iterators of a cache() do, said once per cache.
CACHE_NOTES = {
    "MemoryCache": N_("cache() runs as two iterators: {name}, which the stage after it calls, and inside it "
                    "{name}Impl, which on the first pass stores each element of its input in memory and on later "
                    "passes reads them back from memory. Both only hand elements over: the work is upstream."),
    "FileCache": N_("cache(filename) runs as two iterators: {name}, which the stage after it calls, and inside it "
                  "{name}Impl, which on the first pass writes each element of its input to the cache files and on "
                  "later passes reads them back from the files."),
}

#: Iterators that only hand over elements another stage made (Timeline.buffer_stages): a prefetch buffer, an
#: in-memory cache's two iterators, and the outer iterator of a file cache (its FileCacheImpl reads the files).
#: Stages that start a call of their function only while fewer than ``parallelism`` are in flight.
CALL_BOUNDED = ("ParallelMap", "MapAndBatch")
BUFFERS = ("Prefetch", "MemoryCache", "MemoryCacheImpl", "FileCache")


def rewrite_notes(stage_nodes: dict, order: list, names: dict, parallelism: dict | None = None) -> list[str]:
    """One sentence per graph rewrite visible in the iterator names, in stage order.

    ``parallelism`` (stage name -> the most calls it allowed at once, from the
    profile) tells a ``MapAndBatch`` fused from a plain ``map`` that TensorFlow
    first made parallel (``map_parallelization`` runs before
    ``map_and_batch_fusion``; the fused stage then starts several calls) from
    one that runs a call at a time (a function with state, the option off).

    >>> key = ("MapAndBatch",)
    >>> rewrite_notes({key: {"fused(MapDataset:1,BatchDatasetV2:2)"}}, [key], {key: "MapAndBatch"},
    ...               {"MapAndBatch": 2})[0]
    'TensorFlow made a plain map parallel: the stage MapAndBatch ran up to 2 calls at once (map_parallelization, on by default for functions without state).'
    """
    notes = []
    for key in order:
        kind, name = _bare(key[-1]), names[key]
        for node in sorted(stage_nodes.get(key, ())):
            if node.startswith("fused("):
                parts = node[len("fused("):-1].split(",")
                ops = [_op(n) for n in parts]
                plain_map = any(p.split(":")[0].split("/")[-1] == "MapDataset" for p in parts)
                calls = (parallelism or {}).get(name, 0)
                if kind == "MapAndBatch" and plain_map and calls > 1:  # made parallel, then fused
                    notes.append(_("TensorFlow made a plain map parallel: the stage {name} ran up to {calls} calls "
                                   "at once (map_parallelization, on by default for functions without state)."
                                   ).format(name=name, calls=calls))
                notes.append(_fusion_note(ops, name))
                if kind.startswith("ParallelMap") and "map" in ops and "ParallelMap" not in node:
                    notes.append(_(PARALLEL_NOTE).format(name=name))
            elif node.startswith("inject/prefetch"):
                notes.append(_("TensorFlow added a prefetch at the end of the pipeline: the stage {name} "
                               "(inject_prefetch, on by default).").format(name=name))
            elif kind.startswith("ParallelMap") and node.startswith("MapDataset"):
                notes.append(_(PARALLEL_NOTE).format(name=name))
        if kind in CACHE_NOTES:
            notes.append(_(CACHE_NOTES[kind]).format(name=name))
        if kind == "Generator":
            notes.append(_("Dataset.from_generator runs as a FlatMap over a Generator: your Python "
                           "generator's time shows in {name}.").format(name=name))
    return list(dict.fromkeys(notes))


#: The note on a plain map that TensorFlow made parallel ({name}: the stage).
PARALLEL_NOTE = N_("TensorFlow made a plain map parallel: the stage {name} (map_parallelization, on by default for "
                   "functions without state).")


def _fusion_note(ops: list[str], name: str) -> str:
    """The note on ops fused into the stage ``name``, naming the option that did it (:data:`FUSIONS`)."""
    fused = ops[0] if ops else ""
    for op in ops[1:]:
        # Translators: two op names (code, e.g. "map" and "batch"); the first may itself be "map and filter".
        fused = _("{first} and {second}").format(first=fused, second=op)
    option, default = FUSIONS.get(tuple(ops), (None, False))
    if option is None:
        return _("TensorFlow fused {ops} into one stage, {name} (a graph rewrite).").format(ops=fused, name=name)
    if default:
        return _("TensorFlow fused {ops} into one stage, {name} ({option}, on by default).").format(
            ops=fused, name=name, option=option)
    return _("TensorFlow fused {ops} into one stage, {name} ({option}).").format(ops=fused, name=name, option=option)


def _markers(events: list[Event]) -> tuple[Event, list[Event], dict]:
    """The ``tutor.iterator`` marker, the ``tutor.next`` markers by step, the ``tutor.step`` markers by step."""
    start = [e for e in events if e.name == "tutor.iterator"]
    if not start:
        raise RuntimeError(_("tutor.profile: the profile holds none of the run's own markers; TensorFlow's profiler "
                             "recorded nothing. Call again; if it persists, restart the kernel."))
    trains = {int(e.stat("step", 0)): e for e in events if e.name == "tutor.step"}
    # a get_next that found the end of the dataset has no step after it: it is not a step
    nexts = sorted((e for e in events if e.name == "tutor.next" and int(e.stat("step", 0)) in trains),
                   key=lambda e: int(e.stat("step", 0)))
    return start[0], nexts, trains


def _parallelism(events: list[Event], graph: CallGraph, stage_of: dict, names: dict) -> dict:
    """Per stage name: the most calls of its function it allowed at once (the ``parallelism`` its calls report).

    Only the stages whose ``parallelism`` counts function calls in flight
    (``ParallelMap`` and ``MapAndBatch``, TensorFlow's ``num_calls_``) are
    read. An autotuned stage reports the value it had at each call; the largest
    is the bound over the run.
    """
    most: dict = {}
    for i in graph.calls:
        value = events[i].stat("parallelism")
        key = stage_of.get(i)
        if (key in names and _bare(key[-1]).startswith(CALL_BOUNDED) and isinstance(value, int)
                and value > 0):
            most[names[key]] = max(most.get(names[key], 0), value)
    return most


def _cap_runs(event_rows: list, runs: list, parallelism: dict) -> None:
    """Cut the function runs of each stage so that no more overlap than the stage allows (in place).

    A stage with ``parallelism`` p starts a run only when fewer than p are in
    flight, and a run leaves the count when it hands over its result. Its
    thread's executor event can end later (freeing tensors, or waiting for a
    core on a busy machine); that tail is not the function running, and left
    in, it would draw a one-at-a-time map on two lanes.
    """
    for stage, most in parallelism.items():
        sel = [n for n, row in enumerate(event_rows) if runs[n] and row[0] == stage]
        if len(sel) < 2:
            continue
        ends = cap_overlap(np.array([event_rows[n][4] for n in sel]), np.array([event_rows[n][5] for n in sel]), most)
        for n, end in zip(sel, ends.tolist()):
            event_rows[n] = event_rows[n][:5] + (end,)


def build_timeline(events: list[Event], *, label: str = "", meta: dict | None = None) -> Timeline:
    """Turn the events of one profiled run (with its ``tutor.*`` markers) into a Timeline.

    Times are seconds since the iterator was created (the ``tutor.iterator``
    marker), as in :func:`tutor.timeline.record`. A call that started after the
    last step ended is left out; one still running then is cut at that end.
    """
    start, nexts, trains = _markers(events)
    sec = lambda ps: (ps - start.start) / 1e12  # noqa: E731
    step_rows = []
    for s, nx in enumerate(nexts):
        step_rows.append((s, sec(nx.start) if s else 0.0, sec(nx.end), sec(max(trains[s].end, nx.end))))
    total = step_rows[-1][3] if step_rows else 0.0

    graph = CallGraph(events, nexts)
    key_of_id = {events[i].stat("id"): stage_key(events[i].name) for i in graph.calls}
    stage_of = {i: key_of_id.get(graph.owner_id(i)) for i in graph.rows}
    rows = [i for i in graph.rows if stage_of[i] and sec(events[i].start) < total]
    first_seen: dict = {}
    for i in rows:
        first_seen.setdefault(stage_of[i], events[i].start)
    parents_of_key = parent_keys(events, graph.calls, key_of_id)
    order = order_stages(set(first_seen), first_seen, parents_of_key)
    names = display_names(order)
    epochs = call_epochs(events, graph, rows, stage_of)

    index = {i: n for n, i in enumerate(rows)}
    event_rows, parents, runs = [], [], []
    first_call: dict = {}  # step -> epoch of the earliest call of the last stage that served it
    for i in rows:
        step = graph.step_of.get(i, -1)
        event_rows.append((names[stage_of[i]], step, step, epochs[i], max(sec(events[i].start), 0.0),
                           min(sec(graph.end(i)), total)))
        parents.append(index.get(graph.parent.get(i, -1), -1))
        runs.append(i in graph.work)
        if stage_of[i] == order[-1] and step >= 0 and step not in first_call:
            first_call[step] = epochs[i]
    parallelism = _parallelism(events, graph, stage_of, names)
    _cap_runs(event_rows, runs, parallelism)
    epoch = 0
    for s, r in enumerate(step_rows):
        epoch = first_call.get(s, epoch)
        event_rows.append((CONSUMER, s, s, epoch, r[2], r[3]))
        parents.append(-1)
        runs.append(False)

    nodes = defaultdict(set)
    for i in graph.calls:
        if events[i].stat("name") and i in stage_of:
            nodes[stage_of[i]].add(str(events[i].stat("name")))
    inputs = defaultdict(list)
    for k in order:
        parent = parents_of_key.get(k, _parent_key(k))
        if parent in names and parent != k:
            inputs[names[parent]].append(names[k])
    meta = dict(meta or {})
    meta.update(source="profile", notes=rewrite_notes(nodes, order, names, parallelism),
                parallelism=parallelism,
                iterators={names[k]: "::".join(("Iterator", "Root") + k) for k in order},
                dataset_nodes={names[k]: sorted(nodes.get(k, ())) for k in order},
                stage_inputs={names[k]: inputs.get(names[k], []) for k in order},
                buffer_stages=[names[k] for k in order if _bare(k[-1]) in BUFFERS])
    why = unknown_epochs(order)
    if why:
        meta["epochs_unknown"] = why
    return Timeline(make_events(event_rows), make_steps(step_rows), [names[k] for k in order], label=label,
                    model=False, meta=meta, parent=np.asarray(parents, dtype=np.int64),
                    function_run=np.asarray(runs, dtype=bool))
