"""shuffle_explorer: move the buffer size and watch the order change, epoch by epoch."""
from __future__ import annotations

import ipywidgets as widgets

from .. import markup
from ..i18n import N_
from ..i18n import gettext as _
from ..shuffle import ShuffleDisplay
from ..stats import format_correlation
from ._base import Explorer, int_slider
from ._frontend import code_html

TITLE = N_("Input id against output position")

MEANING = N_("Each epoch on its own. Spearman ρ: rank correlation of the output order with the input order "
           "(1 = order kept, 0 = no trace of it). Earliest: the most places an element came out early "
           "(at most buffer_size − 1).")


def shuffle_explorer(n_elements: int = 100, buffer_size: int = 10, seed: int = 0, epochs: int = 1) -> Explorer:
    """Sliders for ``buffer_size``, ``seed`` and ``epochs`` plus the reshuffle toggle.

    Every change runs ``Dataset.range(n_elements).shuffle(...).repeat(epochs)``
    for real. The readout gives each epoch's statistics on its own
    (:func:`tutor.stats.epoch_stats`); ``reshuffle_each_iteration`` is greyed
    out while there is only one epoch, where it changes nothing.

    >>> ex = shuffle_explorer(n_elements=20)
    >>> ex.controls["buffer_size"].value = 1
    >>> ex.display.order.tolist() == list(range(20))
    True
    """
    ShuffleDisplay.from_params(n_elements=n_elements, buffer_size=buffer_size, seed=seed, epochs=epochs)  # validates
    controls = {
        "buffer_size": int_slider(buffer_size, 1, max(2 * n_elements, 2), "buffer_size"),
        "seed": int_slider(seed, 0, 20, "seed"),
        "epochs": int_slider(epochs, 1, 4, "epochs"),
        "reshuffle_each_iteration": widgets.Checkbox(
            value=True, description="reshuffle_each_iteration", style={"description_width": "initial"}
        ),
    }

    def applicable(change=None):
        controls["reshuffle_each_iteration"].disabled = controls["epochs"].value == 1

    controls["epochs"].observe(applicable, names="value")  # registered first: runs before the redraw
    applicable()

    def compute(buffer_size, seed, epochs, reshuffle_each_iteration):
        return ShuffleDisplay.from_params(n_elements=n_elements, buffer_size=buffer_size, seed=seed, epochs=epochs,
                                          reshuffle_each_iteration=reshuffle_each_iteration)

    def describe(disp, values):
        code = (f"Dataset.range({n_elements}).shuffle(buffer_size={values['buffer_size']}, seed={values['seed']}, "
                f"reshuffle_each_iteration={values['reshuffle_each_iteration']}).repeat({values['epochs']})")
        rows = []
        for e, s in enumerate(disp.epoch_stats):
            rho = format_correlation(s["rank_correlation"], changed=s["moved"] > 0)
            # Translators: in the readout's epoch column: this epoch came out in the same order as epoch 1.
            epoch = _("{epoch} (= epoch 1)").format(epoch=e + 1) if e and s["same_as_first"] else str(e + 1)
            # Translators: in the readout's "moved" column, e.g. "93 of 100" elements moved.
            moved = _("{moved} of {size}").format(moved=s["moved"], size=s["size"])
            rows.append([epoch, rho, moved, s["max_moved_earlier"]])
        # Translators: the readout's column headings; "earliest" is the most places an element came out early.
        header = [_("epoch"), "Spearman ρ", _("moved"), _("earliest")]
        table = markup.table(rows, header=header)
        return f"{code_html(code)}{table}<small>{markup.escape(_(MEANING))}</small>"

    return Explorer(controls, compute, options=lambda disp, previous: {"title": _(TITLE)}, describe=describe,
                    figsize=(7.0, 4.4), name="shuffle_explorer", precompute=True)
