"""The decode-once exercise that lessons 07 and 08 share: twelve stand-in files, a decode that counts its runs.

* :func:`decode`: reading and decoding one "file" (about 10 ms), counted by :func:`decode_calls`.
* :func:`augment`: a random augmentation, a fresh number every time it runs.
* The readers a checker uses to name the stage at fault: :func:`stage_chain`, :func:`require_stages`,
  :func:`batch_values`, :func:`check_content`, :func:`check_decode_runs`, :func:`check_augmentation`.

Verdicts never depend on a clock: they count how often ``decode`` ran and read the pipeline's stages.
"""
from __future__ import annotations

import threading
import time

import numpy as np
import tensorflow as tf

from ..doctor import PY_FUNCTION_OPS
from ..i18n import gettext as _
from . import _read, _stages
from ._core import fail, sentences, shorten
from ._stages import chain_text, where

N_FILES, EPOCHS, BATCH = 12, 3, 4
DECODE_SECONDS = 0.01
_calls = 0
_lock = threading.Lock()
_rng = None


def decode(file_id: tf.Tensor) -> tf.Tensor:
    """Stand-in for reading and decoding file ``file_id``: about 10 ms, returns ``file_id * 10`` as float32."""

    def work(i):
        global _calls
        with _lock:
            _calls += 1
        time.sleep(DECODE_SECONDS)
        return np.float32(int(i) * 10)

    y = tf.py_function(work, [file_id], Tout=tf.float32)
    y.set_shape(())
    return y


def decode_calls() -> int:
    """How many times :func:`decode` has run so far in this kernel."""
    return _calls


def augment(image: tf.Tensor) -> tf.Tensor:
    """Random augmentation: adds a fresh random number in [0, 1) every time it runs."""
    global _rng
    if _rng is None:
        _rng = tf.random.Generator.from_seed(5)
    return image + _rng.uniform([])


def exercise_source() -> tf.data.Dataset:
    """The 12 "files" (ids 0..11) every function answer is called with."""
    return tf.data.Dataset.range(N_FILES)


def stage_chain(ds: tf.data.Dataset) -> list:
    """The stages of the answer from source to output, option stages left out."""
    # Translators: completes "Build it with ...".
    return _stages.stages(ds, build_with=_("`source` and tf.data methods only (map, cache, shuffle, repeat, batch)"))


def is_decode(stage) -> bool:
    return stage.kind == "map" and bool(stage.fn_ops & PY_FUNCTION_OPS)


def is_augment(stage) -> bool:
    return stage.kind == "map" and bool(stage.random_fn)


def require_stages(chain: list, *, shuffle: bool = False) -> dict[str, list[int]]:
    """Positions of the exercise's stages; fail naming the first one that is missing or misplaced."""
    text = chain_text(chain)
    found = {"decode": where(chain, is_decode), "augment": where(chain, is_augment), "cache": where(chain, "cache"),
             "repeat": where(chain, "repeat"), "batch": where(chain, "batch"), "shuffle": where(chain, "shuffle")}
    if not found["decode"]:
        # Translators: {chain} is the learner's pipeline as code: range(12) -> map(decode) -> batch(batch_size=4).
        fail(_("there is no map(ex.decode) in your pipeline ({chain}): start from `source` and decode every "
               "file.").format(chain=text))
    if not found["augment"]:
        fail(_("map(ex.augment) is missing ({chain}): keep the random augmentation, placed after cache().").format(
            chain=text))
    if not found["batch"]:
        fail(_("keep batch({batch}) as the exercise asks: your pipeline ({chain}) has no batch().").format(
            batch=BATCH, chain=text))
    if shuffle and not found["shuffle"]:
        fail(_("there is no shuffle() in your pipeline ({chain}), so every epoch comes out in the same order. "
               "Shuffle after cache(), before repeat(3).").format(chain=text))
    batch = chain[found["batch"][0]]
    size = batch.params.get("batch_size")
    if size is not None and size != BATCH:
        fail(_("use batch({batch}) as the exercise asks; your pipeline has batch({size}).").format(batch=BATCH,
                                                                                                  size=size))
    if min(found["augment"]) > found["batch"][0]:
        fail(_("map(ex.augment) comes after batch ({chain}), so it adds ONE random number to a whole batch of "
               "{batch}. Every file should get its own draw: augment before batch({batch}).").format(chain=text,
                                                                                                     batch=BATCH))
    return found


def batch_values(ds: tf.data.Dataset, limit: int = 100) -> np.ndarray:
    """Every value of the answer, in output order; fail unless its elements are batches of numbers."""
    batches = _read.elements(ds, limit)
    if not batches:
        fail(_("your dataset produced no elements."))
    if any(np.ndim(b) != 1 for b in batches):
        # Translators: {shape} is a shape as Python writes it: (4, 28, 28).
        fail(_("expected batches of {batch} numbers, got elements of shape {shape}: keep map(ex.decode) first and "
               "batch({batch}) last.").format(batch=BATCH, shape=np.shape(batches[0])))
    values = np.concatenate(batches)
    if not np.issubdtype(values.dtype, np.number):
        # Translators: {dtype} is a NumPy dtype's name (<U5, object); {example} one of the values.
        fail(_("expected numbers (decoded files), got {dtype} values such as {example}.").format(
            dtype=values.dtype, example=shorten(values[0], 30)))
    return values.astype(np.float64)


def check_content(values: np.ndarray, found: dict) -> None:
    """All 12 files, three times each; fail naming the missing epochs or the wrong values."""
    expected = sorted([i * 10 for i in range(N_FILES)] * EPOCHS)
    if len(values) != len(expected):
        why = _("There is no repeat({epochs}).").format(epochs=EPOCHS) if not found["repeat"] else ""
        fail(sentences(_("expected {n} values ({files} files x {epochs} epochs), got {got}.").format(
            n=len(expected), files=N_FILES, epochs=EPOCHS, got=len(values)), why))
    if sorted(np.floor(values).astype(int).tolist()) != expected:
        fail(_("the values are not the {files} decoded files three times each: use every stage exactly once, "
               "starting from `source`.").format(files=N_FILES))


def check_decode_runs(runs: int, chain: list, found: dict) -> None:
    """Decoding must run once per file; fail naming the stage order that made it run more often."""
    if runs <= N_FILES:
        return
    text, decode_at = chain_text(chain), min(found["decode"])
    caches = [c for c in found["cache"] if c > decode_at]
    counts = dict(runs=runs, files=N_FILES, chain=text, epochs=EPOCHS)
    if not found["cache"]:
        # Translators: {runs} counts the runs of decode; {chain} is the learner's pipeline as code.
        fail(_("decode ran {runs} times for {files} files: without cache() every epoch decodes again ({chain}). "
               "Add cache() right after map(ex.decode).").format(**counts))
    if not caches:
        fail(_("decode ran {runs} times for {files} files: cache() comes before map(ex.decode) ({chain}), so it "
               "stores file ids and every epoch still decodes. Put cache() right after map(ex.decode).").format(
            **counts))
    repeats_before = [r for r in found["repeat"] if r < min(caches)]
    if repeats_before:
        fail(_("decode ran {runs} times for {files} files: repeat({epochs}) comes before cache() ({chain}), so the "
               "cache stores all three epochs and never replays anything. Decode, cache, then repeat.").format(
            **counts))
    fail(_("decode ran {runs} times for {files} files ({chain}): the cache did not save the work. Decode, cache(), "
           "then repeat({epochs}).").format(**counts))


def check_augmentation(values: np.ndarray, chain: list, found: dict) -> None:
    """Every epoch gets fresh random numbers; fail naming a frozen or a missing augmentation."""
    if np.all(values == np.floor(values)):
        fail(_("the values are exactly the decoded files: map(ex.augment) never changed them ({chain}).").format(
            chain=chain_text(chain)))
    copies: dict[int, list[float]] = {}
    for v in values.tolist():
        copies.setdefault(int(np.floor(v)), []).append(v)
    if all(len(set(c)) == len(c) for c in copies.values()):
        return
    caches_after = [c for c in found["cache"] if c > min(found["augment"])]
    if caches_after:
        fail(_("the same file came out with the same random number in two epochs: map(ex.augment) runs before "
               "cache() ({chain}), so the cache stores the first epoch's draws and replays them. The augmentation is "
               "frozen: put it after cache().").format(chain=chain_text(chain)))
    fail(_("the same file came out with the same random number in two epochs: each epoch should draw anew. Keep "
           "map(ex.augment) after cache() and call it on every element."))
