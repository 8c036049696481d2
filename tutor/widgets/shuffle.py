"""shuffle_explorer: move the buffer size and watch the order change."""
from __future__ import annotations

import ipywidgets as widgets

from ..shuffle import ShuffleDisplay
from ._base import Explorer, int_slider


def shuffle_explorer(n_elements: int = 100, buffer_size: int = 10, seed: int = 0, epochs: int = 1) -> Explorer:
    """Sliders for ``buffer_size``, ``seed`` and ``epochs`` plus the reshuffle toggle.

    Every change runs ``Dataset.range(n_elements).shuffle(...).repeat(epochs)`` for real.

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

    def compute(buffer_size, seed, epochs, reshuffle_each_iteration):
        return ShuffleDisplay.from_params(n_elements=n_elements, buffer_size=buffer_size, seed=seed, epochs=epochs,
                                          reshuffle_each_iteration=reshuffle_each_iteration)

    def describe(disp, values):
        s = disp.stats
        return (
            f"<b>buffer_size={values['buffer_size']}</b>, seed={values['seed']}, epochs={values['epochs']}: "
            f"Spearman {s['rank_correlation']:.2f}, max moved earlier {s['max_moved_earlier']}, "
            f"mean move {s['mean_abs_displacement']:.1f}"
        )

    return Explorer(controls, compute, describe=describe, figsize=(7.5, 4.4), columns=2, name="shuffle_explorer")
