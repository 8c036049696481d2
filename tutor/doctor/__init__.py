"""The pipeline doctor: finds the tf.data mistakes the lessons warn about.

>>> import tutor
>>> report = tutor.doctor.check(tf.data.Dataset.range(100).batch(10).shuffle(10))
>>> report.rules
['shuffle-after-batch', 'no-prefetch-at-end']

``check`` reads the pipeline's structure from the dataset itself (its op graph,
via ``tf.raw_ops.DatasetToGraphV2``); it never iterates the dataset, so endless
pipelines are fine. The rules and their heuristics:

* ``shuffle-after-batch``: a shuffle fed by batches (with no shuffle before the batch).
* ``small-shuffle-buffer``: a buffer under 10% of a dataset whose size TensorFlow knows.
  Unknown sizes (files, generators, filter) are never flagged.
* ``repeat-before-shuffle``: a shuffle fed by ``repeat()`` or ``repeat(n > 1)``.
* ``random-map-before-cache``: a cache fed by a map that draws random numbers
  (stateful random ops, or stateless ones whose seed is not a constant).
* ``cache-after-infinite-repeat``: a cache whose input never ends.
* ``vectorizable-map-before-batch``: a map, later batched (with no cache in between),
  whose function uses only element-wise maths and batch-friendly image ops
  (see ``VECTORIZABLE_OPS``) plus shape and random helpers. Anything else
  (decoding, resizing, slicing, control flow, py_function) is never flagged.
* ``py-function-in-parallel-map``: ``tf.py_function``/``tf.numpy_function`` in a
  map with ``num_parallel_calls`` other than 1.
* ``no-prefetch-at-end``: the last stage (looking through ``take`` and options) is not a prefetch.
* ``split-after-reshuffle``: ``take``/``skip`` after a shuffle that reshuffles each
  iteration, with no ``repeat`` between them.
"""
from __future__ import annotations

from typing import Iterable

import tensorflow as tf

from .._validate import require_dataset
from .functions import PY_FUNCTION_OPS, STATEFUL_RANDOM_OPS
from .graph import Stage, read_pipeline
from .report import NO_PROBLEMS, Finding, Report
from .rules import RULES, SMALL_BUFFER_FRACTION, VECTORIZABLE_OPS

__all__ = [
    "Finding", "NO_PROBLEMS", "PY_FUNCTION_OPS", "Report", "RULES", "SMALL_BUFFER_FRACTION", "STATEFUL_RANDOM_OPS",
    "Stage", "VECTORIZABLE_OPS", "check", "read_pipeline",
]


def check(dataset: tf.data.Dataset, *, ignore: Iterable[str] = ()) -> Report:
    """Read ``dataset``'s stages and report the mistakes found, with fixes.

    Parameters
    ----------
    dataset : tf.data.Dataset
        The pipeline to examine. It is never iterated.
    ignore : iterable of str
        Rule ids to skip, e.g. ``("no-prefetch-at-end",)``; see ``RULES``.

    Returns
    -------
    Report
        A list of :class:`Finding` (empty when nothing is wrong) that prints as
        a readable report and renders as one in Jupyter.

    Examples
    --------
    >>> check(tf.data.Dataset.range(100).shuffle(100).batch(10).prefetch(tf.data.AUTOTUNE))
    Pipeline doctor: 4 stages read.
    ...
    No problems found.
    """
    require_dataset(dataset, "tutor.doctor.check")
    if isinstance(ignore, str):
        ignore = (ignore,)
    ignore = set(ignore)
    unknown = sorted(ignore - set(RULES))
    if unknown:
        raise ValueError(f"tutor.doctor.check: unknown rule id(s) {unknown}; the rules are {sorted(RULES)}.")
    stages = read_pipeline(dataset)
    findings = [f for rule_id, rule in RULES.items() if rule_id not in ignore for f in rule(stages)]
    findings.sort(key=lambda f: f.stage.number)
    return Report(findings, stages)
