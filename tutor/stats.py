"""Pure NumPy statistics about element orders. No TensorFlow here.

An *order* is the sequence of element ids a pipeline emitted, for example
``[2, 0, 1, 3]``. When a dataset of ``n`` ids is repeated, the k-th time an id
appears it is treated as coming from epoch k, so its position in the input
stream is ``k * n + id``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


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
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return sums[inverse] / counts[inverse]


def _as_order(order: Sequence[int], where: str) -> np.ndarray:
    arr = np.asarray(order)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{where} expects a non-empty 1-D sequence of element ids, got shape {arr.shape}.")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(
            f"{where} expects integer element ids (such as the output of Dataset.range(n)), got dtype {arr.dtype}."
        )
    if arr.min() < 0:
        raise ValueError(f"{where} expects element ids >= 0, got {int(arr.min())}.")
    return arr.astype(np.int64)
