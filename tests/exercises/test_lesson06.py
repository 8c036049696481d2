"""Lesson 06 exercises: right answers in every form pass; typical mistakes and bad input get a sentence."""
import numpy as np
import pytest
import tensorflow as tf

import tutor  # noqa: F401  (before TensorFlow's first op)
from tutor.checks import lesson06 as ex
from .checking import assert_refused

R = tf.data.Dataset.range
QUESTIONS = [getattr(ex, name) for name in ex.__all__]


def _series():
    return R(21)


CORRECT = [
    (ex.q1, (0, 1, 2)), (ex.q1, np.array([0, 1, 2])), (ex.q1, [np.int64(0), 1.0, 2]),
    (ex.q2, np.array([0, 1, 2, 10, 11, 12, 3, 13, 20, 21, 22, 23])),
    (ex.q2, tuple([0, 1, 2, 10, 11, 12, 3, 13, 20, 21, 22, 23])),
    (ex.q2, [0, 1, 2, 10, 11, 12, 3, 13, 20, 21, 22, 23.0]),
    (ex.q3, [100, 0, 101, 102, 1, 103]), (ex.q3, (100, 0, 101, 102, 1, 103)), (ex.q3, np.array([100, 0, 101, 102, 1, 103])),
    (ex.q4, [(0, 2, 4), (3, 5, 7)]), (ex.q4, np.array([[0, 2, 4], [3, 5, 7]])), (ex.q4, [[0, 2, 4], np.array([3, 5, 7])]),
    (ex.q5, tf.data.Dataset.zip((_series().window(4, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(4)),
                                 _series().skip(4)))),
    (ex.q5, _series().window(5, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(5))
     .map(lambda w: (w[:4], w[4]))),
    (ex.q5, R(17).map(lambda s: (tf.range(s, s + 4), s + 4))),
    (ex.q5, _series().map(lambda x: tf.cast(x, tf.int32)).window(5, 1, 1, True).flat_map(lambda w: w.batch(5))
     .map(lambda w: (w[:-1], w[-1]))),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], stop_on_empty_dataset=True, seed=3)),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], weights=[1.0, 1.0], seed=7,
                                                 stop_on_empty_dataset=True)),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(1000, 1100), R(300)], weights=[0.5, 0.5], seed=11,
                                                 stop_on_empty_dataset=True)),
]


@pytest.mark.parametrize("question, answer", CORRECT, ids=[f"{q.title}-{k}" for k, (q, _) in enumerate(CORRECT)])
def test_other_correct_answers_pass(question, answer):
    result = question.check(answer)
    assert result.passed, str(result)


WRONG = [
    # q1: the typical mistakes: filter's answer, one too many, everything, nothing
    (ex.q1, [0, 1, 2, 4, 5, 6, 8, 9], "are not in it"),
    (ex.q1, [0, 1, 2, 3], "3 is not in it"),
    (ex.q1, list(range(10)), "not in it"),
    (ex.q1, [], "missing"),
    (ex.q1, [2, 1, 0], "different order"),
    # q2: block_length ignored, cycle_length ignored, one file after another, all three open
    (ex.q2, [0, 10, 1, 11, 2, 12, 3, 13, 20, 21, 22, 23], "position 1 holds 1, you predicted 10"),
    (ex.q2, [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23], "position 3 holds 10, you predicted 3"),
    (ex.q2, [0, 1, 2, 10, 11, 12, 20, 21, 22, 3, 13, 23], "position 6 holds 3, you predicted 20"),
    (ex.q2, [0, 1, 2, 10, 11, 12], "missing"),
    # q3: carried on after b ran out, choices read the other way round, stopped too early
    (ex.q3, [100, 0, 101, 102, 1, 103, 2, 3], "not in it"),
    (ex.q3, [0, 100, 1, 2, 101, 3, 4, 102], "not in it"),
    (ex.q3, [100, 0, 101, 102, 1], "1 item of the answer is missing."),
    (ex.q3, [100, 0, 101, 102, 1, 103, 103], "not that often"),
    # q4: stride ignored, shift ignored, the short window kept, one window only
    (ex.q4, [[0, 1, 2], [3, 4, 5], [6, 7, 8]], "you predicted 3 windows"),
    (ex.q4, [[0, 2, 4], [1, 3, 5]], "window 1 differs"),
    (ex.q4, [[0, 2, 4], [3, 5, 7], [6, 8]], "you predicted 3 windows"),
    (ex.q4, [[0, 2, 4]], "you predicted 1 window;"),
    (ex.q4, [0, 2, 4, 3, 5, 7], "you predicted a flat list [0, 2, 4, 3, 5, 7]: group it into windows"),
    # q5
    (ex.q5, _series().window(5, drop_remainder=True).flat_map(lambda w: w.batch(5)).map(lambda w: (w[:-1], w[-1])),
     "do not overlap"),
    (ex.q5, _series().window(5, shift=1).flat_map(lambda w: w.batch(5)).map(lambda w: (w[:-1], w[-1])),
     "drop_remainder=True"),
    (ex.q5, _series().window(4, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(4)).map(lambda w: (w, w[-1])),
     "last value of its own inputs"),
    (ex.q5, _series().window(5, shift=1, drop_remainder=True), "flat_map"),
    (ex.q5, _series().window(5, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(5))
     .map(lambda w: (w[:-1], w[-1])).batch(8), "batched"),
    (ex.q5, _series().window(4, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(4))
     .map(lambda w: (w[:-1], w[-1])), "inputs should be 4 values"),
    (ex.q5, _series().window(5, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(5)), "pair"),
    # q6
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], weights=[0.5, 0.5], seed=0),
     "stop_on_empty_dataset=True"),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], weights=[0.9, 0.1], seed=0,
                                                 stop_on_empty_dataset=True), "not half-and-half"),
    (ex.q6, R(300).concatenate(R(1000, 1100)), "picks no source at random"),
    (ex.q6, R(300).concatenate(R(1000, 1100)).shuffle(400, seed=0), "sample_from_datasets"),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300).take(100), R(1000, 1100)], seed=0), "cut before the mix"),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300).take(100), R(1000, 1100)], seed=0,
                                                 stop_on_empty_dataset=True), "take(count=100)"),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], weights=[0.6, 0.4], seed=0,
                                                 stop_on_empty_dataset=True), "the cats 61%"),
    (ex.q6, tf.data.Dataset.choose_from_datasets([R(300), R(1000, 1100)], R(2).repeat()), "take turns"),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], seed=0, stop_on_empty_dataset=True).take(50),
     "before either ran out"),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], seed=0, stop_on_empty_dataset=True).repeat(),
     "repeat"),
    (ex.q6, tf.data.Dataset.sample_from_datasets([R(300), R(2000, 2100)], seed=0, stop_on_empty_dataset=True),
     "neither a cat"),
    (ex.q6, R(300).batch(2), "not batched"),
]


@pytest.mark.parametrize("question, answer, message", WRONG,
                         ids=[f"{q.title}-{m}-{k}" for k, (q, _, m) in enumerate(WRONG)])


def test_typical_mistakes_fail_with_a_message_that_names_them(question, answer, message):
    result = question.check(answer)
    assert not result.passed
    assert message in result.message, result.message


def _bad_inputs():
    return [
        [1, 2, 3], None, "tf.data.Dataset.range(3)", R(10).repeat(), R(10 ** 9).filter(lambda x: x < 0),
        tf.data.Dataset.from_tensor_slices(["a", "b"]),
        R(5).map(lambda x: tf.strings.to_number(tf.strings.as_string(x) + "x", tf.int64)),
    ]


@pytest.mark.parametrize("question", [ex.q5, ex.q6], ids=lambda q: q.title)
def test_bad_input_to_a_pipeline_question_gets_a_sentence(question, short_deadline):
    for answer in _bad_inputs():
        result = question.check(answer)
        assert not result.passed and result.message.startswith(question.title), (answer, result.message)
        assert "Traceback" not in result.message and len(result.message) < 600
    pairs_that_never_come = tf.data.Dataset.zip((R(4).repeat(), R(4).repeat())).filter(lambda a, b: a < 0)
    assert "produced no element" in ex.q5.check(pairs_that_never_come).message
    assert "produced no element" in ex.q6.check(R(10 ** 9).filter(lambda x: x < 0)).message


@pytest.mark.parametrize("question", [ex.q1, ex.q2, ex.q3, ex.q4], ids=lambda q: q.title)
def test_bad_input_to_a_prediction_gets_a_sentence(question):
    assert "not a pipeline" in question.check(R(3)).message
    assert "not a pipeline" in question.check(lambda: 3).message
    assert "the pipeline gives" in question.check("0, 1, 2").message or "list of" in question.check("0, 1, 2").message
    assert question.check(None).status == "not yet"
    assert not question.check(["a", "b"]).passed


def test_q5_solution_keeps_the_lessons_own_helpers():
    """Running the solution in the lesson's namespace must not replace the lesson's windows() helper."""
    def windows(ds, size, **options):
        return ds

    namespace = {"tf": tf, "np": np, "tutor": tutor, "windows": windows}
    exec(ex.q5.solution_code, namespace)
    assert namespace["windows"] is windows and ex.q5.check(namespace["answer"]).passed


ONE_LINE = """
import sys
sys.ps1 = ">>> "  # an interactive kernel, where AutoGraph echoes its warnings to stdout
import tutor
import tensorflow as tf
from tutor.checks import lesson06 as ex
series = tf.data.Dataset.range(21)
answer = series.window(5, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(5)).map(lambda w: (w[:-1], w[-1]))
print(ex.q5.check(answer))
"""


def test_q5_answer_on_one_line_prints_only_the_verdict(tmp_path):
    """Two lambdas on one line (as hint 2 reads) make AutoGraph warn that it cannot transform them; keep it quiet."""
    import subprocess
    import sys

    script = tmp_path / "one_line.py"  # from a file, so that AutoGraph can read the line and warn
    script.write_text(ONE_LINE)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().startswith("Correct"), run.stdout[-2000:]
    assert "AutoGraph" not in run.stdout + run.stderr


def test_q6_no_sampler_is_not_told_about_a_sampler_option():
    message = ex.q6.check(R(300).concatenate(R(1000, 1100)).shuffle(400, seed=0)).message
    assert "stop_on_empty_dataset" not in message and "all 300 cats and all 100 dogs" in message


@pytest.mark.parametrize("seed", [0, 1, 2, 5, 42, 123])
def test_q6_any_seed_of_an_equal_mix_passes_with_a_true_sentence(seed):
    mix = tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], seed=seed, stop_on_empty_dataset=True)
    result = ex.q6.check(mix)
    assert result.passed and "ended as soon as the dogs ran out" in result.message, result.message


@pytest.mark.parametrize("weights", [[0.6, 0.4], [0.4, 0.6], [0.65, 0.35]])
def test_q6_unequal_weights_are_refused_for_any_seed(weights):
    for seed in (0, 1, 2):
        mix = tf.data.Dataset.sample_from_datasets([R(300), R(1000, 1100)], weights=weights, seed=seed,
                                                   stop_on_empty_dataset=True)
        assert_refused(ex.q6.check(mix), "not half-and-half")
