"""Lesson 04 exercises: solutions and other right answers pass; typical mistakes and bad input get a message
that names the fault, never raw exception text, and never a hang."""
import numpy as np
import pytest
import tensorflow as tf

from tutor.checks import lesson04 as ex
from .checking import boom, passes, refused


def digits(n):
    rng = np.random.default_rng(n)
    x = np.zeros((n, 28, 28), np.uint8)
    for k in range(n):
        r, c = rng.integers(2, 20, 2)
        x[k, r:r + 5, c:c + 7] = 255
        x[k, 26, 1] = 100 + k % 100
    return x, (np.arange(n) * 7 % 10).astype(np.int64)


IMAGES, LABELS = digits(100)


def records():
    return tf.data.Dataset.from_tensor_slices({"pixels": IMAGES, "digit": LABELS})


def floats():
    return tf.data.Dataset.from_tensor_slices(IMAGES[:64].astype("float32") / 255)


BAD_INPUTS = {
    "a list": [1, 2, 3],
    "None": None,
    "a string": "records.map(to_pair)",
    "an endless dataset": lambda: tf.data.Dataset.range(5).repeat(),
    "a dataset that never yields": lambda: tf.data.Dataset.range(5).repeat().filter(lambda x: x < 0),
    "a dataset of strings": lambda: tf.data.Dataset.from_tensor_slices(["a", "b"]),
    "a map that raises": lambda: records().map(
        lambda d: (tf.ensure_shape(tf.py_function(boom, [d["pixels"]], tf.float32), [28, 28, 1]), d["digit"])),
}


@pytest.mark.parametrize("q", [ex.q1, ex.q2, ex.q3], ids=["q1", "q2", "q3"])
@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_gets_a_message(q, name, short_deadline):
    value = BAD_INPUTS[name]
    refused(q, value() if callable(value) else value)


# --------------------------------------------------------------------------- q1
def to_pair(d):
    return tf.cast(d["pixels"], tf.float32)[..., None] / 255.0, d["digit"]


def test_q1_other_right_answers():
    passes(ex.q1, records().map(to_pair))
    passes(ex.q1, records().map(lambda d: (tf.image.convert_image_dtype(d["pixels"][..., None], tf.float32), d["digit"])))
    passes(ex.q1, records().map(lambda d: (tf.expand_dims(tf.cast(d["pixels"], tf.float32) * (1 / 255), -1), d["digit"])))
    passes(ex.q1, records().map(lambda d: (tf.reshape(d["pixels"] / 255, [28, 28, 1]), d["digit"])))  # uint8 / 255 is float32
    passes(ex.q1, records().map(to_pair, num_parallel_calls=tf.data.AUTOTUNE).prefetch(2))


def test_q1_typical_mistakes_name_the_fault():
    refused(ex.q1, records().map(lambda d: {"image": tf.cast(d["pixels"], tf.float32) / 255, "label": d["digit"]}),
          "still dicts", "tuple")
    refused(ex.q1, records().map(lambda d: (d["digit"], tf.cast(d["pixels"], tf.float32)[..., None] / 255)),
          "wrong way round")
    refused(ex.q1, records().map(lambda d: (tf.cast(d["pixels"], tf.float32)[..., None], d["digit"])),
          "go up to 255", "Divide by 255")
    refused(ex.q1, records().map(lambda d: (d["pixels"][..., None], d["digit"])), "still uint8", "float32")
    refused(ex.q1, records().map(lambda d: (tf.cast(d["pixels"], tf.float64)[..., None] / 255, d["digit"])),
          "float64", "float32")
    refused(ex.q1, records().map(lambda d: (tf.cast(d["pixels"], tf.float32) / 255, d["digit"])), "channel axis")
    refused(ex.q1, records().map(to_pair).batch(10), "batch() out")
    refused(ex.q1, records().shuffle(100, seed=0).map(to_pair), "shuffle() out")
    refused(ex.q1, records().map(lambda d: to_pair(d)[:1] + (tf.cast(d["digit"], tf.float32),)), "label", "int64")
    refused(ex.q1, records().map(to_pair).take(50), "50 elements", "100")
    refused(ex.q1, records(), "still dicts")
    refused(ex.q1, tf.data.Dataset.from_tensor_slices((IMAGES[..., None] / 255, LABELS)), "start from `records`")


def test_q1_errors_while_reading_are_sentences():
    raising = records().map(lambda d: (tf.ensure_shape(tf.py_function(boom, [d["pixels"]], tf.float32), [28, 28, 1]),
                                       d["digit"]))
    result = refused(ex.q1, raising)
    assert "boom" not in result.message and "boom" in (result.details or "")
    refused(ex.q1, records().repeat().map(to_pair), "repeat() out")
    refused(ex.q1, records().filter(lambda d: d["digit"] < 0).map(to_pair), "no elements")


# --------------------------------------------------------------------------- q2
def smooth_map(image):
    return tf.ensure_shape(tf.py_function(ex.smooth, [image], Tout=tf.float32), [28, 28])


def test_q2_other_right_answers():
    passes(ex.q2, floats().map(smooth_map))
    passes(ex.q2, floats().map(lambda x: tf.py_function(lambda v: ex.smooth(v.numpy()), [x], tf.float32))
           .map(lambda x: tf.ensure_shape(x, [28, 28])))

    def with_set_shape(x):
        y = tf.numpy_function(ex.smooth, [x], tf.float32)
        y.set_shape([28, 28])
        return y

    passes(ex.q2, floats().map(with_set_shape))
    passes(ex.q2, floats().map(smooth_map, num_parallel_calls=2, deterministic=True))


def test_q2_typical_mistakes_name_the_fault():
    lost = floats().map(lambda x: tf.py_function(ex.smooth, [x], tf.float32))
    refused(ex.q2, lost, "static shape is lost", "ensure_shape")
    refused(ex.q2, floats().map(lambda x: tf.ensure_shape(tf.py_function(ex.smooth, [x], tf.float32), [None, None])),
          "partly known")
    refused(ex.q2, floats().map(lambda x: tf.ensure_shape(tf.py_function(ex.smooth, [x], tf.float32), [28, 28, 1])),
          "promises shape", "[28, 28]")
    refused(ex.q2, floats().map(lambda x: tf.ensure_shape(tf.py_function(ex.smooth, [x], tf.float64), [28, 28])),
          "float64", "Tout=tf.float32")
    refused(ex.q2, floats().map(lambda x: tf.ensure_shape(tf.py_function(lambda v: v, [x], tf.float32), [28, 28])),
          "not smoothed")
    refused(ex.q2, floats().map(smooth_map).map(smooth_map), "smoothed twice")
    refused(ex.q2, floats().map(lambda x: tf.nn.avg_pool2d(x[None, :, :, None], 3, 1, "SAME")[0, :, :, 0]),
          "no tf.py_function")
    refused(ex.q2, floats().map(smooth_map).batch(8), "batch() out")
    refused(ex.q2, tf.data.Dataset.from_tensor_slices(IMAGES[:64]).map(smooth_map), "start from `floats`")


def test_q2_errors_while_reading_are_sentences():
    raising = floats().map(lambda x: tf.ensure_shape(tf.py_function(boom, [x], tf.float32), [28, 28]))
    result = refused(ex.q2, raising)
    assert "boom" in (result.details or "")
    refused(ex.q2, floats().take(3).map(smooth_map), "3 images", "64")


def test_smooth_is_a_3x3_mean():
    x = np.zeros((5, 5), np.float32)
    x[2, 2] = 9
    y = ex.smooth(x)
    assert y.dtype == np.float32 and y.shape == (5, 5)
    assert y[1:4, 1:4].tolist() == [[1.0] * 3] * 3 and y.sum() == pytest.approx(9)
    with pytest.raises(ValueError, match=r"\[H, W\]"):
        ex.smooth(np.zeros((2, 5, 5)))


# --------------------------------------------------------------------------- q3
def test_q3_counts_come_from_a_real_run():
    assert ex.count_calls() == (1, ex.N_ELEMENTS * ex.N_PASSES)
    assert ex.count_calls(4, 1) == (1, 4)


def test_q3_other_right_answers():
    for answer in ([1, 15], (1.0, 15.0), np.array([1, 15]), (np.int64(1), np.int32(15))):
        passes(ex.q3, answer)


def test_q3_typical_mistakes_name_the_fault():
    refused(ex.q3, (15, 15), "outer is plain Python", "trace")
    refused(ex.q3, (5, 5), "outer is plain Python", "reads ds 3 times")
    refused(ex.q3, (1, 5), "new iterator", "lesson 01")
    refused(ex.q3, (1, 1), "every element")
    refused(ex.q3, (3, 15), "outer is plain Python")
    refused(ex.q3, (1, 12), "count the elements")


def test_q3_odd_answers_get_a_sentence():
    refused(ex.q3, (1,), "pair")
    refused(ex.q3, (1, 2, 3), "pair")
    refused(ex.q3, (1.5, 15), "whole numbers")
    refused(ex.q3, (True, 15), "whole numbers")
    refused(ex.q3, (1, float("inf")), "whole numbers")
    refused(ex.q3, (-1, 15), "negative")
    refused(ex.q3, "1, 15", "two whole numbers")
    refused(ex.q3, {"outer": 1, "inner": 15}, "pair")
    refused(ex.q3, "x" * 100_000)
    assert len(ex.q3.check("x" * 100_000).message) < 400


def test_q2_praise_names_no_method_the_learner_did_not_use():
    def with_set_shape(x):
        y = tf.numpy_function(ex.smooth, [x], tf.float32)
        y.set_shape([28, 28])
        return y

    result = ex.q2.check(floats().map(with_set_shape))
    assert result.passed and "ensure_shape" not in result.message, result.message
