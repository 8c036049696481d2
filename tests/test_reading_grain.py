"""Grain datasets take the same reading path as tf.data ones: bounded in elements and in time, by one loop.

The Grain side (``tutor.reading.grain``) reads a ``MapDataset`` index by index in the reading thread, which
checks a stop flag between indices, and asks the thread to stop until it has: these tests hold it to both.
"""
import threading

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import BatchOrderDisplay, ShuffleDisplay
from tutor.reading import ReadTimeout, read, read_ids

grain = pytest.importorskip("grain")


def test_read_and_read_ids_take_grain_and_tf_data_alike():
    assert [int(v) for v in read(grain.MapDataset.range(5), max_elements=3).elements] == [0, 1, 2]
    for ds in (grain.MapDataset.range(7).batch(3), tf.data.Dataset.range(7).batch(3)):
        result, batched = read_ids(ds, max_elements=2)
        assert batched and [b.tolist() for b in result.elements] == [[0, 1, 2], [3, 4, 5]] and result.more
        flat, _ = read_ids(ds, max_elements=4, flat=True)
        assert [int(i) for i in flat.elements] == [0, 1, 2, 3] and flat.more


def test_grain_reads_are_bounded_in_elements():
    disp = ShuffleDisplay.from_dataset(grain.MapDataset.range(10).repeat(), max_elements=25)
    assert disp.order.size == 25 and disp.truncated
    batched = ShuffleDisplay.from_dataset(grain.MapDataset.range(10).batch(4).repeat(), max_elements=6)
    assert batched.order.tolist() == [0, 1, 2, 3, 4, 5] and batched.truncated
    order = BatchOrderDisplay.from_dataset(grain.MapDataset.range(10).batch(3).repeat(), max_batches=4)
    assert len(order.batches) == 4 and order.truncated


@pytest.mark.parametrize("to_iter", [False, True])
def test_grain_reads_are_bounded_in_time(to_iter):
    ds = grain.MapDataset.range(5).repeat().filter(lambda x: x < 0)
    ds = ds.to_iter_dataset() if to_iter else ds
    with pytest.raises(ReadTimeout, match="produced no element"):
        read_ids(ds, max_elements=5, timeout=0.5, where="ShuffleDisplay.from_dataset")
    alive = [t for t in threading.enumerate() if t.name == "tutor-grain-read"]
    for thread in alive:
        thread.join(5)
    assert not any(t.is_alive() for t in alive)  # the spinning read was stopped, not left running


def test_a_grain_read_that_swallows_the_first_stop_is_still_stopped():
    """The stop request can land where Python swallows it (a ``__del__`` run by the garbage collector); here the
    map's own function swallows the first one. The read must still end, not spin on in its thread. (An
    IterDataset's map runs in the thread that iterates, which is the reader's.)"""
    swallowed = []

    def spin(x):
        while True:
            try:
                while True:
                    pass
            except BaseException:
                if swallowed:
                    raise
                swallowed.append(x)

    with pytest.raises(ReadTimeout, match="produced no element"):
        read_ids(grain.MapDataset.range(3).to_iter_dataset().map(spin), max_elements=2, timeout=0.5,
                 where="ShuffleDisplay.from_dataset")
    alive = [t for t in threading.enumerate() if t.name == "tutor-grain-read"]
    for thread in alive:
        thread.join(5)
    assert swallowed and not any(t.is_alive() for t in alive)


@pytest.mark.parametrize("bad, fragment", [
    (grain.MapDataset.range(3).map(lambda x: {"label": x}), "Map it to ids first"),
    (grain.MapDataset.source([0.5, 1.5]), "integer element ids"),
    (grain.MapDataset.range(6).map(lambda x: np.zeros((2, 2), np.int64)), "shape (2, 2)"),
])
def test_displays_refuse_grain_datasets_that_are_not_ids_with_a_sentence(bad, fragment):
    for make in (ShuffleDisplay.from_dataset, BatchOrderDisplay.from_dataset):
        with pytest.raises(TypeError, match="expects a Grain dataset of integer element ids") as info:
            make(bad)
        assert fragment in str(info.value)


