"""`import tutor` keeps stderr quiet (tutor/_quiet.py); tutor/env.py: the environment report and the CPU time to use."""
import os
import platform
import subprocess
import sys
import time

import pytest

import tutor


def test_import_tutor_keeps_stderr_clean(fresh_tutor):
    assert fresh_tutor["returncode"] == 0, fresh_tutor["stderr"]
    assert fresh_tutor["stderr"] == ""


def test_env_report_lists_versions_and_data_source():
    report = tutor.env_report()
    info = report.as_dict()
    assert info["TensorFlow"] == __import__("tensorflow").__version__
    assert info["Python"] == platform.python_version()
    assert info["CPU"].endswith(f"on a host with {os.cpu_count()} core{'s' if os.cpu_count() != 1 else ''}; "
                                f"TensorFlow sizes its thread pools for {len(os.sched_getaffinity(0))}")
    assert "offline look-alikes" in info["digit images"] and "TUTOR_DATA_SOURCE=synthetic" in info["digit images"]
    assert info["running on"] == "local"
    assert "<table>" in report._repr_html_() and "TensorFlow" in str(report)


def test_env_report_names_a_fallback_and_never_raises(monkeypatch):
    from tutor import data, env

    real = data.digits

    def offline(n=10, **kwargs):
        d = real(n, source="synthetic")
        return data.Digits(d.images, d.labels, "synthetic", True)

    monkeypatch.setattr(data, "digits", offline)
    assert env.digit_source().endswith("(MNIST could not be downloaded)")
    monkeypatch.setattr(env, "_version", lambda module: "not installed")
    assert env.env_report(data_source=False).as_dict()["ipywidgets"].startswith("not installed")


def test_where_am_i_recognises_binder(monkeypatch):
    from tutor import env

    monkeypatch.setenv("BINDER_REPO_URL", "https://github.com/x/y")
    assert env.where_am_i() == "Binder"


# ----------------------------------------------------------------------------- CPU time
def _cgroup_files(tmp_path, cgroup, mountinfo, files):
    """A fake /proc/self (cgroup, mountinfo) and cgroup tree: ``files`` maps paths under tmp_path to text."""
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "cgroup").write_text(cgroup)
    (proc / "mountinfo").write_text(mountinfo.format(root=tmp_path))
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return proc


V1_MOUNTS = "30 25 0:27 / {root}/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu\n" \
            "31 25 0:28 / {root}/memory rw,relatime shared:10 - cgroup cgroup rw,memory\n"
V2_MOUNTS = "40 25 0:35 / {root}/unified rw,relatime shared:11 - cgroup2 cgroup2 rw\n"


def test_cgroup_v1_quota_of_the_process_own_group(tmp_path):
    from tutor.env import cgroup_quota

    proc = _cgroup_files(tmp_path, "4:memory:/\n1:cpu:/q1\n0::/\n", V1_MOUNTS, {
        "cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n",
        "cpu/q1/cpu.cfs_quota_us": "100000\n", "cpu/q1/cpu.cfs_period_us": "100000\n",
        "cpu/q2/cpu.cfs_quota_us": "50000\n", "cpu/q2/cpu.cfs_period_us": "100000\n",
    })
    assert cgroup_quota(proc) == 1.0  # q1's, not q2's, and the root's -1 means no limit


def test_a_parent_quota_limits_the_child(tmp_path):
    from tutor.env import cgroup_quota

    proc = _cgroup_files(tmp_path, "1:cpu,cpuacct:/user/nb\n",
                         "30 25 0:27 / {root}/cc rw - cgroup cgroup rw,cpu,cpuacct\n", {
        "cc/user/cpu.cfs_quota_us": "150000", "cc/user/cpu.cfs_period_us": "100000",
        "cc/user/nb/cpu.cfs_quota_us": "400000", "cc/user/nb/cpu.cfs_period_us": "100000",
    })
    assert cgroup_quota(proc) == 1.5


def test_cgroup_v2_cpu_max_and_a_mount_inside_a_container(tmp_path):
    from tutor.env import cgroup_quota

    # In a container the mount's root is the container's own cgroup, and /proc/self/cgroup names it in full.
    proc = _cgroup_files(tmp_path, "0::/kubepods/pod1/nb\n",
                         "40 25 0:35 /kubepods/pod1 {root}/fs rw - cgroup2 cgroup2 rw\n", {
        "fs/cpu.max": "200000 100000\n", "fs/nb/cpu.max": "max 100000\n",
    })
    assert cgroup_quota(proc) == 2.0
    (tmp_path / "fs/nb/cpu.max").write_text("100000 100000\n")
    assert cgroup_quota(proc) == 1.0


def test_no_quota_anywhere_is_none(tmp_path):
    from tutor.env import cgroup_quota

    proc = _cgroup_files(tmp_path, "1:cpu:/\n0::/\n", V1_MOUNTS + V2_MOUNTS, {
        "cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000", "unified/cpu.max": "max 100000",
    })
    assert cgroup_quota(proc) is None
    assert cgroup_quota(tmp_path / "no-such-proc") is None  # unreadable: no limit, never an error


def test_cpu_report_takes_the_smallest_and_says_why():
    from tutor.env import CpuReport

    binder = CpuReport(1.0, 16, 16, 16)
    assert binder.available == 1.0 and binder.limited_by == "a quota"
    assert binder.sentence == "1.0 CPU of time (a quota) on a host with 16 cores; TensorFlow sizes its thread pools for 16"
    pinned = CpuReport(None, 4, 16, 4)
    assert pinned.available == 4.0 and pinned.limited_by == "the affinity" and "4 of the cores" in pinned.sentence
    laptop = CpuReport(None, 8, 8, 8)
    assert laptop.available == 8.0 and "no quota" in str(laptop)
    assert CpuReport(12.0, 8, 8, 8).available == 8.0  # a quota above the cores does not add CPU


def test_cpus_available_reads_this_machine(monkeypatch):
    from tutor import env

    assert env.cpus_available() <= len(os.sched_getaffinity(0))
    monkeypatch.setattr(env, "cgroup_quota", lambda: 0.5)
    assert env.cpus_available() == 0.5
    assert env.env_report(data_source=False).as_dict()["CPU"].startswith("0.5 CPUs of time (a quota)")


@pytest.fixture(scope="module")
def one_cpu_group():
    """A real cgroup with a quota of one CPU of time (made only where this runs as root on cgroup v1 or v2)."""
    import pathlib
    import uuid

    v1, v2 = pathlib.Path("/sys/fs/cgroup/cpu"), pathlib.Path("/sys/fs/cgroup")
    name = f"tutor-test-{uuid.uuid4().hex[:8]}"
    if (v1 / "cpu.cfs_quota_us").exists():
        group, setup = v1 / name, [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", "100000")]
    elif (v2 / "cgroup.controllers").exists() and "cpu" in (v2 / "cgroup.controllers").read_text().split():
        group, setup = v2 / name, [("cpu.max", "100000 100000")]
    else:
        pytest.skip("no cgroup cpu controller is mounted here")
    try:
        group.mkdir()
        for file, value in setup:
            (group / file).write_text(value)
    except OSError as error:
        if group.exists():
            group.rmdir()
        pytest.skip(f"cannot make a cgroup here: {error}")
    yield group
    for _ in range(50):
        try:
            group.rmdir()
            break
        except OSError:
            time.sleep(0.1)


@pytest.fixture(scope="module")
def inside_the_quota(one_cpu_group):
    """What a fresh Python inside the one-CPU group saw: tutor's CPU count, TensorFlow's pool size, and the most
    calls of a parallel map of sleeps that ran at once. (One child for the tests below: each child imports
    TensorFlow, which costs more than the tests.)"""
    n = len(os.sched_getaffinity(0))
    code = (
        f"import os; open('{one_cpu_group}/cgroup.procs', 'w').write(str(os.getpid()))\n"
        "import time, tensorflow as tf, tutor.env\n"
        "from tutor.bench import CallRecorder\n"
        "nap = CallRecorder(lambda v: (time.sleep(0.05), v)[1])\n"
        f"ds = tf.data.Dataset.range({4 * n}).map(lambda x: tf.py_function(nap, [x], tf.int64), "
        f"num_parallel_calls={2 * n})\n"
        "list(ds.as_numpy_iterator())\n"
        "print(tutor.env.cpus_available(), tutor.env.cpu_report().tensorflow_threads, nap.most_at_once)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    quota, pool, most = out.stdout.split()
    return float(quota), int(pool), int(most)


def test_cpus_available_sees_a_real_quota(inside_the_quota):
    assert inside_the_quota[0] == 1.0


def test_tensorflow_sizes_its_pool_for_the_cores_not_for_the_quota(inside_the_quota):
    """Lesson 00 and 07: under a 1-CPU quota TensorFlow's shared pool still runs one sleeping call per core."""
    n = len(os.sched_getaffinity(0))
    if n < 2:
        pytest.skip("needs two cores to tell the pool's size from the quota")
    quota, pool, most = inside_the_quota
    assert quota == 1.0 and pool == n
    assert 2 <= most <= n  # more sleeps at once than the quota has CPUs: the pool, not the quota, sets the limit
