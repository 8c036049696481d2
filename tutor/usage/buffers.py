"""What each buffer of a pipeline holds, computed from its element_spec and its size, without running it.

A buffering stage keeps whole elements: ``shuffle`` its ``buffer_size``, ``prefetch``
its ``buffer_size``, a parallel ``map`` up to ``num_parallel_calls`` results, an
in-memory ``cache()`` every element of a pass, and a parallel ``interleave`` a few
elements of every input it has opened. One element's bytes come from the
``element_spec`` the stage sees (the product of the shape times the dtype's size,
summed over the components); a dimension TensorFlow does not know (``None``) is
resolved where the pipeline says it (``batch(batch_size)`` of a known element).

>>> table = buffers(tf.data.Dataset.range(100).map(lambda i: tf.zeros([1024])).shuffle(10))
>>> [(b.kind, b.elements, b.element_bytes) for b in table]
[('shuffle', 10, 4096)]
"""
from __future__ import annotations

import math
from typing import Any

from .._validate import require_dataset
from ..i18n import N_, ljust, width
from ..i18n import gettext as _

#: tf.data's AUTOTUNE, as the op graph holds it.
AUTOTUNE = -1
#: A parallel interleave (TF 2.16-2.21) opens ``cycle_length`` inputs and ``2 * cycle_length`` more ahead, and
#: each holds up to ``2 * block_length + 1`` elements (its defaults for buffer_output_elements and
#: prefetch_input_elements, which ``Dataset.interleave`` leaves to AUTOTUNE).
INPUTS_AHEAD_PER_CYCLE = 2
ELEMENTS_PER_BLOCK = 2
#: Kinds whose elements are their input's elements (so an unknown size can be read from the input).
SAME_ELEMENTS = frozenset({"options", "prefetch", "shuffle", "cache", "take", "skip", "repeat", "filter", "shard",
                           "ignore_errors", "assert_cardinality", "snapshot"})


#: The columns of a :class:`Buffers` table (English; translated where printed).
HEAD = (N_("stage"), N_("elements"), N_("each"), N_("holds"), N_("why that many"))


class Buffer:
    """One buffering stage: how many elements it may hold, and their bytes.

    Attributes
    ----------
    number : int
        The stage's number (1 = the source), as :func:`tutor.doctor.read_pipeline` counts.
    stage : str
        The stage as Python writes it, e.g. ``"shuffle(buffer_size=100)"``.
    kind : str
        ``"shuffle"``, ``"prefetch"``, ``"map"`` (parallel), ``"interleave"`` or ``"cache"``.
    elements : int or None
        Most elements it holds at once; None when tf.data decides while running (AUTOTUNE) or
        TensorFlow cannot tell (a cache of a dataset of unknown length).
    element_bytes : int or None
        Bytes of one element; None when its shape or dtype has no fixed size (strings, unknown shapes).
    rule : str
        Where ``elements`` comes from, in words.
    """

    def __init__(self, number: int, stage: str, kind: str, elements: int | None, element_bytes: int | None,
                 rule: str):
        self.number, self.stage, self.kind = int(number), str(stage), str(kind)
        self.elements = None if elements is None else int(elements)
        self.element_bytes = None if element_bytes is None else int(element_bytes)
        self.rule = str(rule)

    @property
    def bytes(self) -> int | None:
        """``elements * element_bytes``, or None when either is unknown."""
        if self.elements is None or self.element_bytes is None:
            return None
        return self.elements * self.element_bytes

    def __repr__(self) -> str:
        return f"Buffer(stage {self.number}: {self.stage}, {self.elements} x {self.element_bytes} bytes)"


class Buffers(list):
    """The buffers of one pipeline, source first; printing it gives a table.

    ``total`` adds the known sizes; ``unknown`` lists the stages whose size is not known before running.
    """

    @property
    def total(self) -> int:
        return sum(b.bytes for b in self if b.bytes is not None)

    @property
    def unknown(self) -> list[Buffer]:
        return [b for b in self if b.bytes is None]

    def __str__(self) -> str:
        if not self:
            return _("No buffering stage: no shuffle, prefetch, parallel map, interleave or cache().")
        rows = [(f"{b.number}. {b.stage}", "?" if b.elements is None else f"{b.elements:,}",
                 "?" if b.element_bytes is None else megabytes(b.element_bytes, digits=3),
                 "?" if b.bytes is None else megabytes(b.bytes), b.rule) for b in self]
        head = tuple(_(title) for title in HEAD)
        widths = [max(width(r[k]) for r in [head, *rows]) for k in range(5)]
        lines = ["  ".join(ljust(cell, w) if k in (0, 4) else " " * (w - width(cell)) + cell for k, (cell, w) in
                           enumerate(zip(row, widths))).rstrip() for row in [head, *rows]]
        if self.unknown:
            lines.append(_("in all: {total} (plus {n} buffer(s) of unknown size)").format(
                total=megabytes(self.total), n=len(self.unknown)))
        else:
            lines.append(_("in all: {total}").format(total=megabytes(self.total)))
        return "\n".join(lines)

    __repr__ = __str__


def megabytes(n: float | None, digits: int = 1) -> str:
    """``'12.5 MB'`` (1 MB = 2**20 bytes); ``'?'`` for None.

    >>> megabytes(3 * 2**20), megabytes(4096, digits=3)
    ('3.0 MB', '0.004 MB')
    """
    return "?" if n is None else f"{n / 2**20:.{digits}f} MB"


#: What TensorFlow keeps for each element in a buffer besides the element's data (its tensor objects and their
#: reference-counted storage): about 200 bytes for an element of one small tensor, as measured on TensorFlow
#: 2.16-2.21's Linux builds (tests/facts/test_lesson15.py). It dominates buffers of small elements, such as ids.
BOOKKEEPING_BYTES = 200


def element_bytes(spec: Any) -> int | None:
    """Bytes of one element with this ``element_spec`` (a nested structure of TensorSpecs); None if not fixed.

    >>> element_bytes(tf.TensorSpec([28, 28, 1], tf.float32)), element_bytes(tf.TensorSpec([None], tf.int64))
    (3136, None)
    """
    import tensorflow as tf

    total = 0
    for component in tf.nest.flatten(spec):
        shape, dtype = getattr(component, "shape", None), getattr(component, "dtype", None)
        if shape is None or dtype is None or not shape.is_fully_defined() or dtype == tf.string \
                or dtype == tf.variant or not isinstance(component, tf.TensorSpec):
            return None
        total += math.prod(shape.as_list()) * dtype.size
    return total


def buffers(dataset) -> Buffers:
    """The buffering stages of ``dataset`` and what each holds at most, from the pipeline as written.

    Nothing is run. The options' rewrites (an injected prefetch, a map made
    parallel) are applied only when an iterator starts, so they are not here;
    :func:`tutor.usage.memory_use` measures the pipeline as it really runs.

    >>> print(buffers(tf.data.Dataset.range(8).map(lambda i: tf.zeros([256, 1024])).prefetch(2)))
    stage                     elements      each    holds  why that many
    3. prefetch(buffer_size=2)        2  1.000 MB   2.0 MB  buffer_size
    in all: 2.0 MB
    """
    from ..doctor import read_pipeline

    stages = read_pipeline(require_dataset(dataset, "buffers"))
    sizes: dict[int, int | None] = {}
    for s in stages:
        sizes[id(s)] = _element_size(s, sizes)
    found = Buffers()
    for s in stages:
        made = _buffer(s, sizes)
        if made is not None:
            found.append(made)
    return found


def _element_size(stage, sizes: dict) -> int | None:
    spec = getattr(stage.dataset, "element_spec", None) if stage.dataset is not None else None
    size = element_bytes(spec) if spec is not None else None
    if size is not None or not stage.inputs:
        return size
    above = sizes.get(id(stage.inputs[0]))
    if stage.kind in SAME_ELEMENTS:
        return above
    if stage.kind == "batch" and above is not None and _count(stage.params.get("batch_size")):
        return above * stage.params["batch_size"]
    return None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _buffer(s, sizes: dict) -> Buffer | None:
    p, own = s.params, sizes.get(id(s))
    upstream = s.inputs[0].cardinality if s.inputs else None
    known_length = upstream if isinstance(upstream, int) and upstream >= 0 else None
    if s.kind == "shuffle":
        size = p.get("buffer_size")
        if not _count(size):
            return Buffer(s.number, s.label, "shuffle", None, own, _("buffer_size is not a constant"))
        if known_length is not None and known_length < size:
            return Buffer(s.number, s.label, "shuffle", known_length, own,
                          _("buffer_size, but only {n} elements come in").format(n=known_length))
        return Buffer(s.number, s.label, "shuffle", size, own, "buffer_size")
    if s.kind == "prefetch":
        size = p.get("buffer_size")
        if size == AUTOTUNE:
            return Buffer(s.number, s.label, "prefetch", None, own, _("AUTOTUNE: tf.data sizes it while running"))
        return Buffer(s.number, s.label, "prefetch", size if _count(size) else None, own, "buffer_size")
    if s.kind == "map" and "num_parallel_calls" in p:
        calls = p["num_parallel_calls"]
        if calls == AUTOTUNE:
            return Buffer(s.number, s.label, "map", None, own, _("AUTOTUNE: up to one result per CPU core"))
        return Buffer(s.number, s.label, "map", calls if _count(calls) else None, own,
                      _("num_parallel_calls results"))
    if s.kind == "interleave" and "num_parallel_calls" in p:
        cycle, block = p.get("cycle_length"), p.get("block_length", 1)
        if not (_count(cycle) and _count(block)):
            return Buffer(s.number, s.label, "interleave", None, own,
                          _("cycle_length is AUTOTUNE: one input per core"))
        inputs = cycle * (1 + INPUTS_AHEAD_PER_CYCLE)
        per_input = ELEMENTS_PER_BLOCK * block + 1
        return Buffer(s.number, s.label, "interleave", inputs * per_input, own,
                      _("{inputs} inputs open ({cycle} + {ahead} ahead) x {per_input} each").format(
                          inputs=inputs, cycle=cycle, ahead=INPUTS_AHEAD_PER_CYCLE * cycle, per_input=per_input))
    if s.kind == "cache" and not p.get("filename"):
        cut = _cut_short(s, known_length)
        if cut is not None:
            # Translators: {stage} is a take() stage as Python writes it, such as take(count=10).
            return Buffer(s.number, s.label, "cache", 0, own, _("none kept: {stage} ends every pass early, so the "
                                                                "cache is never complete and is thrown away")
                          .format(stage=cut.label))
        if known_length is None:
            return Buffer(s.number, s.label, "cache", None, own, _("every element of one pass (length unknown)"))
        return Buffer(s.number, s.label, "cache", known_length, own, _("every element of one pass"))
    return None


def _cut_short(stage, length: int | None):
    """The ``take`` after ``stage`` (through stages that keep elements one for one) that ends its pass early."""
    below = stage.consumers[0] if len(stage.consumers) == 1 else None
    while below is not None and below.kind in ("options", "prefetch", "map", "take"):
        count = below.params.get("count")
        if below.kind == "take" and isinstance(count, int) and count >= 0 and (length is None or count < length):
            return below
        below = below.consumers[0] if len(below.consumers) == 1 else None
    return None
