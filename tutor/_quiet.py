"""Keep TensorFlow's start-up chatter out of notebooks.

TensorFlow's C++ runtime prints INFO/WARNING/ERROR lines (CUDA probing,
CPU-feature notes, rendezvous messages) straight to the process's stderr,
and Jupyter stores them in the notebook. ``TF_CPP_MIN_LOG_LEVEL`` only works
when it is set *before* TensorFlow is imported, which is why ``import tutor``
must come first in every lesson.
"""
from __future__ import annotations

import logging
import os
import warnings

# "3" hides C++ INFO, WARNING and ERROR lines. A learner who wants them back
# sets TF_CPP_MIN_LOG_LEVEL=0 before starting Jupyter; setdefault respects that.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

for _module in ("tensorflow", "keras", "tf_keras", "absl", "google.protobuf"):
    warnings.filterwarnings("ignore", module=_module)
warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=FutureWarning)


def quiet_tensorflow() -> None:
    """Import TensorFlow with its C++ start-up lines silenced, then lower its loggers.

    Some lines (CUDA probing) are written through absl before any log level
    applies, so stderr is pointed at /dev/null at the file-descriptor level
    while TensorFlow loads and looks for devices. Jupyter's own capture of
    stderr is restored afterwards.
    """
    with stderr_to_devnull():
        import tensorflow as tf

        # Probes the physical devices (the CUDA lines). It does not create the eager context, so a
        # lesson can still split the CPU into logical devices (tf.config.set_logical_device_configuration)
        # before TensorFlow runs its first op; lesson 11 does that to feed two replicas.
        tf.config.list_physical_devices()

    tf.get_logger().setLevel(logging.ERROR)
    # In an interactive kernel AutoGraph also echoes its warnings to stdout, past the logger: for example
    # "could not transform <lambda>" for two lambdas on one line, which then run as they are, correctly.
    tf.autograph.set_verbosity(0, alsologtostdout=False)
    try:
        import absl.logging

        absl.logging.set_verbosity(absl.logging.ERROR)
    except ImportError:  # pragma: no cover - absl ships with TensorFlow
        pass


class stderr_to_devnull:
    """Point file descriptor 2 at /dev/null for the duration of a ``with`` block."""

    def __enter__(self):
        import sys

        self._saved = None
        try:
            sys.stderr.flush()
            self._saved = os.dup(2)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            os.close(devnull)
        except OSError:  # no real fd 2 (some embedded interpreters): nothing to hide
            self._saved = None
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            os.dup2(self._saved, 2)
            os.close(self._saved)
        return False
