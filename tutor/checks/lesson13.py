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
from . import _read, _stages
from ._core import SETUP_AGAIN, fail, shorten
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
    name = "_".join(_read.text(answer, "the mode's name").strip("'\"").replace("-", " ").split())
    if name in ("off", "dynamic", *_STATIC):
        return name
    return _read.choice(name, ("parallel_epochs", "distributed_epoch"))


def _check_mode(answer: Any) -> str:
    from ..service import LocalService, WorkerOrderDisplay

    name = _mode_name(answer)
    if name in _STATIC:
        fail(f"{name.upper()} is a static sharding policy, not one of the two processing modes: it needs a fixed list "
             "of workers, and a worker restarted mid-job starts its shard again from the beginning. The question "
             "asks for 'parallel_epochs' or 'distributed_epoch'.")
    mode = {"off": "parallel_epochs", "dynamic": "distributed_epoch"}.get(name, name)
    with LocalService(2, name="lesson13-check") as service:
        disp = WorkerOrderDisplay.from_service(service, n_elements=N_Q1, processing_mode=mode)
    visits = disp.visits
    if len(visits) and visits.max() > 1:
        first = int(np.argmax(visits > 1))
        fail(f"with {mode!r}, element {first} arrived {int(visits[first])} times ({len(disp.elements)} arrivals for "
             f"{N_Q1} elements): in this mode every worker produces the whole dataset.")
    return (f"in {mode!r} mode no element arrived twice: {len(disp.elements)} arrivals for {N_Q1} elements, split "
            f"between {disp.n_workers} worker(s) ({[len(p) for p in disp.per_worker]} in this run). TensorFlow promises "
            "at most once: an element can be lost if a worker fails mid-split, but never repeated.")


q1 = Question(
    "q1 (never twice)",
    _check_mode,
    hints=[
        "Compare the two pictures above: in which one does no element appear twice?",
        "One mode gives every worker its own full copy of the data; the other hands out splits of one pass.",
    ],
    solution='answer = "distributed_epoch"',
)


# --------------------------------------------------------------------- q2
def _check_loaded(answer: Any) -> str:
    if isinstance(answer, str) and os.path.isdir(answer):
        fail(f"{shorten(answer, 60)} is the folder; answer with the dataset tf.data.Dataset.load(...) returns for it.")
    ds = _read.dataset(answer, "the dataset returned by tf.data.Dataset.load(...)")
    found = _stages.stages(ds)
    # snapshot() is built as zip -> snapshot -> map (the map drops an index it adds): that map is not the learner's
    maps = [s for k, s in enumerate(found) if s.kind == "map" and not (k and found[k - 1].kind == "snapshot")]
    loads = any(s.op == "LoadDataset" for s in found)
    if not loads and any(s.kind == "snapshot" for s in found):
        kept = (f" It keeps {maps[0].label} in the pipeline, and runs it again whenever the snapshot's files are "
                "missing or the pipeline changes." if maps else "")
        fail("your pipeline uses snapshot(), not save and load: snapshot() also computes once and reads its files "
             f"later, but it is not saved data.{kept} The task asks for expensive.save(saved_q2) once, then "
             "answer = tf.data.Dataset.load(saved_q2), which holds no map at all.")
    if not loads:
        caches = [s for s in found if s.kind == "cache"]
        if caches and caches[0].params.get("filename"):
            fail(f"your pipeline caches to a file ({_stages.chain_text(found)}): cache(path) reads its files back "
                 "once they are complete, but the pipeline still holds the map, which runs again whenever those "
                 "files are missing or incomplete, and they belong to this exact pipeline. The task asks for saved "
                 "data: expensive.save(path) once, then answer = tf.data.Dataset.load(path), which holds no map.")
        cached = (" cache() in memory keeps elements only while this program runs, and only after a first full "
                  "pass;" if caches else "")
        fail(f"your pipeline starts with {found[0].label}, not with saved data, so it still computes everything.{cached}"
             " Call expensive.save(path) once, then answer = tf.data.Dataset.load(path).")
    if maps:
        fail(f"your pipeline still runs {maps[0].label} after loading: the saved elements are already the squares, "
             "and load() is there to skip that work. Answer with tf.data.Dataset.load(path) alone.")
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail("your dataset never ends: leave out repeat(), and answer with one pass over the loaded data.")
    values = [_read.whole(v) for v in _read.values(ds, 200)]
    expected = [i * i for i in range(N_Q2)]
    if sorted(values, key=lambda v: (v is None, v or 0)) == list(range(N_Q2)):
        fail("the loaded elements are 0, 1, 2, ..., 19: you saved range(20) before the map. Save `expensive` itself.")
    if sorted(v for v in values if v is not None) != expected or None in values:
        fail(f"expected the {N_Q2} squares {expected[:5]}... of 0..19; the loaded dataset gives {len(values)} "
             f"elements, starting {values[:5]}.")
    return "the loaded dataset gives the saved squares without running the map again."


q2 = Question(
    "q2 (save once, load many times)",
    _check_loaded,
    hints=[
        "expensive.save(path) writes the elements into a folder; tf.data.Dataset.load(path) reads them back.",
        "Save into saved_q2 (the cell defines it), then answer = tf.data.Dataset.load(saved_q2).",
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
    host, _, port = address.rpartition("://")[2].rpartition(":")
    try:
        with socket.create_connection((host or "localhost", int(port)), timeout=2):
            return True
    except (OSError, ValueError):
        return False


def _check_service_ready(answer: Any) -> str:
    ds = _read.dataset(answer, "a tf.data.Dataset sent through the service with distribute(...)")
    found = _stages.stages(ds)
    sent = next((k for k, s in enumerate(found) if s.kind == "distribute"), None)
    if sent is None:
        fail("your pipeline is not sent to the service: end it with .apply(tf.data.experimental.service.distribute("
             "\"distributed_epoch\", service.target)).")
    if not _reachable(found[sent].params.get("address")):
        fail(f"the tf.data service your dataset is sent to ({found[sent].params['address']}) is not running any more: "
             f"it was stopped (by the cleanup cell, or service.stop()). {SETUP_AGAIN}")
    python = _python_before(found, sent)
    if python is not None:
        fail(f"the part sent to the service still runs Python ({python.where}). A worker in another process cannot "
             "call it (lesson 11 showed the error); it only works here because this notebook's workers share its "
             "process. Compute the square root with TensorFlow ops: tf.sqrt(tf.cast(x, tf.float64)).")
    size = found[sent - 1].cardinality if sent > 0 else None
    if size == int(tf.data.INFINITE_CARDINALITY):
        fail("the part sent to the service never ends (a repeat() before distribute): answer with one pass over "
             f"the {N_Q3} ids.")
    if size is not None and size < 0:
        # A worker running a pipeline that never yields cannot even be stopped: do not send one to find out.
        odd = next((s for s in found[:sent] if s.kind in ("filter", "flat_map", "interleave", "take_while")), None)
        where = f" ({odd.where})" if odd else ""
        fail(f"TensorFlow cannot tell how many elements the part sent to the service gives{where}, so the checker "
             f"does not run it on your service. The task needs no filter: range({N_Q3}), a map, then distribute.")
    spec = ds.element_spec
    if not (isinstance(spec, tf.TensorSpec) and spec.dtype.is_floating and spec.shape.rank in (0, None)):
        fail(f"each element is {_read.describe_spec(spec)}; expected one square root per element, a single float "
             "(tf.sqrt needs a float: cast the id first).")
    arrays = [np.asarray(v) for v in _read.elements(ds, 4 * N_Q3)]
    if any(a.size != 1 for a in arrays):
        fail(f"an element holds {next(a.size for a in arrays if a.size != 1)} values; expected one square root per "
             "element. Leave batch() out.")
    values = [float(a.reshape(())) for a in arrays]
    counts = Counter(round(v, 4) for v in values)
    if counts and max(counts.values()) > 1:
        most = max(counts.values())
        fail(f"{len(values)} elements arrived for {N_Q3} ids, some of them {most} times: in 'parallel_epochs' mode "
             "every worker produces the whole dataset. Use 'distributed_epoch'.")
    expected = np.sqrt(np.arange(N_Q3))
    got = np.sort(np.asarray(values))
    if len(got) != N_Q3:
        fail(f"{len(got)} elements arrived; expected the {N_Q3} square roots of 0..{N_Q3 - 1}, each once.")
    if not np.allclose(got, expected, rtol=1e-5, atol=1e-6):
        wrong = int(np.argmax(~np.isclose(got, expected, rtol=1e-5, atol=1e-6)))
        fail(f"the values are not the square roots of 0..{N_Q3 - 1}: in sorted order, value {wrong} is "
             f"{got[wrong]:.4g} where {math.sqrt(wrong):.4g} was expected.")
    return (f"no Python in the part the workers run, and all {N_Q3} square roots arrived once each: this pipeline "
            "runs on a real cluster as it does here.")


q3 = Question(
    "q3 (ready for a real service)",
    _check_service_ready,
    hints=[
        "tf.sqrt does what np.sqrt did, inside the graph; it needs a float input, so cast the id with tf.cast.",
        "tf.data.Dataset.range(100).map(lambda x: tf.sqrt(tf.cast(x, tf.float64))), then .apply(distribute(...)).",
    ],
    solution="""
        service = tutor.service.LocalService(2)  # in the notebook: the service started at the top
        answer = (tf.data.Dataset.range(100)
                  .map(lambda x: tf.sqrt(tf.cast(x, tf.float64)))
                  .apply(tf.data.experimental.service.distribute("distributed_epoch", service.target)))
    """,
)
