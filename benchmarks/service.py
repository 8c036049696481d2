"""Lesson 13 benchmark: a CPU-heavy map, run locally and through a local tf.data service.

    python benchmarks/service.py            # 120 elements (the lesson uses 240)
    python benchmarks/service.py 600        # longer, steadier numbers

Prints seconds of work (service job start-up excluded) for: the pipeline read
locally (default options, map_parallelization off, num_parallel_calls=2), through a service with one
worker and with two workers (distributed_epoch), each with TensorFlow's default
options and with map_parallelization off (the control: `heavy` has no state, so
by default a worker already runs it as a parallel map on every core), and for
Dataset.save/load and snapshot against computing from scratch. Then the ratios.
On a 2-core machine the two-worker ratio is bounded by 2 (both workers share
the cores), and lower when the machine is busy.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import tutor  # noqa: F401  (quiet TensorFlow first)
import tensorflow as tf

from tutor.service import LocalService, time_job


def heavy(i):
    x = tf.random.stateless_uniform([32, 32], seed=tf.stack([i, 0]))
    body = lambda k, x: (k + 1, tf.sin(x) * 1.01 + tf.cos(x) * 0.5)  # noqa: E731
    return tf.reduce_mean(tf.while_loop(lambda k, x: k < 400, body, (0, x))[1])


def seconds(ds: tf.data.Dataset) -> float:
    start = time.perf_counter()
    for _ in ds:
        pass
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=120)
    n = parser.parse_args().n
    work = tf.data.Dataset.range(n).map(heavy)
    seconds(work.take(5))  # trace the function once
    sequential = tf.data.Options()
    sequential.experimental_optimization.map_parallelization = False
    rows = {
        "local, plain map (default options)": seconds(work),
        "local, map sequential": seconds(work.with_options(sequential)),
        "local, num_parallel_calls=2": seconds(tf.data.Dataset.range(n).map(heavy, num_parallel_calls=2)),
    }
    for k in (1, 2):
        with LocalService(k, name=f"bench-{k}") as service:
            rows[f"service, {k} worker(s)"] = time_job(service.distribute(work, "distributed_epoch")).work
            rows[f"service, {k} worker(s), map sequential"] = time_job(
                service.distribute(work.with_options(sequential), "distributed_epoch")).work
    folder = tempfile.mkdtemp(prefix="bench_service_")
    try:
        work.save(os.path.join(folder, "saved"))
        rows["Dataset.load of the saved result"] = seconds(tf.data.Dataset.load(os.path.join(folder, "saved")))
        snap = work.snapshot(os.path.join(folder, "snap"))
        rows["snapshot, first pass (writes)"] = seconds(snap)
        rows["snapshot, later pass (reads)"] = seconds(snap)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{n} elements, {os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}")
    for name, s in rows.items():
        print(f"  {name:<40} {s:8.3f} s")
    base = rows["local, map sequential"]
    print("ratios:")
    print(f"  1 worker / 2 workers:        {rows['service, 1 worker(s)'] / rows['service, 2 worker(s)']:.2f}x")
    print(f"  same, map kept sequential:   "
          f"{rows['service, 1 worker(s), map sequential'] / rows['service, 2 worker(s), map sequential']:.2f}x")
    print(f"  parallel map in one worker:  "
          f"{rows['service, 1 worker(s), map sequential'] / rows['service, 1 worker(s)']:.2f}x")
    print(f"  sequential / parallel map:   {base / rows['local, num_parallel_calls=2']:.2f}x")
    print(f"  compute / load:              {base / rows['Dataset.load of the saved result']:.0f}x")
    print(f"  snapshot write / read:       {rows['snapshot, first pass (writes)'] / rows['snapshot, later pass (reads)']:.0f}x")


if __name__ == "__main__":
    main()
