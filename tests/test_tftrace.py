"""tutor.tftrace on hand-made trace viewer JSON and input-pipeline tables (real profiles: tests/facts/test_lesson16.py).

The JSON below has the shape XProf's converters give: metadata events name the threads, complete events carry the
iterator's long name, id and parent_id in ``args``.
"""
import sys

import matplotlib
import pytest

matplotlib.use("Agg")

import tutor  # noqa: E402
from tutor import tftrace  # noqa: E402
from tutor.tftrace import convert  # noqa: E402


def _event(name, tid, ts, dur, **args):
    return {"ph": "X", "pid": 1, "tid": tid, "name": name, "ts": ts, "dur": dur, "args": args}


def small_trace() -> dict:
    """Two steps: a step marker on python, DoCompute holding Root > Prefetch on get_next, the map on another thread."""
    events = [{"ph": "M", "pid": 1, "tid": t, "name": "thread_name", "args": {"name": n}}
              for t, n in ((1, "python"), (2, "tf_data_iterator_get_next/-17"), (3, "tf_data_iterator_resource/5"),
                           (4, "tf_Compute/9"))]
    for step, t0 in enumerate((0.0, 100.0)):
        events += [
            _event(f"train {step}", 1, t0, 90.0, step_num=str(step)),
            _event("IteratorGetNextOp::DoCompute", 2, t0 + 1, 30.0 if step == 0 else 2.0),
            _event("Iterator::Root", 2, t0 + 1.5, 1.0, id="10"),
            _event("Iterator::Prefetch", 2, t0 + 1.6, 0.5, id="11", parent_id="10",
                   long_name="Iterator::Root::Prefetch"),
            _event("Iterator::ParallelMapV2", 3, t0 + 40, 20.0, id="12", parent_id="11",
                   long_name="Iterator::Root::Prefetch::ParallelMapV2"),
            _event("ExecutorState::Process", 4, t0 + 35, 50.0),
        ]
    return {"traceEvents": events}


def test_events_keep_threads_long_names_and_ids():
    trace = tftrace.TraceEvents.from_json(small_trace())
    assert len(trace) == 12 and trace.threads()[0] == "python"
    assert trace.long_names() == [("Iterator::Root", "tf_data_iterator_get_next", 2),
                                  ("Iterator::Root::Prefetch", "tf_data_iterator_get_next", 2),
                                  ("Iterator::Root::Prefetch::ParallelMapV2", "tf_data_iterator_resource", 2)]
    prefetch = trace.named("Iterator::Root::Prefetch")[0]
    assert prefetch.name == "Iterator::Prefetch" and trace.named("Iterator::Prefetch") == trace.named(
        "Iterator::Root::Prefetch")
    assert [e.long_name for e in trace.upstream(prefetch)] == ["Iterator::Root::Prefetch::ParallelMapV2"] * 2
    assert [e.name for e in trace.inside(trace.get_next()[0])] == ["Iterator::Root", "Iterator::Prefetch"]


def test_step_waits_pair_each_marker_with_its_requests():
    waits = tftrace.TraceEvents.from_json(small_trace()).step_waits()
    assert [(w.step, w.requests, w.thread) for w in waits] == [(0, 1, "tf_data_iterator_get_next")] * 1 + [
        (1, 1, "tf_data_iterator_get_next")]
    assert [w.wait_ms for w in waits] == [0.03, 0.002] and waits[0].offset_ms == 0.001
    verdict = tftrace.waiting_verdict(waits, label="toy")
    assert verdict.steps == 1 and verdict.verdict == "not" and str(verdict).startswith("toy: the steps waited")
    assert tftrace.waiting_verdict(waits, skip=0).verdict == "moderately"  # 32 of 180 microseconds


def test_a_profile_without_step_markers_says_how_to_add_them():
    raw = small_trace()
    raw["traceEvents"] = [e for e in raw["traceEvents"] if not e["name"].startswith("train")]
    with pytest.raises(ValueError, match="StepMarkers"):
        tftrace.TraceEvents.from_json(raw).step_waits()


def test_xprofs_thresholds():
    assert [tftrace.classify(p) for p in (0, 4.99, 5, 19.9, 20, 100)] == [
        "not", "not", "moderately", "moderately", "highly", "highly"]
    with pytest.raises(TypeError, match="percentage"):
        tftrace.classify("high")


def test_chain_reads_a_long_name_and_refuses_anything_else():
    assert tftrace.chain("Iterator::Root") == ["Root"]
    with pytest.raises(ValueError, match="long name"):
        tftrace.chain("Prefetch")


def _tables(step_rows, op_rows=(), warnings=()):
    cols = ["stepnum", "deviceComputeTimeMs", "deviceToDeviceTimeMs", "deviceCollectivesTimeMs", "hostComputeTimeMs",
            "kernelLaunchTimeMs", "infeedTimeMs", "outfeedTimeMs", "compileTimeMs", "otherTimeMs", "tooltip",
            "stepTimeMs"]
    return [{"cols": [], "rows": []},
            {"cols": [{"id": c} for c in cols], "p": {"input_conclusion": "Your program is HIGHLY input-bound",
                                                      "hardware_type": "CPU_ONLY"},
             "rows": [{"c": [{"v": v} for v in row]} for row in step_rows]},
            {"cols": [{"id": c} for c in ("opName", "count", "timeInMs", "timeInPercent", "selfTimeInMs",
                                          "selfTimeInPercent", "category")],
             "rows": [{"c": [{"v": v} for v in row]} for row in op_rows]},
            {"cols": [{"id": "severity"}, {"id": "message"}], "rows": [{"c": [{"v": "WARNING"}, {"v": w}]}
                                                                      for w in warnings]}]


def test_the_input_pipeline_analysis_is_read_by_column_name():
    step = ["train 1", 0, 0, 0, 10.0, 0, 30.0, 0, 0, 0, "", 40.0]
    ops = [["Iterator::Root", 1, 30.0, 1.0, 0.1, 0.0, "Preprocessing"],
           ["Iterator::Root::Map", 64, 29.9, 1.0, 29.9, 1.0, "Preprocessing"]]
    analysis = tftrace.InputPipelineAnalysis.from_json(_tables([step, step], ops))
    assert analysis.steps[0] == {"step": "train 1", "step_ms": 40.0, "input_ms": 30.0, "compute_ms": 10.0,
                                 "other_ms": 0.0}
    assert analysis.input_percent == 75.0 and analysis.verdict == "highly" and analysis.hardware == "CPU_ONLY"
    assert [r["long_name"] for r in analysis.iterators] == ["Iterator::Root::Map", "Iterator::Root"]
    empty = tftrace.InputPipelineAnalysis.from_json(_tables([], warnings=["No step marker observed"]))
    assert empty.input_percent is None and empty.verdict == "unknown" and empty.warnings == ["No step marker observed"]
    with pytest.raises(ValueError, match="no step table"):
        tftrace.InputPipelineAnalysis.from_json([{"cols": [], "rows": []}])


def test_the_display_draws_threads_and_lanes():
    trace = tftrace.TraceEvents.from_json(small_trace())
    display = tutor.TraceViewerDisplay.from_trace(trace, steps=1, first_step=0)
    assert [label for label, _ in display.rows] == ["python", "tf_data_iterator_get_next", "tf_data_iterator_resource",
                                                    "tf_Compute"]
    lanes = {name: lane for _, bars in display.rows for _, lane, _, _, name in bars}
    assert lanes == {"train 0": 0, "IteratorGetNext": 0, "Root": 1, "Prefetch": 2, "ParallelMapV2": 0,
                     "ExecutorState::Process": 0}
    drawn = display.plot()
    assert drawn.rows_ == [label for label, _ in display.rows] and len(drawn.bars_["tf.data iterator"].get_paths()) == 3
    with pytest.raises(ValueError, match="no step 5"):
        tutor.TraceViewerDisplay.from_trace(trace, first_step=5)
    with pytest.raises(TypeError, match="tftrace.read"):
        tutor.TraceViewerDisplay.from_trace(small_trace())


def test_missing_folders_and_files_get_a_sentence(tmp_path):
    with pytest.raises(FileNotFoundError, match="no folder"):
        tftrace.xspace_file(tmp_path / "absent")
    with pytest.raises(FileNotFoundError, match="stop"):
        tftrace.xspace_file(tmp_path)
    with pytest.raises(TypeError, match="logdir"):
        tftrace.read(3)
    with pytest.raises(ValueError, match="tool must be one of"):
        tftrace.tool_data(tmp_path, "memory_viewer")


def test_without_xprof_the_message_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "xprof", None)
    monkeypatch.setitem(sys.modules, "xprof.convert", None)
    with pytest.raises(tftrace.ToolMissingError, match="pip install xprof"):
        convert.xprof_converter()
