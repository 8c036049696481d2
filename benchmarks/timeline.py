"""How much does recording a timeline slow a pipeline down?

An instrumented pipeline (timestamps inside the graph, carried with every
element, stripped before the consumer) against the same pipeline without
instrumentation, each doing about 1 ms of work per element. Target: within 5%.
Also: how long one redraw of timeline_explorer takes (target: well under 1 s).

Run:  .venv/bin/python benchmarks/timeline.py
Runs alternate between the two versions and the medians are compared, so that
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

N = 400          # elements per run
REPEATS = 7      # runs of each version


def pipelines(work):
    # Naive options for both versions: tf.timestamp is a stateful op, and TensorFlow's automatic
    # map_parallelization only rewrites stateless maps, so with default options the plain version would
    # quietly get a parallel map and the comparison would measure that instead of the instrumentation.
    return (T.Pipeline(tf.data.Dataset.range(N), options=T.naive_options())
            .map(work, name="work").batch(4).prefetch(1))


def plain_seconds(pipe) -> float:
    ds = pipe.build()
    start = time.time()
    for _ in ds:
        pass
    return time.time() - start


def recorded_seconds(pipe) -> tuple[float, float]:
    start = time.time()
    tl = T.record(pipe, steps=N // 4 + 1)
    return tl.total_time, time.time() - start


def tf_work_for(seconds: float, size: int = 128):
    """A TF-native op calibrated to take about ``seconds`` per element (two-point fit on this machine)."""
    def per_element(repeats: int) -> float:
        ds = tf.data.Dataset.range(100).map(T.tf_busy_work(repeats=repeats, size=size)).batch(50)
        ds = ds.with_options(T.naive_options())
        for _ in ds:
            pass
        start = time.perf_counter()
        for _ in ds:
            pass
        return (time.perf_counter() - start) / 100

    low, high = per_element(4), per_element(16)
    per_repeat = max((high - low) / 12, 1e-7)
    repeats = max(1, round((seconds - low) / per_repeat) + 4)
    return T.tf_busy_work(repeats=repeats, size=size), repeats


def compare(name: str, work) -> dict:
    pipe = pipelines(work)
    plain_seconds(pipe), recorded_seconds(pipe)  # warm up: tracing, thread start-up
    plain, recorded, full = [], [], []
    for _ in range(REPEATS):
        plain.append(plain_seconds(pipe))
        loop, whole = recorded_seconds(pipe)
        recorded.append(loop)
        full.append(whole)
    p, r, f = statistics.median(plain), statistics.median(recorded), statistics.median(full)
    return {"work": name, "plain_s": p, "recorded_s": r, "ratio": r / p, "with_analysis_s": f}


def explorer_latency() -> list[float]:
    ex = tutor.timeline_explorer()
    times = []
    for values in [dict(prefetch=True), dict(num_parallel_calls=2), dict(cache=True), dict(interleave=True),
                   dict(element_ms=20, step_ms=20, prefetch=False, num_parallel_calls=1, cache=False,
                        interleave=False)]:
        ex.set(**values)
        times.append(ex.last_render_seconds)
    return times


def main() -> None:
    print(f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}, TensorFlow {tf.__version__}")
    print(f"{N} elements, about 1 ms of work each, median of {REPEATS} alternating runs\n")
    tf_work, repeats = tf_work_for(0.001)
    rows = [compare("sleep 1 ms (py_function)", T.sleep_work(0.001)),
            compare(f"TF matmul x{repeats} (~1 ms)", tf_work)]
    print(f"{'work':28s} {'plain':>8s} {'recorded':>9s} {'ratio':>6s} {'record() incl. analysis':>24s}")
    for r in rows:
        print(f"{r['work']:28s} {r['plain_s']:7.3f}s {r['recorded_s']:8.3f}s {r['ratio']:6.3f} "
              f"{r['with_analysis_s']:23.3f}s")
    worst = max(r["ratio"] for r in rows)
    print(f"\ninstrumentation overhead: worst ratio {worst:.3f} (target <= 1.05): {'OK' if worst <= 1.05 else 'OVER'}")
    lat = explorer_latency()
    print(f"timeline_explorer redraw: median {statistics.median(lat):.2f} s, max {max(lat):.2f} s "
          f"(target: well under 1 s)")


if __name__ == "__main__":
    main()
