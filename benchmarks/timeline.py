"""How much does recording a timeline slow a pipeline down, and how fast do timelines draw?

1. An instrumented pipeline (timestamps inside the graph, carried with every
   element, stripped before the consumer) against the same pipeline without
   instrumentation, each doing about 1 ms of work per element. Target: within 5%.
2. ``TimelineDisplay.plot`` of a profiled timeline with thousands of events
   (one matplotlib collection per row): plot() and the first full draw.
   Target: a couple of seconds at most (one Rectangle per event took tens of seconds).
3. The timeline explorer: kernel time per change of a control (run the small
   pipeline for real, then redraw), median over a sequence of toggles, split
   into the pipeline's own run (what the explorer measures: it cannot be
   shorter), tracing a pipeline the explorer has not built yet, and drawing.
   Target: median <= 300 ms.

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
    """``tf_busy_work`` with its repeats fitted to take about ``seconds`` per element here."""
    return T.fitted_tf_busy_work(seconds, size=size)


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


#: Changes made to the explorer, in order: first visits of settings and returns to ones already built.
CHANGES = [dict(prefetch=True), dict(num_parallel_calls=2), dict(prefetch=False), dict(num_parallel_calls=1),
           dict(prefetch=True), dict(element_ms=8), dict(step_ms=8), dict(cache=True), dict(cache=False),
           dict(interleave=True), dict(interleave=False), dict(element_ms=4), dict(step_ms=4), dict(prefetch=False)]


def explorer_latency() -> list[dict]:
    """Per change: kernel seconds in all, the recorded run's own length, and the drawing (plot + PNG)."""
    ex = tutor.timeline_explorer()
    paint = ex._paint  # wrapped to time the drawing apart from running the pipeline
    drawn = {}

    def timed_paint(disp, values):
        start = time.perf_counter()
        out = paint(disp, values)
        drawn["s"] = time.perf_counter() - start
        return out

    ex._paint = timed_paint
    rows = []
    for values in CHANGES:
        ex.set(**values)
        key = tuple(sorted(ex.values.items()))
        run = ex.book.runs[key][-1].total_time  # the run this change recorded
        rows.append({"change": values, "total": ex.last_render_seconds, "run": run, "draw": drawn["s"]})
    return rows


def big_profile_plot(steps: int = 1500) -> dict:
    """Profile a pipeline with thousands of events, then time TimelineDisplay.plot and one full draw."""
    import matplotlib.pyplot as plt

    ds = tf.data.Dataset.range(10**6).map(lambda x: x * 2).filter(lambda x: x % 3 > 0).batch(2)
    tl = T.profile(ds, steps=steps)
    start = time.perf_counter()
    disp = T.TimelineDisplay.from_timeline(tl).plot()
    plotted = time.perf_counter()
    disp.figure_.canvas.draw()
    drawn = time.perf_counter()
    out = {"events": len(tl.events), "rows": len(disp.bars_), "collections": len(disp.ax_.collections),
           "plot_s": plotted - start, "draw_s": drawn - plotted}
    plt.close(disp.figure_)
    return out


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

    big = big_profile_plot()
    total = big["plot_s"] + big["draw_s"]
    print(f"\nTimelineDisplay of a profiled timeline: {big['events']} events in {big['rows']} rows, "
          f"{big['collections']} collections; plot() {big['plot_s']:.2f} s + first draw {big['draw_s']:.2f} s "
          f"= {total:.2f} s (target: a couple of seconds): {'OK' if total <= 2.0 else 'OVER'}")

    lat = explorer_latency()
    print(f"\ntimeline_explorer, kernel time per change (ms): {'change':40s} {'total':>6s} {'run':>5s} "
          f"{'draw':>5s} {'other':>6s}")
    for r in lat:
        change = ", ".join(f"{k}={v}" for k, v in r["change"].items())
        print(f"{'':47s}{change:40s} {1000 * r['total']:6.0f} {1000 * r['run']:5.0f} {1000 * r['draw']:5.0f} "
              f"{1000 * (r['total'] - r['run'] - r['draw']):6.0f}")
    med = {k: 1000 * statistics.median(r[k] for r in lat) for k in ("total", "run", "draw")}
    print(f"timeline_explorer redraw: median {med['total']:.0f} ms (target <= 300 ms): "
          f"{'OK' if med['total'] <= 300 else 'OVER'}; of which the pipeline's own run {med['run']:.0f} ms and "
          f"drawing {med['draw']:.0f} ms (medians); 'other' is tracing a pipeline not built before, and recording")


if __name__ == "__main__":
    main()
