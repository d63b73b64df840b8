"""Bpref: binary preference, for incomplete judgements.

``bpref = (1 / R) * sum_{relevant retrieved r} (1 - min(n_r, R) / min(N, R))``, where
``n_r`` is the number of judged non-relevant items ranked above ``r``, ``R`` the
relevant and ``N`` the judged non-relevant items of the query (a term is 1 when
``n_r = 0``). Unjudged items are skipped (Buckley & Voorhees, "Retrieval evaluation
with incomplete information", SIGIR 2004; trec_eval ``bpref``, whose ``min(N, R)``
denominator this follows rather than the paper's ``R``). ``GMBpref`` is the same per
query with trec_eval's geometric mean over queries (``gm_bpref``).

The term of a relevant item depends on where the judged non-relevant members of its
tie group fall, capped at ``R``: ``ties='expected'`` is refused; use the optimistic
and pessimistic bounds.

Examples
--------
>>> import rankviz
>>> qrels = rankviz.qrels_from_dict({"q1": {"a": 1, "b": 0, "c": 1, "d": 0}})
>>> run = rankviz.run_from_dict({"q1": {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}})
>>> rankviz.evaluate(run, ["Bpref"], qrels).to_dict("records")
[{'Bpref': 0.75}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_above, divide, judged_count


def kernel(j, hits, m) -> np.ndarray:
    """Sum over the relevant hits of ``1 - min(n_r, R) / min(N, R)``, over R, per cell."""
    limit = cap(m.cutoff, j.depth)
    judged_nonrel = (hits.grade >= 0) & (hits.grade < m.rel)
    above = count_above(hits.cell, judged_nonrel)
    relevant = (hits.grade >= m.rel) & (hits.pos <= limit)
    cell, above = hits.cell[relevant], above[relevant]
    r = j.relevant_count(m.rel).astype(np.float64)
    n = judged_count(j) - r
    bound = np.maximum(np.minimum(n, r)[cell], 1.0)
    terms = np.where(above > 0, 1.0 - np.minimum(above, r[cell]) / bound, 1.0)
    return divide(np.bincount(cell, weights=terms, minlength=j.n_cells), r)


FAMILY = Family(
    name="Bpref",
    kernel=kernel,
    expected=None,
    params={"rel": REL},
    aliases=("binary_preference",),
    trec_name="bpref",
    cutoff_type=None,
    judgement_denominator=True,
    rows="judged",
    doc=__doc__,
)
