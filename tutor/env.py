"""The environment report shown in lesson 00, and the CPU time this process may really use.

On Binder a notebook gets about one CPU of *time* (a cgroup quota) while
``os.cpu_count()`` and TensorFlow still see every core of the host. So the
number of cores is not the amount of computing a notebook has:
:func:`cpus_available` reads the quota and the affinity, and
:func:`cpu_report` says all of it in one sentence.

>>> cpus_available() <= os.cpu_count()
True
"""
from __future__ import annotations

import math
import os
import platform
import sys
from pathlib import Path

import tensorflow as tf

from . import markup
from .i18n import N_, ljust, ngettext, width
from .i18n import gettext as _


class EnvReport:
    """What this kernel runs on: versions, devices, widgets and the data source."""

    def __init__(self, rows: list[tuple[str, str]]):
        self.rows = rows

    def as_dict(self) -> dict[str, str]:
        return dict(self.rows)

    def __str__(self) -> str:
        columns = max(width(k) for k, _v in self.rows)
        return "\n".join(f"{ljust(k, columns)}  {v}" for k, v in self.rows)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return markup.table(self.rows)


#: What :func:`where_am_i` returns, as the report says it.
PLACES = {"Colab": "Colab", "Binder": "Binder", "local": N_("local")}


def where_am_i() -> str:
    """'Colab', 'Binder' or 'local' (the report says it in the current language: ``PLACES``)."""
    if "google.colab" in sys.modules:
        return "Colab"
    if os.environ.get("BINDER_SERVICE_HOST") or os.environ.get("BINDER_REPO_URL") or os.environ.get("BINDER_LAUNCH_HOST"):
        return "Binder"
    return "local"


def env_report(data_source: bool = True) -> EnvReport:
    """Collect versions, CPU/GPU devices, widget support and the digit source.

    Never raises: a missing optional package shows as "not installed". The
    labels and sentences are in the language of :func:`tutor.set_language`.

    >>> "TensorFlow" in env_report(data_source=False).as_dict()
    True
    """
    gpus = tf.config.list_physical_devices("GPU")
    rows = [
        # Translators: the first row of lesson 00's environment report: Colab, Binder or "local".
        (_("running on"), _(PLACES[where_am_i()])),
        ("Python", platform.python_version()),
        ("TensorFlow", tf.__version__),
        ("Keras", _keras_version()),
        ("CPU", cpu_report().sentence),
        ("GPU", ", ".join(g.name for g in gpus) if gpus else _("none (CPU only: every lesson still works)")),
        ("ipywidgets", _widgets_version()),
        ("matplotlib", _version("matplotlib")),
    ]
    if data_source:
        rows.append((_("digit images"), digit_source()))
    return EnvReport(rows)


def digit_source() -> str:
    """Where ``tutor.data.digits`` takes its images from in this kernel, in words."""
    from . import data

    digits = data.digits(n=10)
    if digits.source == "keras":
        return _("MNIST, from keras.datasets")
    why = (_("MNIST could not be downloaded") if digits.fallback
           else f"{data.ENV_VAR}={os.environ.get(data.ENV_VAR, '').strip().lower()}")
    return _("offline look-alikes drawn from the fonts that matplotlib ships ({why})").format(why=why)


def _version(module: str) -> str:
    try:
        return __import__(module).__version__
    except ImportError:
        return _("not installed")


def _keras_version() -> str:
    try:
        import keras

        return keras.__version__
    except Exception:  # pragma: no cover - keras always ships with TF >= 2.16
        return _("not installed")


def _widgets_version() -> str:
    version = _version("ipywidgets")
    try:
        import jupyterlab_widgets  # noqa: F401
    except ImportError:
        return version
    return _("{version} (JupyterLab front end installed)").format(version=version)


# ----------------------------------------------------------------------------- CPU time
#: Where the kernel mounts cgroups, and what it reports for this process.
CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_SELF = Path("/proc/self")


class CpuReport:
    """The CPU this process may use, from four sources that often disagree.

    Attributes
    ----------
    quota : float or None
        CPUs of time per second allowed by the cgroup CPU quota (cgroup v2
        ``cpu.max``, v1 ``cpu.cfs_quota_us / cpu.cfs_period_us``) of this
        process's own cgroup and its parents; ``None`` when there is no quota.
    affinity : int
        Cores this process may be scheduled on (``os.sched_getaffinity``).
    host_cores : int
        Cores the machine has (``os.cpu_count()``).
    tensorflow_threads : int
        Threads TensorFlow sizes its thread pools (and tf.data's AUTOTUNE) for:
        the cores it may be scheduled on, since it does not read the quota.
    available : float
        The smallest of quota, affinity and host cores: :func:`cpus_available`.
    """

    def __init__(self, quota: float | None, affinity: int, host_cores: int, tensorflow_threads: int):
        self.quota = quota
        self.affinity = int(affinity)
        self.host_cores = int(host_cores)
        self.tensorflow_threads = int(tensorflow_threads)
        self.available = float(min([self.affinity, self.host_cores] + ([quota] if quota is not None else [])))

    @property
    def limited_by(self) -> str:
        """'a quota', 'the affinity' or 'no limit': what sets :attr:`available` (in English, whatever the language)."""
        if self.quota is not None and self.quota <= min(self.affinity, self.host_cores):
            return "a quota"
        return "the affinity" if self.affinity < self.host_cores else "no limit"

    @property
    def sentence(self) -> str:
        """One line, e.g. '1.0 CPU of time (a quota) on a host with 16 cores; TensorFlow sizes its thread pools for 16'."""
        n = self.available
        why = {"a quota": _("a quota"), "no limit": _("no quota: every core"),
               "the affinity": _("the affinity: {affinity} of the cores").format(affinity=self.affinity)}
        # Translators: how much CPU time this process may use, e.g. "1.0 CPU of time", "2.0 CPUs of time".
        cpus = ngettext("{cpus} CPU of time", "{cpus} CPUs of time", 1 if n == 1 else 2).format(cpus=f"{n:.1f}")
        return ngettext("{cpus} ({why}) on a host with {cores} core; TensorFlow sizes its thread pools for {threads}",
                        "{cpus} ({why}) on a host with {cores} cores; TensorFlow sizes its thread pools for {threads}",
                        self.host_cores).format(cpus=cpus, why=why[self.limited_by], cores=self.host_cores,
                                                threads=self.tensorflow_threads)

    def __str__(self) -> str:
        return "CPU: " + self.sentence

    __repr__ = __str__


def cpus_available() -> float:
    """CPU time per second this process may really use (1.0 = one core busy all the time).

    The smallest of the cgroup CPU quota of this process's cgroup, the number
    of cores it may run on (affinity) and ``os.cpu_count()``. Binder gives
    about 1.0 while every core of the host stays visible.

    >>> 0 < cpus_available() <= os.cpu_count()
    True
    """
    return cpu_report().available


def cpu_report() -> CpuReport:
    """Quota, affinity, host cores and TensorFlow's thread-pool size, in one :class:`CpuReport`.

    >>> cpu_report().host_cores == os.cpu_count()
    True
    """
    host = os.cpu_count() or 1
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else host
    return CpuReport(cgroup_quota(), affinity, host, _tensorflow_threads(affinity))


def _tensorflow_threads(affinity: int) -> int:
    # TensorFlow's pools default to the schedulable cores (tsl port::MaxParallelism); a value set with
    # tf.config.threading.set_inter_op_parallelism_threads replaces that for the inter-op pool.
    import tensorflow as tf

    return tf.config.threading.get_inter_op_parallelism_threads() or affinity


def cgroups(proc: Path | None = None) -> list[tuple[str, str]]:
    """``(controllers, path)`` of each cgroup the process is in (``/proc/self/cgroup``; ``""``: cgroup v2), or []."""
    try:
        lines = ((PROC_SELF if proc is None else Path(proc)) / "cgroup").read_text().splitlines()
    except OSError:
        return []
    return [(parts[1], parts[2]) for parts in (line.split(":", 2) for line in lines) if len(parts) == 3]


def cgroup_quota(proc: Path | None = None, root: Path | None = None) -> float | None:
    """CPUs of time the cgroup CPU quota allows this process, or ``None`` when there is none.

    Reads ``/proc/self/cgroup`` for the process's own cgroup and
    ``/proc/self/mountinfo`` for where the cpu controller is mounted, then
    takes the tightest limit of that cgroup and its parents (cgroup v2
    ``cpu.max``, cgroup v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``).
    Anything unreadable counts as no limit.

    >>> q = cgroup_quota()
    >>> q is None or q > 0
    True
    """
    proc = PROC_SELF if proc is None else Path(proc)
    groups = cgroups(proc)
    if not groups:
        return None
    mounts = _cgroup_mounts(proc, CGROUP_ROOT if root is None else Path(root))
    limits = []
    for controllers, path in groups:
        if controllers == "":
            for mount, mount_root in mounts.get("v2", []):
                limits += _limits_up(mount, _relative(path, mount_root), _v2_limit)
        elif "cpu" in controllers.split(","):
            for mount, mount_root in mounts.get("v1", []):
                limits += _limits_up(mount, _relative(path, mount_root), _v1_limit)
    return min(limits) if limits else None


def _cgroup_mounts(proc: Path, root: Path) -> dict[str, list[tuple[Path, str]]]:
    """{'v1': [(mount point, root)], 'v2': [...]} of the cpu controller; defaults under ``root``."""
    found: dict[str, list[tuple[Path, str]]] = {"v1": [], "v2": []}
    try:
        text = (proc / "mountinfo").read_text()
    except OSError:
        text = ""
    for line in text.splitlines():
        left, _dash, right = line.partition(" - ")
        fields, extra = left.split(), right.split()
        if len(fields) < 5 or len(extra) < 3:
            continue
        if extra[0] == "cgroup2":
            found["v2"].append((Path(fields[4]), fields[3]))
        elif extra[0] == "cgroup" and "cpu" in extra[2].split(","):
            found["v1"].append((Path(fields[4]), fields[3]))
    if not text:
        found = {"v1": [(root / "cpu", "/"), (root / "cpu,cpuacct", "/")], "v2": [(root, "/")]}
    return found


def _relative(path: str, mount_root: str) -> str:
    if mount_root not in ("", "/") and (path == mount_root or path.startswith(mount_root + "/")):
        path = path[len(mount_root):]
    return path.strip("/")


def _limits_up(mount: Path, relative: str, read) -> list[float]:
    """The limits set on the cgroup ``mount/relative`` and on every parent up to the mount."""
    parts = [p for p in relative.split("/") if p]
    limits = []
    for depth in range(len(parts), -1, -1):
        limit = read(mount.joinpath(*parts[:depth]))
        if limit is not None:
            limits.append(limit)
    return limits


def _v2_limit(folder: Path) -> float | None:
    try:
        quota, period = (folder / "cpu.max").read_text().split()[:2]
        return _ratio(quota, period)
    except (OSError, ValueError):
        return None


def _v1_limit(folder: Path) -> float | None:
    try:
        return _ratio((folder / "cpu.cfs_quota_us").read_text(), (folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None


def _ratio(quota: str, period: str) -> float | None:
    quota, period = quota.strip(), period.strip()
    if quota in ("max", "-1"):
        return None
    q, p = float(quota), float(period)
    return q / p if q > 0 and p > 0 and math.isfinite(q / p) else None
