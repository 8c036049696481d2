"""tutor: visualizers, explorers and self-checking exercises for learning tf.data.

Import ``tutor`` before TensorFlow: it keeps TensorFlow's C++ log lines and
Python warnings out of the notebooks.

>>> import tutor
>>> tutor.take_elements(tf.data.Dataset.range(3))
[0, 1, 2]

The public API at a glance (every name is listed in ``__all__``):

* Displays compute with ``from_*`` and draw with ``plot()``: ``BatchOrderDisplay``,
  ``ShuffleDisplay``, ``AugmentationGridDisplay``, ``RotationTimingDisplay``,
  ``TimelineDisplay``, ``TraceViewerDisplay``, ``StepTimeDisplay``, ``HistoryDisplay``,
  ``WorkerOrderDisplay``, ``ServiceDiagramDisplay``, ``SourceDisplay``, ``MemoryDisplay``,
  ``ComparisonDisplay``.
* Explorers are widgets over the Displays: ``order_explorer``,
  ``shuffle_explorer``, ``augment_explorer``, ``timeline_explorer``, ``sources_explorer``. They load
  ipywidgets only when called.
* Topic modules: ``augment``, ``bench``, ``checks``, ``data``, ``doctor``, ``env``,
  ``leakage``, ``service``, ``tfrecord``, ``tftrace`` (TensorFlow's own profile, read as XProf
  shows it), ``timeline``, ``training``, ``usage`` (memory
  and CPU a pipeline uses), ``verdict`` (the one
  verdict helper, ``tutor.verdict.compare``).
"""
from . import _quiet

_quiet.quiet_tensorflow()

# Topic modules, used as tutor.<module>.<name> in the lessons.
from . import (  # noqa: E402
    augment,
    bench,
    checks,
    data,
    doctor,
    env,
    leakage,
    service,
    style,
    tfrecord,
    tftrace,
    timeline,
    training,
    usage,
    verdict,
)
from .augment import AugmentationGridDisplay, RotationTimingDisplay, rotation  # noqa: E402

# Displays: compute with from_*, draw with plot().
from .display import ComparisonDisplay, Display  # noqa: E402
from .order import BatchOrderDisplay  # noqa: E402
from .service import ServiceDiagramDisplay, WorkerOrderDisplay  # noqa: E402
from .shuffle import ShuffleDisplay  # noqa: E402
from .sources import SourceDisplay  # noqa: E402
from .tftrace import TraceViewerDisplay  # noqa: E402
from .timeline import TimelineDisplay  # noqa: E402
from .training import HistoryDisplay, StepTimeDisplay  # noqa: E402
from .usage import MemoryDisplay  # noqa: E402

# Functions.
from .bench import time_pipeline  # noqa: E402
from .env import env_report  # noqa: E402
from .errors import short_errors  # noqa: E402
from .i18n import set_language  # noqa: E402
from .leakage import check_leakage  # noqa: E402
from .reading import take_elements  # noqa: E402
from .stats import shuffle_stats  # noqa: E402
from .style import presentation  # noqa: E402
from .tfrecord import inspect_record  # noqa: E402
from .timeline import profile  # noqa: E402

__version__ = "0.2.0"

# In a Jupyter kernel, errors raised inside TensorFlow show short, with the full traceback folded (tutor.errors).
from .errors import install_in_kernel  # noqa: E402

install_in_kernel()

#: Explorers, loaded on first use so that ``import tutor`` does not import ipywidgets.
_EXPLORERS = ("augment_explorer", "order_explorer", "shuffle_explorer", "sources_explorer", "timeline_explorer")


def __getattr__(name: str):
    if name in _EXPLORERS:
        from . import widgets

        return getattr(widgets, name)
    raise AttributeError(f"module 'tutor' has no attribute {name!r}")


__all__ = [
    # Displays
    "AugmentationGridDisplay",
    "BatchOrderDisplay",
    "ComparisonDisplay",
    "Display",
    "HistoryDisplay",
    "MemoryDisplay",
    "RotationTimingDisplay",
    "ServiceDiagramDisplay",
    "ShuffleDisplay",
    "SourceDisplay",
    "StepTimeDisplay",
    "TimelineDisplay",
    "TraceViewerDisplay",
    "WorkerOrderDisplay",
    # Explorers
    "augment_explorer",
    "order_explorer",
    "shuffle_explorer",
    "sources_explorer",
    "timeline_explorer",
    # Functions
    "check_leakage",
    "env_report",
    "inspect_record",
    "presentation",
    "profile",
    "set_language",
    "short_errors",
    "shuffle_stats",
    "take_elements",
    "time_pipeline",
    # Modules
    "augment",
    "bench",
    "checks",
    "data",
    "doctor",
    "env",
    "leakage",
    "rotation",
    "service",
    "style",
    "tfrecord",
    "tftrace",
    "timeline",
    "training",
    "usage",
    "verdict",
]
