import numpy as np
import pytest
import tensorflow as tf

import tutor


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
