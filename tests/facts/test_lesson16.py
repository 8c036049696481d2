"""Lesson 16's claims about TensorFlow's profiler and XProf, checked against real profiles of ``model.fit``.

Every test reads event names, threads, nesting, ids and counts, never a duration. The profiles are recorded once per
module, as the lesson records them; the distribution-strategy facts need two logical CPUs, which TensorFlow allows
only before its first op, so they run in a fresh process.
"""
import json
import os
import subprocess
import sys
import textwrap

import keras
import pytest
import tensorflow as tf

import tutor  # noqa: F401  (before TensorFlow's first op)
from tutor import augment, tftrace, training

pytestmark = pytest.mark.slow  # records profiles and trains models

N, BATCH, STEPS = 1024, 64, 12


def _source():
    images, labels = tutor.data.digits(N, source="synthetic")
    return tf.data.Dataset.from_tensor_slices((images[..., None], labels)).shuffle(N, seed=0)


def _slow():
    return training.without_auto_speedups(_source().map(augment.rotate_slow).batch(BATCH))


def _fixed():
    return (_source().batch(BATCH).map(augment.rotate_batch, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE))


def _record(model, ds, logdir, callbacks, steps=STEPS):
    tf.profiler.experimental.start(logdir)
    try:
        model.fit(ds, epochs=1, steps_per_epoch=steps, verbose=0, callbacks=callbacks)
    finally:
        tf.profiler.experimental.stop()
    return logdir


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The lesson's two profiles, and two without the step markers the lesson adds."""
    root = tmp_path_factory.mktemp("profiles")
    model = training.small_cnn(seed=0)
    for make in (_slow, _fixed):
        model.fit(make().take(2), verbose=0)
    out = {"slow": _record(model, _slow(), str(root / "slow"), [tftrace.StepMarkers()]),
           "fixed": _record(model, _fixed(), str(root / "fixed"), [tftrace.StepMarkers()]),
           "unmarked": _record(model, _slow(), str(root / "unmarked"), [], steps=6)}
    board = str(root / "board")
    model.fit(_slow(), epochs=1, steps_per_epoch=10, verbose=0,
              callbacks=[keras.callbacks.TensorBoard(board, profile_batch=(2, 8), write_graph=False),
                         tftrace.StepMarkers()])
    out["board"], out["board_alone"] = board, str(root / "board_alone")
    model.fit(_slow(), epochs=1, steps_per_epoch=10, verbose=0,
              callbacks=[keras.callbacks.TensorBoard(out["board_alone"], profile_batch=(2, 8), write_graph=False)])
    return {**out, "traces": {k: tftrace.read(out[k]) for k in ("slow", "fixed")}}


def _kinds(events):
    return {tftrace.thread_kind(e.thread) for e in events}


def test_the_profiler_writes_one_xspace_under_plugins_profile(runs):
    path = tftrace.xspace_file(runs["slow"])
    parts = os.path.relpath(path, runs["slow"]).split(os.sep)
    assert parts[:2] == ["plugins", "profile"] and len(parts) == 4 and parts[-1].endswith(".xplane.pb")
    # the Keras callback writes under its train/ folder
    assert os.path.relpath(tftrace.xspace_file(runs["board"]), runs["board"]).split(os.sep)[:3] == [
        "train", "plugins", "profile"]


def test_a_synchronous_pipeline_runs_every_stage_on_the_get_next_thread_with_long_names(runs):
    trace = runs["traces"]["slow"]
    counts = {name: n for name, thread, n in trace.long_names()}
    assert {thread for _, thread, _ in trace.long_names()} == {"tf_data_iterator_get_next"}
    assert counts == {"Iterator::Root": STEPS, "Iterator::Root::BatchV2": STEPS,
                      "Iterator::Root::BatchV2::Map": STEPS * BATCH, "Iterator::Root::BatchV2::Map::Shuffle": STEPS * BATCH,
                      "Iterator::Root::BatchV2::Map::Shuffle::TensorSlice": N + 1}
    # the trace viewer's label is the short name; the long name is in the event's details
    assert {e.name for e in trace.named("Iterator::Root::BatchV2::Map")} == {"Iterator::Map"}
    assert not trace.named("Iterator::Model")  # the guide's old name for the root


def test_each_step_asks_once_with_do_compute_which_holds_the_root(runs):
    trace = runs["traces"]["slow"]
    requests = trace.get_next()
    assert {e.name for e in requests} == {"IteratorGetNextOp::DoCompute"}
    assert _kinds(requests) == {"tf_data_iterator_get_next"}
    assert [w.requests for w in trace.step_waits()] == [1] * STEPS
    for request in requests:
        inside = trace.inside(request)
        assert [e.name for e in inside if e.name.startswith("Iterator::")][:3] == [
            "Iterator::Root", "Iterator::BatchV2", "Iterator::Map"]
        assert sum(e.name == "Iterator::Root" for e in inside) == 1
    # the Python part of each map call runs on tf.data's own thread pool
    assert _kinds(trace.named("EagerPyFunc")) == {"tf_data_private_threadpool"}


def test_parent_ids_follow_the_long_names(runs):
    for trace in runs["traces"].values():
        ids = {}
        for e in trace.iterators():
            ids.setdefault(e.long_name, set()).add(e.id)
        assert all(len(v) == 1 for v in ids.values()), "one iterator per long name in one epoch"
        for e in trace.iterators():
            if e.long_name == "Iterator::Root":
                assert e.parent_id is None
            else:
                assert {e.parent_id} == ids[e.long_name.rsplit("::", 1)[0]]


def test_an_async_stage_feeds_from_another_thread_found_by_parent_id(runs):
    trace = runs["traces"]["fixed"]
    threads = {name: thread for name, thread, _ in trace.long_names()}
    assert threads["Iterator::Root"] == threads["Iterator::Root::Prefetch"] == "tf_data_iterator_get_next"
    below = [name for name in threads if name.startswith("Iterator::Root::Prefetch::")]
    assert below and {threads[name] for name in below} == {"tf_data_iterator_resource"}
    prefetch = trace.named("Iterator::Root::Prefetch")[0]
    fed = trace.upstream(prefetch)
    assert {e.long_name for e in fed} == {"Iterator::Root::Prefetch::ParallelMapV2"}
    requests = trace.get_next()
    assert not any(r.tid == e.tid and r.start <= e.start and e.end <= r.end for e in fed for r in requests)


def test_xprof_finds_the_steps_only_with_step_markers(runs):
    marked = tftrace.input_pipeline(runs["slow"])
    assert marked.hardware == "CPU_ONLY" and marked.steps and not marked.warnings
    assert all(s["step"].startswith("train ") for s in marked.steps)
    for plain in (runs["unmarked"], runs["board_alone"]):  # no marker, or only Keras's "Profiled batch"
        analysis = tftrace.input_pipeline(plain)
        assert not analysis.steps and analysis.verdict == "unknown"
        assert analysis.conclusion.startswith("No step time measured")
        assert any("No step marker observed" in w for w in analysis.warnings)
    assert tftrace.input_pipeline(runs["board"]).steps  # the TensorBoard callback, then StepMarkers
    names = [e.name for e in tftrace.read(runs["board_alone"]).events if e.name == "Profiled batch"]
    assert len(names) == 7  # batches 2 to 8, each marked by Keras with a name XProf does not count


def test_xprofs_sentence_follows_its_thresholds(runs):
    for key in ("slow", "fixed"):
        analysis = tftrace.input_pipeline(runs[key])
        word = analysis.conclusion.split()[3]
        expected = {"highly": {"HIGHLY"}, "moderately": {"MODERATELY"}, "not": {"NOT", "POTENTIALLY"}}
        assert word in expected[analysis.verdict], analysis.conclusion
        table = {row["long_name"]: row["count"] for row in analysis.iterators}
        trace_names = {name for name, _, _ in runs["traces"][key].long_names()}
        assert set(table) == trace_names


DISTRIBUTED = textwrap.dedent("""
    import json, tempfile, tutor, tensorflow as tf
    from tutor import augment, tftrace, training
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    images, labels = tutor.data.digits(512, source="synthetic")
    ds = (tf.data.Dataset.from_tensor_slices((images[..., None], labels)).shuffle(512, seed=0).batch(64)
          .map(augment.rotate_batch, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE))
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model = training.small_cnn(seed=0)
    model.fit(ds.take(2), verbose=0)
    logdir = tempfile.mkdtemp()
    tf.profiler.experimental.start(logdir)
    model.fit(ds, epochs=1, steps_per_epoch=5, verbose=0, callbacks=[tftrace.StepMarkers()])
    tf.profiler.experimental.stop()
    raw = tftrace.tool_data(logdir, "trace_viewer")
    trace = tftrace.TraceEvents.from_json(raw)
    markers = [m for _, m in trace.steps()]
    in_steps = [e for e in trace.get_next() if any(m.start <= e.start < m.end for m in markers)]
    out = {
        "processes": sorted({e["args"]["name"] for e in raw["traceEvents"]
                             if e.get("ph") == "M" and e.get("name") == "process_name"}),
        "requests": sorted({e.name for e in in_steps}),
        "request_threads": sorted({tftrace.thread_kind(e.thread) for e in in_steps}),
        "per_step": [w.requests for w in trace.step_waits()],
        "long_names": sorted({e.long_name for e in trace.iterators()}),
        "threads": sorted({tftrace.thread_kind(t) for t in trace.threads()}),
        "shards": sorted({e.name for e in trace.events if e.name.startswith("GetNextFromShard")}),
        "copies": sum("MemcpyH2D" in e.name for e in trace.events),
    }
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def distributed():
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TUTOR_DATA_SOURCE": "synthetic"}
    run = subprocess.run([sys.executable, "-c", DISTRIBUTED], capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_mirrored_step_asks_once_per_replica_with_get_next_as_optional(distributed):
    assert distributed["requests"] == ["IteratorGetNextAsOptionalOp::DoCompute"]
    assert distributed["request_threads"] == ["tf_data_iterator_get_next_as_optional"]
    assert distributed["per_step"] == [2] * 5


def test_each_device_gets_a_prefetch_over_a_generator_on_a_cpu_only_machine(distributed):
    names = distributed["long_names"]
    assert "Iterator::Root::Prefetch::Generator" in names
    assert any(n.startswith("Iterator::Root::Prefetch::Rebatch::") for n in names)
    assert distributed["shards"] == ["GetNextFromShard0", "GetNextFromShard1"]
    assert any(t.startswith("tf_data_multi_device_iterator") for t in distributed["threads"])
    # no accelerator: only the host's plane, and nothing copied to a device
    assert distributed["processes"] == ["/host:CPU"] and distributed["copies"] == 0
