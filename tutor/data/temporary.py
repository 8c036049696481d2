"""A temporary folder per lesson that does not outlive a kernel stopped from outside.

A lesson writes its files (JPEGs, TFRecord shards, checkpoints) into a folder
in the system's temporary directory. Deleting that folder with ``atexit`` is
not enough: a kernel stopped from outside (nbconvert at the end of a run, a
browser tab closed, a Binder session culled) is ended with a signal, and
Python then runs no ``atexit`` function. So next to every folder made here
lies a lock file, ``<folder>.lock``, that its process keeps locked while it
lives; the operating system releases the lock when the process ends, however
it ends, and the next call of :func:`temporary_folder`, in any process,
deletes every folder whose lock is free. Only the standard library is
imported (and :mod:`tutor.i18n`, within tutor), so the module loads without TensorFlow.

>>> path = temporary_folder("doctest")
>>> os.path.basename(path).startswith("tutor-doctest-"), os.listdir(path)
(True, [])
>>> release("doctest"), os.path.exists(path)
(True, False)
"""
from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile

try:
    from ..i18n import gettext as _
except ImportError:  # loaded by its path alone, outside the package (the tests' child processes): English
    def _(message: str) -> str:
        return message

try:
    import fcntl
except ImportError:  # Windows: no flock; folders are then removed at a normal exit only
    fcntl = None

__all__ = ["PREFIX", "release", "remove_stale_folders", "temporary_folder"]

PREFIX = "tutor-"
_LOCKED = ".lock"   # <folder>.lock, locked by the folder's process while that process lives
_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")
_held: dict[str, tuple[str, object]] = {}   # name -> (folder, its open lock file or None), for this process


def temporary_folder(name: str, *, root: str | os.PathLike | None = None) -> str:
    """A new, empty folder ``tutor-<name>-<random>`` in the temporary directory; returns its path.

    First it deletes every course folder left behind by a process that has
    ended, and the folder this process made before under the same ``name`` (a
    lesson run again in the same kernel starts empty). The new folder is
    deleted when Python exits normally, or else by the first call after this
    process has ended.

    Parameters
    ----------
    name : str
        Letters, digits and ``_``, such as ``"lesson11"``: the folder's name starts with it.
    root : path, optional
        Where to make the folder (default: ``tempfile.gettempdir()``).
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(_("temporary_folder: name must be 1 to 40 letters, digits or '_', such as 'lesson11'; "
                           "got {name!r}.").format(name=name))
    root = tempfile.gettempdir() if root is None else os.fspath(root)
    if not os.path.isdir(root):
        raise FileNotFoundError(_("temporary_folder: root must be an existing folder; {root!r} is not one.")
                                .format(root=root))
    remove_stale_folders(root)
    release(name)
    path = tempfile.mkdtemp(prefix=f"{PREFIX}{name}-", dir=root)
    lock = None
    if fcntl is not None:
        # Locked under a name that remove_stale_folders ignores, then renamed: no other process can take the
        # lock of a folder that is still being set up.
        fd, partial = tempfile.mkstemp(prefix=f".{PREFIX}partial-", dir=root)
        lock = os.fdopen(fd, "w")
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(partial, path + _LOCKED)
    if not _held:
        atexit.register(_release_all)
    _held[name] = (path, lock)
    return path


def release(name: str) -> bool:
    """Delete the folder this process made with ``temporary_folder(name)``; False if there is none."""
    held = _held.pop(name, None)
    if held is None:
        return False
    path, lock = held
    shutil.rmtree(path, ignore_errors=True)
    if lock is not None:
        _remove_file(path + _LOCKED)
        lock.close()
    return True


def remove_stale_folders(root: str | os.PathLike | None = None) -> list[str]:
    """Delete the course's folders in ``root`` whose process has ended; returns their paths.

    A folder counts as the course's when its name starts with ``tutor-`` and a
    lock file ``<folder>.lock`` lies next to it; it is stale when that lock can
    be taken, which is only possible once the process that made the folder has
    ended. Does nothing where the system has no ``flock`` (Windows).
    """
    root = tempfile.gettempdir() if root is None else os.fspath(root)
    removed = []
    if fcntl is None:
        return removed
    for entry in os.scandir(root):
        if not (entry.name.startswith(PREFIX) and entry.name.endswith(_LOCKED)):
            continue
        try:
            fd = os.open(entry.path, os.O_RDWR)
        except OSError:   # removed meanwhile
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:   # locked: its process is alive
            os.close(fd)
            continue
        try:
            folder = entry.path[:-len(_LOCKED)]
            if os.path.isdir(folder):
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
            _remove_file(entry.path)
        finally:
            os.close(fd)
    return removed


def _remove_file(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _release_all() -> None:
    for name in list(_held):
        release(name)
