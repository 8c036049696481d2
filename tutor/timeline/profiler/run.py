"""profile: run any tf.data.Dataset under TensorFlow's profiler and return its Timeline.

The run, step by step:

1. TensorFlow's profiler starts, writing into a temporary folder
   (``tf.profiler.experimental.start``; host events only).
2. A helper thread creates a fresh iterator of the dataset, exactly as it
   is, and takes ``steps`` elements. Around each ``get_next`` and each
   training step it leaves a marker in the trace (``tutor.next``,
   ``tutor.step``: ``tf.profiler.experimental.Trace``), so the consumer's
   side of the timeline comes from the same clock as TensorFlow's events.
3. The calling thread waits at most ``timeout`` seconds. A pipeline that
   yields nothing for that long (a ``filter`` that never matches on an
   endless input) has its ``get_next`` cancelled, and :class:`ProfileTimeout`
   says what happened.
4. The profiler stops and writes an XSpace file, which
   :mod:`.xspace` reads and :mod:`.build` turns into a Timeline. The folder
   is removed, whatever happened.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from typing import Callable

import tensorflow as tf

from ..._quiet import stderr_to_devnull
from ..._validate import require_dataset, require_positive_int, require_seconds
from ...i18n import gettext as _
from ...reading import ReadTimeout, gave_up, pull
from ..events import Timeline
from ..pipeline import Pipeline, call_like_map
from .build import build_timeline
from .xspace import find_xspace, read_events

#: The longest run profile() agrees to make: every call of every stage becomes an event.
MAX_STEPS = 2_000
#: Default seconds the whole run may take before it is stopped.
DEFAULT_TIMEOUT = 60.0
WHERE = "tutor.profile"


class ProfileTimeout(TimeoutError):
    """The dataset did not deliver ``steps`` elements before the deadline; ``steps_done`` says how many it did."""

    def __init__(self, message: str, steps_done: int):
        super().__init__(message)
        self.steps_done = steps_done


class ProfilerBusyError(RuntimeError):
    """TensorFlow's profiler was already running, so this run could not start it."""


def profile(ds, *, steps: int, step_time: float = 0.0, train_step: Callable | None = None, label: str = "",
            timeout: float = DEFAULT_TIMEOUT) -> Timeline:
    """Run ``ds`` for ``steps`` consumer steps under TensorFlow's profiler and return its timeline.

    Parameters
    ----------
    ds : tf.data.Dataset
        Any dataset, unchanged: TensorFlow applies its usual graph rewrites,
        and the stages are the iterators it really ran.
    steps : int
        How many elements the consumer takes (required: an endless
        ``repeat()`` stops here). Fewer if the dataset ends first.
    step_time : float
        Seconds each consumer step "trains" (``time.sleep``, like an
        accelerator that leaves the CPU free). Ignored when ``train_step`` is given.
    train_step : callable, optional
        A real step, called with each element as tf.data's ``map`` would (a
        tuple is spread over the arguments), e.g.
        ``lambda x, y: model.train_on_batch(x, y)``.
    label : str
        Shown in plots.
    timeout : float
        Seconds the run may take before it is stopped with :class:`ProfileTimeout`.

    Returns
    -------
    Timeline
        ``stages`` are TensorFlow's iterator names after its rewrites, from
        source to consumer (``MapAndBatch``, an injected ``Prefetch`` ...);
        ``notes`` says which rewrites happened; ``parent`` links each call to
        the call that waited for it, so ``stage_self_time`` and ``bottleneck``
        follow TensorFlow's own analysis; ``save_trace(path)`` writes it for
        Perfetto. Event rows: one per ``GetNext`` call of an iterator (its
        time includes waiting for its inputs) and one per run of an
        asynchronous stage's function; ``step`` and ``element`` are the
        consumer step the call served, -1 for work still in a buffer at the
        end. A call still running when the profiler stopped is not in the
        profile (TensorFlow records an event when it ends).

    Raises
    ------
    TypeError, ValueError
        Bad arguments, with a sentence that says what was expected; a
        dataset that yields nothing at all.
    ProfilerBusyError
        TensorFlow's profiler is already running in this program.
    ProfileTimeout
        The steps did not all arrive within ``timeout`` seconds.

    Examples
    --------
    >>> ds = tf.data.Dataset.range(100).map(lambda x: x * 2).batch(10)
    >>> tl = profile(ds, steps=5)                        # doctest: +SKIP
    >>> tl.stages, tl.notes[0]                            # doctest: +SKIP
    (['Range', 'MapAndBatch'], 'TensorFlow fused map and batch into one stage, MapAndBatch (...)')
    """
    if isinstance(ds, Pipeline):
        raise TypeError(_("{where} expects a tf.data.Dataset; this is a tutor.timeline.Pipeline. Profile the "
                          "dataset it builds, tutor.profile(pipe.build(), steps=...), or record it with "
                          "tutor.timeline.record(pipe, steps=...).").format(where=WHERE))
    require_dataset(ds, WHERE)
    steps = require_positive_int(steps, "steps", WHERE, maximum=MAX_STEPS)
    step_time = require_seconds(step_time, "step_time", WHERE)
    timeout = require_seconds(timeout, "timeout", WHERE)
    if timeout == 0:
        raise ValueError(_("{where}: timeout must be more than 0 seconds, for example timeout=60.").format(where=WHERE))
    if train_step is not None and not callable(train_step):
        raise TypeError(_("{where}: train_step must be a function called with each element, such as "
                          "lambda x, y: model.train_on_batch(x, y); got {type}.")
                        .format(where=WHERE, type=type(train_step).__name__))
    if not isinstance(label, str):
        raise TypeError(_("{where}: label must be a string, got {type}.").format(where=WHERE, type=type(label).__name__))

    logdir = tempfile.mkdtemp(prefix="tutor-profile-")
    try:
        _start_profiler(logdir)
        try:
            done = _run(ds, steps, step_time, train_step, timeout)
        finally:
            with stderr_to_devnull():  # the profiler's C++ log lines
                tf.profiler.experimental.stop()
        if done == 0:
            raise ValueError(_("{where}: the dataset produced no elements; check its source and any "
                               "take()/filter() stages.").format(where=WHERE))
        events = read_events(find_xspace(logdir))
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    meta = {"step_time": float(step_time), "train_step": train_step is not None, "tf_version": tf.__version__,
            "passive_stages": []}
    return build_timeline(events, label=label, meta=meta)


def _start_profiler(logdir: str) -> None:
    """Start TensorFlow's profiler for host (CPU thread) events only.

    TF 2.20 on Python 3.13 ignores the options and logs "host_tracer_level
    expects an i value" for each; its defaults (host level 2, Python tracer
    off) record the same tf.data events, so those lines are kept out of the notebook.
    """
    options = tf.profiler.experimental.ProfilerOptions(host_tracer_level=2, python_tracer_level=0,
                                                       device_tracer_level=0)
    try:
        with stderr_to_devnull():
            tf.profiler.experimental.start(logdir, options=options)
    except tf.errors.AlreadyExistsError:
        raise ProfilerBusyError(
            _("{where}: TensorFlow's profiler is already running in this program (tf.profiler.experimental.start, "
              "a TensorBoard callback with profile_batch, or another tutor.profile still running), and only one "
              "can run at a time. Stop it with tf.profiler.experimental.stop(), then call tutor.profile again.")
            .format(where=WHERE)
        ) from None


def _run(ds, steps: int, step_time: float, train_step: Callable | None, timeout: float) -> int:
    """Take ``steps`` elements through :func:`tutor.reading.pull`, with markers; return how many arrived."""

    def marked(what: str, step: int | None):
        return tf.profiler.experimental.Trace(f"tutor.{what}", **({} if step is None else {"step": step}))

    def work(step: int, value) -> None:
        with tf.profiler.experimental.Trace("tutor.step", step=step):
            if train_step is not None:
                call_like_map(train_step, value)
            elif step_time:
                time.sleep(step_time)

    try:
        return len(pull(ds, timeout=timeout, where=WHERE, convert=lambda value: None, on_element=work,
                        limit=steps, around=marked))
    except ReadTimeout as exc:
        done = len(exc.elements)
        said = gave_up(done, timeout, of=steps, unit="step", stopped="the run was stopped")
        # Translators: {said} is the sentence that says how many steps came in how long and why a read gives up.
        raise ProfileTimeout(_("{where}: {said} Slow steps do the same: give it longer with timeout=..., or ask for "
                               "fewer steps.").format(where=WHERE, said=said), done) from None
