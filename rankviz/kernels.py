"""Vectorised per-query measure kernels over the canonical arrays (NumPy only).

Every function takes a :class:`rankviz._judged.Judged` and returns one value per
cell (system x query). Only the *hits* (judged items with a positive grade) are
touched; no Python loop runs per query.

Ties
----
``ties`` chooses how items with equal scores are ordered:

``"trec_eval"``
    doc id descending, byte order (trec_eval's ``comp_sim_docno``);
``"optimistic"`` / ``"pessimistic"``
    within each tie group the hits come first (highest grade first) or last
    (lowest grade first, after every non-relevant item of the group);
``"expected"``
    the exact expectation over all orderings of every tie group (McSherry &
    Najork, ECIR 2008), in closed form. For a tie group with ``n`` members, ``s``
    items above it and ``r`` relevant members, a member lands on each of the
    positions ``s+1 .. s+n`` with probability ``1/n``, which gives

    * DCG: ``mean_gain(group) * sum_{i=s+1}^{s+n} disc(i)``;
    * relevant items in the top ``k`` (P, R, R-prec): ``r * t / n`` with
      ``t = clip(k - s, 0, n)``;
    * Success: ``1 - C(n-r, t) / C(n, t)`` for the group that straddles ``k``;
    * RR: over the first group holding any relevant item,
      ``sum_{j=1}^{n-r+1} C(n-j, r-1) / C(n, r) / (s+j)``;
    * AP: for a relevant member with ``A`` relevant items above its group, the
      expected precision at its rank given position ``s+j`` is
      ``(A + 1 + (j-1)(r-1)/(n-1)) / (s+j)``; summed over ``j`` with harmonic
      numbers.
"""

from __future__ import annotations

import numpy as np

from ._judged import Judged, gain_of
from .measures import Measure

__all__ = ["compute", "first_relevant_rank", "TIES"]

TIES = ("trec_eval", "expected", "optimistic", "pessimistic")
_EULER = 0.5772156649015329


def _cap(k: int | None, depth: int | None) -> float:
    """The effective cutoff: min(k, depth), or infinity for the whole list."""
    values = [v for v in (k, depth) if v is not None]
    return float(min(values)) if values else np.inf


def _segment_first(cells: np.ndarray) -> np.ndarray:
    """Mask of the first element of each run of equal values in a sorted array."""
    first = np.ones(len(cells), dtype=bool)
    first[1:] = cells[1:] != cells[:-1]
    return first


def _rank_within_cell(cells: np.ndarray) -> np.ndarray:
    """0-based index of each element inside its run of equal (sorted) cell values."""
    first = _segment_first(cells)
    starts = np.flatnonzero(first)
    lengths = np.diff(np.r_[starts, len(cells)])
    return np.arange(len(cells)) - np.repeat(starts, lengths)


def _positions(j: Judged, ties: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, position, grade) of every hit under a deterministic tie order, sorted by cell then position."""
    if ties == "trec_eval":
        return j.hit_cell, j.hit_rank.astype(np.float64), j.hit_grade
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
    return cell[resort], pos[resort].astype(np.float64), grade[resort]


def compute(j: Judged, measure: Measure, ties: str = "trec_eval") -> np.ndarray:
    """Per-cell values of one measure (float64, length ``j.n_cells``)."""
    measure.check_complete()
    if ties == "expected":
        return _expected(j, measure)
    cell, pos, grade = _positions(j, ties)
    n = j.n_cells
    family, k, rel = measure.family, measure.cutoff, measure.rel
    cap = _cap(k, j.depth)
    out = np.zeros(n)
    if family == "nDCG":
        use = (pos <= cap) & (grade > 0)
        dcg = np.bincount(cell[use], weights=gain_of(grade[use], measure.gain) / np.log2(pos[use] + 1.0), minlength=n)
        ideal = j.ideal_dcg(k, measure.gain)
        np.divide(dcg, ideal, out=out, where=ideal > 0)
        return out
    relevant = grade >= rel
    if family == "RR":
        use = relevant & (pos <= cap)
        c, p = cell[use], pos[use]
        first = _segment_first(c)
        out[c[first]] = 1.0 / p[first]
        return out
    if family in ("P", "R", "Success"):
        counts = np.bincount(cell[relevant & (pos <= cap)], minlength=n).astype(np.float64)
        if family == "P":
            return counts / k
        if family == "Success":
            return (counts > 0).astype(np.float64)
        big_r = j.relevant_count(rel)
        np.divide(counts, big_r, out=out, where=big_r > 0)
        return out
    if family == "AP":
        c, p = cell[relevant], pos[relevant]
        precision = (_rank_within_cell(c) + 1) / p
        sums = np.bincount(c[p <= cap], weights=precision[p <= cap], minlength=n)
        big_r = j.relevant_count(rel)
        np.divide(sums, big_r, out=out, where=big_r > 0)
        return out
    if family == "Rprec":
        big_r = j.relevant_count(rel)
        limit = np.minimum(big_r[cell].astype(np.float64), _cap(None, j.depth))
        counts = np.bincount(cell[relevant & (pos <= limit)], minlength=n).astype(np.float64)
        np.divide(counts, big_r, out=out, where=big_r > 0)
        return out
    raise AssertionError(f"no kernel for {family}")  # pragma: no cover - Measure validates families


def first_relevant_rank(j: Judged, rel: int = 1) -> np.ndarray:
    """Rank of the first item with grade >= ``rel`` per cell (trec_eval order, within ``depth``); NaN if none."""
    out = np.full(j.n_cells, np.nan)
    use = (j.hit_grade >= rel) & (j.hit_rank <= _cap(None, j.depth))
    c, r = j.hit_cell[use], j.hit_rank[use]
    first = _segment_first(c)
    out[c[first]] = r[first]
    return out


# ----------------------------------------------------------------------------- expected (tie-aware)


def _groups(j: Judged, rel: int):
    """Tie groups that hold hits: cell, items above, size, relevant members, gain sums per gain kind."""
    cell, above, tied, grade = j.hit_cell, j.hit_above, j.hit_tied, j.hit_grade
    order = np.lexsort((above, cell))
    cell, above, tied, grade = cell[order], above[order], tied[order], grade[order]
    change = np.ones(len(cell), dtype=bool)
    change[1:] = (cell[1:] != cell[:-1]) | (above[1:] != above[:-1])
    gid = np.cumsum(change) - 1
    n_groups = int(gid[-1]) + 1 if len(gid) else 0
    relevant = np.bincount(gid, weights=(grade >= rel).astype(np.float64), minlength=n_groups)
    return cell[change], above[change].astype(np.float64), tied[change].astype(np.float64), relevant, gid, grade


def _harmonic(x: np.ndarray) -> np.ndarray:
    """Harmonic numbers H(x) = sum_{i=1}^{x} 1/i, for real x >= 0."""
    from scipy.special import digamma  # only ties="expected" needs scipy: keep it off the import path

    return digamma(np.asarray(x, dtype=np.float64) + 1.0) + _EULER


def _log_comb(n, r):
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(r + 1.0) - gammaln(n - r + 1.0)


def _expected(j: Judged, measure: Measure) -> np.ndarray:
    n_cells = j.n_cells
    family, k, rel = measure.family, measure.cutoff, measure.rel
    cap = _cap(k, j.depth)
    out = np.zeros(n_cells)
    if not len(j.hit_cell):
        return out
    g_cell, s, n, r, gid, grade = _groups(j, rel)

    if family == "nDCG":
        gains = np.bincount(gid, weights=gain_of(grade, measure.gain), minlength=len(g_cell))
        # sum of 1/log2(i+1) for i = s+1 .. min(s+n, cap), through a cumulative table
        hi = np.minimum(s + n, cap).astype(np.int64)
        lo = np.minimum(s, hi).astype(np.int64)
        disc = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(1, int(hi.max()) + 1) + 1.0))])
        span = disc[hi] - disc[lo]
        dcg = np.bincount(g_cell, weights=gains / n * span, minlength=n_cells)
        ideal = j.ideal_dcg(k, measure.gain)
        np.divide(dcg, ideal, out=out, where=ideal > 0)
        return out

    if family in ("P", "R", "Rprec"):
        if family == "Rprec":
            big_r = j.relevant_count(rel)
            limit = np.minimum(big_r[g_cell].astype(np.float64), _cap(None, j.depth))
        else:
            limit = cap
        t = np.clip(limit - s, 0, n)
        counts = np.bincount(g_cell, weights=r * t / n, minlength=n_cells)
        if family == "P":
            return counts / k
        big_r = j.relevant_count(rel)
        np.divide(counts, big_r, out=out, where=big_r > 0)
        return out

    if family == "Success":
        t = np.clip(cap - s, 0, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            # P(no relevant member among the t positions inside the cutoff) = C(n-r, t) / C(n, t)
            log_none = np.where(n - r >= t, _log_comb(n - r, t) - _log_comb(n, t), -np.inf)
        p_hit = np.where(r > 0, 1.0 - np.exp(log_none), 0.0)
        p_miss = np.ones(n_cells)
        np.multiply.at(p_miss, g_cell, 1.0 - p_hit)
        return 1.0 - p_miss

    if family == "RR":
        has = r > 0
        gc, gs, gn, gr = g_cell[has], s[has], n[has], r[has]
        first = _segment_first(gc)
        gc, gs, gn, gr = gc[first], gs[first], gn[first], gr[first]
        # Expand j = 1 .. n - r + 1 for the first relevant group of every cell.
        counts = (gn - gr + 1).astype(np.int64)
        owner = np.repeat(np.arange(len(gc)), counts)
        jj = (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + 1).astype(np.float64)
        n_o, r_o, s_o = gn[owner], gr[owner], gs[owner]
        log_p = _log_comb(n_o - jj, r_o - 1) - _log_comb(n_o, r_o)
        value = np.where(s_o + jj <= cap, np.exp(log_p) / (s_o + jj), 0.0)
        out[gc] = np.bincount(owner, weights=value, minlength=len(gc))
        return out

    if family == "AP":
        # relevant items strictly above each group: cumulative over the cell's earlier groups
        cum = np.cumsum(r)
        first = _segment_first(g_cell)
        starts = np.flatnonzero(first)
        cell_start_cum = np.repeat(cum[starts] - r[starts], np.diff(np.r_[starts, len(r)]))
        above_rel = cum - r - cell_start_cum
        t = np.clip(cap - s, 0, n)
        a = above_rel + 1.0
        b = np.where(n > 1, (r - 1) / np.maximum(n - 1, 1), 0.0)
        total = b * t + (a - b * (s + 1)) * (_harmonic(s + t) - _harmonic(s))
        contribution = np.where(r > 0, r / n * total, 0.0)
        sums = np.bincount(g_cell, weights=contribution, minlength=n_cells)
        big_r = j.relevant_count(rel)
        np.divide(sums, big_r, out=out, where=big_r > 0)
        return out

    raise AssertionError(f"no kernel for {family}")  # pragma: no cover
