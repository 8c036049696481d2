"""Lesson 16 exercises: other right answers pass; typical mistakes get a message that names the fault. The right
answers are read from the same recorded profile the checker reads, so no test depends on how fast this machine is."""
import numpy as np
import pytest

from tutor import tftrace
from tutor.checks import lesson16 as ex
from .checking import passes, refused

pytestmark = pytest.mark.slow  # records a profile of model.fit once


@pytest.fixture(scope="module")
def trace():
    return ex.mystery_trace()


def test_the_mystery_run_is_recorded_once_and_holds_fused_map_and_batch(trace):
    assert ex.mystery_trace() is trace
    assert ex.source_chain() == ["Root", "Prefetch", "MapAndBatch", "Shuffle", "TensorSlice"]


@pytest.mark.parametrize("answer", [
    ["Root", "Prefetch", "MapAndBatch", "Shuffle", "TensorSlice"],
    ("Prefetch", "MapAndBatch", "Shuffle", "TensorSlice"),
    ["Iterator::Root", "Iterator::Prefetch", "Iterator::MapAndBatch", "Iterator::Shuffle", "Iterator::TensorSlice"],
    "Iterator::Root::Prefetch::MapAndBatch::Shuffle::TensorSlice",
], ids=["names", "without-root", "short-names", "long-name"])
def test_q1_other_right_answers_pass(trace, answer):
    passes(ex.q1, answer)


@pytest.mark.parametrize("answer, words", [
    (["Root", "Prefetch", "BatchV2", "Map", "Shuffle", "TensorSlice"], ["fused", "MapAndBatch"]),
    (["TensorSlice", "Shuffle", "MapAndBatch", "Prefetch", "Root"], ["opposite order"]),
    (["Root", "Prefetch", "ParallelMapV2", "TensorSlice"], ["5 stages"]),
    ("Root::Prefetch", ["a list of names"]),
], ids=["as-written", "reversed", "wrong-stages", "not-a-long-name"])
def test_q1_mistakes_name_their_fault(trace, answer, words):
    refused(ex.q1, answer, *words)


def test_q2_accepts_a_full_thread_name(trace):
    name, thread = ex.prefetch_input()
    full = next(e.thread for e in trace.upstream(trace.named("Iterator::Root::Prefetch")[0]))
    assert tftrace.thread_kind(full) == thread
    passes(ex.q2, [name, full])


def test_q2_mistakes_name_their_fault(trace):
    name, thread = ex.prefetch_input()
    refused(ex.q2, ("Iterator::Root::Prefetch", thread), "the Prefetch itself")
    refused(ex.q2, (name.split("::")[-1], thread), "the right iterator", name)
    refused(ex.q2, ("Iterator::Root::Prefetch::MapAndBatch::Shuffle", thread), "parent_id")
    refused(ex.q2, (name, "tf_data_iterator_get_next"), "where the Prefetch itself ran")
    refused(ex.q2, (name, "python"), "did not run on")
    refused(ex.q2, name, "two texts")


def test_q3_right_answers_in_other_words_pass(trace):
    truth = tftrace.waiting_verdict(trace.step_waits())
    passes(ex.q3, (round(truth.percent), f"{truth.verdict} input-bound"))
    passes(ex.q3, [truth.percent + 1.5, truth.verdict.upper()])


def _other_measures(trace):
    steady = trace.step_waits()[1:]
    return {"the mean of the steps' shares": 100 * np.mean([w.wait_ms / w.step_ms for w in steady]),
            "the median wait over the median step": 100 * np.median([w.wait_ms for w in steady])
            / np.median([w.step_ms for w in steady])}


def test_q3_other_fair_measures_pass_with_a_note_on_xprofs(trace):
    truth = tftrace.waiting_verdict(trace.step_waits())
    for measure, value in _other_measures(trace).items():
        if tftrace.classify(value) == truth.verdict:
            result = passes(ex.q3, (value, truth.verdict))
            assert abs(value - truth.percent) <= 2 or measure in result.message and "total wait" in result.message


def test_q3_mistakes_name_their_fault(trace):
    truth = tftrace.waiting_verdict(trace.step_waits())
    wrong = next(v for v in ("highly", "moderately", "not") if v != truth.verdict)
    refused(ex.q3, (truth.percent, wrong), "XProf's thresholds")
    refused(ex.q3, (truth.percent / 100, truth.verdict), "fraction")
    near = [truth.percent, *_other_measures(trace).values()]
    far = next(p for p in range(1, 100) if all(abs(p - v) > 2 for v in near) and tftrace.classify(p) == truth.verdict)
    refused(ex.q3, (far, truth.verdict), "step_waits")
    refused(ex.q3, (truth.percent, "slow"), "not one of XProf's verdicts")
    refused(ex.q3, truth.percent, "a tuple")
