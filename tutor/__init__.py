"""tutor: visualizers, explorers and self-checking exercises for learning tf.data.

Import ``tutor`` before TensorFlow: it keeps TensorFlow's C++ log lines and
Python warnings out of the notebooks.

>>> import tutor
>>> tutor.take_elements(tf.data.Dataset.range(3))
[0, 1, 2]
"""
from . import _quiet  # noqa: F401  (must run before TensorFlow is imported)

_quiet.quiet_tensorflow()

# Modules, used as tutor.<module>.<name> in the lessons.
from . import (  # noqa: E402
    augment,  # lesson 04
    bench,  # lessons 04, 07, 09
    checks,  # every lesson's exercises
    data,  # offline digits and JPEG folders
    doctor,  # lessons 05, 09
    leakage,  # lesson 08
    rotation,  # lesson 04
    service,  # lesson 09
    tfrecord,  # lesson 07
    timeline,  # lessons 05, 06
    training,  # lesson 08
)

# Displays: compute with from_*, draw with plot().
from .grid import AugmentationGridDisplay  # noqa: E402
from .order import BatchOrderDisplay  # noqa: E402
from .shuffle import ShuffleDisplay  # noqa: E402
from .timeline import TimelineDisplay  # noqa: E402
from .worker_display import WorkerOrderDisplay  # noqa: E402

# Explorers: widgets over the displays.
from .widgets import augment_explorer, order_explorer, shuffle_explorer, timeline_explorer  # noqa: E402

# Functions.
from .bench import time_pipeline  # noqa: E402
from .elements import take_elements  # noqa: E402
from .env import env_report  # noqa: E402
from .leakage import check_leakage  # noqa: E402
from .stats import shuffle_stats  # noqa: E402
from .style import presentation  # noqa: E402
from .tfrecord_inspect import inspect_record  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "AugmentationGridDisplay",
    "BatchOrderDisplay",
    "ShuffleDisplay",
    "TimelineDisplay",
    "WorkerOrderDisplay",
    "augment",
    "augment_explorer",
    "bench",
    "check_leakage",
    "checks",
    "data",
    "doctor",
    "env_report",
    "inspect_record",
    "leakage",
    "order_explorer",
    "presentation",
    "rotation",
    "service",
    "shuffle_explorer",
    "shuffle_stats",
    "take_elements",
    "tfrecord",
    "time_pipeline",
    "timeline",
    "timeline_explorer",
    "training",
]
