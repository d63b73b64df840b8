"""trec_eval's output: its measure sets, its order of lines and its number formats.

``rankviz eval`` prints through :func:`trec_eval_lines`, so that ``rankviz eval -q -m
all_trec QRELS RUN`` gives trec_eval 10's lines: the same names, the same order (the
order of trec_eval's measure table, not the order the measures were asked in;
queries sorted by id as strings), counts as integers and every other value as
``%6.4f``, the "all" line aggregated as each family declares (mean, trec_eval's
geometric mean, or sum). Without ``-m`` it is trec_eval's default table (``official``);
a measure with cutoffs named alone (``-m ndcg_cut``) takes trec_eval's default cutoffs.
Measures trec_eval does not define come last, in the order given, under their canonical names.

Examples
--------
>>> names = expand_trec_names(["all_trec"])[0]
>>> names[:6], len(names)
(['num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map'], 98)
>>> expand_trec_names(["P.5,10", "relstring.20", "nDCG@10"])
(['P.5', 'P.10', 'nDCG@10'], 20)
>>> expand_trec_names(["success"])[0], expand_trec_names(["recall_100"])[0]
(['success_1', 'success_5', 'success_10'], ['recall_100'])
"""

from __future__ import annotations

import math
import re

import numpy as np

from .._core.options import EvalOptions
from ..evaluation.api import per_query_table
from ..evaluation.pipeline import judge_run, kept_cells, read_judgements, with_rel
from ..measures import Measure, parse_measures
from ..measures.relstring import relstrings

__all__ = [
    "ALL_TREC",
    "OFFICIAL",
    "TREC_ORDER",
    "CUTOFF_DEFAULTS",
    "expand_trec_names",
    "header_asked",
    "ordered",
    "result_rows",
    "trec_eval_lines",
]

_CUTS = ["5", "10", "15", "20", "30", "100", "200", "500", "1000"]
_LEVELS = [f"{x / 10:.2f}" for x in range(11)]
_MULTS = [f"{x / 10:.2f}" for x in range(2, 21, 2)]

#: trec_eval 10's ``-m all_trec`` (its ``trec_names``), with its default parameters, in its table's order
ALL_TREC = (
    ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
    + [f"iprec_at_recall_{x}" for x in _LEVELS]
    + [f"P_{k}" for k in _CUTS]
    + [f"recall_{k}" for k in _CUTS]
    + ["infAP", "gm_bpref"]
    + [f"Rprec_mult_{x}" for x in _MULTS]
    + ["utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg"]
    + [f"ndcg_cut_{k}" for k in _CUTS]
    + [f"map_cut_{k}" for k in _CUTS]
    + [f"relative_P_{k}" for k in _CUTS]
    + ["success_1", "success_5", "success_10"]
    + ["set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid"]
    + ["unj_5", "unj_10", "unj_20"]
)

#: trec_eval's default set (``-m official``, also what it prints without -m), with its default parameters
OFFICIAL = (
    ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
    + [f"iprec_at_recall_{x}" for x in _LEVELS]
    + [f"P_{k}" for k in _CUTS]
)

#: trec_eval's ``-m set``
SET_MEASURES = ["num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P"]
SET_MEASURES += ["set_map", "set_F"]

#: trec_eval's sets of measures (measures.c), each of which prints the runid and num_q lines
_SETS = {"all_trec": ALL_TREC, "official": OFFICIAL, "set": SET_MEASURES}

#: the order of trec_eval's measure table (measures.c); a measure is placed by its trec_eval name without cutoff
TREC_ORDER = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    "unj",
)

_RELSTRING = re.compile(r"^relstring(?:[._](?P<n>\d+))?$")

#: trec_eval's measures that take cutoffs, and the cutoffs each prints when named alone (``-m P``: P_5 ... P_1000)
CUTOFF_DEFAULTS = {
    "P": _CUTS,
    "recall": _CUTS,
    "ndcg_cut": _CUTS,
    "map_cut": _CUTS,
    "relative_P": _CUTS,
    "success": ["1", "5", "10"],
    "iprec_at_recall": _LEVELS,
    "Rprec_mult": _MULTS,
    "unj": ["5", "10", "20"],
}
_CUT_NAME = re.compile(r"^(?P<base>" + "|".join(sorted(CUTOFF_DEFAULTS, key=len, reverse=True)) + r")_(?P<k>[0-9.]+)$")


def expand_trec_names(names) -> tuple[list[str], int | None]:
    """trec_eval's ``-m`` values as measure names, and the length of ``relstring`` (None when not asked).

    As trec_eval reads them: ``all_trec``, ``official`` and ``set`` are its sets; a
    measure with cutoffs named alone (``P``, ``recall``, ``ndcg_cut``, ``map_cut``,
    ``success``, ``iprec_at_recall``, ``relative_P``, ``Rprec_mult``, ``unj``) takes
    trec_eval's default cutoffs, and with a list (``P.5,10``) those cutoffs instead, the
    first list given winning for the whole family, in a set too (``-m all_trec -m P.7``
    prints P_7 alone, as trec_eval does); ``relstring.20`` is the first 20 grades
    (``relstring`` alone: 10); ``runid`` is not a measure (see :func:`header_asked`) and
    is left out; other names (rankviz's, ``nDCG@10``) pass through. The order is the
    order met; :func:`ordered` puts them in trec_eval's.
    """
    out: list[str] = []
    given: dict[str, list[str]] = {}  # family -> its first explicit cutoffs
    relstring = None

    def mark(text: str, member: bool = False) -> None:
        match = _CUT_NAME.match(text) if member else None  # a set's P_5 stands for its family P
        family = match.group("base") if match else text
        if family in CUTOFF_DEFAULTS:
            if family not in out:
                out.append(family)
        else:
            out.append(text)

    for name in names:
        text = str(name).strip()
        if text in _SETS:
            for member in _SETS[text]:
                mark(member, member=True)
            if text == "all_trec":
                relstring = 10 if relstring is None else relstring
            continue
        if text == "runid":
            continue
        match = _RELSTRING.match(text)
        if match:
            relstring = int(match.group("n") or 10)
            continue
        base, dot, values = text.partition(".")
        if base in CUTOFF_DEFAULTS:
            if dot and values:
                given.setdefault(base, values.split(","))
            mark(base)
            continue
        mark(text)
    expanded: list[str] = []
    for item in out:
        if item in CUTOFF_DEFAULTS:
            cuts = given.get(item, CUTOFF_DEFAULTS[item])
            expanded.extend(f"{item}.{k}" if item in given else f"{item}_{k}" for k in cuts)
        else:
            expanded.append(item)
    return expanded, relstring


def header_asked(names) -> tuple[str, ...]:
    """Which of trec_eval's ``runid`` and ``num_q`` summary lines the ``-m`` values ask for.

    trec_eval prints them only for a set (``official``, its default without ``-m``,
    ``all_trec``, ``set``) or when named (``-m runid``, ``-m num_q``).

    >>> header_asked(["recip_rank"]), header_asked(["all_trec"]), header_asked(["map", "num_q"])
    ((), ('runid', 'num_q'), ('num_q',))
    """
    texts = {str(n).strip() for n in names}
    if texts & set(_SETS):
        return ("runid", "num_q")
    return tuple(h for h in ("runid", "num_q") if h in texts)


def _global_rel(m: Measure, rel: int | None) -> Measure:
    """``m`` named as trec_eval names it when ``-l rel`` applies to every measure: without its rel."""
    if rel is None or "rel" not in m.declaration.params or m.rel != rel:
        return m
    return Measure(m.family, m.cutoff, params={**dict(m.params), "rel": m.declaration.params["rel"].default})


def _base(m: Measure) -> str | None:
    family = m.declaration
    if not m.is_default:
        return None
    return family.trec_name if m.cutoff is None else family.trec_cut_prefix


def ordered(measures: list[Measure], rel: int | None = None) -> list[Measure]:
    """``measures`` in trec_eval's table order (cutoffs ascending); the ones trec_eval lacks last, as given.

    ``rel`` is the call's relevance threshold (trec_eval ``-l``), which every measure shares.
    """
    rank = {name: i for i, name in enumerate(TREC_ORDER)}

    def key(item):
        position, m = item
        base = _base(_global_rel(m, rel))
        if base in rank:
            return (0, rank[base], m.cutoff or 0, position)
        return (1, 0, 0, position)

    return [m for _, m in sorted(enumerate(measures), key=key)]


def _number(m: Measure, value: float) -> str:
    return str(int(round(value))) if m.aggregate == "sum" else f"{value:6.4f}"


def _summary(m: Measure, values: list[float]) -> float:
    """The "all" value as trec_eval accumulates it: a running sum in query order, then the mean, geometric mean or sum."""
    total = 0.0
    for v in values:
        total += math.log(max(v, 1e-5)) if m.aggregate == "gmean" else v
    if m.aggregate == "sum":
        return total
    return math.exp(total / len(values)) if m.aggregate == "gmean" else total / len(values)


def _relstring_column(run, qrels, options: EvalOptions, n: int, queries) -> dict:
    j = judge_run(run, qrels, options, rel_min=-np.inf, caller="eval")
    keep = kept_cells(j, options.missing, "eval")
    strings = relstrings(j, n)
    return {q: s for q, s, k in zip(j.queries.tolist(), strings, keep) if k and q in queries}


def _relstring_slot(measures: list[Measure], rel: int | None) -> int:
    """Where trec_eval prints relstring among ``measures`` (in its table order): before the first measure after it."""
    rank: dict[str | None, int] = {name: i for i, name in enumerate(TREC_ORDER)}
    for i, m in enumerate(measures):
        if rank.get(_base(_global_rel(m, rel)), len(rank)) > rank["relstring"]:
            return i
    return len(measures)


def _per_query_lines(table, measures: list[Measure], queries, strings: dict | None, name: str, rel) -> list[str]:
    columns = [table[m.name].to_numpy() for m in measures]
    slot = _relstring_slot(measures, rel) if strings is not None else -1
    lines = []
    for row, qid in enumerate(queries):
        for i, m in enumerate(measures + [None]):
            if i == slot and strings is not None:  # slot is -1 without strings
                lines.append(f"{name:<22}\t{qid}\t'{strings.get(qid, '')}'")
            if m is not None and m.declaration.trec_per_query:
                lines.append(f"{_global_rel(m, rel).trec_name:<22}\t{qid}\t{_number(m, columns[i][row])}")
    return lines


def _evaluated(run, qrels, measures, options: EvalOptions, trec_order: bool, evaluate_with):
    """(the measures in their printed order, the per-query table sorted by query id as text, its query ids)."""
    measures = [m for m in with_rel(parse_measures(measures), options.rel) if m.family != "NumQ"]
    if trec_order:
        measures = ordered(measures, options.rel)
    table = (evaluate_with or per_query_table)(run, measures, qrels, options)
    table = table.assign(_key=table["query_id"].astype(str)).sort_values("_key", kind="mergesort")
    return measures, table, table["query_id"].astype(str).tolist()


def trec_eval_lines(
    run,
    qrels,
    measures,
    *,
    run_id: str,
    per_query: bool,
    relstring: int | None,
    options: EvalOptions,
    trec_order: bool = True,
    evaluate_with=None,
    header: tuple[str, ...] = ("runid", "num_q"),
    summary: bool = True,
):
    """trec_eval's output lines for a run of one system (see the module docstring).

    ``relstring`` is the number of grades of trec_eval's per-query ``relstring`` line,
    or None for none. ``trec_order=False`` keeps the measures in the order given
    (``rankviz eval -m nDCG@10 AP``) instead of trec_eval's table order.
    ``evaluate_with`` replaces :func:`rankviz.evaluation.api.per_query_table` (``rankviz eval --dask``
    passes :func:`rankviz.dask.evaluation.per_query`): ``(run, measures, qrels, options)`` to the
    per-query table.
    ``header`` names which of trec_eval's ``runid`` and ``num_q`` lines to print: trec_eval
    prints them only when they are asked for (by name, or in ``official`` or ``all_trec``).
    ``summary=False`` leaves out every "all" line (trec_eval ``-n``).
    """
    qrels = read_judgements(qrels)
    measures, table, queries = _evaluated(run, qrels, measures, options, trec_order, evaluate_with)
    lines = []
    if per_query:
        strings = _relstring_column(run, qrels, options, relstring, set(queries)) if relstring is not None else None
        name = "relstring" if relstring in (None, 10) else f"relstring_{relstring}"
        lines = _per_query_lines(table, measures, queries, strings, name, options.rel)
    if not summary:
        return lines
    if "runid" in header:
        lines.append(f"{'runid':<22}\tall\t{run_id}")
    if "num_q" in header:
        lines.append(f"{'num_q':<22}\tall\t{len(queries)}")
    for m in measures:
        lines.append(
            f"{_global_rel(m, options.rel).trec_name:<22}\tall\t{_number(m, _summary(m, table[m.name].tolist()))}"
        )
    return lines


def result_rows(run, qrels, measures, *, run_id: str, per_query: bool, options: EvalOptions, trec_order: bool = True):
    """The numbers of :func:`trec_eval_lines` as rows (dicts) for a table: ``run``, ``query_id``, ``num_q``, measures.

    One row per query (when ``per_query``) then the "all" row, with the same values
    (unrounded), names and order of measures as trec_eval's lines.
    """
    measures, table, queries = _evaluated(run, read_judgements(qrels), measures, options, trec_order, None)
    names = [_global_rel(m, options.rel).trec_name for m in measures]
    rows = []
    if per_query:
        columns = [table[m.name].to_numpy() for m in measures]
        for i, qid in enumerate(queries):
            rows.append(
                {
                    "run": run_id,
                    "query_id": qid,
                    "num_q": 1,
                    **{n: _value(m, c[i]) for n, m, c in zip(names, measures, columns)},
                }
            )
    total = {n: _value(m, _summary(m, table[m.name].tolist())) for n, m in zip(names, measures)}
    rows.append({"run": run_id, "query_id": "all", "num_q": len(queries), **total})
    return rows


def _value(m: Measure, value) -> float | int:
    return int(round(float(value))) if m.aggregate == "sum" else float(value)
