"""The data schema of a Timeline (pure NumPy): the consumer's row name, the event and step dtypes, their constructors.

Everything else in :mod:`tutor.timeline` builds on this module, and it imports
nothing from the package.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

__all__ = ["CONSUMER", "EVENT_DTYPE", "STEP_DTYPE", "make_events", "make_steps"]

#: Name of the consumer row (the training step, "the accelerator").
CONSUMER = "consumer"

#: dtype of :attr:`Timeline.events`: one row per piece of work.
EVENT_DTYPE = np.dtype(
    [("stage", "U32"), ("element", "i8"), ("step", "i8"), ("epoch", "i8"), ("start", "f8"), ("end", "f8")]
)

#: dtype of :attr:`Timeline.steps`: one row per consumer step.
STEP_DTYPE = np.dtype([("step", "i8"), ("request", "f8"), ("start", "f8"), ("end", "f8")])


def make_events(rows: Iterable[tuple]) -> np.ndarray:
    """A structured array with :data:`EVENT_DTYPE` from ``(stage, element, step, epoch, start, end)`` rows."""
    return np.array(list(rows), dtype=EVENT_DTYPE)


def make_steps(rows: Iterable[tuple]) -> np.ndarray:
    """A structured array with :data:`STEP_DTYPE` from ``(step, request, start, end)`` rows."""
    return np.array(list(rows), dtype=STEP_DTYPE)
