"""tutor.profile is bounded and safe: bad input gets a sentence, a busy profiler or a stuck pipeline an error, and
nothing is left behind."""
import os
import tempfile
import threading

import pytest
import tensorflow as tf

import tutor
from tutor.timeline import Pipeline, ProfilerBusyError, ProfileTimeout


@pytest.mark.parametrize("bad, error, words", [
    ([1, 2, 3], TypeError, "expects a tf.data.Dataset"),
    (Pipeline(tf.data.Dataset.range(3)), TypeError, "pipe.build()"),
])
def test_something_that_is_not_a_dataset_gets_a_sentence(bad, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        tutor.profile(bad, steps=3)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(steps=0), ValueError, "steps must be >= 1"),
    (dict(steps=2.5), TypeError, "steps must be a whole number"),
    (dict(steps=10**6), ValueError, "steps must be <="),
    (dict(steps=3, step_time=-1), ValueError, "step_time must be >= 0"),
    (dict(steps=3, train_step=3), TypeError, "train_step must be a function"),
    (dict(steps=3, timeout=0), ValueError, "timeout must be more than 0"),
    (dict(steps=3, label=5), TypeError, "label must be a string"),
])
def test_bad_arguments_get_a_sentence(kwargs, error, words):
    with pytest.raises(error, match=words):
        tutor.profile(tf.data.Dataset.range(3), **kwargs)


def test_steps_is_required_and_keyword_only():
    with pytest.raises(TypeError):
        tutor.profile(tf.data.Dataset.range(3))
    with pytest.raises(TypeError):
        tutor.profile(tf.data.Dataset.range(3), 3)


def test_a_running_profiler_gets_a_clear_error_and_is_left_running(tmp_path):
    tf.profiler.experimental.start(str(tmp_path))
    try:
        with pytest.raises(ProfilerBusyError, match="already running.*tf.profiler.experimental.stop"):
            tutor.profile(tf.data.Dataset.range(3), steps=2)
    finally:
        tf.profiler.experimental.stop()  # it was ours: stopping it must still work
    assert tutor.profile(tf.data.Dataset.range(3), steps=2).n_steps == 2


def test_two_runs_in_a_row_work_and_the_trace_folder_is_removed(monkeypatch):
    made = []
    real = tempfile.mkdtemp

    def spy(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", spy)
    first = tutor.profile(tf.data.Dataset.range(10).map(lambda x: x + 1), steps=4)
    second = tutor.profile(tf.data.Dataset.range(10).map(lambda x: x + 1), steps=4)
    assert first.stages == second.stages and second.n_steps == 4
    assert len(made) == 2 and not any(os.path.exists(d) for d in made)


def test_a_pipeline_that_yields_nothing_is_stopped_at_the_deadline(monkeypatch):
    made = []
    real = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(real(*a, **k)) or made[-1])
    never = tf.data.Dataset.range(10).repeat().filter(lambda x: x < 0)
    with pytest.raises(ProfileTimeout, match="produced 0 of the 3 steps in 1 s") as info:
        tutor.profile(never, steps=3, timeout=1)
    assert info.value.steps_done == 0
    assert not os.path.exists(made[0])
    # the stuck get_next was cancelled: the helper thread ends instead of spinning on forever
    for thread in [t for t in threading.enumerate() if t.name == "tutor-read"]:
        thread.join(60)
        assert not thread.is_alive()
    assert tutor.profile(tf.data.Dataset.range(3), steps=2).n_steps == 2  # the profiler was stopped


def test_an_error_in_the_pipeline_reaches_the_caller_and_the_profiler_stops():
    bad = tf.data.Dataset.from_tensor_slices(["1", "x"]).map(tf.strings.to_number)  # "x" is no number
    with pytest.raises(tf.errors.InvalidArgumentError):
        tutor.profile(bad, steps=2)
    assert tutor.profile(tf.data.Dataset.range(3), steps=2).n_steps == 2


def test_an_empty_dataset_gets_a_sentence():
    with pytest.raises(ValueError, match="produced no elements"):
        tutor.profile(tf.data.Dataset.range(0), steps=2)
