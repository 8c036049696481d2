"""The facts lesson 00 (Start here) states, checked on real TensorFlow.

"What is this kernel running on?": TensorFlow sizes its thread pools for the cores it may run on (the affinity),
one thread per core whatever ``num_parallel_calls`` asks, and not for a CPU quota; calls that wait still overlap up
to that many. Lessons 07 and 09 come back to it. That the pool ignores a real cgroup quota is checked beside
tutor.env's own quota tests, whose cgroup fixture it needs (tests/test_quiet_and_env.py).

No test decides by a duration: calls meet at a barrier (:class:`busy.Meeting`), so a loaded machine can only
delay them, never change what the test sees.
"""
import os
import time

import pytest
import tensorflow as tf

from busy import CallLog, Meeting, cores

from .helpers import Gauge, map_in_python, parallel_map


# ---------------------------------- the thread pool TensorFlow sizes for the cores it may run on (not for a CPU quota)
_ONE_CORE = """
import os, threading, sys
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
lock, state = threading.Lock(), {"active": 0, "peak": 0}
def work(x):
    with lock:
        state["active"] += 1; state["peak"] = max(state["peak"], state["active"])
    threading.Event().wait(0.02)
    with lock:
        state["active"] -= 1
    return x
ds = tf.data.Dataset.range(12).map(lambda x: tf.py_function(work, [x], tf.int64), num_parallel_calls=4)
assert [int(v) for v in ds] == list(range(12))
print(state["peak"])
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs Linux CPU affinity")
def test_default_pool_follows_the_cores_the_process_may_use():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _ONE_CORE], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "1"  # one allowed core: one thread, one call at a time


def test_default_pool_has_one_thread_per_core_whatever_num_parallel_calls_says():
    n = cores()
    for parallel in (tf.data.AUTOTUNE, 2 * n + 2):
        gauge = Gauge(meet=n)
        assert parallel_map(gauge, parallel, n=3 * n + 3) == list(range(3 * n + 3))
        assert gauge.meeting.met and gauge.peak <= n  # up to one call per core, never more


def test_tf_data_threads_default_to_the_core_count_even_for_sleeps():
    n = cores()
    calls = CallLog()
    # One more caller than there are cores waits to meet: only a bigger thread pool could bring them together.
    meeting = Meeting(n + 1, patience=1.0)

    def sleep():
        with calls.call():
            meeting.attend()
            time.sleep(0.01)

    map_in_python(sleep, n=2 * n + 2, parallel=4 * n)
    assert not meeting.met
    assert min(n, 2) <= calls.most_at_once <= n
