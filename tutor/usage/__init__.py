"""What a pipeline really uses: memory (by arithmetic and measured), CPU time, and waits on remote storage.

* :func:`buffers` (``buffers.py``): what each buffer of a pipeline holds, from its
  ``element_spec`` and its size, without running it.
* :func:`memory_use` (``memory.py``): TensorFlow's tensor bytes and the process's
  resident memory (RSS) before, while and after a pipeline runs;
  :func:`tensor_bytes`, :func:`process_rss` and :func:`memory_limit` read them.
* :class:`MemoryDisplay` (``display.py``): the arithmetic and the measurements of
  several pipelines, drawn side by side.
* :func:`cpu_use` and :func:`compare` (``cpu.py``): CPU seconds a pass used against
  the CPU time this process may use (a quota, not the visible cores), and the
  guide's verdict: low, in between, or near the limit.
* :class:`RemoteStorage` (``storage.py``): files whose first byte and whose records
  take time to arrive, for reading them one at a time or in parallel.

>>> print(buffers(tf.data.Dataset.range(100).shuffle(10)))
stage                        elements      each   holds  why that many
2. shuffle(buffer_size=10)         10  0.000 MB  0.0 MB  buffer_size
in all: 0.0 MB
"""
from .buffers import BOOKKEEPING_BYTES, Buffer, Buffers, buffers, element_bytes, megabytes
from .cpu import CpuComparison, CpuUse, compare, cpu_use, verdict
from .display import MemoryDisplay
from .memory import MemoryUse, memory_limit, memory_use, process_rss, tensor_bytes
from .storage import RemoteStorage

__all__ = ["BOOKKEEPING_BYTES", "Buffer", "Buffers", "CpuComparison", "CpuUse", "MemoryDisplay", "MemoryUse", "RemoteStorage", "buffers",
           "compare", "cpu_use", "element_bytes", "megabytes", "memory_limit", "memory_use", "process_rss",
           "tensor_bytes", "verdict"]
