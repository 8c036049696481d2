"""How much does tutor.profile slow a pipeline down?

The same pipeline, written as a learner would (default options, so
TensorFlow applies its usual rewrites), run plainly and under
``tutor.profile``, with about 1 ms of work per element. Target: the profiled
run within 10% of the plain one.

Three kinds of work, because TensorFlow's profiler records an event for every
op the map function runs (a few microseconds each while profiling):

* a Python ``time.sleep`` in ``tf.py_function`` (I/O-like work, one op);
* one matrix product sized to take about 1 ms (a few ops per element);
* ``tutor.timeline.tf_busy_work``: small matrix products in a ``tf.while_loop``,
  hundreds of op events per element, the profiler's worst case.

* plain: create an iterator, take the same number of batches with ``next()``.
* profiled: ``tutor.profile(ds, steps=...)``; its ``total_time`` covers the same
  span, from creating the iterator to the last batch. The whole call, with
  starting and stopping the profiler and reading its trace, is printed too.

Both spans are split at the end of the first batch: start-up (creating the
iterator, TensorFlow's graph rewrites, the first element) is a fixed cost that
the profiler makes a few tens of milliseconds longer; what follows is the
per-element cost, which the target is about.

Run:  .venv/bin/python benchmarks/profile.py
Runs alternate between the two ways and the medians are compared, so that
load from other programs hits both alike. Say how loaded the machine was when
you quote the numbers.
"""
from __future__ import annotations

import os
import statistics
import time

import tutor  # noqa: F401  (quiet TensorFlow)
import tensorflow as tf

from tutor import timeline as T

N = 1000         # elements per run
BATCH = 4
STEPS = N // BATCH
REPEATS = 7      # runs of each way


def pipeline(work) -> tf.data.Dataset:
    return tf.data.Dataset.range(N).map(work).batch(BATCH).prefetch(1)


def plain_seconds(ds) -> tuple[float, float]:
    """Seconds for the whole run, and for the steps after the first."""
    start = time.perf_counter()
    iterator = iter(ds)
    next(iterator)
    first = time.perf_counter()
    for _ in range(STEPS - 1):
        next(iterator)
    end = time.perf_counter()
    return end - start, end - first


def profiled_seconds(ds) -> tuple[float, float, float, list]:
    """Like :func:`plain_seconds` from the profile, then the wall time of the call, and the stages."""
    start = time.perf_counter()
    tl = T.profile(ds, steps=STEPS)
    call = time.perf_counter() - start
    return tl.total_time, tl.total_time - float(tl.steps["end"][0]), call, tl.stages


def matmul_work(size: int):
    def fn(x):
        a = tf.random.uniform((size, size))
        return x + tf.cast(tf.reduce_sum(tf.linalg.matmul(a, a)) * 0.0, tf.int64)

    return fn


def one_matmul_for(seconds: float):
    """One matrix product per element, its size picked so that it takes about ``seconds`` here."""
    sizes = [96, 128, 192, 256, 320, 384, 448, 512]
    cost = {n: T.seconds_per_element(matmul_work(n)) for n in sizes}
    size = min(sizes, key=lambda n: abs(cost[n] - seconds))
    return matmul_work(size), size


def tf_work_for(seconds: float, size: int = 128):
    """``tf_busy_work`` with its repeats fitted to take about ``seconds`` per element here."""
    return T.fitted_tf_busy_work(seconds, size=size)


def compare(name: str, work) -> dict:
    ds = pipeline(work)
    plain_seconds(ds), profiled_seconds(ds)  # warm up: tracing, thread start-up
    plain, profiled, calls = [], [], []
    for _ in range(REPEATS):
        plain.append(plain_seconds(ds))
        *spans, call, stages = profiled_seconds(ds)
        profiled.append(spans)
        calls.append(call)
    p = [statistics.median(x[k] for x in plain) for k in (0, 1)]
    r = [statistics.median(x[k] for x in profiled) for k in (0, 1)]
    return {"work": name, "plain": p, "profiled": r, "ratio": [r[0] / p[0], r[1] / p[1]],
            "call_s": statistics.median(calls), "stages": stages}


def main() -> None:
    print(f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}, TensorFlow {tf.__version__}")
    print(f"{N} elements in batches of {BATCH} ({STEPS} steps), about 1 ms of work each, "
          f"median of {REPEATS} alternating runs\n")
    matmul, size = one_matmul_for(0.001)
    loop, repeats = tf_work_for(0.001)
    rows = [compare("sleep 1 ms (py_function)", T.sleep_work(0.001)),
            compare(f"one {size}x{size} matmul", matmul),
            compare(f"while_loop of {repeats} matmuls", loop)]
    print(f"{'work (~1 ms per element)':26s} {'plain':>7s} {'profiled':>8s} {'ratio':>6s} | {'after 1st':>9s} "
          f"{'profiled':>8s} {'ratio':>6s} {'target':>6s} | {'call':>6s}  stages")
    for r in rows:
        (p, p1), (q, q1), (ratio, ratio1) = r["plain"], r["profiled"], r["ratio"]
        print(f"{r['work']:26s} {p:6.3f}s {q:7.3f}s {ratio:6.3f} | {p1:8.3f}s {q1:7.3f}s {ratio1:6.3f} "
              f"{'OK' if ratio1 <= 1.10 else 'OVER':>6s} | {r['call_s']:5.2f}s  {' > '.join(r['stages'])}")
    print("\nratio = profiled / plain; target: <= 1.10 after the first batch (the per-element cost). "
          "call = the whole tutor.profile() call, with starting and stopping the profiler and reading its trace.")


if __name__ == "__main__":
    main()
