"""AP: average precision.

``AP@k = (1 / R) * sum_{i<=k, g_i >= rel} P@i``: the precision at the rank of each
relevant item in the top ``k``, summed and divided by the number ``R`` of relevant
items in the judgements (Buckley & Voorhees, "Evaluating evaluation measure
stability", SIGIR 2000; trec_eval ``map``, and ``map_cut`` with a cutoff). The mean
over queries is MAP.

Under ``ties='expected'``, a relevant member of a tie group (``n`` members, ``s``
items above it, ``r`` relevant members, ``A`` relevant items above the group) at
position ``s+j`` has expected precision ``(A + 1 + (j-1)(r-1)/(n-1)) / (s+j)``;
summing over ``j`` gives harmonic numbers (McSherry & Najork, ECIR 2008).

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [1, 0, 1, 0]}, ["AP", "AP@2"]).round(4).to_dict("records")
[{'AP': 0.8333, 'AP@2': 0.5}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, divide, harmonic, rank_within_cell, segment_first


def kernel(j, hits, m) -> np.ndarray:
    """Sum of the precision at each relevant hit within the cutoff, over R, per cell."""
    relevant = hits.grade >= m.rel
    c, p = hits.cell[relevant], hits.pos[relevant]
    precision = (rank_within_cell(c) + 1) / p
    within = p <= cap(m.cutoff, j.depth)
    sums = np.bincount(c[within], weights=precision[within], minlength=j.n_cells)
    return divide(sums, j.relevant_count(m.rel))


def expected(j, g, m) -> np.ndarray:
    """Expected precision at every relevant member of every tie group, in closed form, over R."""
    r, s, n = g.relevant, g.above, g.size
    # relevant items strictly above each group: cumulative over the cell's earlier groups
    cum = np.cumsum(r)
    starts = np.flatnonzero(segment_first(g.cell))
    cell_start_cum = np.repeat(cum[starts] - r[starts], np.diff(np.r_[starts, len(r)]))
    above_rel = cum - r - cell_start_cum
    t = np.clip(cap(m.cutoff, j.depth) - s, 0, n)
    a = above_rel + 1.0
    b = np.where(n > 1, (r - 1) / np.maximum(n - 1, 1), 0.0)
    total = b * t + (a - b * (s + 1)) * (harmonic(s + t) - harmonic(s))
    contribution = np.where(r > 0, r / n * total, 0.0)
    sums = np.bincount(g.cell, weights=contribution, minlength=j.n_cells)
    return divide(sums, j.relevant_count(m.rel))


FAMILY = Family(
    name="AP",
    params={"rel": REL},
    aliases=("MAP", "average_precision"),
    trec_name="map",
    trec_cut_name="map_cut_{k}",
    needs_cutoff=False,
    judgement_denominator=True,
    kernel=kernel,
    expected=expected,
    examples=("AP", "AP@100"),
    doc=__doc__,
)
