"""The doctor's rules: each looks at the stages and returns findings.

Every rule is deliberately conservative: it speaks only when the graph shows
the mistake, so the lessons' good pipelines come back clean. Rules about a
stage's own code skip the stages a library utility built (``Stage.library``):
a finding the user cannot act on is noise. Each finding cites the TensorFlow
documentation sentence it rests on (:data:`DOCS`).
"""
from __future__ import annotations

from typing import Callable, Iterator

from ..graph import Stage
from ..report import Finding
from . import code, order, speed
from .code import DEPRECATED_OPS, LARGE_SOURCE_BYTES
from .docs import DOCS
from .order import COMMON_SEEDS, SMALL_BUFFER_FRACTION, TINY_BUFFER
from .speed import VECTORIZABLE_OPS, stateful_ops, work_ops
from .walk import downstream, upstream

__all__ = ["COMMON_SEEDS", "DEPRECATED_OPS", "DOCS", "LARGE_SOURCE_BYTES", "RULES", "SMALL_BUFFER_FRACTION",
           "TINY_BUFFER", "VECTORIZABLE_OPS", "downstream", "run", "stateful_ops", "upstream", "work_ops"]

#: rule id -> rule function, in the order the report lists them.
RULES: dict[str, Callable[[list[Stage]], Iterator[Finding]]] = {
    "shuffle-after-batch": order.shuffle_after_batch,
    "small-shuffle-buffer": order.small_shuffle_buffer,
    "repeat-before-shuffle": order.repeat_before_shuffle,
    "shuffle-before-cache": order.shuffle_before_cache,
    "random-map-before-cache": order.random_map_before_cache,
    "cache-after-infinite-repeat": order.cache_after_infinite_repeat,
    "cache-to-file": order.cache_to_file,
    "split-after-reshuffle": order.split_after_reshuffle,
    "python-random-in-map": code.python_random_in_map,
    "python-before-service": code.python_before_service,
    "vectorizable-map-before-batch": speed.vectorizable_map_before_batch,
    "map-not-parallel": speed.map_not_parallel,
    "sequential-file-reading": speed.sequential_file_reading,
    "generator-source": speed.generator_source,
    "large-in-memory-source": code.large_in_memory_source,
    "deprecated-experimental": code.deprecated_experimental,
    "no-prefetch-at-end": speed.no_prefetch_at_end,
}


def run(stages: list[Stage], ignore: set[str]) -> list[Finding]:
    """Every finding of every rule not in ``ignore``, each with its documentation sentence, by stage."""
    findings = []
    for rule_id, rule in RULES.items():
        if rule_id in ignore:
            continue
        for f in rule(stages):
            if not f.doc:
                f.doc, f.quote = DOCS[rule_id]
            findings.append(f)
    findings.sort(key=lambda f: f.stage.number)
    return findings
