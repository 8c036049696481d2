"""Every read of a dataset is bounded in elements and in time: an endless or silent pipeline never hangs."""
import time

import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor.reading import ReadTimeout, read, take_elements


def test_take_elements_keeps_structure_and_plain_numbers():
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, ["x", "y"]))
    assert take_elements(ds) == [({"a": 1}, b"x"), ({"a": 2}, b"y")]


def test_an_endless_repeat_stops_at_max_elements_and_says_there_is_more():
    result = read(tf.data.Dataset.range(3).repeat(), max_elements=7)
    assert [int(v) for v in result.elements] == [0, 1, 2, 0, 1, 2, 0] and result.more
    assert not read(tf.data.Dataset.range(3), max_elements=7).more


@pytest.mark.parametrize("build", [
    lambda: tf.data.Dataset.range(10).repeat().filter(lambda x: x < 0),
    lambda: tf.data.Dataset.range(10**12).filter(lambda x: x < 0),
], ids=["endless repeat, filter matches nothing", "huge range, filter matches nothing"])
def test_a_dataset_that_never_yields_stops_at_the_deadline_with_a_reason(build):
    with pytest.raises(ReadTimeout, match="produced no element") as info:
        read(build(), max_elements=5, timeout=0.5)
    assert "filter()" in str(info.value) and info.value.elements == []


def test_what_arrived_before_the_deadline_is_kept():
    slow_tail = tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10).repeat().filter(lambda x: x < 0))
    with pytest.raises(ReadTimeout, match="only 3 elements") as info:
        read(slow_tail, max_elements=5, timeout=0.5)
    assert [int(v) for v in info.value.elements] == [0, 1, 2]


def test_the_cancelled_read_stops_working_in_the_background():
    # After the deadline TensorFlow cancels the pull: the reading thread ends instead of spinning forever.
    import threading

    with pytest.raises(ReadTimeout):
        read(tf.data.Dataset.range(10).repeat().filter(lambda x: x < 0), max_elements=1, timeout=0.3)
    deadline = time.monotonic() + 30
    while any(t.name == "tutor-read" and t.is_alive() for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the reading thread is still running"
        time.sleep(0.05)


def test_errors_inside_the_pipeline_reach_the_caller():
    def small(x):
        tf.debugging.assert_less(x, tf.constant(1, tf.int64))
        return x

    bad = tf.data.Dataset.range(3).filter(lambda x: True).map(small)
    with pytest.raises(tf.errors.InvalidArgumentError):
        read(bad, max_elements=5)


def test_filtered_reads_match_plain_iteration():
    ds = tf.data.Dataset.range(50).filter(lambda x: x % 7 == 0).map(lambda x: (x, tf.strings.as_string(x)))
    got = read(ds, max_elements=100).elements
    want = list(ds.as_numpy_iterator())
    assert len(got) == len(want) and all(a[0] == b[0] and a[1] == b[1] for a, b in zip(got, want))


@pytest.mark.parametrize("bad, error, match", [
    ([1, 2], TypeError, "from_tensor_slices"),
    (None, TypeError, "tf.data.Dataset"),
])
def test_bad_input_says_what_was_expected(bad, error, match):
    with pytest.raises(error, match=match):
        take_elements(bad)


def test_bad_bounds():
    with pytest.raises(ValueError, match="max_elements must be >= 1"):
        take_elements(tf.data.Dataset.range(3), 0)
    with pytest.raises(ValueError, match="timeout"):
        read(tf.data.Dataset.range(3), max_elements=1, timeout=-1)


def test_displays_read_through_the_bounded_reader():
    with pytest.raises(ReadTimeout):
        tutor.BatchOrderDisplay.from_dataset(tf.data.Dataset.range(10).repeat().filter(lambda x: x < 0).batch(2)
                                             .take(3).repeat(), max_batches=2)  # noqa: E501
    arr = np.asarray(take_elements(tf.data.Dataset.range(4).batch(2))[1])
    assert arr.tolist() == [2, 3]

def test_take_elements_plain_values():
    assert tutor.take_elements(tf.data.Dataset.range(4)) == [0, 1, 2, 3]


def test_take_elements_keeps_tuples_and_dicts():
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [3.0, 4.0]))
    first, second = tutor.take_elements(ds)
    assert first == ({"a": 1}, 3.0)
    assert second == ({"a": 2}, 4.0)


def test_take_elements_keeps_arrays_and_strings():
    ds = tf.data.Dataset.from_tensor_slices((np.ones((2, 3)), ["x", "y"]))
    (arr, s), _ = tutor.take_elements(ds)
    assert isinstance(arr, np.ndarray) and arr.shape == (3,)
    assert s == b"x"


def test_take_elements_stops_on_infinite_dataset():
    ds = tf.data.Dataset.range(3).repeat()
    assert tutor.take_elements(ds, max_elements=7) == [0, 1, 2, 0, 1, 2, 0]


def test_take_elements_rejects_list_with_fix():
    with pytest.raises(TypeError, match="from_tensor_slices"):
        tutor.take_elements([1, 2, 3])


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_take_elements_rejects_bad_bound(bad):
    with pytest.raises((TypeError, ValueError), match="max_elements"):
        tutor.take_elements(tf.data.Dataset.range(3), max_elements=bad)
