"""Lesson 08 exercise: the 2019 pipeline fixed: decode once, a new order every epoch, epochs kept apart.

The verdict counts how often ``decode`` ran, reads the element order epoch by
epoch, and reads the stages with :func:`tutor.doctor.read_pipeline` to name
the stage at fault; nothing depends on a clock.

>>> from tutor.checks import lesson08 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from ._core import fail
from ._decode_once import (BATCH, EPOCHS, N_FILES, augment, batch_values, check_augmentation, check_content,
                           check_decode_runs, decode, decode_calls, exercise_source, require_stages, stage_chain)
from ._stages import chain_text
from .questions import FunctionQuestion

__all__ = ["augment", "decode", "decode_calls", "q1"]


def _check_shuffle_stage(chain: list, found: dict) -> None:
    """Fail when the shuffle cannot give every epoch a full new order: after batch, a tiny buffer, no reshuffle."""
    text = chain_text(chain)
    shuffle = chain[found["shuffle"][0]]
    if found["shuffle"][0] > found["batch"][0]:
        fail(_("shuffle() comes after batch ({chain}): it reorders whole batches, so the same {batch} files always "
               "travel together. Shuffle the files before batch({batch}).").format(chain=text, batch=BATCH))
    buffer = shuffle.params.get("buffer_size")
    if isinstance(buffer, int) and 0 < buffer < N_FILES:
        fail(_("shuffle({buffer}) holds only {buffer} of the {files} files, so a file can only move a few places "
               "earlier (lesson 03). Use a buffer that holds all {files}: shuffle({files}).").format(
            buffer=buffer, files=N_FILES))
    if shuffle.params.get("reshuffle_each_iteration") is False:
        fail(_("reshuffle_each_iteration=False ({chain}) draws one order and keeps it for every epoch; the exercise "
               "asks for a new order each epoch. Leave the argument out (it defaults to True).").format(chain=text))


def _epochs(values: np.ndarray) -> list[list[int]]:
    ids = (np.floor(values).astype(int) // 10).tolist()
    return [ids[k * N_FILES:(k + 1) * N_FILES] for k in range(EPOCHS)]


def _check_epochs(values: np.ndarray, chain: list, found: dict) -> list[list[int]]:
    """Each epoch holds every file once, and the epochs differ in order; fail naming the stage at fault."""
    text = chain_text(chain)
    epochs = _epochs(values)
    mixing = bool(found["repeat"]) and min(found["repeat"]) < found["shuffle"][0]
    for k, epoch in enumerate(epochs, start=1):
        if sorted(epoch) != list(range(N_FILES)):
            twice = sorted({f for f in epoch if epoch.count(f) > 1})
            if mixing:
                # Translators: {files} is a Python list of file ids.
                fail(ngettext("epoch {k} holds file {files} twice: repeat({epochs}) comes before shuffle() ({chain}), "
                              "so the shuffle mixes the epochs. Shuffle first, then repeat.",
                              "epoch {k} holds files {files} twice: repeat({epochs}) comes before shuffle() "
                              "({chain}), so the shuffle mixes the epochs. Shuffle first, then repeat.",
                              len(twice)).format(k=k, files=twice, epochs=EPOCHS, chain=text))
            # Translators: {first} and {last} count the outputs from 1.
            fail(_("epoch {k} (outputs {first} to {last}) does not hold each of the {files} files exactly once "
                   "({chain}): keep the epochs apart.").format(k=k, first=(k - 1) * N_FILES + 1, last=k * N_FILES,
                                                              files=N_FILES, chain=text))
    if mixing:  # this read happened to keep the epochs apart, but the order of the stages does not promise it
        fail(_("repeat({epochs}) comes before shuffle() ({chain}): the shuffle buffer then holds files of two epochs "
               "at once, so a file can come out twice in one epoch and not at all in another. Shuffle first, then "
               "repeat.").format(epochs=EPOCHS, chain=text))
    if all(e == epochs[0] for e in epochs[1:]):
        caches_after = [c for c in found["cache"] if c > found["shuffle"][0]]
        if caches_after:
            fail(_("every epoch came out in the same order: shuffle() comes before cache() ({chain}), so the cache "
                   "stores the first order and replays it. Shuffle after cache().").format(chain=text))
        fail(_("every epoch came out in the same order ({chain}): the shuffle must draw a new order for each "
               "epoch.").format(chain=text))
    return epochs


def _check_q1(answer: Any) -> str:
    ds = q1.dataset_of(answer)
    chain = stage_chain(ds)
    found = require_stages(chain, shuffle=True)
    _check_shuffle_stage(chain, found)
    before = decode_calls()
    values = batch_values(ds)
    runs = decode_calls() - before
    check_content(values, found)
    check_decode_runs(runs, chain, found)
    epochs = _check_epochs(values, chain, found)
    check_augmentation(values, chain, found)
    # Translators: {first} and {second} are Python lists: the first file ids of epochs 1 and 2.
    return _("decode ran {runs} times for {epochs} epochs; each epoch holds every file once, in a new order "
             "(epoch 1 starts {first}, epoch 2 {second}), with new augmentations.").format(
        runs=runs, epochs=EPOCHS, first=epochs[0][:4], second=epochs[1][:4])


q1 = FunctionQuestion(
    N_("Exercise 1: the 2019 pipeline, fixed"),
    _check_q1,
    hints=[N_("Decode once: map(ex.decode), then cache(), then repeat(3)."),
           N_("Shuffle between cache() and repeat(3), with a buffer of all 12 files, so every epoch draws a new order "
              "and epochs never mix."),
           N_("The augmentation comes after cache() and before batch(4).")],
    solution="""
    ex = tutor.checks.lesson08

    def fixed(source):
        return source.map(ex.decode).cache().shuffle(12, seed=0).repeat(3).map(ex.augment).batch(4)
    """,
    name="fixed",
    source=exercise_source,
)
