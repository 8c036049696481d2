"""Timelines recorded from real tf.data runs, and a model that explains them.

>>> from tutor import timeline
>>> pipe = timeline.Pipeline(tf.data.Dataset.range(8)).map(timeline.sleep_work(0.01), name="work").prefetch(1)
>>> tl = timeline.record(pipe, steps=8, step_time=0.01)          # a real run
>>> model = timeline.simulate([("work", 0.01)], step_time=0.01, steps=8, prefetch=1)
>>> timeline.TimelineDisplay.compare([tl, model]).plot()          # doctest: +SKIP

* :class:`Pipeline` writes a pipeline with named stages; :func:`record` runs it
  and returns a :class:`Timeline` (``.events``, ``.total_time``,
  ``.stage_busy_fraction``, ``.consumer_wait_fraction``).
* :func:`simulate` predicts the same table from per-stage costs (pure NumPy).
* :func:`profile` runs *any* ``tf.data.Dataset`` under TensorFlow's profiler and
  returns the same table, with TensorFlow's own stage names (``tutor.profile``).
* Every Timeline says who holds the time (``.stage_self_time``, ``.bottleneck``)
  and exports to Perfetto (``.save_trace(path)``).
* :class:`TimelineDisplay` draws one or several timelines as a Gantt chart.
* :func:`naive_options` turns off tf.data's automatic speed-ups for a fair baseline.
* :func:`sleep_work`, :func:`python_busy_work`, :func:`tf_busy_work`: work of a known cost.
* :func:`explorer_pipeline`, :class:`RunBook`, :func:`step_period`: the timeline explorer's pipeline and its runs.
"""
from .display import TimelineDisplay
from .events import Timeline, physical_limit
from .pipeline import Pipeline, naive_options
from .profiler import ProfilerBusyError, ProfileTimeout, profile
from .record import record
from .runs import EPOCHS, FILES, RECORDS, STEPS, DecodeCost, Prebuilt, RunBook, explorer_pipeline, pipeline_code, step_period
from .schema import CONSUMER
from .simulate import simulate
from .work import busy_wait, fitted_tf_busy_work, python_busy_work, seconds_per_element, sleep_work, tf_busy_work

__all__ = [
    "CONSUMER",
    "DecodeCost",
    "EPOCHS",
    "FILES",
    "Prebuilt",
    "RECORDS",
    "RunBook",
    "STEPS",
    "explorer_pipeline",
    "pipeline_code",
    "step_period",
    "Pipeline",
    "ProfileTimeout",
    "ProfilerBusyError",
    "Timeline",
    "TimelineDisplay",
    "busy_wait",
    "naive_options",
    "physical_limit",
    "profile",
    "python_busy_work",
    "record",
    "simulate",
    "sleep_work",
    "fitted_tf_busy_work", "seconds_per_element", "tf_busy_work",
]
