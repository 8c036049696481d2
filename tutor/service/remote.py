"""A tf.data service in another process: what a cluster looks like to the trainer, on one machine.

:class:`LocalService` runs its servers inside this Python process, so a
worker can call back into this process's Python functions. A real worker is a
separate program on another host, and it cannot: ``py_function``,
``numpy_function`` and ``from_generator`` refer to a Python function by a key
that only exists in the process that built the pipeline.
:class:`ProcessService` starts the dispatcher and workers in a child
process, so the difference shows on one machine.

>>> with ProcessService(num_workers=1) as remote:                 # doctest: +SKIP
...     ds = tf.data.Dataset.range(3).apply(
...         tf.data.experimental.service.distribute("parallel_epochs", remote.target))
...     sorted(ds.as_numpy_iterator())
[0, 1, 2]

The child runs :data:`CHILD_PROGRAM` (TensorFlow only): it starts the servers,
prints ``ready``, and exits when its standard input closes, which happens when
the parent stops it or exits, so no server outlives the notebook.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import ClassVar

from .._validate import require_positive_int, require_seconds
from ..i18n import gettext as _
from .local import HEARTBEAT_MS, free_ports

#: Seconds to wait for the child to start TensorFlow and its servers.
START_TIMEOUT = 120.0


class ProcessService:
    """A dispatcher and ``num_workers`` workers in a separate Python process, on free localhost ports.

    Parameters
    ----------
    num_workers : int
        How many workers the child process starts.
    start : bool
        Start at once (default). Otherwise call :meth:`start`.
    timeout : float
        Seconds to wait for the child to be ready.

    ``target`` is the dispatcher's address for
    ``tf.data.experimental.service.distribute``. Use it as a context manager, or
    call :meth:`stop`; :func:`tutor.service.stop_all` stops it too.
    """

    _running: ClassVar[set] = set()

    def __init__(self, num_workers: int = 1, *, start: bool = True, timeout: float = START_TIMEOUT):
        self.num_workers = require_positive_int(num_workers, "num_workers", "ProcessService")
        self.timeout = require_seconds(timeout, "timeout", "ProcessService")
        self.process: subprocess.Popen | None = None
        self.port: int | None = None
        if start:
            self.start()

    def start(self) -> "ProcessService":
        """Start the child process and wait until its servers answer; returns self."""
        if self.running:
            return self
        self.port = free_ports(1)[0]
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD_PROGRAM, str(self.port), str(self.num_workers), str(HEARTBEAT_MS)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(self.timeout)
        if not line or not line[0].startswith("ready"):
            self.stop()
            raise RuntimeError(_("ProcessService: the child process did not start its tf.data servers within "
                                 "{timeout:g} s. Is the machine very busy? Try again, or raise timeout=.")
                               .format(timeout=self.timeout))
        ProcessService._running.add(self)
        return self

    def stop(self) -> None:
        """Stop the child process (its servers end with it). Safe to call twice."""
        process, self.process = self.process, None
        ProcessService._running.discard(self)
        if process is None:
            return
        try:
            process.stdin.close()  # the child stops when its input closes
            process.wait(timeout=10)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            process.kill()
            process.wait()
        finally:
            if process.stdout is not None:
                process.stdout.close()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def target(self) -> str:
        """The dispatcher's address, e.g. ``'grpc://localhost:40123'``."""
        if not self.running:
            raise RuntimeError(_("ProcessService is stopped; call .start() first."))
        return f"grpc://localhost:{self.port}"

    def __enter__(self) -> "ProcessService":
        return self if self.running else self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"ProcessService(num_workers={self.num_workers}, {state}, in another process)"


def stop_all_processes() -> int:
    """Stop every running :class:`ProcessService`; returns how many were stopped."""
    services = list(ProcessService._running)
    for s in services:
        s.stop()
    return len(services)


#: The child's program. It imports TensorFlow only (not tutor, which would load Keras and matplotlib too),
#: starts the servers, says "ready", and exits when its standard input closes. TensorFlow imports JAX when it
#: is installed (for TF Lite); the servers never use it, so the child leaves it out (about 130 MB less).
CHILD_PROGRAM = """
import os, socket, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.modules["jax"] = None  # "import jax" now raises ImportError, which TensorFlow expects when JAX is absent
import tensorflow as tf
port, workers, heartbeat = (int(v) for v in sys.argv[1:4])
sockets = [socket.socket() for _ in range(workers)]
for s in sockets:
    s.bind(("localhost", 0))
worker_ports = [s.getsockname()[1] for s in sockets]
for s in sockets:
    s.close()
service = tf.data.experimental.service
dispatcher = service.DispatchServer(service.DispatcherConfig(
    port=port, worker_addresses=[f"localhost:{p}" for p in worker_ports]))
servers = [service.WorkerServer(service.WorkerConfig(
    dispatcher_address=f"localhost:{port}", worker_address=f"localhost:{p}", port=p,
    heartbeat_interval_ms=heartbeat)) for p in worker_ports]
print("ready", flush=True)
sys.stdin.read()
os._exit(0)
"""
