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
    assert disp.visits.tolist() == [1] * 30 and disp.exactly_once
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
    assert once.exactly_once and "exactly once" in once.plot().ax_.get_title(loc="left")
    import matplotlib.pyplot as plt

    plt.close("all")


def test_worker_display_bad_input():
    with pytest.raises(ValueError, match="worker labels"):
        WorkerOrderDisplay([0, 1], [0])
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
