"""Does validation data leak into training? Read both sets for two epochs and compare.

Elements are identified by an id feature when there is one (a dict key such
as ``"id"``, or a function of the element), otherwise by a hash of their bytes.

>>> ds = tf.data.Dataset.range(10)
>>> check_leakage(ds.take(8), ds.skip(8)).leaked
False
>>> mixed = ds.shuffle(10, seed=1)  # reshuffles every epoch: take/skip draw new sets
>>> check_leakage(mixed.take(8), mixed.skip(8)).leaked
True
"""
from __future__ import annotations

import hashlib
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from ._validate import require_dataset, require_positive_int
from .i18n import gettext as _
from .i18n import join_sentences
from .reading import DEFAULT_TIMEOUT, read

__all__ = ["LeakageReport", "check_leakage", "element_keys"]


def _key(value: Any) -> Any:
    """A hashable identity for one element: its id, or a digest of its bytes."""
    if isinstance(value, (bytes, int, str)):
        return value
    array = np.asarray(value)
    if array.ndim == 0 and array.dtype.kind in "iub":
        return int(array)
    if array.dtype.kind in "SUO":
        return hashlib.sha1(repr(array.tolist()).encode()).hexdigest()[:16]
    return hashlib.sha1(array.tobytes() + str(array.shape).encode()).hexdigest()[:16]


def element_keys(dataset: tf.data.Dataset, *, key: str | Callable | None = None, batched: bool | None = None,
                 max_elements: int = 20_000, timeout: float = DEFAULT_TIMEOUT) -> list:
    """One identity per element of ``dataset`` (one epoch, at most ``max_elements``, within ``timeout`` seconds).

    ``key``: a dict key (``"id"``), a function ``element -> id``, or ``None``:
    the ``"id"`` key when elements are dicts holding one, else a hash of all of
    the element's values. ``batched``: whether elements are batches (split into
    rows); ``None`` guesses from the element spec (a first dimension of
    unknown size means batches).
    """
    require_dataset(dataset, "check_leakage")
    max_elements = require_positive_int(max_elements, "max_elements", "check_leakage")
    spec = dataset.element_spec
    if key is None and isinstance(spec, dict) and "id" in spec:
        key = "id"
    if isinstance(key, str) and not (isinstance(spec, dict) and key in spec):
        raise KeyError(_("key={key!r}: the elements are not dicts holding {key!r}; their spec is {spec}.").format(
            key=key, spec=spec))
    if batched is None:
        first = tf.nest.flatten(spec)[0]
        batched = first.shape.rank is not None and first.shape.rank >= 1 and first.shape[0] is None
    ds = dataset.unbatch() if batched else dataset
    result = read(ds, max_elements=max_elements, timeout=timeout, where="check_leakage")
    if result.more:
        raise ValueError(_("check_leakage read more than {max_elements:,} elements from one epoch; is there a "
                           "repeat() with no count? Pass the datasets before repeat(), or raise "
                           "max_elements.").format(max_elements=max_elements))
    keys = []
    for element in result.elements:
        if callable(key):
            element = key(element)
        elif key is not None:
            element = element[key]
        if isinstance(element, (tuple, list, dict)):
            element = "|".join(str(_key(v)) for v in tf.nest.flatten(element))
        keys.append(_key(element))
    return keys


class LeakageReport:
    """Overlap between train and validation, per epoch; ``leaked`` says if any element is in both."""

    def __init__(self, train_epochs: list[list], val_epochs: list[list]):
        self.train_epochs = train_epochs
        self.val_epochs = val_epochs
        train_all = set().union(*map(set, train_epochs)) if train_epochs else set()
        val_all = set().union(*map(set, val_epochs)) if val_epochs else set()
        self.overlap = sorted(train_all & val_all, key=lambda k: (not isinstance(k, int), k if isinstance(k, int) else 0, str(k)))
        self.epoch_overlaps = [len(set(t) & set(v)) for t, v in zip(train_epochs, val_epochs)]
        self.val_changed = len(val_epochs) > 1 and any(set(v) != set(val_epochs[0]) for v in val_epochs[1:])

    @property
    def leaked(self) -> bool:
        return bool(self.overlap)

    @property
    def passed(self) -> bool:
        return not self.leaked

    def __str__(self) -> str:
        n_train, n_val = len(self.train_epochs[0]), len(self.val_epochs[0])
        if not self.leaked:
            return _("No leakage: train {train:,} and validation {val:,} elements per epoch; the two sets never share "
                     "an element across {epochs} epochs.").format(train=n_train, val=n_val,
                                                                  epochs=len(self.train_epochs))
        # Translators: one epoch's count of shared elements, in a list such as "epoch 1: 0, epoch 2: 3".
        per = _(", ").join(_("epoch {epoch}: {n}").format(epoch=i + 1, n=n) for i, n in enumerate(self.epoch_overlaps))
        shown = ", ".join(str(k) for k in self.overlap[:8]) + (", ..." if len(self.overlap) > 8 else "")
        # Translators: {per} lists the shared elements per epoch ("epoch 1: 0, epoch 2: 3"); {shown} lists ids.
        said = _("LEAKAGE: {n:,} element(s) appear in both train and validation (train {train:,} and validation "
                 "{val:,} elements per epoch; shared within {per}). First shared: {shown}.").format(
            n=len(self.overlap), train=n_train, val=n_val, per=per, shown=shown)
        if self.val_changed:
            said = join_sentences(said, _("The validation set itself changed between epochs: it was split off a dataset that "
                            "reshuffles every epoch. Fix a random order once (shuffle with "
                            "reshuffle_each_iteration=False and a buffer as large as the data), split that with "
                            "take and skip, then shuffle only the training part."))
        return said

    __repr__ = __str__


def check_leakage(train: tf.data.Dataset, val: tf.data.Dataset, *, epochs: int = 2,
                  key: str | Callable | None = None, batched: bool | None = None,
                  max_elements: int = 20_000, timeout: float = DEFAULT_TIMEOUT) -> LeakageReport:
    """Iterate ``train`` and ``val`` for ``epochs`` epochs each and report shared elements.

    Each epoch is a fresh pass over the dataset, as ``model.fit`` makes one, so a
    split drawn from a reshuffling dataset shows its leak in the second epoch.
    See :func:`element_keys` for ``key``, ``batched`` and the bounds (``max_elements``
    per epoch, ``timeout`` seconds per read: a pipeline that yields nothing stops
    with :class:`tutor.reading.ReadTimeout`).

    >>> print(check_leakage(tf.data.Dataset.range(6).take(4), tf.data.Dataset.range(6).skip(4)))
    No leakage: train 4 and validation 2 elements per epoch; the two sets never share an element across 2 epochs.
    """
    require_dataset(train, "check_leakage (train)")
    require_dataset(val, "check_leakage (val)")
    epochs = require_positive_int(epochs, "epochs", "check_leakage")
    opts = dict(key=key, batched=batched, max_elements=max_elements, timeout=timeout)
    train_epochs, val_epochs = [], []
    for _unused in range(epochs):
        train_epochs.append(element_keys(train, **opts))
        val_epochs.append(element_keys(val, **opts))
    return LeakageReport(train_epochs, val_epochs)
