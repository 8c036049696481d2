"""Benchmarks for lessons 10 and 12: parsing per record vs per batch, and step times.

Run from the repository root:  python benchmarks/tfrecord_training.py [--n 2000]
Prints one table; every ratio is measured within this one run. Not a CI test.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile

os.environ.setdefault("TUTOR_DATA_SOURCE", "synthetic")

import tutor  # noqa: E402  (before TensorFlow: quiet logs)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tutor import augment, tfrecord, training  # noqa: E402
from tutor.bench import time_pipeline  # noqa: E402
from tutor.checks import lesson12  # noqa: E402


def parsing(paths, encoding, vectorized):
    return tfrecord.read_digits(paths, encoding=encoding, vectorized=vectorized, cycle_length=4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="digits to write and read")
    args = parser.parse_args()
    images, labels = tutor.data.digits(args.n)
    workdir = tempfile.mkdtemp(prefix="tutor_bench_")
    try:
        print(f"{training.detect_device()}\n")
        print(f"{'reading ' + format(args.n, ',') + ' digits from 4 shards':48s} {'median':>9s} {'speed-up':>9s}")
        for encoding in ("raw", "png"):
            paths = tfrecord.write_digits(os.path.join(workdir, encoding), images, labels, encoding=encoding)
            per = time_pipeline(parsing(paths, encoding, False), repeats=5).median
            vec = time_pipeline(parsing(paths, encoding, True), repeats=5).median
            print(f"  {encoding + ': parse_single_example in map, then batch':46s} {per * 1000:7.1f} ms {1.0:8.1f}x")
            print(f"  {encoding + ': batch, then parse_example':46s} {vec * 1000:7.1f} ms {per / vec:8.1f}x")
        x, y = lesson12.exercise_digits()
        tuned = (tf.data.Dataset.from_tensor_slices((x, y)).cache().shuffle(len(y), seed=0).batch(64)
                 .map(augment.rotate_batch, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE))
        pipelines = {"slow (py_function per image)": lesson12.slow_pipeline(x, y), "tuned": tuned,
                     "compute only": tf.data.Dataset.from_tensors(next(iter(tuned))).repeat()}
        times = training.compare_step_times(training.small_cnn, pipelines, steps=30, rounds=2)
        floor = float(np.median(times["compute only"]))
        print(f"\n{'small CNN, batch 64: median step time':48s} {'median':>9s} {'x floor':>9s}")
        for name, t in times.items():
            print(f"  {name:46s} {np.median(t) * 1000:7.1f} ms {np.median(t) / floor:8.1f}x")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
