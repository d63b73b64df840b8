"""Utility: trec_eval's linear set utility.

``U = a * |rel ret| + b * |nonrel ret| + c * |rel not ret| + d * |nonrel not ret|``
over the contingency table of the retrieved set, with ``|nonrel not ret| = n_docs -
|ret| - R + |rel ret|`` for a collection of ``n_docs`` items (trec_eval ``-N``; Lewis,
"The TREC-4 filtering track", TREC 1995; Voorhees & Harman, MIT Press 2005; trec_eval ``utility``, defaults
``a=1, b=-1, c=0, d=0``). Everything after ``depth`` counts as not retrieved; a judged
query the run did not retrieve scores 0, as in trec_eval. The aggregate is the mean
(trec_eval's; a sum would be another defensible choice).

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [1, 0, 0, 1]}, ["Utility", "Utility(nonrel_ret=-0.5)"]).to_dict("records")
[{'Utility': 0.0, 'Utility(nonrel_ret=-0.5)': 1.0}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family, Param
from ._tools import cap, count_per_cell, expected_count_in_top


def _utility(j, m, rel_ret: np.ndarray) -> np.ndarray:
    p = dict(m.params)
    ret = np.minimum(j.num_ret, cap(None, j.depth)).astype(np.float64)
    relevant = j.relevant_count(m.rel).astype(np.float64)
    value = (
        p["rel_ret"] * rel_ret
        + p["nonrel_ret"] * (ret - rel_ret)
        + p["rel_unret"] * (relevant - rel_ret)
        + p["nonrel_unret"] * (p["n_docs"] + rel_ret - ret - relevant)
    )
    return np.where(j.present, value, 0.0)


def kernel(j, hits, m) -> np.ndarray:
    within = (hits.grade >= m.rel) & (hits.pos <= cap(None, j.depth))
    return _utility(j, m, count_per_cell(hits.cell, within, j.n_cells))


def expected(j, g, m) -> np.ndarray:
    return _utility(j, m, expected_count_in_top(g, cap(None, j.depth), j.n_cells))


FAMILY = Family(
    name="Utility",
    kernel=kernel,
    expected=expected,
    params={
        "rel": REL,
        "rel_ret": Param(float, 1.0, "worth of each relevant item retrieved (a)"),
        "nonrel_ret": Param(float, -1.0, "worth of each non-relevant item retrieved (b)"),
        "rel_unret": Param(float, 0.0, "worth of each relevant item not retrieved (c)"),
        "nonrel_unret": Param(float, 0.0, "worth of each non-relevant item not retrieved (d)"),
        "n_docs": Param(int, 0, "items in the collection, for d (trec_eval -N)"),
    },
    aliases=("set_utility",),
    trec_name="utility",
    cutoff_type=None,
    doc=__doc__,
)
