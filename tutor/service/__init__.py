"""The tf.data service on one machine: a local dispatcher and workers, and who produced which element.

* :class:`LocalService`: a real dispatcher and workers on free localhost ports,
  inside this Python process; ``service.distribute(ds, mode)`` sends a pipeline
  through them.
* :func:`tag_producer`: tags each element with the producer that made it. It
  relies on the workers running in this process, so it is a local teaching aid:
  on a real cluster, workers cannot run Python (``py_function``) at all.
* :class:`WorkerOrderDisplay`: elements in arrival order, coloured by worker.
* :class:`ServiceDiagramDisplay`: the boxes-and-arrows picture of a cluster.

>>> from tutor.service import LocalService
>>> with LocalService(num_workers=2) as service:             # doctest: +SKIP
...     sorted(service.distribute(tf.data.Dataset.range(4), "distributed_epoch").as_numpy_iterator())
[0, 1, 2, 3]
"""
from .display import ServiceDiagramDisplay, WorkerOrderDisplay, plot_service_diagram
from .local import HEARTBEAT_MS, MODES, SHARDING_POLICIES, LocalService, ServiceTiming, free_ports, stop_all, \
    tag_producer, time_job

__all__ = [
    "HEARTBEAT_MS", "LocalService", "MODES", "SHARDING_POLICIES", "ServiceDiagramDisplay", "ServiceTiming",
    "WorkerOrderDisplay", "free_ports", "plot_service_diagram", "stop_all", "tag_producer", "time_job",
]
