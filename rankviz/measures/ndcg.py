"""nDCG: normalised discounted cumulative gain.

``DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1)``, divided by the same sum over the
ideal ordering of *all* judged grades of the query (Järvelin & Kekäläinen,
"Cumulated gain-based evaluation of IR techniques", TOIS 2002). ``gain='linear'``
uses the grade itself (trec_eval ``ndcg`` / ``ndcg_cut``), ``gain='exp'`` uses
``2**g - 1`` (Burges et al., ICML 2005). Negative grades gain 0; ``rel`` does not
apply. The ideal DCG comes from the judgements, so without qrels it is biased.

Under ``ties='expected'`` a tie group of ``n`` members with ``s`` items above it
adds ``mean_gain(group) * sum_{i=s+1}^{s+n} 1 / log2(i + 1)`` (McSherry & Najork,
ECIR 2008).

Examples
--------
>>> import rankviz
>>> table = rankviz.evaluate({"q1": [0, 2, 1]}, ["nDCG", "nDCG(gain='exp')@2"])
>>> table.round(4).to_dict("records")
[{'nDCG': 0.6697, "nDCG(gain='exp')@2": 0.5213}]
"""

from __future__ import annotations

import numpy as np

from .._judged import gain_of
from ._registry import Family, Param
from ._tools import cap, divide


def kernel(j, hits, m) -> np.ndarray:
    """DCG of the hits within the cutoff over the ideal DCG of the judgements, per cell."""
    use = (hits.pos <= cap(m.cutoff, j.depth)) & (hits.grade > 0)
    weights = gain_of(hits.grade[use], m.gain) / np.log2(hits.pos[use] + 1.0)
    dcg = np.bincount(hits.cell[use], weights=weights, minlength=j.n_cells)
    return divide(dcg, j.ideal_dcg(m.cutoff, m.gain))


def expected(j, g, m) -> np.ndarray:
    """Each tie group's mean gain spread over the discounts of the positions it occupies."""
    gains = np.bincount(g.gid, weights=gain_of(g.grade, m.gain), minlength=len(g.cell))
    # sum of 1/log2(i+1) for i = s+1 .. min(s+n, cap), through a cumulative table
    hi = np.minimum(g.above + g.size, cap(m.cutoff, j.depth)).astype(np.int64)
    lo = np.minimum(g.above, hi).astype(np.int64)
    disc = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(1, int(hi.max()) + 1) + 1.0))])
    span = disc[hi] - disc[lo]
    dcg = np.bincount(g.cell, weights=gains / g.size * span, minlength=j.n_cells)
    return divide(dcg, j.ideal_dcg(m.cutoff, m.gain))


FAMILY = Family(
    name="nDCG",
    params={
        "gain": Param(
            str, "linear", "gain of a grade g: g (trec_eval) or 2**g - 1",
            choices=("linear", "exp"), aliases={"exponential": "exp"},
        )
    },
    aliases=(),
    trec_name="ndcg",
    trec_cut_name="ndcg_cut_{k}",
    needs_cutoff=False,
    judgement_denominator=True,
    kernel=kernel,
    expected=expected,
    examples=("nDCG@10", "nDCG"),
    refusals={"rel": "nDCG uses every grade as its gain (as trec_eval does); change the grades in the qrels instead"},
    doc=__doc__,
)
