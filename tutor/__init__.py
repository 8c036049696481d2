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

__version__ = "0.1.0"

__all__ = [
    "BatchOrderDisplay",
    "ShuffleDisplay",
    "checks",
    "data",
    "env_report",
    "order_explorer",
    "presentation",
    "shuffle_explorer",
    "shuffle_stats",
    "take_elements",
]
