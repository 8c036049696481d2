"""Exercises for lesson 02: batch and repeat.

>>> from tutor.checks import lesson02 as ex
>>> ex.q1.check(tf.data.Dataset.range(10).batch(4).repeat(3)).passed
True
"""
from __future__ import annotations

from collections import Counter

import tensorflow as tf

from ..i18n import N_, ngettext
from ..i18n import gettext as _
from . import _read, _stages
from ._core import fail, sentences, shorten

from .questions import PredictQuestion, Question


# ------------------------------------------------------------------ q1
def _check_no_mixing(answer) -> str:
    ds = _read.dataset(answer)
    batches = _read.id_batches(ds, 100)
    if not batches:
        fail(_("your dataset is empty: it produced no batch."))
    counts = Counter(i for b in batches for i in b)
    outside = sorted(set(counts) - set(range(10)))
    if outside:
        fail(_("id {id} is not in range(10): start from tf.data.Dataset.range(10).").format(id=outside[0]))
    times = {counts[i] for i in range(10)}
    if len(times) == 1 and times != {3}:
        n = times.pop()
        fail(ngettext("every id appears {n} time, so that is {n} epoch; 3 epochs means every id 3 times: repeat(3).",
                      "every id appears {n} times, so that is {n} epochs; 3 epochs means every id 3 times: repeat(3).",
                      n).format(n=n))
    if times != {3}:
        missing = [i for i in range(10) if counts[i] < 3]
        drop = any(s.kind == "batch" and s.params.get("drop_remainder") for s in _stages.stages(ds))
        if drop and missing == [8, 9]:
            fail(_("ids 8 and 9 are missing: drop_remainder=True dropped the short last batch of every epoch. "
                   "This exercise keeps every element, so leave drop_remainder off."))
        fail(_("id {id} appears {times} times; every id of range(10) should appear 3 times "
               "(once per epoch).").format(id=missing[0], times=counts[missing[0]]))
    mixed = _stages.mixed_message(ds, batches)
    if mixed:
        fail(sentences(mixed, _("Batch first, then repeat, so that every epoch ends with its own short batch.")))
    sizes = [len(b) for b in batches]
    if sizes != [4, 4, 2] * 3:
        big = [k for k, s in enumerate(sizes) if s > 4]
        if big:
            fail(_("batch {k} has {size} elements; use batches of 4.").format(k=big[0], size=sizes[big[0]]))
        fail(_("the batch sizes are {sizes}; batches of 4 give 4, 4, 2 in each epoch.").format(sizes=sizes))
    return _("batch sizes {sizes}: each epoch ends with its own short batch and never spills into the next.").format(
        sizes=sizes)


# ------------------------------------------------------------------ q2
def _check_static(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    problem = _read.ids_spec_problem(spec, batched=True)
    if problem:
        fail(problem)
    if spec.shape.rank is None or spec.shape[0] is None:
        drop_off = any(s.kind == "batch" and s.params.get("drop_remainder") is False for s in _stages.stages(ds))
        why = (_("range(10) leaves one element over, so the last batch may be short, and TensorFlow cannot promise "
                 "3. Pass drop_remainder=True to batch().") if drop_off else
               _("Make the batch size static with batch(3, drop_remainder=True)."))
        # Translators: {shape} is a shape as Python writes it: (None,).
        fail(sentences(_("element_spec has shape {shape}: the batch dimension is unknown (None).").format(
            shape=_read.shape_text(spec.shape)), why))
    if spec.shape[0] != 3:
        fail(_("the static batch dimension is {size}; make batches of 3.").format(size=spec.shape[0]))
    batches = _read.id_batches(ds, 50)
    want = [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    if batches == want:
        return _leftover(ds, batches)
    if len(batches) > 3 and batches[:3] == want:
        fail(_("your dataset gives {n} batches; expected 3, from one pass over range(10). Leave "
               "repeat() out.").format(n=len(batches)))
    flat = [i for b in batches for i in b]
    if len(batches) == 3 and len(set(flat)) == 9 and set(flat) <= set(range(10)) and flat != sorted(flat):
        fail(_("the batches are {batches}: ids of range(10) out of order. Keep range(10) in order "
               "(no shuffle).").format(batches=shorten(batches, 60)))
    fail(_("the batches are {batches}; expected {want} from range(10), with 9 dropped.").format(
        batches=shorten(batches, 60), want=want))


def _leftover(ds: tf.data.Dataset, batches: list[list[int]]) -> str:
    """The success message, with what the last batch stage dropped, read from its own input (the leftover 9)."""
    found = [s for s in _stages.stages(ds) if s.kind == "batch" and s.params.get("drop_remainder")]
    upstream = getattr(found[-1].dataset, "_input_dataset", None) if found else None
    if upstream is None or _read.ids_spec_problem(upstream.element_spec, batched=False):
        return _("element_spec has shape (3,): every batch has exactly 3 elements.")
    batched = {i for b in batches for i in b}
    dropped = [i for i in (int(v) for v in _read.elements(upstream, 50)) if i not in batched]
    if not dropped:
        return _("element_spec has shape (3,): every batch has exactly 3 elements: your input has no leftover ({n} "
                 "ids make {batches} full batches), so drop_remainder=True only promises the static shape.").format(
            n=len(batched), batches=len(batches))
    if len(dropped) == 1:
        # Translators: {id} is the id that batch(3, drop_remainder=True) dropped.
        return _("element_spec has shape (3,): every batch has exactly 3 elements, and the leftover {id} was "
                 "dropped.").format(id=dropped[0])
    # Translators: {ids} lists the dropped ids: 9, 10.
    return _("element_spec has shape (3,): every batch has exactly 3 elements, and the leftovers {ids} were "
             "dropped.").format(ids=", ".join(map(str, dropped)))


# ------------------------------------------------------------------ q3
PADDED = [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]


def _check_padded(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if isinstance(spec, tf.RaggedTensorSpec):
        fail(_("your batches are ragged (a RaggedTensor, as ragged_batch gives): each sequence keeps its own length. "
               "This exercise asks for padding: ordinary tensors in which shorter sequences are filled with zeros. "
               "Use padded_batch(2)."))
    if not isinstance(spec, tf.TensorSpec):
        fail(_("each element is {spec}; expected batches of sequences (one tensor per batch).").format(
            spec=_read.describe_spec(spec)))
    if _read.is_text(spec):
        fail(_("the elements are text (strings); start from the `sequences` dataset of numbers."))
    if spec.shape.rank is not None and spec.shape.rank < 2:
        fail(_("each element is {spec}: one sequence, not a batch of them. Batch the `sequences` "
               "dataset in pairs with padded_batch(2).").format(spec=_read.describe_spec(spec)))
    if spec.shape.rank is not None and spec.shape.rank > 2:
        fail(_("each element has shape {shape}: batches of batches. Batch only once.").format(
            shape=_read.shape_text(spec.shape)))
    try:
        got = _read.values(ds, 20)
    except tf.errors.InvalidArgumentError as exc:
        if "Cannot add tensor to the batch" in str(exc) or "Cannot batch tensors with different shapes" in str(exc):
            fail(_("batch() cannot stack sequences of different lengths into one tensor. padded_batch(2) pads them "
                   "to a common length first."))
        raise
    if got == PADDED:
        return _("each batch is padded with zeros to the length of its own longest sequence.")
    sizes = [len(b) for b in got]
    if sizes != [2, 2]:
        # Translators: {sizes} is a Python list of sizes: [3, 1].
        fail(_("your batches hold {sizes} sequences; expected 2 batches of 2 (pairs), from the 4 sequences.").format(
            sizes=sizes))
    for k, (batch, want) in enumerate(zip(got, PADDED)):
        if batch == want:
            continue
        width, wanted = len(batch[0]), len(want[0])
        if width > wanted and [row[:wanted] for row in batch] == want:
            fail(_("batch {k} is padded to length {width}, but its longest sequence has {wanted}. Each batch "
                   "should pad only to its own longest sequence: leave padded_shapes out (or None).").format(
                k=k, width=width, wanted=wanted))
        cells = [(v, w) for row, wrow in zip(batch, want) if len(row) == len(wrow) for v, w in zip(row, wrow)]
        pads = {v for v, w in cells if w == 0}
        if width == wanted and all(v == w for v, w in cells if w != 0) and pads and pads != {0}:
            fail(_("batch {k} is {batch}: padded with {value}. Pad with zeros, the default "
                   "padding_values.").format(k=k, batch=batch, value=sorted(pads)[0]))
        fail(_("batch {k} is {batch}; expected {want}. Start from the `sequences` dataset defined "
               "above.").format(k=k, batch=shorten(batch, 50), want=want))
    fail(_("the batches are {got}; expected {padded}.").format(got=shorten(got, 60), padded=PADDED))


# ------------------------------------------------------------------ questions
predict_sizes = PredictQuestion(
    N_("predict (batch sizes of repeat, then batch)"),
    lambda: tf.data.Dataset.range(10).repeat(3).batch(7),
    truth=lambda batches: [len(b) for b in batches],
    ask=N_("the size of every batch, in order, as a list of numbers"),
    code="tf.data.Dataset.range(10).repeat(3).batch(7)",
    row="batch",
    first_difference=True,
    hints=[N_("repeat(3) first makes one stream of 30 elements; batch(7) then cuts that stream into 7s."),
           N_("30 = 7 + 7 + 7 + 7 + 2.")],
    answer_name="prediction",
)

q1 = Question(
    N_("q1 (batches that never mix epochs)"),
    _check_no_mixing,
    hints=[
        N_("Draw both orders with tutor.BatchOrderDisplay.from_pipeline and look at the colours."),
        N_("repeat() before batch() joins the epochs into one stream; batch() before repeat() cuts each epoch "
           "separately."),
    ],
    solution="""
    answer = tf.data.Dataset.range(10).batch(4).repeat(3)
    """,
)

q2 = Question(
    N_("q2 (a static batch dimension)"),
    _check_static,
    hints=[N_("Print ds.element_spec after batch(3) and look at the first dimension."),
           N_("batch has a drop_remainder argument.")],
    solution="""
    answer = tf.data.Dataset.range(10).batch(3, drop_remainder=True)
    """,
)

q3 = Question(
    N_("q3 (batching sequences of different lengths)"),
    _check_padded,
    hints=[
        N_("Start from sequences = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n)): element n is n "
           "copies of n."),
        N_("padded_batch(2) pads every sequence in a batch to the longest one in that batch."),
    ],
    solution="""
    sequences = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    answer = sequences.padded_batch(2)
    """,
)

__all__ = ["predict_sizes", "q1", "q2", "q3"]
