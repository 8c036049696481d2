"""sources_explorer: interleave, sample, window or bucket a few small sources, and see where every element went."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
import tensorflow as tf

from ..i18n import gettext as _
from ..sources import SourceDisplay
from ._base import Explorer, choice
from ._frontend import code_html

#: The transformations the explorer runs, and the controls each one uses.
TRANSFORMATIONS = {
    "interleave": ("cycle_length", "block_length"),
    "sample_from_datasets": ("weight_a", "weight_b", "weight_c", "stop_on_empty_dataset", "seed"),
    "window": ("size", "shift", "stride", "drop_remainder"),
    "bucket_by_sequence_length": ("boundaries",),
}

#: Lengths of the twelve sequences that the bucketing example batches.
LENGTHS = (1, 5, 2, 7, 1, 3, 6, 2, 4, 8, 3, 5)


def shard(i):
    """Source ``i`` of the interleave and sampling examples: six ids, ``100 * i`` to ``100 * i + 5``."""
    return tf.data.Dataset.range(100 * i, 100 * i + 6)


def sequences() -> tf.data.Dataset:
    """Twelve sequences of the :data:`LENGTHS`; sequence ``k`` holds ``10 * k + 1, 10 * k + 2, ...``."""
    lengths = tf.constant(LENGTHS, tf.int64)
    return tf.data.Dataset.range(len(LENGTHS)).map(lambda k: tf.range(10 * k + 1, 10 * k + 1 + lengths[k]))


def length_range(boundaries):
    """A function naming the bucket of a sequence, as ``bucket_by_sequence_length`` splits lengths."""
    edges = list(boundaries)
    # Translators: the buckets of sequence lengths in the key: "length < 3", "3 ≤ length < 6", "length ≥ 6".
    names = [_("length < {hi}").format(hi=edges[0])] + \
        [_("{lo} ≤ length < {hi}").format(lo=lo, hi=hi) for lo, hi in zip(edges, edges[1:])] + \
        [_("length ≥ {lo}").format(lo=edges[-1])]

    def bucket(seq):
        return names[int(np.searchsorted(edges, len(seq), side="right"))]

    bucket.__name__ = "bucket"
    return bucket


def explorer_display(transformation: str, *, cycle_length=2, block_length=3, weight_a=1.0, weight_b=1.0,
                     weight_c=1.0, stop_on_empty_dataset=False, seed=0, size=3, shift=2, stride=1,
                     drop_remainder=True, boundaries=(3, 6)) -> SourceDisplay:
    """Run one of :data:`TRANSFORMATIONS` on its small sources and return the SourceDisplay.

    >>> explorer_display("interleave", cycle_length=2, block_length=3).labels[0][:4]
    ['A0', 'A1', 'A2', 'B0']
    """
    if transformation == "interleave":
        sources = [shard(i) for i in range(3)]
        output = tf.data.Dataset.range(3).interleave(shard, cycle_length=cycle_length, block_length=block_length)
        code = f"tf.data.Dataset.range(3).interleave(shard, cycle_length={cycle_length}, block_length={block_length})"
        return SourceDisplay.from_datasets(sources, output, code=code)
    if transformation == "sample_from_datasets":
        weights = [float(weight_a), float(weight_b), float(weight_c)]
        if sum(weights) <= 0:
            raise ValueError(_("give at least one source a weight above 0."))
        sources = [shard(i) for i in range(3)]
        output = tf.data.Dataset.sample_from_datasets(sources, weights=weights, seed=seed,
                                                      stop_on_empty_dataset=stop_on_empty_dataset)
        shown = ", ".join(f"{w:g}" for w in weights)
        code = (f"tf.data.Dataset.sample_from_datasets([A, B, C], weights=[{shown}], seed={seed}, "
                f"stop_on_empty_dataset={stop_on_empty_dataset})")
        return SourceDisplay.from_datasets(sources, output, code=code)
    if transformation == "window":
        source = tf.data.Dataset.range(12)
        output = source.window(size, shift=shift, stride=stride, drop_remainder=drop_remainder)
        output = output.flat_map(lambda w: w.batch(size))
        code = (f"tf.data.Dataset.range(12).window({size}, shift={shift}, stride={stride}, "
                f"drop_remainder={drop_remainder})")
        return SourceDisplay.from_datasets(source, output, row_name="window", code=code)
    if transformation == "bucket_by_sequence_length":
        edges = sorted(set(int(b) for b in boundaries))
        source = sequences()
        output = source.bucket_by_sequence_length(lambda s: tf.shape(s)[0], bucket_boundaries=edges,
                                                  bucket_batch_sizes=[2] * (len(edges) + 1))
        code = f"sequences.bucket_by_sequence_length(length, bucket_boundaries={edges}, bucket_batch_sizes=[2]*{len(edges) + 1})"
        return SourceDisplay.from_datasets(source, output, key=length_range(edges), code=code)
    raise ValueError(_("transformation must be one of {choices}, got {value}.").format(
        choices=list(TRANSFORMATIONS), value=repr(transformation)))


def _int(value, lo, hi, description):
    return widgets.IntSlider(value=value, min=lo, max=hi, description=description, continuous_update=False,
                             style={"description_width": "initial"})


def _weight(value, description):
    return widgets.FloatSlider(value=value, min=0.0, max=1.0, step=0.1, description=description,
                               continuous_update=False, style={"description_width": "initial"})


def _check(value, description):
    return widgets.Checkbox(value=value, description=description, style={"description_width": "initial"})


def sources_explorer(transformation: str = "interleave") -> Explorer:
    """Pick a transformation and move its controls; the real pipeline runs on every change.

    Only the controls of the chosen transformation are shown: ``cycle_length``
    and ``block_length`` for ``interleave``; the weights of sources A, B, C,
    ``stop_on_empty_dataset`` and ``seed`` for ``sample_from_datasets``;
    ``size``, ``shift``, ``stride`` and ``drop_remainder`` for ``window``; the
    two ``boundaries`` for ``bucket_by_sequence_length``.

    >>> ex = sources_explorer()
    >>> ex.set(cycle_length=3, block_length=1).display.labels[0][:3]
    ['A0', 'B0', 'C0']
    """
    if transformation not in TRANSFORMATIONS:
        raise ValueError(_("transformation must be one of {choices}, got {value}.").format(
            choices=list(TRANSFORMATIONS), value=repr(transformation)))
    controls = {
        # Translators: the name of the choice of tf.data transformations (each option is a method's name).
        "transformation": choice(TRANSFORMATIONS, transformation, _("transformation")),
        "cycle_length": _int(2, 1, 3, "cycle_length"),
        "block_length": _int(3, 1, 4, "block_length"),
        # Translators: a slider's name: the weight sample_from_datasets gives source A, B or C.
        "weight_a": _weight(1.0, _("weight of {source}").format(source="A")),
        "weight_b": _weight(1.0, _("weight of {source}").format(source="B")),
        "weight_c": _weight(1.0, _("weight of {source}").format(source="C")),
        "stop_on_empty_dataset": _check(False, "stop_on_empty_dataset"),
        "seed": _int(0, 0, 20, "seed"),
        # Translators: a slider's name: the size argument of window().
        "size": _int(3, 1, 6, _("window size")),
        "shift": _int(2, 1, 6, "shift"),
        "stride": _int(1, 1, 3, "stride"),
        "drop_remainder": _check(True, "drop_remainder"),
        # Translators: a range slider's name: the bucket_boundaries of bucket_by_sequence_length.
        "boundaries": widgets.IntRangeSlider(value=(3, 6), min=2, max=9, description=_("bucket boundaries"),
                                             continuous_update=False, style={"description_width": "initial"}),
    }

    def applicable(change=None):  # only the chosen transformation's controls are shown: a short panel
        used = TRANSFORMATIONS[controls["transformation"].value]
        for name, control in controls.items():
            if name != "transformation":
                control.disabled = name not in used
                control.layout.display = None if name in used else "none"

    controls["transformation"].observe(applicable, names="value")  # registered first: runs before the redraw
    applicable()

    def compute(transformation, **values):
        return explorer_display(transformation, **values)

    def options(disp, previous):
        # The code line is in the readout; a one-line title draws faster and never overflows.
        return {"title": disp.default_title().splitlines()[-1]}

    def describe(disp, values):
        counts = " &nbsp; ".join(f"{html.escape(k)}: {v}" for k, v in disp.counts.items())
        return f"{code_html(disp.code)}<br>" + html.escape(_("cells per source: {counts}")).format(counts=counts)

    return Explorer(controls, compute, options=options, describe=describe, figsize=(7.5, 4.2),
                    name="sources_explorer")
