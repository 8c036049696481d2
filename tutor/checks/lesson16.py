"""Exercises for lesson 16: reading TensorFlow's own profile of a training job.

Every question is about one profile, :func:`mystery_trace`: a small Keras model
trained for a few steps on :func:`mystery_pipeline`, recorded by TensorFlow's
profiler and converted by XProf (recorded once per kernel). The right answers
are read from that same profile, so whatever this machine measured, the
learner and the checker read the same events.

>>> from tutor.checks import lesson16 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from typing import Any

import numpy as np
import tensorflow as tf

from .. import augment, data, tftrace, training
from ..i18n import N_
from ..i18n import gettext as _
from ._core import fail, shorten
from .questions import Question

#: The mystery run: digits, batch size and the training steps recorded.
N_DIGITS, BATCH, STEPS = 512, 64, 8
_recorded: dict = {}


def mystery_pipeline() -> tf.data.Dataset:
    """512 digits, shuffled, rotated one by one in Python (SciPy), batched by 64, prefetched: as written."""
    images, labels = data.digits(N_DIGITS, source="synthetic", seed=16)
    return (tf.data.Dataset.from_tensor_slices((images[..., None], labels))
            .shuffle(N_DIGITS, seed=0)
            .map(augment.rotate_slow)
            .batch(BATCH)
            .prefetch(tf.data.AUTOTUNE))


def mystery_trace() -> tftrace.TraceEvents:
    """The trace viewer's events of ``model.fit`` on :func:`mystery_pipeline` for 8 steps (recorded once per kernel)."""
    if "trace" not in _recorded:
        model = training.small_cnn(seed=0)
        logdir = tempfile.mkdtemp(prefix="tutor_lesson16_")
        try:
            try:
                tf.profiler.experimental.start(logdir)
            except tf.errors.AlreadyExistsError:
                fail(_("TensorFlow's profiler is already running in this kernel, and only one can run at a time: "
                       "run tf.profiler.experimental.stop(), then this cell again."))
            try:
                model.fit(mystery_pipeline(), epochs=1, steps_per_epoch=STEPS, verbose=0,
                          callbacks=[tftrace.StepMarkers()])
            finally:
                tf.profiler.experimental.stop()
            _recorded["trace"] = tftrace.read(logdir)
        except tftrace.ToolMissingError as exc:
            fail(str(exc))
        finally:
            shutil.rmtree(logdir, ignore_errors=True)
    return _recorded["trace"]


def _words(answer: Any, what: str) -> list[str]:
    """The answer as a list of stage names; ``what`` (translated) says what the list should hold."""
    if isinstance(answer, str) and answer.startswith("Iterator::"):
        return tftrace.chain(answer)
    if not isinstance(answer, (list, tuple)) or not answer or not all(isinstance(a, str) for a in answer):
        # Translators: {what} says what the list should hold ("the stages from the outermost to the source").
        fail(_("answer with {what}, a list of names such as ['Root', 'Prefetch', ...]; got {answer}.").format(
            what=what, answer=shorten(answer, 40)))
    return [a.strip().removeprefix("Iterator::") for a in answer]


# ------------------------------------------------------------------ q1: the chain of the source
def source_chain() -> list[str]:
    """The stages from the outermost to the source, read from the long name of the source's events."""
    trace = mystery_trace()
    deepest = max((e.long_name for e in trace.iterators()), key=lambda name: name.count("::"))
    return tftrace.chain(deepest)


def _check_q1(answer: Any) -> str:
    got = _words(answer, _("the stages from the outermost to the source"))
    truth = source_chain()
    if got[::-1] in (truth, truth[1:]):
        fail(_("those are the right stages in the opposite order: a long name starts at the outermost stage "
               "(Root, the one the training step calls) and ends at the source."))
    if got[0] != "Root":
        got = ["Root", *got]
    if got == truth:
        # Translators: {name} is an iterator's long name: Iterator::Root::Prefetch::...
        return _("the long name {name} walks from the root down to the source.").format(
            name="::".join(["Iterator", *truth]))
    if "Map" in got and "BatchV2" in got and "MapAndBatch" in truth:
        fail(_("you wrote map and batch as two stages, as the pipeline is written. TensorFlow fused them into one "
               "iterator, MapAndBatch (the map_and_batch_fusion rewrite): the profile names the stages that ran. "
               "Read the long name of the source's events."))
    fail(_("the profile's chain has {n} stages from Root to the source, and yours differs. Print "
           "trace.named('Iterator::TensorSlice')[0].long_name and split it at '::'.").format(n=len(truth)))


# ------------------------------------------------------------------ q2: what fed the Prefetch
def prefetch_input() -> tuple[str, str]:
    """``(long name, thread kind)`` of the calls whose ``parent_id`` is the Prefetch iterator's ``id``."""
    trace = mystery_trace()
    prefetch = [e for e in trace.iterators() if e.long_name == "Iterator::Root::Prefetch"]
    if not prefetch:
        fail(_("the mystery profile holds no Prefetch events; run ex.mystery_trace() again in a fresh kernel."))
    fed = trace.upstream(prefetch[0])
    name = Counter(e.long_name for e in fed).most_common(1)[0][0]
    thread = Counter(tftrace.thread_kind(e.thread) for e in fed if e.long_name == name).most_common(1)[0][0]
    return name, thread


def _check_q2(answer: Any) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2 or not all(isinstance(a, str) for a in answer):
        fail(_("answer with two texts in a tuple: (the long name of the events that fed the Prefetch, the kind of "
               "thread they ran on), for example ('Iterator::Root::...', 'tf_data_...'); got {answer}.").format(
            answer=shorten(answer, 40)))
    name, thread = answer[0].strip(), tftrace.thread_kind(answer[1].strip())
    truth_name, truth_thread = prefetch_input()
    trace = mystery_trace()
    own = Counter(tftrace.thread_kind(e.thread) for e in trace.named("Iterator::Root::Prefetch")).most_common(1)[0][0]
    if name != truth_name:
        if name == "Iterator::Root::Prefetch":
            fail(_("that is the Prefetch itself. Its input's events have the Prefetch's id as their parent_id: "
                   "trace.upstream(prefetch_event)."))
        if name and truth_name.endswith("::" + name):
            fail(_("{name} is the right iterator: give its long name, {long}, as the events call it.").format(
                name=name, long=truth_name))
        fail(_("{name} is not the iterator whose calls have the Prefetch's id as their parent_id. "
               "Take one Prefetch event and look at trace.upstream(event).").format(name=shorten(name, 60)))
    if thread != truth_thread:
        if thread == own:
            # Translators: {thread} is a kind of thread, as TensorFlow names it: tf_data_private_threadpool.
            fail(_("{thread} is where the Prefetch itself ran, inside the training step's request. Its input runs "
                   "on the prefetch's own background thread: look at the thread of the upstream events.").format(
                thread=thread))
        # Translators: {name} is an iterator's long name; {thread} a kind of thread.
        fail(_("the events of {name} did not run on {thread} threads; print the .thread of "
               "the upstream events.").format(name=truth_name, thread=shorten(thread, 50)))
    return _("{name} ran on {thread} threads, away from the step's own thread ({own}): the Prefetch "
             "filled its buffer there while the model computed.").format(name=truth_name, thread=truth_thread,
                                                                         own=own)


# ------------------------------------------------------------------ q3: is the step waiting for input?
def _check_q3(answer: Any) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2 or isinstance(answer[0], bool) \
            or not isinstance(answer[0], (int, float)) or not isinstance(answer[1], str):
        fail(_("answer with a tuple (percent, verdict): the share of step time spent in IteratorGetNext, in "
               "percent, and 'not', 'moderately' or 'highly'; got {answer}.").format(answer=shorten(answer, 40)))
    waits = mystery_trace().step_waits()
    truth = tftrace.waiting_verdict(waits)
    percent, word = float(answer[0]), " ".join(answer[1].lower().split())
    if 0 < percent <= 1 and truth.percent > 2:
        fail(_("{percent:g} looks like a fraction: multiply by 100 to give percent.").format(percent=percent))
    steady = waits[1:]
    others = {  # other fair ways to put one share on the steps, each named for the note below
        _("the mean of the steps' shares"): 100 * float(np.mean([w.wait_ms / w.step_ms for w in steady])),
        _("the median wait over the median step"): 100 * float(np.median([w.wait_ms for w in steady])
                                                                / np.median([w.step_ms for w in steady])),
    }
    other = next((name for name, value in others.items() if abs(percent - value) <= 2), None)
    if abs(percent - truth.percent) > 2 and other is None:
        # Translators: {percent} is the profile's share, {yours} the learner's answer.
        fail(_("the steps after the first spent {percent:.0f}% of their time in IteratorGetNext, not "
               "{yours:.0f}%. Add up wait_ms and step_ms of trace.step_waits()[1:] (the first step also "
               "started the pipeline), then divide.").format(percent=truth.percent, yours=percent))
    verdict = next((v for v in ("moderately", "highly", "not") if word.startswith(v)), None)
    if verdict is None:
        fail(_("{answer} is not one of XProf's verdicts: answer 'not', 'moderately' or 'highly'.").format(
            answer=shorten(answer[1], 30)))
    if verdict != truth.verdict:
        # Translators: {verdict} is XProf's word, kept in English since answers use it: not, moderately, highly.
        fail(_("{percent:.0f}% is {verdict} input-bound by XProf's thresholds: below 5% not, from 5% "
               "to 20% moderately, from 20% highly.").format(percent=truth.percent, verdict=truth.verdict))
    said = _("{percent:.0f}% of each step went to waiting for the batch: {verdict} input-bound.").format(
        percent=truth.percent, verdict=truth.verdict)
    if abs(percent - truth.percent) > 2:
        # Translators: {measure} names how the learner computed the share, e.g. "the mean of the steps' shares".
        said += " " + _("Your {yours:.0f}% is {measure}, a fair measure too; XProf divides the total wait by the "
                        "total step time.").format(yours=percent, measure=other)
    return said


q1 = Question(
    N_("Exercise 1 (the long name)"),
    _check_q1,
    hints=[N_("The source is the stage at the end of the longest long name: the TensorSlice events."),
           N_("tutor.tftrace.chain('Iterator::Root::A::B') gives ['Root', 'A', 'B']."),
           N_("The profile names the iterators that ran, after TensorFlow's rewrites: count the stages, do not copy "
              "the pipeline's code.")],
    solution="""
    ex = tutor.checks.lesson16
    trace = ex.mystery_trace()
    source = trace.named("Iterator::TensorSlice")[0]
    answer = tutor.tftrace.chain(source.long_name)
    """,
)

q2 = Question(
    N_("Exercise 2 (what fed the Prefetch)"),
    _check_q2,
    hints=[N_("Take one event of the Prefetch: trace.named('Iterator::Root::Prefetch')[0]."),
           N_("trace.upstream(event) gives the events whose parent_id is that event's id."),
           N_("tutor.tftrace.thread_kind(event.thread) drops the number TensorFlow appends to a thread's name.")],
    solution="""
    ex = tutor.checks.lesson16
    trace = ex.mystery_trace()
    prefetch = trace.named("Iterator::Root::Prefetch")[0]
    fed = trace.upstream(prefetch)
    answer = (fed[0].long_name, tutor.tftrace.thread_kind(fed[0].thread))
    """,
)

q3 = Question(
    N_("Exercise 3 (is the step waiting for input?)"),
    _check_q3,
    hints=[N_("trace.step_waits() gives each step's step_ms and wait_ms (the IteratorGetNext DoCompute)."),
           N_("Leave out the first step: its request also started the pipeline (the shuffle filled its buffer)."),
           N_("XProf's thresholds: below 5% not input-bound, from 5% to 20% moderately, from 20% highly; "
              "tutor.tftrace.classify(percent) applies them.")],
    solution="""
    ex = tutor.checks.lesson16
    waits = ex.mystery_trace().step_waits()[1:]   # the first step also started the pipeline
    percent = 100 * sum(w.wait_ms for w in waits) / sum(w.step_ms for w in waits)
    answer = (percent, tutor.tftrace.classify(percent))
    """,
)
