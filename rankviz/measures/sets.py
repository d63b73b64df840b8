"""Set measures: SetP, SetRelP, SetR, SetAP and SetF over the retrieved set (trec_eval's ``set_*``).

With ``X`` the relevant items retrieved (grade >= ``rel``), ``n`` the items retrieved
(after ``depth``) and ``R`` the relevant judged items (van Rijsbergen, "Information
Retrieval", Butterworths 1979, ch. 7; trec_eval ``set_P``, ``set_relative_P``,
``set_recall``, ``set_map``, ``set_F``):

- ``SetP = X / n``, ``SetRelP = X / min(n, R)``, ``SetR = X / R``;
- ``SetAP = X**2 / (n * R)`` (set precision times set recall);
- ``SetF(beta) = (1 + beta) * P * R_s / (beta * P + R_s) = (1 + beta) * X / (beta * R + n)``,
  with ``beta`` as trec_eval's ``set_F`` parameter and ir_measures' ``SetF(beta=...)``
  take it (the weight of recall, not its square root); 0 when ``X = 0``.

Each is 0 where its denominator is. Rank does not matter, except where ``depth`` cuts
a tie group: ``ties='expected'`` takes the expected ``X`` (exact: each measure is
linear in ``X``), except SetAP (quadratic), which refuses it.

Examples
--------
>>> import rankviz
>>> qrels = rankviz.qrels_from_dict({"q1": {"a": 1, "b": 1, "c": 1, "d": 1}})
>>> run = rankviz.run_from_dict({"q1": {"a": 2.0, "x": 1.0}})
>>> rankviz.evaluate(run, ["SetP", "SetRelP", "SetR", "SetAP", "SetF"], qrels).to_dict("records")
[{'SetP': 0.5, 'SetRelP': 0.5, 'SetR': 0.25, 'SetAP': 0.125, 'SetF': 0.3333333333333333}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family, Param
from ._tools import cap, count_per_cell, divide, expected_count_in_top


def _counts(j, m):
    """(items retrieved, relevant items judged) per cell, as floats."""
    return np.minimum(j.num_ret, cap(None, j.depth)).astype(np.float64), j.relevant_count(m.rel).astype(np.float64)


def _found(j, hits, m) -> np.ndarray:
    within = (hits.grade >= m.rel) & (hits.pos <= cap(None, j.depth))
    return count_per_cell(hits.cell, within, j.n_cells)


def _expected_found(j, g, m) -> np.ndarray:
    return expected_count_in_top(g, cap(None, j.depth), j.n_cells)


def _set_p(j, x, m):
    return divide(x, _counts(j, m)[0])


def _set_rel_p(j, x, m):
    n, r = _counts(j, m)
    return divide(x, np.where((n > 0) & (r > 0), np.minimum(n, r), 0.0))


def _set_r(j, x, m):
    return divide(x, _counts(j, m)[1])


def _set_ap(j, x, m):
    n, r = _counts(j, m)
    return divide(x * x, n * r)


def _set_f(j, x, m):
    """``(beta + 1) P R / (beta P + R)`` with trec_eval's operations in its order (m_set_F.c), 0 when X = 0.

    The equivalent ``(1 + beta) X / (beta R + n)`` rounds differently: 62/320 = 0.19375 would
    print 0.1938 where trec_eval prints 0.1937.
    """
    n, r = _counts(j, m)
    beta = dict(m.params)["beta"]
    precision, recall = divide(x, n), divide(x, r)
    denominator = beta * precision + recall
    return np.where(x > 0, divide((beta + 1.0) * precision * recall, denominator), 0.0)


def _family(name, value, trec_name, doc, *, params=None, linear=True, aliases=()):
    return Family(
        name=name,
        kernel=lambda j, hits, m: value(j, _found(j, hits, m), m),
        expected=(lambda j, g, m: value(j, _expected_found(j, g, m), m)) if linear else None,
        params={"rel": REL, **(params or {})},
        aliases=aliases,
        trec_name=trec_name,
        cutoff_type=None,
        judgement_denominator=name != "SetP",
        doc=f"{name}: {doc} (trec_eval {trec_name}; van Rijsbergen, Information Retrieval, 1979; Manning, Raghavan & Schütze 2008, section 8.3). See rankviz.measures.sets.",
    )


FAMILIES = (
    _family("SetP", _set_p, "set_P", "X / n, the precision of the retrieved set", aliases=("set_precision",)),
    _family("SetRelP", _set_rel_p, "set_relative_P", "X / min(n, R), precision relative to the best possible"),
    _family("SetR", _set_r, "set_recall", "X / R, the recall of the retrieved set", aliases=("set_R",)),
    _family("SetAP", _set_ap, "set_map", "X**2 / (n * R), set precision times set recall", linear=False),
    _family(
        "SetF",
        _set_f,
        "set_F",
        "(1 + beta) * X / (beta * R + n), the weighted harmonic mean of set precision and recall",
        params={"beta": Param(float, 1.0, "weight of recall against precision (trec_eval set_F's parameter)")},
    ),
)
