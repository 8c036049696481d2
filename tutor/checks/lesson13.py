"""Exercises for lesson 13: scaling out with the tf.data service.

q1: the processing mode that never sends an element twice (checked on a real two-worker service).
q2: pay once with ``Dataset.save`` and ``Dataset.load``.
q3: a pipeline the service's workers can run anywhere: no Python before ``distribute``.

>>> from tutor.checks import lesson13 as ex
>>> ex.q1.check(" Distributed_Epoch ").passed
True
"""
from __future__ import annotations

import math
import os
import socket
from collections import Counter
from typing import Any

import numpy as np
import tensorflow as tf

from ..doctor import PY_FUNCTION_OPS
from ..i18n import N_
from ..i18n import gettext as _
from . import _read, _stages
from ._core import SETUP_AGAIN, fail, sentences, shorten
from .questions import Question

N_Q1 = 16
N_Q2 = 20
N_Q3 = 100
_STATIC = ("data", "file", "file_or_data", "hint")


# --------------------------------------------------------------------- q1
def _mode_name(answer: Any) -> str:
    """The answer as a lower-case mode or policy name; fails on anything that is not one.

    Case and spaces do not matter: ``" Distributed epoch "`` reads as ``"distributed_epoch"``.
    """
    policy = tf.data.experimental.service.ShardingPolicy
    if isinstance(answer, policy):
        return answer.name.lower()
    name = "_".join(_read.text(answer, _("the mode's name")).strip("'\"").replace("-", " ").split())
    if name in ("off", "dynamic", *_STATIC):
        return name
    return _read.choice(name, ("parallel_epochs", "distributed_epoch"))


def _check_mode(answer: Any) -> str:
    from ..service import LocalService, WorkerOrderDisplay

    name = _mode_name(answer)
    if name in _STATIC:
        # Translators: {policy} is a ShardingPolicy's name: DATA, FILE, HINT.
        fail(_("{policy} is a static sharding policy, not one of the two processing modes: it needs a fixed list "
               "of workers, and a worker restarted mid-job starts its shard again from the beginning. The question "
               "asks for 'parallel_epochs' or 'distributed_epoch'.").format(policy=name.upper()))
    mode = {"off": "parallel_epochs", "dynamic": "distributed_epoch"}.get(name, name)
    with LocalService(2, name="lesson13-check") as service:
        disp = WorkerOrderDisplay.from_service(service, n_elements=N_Q1, processing_mode=mode)
    visits = disp.visits
    if len(visits) and visits.max() > 1:
        first = int(np.argmax(visits > 1))
        # Translators: {mode} is a processing mode in quotes: 'parallel_epochs'.
        fail(_("with {mode!r}, element {first} arrived {visits} times ({n} arrivals for "
               "{elements} elements): in this mode every worker produces the whole dataset.").format(
            mode=mode, first=first, visits=int(visits[first]), n=len(disp.elements), elements=N_Q1))
    # Translators: {counts} is a Python list: how many elements each worker produced.
    return _("in {mode!r} mode no element arrived twice: {n} arrivals for {elements} elements, split "
             "between {workers} worker(s) ({counts} in this run). TensorFlow promises "
             "at most once: an element can be lost if a worker fails mid-split, but never repeated.").format(
        mode=mode, n=len(disp.elements), elements=N_Q1, workers=disp.n_workers,
        counts=[len(p) for p in disp.per_worker])


q1 = Question(
    N_("q1 (never twice)"),
    _check_mode,
    hints=[
        N_("Compare the two pictures above: in which one does no element appear twice?"),
        N_("One mode gives every worker its own full copy of the data; the other hands out splits of one pass."),
    ],
    solution='answer = "distributed_epoch"',
)


# --------------------------------------------------------------------- q2
def _check_loaded(answer: Any) -> str:
    if isinstance(answer, str) and os.path.isdir(answer):
        fail(_("{answer} is the folder; answer with the dataset tf.data.Dataset.load(...) returns for it.").format(
            answer=shorten(answer, 60)))
    ds = _read.dataset(answer, _("the dataset returned by tf.data.Dataset.load(...)"))
    found = _stages.stages(ds)
    # snapshot() is built as zip -> snapshot -> map (the map drops an index it adds): that map is not the learner's
    maps = [s for k, s in enumerate(found) if s.kind == "map" and not (k and found[k - 1].kind == "snapshot")]
    loads = any(s.op == "LoadDataset" for s in found)
    if not loads and any(s.kind == "snapshot" for s in found):
        # Translators: {label} is a stage as code: map(square).
        kept = _("It keeps {label} in the pipeline, and runs it again whenever the snapshot's files are missing or "
                 "the pipeline changes.").format(label=maps[0].label) if maps else ""
        fail(sentences(_("your pipeline uses snapshot(), not save and load: snapshot() also computes once and reads "
                         "its files later, but it is not saved data."), kept,
                       _("The task asks for expensive.save(saved_q2) once, then answer = "
                         "tf.data.Dataset.load(saved_q2), which holds no map at all.")))
    if not loads:
        caches = [s for s in found if s.kind == "cache"]
        if caches and caches[0].params.get("filename"):
            fail(_("your pipeline caches to a file ({chain}): cache(path) reads its files back "
                   "once they are complete, but the pipeline still holds the map, which runs again whenever those "
                   "files are missing or incomplete, and they belong to this exact pipeline. The task asks for saved "
                   "data: expensive.save(path) once, then answer = tf.data.Dataset.load(path), which holds no "
                   "map.").format(chain=_stages.chain_text(found)))
        if caches:
            fail(_("your pipeline starts with {label}, not with saved data, so it still computes everything. cache() "
                   "in memory keeps elements only while this program runs, and only after a first full pass; call "
                   "expensive.save(path) once, then answer = tf.data.Dataset.load(path).").format(
                label=found[0].label))
        fail(_("your pipeline starts with {label}, not with saved data, so it still computes everything. Call "
               "expensive.save(path) once, then answer = tf.data.Dataset.load(path).").format(label=found[0].label))
    if maps:
        fail(_("your pipeline still runs {label} after loading: the saved elements are already the squares, "
               "and load() is there to skip that work. Answer with tf.data.Dataset.load(path) alone.").format(
            label=maps[0].label))
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail(_("your dataset never ends: leave out repeat(), and answer with one pass over the loaded data."))
    values = [_read.whole(v) for v in _read.values(ds, 200)]
    expected = [i * i for i in range(N_Q2)]
    if sorted(values, key=lambda v: (v is None, v or 0)) == list(range(N_Q2)):
        fail(_("the loaded elements are 0, 1, 2, ..., 19: you saved range(20) before the map. Save `expensive` "
               "itself."))
    if sorted(v for v in values if v is not None) != expected or None in values:
        # Translators: {expected} and {values} are Python lists.
        fail(_("expected the {squares} squares {expected}... of 0..19; the loaded dataset gives {n} "
               "elements, starting {values}.").format(
            squares=N_Q2, expected=expected[:5], n=len(values), values=values[:5]))
    return _("the loaded dataset gives the saved squares without running the map again.")


q2 = Question(
    N_("q2 (save once, load many times)"),
    _check_loaded,
    hints=[
        N_("expensive.save(path) writes the elements into a folder; tf.data.Dataset.load(path) reads them back."),
        N_("Save into saved_q2 (the cell defines it), then answer = tf.data.Dataset.load(saved_q2)."),
    ],
    solution="""
        import tempfile
        expensive = tf.data.Dataset.range(20).map(lambda x: x * x)
        saved_path = tempfile.mkdtemp()
        expensive.save(saved_path)
        answer = tf.data.Dataset.load(saved_path)
    """,
)


# --------------------------------------------------------------------- q3
def python_sqrt() -> tf.data.Dataset:
    """The pipeline of q3: square roots of 0..99 computed by NumPy inside ``tf.numpy_function``."""
    return tf.data.Dataset.range(N_Q3).map(lambda x: tf.numpy_function(np.sqrt, [x], tf.float64))


def _python_before(found: list, upto: int):
    return next((s for s in found[:upto] if s.fn_ops & PY_FUNCTION_OPS or (s.kind == "source" and
                                                                          s.fn_name == "generator")), None)


def _reachable(address: Any) -> bool:
    """False when nothing listens at a dispatcher's ``host:port`` any more (reading from it would wait forever)."""
    if not isinstance(address, str) or ":" not in address:
        return True  # an address the graph does not show: let the read say what happens
    host, _unused, port = address.rpartition("://")[2].rpartition(":")
    try:
        with socket.create_connection((host or "localhost", int(port)), timeout=2):
            return True
    except (OSError, ValueError):
        return False


def _check_service_ready(answer: Any) -> str:
    ds = _read.dataset(answer, _("a tf.data.Dataset sent through the service with distribute(...)"))
    found = _stages.stages(ds)
    sent = next((k for k, s in enumerate(found) if s.kind == "distribute"), None)
    if sent is None:
        fail(_("your pipeline is not sent to the service: end it with .apply(tf.data.experimental.service.distribute("
               "\"distributed_epoch\", service.target))."))
    if not _reachable(found[sent].params.get("address")):
        # Translators: {address} is the service's address: grpc://localhost:5050.
        fail(sentences(_("the tf.data service your dataset is sent to ({address}) is not running any more: it was "
                         "stopped (by the cleanup cell, or service.stop()).").format(
            address=found[sent].params['address']), _(SETUP_AGAIN)))
    python = _python_before(found, sent)
    if python is not None:
        fail(_("the part sent to the service still runs Python ({where}). A worker in another process cannot "
               "call it (lesson 11 showed the error); it only works here because this notebook's workers share its "
               "process. Compute the square root with TensorFlow ops: tf.sqrt(tf.cast(x, tf.float64)).").format(
            where=python.where))
    size = found[sent - 1].cardinality if sent > 0 else None
    if size == int(tf.data.INFINITE_CARDINALITY):
        fail(_("the part sent to the service never ends (a repeat() before distribute): answer with one pass over "
               "the {ids} ids.").format(ids=N_Q3))
    if size is not None and size < 0:
        # A worker running a pipeline that never yields cannot even be stopped: do not send one to find out.
        odd = next((s for s in found[:sent] if s.kind in ("filter", "flat_map", "interleave", "take_while")), None)
        if odd:
            # Translators: {where} names a stage: "stage 2: filter(keep)".
            fail(_("TensorFlow cannot tell how many elements the part sent to the service gives ({where}), so the "
                   "checker does not run it on your service. The task needs no filter: range({ids}), a map, then "
                   "distribute.").format(where=odd.where, ids=N_Q3))
        fail(_("TensorFlow cannot tell how many elements the part sent to the service gives, so the checker does "
               "not run it on your service. The task needs no filter: range({ids}), a map, then distribute.").format(
            ids=N_Q3))
    spec = ds.element_spec
    if not (isinstance(spec, tf.TensorSpec) and spec.dtype.is_floating and spec.shape.rank in (0, None)):
        fail(_("each element is {spec}; expected one square root per element, a single float "
               "(tf.sqrt needs a float: cast the id first).").format(spec=_read.describe_spec(spec)))
    arrays = [np.asarray(v) for v in _read.elements(ds, 4 * N_Q3)]
    if any(a.size != 1 for a in arrays):
        fail(_("an element holds {n} values; expected one square root per element. Leave batch() out.").format(
            n=next((a.size for a in arrays if a.size != 1))))
    values = [float(a.reshape(())) for a in arrays]
    counts = Counter(round(v, 4) for v in values)
    if counts and max(counts.values()) > 1:
        most = max(counts.values())
        fail(_("{n} elements arrived for {ids} ids, some of them {most} times: in 'parallel_epochs' mode "
               "every worker produces the whole dataset. Use 'distributed_epoch'.").format(
            n=len(values), ids=N_Q3, most=most))
    expected = np.sqrt(np.arange(N_Q3))
    got = np.sort(np.asarray(values))
    if len(got) != N_Q3:
        fail(_("{n} elements arrived; expected the {ids} square roots of 0..{last}, each once.").format(
            n=len(got), ids=N_Q3, last=N_Q3 - 1))
    if not np.allclose(got, expected, rtol=1e-5, atol=1e-6):
        wrong = int(np.argmax(~np.isclose(got, expected, rtol=1e-5, atol=1e-6)))
        fail(_("the values are not the square roots of 0..{last}: in sorted order, value {k} is "
               "{got:.4g} where {want:.4g} was expected.").format(
            last=N_Q3 - 1, k=wrong, got=got[wrong], want=math.sqrt(wrong)))
    return _("no Python in the part the workers run, and all {ids} square roots arrived once each: this pipeline "
             "runs on a real cluster as it does here.").format(ids=N_Q3)


q3 = Question(
    N_("q3 (ready for a real service)"),
    _check_service_ready,
    hints=[
        N_("tf.sqrt does what np.sqrt did, inside the graph; it needs a float input, so cast the id with tf.cast."),
        N_("tf.data.Dataset.range(100).map(lambda x: tf.sqrt(tf.cast(x, tf.float64))), then .apply(distribute(...))."),
    ],
    solution="""
        service = tutor.service.LocalService(2)  # in the notebook: the service started at the top
        answer = (tf.data.Dataset.range(100)
                  .map(lambda x: tf.sqrt(tf.cast(x, tf.float64)))
                  .apply(tf.data.experimental.service.distribute("distributed_epoch", service.target)))
    """,
)
