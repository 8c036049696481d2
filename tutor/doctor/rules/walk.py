"""Walking the stages (iteratively, nearest first) and the small predicates the rules share."""
from __future__ import annotations

from collections import deque
from typing import Callable

from ..labels import AUTOTUNE
from ..stage import Stage


def _nearest(stage: Stage, step: str, want: Callable[[Stage], bool], stop: Callable[[Stage], bool]) -> Stage | None:
    seen, todo = {id(stage)}, deque(getattr(stage, step))
    while todo:  # breadth first: the nearest match wins, at any depth, without recursion
        s = todo.popleft()
        if id(s) in seen:
            continue
        seen.add(id(s))
        if want(s):
            return s
        if not stop(s):
            todo.extend(getattr(s, step))
    return None


def upstream(stage: Stage, want: Callable[[Stage], bool], stop: Callable[[Stage], bool] = lambda s: False) -> Stage | None:
    """The nearest stage before ``stage`` for which ``want`` holds, not looking past ``stop``."""
    return _nearest(stage, "inputs", want, stop)


def downstream(stage: Stage, want: Callable[[Stage], bool], stop: Callable[[Stage], bool] = lambda s: False) -> Stage | None:
    """The nearest stage after ``stage`` for which ``want`` holds, not looking past ``stop``."""
    return _nearest(stage, "consumers", want, stop)


def is_(*kinds: str) -> Callable[[Stage], bool]:
    return lambda s: s.kind in kinds


def mine(s: Stage) -> bool:
    """The user wrote this stage (not a library utility such as image_dataset_from_directory)."""
    return s.library is None


def repeats(s: Stage) -> bool:
    return (s.kind == "repeat" and s.params.get("count") not in (0, 1)) or (
        s.kind == "shuffle_and_repeat" and s.params.get("count") not in (0, 1))


def infinite_repeat(s: Stage) -> bool:
    return s.kind in ("repeat", "shuffle_and_repeat") and s.params.get("count") == -1


def finite_take(s: Stage) -> bool:
    return s.kind == "take" and s.params.get("count") not in (None, -1)


def finite_zip(s: Stage) -> bool:
    """A zip that ends with its shortest input: an endless input behind it (``from_tensors(x).repeat()``, a
    ``Counter()``) repeats nothing, as long as one input is not endless."""
    if s.kind != "zip":
        return False
    return (s.cardinality is not None and s.cardinality >= 0) or any(
        i.cardinality is not None and i.cardinality != -1 for i in s.inputs)


def reshuffles(s: Stage) -> bool:
    return s.kind in ("shuffle", "shuffle_and_repeat") and s.params.get("reshuffle_each_iteration", True) is not False


def parallel(s: Stage) -> bool:
    if "num_parallel_calls" not in s.params:
        return False
    n = s.params["num_parallel_calls"]
    return n is None or n == AUTOTUNE or n > 1  # None: a tensor, not a constant; assume it is parallel


def random_map(s: Stage) -> bool:
    """A map whose output changes between epochs (seeds from a random dataset count too)."""
    if s.kind != "map":
        return False
    return s.random_fn or (s.element_seeded and upstream(s, lambda u: u.op.startswith("RandomDataset")) is not None)
