"""tutor: visualizers, explorers and self-checking exercises for learning tf.data.

Import ``tutor`` before TensorFlow: it keeps TensorFlow's C++ log lines and
Python warnings out of the notebooks.

>>> import tutor
>>> tutor.take_elements(tf.data.Dataset.range(3))
[0, 1, 2]
"""
from . import _quiet  # noqa: F401  (must run before TensorFlow is imported)

_quiet.quiet_tensorflow()

from . import checks, data  # noqa: E402
from .elements import take_elements  # noqa: E402
from .env import env_report  # noqa: E402
from .order import BatchOrderDisplay  # noqa: E402
from .shuffle import ShuffleDisplay  # noqa: E402
from .stats import shuffle_stats  # noqa: E402
from .style import presentation  # noqa: E402
from .widgets import order_explorer, shuffle_explorer  # noqa: E402
from . import doctor, service  # noqa: E402  (lessons 05, 09)
from .worker_display import WorkerOrderDisplay  # noqa: E402  (lesson 09)
from . import leakage, tfrecord, training  # noqa: E402  (lessons 07-08)
from .leakage import check_leakage  # noqa: E402
from .tfrecord_inspect import inspect_record  # noqa: E402

from . import augment, bench, rotation  # noqa: E402  (lesson 04)
from .bench import time_pipeline  # noqa: E402
from .grid import AugmentationGridDisplay  # noqa: E402
from .widgets.augment import augment_explorer  # noqa: E402
from . import timeline  # noqa: E402  (lessons 05-06)
from .timeline import TimelineDisplay  # noqa: E402
from .widgets.timeline import timeline_explorer  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "AugmentationGridDisplay",
    "BatchOrderDisplay",
    "augment",
    "augment_explorer",
    "bench",
    "rotation",
    "time_pipeline",
    "ShuffleDisplay",
    "checks",
    "check_leakage",
    "data",
    "doctor",
    "service",
    "WorkerOrderDisplay",
    "env_report",
    "inspect_record",
    "leakage",
    "order_explorer",
    "presentation",
    "shuffle_explorer",
    "shuffle_stats",
    "take_elements",
    "timeline",
    "TimelineDisplay",
    "timeline_explorer",
    "tfrecord",
    "training",
]
