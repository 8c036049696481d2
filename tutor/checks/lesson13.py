"""Exercises for lesson 13: scaling out with the tf.data service.

>>> from tutor.checks import lesson13 as ex
>>> ex.q1.check("distributed_epoch").passed
True
"""
from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from . import _read
from ._core import Question, fail

N_Q1 = 16
N_Q3 = 1000
BATCH_Q3 = 32


def _check_mode(answer: Any) -> str:
    from ..service import MODES, SHARDING_POLICIES, LocalService
    from ..service import WorkerOrderDisplay

    if not isinstance(answer, (str, tf.data.experimental.service.ShardingPolicy)):
        fail(f"expected a processing mode such as 'parallel_epochs' (a string), got {type(answer).__name__}.")
    if isinstance(answer, str) and answer not in MODES and answer.upper() not in SHARDING_POLICIES:
        fail(f"{answer!r} is not a processing mode; the two modes are {MODES[0]!r} and {MODES[1]!r}.")
    with LocalService(2, name="lesson13-check") as service:
        disp = WorkerOrderDisplay.from_service(service, n_elements=N_Q1, processing_mode=answer)
    visits = disp.visits
    if len(visits) < N_Q1 or np.any(visits == 0):
        missing = [i for i in range(N_Q1) if i >= len(visits) or visits[i] == 0]
        fail(f"elements {missing} never arrived, so this mode drops data.")
    if np.any(visits > 1):
        first = int(np.argmax(visits > 1))
        fail(
            f"element {first} arrived {int(visits[first])} times ({len(disp.elements)} arrivals for {N_Q1} "
            f"elements): with {answer!r} every worker produces the whole dataset."
        )
    return (
        f"each of the {N_Q1} elements arrived exactly once, split between {disp.n_workers} worker(s) "
        f"({[len(p) for p in disp.per_worker]} elements each in this run)."
    )


q1 = Question(
    "Exactly once",
    _check_mode,
    hints=[
        "Compare the two pictures above: in which one does every element appear a single time?",
        "One mode gives every worker its own full copy of the data; the other hands out pieces of one epoch.",
    ],
    solution='answer = "distributed_epoch"',
)


def _check_loaded(answer: Any) -> str:
    from ..doctor import read_pipeline

    ds = _read.dataset(answer, "the dataset returned by tf.data.Dataset.load(...)")
    stages = read_pipeline(ds)
    ops = [s.op for s in stages]
    if "LoadDataset" not in ops:
        fail(
            f"your pipeline starts with {stages[0].label}, not with a saved dataset: call "
            "expensive.save(path) once, then answer = tf.data.Dataset.load(path)."
        )
    recomputed = [s.label for s in stages if s.kind == "map"]
    if recomputed:
        fail(f"the pipeline still runs {recomputed[0]}: the point of load() is to skip that work.")
    values = [int(v) for v in _read.elements(ds, 200)]
    expected = [i * i for i in range(20)]
    if values != expected:
        fail(f"expected the squares {expected[:5]}... of 0..19 in order, got {values[:5]}... ({len(values)} elements).")
    return "the loaded dataset gives the saved squares without running the map again."


q2 = Question(
    "Save once, load many times",
    _check_loaded,
    hints=[
        "Dataset.save(path) writes the elements to a folder; tf.data.Dataset.load(path) reads them back.",
        "Save `expensive` into a fresh temporary folder, then load from the same folder.",
    ],
    solution="""
        import tempfile
        expensive = tf.data.Dataset.range(20).map(lambda x: x * x)
        path = tempfile.mkdtemp()
        expensive.save(path)
        answer = tf.data.Dataset.load(path)
    """,
)


def _check_doctor_fix(answer: Any) -> str:
    from ..doctor import check

    ds = _read.dataset(answer)
    report = check(ds)
    if report:
        first = report[0]
        fail(f"the doctor still finds a problem at {first.where}: {first.message}")
    spec = ds.element_spec
    if not (isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and spec.shape.rank == 1):
        fail(f"expected batches of ids from tf.data.Dataset.range({N_Q3}), got element_spec={spec}.")
    n_batches = -(-N_Q3 // BATCH_Q3)
    batches = [np.asarray(b).tolist() for b in ds.take(n_batches).as_numpy_iterator()]
    sizes = [len(b) for b in batches]
    if sizes[0] != BATCH_Q3:
        fail(f"the first batch holds {sizes[0]} elements; keep batch({BATCH_Q3}).")
    first_epoch = [i for b in batches for i in b][:N_Q3]
    if sorted(first_epoch) != list(range(N_Q3)):
        repeated = len(first_epoch) - len(set(first_epoch))
        fail(f"the first {N_Q3} ids are not one full epoch ({repeated} ids come twice): shuffle before repeat.")
    if first_epoch == list(range(N_Q3)):
        fail("the ids come out in order: nothing is shuffled.")
    return "no findings, every epoch complete, and the examples are shuffled before batching."


q3 = Question(
    "Make the doctor happy",
    _check_doctor_fix,
    hints=[
        "Run tutor.doctor.check on the broken pipeline and read each finding's fix.",
        "Order: shuffle the examples (with a buffer as large as the data), batch, repeat, prefetch.",
    ],
    solution="answer = tf.data.Dataset.range(1000).shuffle(1000).batch(32).repeat().prefetch(tf.data.AUTOTUNE)",
)

#: The broken pipeline q3 starts from (shown in the notebook).
BROKEN_Q3 = "tf.data.Dataset.range(1000).repeat().batch(32).shuffle(10)"
