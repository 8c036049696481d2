"""order_explorer: batch size, repeat count and stage order, drawn as batches."""
from __future__ import annotations

import html

import ipywidgets as widgets
import tensorflow as tf

from ..order import BatchOrderDisplay
from ._base import Explorer, int_slider

#: stage order -> (pipeline, code template). b=batch_size, r=count, d=drop_remainder, s=seed, k=buffer_size
ORDERS = {
    "batch→repeat": (
        lambda ds, b, r, d, s, k: ds.batch(b, drop_remainder=d).repeat(r),
        "ds.batch({b}, drop_remainder={d}).repeat({r})",
    ),
    "repeat→batch": (
        lambda ds, b, r, d, s, k: ds.repeat(r).batch(b, drop_remainder=d),
        "ds.repeat({r}).batch({b}, drop_remainder={d})",
    ),
    "shuffle→batch→repeat": (
        lambda ds, b, r, d, s, k: ds.shuffle(k, seed=s).batch(b, drop_remainder=d).repeat(r),
        "ds.shuffle({k}, seed={s}).batch({b}, drop_remainder={d}).repeat({r})",
    ),
    "batch→shuffle": (
        lambda ds, b, r, d, s, k: ds.batch(b, drop_remainder=d).shuffle(k, seed=s).repeat(r),
        "ds.batch({b}, drop_remainder={d}).shuffle({k}, seed={s}).repeat({r})",
    ),
    "repeat→shuffle": (
        lambda ds, b, r, d, s, k: ds.repeat(r).shuffle(k, seed=s).batch(b, drop_remainder=d),
        "ds.repeat({r}).shuffle({k}, seed={s}).batch({b}, drop_remainder={d})",
    ),
}


def pipeline_for(order: str, n_elements: int, batch_size: int, count: int, drop_remainder: bool, seed: int, buffer_size: int):
    """Build one of :data:`ORDERS` over ``Dataset.range(n_elements)``; returns ``(dataset, code)``.

    >>> ds, code = pipeline_for("repeat→batch", 10, 7, 3, False, 0, 10)
    >>> code
    'ds = tf.data.Dataset.range(10)\\nds.repeat(3).batch(7, drop_remainder=False)'
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {list(ORDERS)}, got {order!r}.")
    build, template = ORDERS[order]
    ds = build(tf.data.Dataset.range(n_elements), batch_size, count, drop_remainder, seed, buffer_size)
    code = template.format(b=batch_size, r=count, d=drop_remainder, s=seed, k=buffer_size)
    return ds, f"ds = tf.data.Dataset.range({n_elements})\n{code}"


def order_explorer(
    n_elements: int = 10, batch_size: int = 4, count: int = 3, order: str = "repeat→batch", seed: int = 0
) -> Explorer:
    """Batch size, repeat ``count``, ``drop_remainder`` and the stage order, drawn as rows of batches.

    The pipeline's code line is shown above the picture.

    >>> ex = order_explorer()
    >>> ex.set(batch_size=7, count=3, order="batch→repeat").display.batch_sizes
    [7, 3, 7, 3, 7, 3]
    """
    pipeline_for(order, n_elements, batch_size, count, False, seed, n_elements)  # validates early
    controls = {
        "batch_size": int_slider(batch_size, 1, 12, "batch_size"),
        "count": int_slider(count, 1, 4, "repeat count"),
        "drop_remainder": widgets.Checkbox(value=False, description="drop_remainder", style={"description_width": "initial"}),
        "order": widgets.Dropdown(options=list(ORDERS), value=order, description="stage order"),
        "buffer_size": int_slider(n_elements, 1, 3 * n_elements, "shuffle buffer_size"),
        "seed": int_slider(seed, 0, 20, "seed"),
    }

    def compute(batch_size, count, drop_remainder, order, buffer_size, seed):
        ds, code = pipeline_for(order, n_elements, batch_size, count, drop_remainder, seed, buffer_size)
        return BatchOrderDisplay.from_dataset(ds, max_batches=40, code=code.splitlines()[-1])

    def draw(disp, fig, previous):
        rows = max(len(disp.batches), 1)
        fig.set_size_inches(7.5, min(1.6 + 0.36 * rows, 9))
        ax = fig.axes[0]
        ax.clear()
        # The code line is in the readout above the picture; a one-line title draws faster.
        disp.plot(ax=ax, title=disp.default_title().splitlines()[-1])

    def describe(disp, values):
        code = html.escape(disp.code)
        sizes = ", ".join(map(str, disp.batch_sizes))
        mixed = len(disp.mixed_batches)
        return f"<code>{code}</code><br>batch sizes: {sizes} &nbsp; batches mixing epochs: {mixed}"

    explorer = Explorer(controls, compute, draw=draw, describe=describe, figsize=(7.5, 4.0), columns=3, name="order_explorer", margins={"right": 0.85})
    return explorer
