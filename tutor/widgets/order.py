"""order_explorer: batch size, repeat count and stage order, drawn as batches."""
from __future__ import annotations

import html
from typing import Callable, NamedTuple

import ipywidgets as widgets
import tensorflow as tf

from ..i18n import gettext as _
from ..order import BatchOrderDisplay
from ._base import Explorer, choice, int_slider
from ._frontend import code_html


class Order(NamedTuple):
    """One stage order: how to build it, its code, and what it feeds into ``batch()``."""

    build: Callable  # (ds, b, r, d, s, k) -> dataset; b=batch_size, r=count, d=drop_remainder, s=seed, k=buffer_size
    template: str
    shuffles: bool
    repeat_before_batch: bool


#: The dropdown's labels are the pipeline's own code; the readout shows it with the current values.
ORDERS = {
    "ds.batch().repeat()": Order(
        lambda ds, b, r, d, s, k: ds.batch(b, drop_remainder=d).repeat(r),
        "ds.batch({b}, drop_remainder={d}).repeat({r})", False, False),
    "ds.repeat().batch()": Order(
        lambda ds, b, r, d, s, k: ds.repeat(r).batch(b, drop_remainder=d),
        "ds.repeat({r}).batch({b}, drop_remainder={d})", False, True),
    "ds.shuffle().batch().repeat()": Order(
        lambda ds, b, r, d, s, k: ds.shuffle(k, seed=s).batch(b, drop_remainder=d).repeat(r),
        "ds.shuffle({k}, seed={s}).batch({b}, drop_remainder={d}).repeat({r})", True, False),
    "ds.batch().shuffle().repeat()": Order(
        lambda ds, b, r, d, s, k: ds.batch(b, drop_remainder=d).shuffle(k, seed=s).repeat(r),
        "ds.batch({b}, drop_remainder={d}).shuffle({k}, seed={s}).repeat({r})", True, False),
    "ds.repeat().shuffle().batch()": Order(
        lambda ds, b, r, d, s, k: ds.repeat(r).shuffle(k, seed=s).batch(b, drop_remainder=d),
        "ds.repeat({r}).shuffle({k}, seed={s}).batch({b}, drop_remainder={d})", True, True),
}

def _order(order: str) -> str:
    if order not in ORDERS:
        raise ValueError(_("order must be one of {choices}, got {value}.").format(
            choices=list(ORDERS), value=repr(order)))
    return order


def pipeline_for(order: str, n_elements: int, batch_size: int, count: int, drop_remainder: bool, seed: int, buffer_size: int):
    """Build one of :data:`ORDERS` over ``Dataset.range(n_elements)``; returns ``(dataset, code)``.

    >>> ds, code = pipeline_for("ds.repeat().batch()", 10, 7, 3, False, 0, 10)
    >>> code
    'ds = tf.data.Dataset.range(10)\\nds.repeat(3).batch(7, drop_remainder=False)'
    """
    spec = ORDERS[_order(order)]
    ds = spec.build(tf.data.Dataset.range(n_elements), batch_size, count, drop_remainder, seed, buffer_size)
    code = spec.template.format(b=batch_size, r=count, d=drop_remainder, s=seed, k=buffer_size)
    return ds, f"ds = tf.data.Dataset.range({n_elements})\n{code}"


def what_happened(disp: BatchOrderDisplay, values: dict, n_elements: int) -> str:
    """One sentence on what the pipeline did with the elements: empty results and dropped elements explained.

    >>> disp = BatchOrderDisplay([], code="ds.batch(12, drop_remainder=True).repeat(1)")
    >>> what_happened(disp, dict(order="ds.batch().repeat()", batch_size=12, count=1, drop_remainder=True), 10)
    'drop_remainder dropped every batch: batch_size=12 > the 10 elements that reach batch()'
    """
    spec = ORDERS[_order(values["order"])]
    reaching = n_elements * (values["count"] if spec.repeat_before_batch else 1)
    if not disp.batches:
        if values["drop_remainder"] and values["batch_size"] > reaching:
            return _("drop_remainder dropped every batch: batch_size={batch_size} > the {n} elements that reach "
                     "batch()").format(batch_size=values["batch_size"], n=reaching)
        return _("the pipeline emitted nothing")
    dropped = n_elements * values["count"] - len(disp.order)
    if disp.truncated:
        return _("the first {n} batches").format(n=len(disp.batches))
    if dropped > 0:
        return _("drop_remainder dropped {dropped} of {n} elements (short batches)").format(
            dropped=dropped, n=n_elements * values["count"])
    return disp.notes()


def order_explorer(
    n_elements: int = 10, batch_size: int = 4, count: int = 3, order: str = "ds.repeat().batch()", seed: int = 0
) -> Explorer:
    """Batch size, repeat ``count``, ``drop_remainder`` and the stage order, drawn as rows of batches.

    The dropdown lists the pipelines as code; the full line with the current
    values is in the readout. ``buffer_size`` and ``seed`` are greyed out for
    the orders without a shuffle, and an empty result says why it is empty.

    >>> ex = order_explorer()
    >>> ex.set(batch_size=7, count=3, order="ds.batch().repeat()").display.batch_sizes
    [7, 3, 7, 3, 7, 3]
    """
    order = _order(order)
    pipeline_for(order, n_elements, batch_size, count, False, seed, n_elements)  # validates early
    controls = {
        "batch_size": int_slider(batch_size, 1, 12, "batch_size"),
        # Translators: a slider's name: the count given to repeat(), how many times the data is read.
        "count": int_slider(count, 1, 4, _("repeat count")),
        "drop_remainder": widgets.Checkbox(value=False, description="drop_remainder", style={"description_width": "initial"}),
        # Translators: the name of the choice of pipelines (each option is a line of code).
        "order": choice(ORDERS, order, _("pipeline")),
        # Translators: a slider's name: the buffer_size argument of shuffle() (keep buffer_size as it is).
        "buffer_size": int_slider(n_elements, 1, 3 * n_elements, _("shuffle buffer_size")),
        "seed": int_slider(seed, 0, 20, "seed"),
    }

    def applicable(change=None):
        no_shuffle = not ORDERS[controls["order"].value].shuffles
        controls["buffer_size"].disabled = controls["seed"].disabled = no_shuffle

    controls["order"].observe(applicable, names="value")  # registered first: runs before the redraw
    applicable()

    def compute(batch_size, count, drop_remainder, order, buffer_size, seed):
        ds, code = pipeline_for(order, n_elements, batch_size, count, drop_remainder, seed, buffer_size)
        disp = BatchOrderDisplay.from_dataset(ds, max_batches=40, code=code.splitlines()[-1])
        disp.note = what_happened(disp, dict(order=order, batch_size=batch_size, count=count,
                                             drop_remainder=drop_remainder), n_elements)
        return disp

    def options(disp, previous):
        return {"title": disp.note}  # one line; the code is in the readout

    def describe(disp, values):
        # Translators: the readout's list of batch sizes when there is no batch.
        sizes = ", ".join(map(str, disp.batch_sizes)) or _("none")
        lines = [_("batch sizes: {sizes}").format(sizes=sizes),
                 _("batches mixing epochs: {n}").format(n=len(disp.mixed_batches))]
        return f"{code_html(disp.code)}<br><b>{html.escape(disp.note)}</b><br>" + "<br>".join(
            html.escape(line) for line in lines)

    return Explorer(controls, compute, options=options, describe=describe, figsize=(7.5, 4.6), name="order_explorer",
                    precompute=True)
