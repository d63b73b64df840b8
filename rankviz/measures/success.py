"""Success: hit rate at a cutoff.

``Success@k = 1`` if any item with grade >= ``rel`` is in the top ``k``, else 0
(Craswell & Hawking, "Overview of the TREC-2002 Web Track", TREC 2002; trec_eval
``success``). Only defined at a cutoff: write ``Success@10``. Its mean over queries
is the hit rate (``HitRate@k``, ``hit_rate@k``). ``Hits@k`` is another measure, ranx's:
the number of relevant items in the top ``k``.

Under ``ties='expected'``, the tie group straddling ``k`` (``n`` members, ``r``
relevant, ``t`` of its positions inside the cutoff) misses with probability
``C(n-r, t) / C(n, t)`` (McSherry & Najork, ECIR 2008).

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [0, 0, 1], "q2": [0]}, ["Success@1", "Success@3"]).to_dict("records")
[{'Success@1': 0.0, 'Success@3': 0.5}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_per_cell, log_comb


def kernel(j, hits, m) -> np.ndarray:
    """1 where a relevant hit is within the cutoff, per cell."""
    within = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return (count_per_cell(hits.cell, within, j.n_cells) > 0).astype(np.float64)


def expected(j, g, m) -> np.ndarray:
    """1 minus the probability that every tie group misses its positions inside the cutoff."""
    r, n = g.relevant, g.size
    t = np.clip(cap(m.cutoff, j.depth) - g.above, 0, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        # P(no relevant member among the t positions inside the cutoff) = C(n-r, t) / C(n, t)
        log_none = np.where(n - r >= t, log_comb(n - r, t) - log_comb(n, t), -np.inf)
    p_hit = np.where(r > 0, 1.0 - np.exp(log_none), 0.0)
    p_miss = np.ones(j.n_cells)
    np.multiply.at(p_miss, g.cell, 1.0 - p_hit)
    return 1.0 - p_miss


FAMILY = Family(
    name="Success",
    params={"rel": REL},
    aliases=("HitRate", "hit_rate"),  # not "hits": ranx's Hits@k is a count (rankviz.measures.hits)
    trec_name=None,
    trec_cut_name="success_{k}",
    needs_cutoff=True,
    judgement_denominator=False,
    kernel=kernel,
    expected=expected,
    examples=("Success@10",),
    doc=__doc__,
)
