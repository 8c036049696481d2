"""The tf.data service on one machine: a local dispatcher and workers, and who produced which element.

* :class:`LocalService`: a real dispatcher and workers on free localhost ports,
  inside this Python process; ``service.distribute(ds, mode)`` sends a pipeline
  through them.
* :class:`ProcessService`: a dispatcher and workers in a separate Python
  process, as on a cluster: Python functions of this process do not exist there
  (lessons 11 and 13 show it).
* :func:`tag_producer`: tags each element with the producer that made it. It
  uses ``py_function``, which the tf.data service does not support: it works
  only because :class:`LocalService`'s workers run in this process, so it is a
  local teaching aid (with :class:`ProcessService` it fails).
* :class:`WorkerOrderDisplay`: elements in arrival order, coloured by worker.
* :class:`ServiceDiagramDisplay`: the boxes-and-arrows picture of a cluster.

>>> from tutor.service import LocalService
>>> with LocalService(num_workers=2) as service:             # doctest: +SKIP
...     sorted(service.distribute(tf.data.Dataset.range(4), "distributed_epoch").as_numpy_iterator())
[0, 1, 2, 3]
"""
from .display import ServiceDiagramDisplay, WorkerOrderDisplay, plot_service_diagram
from .local import HEARTBEAT_MS, MODES, SHARDING_POLICIES, LocalService, ServiceTiming, free_ports, tag_producer, \
    time_job
from .local import stop_all as _stop_local
from .remote import ProcessService, stop_all_processes

__all__ = [
    "HEARTBEAT_MS", "LocalService", "MODES", "ProcessService", "SHARDING_POLICIES", "ServiceDiagramDisplay",
    "ServiceTiming", "WorkerOrderDisplay", "free_ports", "plot_service_diagram", "stop_all", "tag_producer", "time_job",
]


def stop_all() -> int:
    """Stop every running :class:`LocalService` and :class:`ProcessService`; returns how many were stopped."""
    return _stop_local() + stop_all_processes()
