"""Explorers: ipywidgets fronts over the Display classes.

Each explorer returns an :class:`Explorer` widget. It keeps ``.controls``
(name -> control widget) and ``.display`` (the Display drawn last), so a test
or a curious learner can drive it from code::

    ex = shuffle_explorer()
    ex.controls["buffer_size"].value = 50
    ex.display.buffer_size   # 50

Only widget features that ipywidgets 7.6+ and 8 share are used, so the
explorers also work on Colab.
"""
from ._base import Explorer
from .augment import augment_explorer
from .order import order_explorer
from .shuffle import shuffle_explorer
from .timeline import timeline_explorer

__all__ = ["Explorer", "augment_explorer", "order_explorer", "shuffle_explorer", "timeline_explorer"]
