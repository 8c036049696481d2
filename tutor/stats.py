"""Pure NumPy statistics about element orders. No TensorFlow here.

An *order* is the sequence of element ids a pipeline emitted, for example
``[2, 0, 1, 3]``. When a dataset of ``n`` ids is repeated, the k-th time an id
appears it is treated as coming from epoch k, so its position in the input
stream is ``k * n + id``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .i18n import gettext as _


def epochs_of(order: Sequence[int]) -> np.ndarray:
    """Epoch index of each emitted id: how many times that id was seen before.

    >>> epochs_of([0, 1, 0, 1]).tolist()
    [0, 0, 1, 1]
    """
    order = np.asarray(order, dtype=np.int64).ravel()
    seen: dict[int, int] = {}
    out = np.empty(order.shape, dtype=np.int64)
    for pos, element in enumerate(order.tolist()):
        out[pos] = seen.get(element, 0)
        seen[element] = out[pos] + 1
    return out


def input_positions(order: Sequence[int], n_elements: int | None = None) -> np.ndarray:
    """Where each emitted element sat in the (repeated) input stream.

    >>> input_positions([1, 0, 0, 1], n_elements=2).tolist()
    [1, 0, 2, 3]
    """
    order = _as_order(order, "input_positions")
    n = int(order.max()) + 1 if n_elements is None else int(n_elements)
    return epochs_of(order) * n + order


def shuffle_stats(order: Sequence[int], n_elements: int | None = None) -> dict[str, float]:
    """Summarise how far a shuffle moved elements.

    Parameters
    ----------
    order : sequence of int
        Element ids in output order, e.g. ``ShuffleDisplay.order``.
    n_elements : int, optional
        Size of one epoch; defaults to ``max(order) + 1``.

    Returns
    -------
    dict with
        ``max_moved_earlier``: the most places any element moved toward the
        front (a shuffle buffer of size B allows at most B - 1);
        ``max_moved_later``: the most places any element moved back;
        ``mean_abs_displacement``: average distance moved, in places;
        ``rank_correlation``: Spearman correlation between input and output
        position (1.0 means untouched order, about 0 means well mixed);
        ``fraction_in_place``: share of elements that did not move.

    Examples
    --------
    >>> shuffle_stats([0, 1, 2])["rank_correlation"]
    1.0
    >>> shuffle_stats([1, 0, 2])["max_moved_earlier"]
    1
    """
    order = _as_order(order, "shuffle_stats")
    src = input_positions(order, n_elements)
    dst = np.arange(order.size)
    moved = src - dst  # positive: came out earlier than it went in
    return {
        "max_moved_earlier": int(max(moved.max(), 0)),
        "max_moved_later": int(max(-moved.min(), 0)),
        "mean_abs_displacement": float(np.abs(moved).mean()),
        "rank_correlation": spearman(src, dst),
        "fraction_in_place": float((moved == 0).mean()),
    }


def epoch_stats(order: Sequence[int], n_elements: int | None = None) -> list[dict[str, float]]:
    """:func:`shuffle_stats` of each epoch on its own, plus whether it repeats epoch 1's order.

    Statistics over a whole repeated stream mix two things: how well each
    epoch is shuffled, and the fact that epoch 2 comes after epoch 1 (which
    makes the correlation with the input order rise with every epoch). Per
    epoch, each element's input position is its id and its output position
    is its place inside that epoch's share of the stream.

    Returns one dict per epoch: the keys of :func:`shuffle_stats`, plus
    ``moved`` (how many elements left their place), ``size`` (elements in
    that epoch) and ``same_as_first`` (True when the epoch repeats epoch 1's order).

    >>> [e["same_as_first"] for e in epoch_stats([1, 0, 2, 1, 0, 2])]
    [True, True]
    >>> epoch_stats([0, 2, 1])[0]["moved"]
    2
    >>> epoch_stats([0, 1, 2, 2, 1, 0])[1]["rank_correlation"]
    -1.0
    """
    order = _as_order(order, "epoch_stats")
    epochs = epochs_of(order)
    first = order[epochs == 0]
    result = []
    for e in range(int(epochs.max()) + 1):
        part = order[epochs == e]
        stats = shuffle_stats(part, n_elements)
        stats["moved"] = int((part != np.arange(part.size)).sum())  # input position = id, as in shuffle_stats
        stats["size"] = int(part.size)
        stats["same_as_first"] = bool(part.size == first.size and np.array_equal(part, first))
        result.append(stats)
    return result


def format_correlation(value: float, *, changed: bool = True, decimals: int = 2) -> str:
    """``value`` with at least ``decimals`` decimals, and more where needed so that a changed order never reads as 1 or -1.

    A single swap among 100 elements has a Spearman correlation of 0.99999;
    at two decimals it would print as 1.00, as if nothing had moved.
    ``changed=False`` (the order is the input order) prints the exact value.

    >>> format_correlation(0.9999879998, changed=True)
    '0.99999'
    >>> format_correlation(1.0, changed=False)
    '1.00'
    >>> format_correlation(0.42)
    '0.42'
    """
    value = float(value)
    if not changed:
        return f"{value:.{decimals}f}"
    for places in range(decimals, 13):
        text = f"{value:.{places}f}"
        if abs(float(text)) < 1.0:
            return text
    # A correlation of exactly +-1 with a changed order: a permutation that only looks ordered (e.g. ties).
    return f"{value:.{decimals}f}"


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman rank correlation of two equal-length sequences (ties averaged).

    >>> spearman([1, 2, 3], [3, 2, 1])
    -1.0
    """
    ra, rb = _ranks(np.asarray(a, dtype=float)), _ranks(np.asarray(b, dtype=float))
    if ra.size < 2 or ra.std() == 0 or rb.std() == 0:
        return 1.0 if ra.size < 2 else 0.0
    return float(round(np.corrcoef(ra, rb)[0, 1], 12))


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(x.size, dtype=float)
    ranks[order] = np.arange(x.size, dtype=float)
    # average the ranks of ties
    _values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return sums[inverse] / counts[inverse]


def _as_order(order: Sequence[int], where: str) -> np.ndarray:
    arr = np.asarray(order)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(_("{where} expects a non-empty 1-D sequence of element ids, got shape {shape}.").format(
            where=where, shape=arr.shape))
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(_(
            "{where} expects integer element ids (such as the output of Dataset.range(n)), got dtype {dtype}."
        ).format(where=where, dtype=arr.dtype))
    if arr.min() < 0:
        raise ValueError(_("{where} expects element ids >= 0, got {value}.").format(where=where, value=int(arr.min())))
    return arr.astype(np.int64)
