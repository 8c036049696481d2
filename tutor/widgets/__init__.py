"""Explorers: ipywidgets fronts over the Display classes.

Each explorer returns an :class:`Explorer` widget. It keeps ``.controls``
(name -> control widget) and ``.display`` (the Display drawn last), so a test
or a curious learner can drive it from code::

    ex = shuffle_explorer()
    ex.controls["buffer_size"].value = 50
    ex.display.buffer_size   # 50

Every explorer is an :class:`Explorer`: a narrow panel of controls and a
readout beside a picture that is drawn at the size the browser shows it at
(times the screen's pixel density), so it is never stretched. Only widgets
that ipywidgets 7.6+ and 8 share are used (the page reports the picture's
size through a hidden standard Text widget, see ``_frontend.py``), so the
explorers also work on Colab. ``tutor.presentation(True)`` enlarges the
panel and the figure's fonts together.
"""
from ._base import Explorer
from .augment import augment_explorer
from .order import order_explorer
from .shuffle import shuffle_explorer
from .sources import sources_explorer
from .timeline import timeline_explorer

__all__ = ["Explorer", "augment_explorer", "order_explorer", "shuffle_explorer", "sources_explorer", "timeline_explorer"]
