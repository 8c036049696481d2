"""Step markers for a profile of ``model.fit``, so TensorFlow's tools can tell its steps apart.

XProf finds the steps of a training job by *step markers*: events named
``train`` (or ``test``, ``TraceContext``) that it may treat as the root of
a step (``_r=1``), with the step's number. TensorFlow's guide asks a custom
training loop to write them::

    for step in range(steps):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            train_step(next(iterator))

Keras 3's own TensorBoard callback marks each profiled batch with an event
named ``Profiled batch``, which is not a step marker: on a machine without an
accelerator the input-pipeline analysis then says "No step marker observed".
:class:`StepMarkers` writes the guide's marker around every batch of ``fit``.
"""
from __future__ import annotations

import keras
import tensorflow as tf


class StepMarkers(keras.callbacks.Callback):
    """A Keras callback that wraps every training batch in ``tf.profiler.experimental.Trace("train", ...)``.

    Put it in ``model.fit(..., callbacks=[...])`` while TensorFlow's profiler runs
    (``tf.profiler.experimental.start``/``stop``). With a ``keras.callbacks.TensorBoard``
    callback that profiles (``profile_batch=...``), list it *after* that callback, so each
    marker sits inside Keras's ``Profiled batch`` event.

    The markers are numbered from 0 across every ``fit`` call that uses this callback
    object, so steps of several epochs keep distinct numbers.

    Examples
    --------
    >>> tf.profiler.experimental.start(logdir)                               # doctest: +SKIP
    >>> model.fit(ds, epochs=1, steps_per_epoch=12, callbacks=[StepMarkers()])  # doctest: +SKIP
    >>> tf.profiler.experimental.stop()                                      # doctest: +SKIP
    """

    def __init__(self):
        super().__init__()
        self.step = 0
        self._open = None

    def on_train_batch_begin(self, batch, logs=None):
        self._open = tf.profiler.experimental.Trace("train", step_num=self.step, _r=1)
        self._open.__enter__()
        self.step += 1

    def on_train_batch_end(self, batch, logs=None):
        if self._open is not None:
            self._open.__exit__(None, None, None)
            self._open = None
