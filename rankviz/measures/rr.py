"""RR: reciprocal rank.

``RR@k = 1 / rank`` of the first item with grade >= ``rel`` within the top ``k``, and
0 when there is none (Voorhees, "The TREC-8 Question Answering Track Report",
TREC 1999). Without a cutoff it is trec_eval's ``recip_rank`` (trec_eval has no
cutoff form). The mean over queries is MRR.

Under ``ties='expected'``, for the first tie group holding a relevant item (``n``
members, ``s`` items above it, ``r`` relevant members) the expectation is
``sum_{j=1}^{n-r+1} C(n-j, r-1) / C(n, r) / (s+j)`` (McSherry & Najork, ECIR 2008).

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [0, 0, 1], "q2": [1]}, ["RR", "RR@2"], per_query=True)
  query_id        RR  RR@2
0       q1  0.333333   0.0
1       q2  1.000000   1.0
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, first_in_cell, log_comb, segment_first


def kernel(j, hits, m) -> np.ndarray:
    """1 / position of the first relevant hit within the cutoff, per cell."""
    use = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return first_in_cell(hits.cell[use], 1.0 / hits.pos[use], j.n_cells)


def expected(j, g, m) -> np.ndarray:
    """The expectation over all orderings of the first tie group that holds a relevant item."""
    out = np.zeros(j.n_cells)
    has = g.relevant > 0
    gc, gs, gn, gr = g.cell[has], g.above[has], g.size[has], g.relevant[has]
    first = segment_first(gc)
    gc, gs, gn, gr = gc[first], gs[first], gn[first], gr[first]
    # Expand j = 1 .. n - r + 1 for the first relevant group of every cell.
    counts = (gn - gr + 1).astype(np.int64)
    owner = np.repeat(np.arange(len(gc)), counts)
    jj = (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + 1).astype(np.float64)
    n_o, r_o, s_o = gn[owner], gr[owner], gs[owner]
    log_p = log_comb(n_o - jj, r_o - 1) - log_comb(n_o, r_o)
    value = np.where(s_o + jj <= cap(m.cutoff, j.depth), np.exp(log_p) / (s_o + jj), 0.0)
    out[gc] = np.bincount(owner, weights=value, minlength=len(gc))
    return out


FAMILY = Family(
    name="RR",
    params={"rel": REL},
    aliases=("MRR", "RecipRank", "reciprocal_rank"),
    trec_name="recip_rank",
    trec_cut_name=None,
    needs_cutoff=False,
    judgement_denominator=False,
    kernel=kernel,
    expected=expected,
    examples=("RR@10", "RR"),
    doc=__doc__,
)
