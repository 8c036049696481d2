"""Which iterator call waited for which: nesting on a thread, and hand-overs across tf.data buffers.

:class:`CallGraph` takes the events of one profiled run (see :mod:`.xspace`)
and the consumer's ``tutor.next`` markers, and works out:

* ``roots``: the consumer's ``Iterator::Root`` calls, one or more per step,
  and the iterator id of the pipeline they belong to (other pipelines that
  happened to run in the same program are left out);
* ``calls``: every ``GetNext`` call of an iterator of that pipeline;
* ``work``: the runs of an asynchronous stage's function (a parallel
  ``map``'s user function runs on a thread pool, outside any iterator call),
  one row per run from its first executor event to its last (``end``);
* ``parent``: for each call or run, the call that waited for it. On one
  thread that is the enclosing call; across a buffer it is the consumer-side
  call whose ``XConsume`` event has the ``element_id`` of the ``XProduce``
  event the call ran in, the rule of TensorFlow's ``ConnectTfDataEvents``;
* ``step_of``: the consumer step each call served (reachable from that
  step's root calls), absent for work still in a buffer when the run ended.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from .xspace import EXECUTOR, FUNCTION_CALLS, Event


def _produce(ev: Event) -> bool:
    return ev.name.endswith("Produce")


class CallGraph:
    """The calls of one pipeline in one profiled run, each linked to the call that waited for it."""

    def __init__(self, events: list[Event], nexts: list[Event]):
        self.events = events
        self._find_roots(nexts)
        parent_of = {ev.stat("id"): ev.stat("parent_id") for ev in events if ev.name.startswith("Iterator::")}
        members = {self.root_id}
        for it_id in parent_of:
            chain, cur = [], it_id
            while cur is not None and cur not in members and len(chain) < 200:
                chain.append(cur)
                cur = parent_of.get(cur)
            if cur in members:
                members.update(chain)
        self.calls = [i for i, ev in enumerate(events) if ev.name.startswith("Iterator::")
                      and ev.name != "Iterator::Root" and ev.stat("id") in members]
        self._rows = set(self.calls) | set(self.roots)
        self._link_buffers()
        self._find_work()
        self._set_parents()
        self._set_steps()

    # ------------------------------------------------------------------ parts
    def _up(self, i: int, stop) -> int:
        """The nearest enclosing event of event ``i`` for which ``stop(index)`` holds, or -1."""
        j = self.events[i].enclosing
        while j >= 0 and not stop(j):
            j = self.events[j].enclosing
        return j

    def _row_or_produce(self, j: int) -> bool:
        return j in self._rows or _produce(self.events[j])

    def _find_roots(self, nexts: list[Event]) -> None:
        self.roots, self.root_step = [], {}
        for i, ev in enumerate(self.events):
            if ev.name == "Iterator::Root":
                for s, nx in enumerate(nexts):
                    if nx.start <= ev.start and ev.end <= nx.end:
                        self.roots.append(i)
                        self.root_step[i] = s
                        break
        counts = Counter(self.events[i].stat("id") for i in self.roots)
        self.root_id = counts.most_common(1)[0][0] if counts else None
        self.roots = [i for i in self.roots if self.events[i].stat("id") == self.root_id]

    def _link_buffers(self) -> None:
        ev = self.events
        self.produce_child = {}  # XProduce event -> the first iterator call it made
        for i in self.calls:
            j = self._up(i, self._row_or_produce)
            first = j not in self.produce_child or ev[i].start < ev[self.produce_child[j]].start
            if j >= 0 and _produce(ev[j]) and first:
                self.produce_child[j] = i
        produced = defaultdict(list)  # (consumer-side iterator id, element id) -> XProduce events
        for j, i in self.produce_child.items():
            produced[(ev[i].stat("parent_id"), ev[j].stat("element_id"))].append(j)
        self.consumer_of = {}  # XProduce event -> the consumer-side call that received its element
        for i, e in enumerate(ev):
            if e.name.endswith("Consume") and e.stat("element_id") is not None:
                c = self._up(i, lambda j: ev[j].name.startswith("Iterator::"))
                if c >= 0:
                    for j in produced.get((ev[c].stat("id"), e.stat("element_id")), ()):
                        self.consumer_of[j] = c

    def _find_work(self) -> None:
        ev = self.events
        run_of = {}  # function run id -> the XProduce event that started it
        for i, e in enumerate(ev):
            if e.name in FUNCTION_CALLS:
                j = self._up(i, self._row_or_produce)
                if j in self.produce_child:
                    run_of[e.stat("id")] = j
        # One function run can be many executor events (a while loop hops between threads): keep the first
        # as the run's row, stretched from the first start to the last end; the others point to it.
        self.work, self.work_end, self.member_of = {}, {}, {}
        first_of: dict = {}
        for i in sorted((i for i, e in enumerate(ev) if e.name == EXECUTOR and e.stat("id") in run_of),
                        key=lambda i: ev[i].start):
            run = ev[i].stat("id")
            head = first_of.setdefault(run, i)
            self.member_of[i] = head
            if head == i:
                self.work[i] = run_of[run]
            self.work_end[head] = max(self.work_end.get(head, ev[i].end), ev[i].end)
        self._rows |= set(self.member_of)

    def _set_parents(self) -> None:
        self.parent = {}
        for i in self.calls:
            j = self._up(i, self._row_or_produce)
            if j >= 0 and _produce(self.events[j]):
                j = self.consumer_of.get(j, -1) if self.produce_child.get(j) == i else -1
            self.parent[i] = self.member_of.get(j, j)
        for i, j in self.work.items():
            self.parent[i] = self.consumer_of.get(j, -1)

    def _set_steps(self) -> None:
        kids = defaultdict(list)
        for i, j in self.parent.items():
            kids[j].append(i)
        self.step_of = {}
        for r in self.roots:
            todo = list(kids[r])
            while todo:
                i = todo.pop()
                if i not in self.step_of:
                    self.step_of[i] = self.root_step[r]
                    todo.extend(kids[i])

    # ---------------------------------------------------------------- answers
    def owner_id(self, i: int):
        """For a row: the id of the iterator whose stage it belongs to (an async stage owns its function runs)."""
        if i in self.work:
            return self.events[self.produce_child[self.work[i]]].stat("parent_id")
        return self.events[i].stat("id")

    def end(self, i: int) -> int:
        """When row ``i`` ended, in picoseconds (a function run: its last executor event)."""
        return self.work_end.get(i, self.events[i].end)

    @property
    def rows(self) -> list[int]:
        """Every call and function run of the pipeline, in time order."""
        return sorted(set(self.calls) | set(self.work), key=lambda i: self.events[i].start)
