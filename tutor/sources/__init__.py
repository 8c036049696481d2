"""Where each output element came from: sources, files, shards, windows and buckets, drawn.

:class:`SourceDisplay` runs a real pipeline and finds every output element in
the datasets it reads (:mod:`tutor.sources.lookup` says how), or draws what
each replica of a ``tf.distribute`` strategy received.

>>> import tutor
>>> a, b = tf.data.Dataset.range(0, 4), tf.data.Dataset.range(100, 104)
>>> mixed = tf.data.Dataset.sample_from_datasets([a, b], seed=0)
>>> tutor.SourceDisplay.from_datasets([a, b], mixed).counts
{'A': 4, 'B': 4}
"""
from .display import SourceDisplay
from .lookup import SourceIndex, element_key

__all__ = ["SourceDisplay", "SourceIndex", "element_key"]
