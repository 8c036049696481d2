"""simulate: a pure-NumPy model of a pull-based tf.data pipeline.

The model follows what tf.data does, element by element:

* The consumer asks for element ``i`` when step ``i - 1`` ends.
* A *synchronous* stage (a plain ``map``, the source) does its work only when
  the stage after it asks, so without any buffer nothing overlaps:
  ``total = n * (sum(costs) + step_time)``.
* An *asynchronous* stage with ``capacity`` slots (``prefetch(capacity)``, or
  ``map(num_parallel_calls=capacity)`` whose slots each have a worker) asks
  its input for element ``i`` as soon as the previous pull returned and
  element ``i - capacity`` has been handed downstream. It hands elements on in
  order (``deterministic=True``).

Hand-checkable results (the tests check them exactly):

* one stage costing ``P``, ``prefetch(B >= 1)``, step ``t``:
  ``total = P + t + (n - 1) * max(P, t)``: after the first element, the slower
  side sets the pace;
* ``map(num_parallel_calls=p)`` costing ``P`` and an instant consumer:
  ``total = ceil(n / p) * P``.

The model ignores thread start-up, Python overhead and the number of CPU
cores; the lessons put it next to recorded runs to show where reality differs.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._validate import require_positive_int, require_seconds
from ..i18n import gettext as _
from .events import Timeline
from .schema import CONSUMER, make_events, make_steps


def _parse_stages(stages: Sequence[Any], parallel: int) -> list[tuple[str, float, int]]:
    if isinstance(stages, (str, bytes)) or not isinstance(stages, (list, tuple)) or len(stages) == 0:
        raise TypeError(
            _("simulate expects stages as a non-empty list such as [('read', 0.01), ('decode', 0.02)] "
              "(name, seconds per element), got {stages!r}.").format(stages=stages)
        )
    parsed = []
    for k, item in enumerate(stages):
        if isinstance(item, dict):
            name, cost, par = item.get("name", f"stage{k}"), item.get("cost"), item.get("parallel", None)
        elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
            name, cost = item[0], item[1]
            par = item[2] if len(item) == 3 else None
        elif isinstance(item, (int, float, np.number)) and not isinstance(item, bool):
            name, cost, par = f"stage{k}", item, None
        else:
            raise TypeError(
                _("simulate: stage {k} must be seconds, (name, seconds), (name, seconds, parallel) or a dict "
                  "with 'name', 'cost' and optionally 'parallel'; got {item!r}.").format(k=k, item=item)
            )
        if not isinstance(cost, (int, float, np.number)) or isinstance(cost, bool) or cost < 0:
            raise ValueError(_("simulate: the cost of stage {name!r} must be seconds >= 0, got {cost!r}.")
                             .format(name=name, cost=cost))
        if par is None:
            par = 1 if k == 0 else parallel
        if isinstance(par, bool) or not isinstance(par, (int, np.integer)) or par < 1:
            raise ValueError(_("simulate: parallel for stage {name!r} must be a whole number >= 1, got {par!r}.")
                             .format(name=name, par=par))
        if k == 0 and par != 1:
            raise ValueError(_("simulate: the first stage is the source and runs on one thread; use parallel=1 for it."))
        parsed.append((str(name), float(cost), int(par)))
    return parsed


def simulate(stages: Sequence[Any], *, step_time: float = 0.0, steps: int = 10, prefetch: int = 0,
             parallel: int = 1, label: str = "") -> Timeline:
    """Predict the timeline of a pipeline from the cost of each stage.

    Parameters
    ----------
    stages : list
        From source to consumer. Each item is ``(name, seconds_per_element)``,
        ``(name, seconds, parallel)`` or a dict with ``name``, ``cost`` and
        optionally ``parallel``. The first stage is the source (one thread).
    step_time : float
        Seconds of work per consumer step.
    steps : int
        How many elements the consumer takes (one element per step).
    prefetch : int
        Buffer size of a ``prefetch`` at the end of the pipeline; 0 for none.
    parallel : int
        ``num_parallel_calls`` of every non-source stage that does not say its own;
        1 means an ordinary synchronous ``map``.
    label : str
        Shown in plots, always marked "(model)".

    Returns
    -------
    Timeline with ``model=True``.

    Examples
    --------
    >>> simulate([("map", 0.02)], step_time=0.01, steps=5).total_time   # no overlap
    0.15
    >>> round(simulate([("map", 0.02)], step_time=0.01, steps=5, prefetch=1).total_time, 6)
    0.11
    """
    steps = require_positive_int(steps, "steps", "simulate", maximum=100_000)
    # Translators: simulate's argument named in "{where}: {name} must be ...": keep "prefetch", say what 0 means.
    prefetch = require_positive_int(prefetch, _("prefetch (0 = no prefetch)"), "simulate", minimum=0)
    step_time = require_seconds(step_time, "step_time", "simulate")
    chain = _parse_stages(stages, parallel)
    names = [name for name, _cost, _par in chain]
    # (name, cost, capacity, asynchronous); a prefetch is an asynchronous stage with no work.
    spec = [(n, c, p, p > 1) for n, c, p in chain]
    if prefetch:
        spec.append(("prefetch", 0.0, int(prefetch), True))
    n, S = int(steps), len(spec)
    req = np.zeros((S, n))
    start = np.zeros((S, n))
    end = np.zeros((S, n))
    out = np.zeros((S, n))
    step_rows, event_rows = [], []
    consumer_free = 0.0

    def prev(a: np.ndarray, k: int, j: int) -> float:
        return float(a[k, j]) if j >= 0 else 0.0

    for i in range(n):
        req[S - 1, i] = consumer_free
        for k in range(S - 1, 0, -1):  # requests travel upstream
            _name, _cost, cap, is_async = spec[k]
            if is_async:
                req[k - 1, i] = max(prev(out, k - 1, i - 1), prev(out, k, i - cap))
            else:
                req[k - 1, i] = req[k, i]
        for k in range(S):  # elements travel downstream
            _name, cost, _cap, is_async = spec[k]
            available = req[0, i] if k == 0 else out[k - 1, i]
            if is_async:
                start[k, i] = available
                end[k, i] = start[k, i] + cost
                out[k, i] = max(req[k, i], end[k, i], prev(out, k, i - 1))
            else:
                start[k, i] = max(available, req[k, i], prev(end, k, i - 1))
                end[k, i] = start[k, i] + cost
                out[k, i] = end[k, i]
        got = out[S - 1, i]
        consumer_free = got + step_time
        step_rows.append((i, req[S - 1, i], got, consumer_free))
        for k, (name, cost, _cap, _async) in enumerate(spec[: len(chain)]):
            if cost > 0:
                event_rows.append((name, i, i, 0, start[k, i], end[k, i]))
        event_rows.append((CONSUMER, i, i, 0, got, consumer_free))
    meta = {"prefetch": int(prefetch), "parallel": {n_: p for n_, _cost, p in chain}}
    return Timeline(make_events(event_rows), make_steps(step_rows), names, label=label, model=True, meta=meta)
