"""Errors raised inside TensorFlow show short in a kernel; the learner's own errors show as usual."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

from tutor.errors import first_sentence, raised_inside_tensorflow

SCRIPT = textwrap.dedent("""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.run_cell("import tensorflow as tf, tutor")
    print("ON", shell.run_cell("tutor.short_errors(shell=get_ipython())").result)
    print("=== ragged")
    r = shell.run_cell("tf.data.Dataset.from_tensor_slices([[1], [2, 3]])")
    print("=== FAILED", not r.success, type(r.error_in_exec).__name__)
    print("=== map add")
    shell.run_cell("tf.data.Dataset.range(3).map(lambda x: x + 'a')")
    print("=== map numpy")
    shell.run_cell("import numpy as np\\nds = tf.data.Dataset.range(3)\\nds = ds.map(lambda x: np.sqrt(x))")
    print("=== map keras")
    shell.run_cell("import keras\\nds = tf.data.Dataset.range(3).map(lambda x: keras.ops.cast(x, 'float32') / 255)")
    print("=== own")
    r = shell.run_cell("def mine():\\n    raise KeyError('mine')\\nmine()")
    print("=== FAILED", not r.success, type(r.error_in_exec).__name__)
    print("OFF", shell.run_cell("tutor.short_errors(False, shell=get_ipython())").result)
    print("=== ragged again")
    r = shell.run_cell("tf.data.Dataset.from_tensor_slices([[1], [2, 3]])")
    print("=== FAILED", not r.success)
""")


@pytest.fixture(scope="module")
def sections():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", KERAS_BACKEND="jax")  # lesson 14's backend
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600).stdout
    parts, name = {}, "start"
    for line in re.sub(r"\x1b\[[0-9;]*m", "", out).splitlines():
        if line.startswith("=== ") and not line.startswith("=== FAILED"):
            name = line[4:]
            continue
        parts.setdefault(name, []).append(line)
    return parts


def test_a_tensorflow_error_shows_its_sentence_first_and_the_traceback_folded(sections):
    ragged = sections["ragged"]
    assert ragged[0] == "ValueError: Can't convert non-rectangular Python sequence to Tensor."
    assert ragged[1].startswith("(raised inside TensorFlow") and "%tb" in ragged[1]
    assert any(line.startswith("the full traceback (") for line in ragged)
    assert len(ragged) <= 4, ragged  # not two screens of TensorFlow frames


def test_an_error_in_a_map_function_shows_what_went_wrong_and_the_learners_line(sections):
    add = sections["map add"]
    assert add[0] == "TypeError: Input 'y' of 'AddV2' Op has type string that does not match type int64 of argument 'x'."
    assert re.fullmatch(r"  your line: Cell In\[\d+\], line 1: lambda x: x \+ 'a'", add[1]), add
    assert "in user code" not in "\n".join(add) and add[2].startswith("(raised while TensorFlow traced your function")
    numpy = sections["map numpy"]
    assert numpy[0].startswith("NotImplementedError: Cannot convert a symbolic tf.Tensor"), numpy
    assert re.fullmatch(r"  your line: Cell In\[\d+\], line 3: lambda x: np.sqrt\(x\)", numpy[1]), numpy
    assert "tf.sqrt" in numpy[2] and "py_function" in numpy[2] and "lesson 04" in numpy[2]


def test_keras_ops_in_a_map_on_jax_says_why_and_what_to_use_instead(sections):
    keras_ops = sections["map keras"]
    assert keras_ops[0].startswith("NotImplementedError: Cannot convert a symbolic tf.Tensor"), keras_ops
    assert re.match(r"  your line: Cell In\[\d+\], line 2: lambda x: keras.ops.cast", keras_ops[1])
    assert "JAX" in keras_ops[2] and "lesson 14" in keras_ops[2] and "Rescaling" in keras_ops[2], keras_ops
    assert "tf.sqrt" not in "\n".join(keras_ops)  # not the NumPy advice


def test_the_learners_own_error_keeps_the_usual_traceback(sections):
    own = "\n".join(sections["own"])
    assert "KeyError" in own and "raise KeyError('mine')" in own and "raised inside TensorFlow" not in own


def test_switching_it_off_restores_the_usual_display(sections):
    again = "\n".join(sections["ragged again"])
    assert "raised inside TensorFlow" not in again and "Traceback" in again


def test_first_sentence_drops_tensorflows_bookkeeping():
    exc = ValueError("{{function_node __wrapped__IteratorGetNext_device_/job:localhost}} Cannot batch tensors "
                     "with different shapes in component 0. [Op:IteratorGetNext] name: ")
    assert first_sentence(exc) == "Cannot batch tensors with different shapes in component 0."


def test_only_frames_inside_tensorflow_count():
    def own():
        raise KeyError("x")

    try:
        own()
    except KeyError:
        assert not raised_inside_tensorflow(sys.exc_info()[2])
    import tensorflow as tf

    try:
        tf.data.Dataset.from_tensor_slices([[1], [2, 3]])
    except ValueError:
        assert raised_inside_tensorflow(sys.exc_info()[2])
