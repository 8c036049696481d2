"""The facts lesson 13 (Scaling out) states, checked on real TensorFlow.

Files that outlive the run: the stale file cache, snapshot's fingerprint, save and load. (The tf.data service's
own facts are in tests/test_service.py.)
"""
import os

import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from .helpers import R


# ------------------------------------------------------------- pay once: save, load and snapshot; the stale-cache trap
def test_a_file_cache_serves_stale_data_to_a_changed_pipeline_until_deleted(tmp_path):
    path = str(tmp_path / "preprocessed")
    old = R(5).map(lambda x: x * 1).cache(path)
    assert [int(v) for v in old] == [0, 1, 2, 3, 4]
    fixed = R(5).map(lambda x: x * 10).cache(path)
    assert [int(v) for v in fixed] == [0, 1, 2, 3, 4]  # the first pass of the changed pipeline reads the old files
    for name in tf.io.gfile.glob(path + ".*"):
        tf.io.gfile.remove(name)
    assert [int(v) for v in fixed] == [0, 10, 20, 30, 40]


def test_snapshot_writes_a_new_snapshot_for_a_changed_pipeline(tmp_path):
    path = str(tmp_path / "snap")
    assert [int(v) for v in R(5).map(lambda x: x * 1).snapshot(path)] == [0, 1, 2, 3, 4]
    assert [int(v) for v in R(5).map(lambda x: x * 10).snapshot(path)] == [0, 10, 20, 30, 40]
    assert len(os.listdir(path)) == 2  # one folder per pipeline fingerprint


def test_snapshot_reads_instead_of_recomputing_on_later_passes(tmp_path):
    calls = []

    def count(x):
        calls.append(1)
        return x

    snapped = R(6).map(lambda x: tf.py_function(count, [x], tf.int64)).snapshot(str(tmp_path / "s"))
    assert [int(v) for v in snapped] == [int(v) for v in snapped] == list(range(6))
    assert len(calls) == 6


def test_load_reads_what_was_saved_until_you_save_again(tmp_path):
    path = str(tmp_path / "saved")
    R(4).map(lambda x: x * 1).save(path)
    R(4).map(lambda x: x * 10)  # a changed pipeline, not saved
    assert [int(v) for v in tf.data.Dataset.load(path)] == [0, 1, 2, 3]
    R(4).map(lambda x: x * 10).save(path)
    assert [int(v) for v in tf.data.Dataset.load(path)] == [0, 10, 20, 30]


@pytest.mark.parametrize("name", ["load", "snapshot"])
def test_the_loaded_pipeline_holds_no_map(tmp_path, name):
    work = R(4).map(lambda x: x * x)
    if name == "load":
        work.save(str(tmp_path / "s"))
        stages = tutor.doctor.read_pipeline(tf.data.Dataset.load(str(tmp_path / "s")))
        assert [s.kind for s in stages] == ["source"] and stages[0].op == "LoadDataset"
    else:
        stages = tutor.doctor.read_pipeline(work.snapshot(str(tmp_path / "t")))
        assert "snapshot" in [s.kind for s in stages] and "map" in [s.kind for s in stages]
