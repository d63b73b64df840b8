"""Hits: the number of relevant items retrieved in the top k, averaged over queries (ranx's ``hits``).

``Hits@k = |{i <= k : g_i >= rel}|`` per query (Bassani, "ranx: A Blazing-Fast Python
Library for Ranking Evaluation and Comparison", ECIR 2022, its ``hits`` metric); the
mean over queries is what ranx reports. It is a count, not a rate: a query with two
relevant items in its top 5 scores 2. Where each query has one relevant item (the
usual knowledge-graph setting, whose "Hits@k" is a hit rate) it equals the hit rate;
for the share of queries with any relevant item in the top k write ``HitRate@k``
(``Success@k``). trec_eval's ``num_rel_ret`` is the same count summed over queries
(``NumRelRet``). Without a cutoff, the whole list.

Order does not change it except at a cutoff inside a tie group, so ``ties='expected'``
is the expected count.

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [1, 0, 1], "q2": [0, 0, 0]}, ["Hits@3", "HitRate@3"]).to_dict("records")
[{'Hits@3': 1.0, 'HitRate@3': 0.5}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_per_cell, expected_count_in_top


def kernel(j, hits, m) -> np.ndarray:
    """Relevant hits within the cutoff, per cell."""
    within = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return count_per_cell(hits.cell, within, j.n_cells)


def expected(j, g, m) -> np.ndarray:
    """Expected relevant items within the cutoff, per cell."""
    return expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells)


FAMILY = Family(
    name="Hits",
    params={"rel": REL},
    aliases=("num_hits",),
    kernel=kernel,
    expected=expected,
    examples=("Hits@10",),
    doc=__doc__,
)
