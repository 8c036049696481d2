"""TensorFlow's own profile of a training job, read as its tools (XProf, TensorBoard's Profile tab) show it.

>>> tf.profiler.experimental.start(logdir)                                    # doctest: +SKIP
>>> model.fit(ds, epochs=1, steps_per_epoch=12, callbacks=[tftrace.StepMarkers()])  # doctest: +SKIP
>>> tf.profiler.experimental.stop()                                           # doctest: +SKIP
>>> trace = tftrace.read(logdir)              # the trace viewer's events        # doctest: +SKIP
>>> tftrace.waiting_verdict(trace.step_waits())  # is the step waiting for input?  # doctest: +SKIP
>>> tftrace.input_pipeline(logdir).conclusion  # XProf's input-pipeline analysis  # doctest: +SKIP

* :mod:`.record`: :class:`StepMarkers`, the step markers XProf needs to tell ``fit``'s steps apart.
* :mod:`.convert`: XProf's converter, run offline on the folder the profiler wrote (XProf is optional:
  ``pip install xprof``; a clear message says so where it is missing).
* :mod:`.events`: :class:`TraceEvents`, the trace viewer's events: long names, threads, ``parent_id``, steps.
* :mod:`.analysis`: XProf's input-pipeline analysis, and its thresholds applied to the trace.
* :mod:`.display`: :class:`TraceViewerDisplay`, a few steps drawn thread by thread.
"""
from typing import Any

from .analysis import HIGHLY, MODERATELY, InputPipelineAnalysis, WaitingVerdict, classify, waiting_verdict
from .display import TraceViewerDisplay
from .events import GET_NEXT, StepWait, TraceEvent, TraceEvents, chain, thread_kind
from .convert import ToolMissingError, tool_data, xspace_file


def __getattr__(name: str):
    if name == "StepMarkers":  # a Keras callback: Keras loads when it is first asked for, not with tutor
        from .record import StepMarkers

        return StepMarkers
    raise AttributeError(f"module 'tutor.tftrace' has no attribute {name!r}")


def read(logdir: Any) -> TraceEvents:
    """The trace viewer's events of the profile TensorFlow wrote under ``logdir`` (converted by XProf)."""
    return TraceEvents.from_logdir(logdir)


def input_pipeline(logdir: Any) -> InputPipelineAnalysis:
    """XProf's input-pipeline analysis of the profile under ``logdir``."""
    return InputPipelineAnalysis.from_logdir(logdir)


__all__ = ["GET_NEXT", "HIGHLY", "MODERATELY", "InputPipelineAnalysis", "StepMarkers", "StepWait", "ToolMissingError",
           "TraceEvent", "TraceEvents", "TraceViewerDisplay", "WaitingVerdict", "chain", "classify", "input_pipeline",
           "read", "thread_kind", "tool_data", "waiting_verdict", "xspace_file"]
