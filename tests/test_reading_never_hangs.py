"""A dataset that never yields can't hang a read, nor leave the process stuck after the read gave up.

A ``map`` whose Python function never returns (a ``py_function`` waiting on an
event that is never set) is read by every kind of reader the course has:
``take_elements``, the Displays, ``tutor.profile``, the lessons' checks, and the
timings (``time_pipeline``, ``tutor.verdict.compare``, ``tutor.timeline.record``,
``seconds_per_element``, the service's ``time_job``); Grain pipelines that spin
are read by the Displays too.
Each must give up at its deadline with a sentence; afterwards ordinary
pipelines (map, batch, a fused map + batch, parallel map, interleave) must
still run in the same process, also after many such give-ups, and the process
must exit normally.

Every case runs in one child process, one after the other, as a learner's kernel meets them: a regression
fails here instead of blocking the suite, and the process must still exit normally after all of its give-ups.
The child runs under a hard limit that only catches a hang: it is far above what the child needs even on a
busy machine, and nothing here is timed. (One child, not one per case: each child imports TensorFlow, which
costs more CPU time than the cases themselves.)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

#: Seconds the child may run before it counts as hung (its reads give up after 1 s each).
HARD_LIMIT = 600

SETUP = textwrap.dedent("""
    import json, threading
    import tensorflow as tf
    import tutor
    import tutor.reading
    from tutor.checks import _read
    tutor.reading.DEFAULT_TIMEOUT = 1.0  # every reader's deadline, shortened for the test
    tutor.reading.PASS_TIMEOUT = 1.0  # and every timing's
    _read.TIMEOUT = 1.0
    NEVER = threading.Event()  # never set

    def report(case, result):  # one line per case, read by the tests below
        print(f"RESULT {case} " + json.dumps(result), flush=True)

    def wait_forever(x):
        NEVER.wait()
        return x

    def blocking(x):
        return tf.ensure_shape(tf.py_function(wait_forever, [x], tf.int64), [])

    STUCK = {
        "known length": lambda: tf.data.Dataset.range(5).map(blocking),
        "unknown length": lambda: tf.data.Dataset.range(5).filter(lambda x: True).map(blocking),
        "batched after the map (fused)": lambda: (
            tf.data.Dataset.range(1000).filter(lambda x: True).map(blocking).batch(64)),
        "inside interleave": lambda: tf.data.Dataset.range(2).interleave(
            lambda i: tf.data.Dataset.range(3).map(blocking), cycle_length=2, num_parallel_calls=2),
        "prefetched": lambda: tf.data.Dataset.range(5).map(blocking).prefetch(2),
        "behind repeat()": lambda: tf.data.Dataset.range(5).map(blocking).repeat(),
        "parallel map": lambda: tf.data.Dataset.range(100).map(blocking, num_parallel_calls=4),
    }

    def double(x):
        return tf.py_function(lambda v: v * 2, [x], tf.int64)

    def ordinary():
        # What later cells of a lesson do: each must still run to the end.
        return {
            "map": [int(v) for v in tf.data.Dataset.range(4).map(lambda x: x + 1).as_numpy_iterator()],
            "batch": [b.tolist() for b in tf.data.Dataset.range(5).batch(2).as_numpy_iterator()],
            "map + batch (fused)": [b.tolist() for b in tf.data.Dataset.from_tensor_slices([1, 2, 3])
                                    .map(lambda x: x * 2).batch(2).as_numpy_iterator()],
            "py_function map + batch": [b.tolist() for b in tf.data.Dataset.range(3).filter(lambda x: True)
                                        .map(double).batch(2).as_numpy_iterator()],
            "parallel map": [int(v) for v in tf.data.Dataset.range(4).map(
                double, num_parallel_calls=2).as_numpy_iterator()],
            "interleave": sorted(int(v) for v in tf.data.Dataset.range(2).interleave(
                lambda i: tf.data.Dataset.range(2).map(lambda x: x + 10 * i), cycle_length=2,
                num_parallel_calls=2).as_numpy_iterator()),
        }

    EXPECTED = {"map": [1, 2, 3, 4], "batch": [[0, 1], [2, 3], [4]], "map + batch (fused)": [[2, 4], [6]],
                "py_function map + batch": [[0, 2], [4]], "parallel map": [0, 2, 4, 6],
                "interleave": [0, 1, 10, 11]}
""")


#: Each test's case: the code the child runs for it, which ends with ``report(case, result)``. Filled in below.
CASES: dict[str, str] = {}


def case(body: str):
    """Register ``body`` as the child's code for the decorated test, which gets its result as ``result``."""
    def register(test):
        CASES[test.__name__] = textwrap.dedent(body).replace("REPORT(", f"report({test.__name__!r}, ")
        return test
    return register


@pytest.fixture(scope="module")
def results() -> dict:
    """Run every case in one fresh Python, in the order written, and return ``test name -> result``."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TUTOR_DATA_SOURCE="synthetic")
    code = SETUP + "".join(CASES.values())
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HARD_LIMIT,
                              env=env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child process hung (no end after {HARD_LIMIT} s); its output so far:\n{exc.stdout}")
    found = {}
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            name, result = line[len("RESULT "):].split(" ", 1)
            found[name] = json.loads(result)
    assert done.returncode == 0 and len(found) == len(CASES), (
        f"child failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    return found


@pytest.fixture
def result(results, request) -> dict:
    return results[request.node.name]


@case("""
        verdicts = {}
        for name, build in STUCK.items():
            try:
                tutor.take_elements(build(), 5)
                verdicts[name] = "returned"
            except tutor.reading.ReadTimeout as exc:
                verdicts[name] = str(exc)
        REPORT({"verdicts": verdicts, "after": ordinary(), "expected": EXPECTED})
    """)
def test_take_elements_gives_up_on_every_kind_of_stuck_pipeline_and_later_pipelines_still_run(result):
    for name, message in result["verdicts"].items():
        assert "reading stopped" in message, (name, message)
        assert "map() whose function never returns" in message and "filter()" in message, message
    assert result["after"] == result["expected"]


@case("""
        from tutor import BatchOrderDisplay, ShuffleDisplay
        readers = {
            "ShuffleDisplay.from_dataset": lambda ds: ShuffleDisplay.from_dataset(ds, max_elements=5),
            "BatchOrderDisplay.from_dataset": lambda ds: BatchOrderDisplay.from_dataset(
                ds if ds.element_spec.shape.rank == 1 else ds.batch(2), max_batches=3),
            "tutor.profile": lambda ds: tutor.profile(ds, steps=3, timeout=1.0),
        }
        verdicts = {}
        for reader, use in readers.items():
            for name in ("known length", "batched after the map (fused)", "behind repeat()"):
                try:
                    use(STUCK[name]())
                    verdicts[f"{reader} / {name}"] = "returned"
                except TimeoutError as exc:
                    verdicts[f"{reader} / {name}"] = str(exc)
        REPORT({"verdicts": verdicts, "after": ordinary(), "expected": EXPECTED})
    """)
def test_displays_and_profile_give_up_with_a_sentence(result):
    assert len(result["verdicts"]) == 9
    for name, message in result["verdicts"].items():
        assert message != "returned" and ("stopped" in message or "was stopped" in message), (name, message)
    assert result["after"] == result["expected"]


@case("""
        import grain

        def spin(x):  # a Grain map that never returns, busy in Python
            while True:
                pass

        readers = {
            "tutor.time_pipeline": lambda: tutor.time_pipeline(STUCK["known length"]()),
            "tutor.verdict.compare": lambda: tutor.verdict.compare(STUCK["prefetched"](), tf.data.Dataset.range(3),
                                                                   show=False),
            "tutor.timeline.record": lambda: tutor.timeline.record(
                tutor.timeline.Pipeline(tf.data.Dataset.range(5)).map(blocking, name="wait"), steps=5),
            "tutor.timeline.seconds_per_element": lambda: tutor.timeline.seconds_per_element(blocking),
            "tutor.service.time_job": lambda: tutor.service.time_job(STUCK["parallel map"]()),
            "ShuffleDisplay of a Grain map": lambda: tutor.ShuffleDisplay.from_dataset(
                grain.MapDataset.range(5).map(spin)),
            "BatchOrderDisplay of a Grain IterDataset": lambda: tutor.BatchOrderDisplay.from_dataset(
                grain.MapDataset.range(5).repeat().filter(lambda x: x < 0).to_iter_dataset().batch(2)),
        }
        verdicts = {}
        for name, use in readers.items():
            try:
                use()
                verdicts[name] = "returned"
            except TimeoutError as exc:
                verdicts[name] = str(exc)
        REPORT({"verdicts": verdicts, "after": ordinary(), "expected": EXPECTED})
        # The process must still exit normally: nothing Grain or tf.data left behind waits at shutdown.
    """)
def test_timings_and_grain_reads_give_up_with_the_one_sentence(result):
    assert len(result["verdicts"]) == 7
    for name, message in result["verdicts"].items():
        assert "so reading stopped" in message and "a shuffle buffer still filling" in message, (name, message)
    assert result["after"] == result["expected"]


#: A correct answer to a question, with a map that waits forever put in front: (question, code for `answer`).
STALLED_ANSWERS = {
    "lesson00.q1": "stall(tf.data.Dataset.range(5))",
    "lesson02.q1": "stall(tf.data.Dataset.range(10)).batch(4).repeat(3)",
    "lesson03.q3": "(lambda fixed: (fixed.take(80).shuffle(80), fixed.skip(80)))("
                   "stall(tf.data.Dataset.range(100)).shuffle(100, seed=0, reshuffle_each_iteration=False))",
    "lesson12.q2": "(lambda fixed: (fixed.skip(100).shuffle(400, seed=1), fixed.take(100)))("
                   "stall(tutor.checks.lesson12.id_dataset()).shuffle(500, seed=0, reshuffle_each_iteration=False))",
}


@case(f"""
        import importlib

        def stall(ds):
            if isinstance(ds.element_spec, dict):  # lesson 12's elements: stall the id
                return ds.map(lambda d: {{**d, "id": blocking(d["id"])}})
            return ds.map(blocking)

        verdicts = {{}}
        for name, code in {STALLED_ANSWERS!r}.items():
            module, question = name.split(".")
            q = getattr(importlib.import_module("tutor.checks." + module), question)
            r = q.check(eval(code))
            verdicts[name] = [r.status, r.message]
        REPORT({{"verdicts": verdicts, "after": ordinary(), "expected": EXPECTED}})
    """)
def test_checks_give_up_on_an_answer_that_never_yields_and_the_next_cells_work(result):
    for name, (status, message) in result["verdicts"].items():
        assert status == "not yet", (name, status, message)
        assert "stopped reading" in message and "map()" in message, (name, message)
        assert "Traceback" not in message, (name, message)
    assert result["after"] == result["expected"]


@case("""
        import importlib, pkgutil, re
        import tutor.checks
        from tutor.checks import Question

        def stall(ds):
            def wait(*element):
                gate = tf.py_function(wait_forever, [tf.constant(0, tf.int64)], tf.int64)
                with tf.control_dependencies([gate]):
                    return tf.nest.map_structure(tf.identity, element if len(element) > 1 else element[0])
            return ds.map(wait)

        verdicts, skipped = {}, {}
        names = sorted(m.name for m in pkgutil.iter_modules(tutor.checks.__path__) if re.fullmatch(r"lesson\\d\\d", m.name))
        for name in names:
            module = importlib.import_module("tutor.checks." + name)
            for qname, q in sorted(vars(module).items()):
                if not isinstance(q, Question) or getattr(q, "takes_function", False):
                    continue
                try:
                    answer = q.solution_answer()
                except Exception as exc:  # needs a notebook's setup cells
                    skipped[f"{name}.{qname}"] = type(exc).__name__
                    continue
                if isinstance(answer, tf.data.Dataset):
                    stalled = stall(answer)
                elif isinstance(answer, tuple) and answer and all(isinstance(a, tf.data.Dataset) for a in answer):
                    stalled = tuple(stall(a) for a in answer)
                else:
                    continue
                r = q.check(stalled)
                verdicts[f"{name}.{qname}"] = [r.status, r.message]
                break
        tutor.service.stop_all()
        REPORT({"verdicts": verdicts, "skipped": skipped, "after": ordinary(), "expected": EXPECTED})
    """)
def test_one_check_per_lesson_gives_up_on_its_own_solution_made_to_wait_forever(result):
    # For every lesson, the first question whose solution is a dataset (or a tuple of datasets): the same
    # answer with a map in front of every element that waits forever. Its check must say so, in a sentence.
    lessons = {name.split(".")[0] for name in result["verdicts"]}
    assert len(lessons) >= 10, (sorted(lessons), result["skipped"])
    gave_up = 0
    for name, (status, message) in result["verdicts"].items():
        assert status == "not yet", (name, status, message)
        assert "Traceback" not in message, (name, message)
        if "stopped reading" in message:
            assert "map()" in message, (name, message)
            gave_up += 1
        else:  # refused on its structure before reading: some tasks forbid a py_function, or any extra map
            assert "py_function" in message or "map(wait)" in message, (name, message)
    assert gave_up >= 8, result["verdicts"]
    assert result["after"] == result["expected"]


@case("""
        gave_up = 0
        for _ in range(3):
            try:
                tutor.take_elements(STUCK["batched after the map (fused)"](), 5)
            except tutor.reading.ReadTimeout:
                gave_up += 1
        after = ordinary()
        REPORT({"gave_up": gave_up, "after": after, "expected": EXPECTED})
        # No os._exit: the interpreter's normal shutdown must not wait for the abandoned reads either.
    """)
def test_three_give_ups_in_a_row_leave_the_process_working_and_it_exits_normally(result):
    assert result["gave_up"] == 3
    assert result["after"] == result["expected"]
