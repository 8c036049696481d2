"""A real tf.data service on this machine: one dispatcher and a few workers on free localhost ports.

>>> with LocalService(num_workers=2) as service:
...     ds = service.distribute(tf.data.Dataset.range(6), "distributed_epoch")
...     sorted(int(v) for v in ds.as_numpy_iterator())
[0, 1, 2, 3, 4, 5]

Re-running a notebook cell is safe: starting a service stops the one started
earlier under the same ``name`` first, so ports never stay busy. The servers
are the programs a cluster runs on separate hosts, but here they run in this
Python process (on threads TensorFlow owns). One thing works only because of
that: Python functions (``py_function``, ``numpy_function``,
``from_generator``), which the tf.data service does not support, still run,
because the workers find them in this process. :class:`tutor.service.ProcessService`
runs the servers in another process, where they fail as on a cluster.
"""
from __future__ import annotations

import atexit
import itertools
import socket
import time
from typing import ClassVar

import tensorflow as tf

from .. import reading
from .._validate import require_dataset, require_positive_int
from ..i18n import gettext as _

_service = tf.data.experimental.service
#: The processing modes and sharding policies ``distribute`` accepts, by name.
MODES = ("parallel_epochs", "distributed_epoch")
SHARDING_POLICIES = ("OFF", "DYNAMIC", "FILE", "DATA", "FILE_OR_DATA", "HINT")
#: Worker heartbeat interval: cheap on localhost, and it bounds how long stopping a worker can take.
HEARTBEAT_MS = 250


def free_ports(n: int) -> list[int]:
    """``n`` distinct localhost ports that nothing listens on right now.

    >>> len(set(free_ports(3)))
    3
    """
    n = require_positive_int(n, "n", "free_ports")
    sockets = []
    try:
        for _unused in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("localhost", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _stop_server(server) -> None:
    stop = getattr(server, "stop", None) or server._stop
    stop()


class LocalService:
    """A dispatcher and ``num_workers`` workers, bound to localhost on free ports.

    Parameters
    ----------
    num_workers : int
        How many worker servers to start (each runs the dataset's preprocessing).
    name : str
        Starting a service stops the running one with the same name first, so a
        notebook can be re-run in the same kernel.
    start : bool
        Start at once (default). Otherwise call :meth:`start`.

    The dispatcher knows the workers' addresses in advance, so every sharding
    policy works, the static ones (FILE, DATA, HINT) included.
    """

    _running: ClassVar[dict[str, "LocalService"]] = {}

    def __init__(self, num_workers: int = 2, *, name: str = "default", start: bool = True):
        self.num_workers = require_positive_int(num_workers, "num_workers", "LocalService")
        if not isinstance(name, str):
            raise TypeError(_("LocalService: name must be a string, got {type}.").format(type=type(name).__name__))
        self.name = name
        self.dispatcher = None
        self.workers: list = []
        self.ports: list[int] = []
        if start:
            self.start()

    # ---------------------------------------------------------------- lifecycle
    def start(self, timeout: float = 20.0) -> "LocalService":
        """Stop any service of the same name, then start the dispatcher and workers; returns self."""
        previous = LocalService._running.get(self.name)
        if previous is not None:
            previous.stop()
        if self.running:
            return self
        for attempt in range(3):  # a port picked as free can be taken before we bind it: try again
            try:
                self._start_servers()
                break
            except Exception:
                self._stop_servers()
                if attempt == 2:
                    raise
        deadline = time.monotonic() + timeout
        while self.dispatcher._num_workers() < self.num_workers:
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(_("LocalService: the workers did not register with the dispatcher in {timeout} s.")
                                   .format(timeout=timeout))
            time.sleep(0.01)
        LocalService._running[self.name] = self
        return self

    def _start_servers(self) -> None:
        self.ports = free_ports(self.num_workers + 1)
        dispatcher_port, worker_ports = self.ports[0], self.ports[1:]
        addresses = [f"localhost:{p}" for p in worker_ports]
        self.dispatcher = _service.DispatchServer(
            _service.DispatcherConfig(port=dispatcher_port, worker_addresses=addresses)
        )
        for port, address in zip(worker_ports, addresses):
            config = _service.WorkerConfig(
                dispatcher_address=f"localhost:{dispatcher_port}",
                worker_address=address,
                port=port,
                # a stopping worker may wait for its next heartbeat (30 s by default): keep it short
                heartbeat_interval_ms=HEARTBEAT_MS,
            )
            self.workers.append(_service.WorkerServer(config))

    def _stop_servers(self) -> None:
        for worker in self.workers:  # workers first: they keep calling the dispatcher
            _stop_server(worker)
        if self.dispatcher is not None:
            _stop_server(self.dispatcher)
        self.workers, self.dispatcher = [], None

    def stop(self) -> None:
        """Stop the workers and the dispatcher and free their ports. Safe to call twice.

        A worker cannot stop while it runs a pipeline that never produces an
        element (a ``filter`` that never matches on an endless ``repeat()``):
        TensorFlow's stop call then waits forever, holding Python. So never
        send such a pipeline through a service you will stop; tutor's checkers
        refuse to.
        """
        self._stop_servers()
        if LocalService._running.get(self.name) is self:
            del LocalService._running[self.name]

    shutdown = stop

    @property
    def running(self) -> bool:
        return self.dispatcher is not None

    @property
    def target(self) -> str:
        """The dispatcher's address for ``distribute(service=...)``, e.g. ``'grpc://localhost:40123'``."""
        if not self.running:
            raise RuntimeError(_("LocalService is stopped; call .start() first."))
        return self.dispatcher.target

    def __enter__(self) -> "LocalService":
        return self if self.running else self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"LocalService(num_workers={self.num_workers}, name={self.name!r}, {state})"

    # -------------------------------------------------------------------- use
    def distribute(
        self, dataset: tf.data.Dataset, processing_mode: str = "parallel_epochs", *, job_name: str | None = None
    ) -> tf.data.Dataset:
        """``dataset.apply(tf.data.experimental.service.distribute(processing_mode, self.target))``.

        ``processing_mode`` is ``"parallel_epochs"`` (every worker produces the
        whole dataset), ``"distributed_epoch"`` (each element once, split across
        workers), or a sharding policy name such as ``"DATA"``.
        """
        require_dataset(dataset, "LocalService.distribute")
        mode = processing_mode
        if isinstance(mode, str) and mode.upper() in SHARDING_POLICIES:
            mode = getattr(_service.ShardingPolicy, mode.upper())
        elif isinstance(mode, str) and mode not in MODES:
            raise ValueError(
                _("LocalService.distribute: processing_mode must be one of {modes} or a sharding policy "
                  "{policies}, got {mode!r}.").format(modes=MODES, policies=SHARDING_POLICIES, mode=processing_mode)
            )
        return dataset.apply(_service.distribute(processing_mode=mode, service=self.target, job_name=job_name))


def stop_all() -> int:
    """Stop every running :class:`LocalService`; returns how many were stopped."""
    services = list(LocalService._running.values())
    for s in services:
        s.stop()
    return len(services)


atexit.register(stop_all)

_tokens = itertools.count()


def _next_token():
    return next(_tokens)


def tag_producer(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """Pair every element with a token of the iterator that produced it: ``(element, token)``.

    The service does not tell the reader which worker sent an element, so the
    pipeline stamps them itself: the first time an iterator runs, it draws a
    fresh token (from a Python counter) and keeps it. A worker runs one
    iterator per job, so within a job a token stands for a worker.

    Local only: the token comes from ``tf.py_function``, and the tf.data
    service does not support Python functions. It works with
    :class:`LocalService` because those workers run in this process, where the
    function is registered; a worker in another process
    (:class:`tutor.service.ProcessService`, or a cluster) fails to find it.

    >>> [int(x) for x in tag_producer(tf.data.Dataset.range(2)).map(lambda x, t: x).as_numpy_iterator()]
    [0, 1]
    """
    require_dataset(dataset, "tag_producer")

    def step(token, element):
        token = tf.cond(token < 0, lambda: tf.py_function(_next_token, [], tf.int64), lambda: token)
        token = tf.ensure_shape(token, [])
        return token, (element, token)

    return dataset.scan(tf.constant(-1, tf.int64), step)


class ServiceTiming:
    """What :func:`time_job` measured, in seconds: ``startup`` (until the first element),
    ``work`` (first element to last), ``finish`` (last element until the reader learns the
    job is over) and the number of ``elements``."""

    def __init__(self, startup: float, work: float, elements: int, finish: float = 0.0):
        self.startup, self.work, self.finish, self.elements = float(startup), float(work), float(finish), int(elements)

    def __repr__(self) -> str:
        return _("<ServiceTiming {elements} elements: start-up {startup:.2f} s, work {work:.2f} s, finish {finish:.2f} "
                 "s>").format(elements=self.elements, startup=self.startup, work=self.work, finish=self.finish)


def time_job(dataset: tf.data.Dataset, *, max_elements: int = 100_000) -> ServiceTiming:
    """Read a distributed dataset to the end, timing start-up, work and finish separately.

    A service job has fixed costs that have nothing to do with the pipeline: it
    is created when iteration starts, and after the last element the reader only
    learns that the job is over at its next check with the dispatcher (about a
    second with the default settings). So the work is timed from the first
    element to the last. The read is :func:`tutor.reading.pull`'s: a job that
    yields nothing for ``tutor.reading.PASS_TIMEOUT`` seconds stops with
    ``tutor.reading.ReadTimeout``.

    >>> time_job(tf.data.Dataset.range(3)).elements
    3
    """
    require_dataset(dataset, "time_job")
    max_elements = require_positive_int(max_elements, "max_elements", "time_job")
    arrived: list[float] = []
    start = time.perf_counter()
    reading.pull(dataset.take(max_elements), timeout=reading.PASS_TIMEOUT, where="time_job", idle=True,
                 convert=lambda element: None, on_element=lambda i, element: arrived.append(time.perf_counter()))
    end = time.perf_counter()
    if not arrived:
        return ServiceTiming(end - start, 0.0, 0, 0.0)
    return ServiceTiming(arrived[0] - start, arrived[-1] - arrived[0], len(arrived), end - arrived[-1])
