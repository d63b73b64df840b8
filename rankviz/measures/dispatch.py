"""Per-query measure values over the canonical arrays (NumPy only).

:func:`compute` takes a :class:`rankviz._core.judged.Judged` and a measure and returns one
value per cell (system x query). It prepares the hits once under the requested tie
order and hands them to the kernel declared by the measure's family (see
:mod:`rankviz.measures`); only the *hits* (judged items with a positive grade) are
touched and no Python loop runs per query.

Ties
----
``ties`` chooses how items with equal scores are ordered:

``"trec_eval"``
    doc id descending, byte order (trec_eval's ``comp_sim_docno``);
``"optimistic"`` / ``"pessimistic"``
    within each tie group the hits come first (highest grade first) or last
    (lowest grade first, after every non-relevant item of the group);
``"expected"``
    the exact expectation over all orderings of every tie group (McSherry &
    Najork, ECIR 2008), in closed form, by the family's ``expected`` kernel. For a
    tie group with ``n`` members and ``s`` items above it, a member lands on each of
    the positions ``s+1 .. s+n`` with probability ``1/n``; each family's module
    gives the resulting formula. A family without an expected kernel refuses it.
"""

from __future__ import annotations

import numpy as np

from .._core.judged import Judged
from .._core.options import TIES
from .._errors import InputError
from . import Measure
from ._tools import cap, first_in_cell, positions, tie_groups

__all__ = ["compute", "first_relevant_rank", "TIES"]


def compute(j: Judged, measure: Measure, ties: str = "trec_eval") -> np.ndarray:
    """Per-cell values of one measure (float64, length ``j.n_cells``), by its family's kernel."""
    measure.check_complete()
    family = measure.declaration
    if ties == "expected":
        if family.expected is None:
            raise InputError(
                f"{measure.name}: ties='expected' is not available, because the {family.name} family declares no "
                "expected (tie-aware) kernel. Use ties='trec_eval', 'optimistic' or 'pessimistic'."
            )
        if not len(j.hit_cell):  # no hit, no tie that matters: every order gives the same values
            values = family.kernel(j, positions(j, "trec_eval"), measure)
        else:
            values = family.expected(j, tie_groups(j, measure.rel), measure)
    else:
        values = family.kernel(j, positions(j, ties), measure)
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (j.n_cells,):
        raise ValueError(
            f"The {family.name} kernel returned shape {values.shape}; expected ({j.n_cells},), one value per cell."
        )
    return values


def first_relevant_rank(j: Judged, rel: int = 1) -> np.ndarray:
    """Rank of the first item with grade >= ``rel`` per cell (trec_eval order, within ``depth``); NaN if none."""
    use = (j.hit_grade >= rel) & (j.hit_rank <= cap(None, j.depth))
    return first_in_cell(j.hit_cell[use], j.hit_rank[use], j.n_cells, fill=np.nan)
