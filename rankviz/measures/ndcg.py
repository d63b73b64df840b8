"""nDCG: normalised discounted cumulative gain.

``DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1)``, divided by the same sum over the
ideal ordering of *all* judged grades of the query (Järvelin & Kekäläinen,
"Cumulated gain-based evaluation of IR techniques", TOIS 2002). ``gain='linear'``
uses the grade itself (trec_eval ``ndcg`` / ``ndcg_cut``), ``gain='exp'`` uses
``2**g - 1`` (Burges et al., ICML 2005). Negative grades gain 0; ``rel`` does not
apply. The ideal DCG comes from the judgements, so without qrels it is biased.
``gains={grade: gain}`` sets the gain of the grades listed (the others gain their
own value), as trec_eval's ``-m ndcg.1=3.5,2=9`` and ir_measures'
``nDCG(gains=...)``; the ideal ordering sorts the judged items by gain, and a
negative gain lowers the DCG.

Under ``ties='expected'`` a tie group of ``n`` members with ``s`` items above it
adds ``mean_gain(group) * sum_{i=s+1}^{s+n} 1 / log2(i + 1)`` (McSherry & Najork,
ECIR 2008).

Examples
--------
>>> import rankviz
>>> table = rankviz.evaluate({"q1": [0, 2, 1]}, ["nDCG", "nDCG(gain='exp')@2"])
>>> table.round(4).to_dict("records")
[{'nDCG': 0.6697, "nDCG(gain='exp')@2": 0.5213}]
>>> rankviz.evaluate({"q1": [0, 2, 1]}, ["nDCG(gains={0: 0, 1: 1, 2: 3})@10"]).round(4).to_dict("records")
[{'nDCG(gains={0: 0, 1: 1, 2: 3})@10': 0.659}]
"""

from __future__ import annotations

import numpy as np

from .._core.judged import gain_of
from .._errors import InputError
from ._registry import Family, Param
from ._tools import cap, divide


def _gains(grades: np.ndarray, m) -> np.ndarray:
    """The gain of each grade under the measure's ``gain`` and ``gains`` (0 for unjudged and negative grades)."""
    table = dict(m.params).get("gains")
    if table is None:
        return gain_of(grades, m.gain)
    if m.gain != "linear":
        raise InputError(f"{m.name}: gains= sets the gain of each grade itself; leave gain= out when you give gains=.")
    out = np.where(grades > 0, grades, 0.0)
    for grade, value in table.items():
        out = np.where(grades == grade, float(value), out)
    return out


def _ideal(j, m) -> np.ndarray:
    """Ideal DCG per cell: the judged grades' positive gains in descending order, the top ``k`` of them."""
    if dict(m.params).get("gains") is None:
        return j.ideal_dcg(m.cutoff, m.gain)
    sizes = np.diff(j.group_offsets)
    group = np.repeat(np.arange(len(sizes)), sizes)
    gains = _gains(j.group_grades, m)
    order = np.lexsort((-gains, group))
    gains = gains[order]
    position = np.arange(len(gains)) - np.repeat(j.group_offsets[:-1], sizes)
    usable = (gains > 0) & (position < (np.inf if m.cutoff is None else m.cutoff))
    values = np.where(usable, gains / np.log2(position + 2.0), 0.0)
    return np.bincount(group, weights=values, minlength=len(sizes))[j.cell_group]


def _rows(m) -> str:
    """Grades <= 0 given a gain make every judged row a hit; otherwise the relevant ones are enough."""
    table = dict(m.params).get("gains") or {}
    return "judged" if any(grade <= 0 and value for grade, value in table.items()) else "relevant"


def kernel(j, hits, m) -> np.ndarray:
    """DCG of the hits within the cutoff over the ideal DCG of the judgements, per cell."""
    use = hits.pos <= cap(m.cutoff, j.depth)
    weights = _gains(hits.grade[use], m) / np.log2(hits.pos[use] + 1.0)
    dcg = np.bincount(hits.cell[use], weights=weights, minlength=j.n_cells)
    return divide(dcg, _ideal(j, m))


def expected(j, g, m) -> np.ndarray:
    """Each tie group's mean gain spread over the discounts of the positions it occupies."""
    gains = np.bincount(g.gid, weights=_gains(g.grade, m), minlength=len(g.cell))
    # sum of 1/log2(i+1) for i = s+1 .. min(s+n, cap), through a cumulative table
    hi = np.minimum(g.above + g.size, cap(m.cutoff, j.depth)).astype(np.int64)
    lo = np.minimum(g.above, hi).astype(np.int64)
    disc = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(1, int(hi.max()) + 1) + 1.0))])
    span = disc[hi] - disc[lo]
    dcg = np.bincount(g.cell, weights=gains / g.size * span, minlength=j.n_cells)
    return divide(dcg, _ideal(j, m))


FAMILY = Family(
    name="nDCG",
    params={
        "gain": Param(
            str,
            "linear",
            "gain of a grade g: g (trec_eval) or 2**g - 1",
            choices=("linear", "exp"),
            aliases={"exponential": "exp"},
        ),
        "gains": Param(dict, None, "gain of each grade listed, {grade: gain} (the others gain their grade)"),
    },
    rows=_rows,
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
