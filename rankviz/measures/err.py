"""ERR: expected reciprocal rank, a cascade model of graded relevance.

``ERR@k = sum_{r <= k} (1 / r) * R_r * prod_{i < r} (1 - R_i)``, with the chance that
the item at rank ``i`` satisfies the user ``R_i = (2**g_i - 1) / 2**g_max`` (Chapelle,
Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded relevance", CIKM
2009). ``g_max`` is the highest grade in the judgements of the call (all queries), or
``max_grade`` when given (gdeval and ir_measures' ``ERR`` use 4: write
``ERR(max_grade=4)@20`` to compare). Unjudged and negative grades are 0. Without a
cutoff, the whole list.

The product over the items above makes the expectation over tie orders non-linear:
``ties='expected'`` is refused.

Examples
--------
>>> import rankviz
>>> round(rankviz.evaluate({"q1": [0, 2, 1]}, ["ERR@10"])["ERR@10"].item(), 4)
0.3958
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError
from ._registry import Family, Param
from ._tools import cap, cumsum_in_cell


def kernel(j, hits, m) -> np.ndarray:
    """The cascade sum over the hits with a positive grade within the cutoff, per cell."""
    use = (hits.grade > 0) & (hits.pos <= cap(m.cutoff, j.depth))
    cell, pos, grade = hits.cell[use], hits.pos[use], hits.grade[use]
    top = dict(m.params)["max_grade"]
    if top is None:
        top = float(j.group_grades.max()) if len(j.group_grades) else 0.0
    if len(grade) and grade.max() > top:
        raise InputError(
            f"{m.name}: max_grade={top:g} but the qrels hold grade {grade.max():g}; raise max_grade or leave it out."
        )
    stop = np.expm1(grade * np.log(2.0)) / 2.0**top
    keep_going = np.log1p(-stop)
    before = np.exp(cumsum_in_cell(cell, keep_going) - keep_going)
    return np.bincount(cell, weights=stop / pos * before, minlength=j.n_cells)


FAMILY = Family(
    name="ERR",
    kernel=kernel,
    expected=None,
    params={"max_grade": Param(int, None, "the highest grade g_max (default: the highest in the qrels)")},
    aliases=("expected_reciprocal_rank",),
    examples=("ERR@10", "ERR@20"),
    refusals={"rel": "ERR uses every grade, through its satisfaction probability"},
    doc=__doc__,
)
