"""tutor.service: a real local tf.data service that starts, serves, and stops without leftovers."""
import os
import socket
import threading
import time

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor.service import LocalService, free_ports, stop_all, tag_producer
from tutor.service import WorkerOrderDisplay


def native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def can_listen(port: int) -> bool:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT leftovers are fine, a listener is not
    try:
        s.bind(("localhost", port))
        s.listen()
        return True
    except OSError:
        return False
    finally:
        s.close()


def eventually(condition, timeout: float = 5.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass (threads take a moment to exit)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture()
def service():
    with LocalService(2, name="tests") as svc:
        yield svc


def read(ds):
    return [tuple(int(v) for v in pair) for pair in ds.as_numpy_iterator()]


def test_parallel_epochs_every_worker_produces_everything(service):
    disp = WorkerOrderDisplay.from_service(service, n_elements=10, processing_mode="parallel_epochs")
    assert disp.n_workers == 2
    assert disp.visits.tolist() == [2] * 10
    assert [sorted(p) for p in disp.per_worker] == [list(range(10))] * 2
    assert not disp.exactly_once


def test_distributed_epoch_visits_each_element_once(service):
    disp = WorkerOrderDisplay.from_service(service, n_elements=30, processing_mode="distributed_epoch")
    assert disp.visits.tolist() == [1] * 30 and disp.exactly_once and disp.at_most_once
    assert sorted(e for p in disp.per_worker for e in p) == list(range(30))


def test_data_sharding_splits_by_position(service):
    disp = WorkerOrderDisplay.from_service(service, n_elements=12, processing_mode="DATA")
    assert disp.exactly_once and disp.n_workers == 2
    # static DATA sharding: worker i keeps the elements whose index is i modulo the number of workers
    assert sorted({e % 2 for e in disp.per_worker[0]}) in ([0], [1])
    assert {e % 2 for e in disp.per_worker[0]}.isdisjoint({e % 2 for e in disp.per_worker[1]})


def test_distribute_checks_its_arguments(service):
    with pytest.raises(ValueError, match="processing_mode"):
        service.distribute(tf.data.Dataset.range(3), "every_epoch")
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        service.distribute([1, 2, 3])


def test_stop_frees_ports_and_threads():
    baseline_python = threading.active_count()
    after_stop = []
    for cycle in range(3):
        svc = LocalService(2, name="ports")
        ports = list(svc.ports)
        assert len(set(ports)) == 3 and svc.target.endswith(f":{ports[0]}")
        assert not any(can_listen(p) for p in ports)  # the servers are listening
        assert sorted(svc.distribute(tf.data.Dataset.range(4), "distributed_epoch").as_numpy_iterator()) == [0, 1, 2, 3]
        while_running = native_threads()
        svc.stop()
        svc.stop()  # twice is fine
        assert not svc.running
        assert eventually(lambda: all(can_listen(p) for p in ports))
        assert eventually(lambda: native_threads() <= while_running - 10)  # the servers' own threads ended
        after_stop.append(native_threads())
    # TensorFlow and gRPC keep a few process-wide threads after the first use; a server left
    # behind would add dozens in every cycle
    assert eventually(lambda: native_threads() <= after_stop[0] + 3), after_stop
    assert threading.active_count() == baseline_python
    # a new dispatcher can take the very same port
    again = tf.data.experimental.service.DispatchServer(tf.data.experimental.service.DispatcherConfig(port=ports[0]))
    assert again.target.endswith(f":{ports[0]}")
    (getattr(again, "stop", None) or again._stop)()


def test_rerun_with_the_same_name_replaces_the_old_service():
    first = LocalService(1, name="rerun")
    second = LocalService(1, name="rerun")
    try:
        assert not first.running and second.running
        assert all(can_listen(p) for p in first.ports if p not in second.ports)
        assert LocalService._running["rerun"] is second
    finally:
        second.stop()
    assert "rerun" not in LocalService._running


def test_context_manager_and_stop_all():
    with LocalService(1, name="ctx") as svc:
        assert svc.running
    assert not svc.running
    with pytest.raises(RuntimeError, match="start"):
        svc.target
    a, b = LocalService(1, name="a"), LocalService(1, name="b")
    assert stop_all() >= 2 and not a.running and not b.running


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_workers"):
        LocalService(0)
    with pytest.raises(TypeError, match="name"):
        LocalService(1, name=3, start=False)
    assert len(set(free_ports(4))) == 4


def test_tag_producer_gives_one_token_per_iterator():
    tagged = tag_producer(tf.data.Dataset.range(5))
    first, second = read(tagged), read(tagged)
    assert [e for e, _ in first] == [0, 1, 2, 3, 4]
    assert len({t for _, t in first}) == 1 and len({t for _, t in second}) == 1
    assert first[0][1] != second[0][1]  # a new iterator draws a new token


def test_worker_display_numbers_and_artists():
    disp = WorkerOrderDisplay([0, 1, 0, 2, 1, 2], [0, 0, 1, 0, 1, 1], mode="parallel_epochs")
    assert disp.visits.tolist() == [2, 2, 2] and disp.per_worker == [[0, 1, 2], [0, 1, 2]]
    disp.plot(width=4)
    colours = disp.cells_.get_facecolors()
    assert len(colours) == 6 and [t.get_text() for t in disp.texts_] == ["0", "1", "0", "2", "1", "2"]
    assert tuple(colours[0]) != tuple(colours[2])  # different workers, different colours
    assert "parallel_epochs" in disp.ax_.get_title(loc="left")
    disp.plot(kind="coverage")
    assert len(disp.cells_.get_paths()) == 6 and disp.ax_.get_xlabel() == "element id"
    with pytest.raises(ValueError, match="kind"):
        disp.plot(kind="pie")
    once = WorkerOrderDisplay([1, 0, 2], [0, 1, 0])
    assert once.exactly_once and once.at_most_once and "no element arrived twice" in once.plot().ax_.get_title(loc="left")
    twice = WorkerOrderDisplay([0, 0, 1], [0, 1, 0])
    assert not twice.at_most_once and not twice.exactly_once and "up to 2 times" in twice.plot().ax_.get_title(loc="left")
    gap = WorkerOrderDisplay([0, 2], [0, 1])  # element 1 never arrived: at most once, not exactly once
    assert gap.at_most_once and not gap.exactly_once
    import matplotlib.pyplot as plt

    plt.close("all")


def test_slow_elements_let_both_workers_take_splits(service):
    # lesson 13's distributed_epoch figure: each element sleeps on its worker, so the other worker asks for splits
    for _ in range(2):
        disp = WorkerOrderDisplay.from_service(service, n_elements=20, processing_mode="distributed_epoch",
                                               element_seconds=0.05)
        assert disp.exactly_once and disp.n_workers == 2
        assert min(len(p) for p in disp.per_worker) >= 2


def test_worker_display_bad_input():
    with pytest.raises(ValueError, match="worker labels"):
        WorkerOrderDisplay([0, 1], [0])
    with pytest.raises(ValueError, match="element_seconds must be >= 0"):
        WorkerOrderDisplay.from_service(None, element_seconds=-1)
    with pytest.raises(TypeError, match="element_seconds must be a number of seconds"):
        WorkerOrderDisplay.from_service(None, element_seconds="slow")
    with pytest.raises(TypeError, match="tag_producer"):
        WorkerOrderDisplay.from_dataset(tf.data.Dataset.range(3))
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        WorkerOrderDisplay.from_dataset(np.arange(3))


def test_time_job_separates_startup_from_work():
    from tutor.service import time_job

    with LocalService(1, name="timing") as svc:
        timing = time_job(svc.distribute(tf.data.Dataset.range(8), "distributed_epoch"))
    assert timing.elements == 8 and min(timing.startup, timing.work, timing.finish) >= 0
    assert time_job(tf.data.Dataset.range(0)).elements == 0
    assert time_job(tf.data.Dataset.range(50), max_elements=10).elements == 10
    assert "8 elements" in repr(timing)


def test_service_diagram_has_every_host():
    from tutor.service import plot_service_diagram

    diagram = plot_service_diagram(n_workers=3, n_trainers=2)
    assert sorted(diagram.boxes_) == ["dispatcher", "storage", "trainer 1", "trainer 2", "worker 1", "worker 2",
                                      "worker 3"]
    # storage -> each worker, dispatcher -> each worker and trainer, each worker -> each trainer
    assert len(diagram.arrows_) == 3 + 3 + 2 + 3 * 2
    assert diagram.ax_.get_title(loc="left").startswith("Scaling out")
    with pytest.raises(ValueError):
        plot_service_diagram(n_workers=0)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_from_generator_is_one_split_so_one_worker_makes_everything(service):
    def gen():
        yield from range(20)

    source = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64))
    disp = WorkerOrderDisplay.from_dataset(service.distribute(tag_producer(source), "distributed_epoch"))
    assert disp.exactly_once and disp.n_workers == 1


def test_snapshot_and_load_skip_the_work_after_the_first_pass(tmp_path):
    calls = []

    def count(x):
        calls.append(1)
        return x

    work = tf.data.Dataset.range(10).map(lambda x: tf.py_function(count, [x], tf.int64))
    snapped = work.snapshot(str(tmp_path / "snap"))
    first = [int(v) for v in snapped.as_numpy_iterator()]
    second = [int(v) for v in snapped.as_numpy_iterator()]
    assert first == second == list(range(10)) and len(calls) == 10  # the second pass read the snapshot
    work.save(str(tmp_path / "saved"))
    assert len(calls) == 20
    loaded = tf.data.Dataset.load(str(tmp_path / "saved"))
    assert [int(v) for v in loaded.as_numpy_iterator()] == list(range(10)) and len(calls) == 20


def test_dynamic_sharding_promises_at_most_once_not_exactly_once():
    # what the lesson says, in the installed TensorFlow's own documentation of the sharding policies
    doc = " ".join(tf.data.experimental.service.ShardingPolicy.__doc__.split())
    assert "Dynamic sharding provides at-most once visitation guarantees" in doc
    assert "some may be missed if a tf.data service worker gets restarted" in doc


def test_a_worker_runs_the_same_graph_rewrites_as_a_local_pipeline(tmp_path):
    """A stateless map becomes a parallel map on the worker too; with map_parallelization off it stays a Map."""
    from tutor.timeline.profiler.xspace import find_xspace, read_events

    def heavy(i):
        return tf.reduce_sum(tf.sin(tf.random.stateless_uniform([8, 8], seed=tf.stack([i, 0]))))

    sequential = tf.data.Options()
    sequential.experimental_optimization.map_parallelization = False
    found = {}
    with LocalService(1, name="rewrites") as svc:
        for label, options in (("default", tf.data.Options()), ("sequential", sequential)):
            logdir = str(tmp_path / label)
            ds = svc.distribute(tf.data.Dataset.range(20).map(heavy).with_options(options), "distributed_epoch")
            tf.profiler.experimental.start(logdir)
            try:
                assert len(list(ds.as_numpy_iterator())) == 20
            finally:
                tf.profiler.experimental.stop()
            # the worker's iterators, in this process: ...::<our map>::Range (the client side reads DataService)
            found[label] = {e.name.split("::")[-2] for e in read_events(find_xspace(logdir))
                            if e.name.startswith("Iterator::") and e.name.endswith("::Range")}
    assert found["default"] == {"ParallelMapV2"}
    assert found["sequential"] == {"Map"}


# --- the service in another process: what a cluster's workers can and cannot run ---------------------------------
@pytest.fixture(scope="module")
def remote():
    from tutor.service import ProcessService

    with ProcessService(num_workers=2) as svc:
        yield svc


def _remote(ds, remote, mode="parallel_epochs"):
    return ds.apply(tf.data.experimental.service.distribute(mode, remote.target))


def test_a_worker_in_another_process_runs_graph_pipelines(remote):
    assert remote.running and remote.target.startswith("grpc://localhost:")
    assert sorted(int(v) for v in _remote(tf.data.Dataset.range(6), remote, "distributed_epoch")) == list(range(6))
    squares = _remote(tf.data.Dataset.range(4).map(lambda x: x * x), remote)
    assert sorted(int(v) for v in squares) == [0, 0, 1, 1, 4, 4, 9, 9]  # two workers, parallel_epochs


@pytest.mark.parametrize("name", ["py_function", "numpy_function", "from_generator", "tag_producer"])
def test_a_worker_in_another_process_cannot_run_python(remote, name):
    python = {
        "py_function": lambda: tf.data.Dataset.range(3).map(lambda x: tf.py_function(lambda v: v, [x], tf.int64)),
        "numpy_function": lambda: tf.data.Dataset.range(3).map(lambda x: tf.numpy_function(lambda v: v, [x], tf.int64)),
        "from_generator": lambda: tf.data.Dataset.from_generator(lambda: iter(range(3)),
                                                                 output_signature=tf.TensorSpec([], tf.int64)),
        "tag_producer": lambda: tag_producer(tf.data.Dataset.range(3)),
    }[name]()
    assert len(list(python.as_numpy_iterator())) == 3  # fine in this process
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not find callback"):
        list(_remote(python, remote).as_numpy_iterator())


def test_process_service_stops_its_process():
    from tutor.service import ProcessService

    svc = ProcessService(num_workers=1)
    process = svc.process
    assert svc.running and process.poll() is None
    assert stop_all() >= 1
    assert not svc.running and process.poll() is not None  # the child has exited
    svc.stop()  # twice is fine
    with pytest.raises(RuntimeError, match="start"):
        svc.target
    with pytest.raises(ValueError, match="num_workers"):
        ProcessService(num_workers=0)


def test_the_service_documentation_names_the_python_functions_it_does_not_support():
    import importlib

    doc = " ".join((importlib.import_module("tensorflow.python.data.experimental.service").__doc__ or "").split())
    limits = doc[doc.index("Limitations"):]
    for name in ("tf.py_function", "tf.numpy_function", "tf.data.Dataset.from_generator", "not supported"):
        assert name in limits


def test_every_new_iterator_is_a_new_job(service):
    ds = service.distribute(tf.data.Dataset.range(5), "parallel_epochs")
    first, second = sorted(int(v) for v in ds), sorted(int(v) for v in ds)
    assert first == second == sorted(list(range(5)) * 2)  # the second pass got its own job, not leftovers


def test_an_in_memory_cache_belongs_to_one_dataset_object():
    calls = []

    def count(x):
        calls.append(1)
        return x

    def pipeline():
        return tf.data.Dataset.range(4).map(lambda x: tf.py_function(count, [x], tf.int64)).cache()

    same = pipeline()
    list(same), list(same)
    assert len(calls) == 4  # the second pass of the same object read the cache
    list(pipeline())
    assert len(calls) == 8  # a new dataset object starts with an empty cache


def test_the_sharding_table_matches_tensorflows_documentation():
    doc = " ".join(tf.data.experimental.service.ShardingPolicy.__doc__.split())
    assert "The tf.data service cluster is configured with a fixed list of workers in DispatcherConfig" in doc
    assert "Each client only reads from the local tf.data service worker" in doc
    assert "make sure that there is at least as many files as workers" in doc  # FILE
    assert "Each worker will process the whole dataset and discard the portion that is not for itself" in doc  # DATA
    assert "the dataset needs to produce elements in a deterministic order" in doc
    assert "falling back to DATA-based sharding" in doc  # FILE_OR_DATA
    assert "placeholder to replace with `shard(num_workers, worker_index)`" in doc  # HINT


@pytest.mark.parametrize("mode, policy, visits", [("parallel_epochs", "OFF", 2), ("distributed_epoch", "DYNAMIC", 1)])
def test_the_two_modes_are_the_policies_off_and_dynamic(service, mode, policy, visits):
    by_name = WorkerOrderDisplay.from_service(service, n_elements=8, processing_mode=mode)
    by_policy = WorkerOrderDisplay.from_service(
        service, n_elements=8, processing_mode=getattr(tf.data.experimental.service.ShardingPolicy, policy))
    assert by_name.visits.tolist() == by_policy.visits.tolist() == [visits] * 8
