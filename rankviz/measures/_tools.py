"""Building blocks shared by the measure kernels (NumPy only).

A kernel reduces the *hits* of a :class:`rankviz._core.judged.Judged` value (the judged
items with a positive grade, sorted by cell then rank) to one value per cell. Two
views of the hits are prepared once per call by :func:`rankviz.measures.dispatch.compute` and
handed to the family's kernels:

* :class:`Hits` (:func:`positions`): every hit's cell, position and grade under a
  deterministic tie order (``trec_eval``, ``optimistic`` or ``pessimistic``);
* :class:`TieGroups` (:func:`tie_groups`): the tie groups that hold hits, for the
  closed-form expectation over all orderings of each group (``ties='expected'``).

Examples
--------
>>> import numpy as np
>>> cap(10, None), cap(10, 5), cap(None, None)
(10.0, 5.0, inf)
>>> segment_first(np.array([0, 0, 1, 3, 3]))
array([ True, False,  True,  True, False])
>>> rank_within_cell(np.array([0, 0, 1, 3, 3, 3]))
array([0, 1, 0, 0, 1, 2])
>>> first_in_cell(np.array([0, 0, 2]), np.array([3.0, 5.0, 1.0]), 4, fill=np.nan)
array([ 3., nan,  1., nan])
>>> divide(np.array([1.0, 2.0, 3.0]), np.array([2, 0, 3]))
array([0.5, 0. , 1. ])
>>> harmonic(np.array([0.0, 1.0, 3.0])).round(6)
array([0.      , 1.      , 1.833333])
>>> float(np.exp(log_comb(5.0, 2.0)).round(6))
10.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from .._core.judged import Judged

__all__ = [
    "Hits",
    "TieGroups",
    "cap",
    "segment_first",
    "rank_within_cell",
    "first_in_cell",
    "count_per_cell",
    "divide",
    "positions",
    "tie_groups",
    "expected_count_in_top",
    "harmonic",
    "log_comb",
    "cumsum_in_cell",
    "count_above",
    "suffix_max_in_cell",
    "sum_up_to",
    "judged_count",
    "lround",
]

_EULER = 0.5772156649015329


class Hits(NamedTuple):
    """The hits under one tie order, sorted by cell then position.

    Attributes
    ----------
    cell : ndarray of int
        Cell (system x query) of each hit.
    pos : ndarray of float64
        1-based position in the ranked list under the tie order (not capped by ``depth``).
    grade : ndarray
        Judged grade of each hit.
    """

    cell: np.ndarray
    pos: np.ndarray
    grade: np.ndarray


class TieGroups(NamedTuple):
    """The tie groups that hold hits, sorted by cell then by the items above them.

    Attributes
    ----------
    cell : ndarray of int
        Cell of each group.
    above : ndarray of float64
        Items scored strictly higher than the group (``s``).
    size : ndarray of float64
        Members of the group (``n``), judged or not.
    relevant : ndarray of float64
        Members with a grade >= ``rel`` (``r``).
    gid : ndarray of int
        Group index of every hit (hits in cell-then-``above`` order).
    grade : ndarray
        Grade of every hit, in the same order as ``gid``.
    """

    cell: np.ndarray
    above: np.ndarray
    size: np.ndarray
    relevant: np.ndarray
    gid: np.ndarray
    grade: np.ndarray


def cap(k: int | None, depth: int | None) -> float:
    """The effective cutoff: ``min(k, depth)``, or infinity for the whole list."""
    values = [v for v in (k, depth) if v is not None]
    return float(min(values)) if values else np.inf


def segment_first(cells: np.ndarray) -> np.ndarray:
    """Mask of the first element of each run of equal values in a sorted array."""
    first = np.ones(len(cells), dtype=bool)
    first[1:] = cells[1:] != cells[:-1]
    return first


def rank_within_cell(cells: np.ndarray) -> np.ndarray:
    """0-based index of each element inside its run of equal (sorted) cell values."""
    first = segment_first(cells)
    starts = np.flatnonzero(first)
    lengths = np.diff(np.r_[starts, len(cells)])
    return np.arange(len(cells)) - np.repeat(starts, lengths)


def first_in_cell(cells: np.ndarray, values: np.ndarray, n_cells: int, *, fill: float = 0.0) -> np.ndarray:
    """Per cell, the value of its first element (``cells`` sorted), ``fill`` for cells without one."""
    out = np.full(n_cells, fill, dtype=np.float64)
    first = segment_first(cells)
    out[cells[first]] = values[first]
    return out


def count_per_cell(cells: np.ndarray, mask: np.ndarray, n_cells: int) -> np.ndarray:
    """How many elements of each cell pass ``mask`` (float64)."""
    return np.bincount(cells[mask], minlength=n_cells).astype(np.float64)


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` per cell, 0 where the denominator is 0 (trec_eval's convention)."""
    out = np.zeros(len(numerator))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def positions(j: Judged, ties: str) -> Hits:
    """Cell, position and grade of every hit under a deterministic tie order, sorted by cell then position.

    ``ties='trec_eval'`` keeps trec_eval's order (doc id descending within a tie
    group); ``'optimistic'`` puts a group's hits first (highest grade first),
    ``'pessimistic'`` last (lowest grade first, after the group's non-relevant items).
    """
    if ties == "trec_eval":
        return Hits(j.hit_cell, j.hit_rank.astype(np.float64), j.hit_grade)
    grade = j.hit_grade
    direction = -grade if ties == "optimistic" else grade
    order = np.lexsort((direction, j.hit_above, j.hit_cell))
    cell, above, tied, grade = j.hit_cell[order], j.hit_above[order], j.hit_tied[order], grade[order]
    group_key_change = np.ones(len(cell), dtype=bool)
    group_key_change[1:] = (cell[1:] != cell[:-1]) | (above[1:] != above[:-1])
    starts = np.flatnonzero(group_key_change)
    sizes = np.diff(np.r_[starts, len(cell)])
    place = np.arange(len(cell)) - np.repeat(starts, sizes)
    if ties == "optimistic":
        pos = above + place + 1
    else:
        hits_in_group = np.repeat(sizes, sizes)
        pos = above + tied - hits_in_group + place + 1
    resort = np.lexsort((pos, cell))
    return Hits(cell[resort], pos[resort].astype(np.float64), grade[resort])


def tie_groups(j: Judged, rel: int) -> TieGroups:
    """The tie groups holding hits, with their size and number of members of grade >= ``rel``."""
    cell, above, tied, grade = j.hit_cell, j.hit_above, j.hit_tied, j.hit_grade
    order = np.lexsort((above, cell))
    cell, above, tied, grade = cell[order], above[order], tied[order], grade[order]
    change = np.ones(len(cell), dtype=bool)
    change[1:] = (cell[1:] != cell[:-1]) | (above[1:] != above[:-1])
    gid = np.cumsum(change) - 1
    n_groups = int(gid[-1]) + 1 if len(gid) else 0
    relevant = np.bincount(gid, weights=(grade >= rel).astype(np.float64), minlength=n_groups)
    return TieGroups(
        cell[change], above[change].astype(np.float64), tied[change].astype(np.float64), relevant, gid, grade
    )


def expected_count_in_top(g: TieGroups, limit, n_cells: int, hits: np.ndarray | None = None) -> np.ndarray:
    """Expected relevant items ranked at or above ``limit`` per cell, over all orderings of every tie group.

    A group with ``n`` members, ``s`` items above it and ``r`` relevant members puts
    ``t = clip(limit - s, 0, n)`` of its positions inside the limit, each holding a
    relevant member with probability ``r / n``. ``limit`` is a number or one value per group.
    ``hits`` (a mask over the groups' hits, in ``g.gid`` order) counts other members instead
    of the relevant ones (the judged ones, say).
    """
    t = np.clip(limit - g.above, 0, g.size)
    members = g.relevant if hits is None else np.bincount(g.gid, weights=hits.astype(np.float64), minlength=len(g.cell))
    return np.bincount(g.cell, weights=members * t / g.size, minlength=n_cells)


def count_above(cells: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per element: the elements of its cell before it (``cells`` sorted) that pass ``mask``.

    Examples
    --------
    >>> count_above(np.array([0, 0, 0, 1]), np.array([True, False, True, True]))
    array([0., 1., 1., 0.])
    """
    flags = mask.astype(np.float64)
    return cumsum_in_cell(cells, flags) - flags


def harmonic(x: np.ndarray) -> np.ndarray:
    """Harmonic numbers H(x) = sum_{i=1}^{x} 1/i, for real x >= 0."""
    from scipy.special import digamma  # only ties="expected" needs scipy: keep it off the import path

    return digamma(np.asarray(x, dtype=np.float64) + 1.0) + _EULER


def log_comb(n, r):
    """Natural log of the binomial coefficient C(n, r), for real arguments."""
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(r + 1.0) - gammaln(n - r + 1.0)


def cumsum_in_cell(cells: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Inclusive running sum of ``values`` inside each run of equal (sorted) ``cells``.

    Examples
    --------
    >>> cumsum_in_cell(np.array([0, 0, 2, 2, 2]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    array([ 1.,  3.,  3.,  7., 12.])
    """
    total = np.cumsum(values, dtype=np.float64)
    first = segment_first(cells)
    starts = np.flatnonzero(first)
    before = total[starts] - values[starts]
    return total - np.repeat(before, np.diff(np.r_[starts, len(cells)]))


def suffix_max_in_cell(cells: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Maximum of ``values[i:]`` within each run of equal (sorted) ``cells``, exactly (each result is an input value).

    trec_eval's interpolated precision compares the precisions themselves, so no value may be
    rounded on the way: the values are replaced by their rank among the distinct values (exact
    integers), lifted by the cell's position so that one running maximum never crosses cells.

    Examples
    --------
    >>> suffix_max_in_cell(np.array([0, 0, 0, 1, 1]), np.array([0.2, 0.5, 0.1, 0.3, 0.2]))
    array([0.5, 0.5, 0.1, 0.3, 0.2])
    >>> float(suffix_max_in_cell(np.array([0, 1]), np.array([0.5, 9 / 160]))[1]) == 9 / 160
    True
    """
    if not len(cells):
        return np.zeros(0)
    levels, rank = np.unique(values, return_inverse=True)
    segment = np.cumsum(segment_first(cells[::-1])) - 1  # 0 for the last cell, 1 for the one before, ...
    lift = segment.astype(np.int64) * len(levels)
    best = np.maximum.accumulate(rank.reshape(-1)[::-1].astype(np.int64) + lift) - lift
    return levels[best][::-1]


def sum_up_to(cells: np.ndarray, pos: np.ndarray, values: np.ndarray, at_cells: np.ndarray, at_pos) -> np.ndarray:
    """For each query ``(at_cells[i], at_pos[i])``: the sum of ``values`` of the elements of that cell with ``pos <= at_pos``.

    ``cells`` and ``pos`` are sorted by cell, then position (as the hits are).

    Examples
    --------
    >>> sum_up_to(np.array([0, 0, 1]), np.array([1.0, 3.0, 2.0]), np.array([1.0, 10.0, 5.0]),
    ...           np.array([0, 0, 1, 2]), np.array([2, 3, 1, 9]))
    array([ 1., 11.,  0.,  0.])
    """
    if not len(cells):
        return np.zeros(len(at_cells))
    scale = float(max(np.max(pos), np.max(at_pos) if np.size(at_pos) else 0.0)) + 1.0
    keys = cells * scale + pos
    total = np.r_[0.0, np.cumsum(values, dtype=np.float64)]
    upto = np.searchsorted(keys, at_cells * scale + at_pos, side="right")
    start = np.searchsorted(keys, at_cells * scale, side="left")
    return total[upto] - total[start]


def judged_count(j: Judged) -> np.ndarray:
    """Judged items (grade >= 0) per cell in the judgements, retrieved or not."""
    return np.diff(j.group_offsets)[j.cell_group].astype(np.float64)


def lround(x) -> np.ndarray:
    """C's ``lround``: the nearest integer, halves away from zero (NumPy's ``round`` takes halves to even).

    Examples
    --------
    >>> lround(np.array([0.5, 1.5, 2.5, 2.4])).tolist()
    [1, 2, 3, 2]
    """
    x = np.asarray(x, dtype=np.float64)
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int64)
