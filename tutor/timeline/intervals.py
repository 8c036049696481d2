"""Interval geometry (pure NumPy): lengths of unions and overlaps, lanes for overlapping intervals, and a cap
on how many may overlap."""
from __future__ import annotations

import heapq

import numpy as np


def merge_intervals(starts, ends) -> tuple[np.ndarray, np.ndarray]:
    """The union of the intervals ``[starts[i], ends[i]]`` as sorted, disjoint intervals.

    >>> [a.tolist() for a in merge_intervals(np.array([0.0, 1.0, 5.0]), np.array([2.0, 3.0, 6.0]))]
    [[0.0, 5.0], [3.0, 6.0]]
    """
    starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if len(starts) == 0:
        return starts, ends
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], np.maximum.accumulate(ends[order])
    new = np.concatenate([[True], starts[1:] > ends[:-1]])
    last = np.concatenate([np.flatnonzero(new)[1:] - 1, [len(starts) - 1]])
    return starts[new], ends[last]


def union_length(starts, ends) -> float:
    """Total length covered by the intervals ``[starts[i], ends[i]]`` (overlaps counted once).

    >>> union_length(np.array([0.0, 1.0, 5.0]), np.array([2.0, 3.0, 6.0]))
    4.0
    """
    merged_starts, merged_ends = merge_intervals(starts, ends)
    return float(np.sum(merged_ends - merged_starts))


def overlap_length(a_starts, a_ends, b_starts, b_ends) -> float:
    """Length of (union of intervals A) intersected with (union of intervals B).

    For two unions, ``|A and B| = |A| + |B| - |A or B|``: three merges, no loop.

    >>> overlap_length([0.0, 4.0], [2.0, 6.0], [1.0], [5.0])
    2.0
    """
    a0, a1 = merge_intervals(a_starts, a_ends)
    b0, b1 = merge_intervals(b_starts, b_ends)
    if len(a0) == 0 or len(b0) == 0:
        return 0.0
    both = union_length(np.concatenate([a0, b0]), np.concatenate([a1, b1]))
    return max(float(np.sum(a1 - a0) + np.sum(b1 - b0)) - both, 0.0)


def assign_lanes(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Give overlapping bars different lanes (0, 1, ...) so parallel work is visible.

    Each bar, in order of its start, takes the lowest lane that is free by
    then (two heaps: O(n log n), however many bars overlap).

    >>> assign_lanes(np.array([0.0, 0.5, 2.0]), np.array([1.0, 1.5, 3.0])).tolist()
    [0, 1, 0]
    """
    lanes = np.zeros(len(starts), dtype=np.int64)
    busy: list[tuple[float, int]] = []  # (free at, lane) of lanes in use
    free: list[int] = []                # lanes free again, lowest first
    n_lanes = 0
    for j in np.argsort(starts, kind="stable").tolist():
        start = float(starts[j])
        while busy and busy[0][0] <= start + 1e-9:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            lane = heapq.heappop(free)
        else:
            lane, n_lanes = n_lanes, n_lanes + 1
        lanes[j] = lane
        heapq.heappush(busy, (float(ends[j]), lane))
    return lanes


def cap_overlap(starts: np.ndarray, ends: np.ndarray, most: int) -> np.ndarray:
    """``ends``, cut so that at most ``most`` of the intervals overlap at any time.

    Taken in order of start, an interval that begins while ``most`` others are
    still open ends the one of them that ends first: its end is moved back to
    the new start. A stage that allows ``most`` calls at once starts the next
    call only after one has handed over its result, so the part cut off is the
    finished call's thread tidying up (or waiting for a core) after that.

    >>> cap_overlap(np.array([0.0, 0.9, 2.0]), np.array([1.0, 1.5, 3.0]), 1).tolist()
    [0.9, 1.5, 3.0]
    >>> cap_overlap(np.array([0.0, 0.9, 2.0]), np.array([1.0, 1.5, 3.0]), 2).tolist()
    [1.0, 1.5, 3.0]
    """
    if most < 1:
        raise ValueError(f"cap_overlap: most must be 1 or more, got {most!r}.")
    starts, ends = np.asarray(starts, dtype=float), np.array(ends, dtype=float)
    open_: list[tuple[float, int]] = []  # (end, index) of the intervals still open, earliest end first
    for j in np.argsort(starts, kind="stable").tolist():
        start = float(starts[j])
        while open_ and open_[0][0] <= start:
            heapq.heappop(open_)
        if len(open_) >= most:
            _, k = heapq.heappop(open_)
            ends[k] = max(start, float(starts[k]))
        heapq.heappush(open_, (float(ends[j]), j))
    return ends
