"""Lesson 15 exercises: right answers pass, typical mistakes get a message that names the fault. No verdict here
depends on a clock or on a measurement of memory: the checkers read buffers by arithmetic, count calls and compare
records."""
import pytest
import tensorflow as tf

from tutor.checks import lesson15 as ex
from .checking import passes, refused


# --------------------------------------------------------------------------- q1: a shuffle buffer of ids
def test_q1_solution_passes_and_says_what_the_buffer_holds():
    result = passes(ex.q1, ex.q1.solution_answer())
    assert "holds 64 ids of 8 bytes (512 bytes) instead of 64 images (16.0 MB)" in result.message


@pytest.mark.parametrize("answer", [
    lambda s: s.shuffle(64).map(ex.decode).batch(8),
    lambda s: s.shuffle(100, seed=1).map(ex.decode, num_parallel_calls=tf.data.AUTOTUNE).batch(8).prefetch(2),
    lambda s: s.shuffle(64, seed=15).map(lambda i: ex.decode(i)).batch(8, drop_remainder=True),
], ids=["no-seed", "parallel-and-prefetch", "lambda"])
def test_q1_other_right_answers_pass(answer):
    passes(ex.q1, answer)


@pytest.mark.parametrize("answer, words", [
    (ex.heavy_pipeline, ["still holds decoded images", "64 x 0.25 MB = 16.0 MB", "Shuffle the ids first"]),
    (lambda s: s.map(ex.decode).batch(8), ["has no shuffle"]),
    (lambda s: s.shuffle(8).map(ex.decode).batch(8), ["shuffle(buffer_size=8) mixes less", "keep buffer_size=64"]),
    (lambda s: s.shuffle(64).batch(8), ["map(ex.decode) is missing"]),
    (lambda s: s.map(ex.decode).batch(8).shuffle(64), ["batch(8) must come after the shuffle"]),
    (lambda s: s.shuffle(64).map(ex.decode).batch(4), ["batches of 8 images"]),
    (lambda s: s.shuffle(64).map(ex.decode).take(40).batch(8), ["every image should come out once"]),
], ids=["the-heavy-order", "no-shuffle", "smaller-buffer", "no-decode", "batches-shuffled", "batch-of-4",
        "images-missing"])
def test_q1_mistakes_are_named(answer, words):
    refused(ex.q1, answer, *words)


# --------------------------------------------------------------------------- q2: cache the small thing
def test_q2_solution_passes_and_counts_the_parse_runs():
    result = passes(ex.q2, ex.q2.solution_answer())
    assert "parse ran 32 times for two epochs" in result.message and "32 x 64 bytes = 2048 bytes" in result.message


@pytest.mark.parametrize("answer", [
    lambda s: s.map(ex.parse).cache().repeat(2).map(ex.expand),
    lambda s: s.map(ex.parse, num_parallel_calls=2).cache().map(ex.expand, num_parallel_calls=2).repeat(2).prefetch(1),
], ids=["expand-after-repeat", "parallel-and-prefetch"])
def test_q2_other_right_answers_pass(answer):
    passes(ex.q2, answer)


@pytest.mark.parametrize("answer, words", [
    (ex.slow_and_big, ["the cache keeps the expanded images", "between map(ex.parse) and map(ex.expand)"]),
    (lambda s: s.map(ex.parse).map(ex.expand).repeat(2), ["there is no cache()"]),
    (lambda s: s.map(ex.parse).repeat(2).cache().map(ex.expand), ["parse ran 64 times instead of 32",
                                                                  "cache() must come before repeat(2)"]),
    (lambda s: s.map(ex.parse).cache().map(ex.expand), ["expected 64 images (two epochs of 32), got 32"]),
    (lambda s: s.map(ex.parse).cache().repeat(2), ["expected images of 256 x 256"]),
], ids=["the-big-cache", "no-cache", "repeat-before-cache", "no-repeat", "no-expand"])
def test_q2_mistakes_are_named(answer, words):
    refused(ex.q2, answer, *words)


# --------------------------------------------------------------------------- q3: the fork
def test_q3_right_letter_passes_in_any_case_and_spacing():
    assert "only less work per element helps" in passes(ex.q3, "c").message
    passes(ex.q3, " C ")


@pytest.mark.parametrize("letter, words", [
    ("a", ["quota", "take turns"]), ("b", ["adds no CPU time"]), ("d", ["computing threads take turns"]),
])
def test_q3_wrong_letters_say_why(letter, words):
    refused(ex.q3, letter, *words)


def test_q3_refuses_what_is_not_a_choice():
    refused(ex.q3, "e", "is not one of the choices")


# --------------------------------------------------------------------------- q4: outer parallelism
def test_q4_solution_passes_and_shows_the_new_order():
    result = passes(ex.q4, ex.q4.solution_answer())
    assert "4 shard pipelines" in result.message and "the same 53 records, in another order" in result.message


@pytest.mark.parametrize("answer", [
    lambda files: tf.data.Dataset.range(4).interleave(
        lambda i: files.shard(4, i).flat_map(ex.records).filter(ex.keep), cycle_length=4,
        num_parallel_calls=tf.data.AUTOTUNE, deterministic=False),
    lambda files: tf.data.Dataset.range(2).interleave(
        lambda i: files.filter(lambda f: f % 2 == i).flat_map(ex.records).filter(ex.keep), cycle_length=2,
        num_parallel_calls=2).prefetch(1),
], ids=["autotune-not-deterministic", "two-shards-by-filter"])
def test_q4_other_right_answers_pass(answer):
    passes(ex.q4, answer)


def _shards(files, **interleave):
    return tf.data.Dataset.range(4).interleave(lambda i: files.shard(4, i).flat_map(ex.records).filter(ex.keep),
                                              **interleave)


@pytest.mark.parametrize("answer, words", [
    (ex.one_pipeline, ["has no interleave"]),
    (lambda files: _shards(files, cycle_length=4), ["runs its pipelines one at a time"]),
    (lambda files: _shards(files, cycle_length=1, num_parallel_calls=tf.data.AUTOTUNE), ["cycle_length=1"]),
    (lambda files: tf.data.Dataset.range(4).interleave(lambda i: files.shard(4, i).flat_map(ex.records),
                                                       cycle_length=4, num_parallel_calls=4).filter(ex.keep),
     ["comes after the interleave", "inside each shard's pipeline"]),
    (lambda files: tf.data.Dataset.range(4).interleave(lambda i: files.shard(4, i).flat_map(ex.records),
                                                       cycle_length=4, num_parallel_calls=4),
     ["should end with .filter(ex.keep)"]),
    (lambda files: tf.data.Dataset.range(4).interleave(lambda i: files.flat_map(ex.records).filter(ex.keep),
                                                       cycle_length=4, num_parallel_calls=4),
     ["each once", "files.shard(4, index)"]),
], ids=["one-pipeline", "not-parallel", "cycle-1", "filter-outside", "no-filter", "no-shard"])
def test_q4_mistakes_are_named(answer, words):
    refused(ex.q4, answer, *words)


@pytest.mark.parametrize("calls", [4, tf.data.AUTOTUNE], ids=["four-calls", "autotune"])
def test_q4_a_cycle_length_left_out_is_judged_by_what_tensorflow_chose_here(calls):
    """TensorFlow resolves a missing cycle_length from the machine's cores: on a small machine fewer than four
    shard pipelines are open at once (and num_parallel_calls=4 above it is an error), on a large one it passes."""
    left_out = tf.data.Dataset.range(1).interleave(lambda i: tf.data.Dataset.range(3), num_parallel_calls=calls)
    assert int(left_out._cycle_length) == tf.data.AUTOTUNE     # left to the runtime: the checker sees it was left out
    answer = lambda files: _shards(files, num_parallel_calls=calls)  # noqa: E731
    from tutor.checks import _stages
    resolved = _stages.stages(answer(ex.exercise_files()))[-1].params["cycle_length"]
    if resolved < 4:
        refused(ex.q4, answer, "cycle_length was left out", f"{resolved} here", "cycle_length=4")
    else:
        passes(ex.q4, answer)
