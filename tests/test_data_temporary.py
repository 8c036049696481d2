"""tutor.data.temporary_folder: a lesson's folder is gone after its kernel ends, also when it was killed.

The child processes load ``tutor/data/temporary.py`` by its path, which needs only the standard library, so
they start in a fraction of a second instead of importing TensorFlow.
"""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tutor.data import temporary
from tutor.data.temporary import release, remove_stale_folders, temporary_folder

pytestmark = pytest.mark.skipif(temporary.fcntl is None, reason="folders of killed processes need flock")

MODULE = Path(temporary.__file__)
CHILD = f"""
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("temporary", {str(MODULE)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
path = module.temporary_folder("lesson99", root=sys.argv[1])
open(path + "/shard.tfrecord", "w").write("data")
print(path, flush=True)
if sys.argv[2] == "wait":
    time.sleep(600)
"""


def start_child(root, mode="wait"):
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), mode], stdout=subprocess.PIPE, text=True)
    path = child.stdout.readline().strip()
    assert path.startswith(str(root)), f"the child made no folder (it printed {path!r})"
    if mode == "wait":
        assert os.path.isfile(os.path.join(path, "shard.tfrecord"))
    return child, path


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_the_folder_of_a_process_killed_from_outside_goes_at_the_next_start(tmp_path, how):
    child, path = start_child(tmp_path)
    child.send_signal(how)
    child.wait(30)
    assert os.path.isdir(path), "a killed process runs no atexit: its folder is still there"
    mine = temporary_folder("lesson99", root=tmp_path)   # the next start
    try:
        assert not os.path.exists(path) and not os.path.exists(path + ".lock")
        assert os.listdir(mine) == []
    finally:
        release("lesson99")


def test_a_live_process_keeps_its_folder_and_a_normal_exit_removes_it(tmp_path):
    child, path = start_child(tmp_path)
    try:
        assert remove_stale_folders(tmp_path) == []
        mine = temporary_folder("lesson99", root=tmp_path)   # the same name in another process: its own folder
        assert mine != path and os.path.isfile(os.path.join(path, "shard.tfrecord"))
        release("lesson99")
    finally:
        child.kill()
        child.wait(30)
    child, ended = start_child(tmp_path, mode="exit")
    assert child.wait(30) == 0
    assert not os.path.exists(ended), "atexit removes the folder when Python exits normally"
    assert not os.path.exists(ended + ".lock")


def test_a_second_call_in_one_process_starts_empty_and_other_folders_are_left_alone(tmp_path):
    foreign = tmp_path / "tutor-ckpt-abc"   # named like ours, but with no lock file next to it: not made here
    foreign.mkdir()
    first = temporary_folder("lesson98", root=tmp_path)
    Path(first, "old.txt").write_text("from the first run")
    second = temporary_folder("lesson98", root=tmp_path)
    try:
        assert not os.path.exists(first) and os.listdir(second) == []
        assert foreign.is_dir()
    finally:
        assert release("lesson98") and not release("lesson98")
    assert not os.path.exists(second) and sorted(os.listdir(tmp_path)) == ["tutor-ckpt-abc"]


@pytest.mark.parametrize("name", ["", "lesson 11", "../up", 11, "x" * 41])
def test_bad_names_get_a_sentence(tmp_path, name):
    with pytest.raises(ValueError, match="letters, digits or '_'"):
        temporary_folder(name, root=tmp_path)


def test_a_missing_root_gets_a_sentence(tmp_path):
    with pytest.raises(FileNotFoundError, match="existing folder"):
        temporary_folder("lesson97", root=tmp_path / "missing")
