"""infAP: inferred average precision, for judgements sampled from a pool.

For the relevant item at 0-based rank ``k`` (``k > 0``), with ``r``, ``n`` and ``u`` the
judged relevant, judged non-relevant and pooled-but-unjudged items above it (items
judged with a negative grade are in the pool, unjudged; items not in the qrels are
outside it)::

    E[prec] = 1 / (k + 1) + k / (k + 1) * (r + n + u) / k * (r + eps) / (r + n + 2 eps)

and 1 at ``k = 0``; ``infAP`` is their sum over R, ``eps = 1e-5`` (Yilmaz & Aslam,
"Estimating average precision with incomplete and imperfect judgments", CIKM 2006;
trec_eval ``infAP``). With every retrieved item judged it equals AP.

The estimate at a relevant item depends on the judged members of its tie group
above it in a non-linear way: ``ties='expected'`` is refused.

Examples
--------
>>> import rankviz
>>> qrels = rankviz.qrels_from_dict({"q1": {"a": 1, "b": 0, "c": 1}})
>>> run = rankviz.run_from_dict({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}})
>>> rankviz.evaluate(run, ["infAP", "AP"], qrels).round(4).to_dict("records")
[{'infAP': 0.8333, 'AP': 0.8333}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_above, divide

#: trec_eval's INFAP_EPSILON
EPSILON = 1e-5


def kernel(j, hits, m) -> np.ndarray:
    """Sum of the inferred precision at each relevant hit within the cutoff, over R, per cell."""
    relevant = hits.grade >= m.rel
    r = count_above(hits.cell, relevant)
    n = count_above(hits.cell, (hits.grade >= 0) & ~relevant)
    u = count_above(hits.cell, np.isneginf(hits.grade))
    use = relevant & (hits.pos <= cap(m.cutoff, j.depth))
    k, r, n, u = hits.pos[use] - 1.0, r[use], n[use], u[use]
    safe = np.maximum(k, 1.0)
    estimate = 1.0 / (k + 1.0) + (k / (k + 1.0)) * ((r + n + u) / safe) * ((r + EPSILON) / (r + n + 2 * EPSILON))
    values = np.where(k == 0, 1.0, estimate)
    return divide(np.bincount(hits.cell[use], weights=values, minlength=j.n_cells), j.relevant_count(m.rel))


FAMILY = Family(
    name="infAP",
    kernel=kernel,
    expected=None,
    params={"rel": REL},
    aliases=("inferred_ap", "InfAP"),
    trec_name="infAP",
    cutoff_type=None,
    judgement_denominator=True,
    rows="pooled",
    doc=__doc__,
)
