"""Tests for tutor.training and tutor.leakage (lesson 12)."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

import tutor  # noqa: E402
from tutor import leakage, training  # noqa: E402


@pytest.fixture(scope="module")
def digits():
    x, y = tutor.data.digits(256, source="synthetic")
    return x[..., None], y


# --- device ------------------------------------------------------------------------
def test_detect_device_matches_tensorflow():
    report = training.detect_device()
    assert report.gpus == [d.name for d in tf.config.list_physical_devices("GPU")]
    assert report.cpu_cores >= 1
    assert ("no GPU" in str(report)) == (not report.has_gpu)
    from tutor.env import cpus_available

    assert report.cpus == cpus_available()  # the quota counts, not only the cores the machine shows
    assert str(report).splitlines()[-1].startswith("CPU: ")


# --- model and step times ---------------------------------------------------------------
def test_small_cnn_is_seeded_and_trains(digits):
    x, y = digits
    a, b = training.small_cnn(seed=3), training.small_cnn(seed=3)
    assert all(np.array_equal(u, v) for u, v in zip(a.get_weights(), b.get_weights()))
    assert a.count_params() < 100_000
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    history = a.fit(ds, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert a.predict(x[:4], verbose=0).shape == (4, 10)


def test_steps_per_epoch_with_repeat_counts_batches(digits):
    x, y = digits
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32).repeat()
    timer = training.StepTimer()
    training.small_cnn().fit(ds, epochs=2, steps_per_epoch=3, verbose=0, callbacks=[timer])
    assert len(timer.step_seconds) == 6  # 2 epochs x steps_per_epoch=3; repeat() keeps the data coming
    assert np.all(timer.step_seconds > 0)


def test_a_step_time_spans_the_wait_for_its_batch(digits):
    """A step is timed from the end of the previous step, so making its batch falls inside the timed span.

    Decided by the order of recorded events (images made, steps ended), never by how long anything took.
    """
    import keras

    x, y = digits
    log = []

    def note(image):
        log.append("image")
        return image

    def noted(image, label):
        return tf.ensure_shape(tf.py_function(note, [image], tf.uint8), image.shape), label

    slow = training.without_auto_speedups(tf.data.Dataset.from_tensor_slices((x, y)).map(noted).batch(16))

    class StepEnds(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            log.append("end")

    timer = training.StepTimer()
    training.small_cnn().fit(slow.repeat(), epochs=1, steps_per_epoch=12, verbose=0, callbacks=[timer, StepEnds()])
    assert len(timer.step_seconds) == 12 and log.count("end") == 12
    ends = [k for k, event in enumerate(log) if event == "end"]
    between = [log[a:b].count("image") for a, b in zip(ends, ends[1:])]
    # the pipeline is pulled: after the first step, every batch is made between two step ends, inside a timed step
    assert log[:ends[0]].count("image") <= 3 * 16
    assert all(n > 0 for n in between[2:]) and sum(between) >= 16 * 8


def test_compare_step_times_trains_every_pipeline_for_its_steps(digits):
    x, y = digits
    base = tf.data.Dataset.from_tensor_slices((x, y))
    calls = []

    def count(image):
        calls.append(1)
        return image

    def counted(image, label):
        return tf.ensure_shape(tf.py_function(count, [image], tf.uint8), image.shape), label

    slow = training.without_auto_speedups(base.map(counted).batch(16))
    fast = base.cache().batch(16).prefetch(tf.data.AUTOTUNE)
    times = training.compare_step_times(training.small_cnn, {"slow": slow, "fast": fast}, steps=5, warmup=6,
                                        rounds=2)
    assert set(times) == {"slow", "fast"} and all(len(t) == 5 for t in times.values())
    # two rounds of 6 warm-up and 5 timed steps, 16 images each, all made by the slow pipeline's map
    assert len(calls) >= 2 * (6 + 5) * 16


def test_step_time_verdicts_are_decided_by_the_given_step_times():
    d = training.StepTimeDisplay({"compute only": [0.010, 0.011, 0.010, 0.012], "slow": [0.030, 0.031, 0.029, 0.03],
                                  "tuned": [0.011, 0.010, 0.012, 0.010], "odd": [0.007, 0.006, 0.007, 0.006]})
    assert d.verdict("compute only", "slow").verdict == "slower"
    assert d.verdict("compute only", "tuned").verdict == "no clear difference"
    assert d.verdict("compute only", "odd").verdict == "faster"
    assert str(d.verdict("compute only", "slow")).startswith("slow steps took 30.0 ms against 10.5 ms for compute only")
    with pytest.raises(KeyError, match="the names are"):
        d.verdict("compute only", "fast")


def test_step_time_display_draws_bars_and_medians():
    disp = training.StepTimeDisplay({"slow": [0.03, 0.04, 0.05], "fast": [0.01, 0.01, 0.02]})
    assert disp.medians == {"slow": 0.04, "fast": 0.01}
    assert disp.ratio("slow", "fast") == pytest.approx(4.0)
    assert disp.plot() is disp
    assert len(disp.bars_["slow"].patches) == 3
    assert disp.median_lines_["fast"].get_ydata()[0] == pytest.approx(10.0)
    assert disp.ax_.get_ylabel() == "step time (ms)" and disp.ax_.get_title()


def test_history_display_draws_each_metric():
    disp = training.HistoryDisplay.from_history({"loss": [2.0, 1.0], "val_loss": [2.1, 1.2],
                                                 "accuracy": [0.3, 0.6], "val_accuracy": [0.25, 0.5]})
    disp.plot()
    assert set(disp.lines_) == {"loss", "val_loss", "accuracy", "val_accuracy"}
    assert disp.lines_["val_loss"].get_ydata().tolist() == [2.1, 1.2]
    assert disp.ax_.get_xlabel() == "epoch"


def test_time_steps_bad_input():
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        training.time_steps(training.small_cnn(), [1, 2, 3])
    with pytest.raises(ValueError):
        training.time_steps(training.small_cnn(), tf.data.Dataset.range(3), steps=0)


# --- leakage -----------------------------------------------------------------------------
def test_split_before_shuffle_does_not_leak():
    ds = tf.data.Dataset.range(100)
    report = tutor.check_leakage(ds.skip(20).shuffle(80, seed=0), ds.take(20))
    assert not report.leaked and report.passed and report.overlap == []
    assert "No leakage" in str(report)


def test_split_after_reshuffling_shuffle_leaks_and_says_why():
    ds = tf.data.Dataset.range(100).shuffle(100, seed=0)
    report = tutor.check_leakage(ds.skip(20), ds.take(20))
    assert report.leaked and report.val_changed
    assert all(isinstance(k, int) and 0 <= k < 100 for k in report.overlap)
    assert "LEAKAGE" in str(report) and "reshuffle_each_iteration=False" in str(report)


def test_reshuffle_each_iteration_false_keeps_the_split():
    ds = tf.data.Dataset.range(100).shuffle(100, seed=0, reshuffle_each_iteration=False)
    assert not tutor.check_leakage(ds.skip(20), ds.take(20)).leaked


def test_leakage_by_id_key_and_by_hash_in_batches(digits):
    x, y = digits
    ds = tf.data.Dataset.from_tensor_slices({"id": tf.range(256, dtype=tf.int64), "image": x, "label": y})
    assert not tutor.check_leakage(ds.skip(50).batch(16), ds.take(50).batch(16)).leaked
    report = tutor.check_leakage(ds.skip(40), ds.take(50))
    assert report.overlap == list(range(40, 50))
    pairs = tf.data.Dataset.from_tensor_slices((x, y))  # no ids: elements are hashed
    assert tutor.check_leakage(pairs.skip(40).batch(8), pairs.take(50).batch(8)).leaked
    assert not tutor.check_leakage(pairs.skip(50), pairs.take(50)).leaked


def test_leakage_is_bounded_and_checks_input():
    with pytest.raises(ValueError, match="repeat"):
        tutor.check_leakage(tf.data.Dataset.range(5).repeat(), tf.data.Dataset.range(2), max_elements=100)
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        tutor.check_leakage([1, 2], tf.data.Dataset.range(2))
    with pytest.raises(KeyError, match="id"):
        leakage.check_leakage(tf.data.Dataset.range(3), tf.data.Dataset.range(2), key="id")


def test_leakage_reading_is_bounded_in_time():
    from tutor.reading import ReadTimeout

    silent = tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0)
    with pytest.raises(ReadTimeout, match="produced no element"):
        tutor.check_leakage(silent, tf.data.Dataset.range(2), timeout=0.5)


def test_leakage_advice_is_the_splitting_rule():
    ds = tf.data.Dataset.range(100).shuffle(100, seed=0)
    text = str(tutor.check_leakage(ds.skip(20), ds.take(20)))
    assert "Fix a random order once" in text and "shuffle only the training part" in text


def test_device_report_says_where_the_model_trains():
    assert "trains on the CPU" in str(training.DeviceReport([], 2))
    binder = training.DeviceReport([], 1.0, cpu="CPU: 1.0 CPU of time (a quota) on a host with 16 cores")
    assert "the 1.0 CPU of time this process may use" in str(binder) and "a quota" in str(binder)
    assert binder.cpu_cores == 1 and training.DeviceReport([], 0.5).cpu_cores == 1
    gpu = training.DeviceReport(["/physical_device:GPU:0"], 8)
    assert gpu.has_gpu and "GPU:0" in str(gpu) and "8.0 CPUs of time" in str(gpu)
