"""tutor.bench.time_pipeline and tutor.verdict.compare: whole passes, warm-up left out, bounded.

Which pass holds which cost is checked on a clock the test moves itself (``VirtualClock`` stands in for
the ``time`` module inside tutor.bench, tutor.verdict and the reading loop, which times each pass), so the
numbers are exact however busy the machine is. The deadlines keep the real monotonic clock. One test on the
real clock checks that the times are wall-clock seconds.
"""
import threading
import time

import pytest
import tensorflow as tf

import tutor.bench
import tutor.reading.loop
import tutor.verdict
from tutor.bench import Timing, time_pipeline
from tutor.reading import ReadTimeout


class VirtualClock:
    """A clock that moves only when the test calls ``advance``: the pipeline says what each call costs."""

    def __init__(self):
        self.now = 0.0
        self._lock = threading.Lock()

    monotonic = staticmethod(time.monotonic)  # the deadlines: real time

    def perf_counter(self):
        return self.now

    def advance(self, seconds):
        with self._lock:  # map functions may run on several threads
            self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    clock = VirtualClock()
    monkeypatch.setattr(tutor.bench, "time", clock)
    monkeypatch.setattr(tutor.verdict, "time", clock)
    monkeypatch.setattr(tutor.reading.loop, "time", clock)
    return clock


def test_reads_every_element_each_pass():
    calls = []
    ds = tf.data.Dataset.range(30).map(lambda x: tf.py_function(lambda v: calls.append(1) or v, [x], tf.int64))
    t = time_pipeline(ds, repeats=3, warmup=1)
    assert t.elements == 30 and len(t.times) == 3
    assert len(calls) == 30 * 4  # one warm-up pass + three counted passes, all complete


def test_rows_count_images_in_batches():
    t = time_pipeline(tf.data.Dataset.range(100).batch(32), repeats=1, count="rows")
    assert t.elements == 100 and t.unit == "rows"
    assert time_pipeline(tf.data.Dataset.range(100).batch(32), repeats=1).elements == 4


def test_first_pass_is_kept_out_unless_asked(clock):
    state = {"first": True}

    def costs(v):  # 1 ms per element, plus 0.3 s on the very first call (start-up)
        if state["first"]:
            state["first"] = False
            clock.advance(0.3)
        clock.advance(0.001)
        return v

    ds = tf.data.Dataset.range(5).map(lambda x: tf.py_function(costs, [x], tf.int64))
    honest = time_pipeline(ds, repeats=2, warmup=1)
    assert honest.first_seconds == pytest.approx(0.305) and honest.times == pytest.approx([0.005, 0.005])
    state["first"] = True
    counted = time_pipeline(ds, repeats=2, include_first=True)
    assert counted.times == pytest.approx([0.305, 0.005]) and counted.first_seconds == counted.times[0]


def test_a_builder_is_timed_inside_the_first_pass(clock):
    def build():
        clock.advance(0.2)
        return tf.data.Dataset.range(3)

    t = time_pipeline(build, repeats=1)
    assert t.first_seconds == pytest.approx(0.2) and t.times == [0.0]
    with pytest.raises(TypeError, match="builder returned"):
        time_pipeline(lambda: [1, 2], repeats=1)


def test_times_are_wall_clock_seconds():
    def build():
        time.sleep(0.05)  # sleeping uses no CPU: a CPU-time clock would miss it
        return tf.data.Dataset.range(3)

    assert time_pipeline(build, repeats=1).first_seconds >= 0.05


def test_infinite_dataset_needs_a_bound():
    with pytest.raises(ValueError, match="max_elements"):
        time_pipeline(tf.data.Dataset.range(3).repeat())
    t = time_pipeline(tf.data.Dataset.range(3).repeat(), max_elements=10, repeats=1)
    assert t.elements == 10


def test_a_pass_gives_up_when_no_element_comes_for_the_deadline():
    never = tf.data.Dataset.range(10).repeat().filter(lambda x: x < 0)  # its length is unknown, not infinite
    with pytest.raises(ReadTimeout, match="time_pipeline: the dataset produced no element") as info:
        time_pipeline(never, repeats=1, warmup=0, timeout=0.5)
    assert "filter()" in str(info.value)
    with pytest.raises(ReadTimeout, match="compare: the dataset produced no element"):
        tutor.verdict.compare(never, tf.data.Dataset.range(3), timeout=0.5, show=False)


def test_a_long_pass_whose_elements_keep_coming_is_not_stopped():
    # 40 elements 50 ms apart: two seconds in all, with a deadline of one second for each element.
    slow = tf.data.Dataset.range(40).map(lambda x: tf.py_function(lambda v: time.sleep(0.05) or v, [x], tf.int64))
    t = time_pipeline(slow, repeats=1, warmup=0, timeout=1.0)
    assert t.elements == 40 and t.times[0] >= 40 * 0.05


def test_result_numbers_and_repr():
    t = Timing([2.0, 1.0, 4.0], 5.0, 100, label="demo")
    assert t.median == 2.0 and t.per_second == 50.0
    text = repr(t)
    assert "demo" in text and "median 2.000 s" in text and "50 elements/s" in text and "first pass 5.000 s" in text


def test_bad_arguments():
    ds = tf.data.Dataset.range(3)
    with pytest.raises(ValueError, match="repeats"):
        time_pipeline(ds, repeats=0)
    with pytest.raises(ValueError, match="count"):
        time_pipeline(ds, count="batches")
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        time_pipeline([1, 2, 3])


# ----------------------------------------------------------------------------- compare: the verdict helper
from tutor.verdict import Comparison, compare, decide  # noqa: E402


def test_verdict_from_the_given_numbers():
    a = [0.74, 0.80, 0.71, 0.75, 0.73]
    assert decide(a, [0.41, 0.40, 0.44, 0.39, 0.42]) == "faster"
    assert decide([0.41, 0.40, 0.44, 0.39, 0.42], a) == "slower"
    assert decide(a, [0.73, 0.76, 0.72, 0.74, 0.75]) == "no clear difference"


def test_noise_says_no_clear_difference_even_when_the_medians_differ():
    # Medians 1.0 against 0.8 (20 % apart), but the runs of each reach well into the other's range.
    assert decide([1.0, 0.6, 1.4, 0.7, 1.3], [0.8, 1.2, 0.5, 1.1, 0.6]) == "no clear difference"
    # One slow outlier among five does not hide a clear difference: the quartiles, not the extremes, decide.
    assert decide([1.0, 1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5, 3.0]) == "faster"


def test_a_tiny_but_steady_difference_is_not_called_faster():
    a, b = [1.00, 1.00, 1.01, 1.00, 1.00], [0.98, 0.98, 0.98, 0.98, 0.98]
    assert decide(a, b) == "no clear difference"  # 2 %, below the 5 % min_effect
    assert decide(a, b, min_effect=0.01) == "faster"


def test_the_sentence_holds_the_numbers():
    c = compare([0.74, 0.80, 0.71, 0.75, 0.73], [0.41, 0.40, 0.44, 0.39, 0.42], labels=("map", "parallel map"),
                show=False)
    assert c.verdict == "faster" and c.ratio == pytest.approx(0.41 / 0.74) and c.factor == pytest.approx(0.74 / 0.41)
    assert c.sentence == "parallel map took 0.41 s against 0.74 s for map (median of 5 runs): faster, 1.8x."
    slow = compare([0.011, 0.012, 0.010], [0.030, 0.031, 0.029], show=False)
    assert slow.sentence == "B took 30.0 ms against 11.0 ms for A (median of 3 runs): slower, 2.7x."
    same = compare([1.0, 1.1, 0.9], [1.05, 0.95, 1.0, 1.2], show=False)
    assert same.sentence.endswith("(medians of 3 and 4 runs): no clear difference on this machine (1.02x the time; "
                                  "the runs spread over 0.95-1.20 s and 0.90-1.10 s).")
    assert "no clear difference" in repr(same) and isinstance(same, Comparison)


def test_compare_prints_its_sentence(capsys):
    compare([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])
    assert capsys.readouterr().out == "B took 2.00 s against 1.00 s for A (median of 3 runs): slower, 2.0x.\n"


def test_runs_alternate_after_a_warm_up(clock):
    order = []

    def run(name, seconds):
        def one_run():
            order.append(name)
            clock.advance(seconds * (10 if order.count(name) == 1 else 1))  # the first run pays start-up
        return one_run

    c = compare(run("A", 0.2), run("B", 0.1), repeats=4, show=False)
    assert order == ["A", "B"] * 5  # one warm-up pair, then four alternating pairs
    assert c.first_times == pytest.approx([0.2] * 4) and c.second_times == pytest.approx([0.1] * 4)
    assert c.verdict == "faster" and "median of 4 alternating runs" in c.sentence


def test_functions_that_time_themselves_count_their_own_seconds(clock):
    # each run takes 1 s in all, of which only the part it returns counts (a training loop without fit's teardown)
    def run(part):
        def one_run():
            clock.advance(1.0)
            return part
        return one_run

    c = compare(run(0.3), run(0.6), repeats=3, times_itself=True, show=False)
    assert c.first_times == pytest.approx([0.3] * 3) and c.second_times == pytest.approx([0.6] * 3)
    assert c.verdict == "slower"
    untimed = compare(run(0.3), run(0.6), repeats=3, show=False)  # without it, the whole run is timed
    assert untimed.verdict == "no clear difference" and untimed.first_times == pytest.approx([1.0] * 3)
    with pytest.raises(TypeError, match="must return the seconds it measured"):
        compare(lambda: None, run(0.6), repeats=3, times_itself=True, show=False)


def test_datasets_are_read_to_the_end_and_timings_accepted():
    calls = []
    ds = tf.data.Dataset.range(7).map(lambda x: tf.py_function(lambda v: calls.append(1) or v, [x], tf.int64))
    c = compare(ds, tf.data.Dataset.range(3), repeats=3, warmup=0, show=False)
    assert len(calls) == 7 * 3 and len(c.first_times) == 3
    from_timings = compare(Timing([1.0, 1.0, 1.0], 2.0, 5), Timing([3.0, 3.0, 3.0], 2.0, 5), show=False)
    assert from_timings.verdict == "slower"


def test_compare_bad_input_says_what_was_expected():
    with pytest.raises(ValueError, match="at least 3 runs"):
        compare([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="numbers >= 0"):
        compare([1.0, "fast", 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="not one of each"):
        compare([1.0, 2.0, 3.0], lambda: None)
    with pytest.raises(TypeError, match="function to run"):
        compare(42, lambda: None)
    with pytest.raises(ValueError, match="repeats must be >= 3"):
        compare(lambda: None, lambda: None, repeats=1)
    with pytest.raises(ValueError, match="never ends"):
        compare(tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(3))
    with pytest.raises(ValueError, match="two names"):
        compare([1.0] * 3, [1.0] * 3, labels="AB")


def test_a_pass_ends_at_the_end_of_data_and_the_iterator_goes_after_the_clock(clock):
    # With autotuning on, destroying an iterator can wait for tf.data's autotuning thread: never timed.
    seen = {}

    class Iterator:
        def __init__(self):
            self.left = 3

        def __del__(self):
            seen["released"] = clock.perf_counter()
            clock.advance(0.5)  # a slow teardown

    class Source:  # what the reading loop reads: a stand-in for tf.data's, on the virtual clock
        thread_name = "test-read"

        def open(self):
            self.iterator = Iterator()

        def next(self):
            if not self.iterator.left:
                return False, None
            self.iterator.left -= 1
            clock.advance(0.1)
            return True, self.iterator.left

        def stop(self, worker, finished):
            raise AssertionError("this pass never reaches its deadline")

    pulled = tutor.reading.loop.run(Source(), timeout=60, where="test", idle=True)
    assert pulled.values == [2, 1, 0] and pulled.seconds == pytest.approx(0.3)  # the teardown's 0.5 s is not in it
    assert seen["released"] == pytest.approx(0.3)  # released after the last element, once the clock had stopped
