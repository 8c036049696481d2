"""Profile any tf.data.Dataset with TensorFlow's own profiler and get a :class:`~tutor.timeline.Timeline`.

>>> tl = tutor.profile(ds, steps=20, step_time=0.05)        # doctest: +SKIP
>>> tl.stages, tl.bottleneck, tl.notes                      # doctest: +SKIP
>>> tutor.TimelineDisplay.from_timeline(tl).plot()           # doctest: +SKIP
>>> tl.save_trace("trace.json")                             # doctest: +SKIP

* :mod:`.run`: :func:`profile` runs the dataset under the profiler, bounded in steps and in time.
* :mod:`.xspace`: reads the XSpace protobuf the profiler writes.
* :mod:`.links`: which iterator call waited for which (nesting, and hand-overs across buffers).
* :mod:`.build`: stage names after TensorFlow's rewrites, notes on the rewrites, the Timeline.
"""
from .run import MAX_STEPS, ProfilerBusyError, ProfileTimeout, profile

__all__ = ["MAX_STEPS", "ProfileTimeout", "ProfilerBusyError", "profile"]
