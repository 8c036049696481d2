"""The helpers in tests/busy.py, on hand-made intervals and plain threads: the timing-free tests rely on them."""
import os
import threading
import time

import numpy as np
import pytest

from busy import CLOCK_TOLERANCE, CallLog, Meeting, busy_cores, cores, intersects, most_at_once


def test_most_at_once_counts_open_intervals():
    assert most_at_once([], []) == 0
    assert most_at_once([0, 1, 2], [1.5, 3, 2.5]) == 2
    assert most_at_once([0, 0, 0], [1, 1, 1]) == 3
    assert most_at_once([0, 1, 2], [1, 2, 3]) == 1  # touching end to start is taking turns, not overlapping


def test_intersects_looks_for_any_shared_stretch_longer_than_the_tolerance():
    work_starts, work_ends = np.array([0.0, 1.0, 2.9]), np.array([1.0, 1.5, 3.5])
    step_starts, step_ends = np.array([1.0, 3.0]), np.array([2.0, 4.0])
    assert intersects(work_starts, work_ends, step_starts, step_ends).tolist() == [False, True, True]
    shifted = intersects([0.0], [1.0 + CLOCK_TOLERANCE / 2], step_starts, step_ends)
    assert shifted.tolist() == [False]  # a stamp a hair out of order is not an overlap


def _in_threads(n, body):
    threads = [threading.Thread(target=body) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_meeting_brings_its_first_callers_together():
    calls, meeting = CallLog(), Meeting(3)

    def body():
        with calls.call():
            meeting.attend()

    _in_threads(5, body)  # the two callers after the first three do not wait
    assert meeting.met and len(calls) == 5 and calls.most_at_once >= 3


def test_meeting_gives_up_when_too_few_can_come():
    calls, meeting = CallLog(), Meeting(3, patience=0.2)

    def body():
        with calls.call():
            meeting.attend()

    _in_threads(2, body)
    assert not meeting.met and calls.most_at_once == 2


def test_call_log_counts_cpu_of_computing_but_not_of_waiting():
    log = CallLog()
    with log.call():
        time.sleep(0.05)
    waited = log.cpu_seconds
    with log.call():
        sum(range(5_000_000))
    assert waited < 0.02 < log.cpu_seconds - waited
    assert log.wall_seconds >= 0.05


def test_busy_cores_starts_and_stops_its_own_processes():
    with busy_cores(1) as pids:
        assert len(pids) == 1
        os.kill(pids[0], 0)  # running
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)  # stopped and reaped
    assert cores() >= 1
