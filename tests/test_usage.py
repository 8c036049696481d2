"""tutor.usage: buffers by arithmetic, memory measured, CPU time against the CPU time available, the remote-storage
stand-in and MemoryDisplay. Nothing here decides by a wall-clock time: bytes, counts and arithmetic on given numbers."""
import gc
import sys

import matplotlib.pyplot as plt
import numpy as np
import pytest
import tensorflow as tf

import tutor
from tutor import usage
from tutor.timeline import naive_options

R = tf.data.Dataset.range
MB = 2**20


def image(i):
    return tf.fill([512, 512], tf.cast(i, tf.float32))   # 1 MB


def _only(ds):
    (found,) = usage.buffers(ds)
    return found


# ----------------------------------------------------------------------------- arithmetic
def test_element_bytes_adds_the_parts_and_refuses_what_has_no_fixed_size():
    spec = (tf.TensorSpec([28, 28, 1], tf.uint8), {"label": tf.TensorSpec([], tf.int64)})
    assert usage.element_bytes(spec) == 28 * 28 + 8
    assert usage.element_bytes(tf.TensorSpec([None, 3], tf.float32)) is None
    assert usage.element_bytes(tf.TensorSpec([], tf.string)) is None
    assert usage.element_bytes(tf.RaggedTensorSpec([2, None], tf.int32)) is None


@pytest.mark.parametrize("ds, kind, elements, rule", [
    (R(300).map(image).shuffle(100), "shuffle", 100, "buffer_size"),
    (R(30).map(image).shuffle(100), "shuffle", 30, "only 30 elements come in"),
    (R(300).map(image).prefetch(3), "prefetch", 3, "buffer_size"),
    (R(300).map(image).prefetch(tf.data.AUTOTUNE), "prefetch", None, "AUTOTUNE"),
    (R(300).map(image, num_parallel_calls=4), "map", 4, "num_parallel_calls"),
    (R(300).map(image, num_parallel_calls=tf.data.AUTOTUNE), "map", None, "AUTOTUNE"),
    (R(9).interleave(lambda f: R(5).map(image), cycle_length=3, num_parallel_calls=3), "interleave", 27,
     "9 inputs open (3 + 6 ahead) x 3 each"),
    (R(9).interleave(lambda f: R(5).map(image), cycle_length=2, block_length=2, num_parallel_calls=1), "interleave",
     30, "6 inputs open (2 + 4 ahead) x 5 each"),
    (R(60).map(image).cache(), "cache", 60, "every element of one pass"),
    (R(60).map(image).filter(lambda x: x[0, 0] > 3).cache(), "cache", None, "length unknown"),
    (R(60).map(image).cache().take(10), "cache", 0, "take(count=10) ends every pass early"),
    (R(60).map(image).cache().prefetch(1).take(10), "cache", 0, "thrown away"),
], ids=["shuffle", "shuffle-capped", "prefetch", "prefetch-autotune", "parallel-map", "parallel-map-autotune",
        "interleave", "interleave-block-2", "cache", "cache-after-filter", "cache-then-take", "cache-prefetch-take"])
def test_each_buffering_stage_and_its_rule(ds, kind, elements, rule):
    found = [b for b in usage.buffers(ds) if b.kind == kind]
    assert len(found) == 1
    b = found[0]
    assert b.elements == elements and rule in b.rule
    assert b.element_bytes == MB or kind == "cache" and b.element_bytes == MB
    assert b.bytes == (None if elements is None else elements * MB)


def test_stages_that_keep_nothing_are_not_buffers():
    plain = R(10).map(image).batch(2).take(3).repeat(2).filter(lambda x: True)
    assert len(usage.buffers(plain)) == 0
    assert "No buffering stage" in str(usage.buffers(plain))
    assert len(usage.buffers(R(4).interleave(lambda f: R(3), cycle_length=2))) == 0  # no num_parallel_calls
    assert len(usage.buffers(R(4).map(image).cache("/tmp/never-written-file-cache"))) == 0
    assert len(usage.buffers(R(40).map(image).cache().take(50))) == 1 and _only(
        R(40).map(image).cache().take(50)).elements == 40  # a take that keeps every element lets the cache fill


def test_an_unknown_batch_dimension_is_resolved_from_batch_size():
    b = _only(R(100).map(image).batch(8).prefetch(2))
    assert b.element_bytes == 8 * MB and b.bytes == 16 * MB
    assert _only(R(100).map(image).batch(8).cache().take(3)).element_bytes == 8 * MB
    assert _only(R(100).map(lambda i: tf.zeros([i % 3 + 1])).prefetch(2)).element_bytes is None


def test_the_table_prints_every_buffer_and_the_total():
    table = usage.buffers(R(300).map(image).shuffle(100).batch(8).prefetch(2))
    text = str(table)
    assert table.total == 116 * MB and table.unknown == []
    assert "shuffle(buffer_size=100)" in text and "prefetch(buffer_size=2)" in text and "in all: 116.0 MB" in text
    partial = usage.buffers(R(300).map(image).shuffle(100).prefetch(tf.data.AUTOTUNE))
    assert partial.total == 100 * MB and len(partial.unknown) == 1 and "1 buffer(s) of unknown size" in str(partial)


def test_buffers_refuses_what_is_not_a_dataset():
    with pytest.raises(TypeError, match="expects a tf.data.Dataset"):
        usage.buffers([1, 2, 3])


def test_megabytes():
    assert usage.megabytes(3 * MB) == "3.0 MB" and usage.megabytes(None) == "?"
    assert usage.megabytes(256, digits=4) == "0.0002 MB"


# ----------------------------------------------------------------------------- measured
def test_memory_use_counts_the_buffer_while_the_iterator_lives_and_nothing_after():
    use = usage.memory_use(R(300).map(image).shuffle(50, seed=0).with_options(naive_options()), label="fifty")
    assert use.buffers.total == 50 * MB
    assert 50 * MB <= use.tensors_held <= 51 * MB
    assert use.tensors_after <= MB // 2 and use.tensors_peak >= use.tensors_held
    assert use.first_seconds is not None and use.first_seconds >= 0 and use.elements == 1
    assert use.rss_held is not None
    text = str(use)
    assert text.startswith("fifty: buffers by arithmetic 50.0 MB") and "once it was gone" in text


def test_memory_use_after_a_whole_pass_measures_what_the_dataset_keeps():
    ds = R(20).map(image).cache()
    use = usage.memory_use(ds, elements=1000)
    assert use.elements == 20 and use.tensors_held == use.tensors_after == 20 * MB
    del ds
    gc.collect()


def test_memory_use_is_bounded_on_an_endless_pipeline_and_refuses_bad_input():
    assert usage.memory_use(R(3).repeat(), elements=5).elements == 5
    with pytest.raises(TypeError, match="expects a tf.data.Dataset"):
        usage.memory_use("not a dataset")
    with pytest.raises(ValueError, match="elements must be >= 1"):
        usage.memory_use(R(3), elements=0)


def test_memory_use_says_so_where_tensorflow_does_not_count(monkeypatch):
    def refuse(device):
        raise ValueError("no memory stats for this device")

    monkeypatch.setattr(tf.config.experimental, "get_memory_info", refuse)
    assert usage.tensor_bytes() is None
    use = usage.memory_use(R(10).map(image).prefetch(2))
    assert use.tensors_held is None and use.tensors_peak is None
    assert "TensorFlow does not count its tensors here" in str(use)


def test_process_rss_with_and_without_psutil(monkeypatch):
    with_psutil = usage.process_rss()
    monkeypatch.setitem(sys.modules, "psutil", None)   # import psutil now raises ImportError
    without = usage.process_rss()
    assert with_psutil > 50 * MB and without > 50 * MB


def _cgroup(tmp_path, cgroup_line, files):
    proc = tmp_path / "proc"
    proc.mkdir(parents=True)
    (proc / "cgroup").write_text(cgroup_line)
    for name, text in files.items():
        path = tmp_path / "cg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return proc, tmp_path / "cg"


def test_memory_limit_reads_the_tightest_cgroup_limit(tmp_path):
    proc, root = _cgroup(tmp_path, "4:memory:/user/nb\n1:cpu:/\n", {
        "memory/memory.limit_in_bytes": "9223372036854771712\n",        # the root: no limit
        "memory/user/memory.limit_in_bytes": str(3 * 2**30),
        "memory/user/nb/memory.limit_in_bytes": str(2 * 2**30),
    })
    assert usage.memory_limit(proc, root) == 2 * 2**30


def test_memory_limit_v2_and_no_limit_falls_back_to_the_ram(tmp_path):
    proc, root = _cgroup(tmp_path, "0::/binder/nb\n", {"binder/memory.max": str(2 * 2**30),
                                                       "binder/nb/memory.max": "max\n"})
    assert usage.memory_limit(proc, root) == 2 * 2**30
    proc2, root2 = _cgroup(tmp_path / "none", "0::/\n", {"memory.max": "max\n"})
    import psutil

    assert usage.memory_limit(proc2, root2) == psutil.virtual_memory().total
    assert usage.memory_limit(tmp_path / "missing", tmp_path / "missing") == psutil.virtual_memory().total


# ----------------------------------------------------------------------------- CPU
def test_utilization_is_measured_against_the_cpu_time_available_not_the_visible_cores():
    use = usage.CpuUse([0.95, 1.0, 0.97], [1.0, 1.0, 1.0], cpus=1.0, visible_cores=16, elements=100, label="binder")
    assert use.cpu == 0.97 and use.wall == 1.0 and use.cores_busy == pytest.approx(0.97)
    assert use.utilization == pytest.approx(0.97) and use.of_visible_cores == pytest.approx(0.97 / 16)
    assert use.verdict == "near the limit" and use.cpu_per_element == pytest.approx(0.0097)
    text = str(use)
    assert "97% of the 1.0 CPU(s) of time available (6% of the 16 cores visible): near the limit." in text
    two = usage.CpuUse([0.5], [0.5], cpus=2.0, visible_cores=2, elements=10)
    assert two.utilization == 0.5 and two.verdict == "low"
    with pytest.raises(ValueError, match="as many CPU times as wall times"):
        usage.CpuUse([1.0], [], cpus=1.0, visible_cores=1, elements=1)


@pytest.mark.parametrize("share, said", [(0.0, "low"), (0.59, "low"), (0.6, "in between"), (0.79, "in between"),
                                         (0.8, "near the limit"), (1.2, "near the limit")])
def test_the_verdict_thresholds(share, said):
    assert usage.verdict(share) == said


def test_cpu_use_reads_whole_passes_and_divides_by_the_quota(monkeypatch):
    monkeypatch.setattr(tutor.env, "cpus_available", lambda: 1.0)
    use = usage.cpu_use(R(500).map(lambda x: x * 2), repeats=2, warmup=1, label="doubling")
    assert use.elements == 500 and len(use.cpu_seconds) == 2 and use.cpus == 1.0
    assert all(c >= 0 for c in use.cpu_seconds) and all(w > 0 for w in use.wall_seconds)
    assert usage.cpu_use(R(5).repeat(), max_elements=7, repeats=1, warmup=0).elements == 7
    with pytest.raises(ValueError, match="repeats must be >= 1"):
        usage.cpu_use(R(3), repeats=0)


def test_process_time_counts_the_work_of_tensorflows_threads():
    """The CPU time cpu_use reads includes every thread: a parallel map computes in TensorFlow's threads, not in
    ours, and the process's CPU time still grows by that work (CPU times, not wall time: load cannot change this)."""
    import time

    x = tf.random.stateless_uniform([256, 256], seed=[1, 2])
    ds = R(64).map(lambda i: tf.reduce_sum(tf.linalg.matmul(x + tf.cast(i, tf.float32), x)), num_parallel_calls=2)
    list(ds)  # warm up
    process, thread = time.process_time(), time.thread_time()
    it = iter(ds)
    for _ in it:
        pass
    process, thread = time.process_time() - process, time.thread_time() - thread
    assert process > 2 * thread


def test_compare_gives_a_time_verdict_and_a_cpu_verdict(capsys):
    first = usage.CpuUse([1.0, 1.1, 1.0], [0.5, 0.55, 0.5], cpus=2, visible_cores=2, elements=10, label="A")
    second = usage.CpuUse([0.4, 0.42, 0.41], [0.2, 0.22, 0.21], cpus=2, visible_cores=2, elements=10, label="B")
    c = usage.CpuComparison(first, second)
    assert c.time.verdict == "faster" and c.cpu_verdict == "less CPU"
    assert "B used 0.41 CPU s per pass against 1.00 for A" in c.cpu_sentence and "less CPU, 2.4x" in c.cpu_sentence
    same = usage.CpuComparison(first, first)
    assert same.cpu_verdict == "no clear difference" and "no clear difference in CPU time" in same.cpu_sentence
    assert usage.CpuComparison(second, first).cpu_verdict == "more CPU"
    run = usage.compare(R(50), R(50).map(lambda x: x + 1), labels=("plain", "plus one"), repeats=3)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "plus one" in out[0] and out[1].startswith("plus one used")
    assert run.first.elements == run.second.elements == 50


def test_compare_refuses_bad_input():
    with pytest.raises(TypeError, match="expects a tf.data.Dataset"):
        usage.compare(R(3), [1, 2, 3])
    with pytest.raises(ValueError, match="labels must be two names"):
        usage.compare(R(3), R(3), labels="ab")
    with pytest.raises(ValueError, match="repeats must be >= 3"):
        usage.compare(R(3), R(3), repeats=2)


# ----------------------------------------------------------------------------- remote storage
def test_remote_storage_yields_file_and_record_and_counts_the_files_opened():
    store = usage.RemoteStorage(first_byte=0, per_record=0)
    ds = R(3).interleave(lambda f: store.open(f, records=2), cycle_length=3)
    assert [tuple(int(v) for v in e) for e in ds.as_numpy_iterator()] == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1),
                                                                          (2, 1)]
    assert store.files_opened == 3 and store.waits.calls == 6
    store.reset()
    assert store.files_opened == 0 and store.waits.calls == 0


def test_the_remote_storage_model():
    store = usage.RemoteStorage(first_byte=0.02, per_record=0.001)
    assert store.seconds(24, 5) == 0.6 and store.seconds(24, 5, at_once=4) == 0.15
    assert store.seconds(3, 40) == 0.18 and store.seconds(3, 40, at_once=4) == 0.06
    assert "20 ms" in repr(store)
    with pytest.raises(ValueError, match="first_byte must be >= 0"):
        usage.RemoteStorage(first_byte=-1)
    with pytest.raises(ValueError, match="at_once must be >= 1"):
        store.seconds(3, 4, at_once=0)
    with pytest.raises(TypeError, match="records must be a whole number"):
        store.open(0, records=2.5)


# ----------------------------------------------------------------------------- the Display
def _use(label, tensors, rss, ds=None):
    table = usage.buffers(ds if ds is not None else R(300).map(image).shuffle(100).prefetch(2))
    return usage.MemoryUse(label, table, 1, tensors_held=tensors, rss_held=rss)


def test_memory_display_stacks_the_arithmetic_and_marks_the_measurements():
    disp = usage.MemoryDisplay.from_measurements([_use("a", 103 * MB, 90 * MB),
                                                  _use("b", None, None, R(300).shuffle(100).map(image))])
    assert disp.labels == ["a", "b"] and disp.parts[0] == {"shuffle": 100 * MB, "prefetch": 2 * MB}
    disp.plot()
    assert set(disp.bars_) == {"shuffle", "prefetch"}
    widths = [bar.get_width() for bar in disp.bars_["shuffle"]]
    assert widths == pytest.approx([100, 800 / MB])
    xs = disp.tensors_.get_xdata()
    assert xs[0] == 103 and np.isnan(xs[1]) and disp.rss_.get_xdata()[0] == 90
    assert [t.get_text() for t in disp.ax_.get_yticklabels()] == ["a", "b"]
    plt.close("all")


def test_memory_display_refuses_what_is_not_a_list_of_measurements():
    with pytest.raises(TypeError, match="list of tutor.usage.memory_use"):
        usage.MemoryDisplay.from_measurements(_use("a", 1, 1))
    with pytest.raises(TypeError, match="list of datasets"):
        usage.MemoryDisplay.from_datasets(R(3))
    with pytest.raises(ValueError, match="2 labels for 1 datasets"):
        usage.MemoryDisplay.from_datasets([R(3)], labels=["a", "b"])
    with pytest.raises(ValueError, match="one label"):
        usage.MemoryDisplay(["a"], [{}, {}], [None], [None])
