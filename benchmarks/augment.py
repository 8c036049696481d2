"""Lesson 05 benchmark: random rotation of N digit images along each path, timed on the same data.

    python benchmarks/augment.py 2000          # a few thousand, like CI
    python benchmarks/augment.py 60000         # the seed's full MNIST-sized run

Prints seconds and images/s for (a) SciPy in py_function, (b) the TF op per
image, (c) the TF op after batch, and tfa.image.rotate where tensorflow-addons
imports, then the ratios (a)/(b) and (b)/(c). Targets on a 2-core machine:
(a)/(b) >= 5x and (b)/(c) >= 3x. Every path reads the same images with the
same per-image angles; each gets one warm-up pass that is not counted. Maps
run one call at a time (TensorFlow's automatic map parallelization is turned
off, as in lesson 05's timings); one extra line shows (b) with it on.

Then the GIL questions of lesson 05: path (a) with ``num_parallel_calls=2``,
and SciPy's rotation on one thread against two (each rotating half of the
images), for 28x28 and for 512x512 images. SciPy's interpolation releases the
GIL, so two threads can help where the interpolation dominates a call (large
images) and help little where Python overhead does (28x28).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import tutor  # noqa: F401  (quiet TensorFlow first)
import numpy as np

from tutor.augment import RotationTimingDisplay
from tutor.augment.rotation import available_paths, tfa_status

TARGETS = {"scipy / tf": 5.0, "tf / tf-batched": 3.0}


def load_images(n: int) -> tuple[np.ndarray, str]:
    from tutor.data import describe_source, digits

    try:
        d = digits(n)
        return d[0], describe_source(d)
    except Exception as exc:  # e.g. a font missing in an old matplotlib: fall back to plain shapes
        rng = np.random.default_rng(0)
        x = np.zeros((n, 28, 28), np.uint8)
        rows, cols = rng.integers(4, 18, (2, n))
        for k in range(n):
            x[k, rows[k] : rows[k] + 4, cols[k] : cols[k] + 9] = 255
        return x, f"tutor.data.digits failed ({type(exc).__name__}); using {n} generated bar images instead."


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=2000, help="number of images (default 2000)")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=3, help="counted passes per path (median is reported)")
    args = parser.parse_args(argv)

    images, source = load_images(args.n)
    print(source)
    print(tfa_status())
    print(f"CPU cores: {os.cpu_count()}, batch_size={args.batch_size}, paths: {', '.join(available_paths())}")
    start = time.perf_counter()
    timings, cpu = {}, {}
    for path in available_paths():  # one path at a time, so each also gets its CPU seconds
        c0 = time.process_time()
        one = RotationTimingDisplay.from_images(images, paths=[path], batch_size=args.batch_size, repeats=args.repeats)
        cpu[path] = (time.process_time() - c0) / (args.repeats + 1)
        timings.update(one.timings)
    disp = RotationTimingDisplay(timings, args.n)
    print()
    print(f"{'path':<11} {'seconds':>9} {'images/s':>12} {'first pass s':>13} {'CPU s/pass':>11}")
    for path, t in disp.timings.items():
        print(f"{path:<11} {t.median:9.3f} {t.per_second:12,.0f} {t.first_seconds:13.3f} {cpu[path]:11.3f}")
    print("(CPU s/pass: process CPU time averaged over warm-up + counted passes, all threads; less sensitive to"
          " other load on the machine than wall time)")
    print()
    for name, value in disp.ratios.items():
        target = TARGETS[name]
        verdict = "meets" if value >= target else "MISSES"
        slow, fast = name.split(" / ")
        print(f"ratio {name:<16} {value:6.1f}x  ({verdict} the {target:g}x target; CPU-time ratio {cpu[slow] / cpu[fast]:.1f}x)")
    from tutor.bench import time_pipeline
    from tutor.augment.rotation import rotation_angles, rotation_dataset

    auto = time_pipeline(rotation_dataset(images, rotation_angles(args.n, 30, seed=0), "tf", batch_size=args.batch_size,
                                          auto_parallel=True), repeats=args.repeats, count="rows")
    print(f"ratio {'tf / tf-batched':<16} {auto.median / disp.seconds['tf-batched']:6.1f}x  with TensorFlow's automatic "
          f"map parallelization left on for (b) ({auto.median:.3f} s)")
    if "tfa" in disp.timings:
        print(f"ratio {'tfa / tf':<16} {disp.ratio('tfa', 'tf'):6.2f}x  (tfa wraps the same op: expect about 1)")
    gil_section(images, args.batch_size, args.repeats, disp.seconds.get("scipy"))
    print("\nthe article lesson 05 grew from, 60,000 MNIST images: 36.7 s -> 3.3 s -> 0.44 s (ratios 11x and 7.5x)")
    print(f"total benchmark time {time.perf_counter() - start:.1f} s")
    return 0


def gil_section(images, batch_size: int, repeats: int, sequential_seconds: float | None) -> None:
    """Path (a) two calls at a time, and SciPy on one thread against two, for small and large images."""
    from concurrent.futures import ThreadPoolExecutor

    import tensorflow as tf

    from tutor.augment.rotation import rotate_scipy, rotate_scipy_tf, rotation_angles
    from tutor.bench import CallRecorder, time_pipeline

    print("\nGIL: does running SciPy on two threads help?")
    n = len(images)
    angles = rotation_angles(n, 30, seed=0)
    options = tf.data.Options()
    options.experimental_optimization.map_parallelization = False
    pairs = tf.data.Dataset.from_tensor_slices((images[..., None], angles)).with_options(options)
    two = time_pipeline(pairs.map(rotate_scipy_tf, num_parallel_calls=2).batch(batch_size), repeats=repeats, count="rows")
    if sequential_seconds:
        print(f"path (a), num_parallel_calls=2: {two.median:.3f} s against {sequential_seconds:.3f} s one call at a "
              f"time ({sequential_seconds / two.median:.2f}x)")

    def rotate_each(batch):
        return [rotate_scipy(im, 0.3) for im in batch]

    for size, count in ((28, 4000), (512, 60)):
        batch = np.random.default_rng(0).random((count, size, size)).astype(np.float32)
        rotate_each(batch[:2])  # warm up
        one = min(_seconds(lambda: rotate_each(batch)) for _ in range(repeats))
        with ThreadPoolExecutor(2) as pool:
            two_threads = min(_seconds(lambda: list(pool.map(rotate_each, np.array_split(batch, 2))))
                              for _ in range(repeats))
        print(f"SciPy {size}x{size}: one thread {one:.3f} s, two threads {two_threads:.3f} s ({one / two_threads:.2f}x)")
    calls = CallRecorder(lambda img, a: rotate_scipy(img.numpy(), float(a.numpy())))
    in_py = pairs.map(lambda img, a: tf.py_function(calls, [img, a], Tout=img.dtype)).batch(batch_size)
    per_call = time_pipeline(in_py, repeats=1, count="rows").median / n
    alone = _seconds(lambda: [rotate_scipy(im, a) for im, a in zip(images, angles.tolist())]) / n
    print(f"per 28x28 image: SciPy alone {alone * 1e6:.0f} us, through py_function in a pipeline {per_call * 1e6:.0f} us "
          f"(most at once: {calls.most_at_once})")


def _seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
