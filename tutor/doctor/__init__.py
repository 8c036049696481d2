"""The pipeline doctor: finds the tf.data mistakes the lessons warn about.

>>> import tutor
>>> report = tutor.doctor.check(tf.data.Dataset.range(100).batch(10).shuffle(10))
>>> report.rules
['shuffle-after-batch', 'no-prefetch-at-end']

``check`` reads the pipeline's structure from the dataset itself (its op graph,
via ``tf.raw_ops.DatasetToGraphV2``, or its Python objects when the graph
would copy too much data; see :mod:`tutor.doctor.graph`); it never iterates
the dataset, so endless pipelines are fine, and an op it does not know is read
as a stage of its own kind. Stages that a library utility built
(``image_dataset_from_directory``, ``rejection_resample``) are never blamed for
their own code. Every finding names the stage, says why it matters, gives the
fix and quotes the TensorFlow documentation it rests on. The rules:

Order and randomness (correctness):

* ``shuffle-after-batch``: a shuffle fed by batches, unless the examples were
  shuffled before the batch and no ``cache`` froze those batches, or a map took
  the batches apart (``batch(seq_len + 1).map(split_input_target)``).
* ``small-shuffle-buffer``: a buffer under 10% of the size that reaches it
  (looking through ``repeat``), or under 1000 elements when the size is unknown.
* ``repeat-before-shuffle``: a shuffle fed by ``repeat()`` or ``repeat(n > 1)``.
* ``shuffle-before-cache``: a cache stores a reshuffling shuffle's first order
  (or the batches made from it) and nothing shuffles after it.
* ``random-map-before-cache``: a cache fed by a map that draws random numbers.
* ``cache-after-infinite-repeat``: a cache whose input never ends.
* ``cache-to-file``: ``cache(filename)`` outlives the run and goes stale (said once).
* ``split-after-reshuffle``: ``take``/``skip`` after a shuffle that reshuffles
  each iteration, with no ``repeat`` between them.
* ``python-random-in-map``: Python's ``random`` or ``np.random`` in a map
  function (it ran once, at trace time).
* ``python-before-service``: py_function/numpy_function/from_generator in the
  pipeline sent to the tf.data service with ``ds.apply(distribute(...))``.

Speed (performance):

* ``vectorizable-map-before-batch``: a map, later batched (no cache between),
  whose work on the element is only element-wise maths and batch-friendly image
  ops; decoding, resizing, slicing the element, control flow and Python never count.
* ``map-not-parallel``: a map that decodes, resizes, parses, tokenises or runs
  Python, with no ``num_parallel_calls``, that TensorFlow will not parallelize
  on its own (its function is stateful, or the options turn that off).
* ``sequential-file-reading``: ``flat_map(TFRecordDataset)``, ``interleave``
  without ``num_parallel_calls`` or ``TFRecordDataset(files)`` without
  ``num_parallel_reads``, on more than one file.
* ``generator-source``: ``from_generator`` that yields the data itself
  (a generator of scalar indices or file names, the index trick, is fine).
* ``large-in-memory-source``: 512 MB or more of arrays embedded by ``from_tensor_slices``.
* ``deprecated-experimental``: ``tf.data.experimental`` calls that build their
  own ops and have core replacements (``parallel_interleave``, ``map_and_batch``,
  ``shuffle_and_repeat``).
* ``no-prefetch-at-end``: the last stage (looking through ``take`` and options) is not a prefetch.

With ``profile=`` (a :class:`tutor.timeline.Timeline`), measured findings
``input-bound`` or ``input-keeps-up`` are added; see :mod:`tutor.doctor.measured`.
"""
from __future__ import annotations

from typing import Any, Iterable

import tensorflow as tf

from .._validate import require_dataset
from .functions import PY_FUNCTION_OPS, STATEFUL_RANDOM_OPS
from .graph import GRAPH_BYTES_LIMIT, Stage, Stages, read_pipeline
from .measured import MEASURED_RULES, match_stage, measured_findings, require_timeline
from .report import NO_PROBLEMS, Finding, Report
from .rules import DOCS, RULES, SMALL_BUFFER_FRACTION, VECTORIZABLE_OPS, run

__all__ = [
    "DOCS", "Finding", "GRAPH_BYTES_LIMIT", "MEASURED_RULES", "NO_PROBLEMS", "PY_FUNCTION_OPS", "Report", "RULES",
    "SMALL_BUFFER_FRACTION", "STATEFUL_RANDOM_OPS", "Stage", "Stages", "VECTORIZABLE_OPS", "check", "match_stage",
    "read_pipeline",
]


def check(dataset: tf.data.Dataset, *, ignore: Iterable[str] = (), profile: Any = None) -> Report:
    """Read ``dataset``'s stages and report the mistakes found, with fixes.

    Parameters
    ----------
    dataset : tf.data.Dataset
        The pipeline to examine. It is never iterated.
    ignore : iterable of str
        Rule ids to skip, e.g. ``("no-prefetch-at-end",)``; see ``RULES`` and ``MEASURED_RULES``.
    profile : tutor.timeline.Timeline, optional
        A timeline of a run of this pipeline (``tutor.profile(ds, steps=20)``,
        ``tutor.timeline.record`` or ``simulate``): adds a measured finding that
        says whether the input is the bottleneck, and which stage holds the time.

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
    if profile is not None:
        profile = require_timeline(profile, "tutor.doctor.check")
    if isinstance(ignore, str):
        ignore = (ignore,)
    ignore = set(ignore)
    known = set(RULES) | set(MEASURED_RULES)
    unknown = sorted(ignore - known)
    if unknown:
        raise ValueError(f"tutor.doctor.check: unknown rule id(s) {unknown}; the rules are {sorted(known)}.")
    stages = read_pipeline(dataset)
    findings = run(stages, ignore)
    if profile is not None:
        for f in measured_findings(stages, profile, findings):
            if f.rule not in ignore:
                f.doc, f.quote = f.doc or DOCS[f.rule][0], f.quote or DOCS[f.rule][1]
                findings.append(f)
    return Report(findings, stages)
