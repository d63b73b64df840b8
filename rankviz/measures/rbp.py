"""RBP and RBPResid: rank-biased precision and its residual.

``RBP(p) = (1 - p) * sum_i g_i * p**(i - 1)`` over the ranked list, with gain ``g_i``
the item's grade, divided by the query's highest judged grade when that is above 1
(trec_eval's normalisation of the gains into [0, 1]); unjudged items gain 0.
``RBPResid(p) = 1 - (1 - p) * sum_{judged i} p**(i - 1)``, the most RBP could still
rise if every unjudged item retrieved had the top grade (and if the list went on
forever with top grades), 0 when every retrieved item is judged (Moffat & Zobel,
"Rank-biased precision for measurement of retrieval effectiveness", TOIS 2008;
trec_eval 10 ``rbp`` and ``rbp_resid``). The persistence ``p`` defaults to trec_eval's
0.9 (ir_measures' RBP defaults to 0.8: write ``RBP(p=0.8)``).

Under ``ties='expected'`` RBP spreads a tie group's mean gain over the discounts of
the positions it occupies (exact, it is linear); RBPResid refuses it.

Examples
--------
>>> import rankviz
>>> qrels = rankviz.qrels_from_dict({"q1": {"a": 2, "b": 0, "c": 1}})
>>> run = rankviz.run_from_dict({"q1": {"a": 3.0, "x": 2.0, "c": 1.0}})
>>> rankviz.evaluate(run, ["RBP(p=0.5)", "RBPResid(p=0.5)"], qrels).to_dict("records")
[{'RBP(p=0.5)': 0.5625, 'RBPResid(p=0.5)': 0.375}]
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError
from ._registry import Family, Param
from ._tools import cap

PERSISTENCE = Param(float, 0.9, "persistence p: the chance the user looks at the next item (trec_eval's default)")


def _check_p(m) -> float:
    p = dict(m.params)["p"]
    if not 0 < p < 1:
        raise InputError(
            f"{m.name}: the persistence p must be in the open interval (0, 1), as in 'RBP(p=0.8)'. Got {p!r}."
        )
    return p


def _scale(j) -> np.ndarray:
    """Each cell's gain divisor: its highest judged grade when above 1 (trec_eval normalises gains to [0, 1])."""
    sizes = np.diff(j.group_offsets)
    top = np.zeros(len(sizes))
    top[sizes > 0] = j.group_grades[j.group_offsets[:-1][sizes > 0]]
    return np.maximum(top, 1.0)[j.cell_group]


def kernel(j, hits, m) -> np.ndarray:
    """(1 - p) times the discounted normalised gain of the hits within the cutoff, per cell."""
    p = _check_p(m)
    use = (hits.grade > 0) & (hits.pos <= cap(m.cutoff, j.depth))
    cell = hits.cell[use]
    weights = hits.grade[use] / _scale(j)[cell] * p ** (hits.pos[use] - 1.0)
    return (1.0 - p) * np.bincount(cell, weights=weights, minlength=j.n_cells)


def expected(j, g, m) -> np.ndarray:
    """Each tie group's mean normalised gain times the discounts of the positions it occupies."""
    p = _check_p(m)
    gains = np.bincount(g.gid, weights=np.maximum(g.grade, 0.0), minlength=len(g.cell)) / _scale(j)[g.cell]
    hi = np.minimum(g.above + g.size, cap(m.cutoff, j.depth))
    lo = np.minimum(g.above, hi)
    span = p**lo - p**hi  # (1 - p) * sum_{i = lo + 1}^{hi} p**(i - 1)
    return np.bincount(g.cell, weights=gains / g.size * span, minlength=j.n_cells)


def residual(j, hits, m) -> np.ndarray:
    """1 - (1 - p) * sum of p**(i - 1) over the judged items, where an unjudged item was retrieved; else 0."""
    p = _check_p(m)
    limit = cap(m.cutoff, j.depth)
    use = (hits.grade >= 0) & (hits.pos <= limit)
    judged = np.bincount(hits.cell[use], minlength=j.n_cells)
    covered = (1.0 - p) * np.bincount(hits.cell[use], weights=p ** (hits.pos[use] - 1.0), minlength=j.n_cells)
    unjudged = np.minimum(j.num_ret, limit) > judged
    return np.where(unjudged, 1.0 - covered, 0.0)


FAMILY = Family(
    name="RBP",
    kernel=kernel,
    expected=expected,
    params={"p": PERSISTENCE},
    aliases=("rank_biased_precision",),
    trec_name="rbp",
    refusals={"rel": "RBP uses the grades as gains, scaled into [0, 1] (as trec_eval does)"},
    doc=__doc__.replace("RBP and RBPResid: ", "RBP: ", 1),
)

RESIDUAL = Family(
    name="RBPResid",
    kernel=residual,
    expected=None,
    params={"p": PERSISTENCE},
    aliases=("rbp_residual",),
    trec_name="rbp_resid",
    rows="judged",
    doc=(
        "RBPResid: 1 - (1 - p) * sum over judged retrieved items of p**(i - 1), 0 when every item is judged: how much "
        "RBP could still rise (trec_eval rbp_resid; Moffat & Zobel, TOIS 2008). See rankviz.measures.rbp."
    ),
)

FAMILIES = (FAMILY, RESIDUAL)
