"""A stand-in for files on remote storage (a cloud bucket, a network file system), for reading experiments.

Two costs set how long reading a remote file takes:

* **time to first byte**: every file waits ``first_byte`` seconds before its first
  record arrives (the request travels, the store finds the file);
* **throughput of one file**: each record then takes ``per_record`` seconds, however
  much the store could send to other readers at the same time.

Both are waits (``time.sleep`` inside ``tf.py_function``), which leave the CPU
and Python's GIL free as a network read does, so overlapping them shows on any
machine, one CPU or many. The waits run on TensorFlow's thread pool (lesson 07):
give the pipeline a private pool with one thread per read that should wait at
the same time (``options.threading.private_threadpool_size``).

>>> store = RemoteStorage(first_byte=0.0, per_record=0.0)
>>> ds = tf.data.Dataset.range(2).interleave(lambda f: store.open(f, records=2), cycle_length=2)
>>> [tuple(int(v) for v in e) for e in ds.as_numpy_iterator()], store.files_opened
([(0, 0), (1, 0), (0, 1), (1, 1)], 2)
"""
from __future__ import annotations

import math
import threading
import time

import tensorflow as tf

from .._validate import require_positive_int, require_seconds
from ..i18n import gettext as _
from ..bench import CallRecorder


class RemoteStorage:
    """Files that take ``first_byte`` seconds to start and ``per_record`` seconds per record.

    Parameters
    ----------
    first_byte : float
        Seconds from asking for a file to its first record (time to first byte).
    per_record : float
        Seconds each record of one file takes to arrive (that file's throughput).

    Attributes
    ----------
    files_opened : int
        Files whose first record was asked for since the last :meth:`reset`.
    most_at_once : int
        The most waits (first bytes or records) in progress at the same instant.
    """

    def __init__(self, *, first_byte: float = 0.02, per_record: float = 0.001):
        self.first_byte = require_seconds(first_byte, "first_byte", "RemoteStorage", maximum=10.0)
        self.per_record = require_seconds(per_record, "per_record", "RemoteStorage", maximum=10.0)
        self.waits = CallRecorder(self._wait)
        self._lock = threading.Lock()
        self._opened = 0

    def _wait(self, file_id, record):
        first = int(record) == 0
        if first:
            with self._lock:
                self._opened += 1
        time.sleep(self.per_record + (self.first_byte if first else 0.0))
        return record

    def open(self, file_id, records: int) -> tf.data.Dataset:
        """The records of one file, as ``(file_id, record)`` pairs; for ``files.interleave(...)`` or ``flat_map``."""
        records = require_positive_int(records, "records", "RemoteStorage.open")
        file_id = tf.cast(file_id, tf.int64)

        def arrive(record):
            got = tf.py_function(self.waits, [file_id, record], Tout=tf.int64)
            return file_id, tf.ensure_shape(got, [])

        return tf.data.Dataset.range(records).map(arrive)

    @property
    def files_opened(self) -> int:
        with self._lock:
            return self._opened

    @property
    def most_at_once(self) -> int:
        return self.waits.most_at_once

    def reset(self) -> None:
        """Forget the reads counted so far."""
        self.waits.reset()
        with self._lock:
            self._opened = 0

    def seconds(self, files: int, records: int, *, at_once: int = 1) -> float:
        """The model: ``files`` files of ``records`` records, read ``at_once`` files at a time.

        Each round of ``at_once`` files costs one first byte and ``records``
        records, because the files of a round wait side by side:
        ``ceil(files / at_once) * (first_byte + records * per_record)``.

        >>> RemoteStorage(first_byte=0.02, per_record=0.001).seconds(24, 5, at_once=4)
        0.15
        """
        files = require_positive_int(files, "files", "RemoteStorage.seconds")
        records = require_positive_int(records, "records", "RemoteStorage.seconds")
        at_once = require_positive_int(at_once, "at_once", "RemoteStorage.seconds")
        return round(math.ceil(files / at_once) * (self.first_byte + records * self.per_record), 6)

    def __repr__(self) -> str:
        return _("RemoteStorage(first byte after {first:.0f} ms, then {each:.1f} ms per record; {waits} waits so "
                 "far)").format(first=self.first_byte * 1000, each=self.per_record * 1000, waits=self.waits.calls)
