"""Exercises for lesson 14: tf.data outside TensorFlow (Grain's order, a Grain pipeline, a map for any backend).

Grain is optional for the package; these questions import it when they run.

>>> from tutor.checks import lesson14 as ex
>>> ex.q2.check(...).status
'unattempted'
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import tensorflow as tf

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from ..reading import is_grain_dataset, read_ids
from . import _read
from ._core import fail, sentences
from .questions import Question, SetPrediction

#: How many seeds the prediction question tries.
RUNS = 300


def _grain():
    try:
        import grain
    except ImportError:
        fail(_("this exercise needs Grain, which is not installed here: run `%pip install grain` and restart the "
               "kernel."))
    return grain


# ------------------------------------------------------------------ predict: which ids can come out first in Grain?
def first_ids_pipeline(n: int = 50, runs: int = RUNS):
    """The first id out of ``grain.MapDataset.range(n).shuffle(seed=s)`` for ``s`` in ``range(runs)``, as a Grain dataset."""
    grain = _grain()
    return grain.MapDataset.range(runs).map(lambda seed: grain.MapDataset.range(n).shuffle(seed=seed)[0])


class GrainSetPrediction(SetPrediction):
    """A set prediction whose truth comes from a real Grain pipeline, read with the same bounds as tf.data."""

    def actual(self) -> Any:
        result, _unused = read_ids(self.pipeline(), max_elements=self.max_elements, timeout=_read.TIMEOUT,
                                   where="check")
        if result.more:
            fail(_("the pipeline produced more than {limit} elements.").format(limit=self.max_elements))
        return self.truth([int(np.ravel(e)[0]) for e in result.elements])

    def _score(self, prediction: Any) -> str:
        if is_grain_dataset(prediction):
            fail(_("write down your prediction as a value ({ask}), not a pipeline: the point is to guess before "
                   "running it.").format(ask=_(self.ask)))
        return super()._score(prediction)


predict_first = GrainSetPrediction(
    N_("predict (which ids can come out first in Grain)"),
    first_ids_pipeline,
    truth=lambda firsts: sorted(set(firsts)),
    ask=N_("every id that can come out first, as a list in any order"),
    code=f"grain.MapDataset.range(50).shuffle(seed=s), for {RUNS} seeds s",
    hints=[N_("Grain's MapDataset.shuffle does not use a buffer: it draws a permutation of all the indices."),
           N_("In lesson 03, shuffle(10) could only start with ids 0..9. What limits a permutation of all 50?")],
)


# ------------------------------------------------------------------ q1: the digit order in Grain
def _grain_batches(answer: Any) -> list[list[int]]:
    if isinstance(answer, tf.data.Dataset):
        fail(_("that is a tf.data.Dataset; this exercise asks for the same pipeline in Grain, starting from "
               "grain.MapDataset.range(20)."))
    if not is_grain_dataset(answer):
        # Translators: {kind} is a Python type's name.
        fail(_("expected a Grain dataset (grain.MapDataset or grain.IterDataset), got {kind}. "
               "Start from grain.MapDataset.range(20).").format(kind=type(answer).__name__))
    try:
        result, batched = read_ids(answer, max_elements=40, timeout=_read.TIMEOUT, where="check")
    except TypeError as exc:
        fail(_after_where(str(exc)))
    if result.more:
        fail(_("your dataset produced more than 40 elements: it never ends, or is far longer than asked. "
               "Did you use repeat() with no count?"))
    if not result.elements:
        fail(_("your dataset is empty: it produced no element."))
    if not batched:
        fail(_("your dataset gives single ids; group them in batches of 5 with .batch(5)."))
    return [e.tolist() for e in result.elements]


def _check_grain_pipeline(answer: Any) -> str:
    batches = _grain_batches(answer)
    flat = [i for b in batches for i in b]
    outside = sorted(set(flat) - set(range(20)))
    if outside:
        fail(_("id {id} is not in range(20): start from grain.MapDataset.range(20).").format(id=outside[0]))
    counts = Counter(flat)
    if {counts[i] for i in range(20)} != {2}:
        odd = next(i for i in range(20) if counts[i] != 2)
        fail(ngettext("id {id} appears {n} time; two epochs means every id of range(20) twice: repeat(2).",
                      "id {id} appears {n} times; two epochs means every id of range(20) twice: repeat(2).",
                      counts[odd]).format(id=odd, n=counts[odd]))
    if any(len(b) != 5 for b in batches):
        fail(_("use batches of 5; the batch sizes are {sizes}.").format(sizes=[len(b) for b in batches]))
    first, second = flat[:20], flat[20:]
    if sorted(first) != list(range(20)):
        fail(_("the first 20 ids are not one whole epoch: repeat comes before shuffle, so the shuffle mixes the "
               "two epochs together. Shuffle first, then repeat."))
    if first == list(range(20)):
        fail(_("the first epoch comes out in order 0, 1, 2, ...: add .shuffle(seed=0)."))
    if all(sorted(b) == list(range(b[0] // 5 * 5, b[0] // 5 * 5 + 5)) for b in batches):
        fail(_("every batch still holds 5 consecutive ids, like {batch}: your shuffle comes after "
               "batch, so it shuffles whole batches. Move shuffle before batch.").format(batch=sorted(batches[0])))
    if first == second:
        fail(_("both epochs come out in the same order. Put repeat after shuffle: Grain then draws a new "
               "permutation for every epoch."))
    done = _("every id once per epoch, batches of 5, and each epoch in its own order.")
    if _repeats_before_batch(answer):
        return sentences(done, _("That holds here only because 20 is a multiple of 5: with repeat before batch, the "
                                 "batch at the end of an epoch takes ids of the next one whenever the epoch size is "
                                 "not a multiple of the batch size. batch before repeat keeps epochs apart whatever "
                                 "the sizes."))
    return done


def _repeats_before_batch(ds: Any) -> bool:
    """True when a Grain pipeline repeats before it batches (read from its parents, output first)."""
    names = []
    while ds is not None and len(names) < 100:
        names.append(type(ds).__name__)
        parents = getattr(ds, "parents", None) or ()
        ds = parents[0] if parents else None
    batch = next((k for k, n in enumerate(names) if "Batch" in n), None)
    repeat = next((k for k, n in enumerate(names) if "Repeat" in n), None)
    return batch is not None and repeat is not None and repeat > batch


# ------------------------------------------------------------------ q2: a map that runs on any Keras backend
def pixel_source() -> tf.data.Dataset:
    """Eight 8x8 uint8 images with values 0..255 (seeded)."""
    images = np.random.default_rng(14).integers(0, 256, size=(8, 8, 8), dtype=np.uint8)
    return tf.data.Dataset.from_tensor_slices(images)


def _check_scaled(answer: Any) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    expected = [image.astype(np.float32) / 255.0 for image in _read.elements(pixel_source(), 20)]
    if not isinstance(spec, tf.TensorSpec):
        fail(_("each element should be one image; your elements are {spec}.").format(spec=_read.describe_spec(spec)))
    if spec.dtype != tf.float32:
        fail(_("the images are {dtype}; scale them to float32 (tf.cast(image, tf.float32) / 255.0).").format(
            dtype=spec.dtype.name))
    got = _read.elements(ds, 20)
    if len(got) != len(expected):
        fail(_("your dataset has {n} elements; pixel_source() has {want}. Map it, without take, "
               "batch or filter.").format(n=len(got), want=len(expected)))
    for k, (g, e) in enumerate(zip(got, expected)):
        if np.shape(g) != e.shape:
            # Translators: {shape} and {want} are shapes as Python lists: [8, 8].
            fail(_("image {k} has shape {shape}; expected {want}: map each image, do not batch.").format(
                k=k, shape=list(np.shape(g)), want=list(e.shape)))
        if not np.allclose(g, e, atol=1e-6):
            if float(np.max(g)) > 1.5:
                fail(_("image {k} holds other values than image / 255 (still 0..255: divide by 255).").format(k=k))
            fail(_("image {k} holds other values than image / 255.").format(k=k))
    return _("each image is scaled to 0..1 with TensorFlow ops, which run inside tf.data on any Keras backend.")


def _after_where(text: str) -> str:
    head, sep, rest = text.partition(" expects ")
    return ("it expects " + rest) if sep and " " not in head else text


q1 = Question(
    N_("q1 (the lesson's order in Grain)"),
    _check_grain_pipeline,
    hints=[N_("grain.MapDataset.range(20), then shuffle(seed=0), then batch, then repeat."),
           N_("Where repeat goes decides whether the epochs mix, as in tf.data.")],
    solution="""
    import grain
    answer = grain.MapDataset.range(20).shuffle(seed=0).batch(5).repeat(2)
    """,
)

q2 = Question(
    N_("q2 (a map that runs on any Keras backend)"),
    _check_scaled,
    hints=[N_("keras.ops follows the Keras backend (JAX here), and JAX cannot work on tf.data's symbolic tensors."),
           N_("Write the map with TensorFlow ops: tf.cast(image, tf.float32) / 255.0.")],
    solution="""
    from tutor.checks.lesson14 import pixel_source
    answer = pixel_source().map(lambda image: tf.cast(image, tf.float32) / 255.0)
    """,
)

__all__ = ["pixel_source", "predict_first", "q1", "q2"]
