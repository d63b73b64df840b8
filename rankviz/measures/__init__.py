"""Measures as small immutable values, declared once in a registry.

A measure is a family (``RR``, ``nDCG``, ``AP``, ``P``, ``R``, ``Success``, ``Rprec``,
and the rest of trec_eval's measures, listed below) plus parameters (a cutoff ``k``, a relevance threshold ``rel``, a ``gain``). Its repr
is the canonical name in ir_measures' spelling, so names round-trip and serve as
dict keys and column labels::

    >>> from rankviz.measures import RR, nDCG, parse_measure
    >>> RR @ 10
    RR@10
    >>> RR(rel=2) @ 10
    RR(rel=2)@10
    >>> nDCG(gain="exp") @ 10
    nDCG(gain='exp')@10
    >>> parse_measure("MRR@10") == RR @ 10
    True
    >>> (nDCG @ 10).trec_name, parse_measure("ndcg_cut.10")
    ('ndcg_cut_10', nDCG@10)

Each family is declared once, as a :class:`Family` in its own module (``rr``,
``ndcg``, ``ap``, ``precision``, ``recall``, ``success``, ``rprec``) next to its two
kernels; the parser, :func:`rankviz.measures.dispatch.compute` and trec_eval naming read the
declarations. :func:`register_family` adds a family at runtime.

The semantics follow trec_eval 10 (see each family's module and the repository's
``docs/semantics.md``). All denominators come from the judgements (qrels), not from
the retrieved list.

Families
--------
RR
    Reciprocal rank of the first relevant item in the top ``k`` (trec_eval
    ``recip_rank``, without a cutoff). The mean over queries is MRR.
nDCG
    Normalised DCG (Järvelin & Kekäläinen, TOIS 2002) over the ideal ordering of all
    judged grades; ``gain='linear'`` (trec_eval ``ndcg``/``ndcg_cut``) or ``'exp'``.
AP
    Average precision, divided by the number ``R`` of relevant judged items
    (trec_eval ``map``; with a cutoff, ``map_cut``).
P
    Precision at ``k``, divided by ``k`` (trec_eval ``P``).
R
    Recall at ``k``, divided by ``R`` (trec_eval ``recall``).
Success
    1 if any relevant item is in the top ``k`` (trec_eval ``success``).
Rprec
    Relevant items in the top ``R``, divided by ``R`` (trec_eval ``Rprec``).

The rest of trec_eval's ``all_trec`` set, one module each (or per group): ``counts``
(NumQ, NumRet, NumRel, NumRelRet, NumNonrelJudgedRet), ``geometric`` (GMAP, GMBpref),
``bpref``, ``infap``, ``iprec`` (IPrec@x, IPrecAvg = 11pt_avg), ``rprec`` (RprecMult),
``precision`` (RelP), ``utility``, ``gain`` (binG, G), ``ndcg_variants`` (nDCGRel,
RnDCG), ``sets`` (SetP, SetRelP, SetR, SetAP, SetF), ``rbp`` (RBP, RBPResid),
``judged`` (Unj, and ir_measures' Judged); beyond trec_eval, ``err`` (ERR@k),
``hits`` (ranx's Hits@k, the relevant items in the top k), ``f1`` (ranx's F1@k) and
nDCG's ``gains={grade: gain}``. :func:`aggregate` is how a family's per-query values
become one number (its ``aggregate``: mean, trec_eval's geometric mean, or sum).
"""

from __future__ import annotations

from . import (
    ap,
    bpref,
    counts,
    err,
    f1,
    gain,
    geometric,
    hits,
    infap,
    iprec,
    judged,
    ndcg,
    ndcg_variants,
    precision,
    rbp,
    recall,
    rprec,
    rr,
    sets,
    success,
    utility,
)
from ._measure import Measure
from ._parse import labelled_measures, measure_label, parse_measure, parse_measures
from ._registry import (
    Family,
    FrozenMap,
    Param,
    aggregate,
    families,
    get_family,
    register_family,
    unregister_family,
)

__all__ = [
    "Measure",
    "RR",
    "nDCG",
    "AP",
    "P",
    "R",
    "Success",
    "Rprec",
    "parse_measure",
    "parse_measures",
    "labelled_measures",
    "measure_label",
    "Family",
    "Param",
    "FrozenMap",
    "aggregate",
    "register_family",
    "unregister_family",
    "get_family",
    "families",
]

# Registration order is the order families are listed in (errors, families()); trec_eval's own
# output order lives with its output (rankviz.cli.trec_output).
for _module in (rr, ndcg, ap, precision, recall, success, rprec):
    register_family(_module.FAMILY)
for _module in (
    counts,
    geometric,
    bpref,
    infap,
    iprec,
    rprec,
    precision,
    utility,
    gain,
    ndcg_variants,
    sets,
    rbp,
    judged,
    err,
    hits,
    f1,
):
    for _family in getattr(_module, "FAMILIES", None) or (_module.FAMILY,):
        if _family.name not in {f.name for f in families()}:
            register_family(_family)
del _module, _family

RR = Measure("RR")
nDCG = Measure("nDCG")
AP = Measure("AP")
P = Measure("P")  # a template: write P @ 5
R = Measure("R")
Success = Measure("Success")
Rprec = Measure("Rprec")
