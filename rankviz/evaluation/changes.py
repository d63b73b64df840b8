"""What changed between two systems, query by query: :func:`changes`.

Per query: the difference of one measure (``system - baseline``), the relevant
documents that entered or left the top ``k`` and how many ranks each moved, and two
label-free measures of how much the ranking itself changed, rank-biased overlap and
tau_AP between the two top-``k`` lists. The pair's recall-vs-MRR reading (recall
unchanged and MRR up: a reranker at work; recall down: retrieval lost documents) is
in ``attrs["rankviz"]["reading"]``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Unpack

import numpy as np
import pandas as pd

from .. import stats
from .._core.checks import check_cutoff
from .._core.input_shapes import run_arrays
from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from .._errors import DegenerateDataWarning, InputError
from ..measures import parse_measure
from .api import per_query_table
from .pipeline import read_judgements, read_run_input, with_rel

__all__ = ["changes", "rank_biased_overlap", "tau_ap", "pair_reading", "RBO_PERSISTENCE"]

#: the persistence p of rank-biased overlap (Webber et al. 2010): the top 10 carry ~86% of the weight
RBO_PERSISTENCE = 0.9

#: a mean difference smaller than this reads as "unchanged"
_SAME = 1e-9


def rank_biased_overlap(first, second, *, p: float = RBO_PERSISTENCE) -> float:
    """Extrapolated rank-biased overlap of two (truncated) rankings (Webber, Moffat & Zobel 2010, eq. 32).

    With ``l`` the longer list's length, ``s`` the shorter's and ``X_d`` the number of
    items the two share down to depth ``d`` (the shorter list whole beyond ``s``)::

        RBO = (1 - p) / p * (sum_{d=1..l} X_d / d * p^d + sum_{d=s+1..l} X_s * (d - s) / (s * d) * p^d)
              + ((X_l - X_s) / l + X_s / s) * p^l

    The second sum extrapolates the shorter list: beyond its end its agreement is assumed
    to stay what it was at depth ``s``. For lists of equal length it is the familiar
    ``(X_k / k) p^k + (1 - p) / p * sum_{d=1..k} (X_d / d) p^d``. 1 for identical lists, and
    for a short list that agrees with the other's top (``["a", "b"]`` against ``["a", "b",
    "c"]``), as the ``rbo`` package's ``rbo_ext`` gives; 0 for disjoint lists and when one
    list is empty (nothing agrees at any depth); NaN when both are empty.

    Examples
    --------
    >>> rank_biased_overlap(["a", "b", "c"], ["a", "b", "c"])
    1.0
    >>> rank_biased_overlap(["a", "b"], ["c", "d"])
    0.0
    >>> round(rank_biased_overlap(["a", "b"], ["a", "b", "c", "d", "e"]), 12)
    1.0
    """
    first, second = list(first), list(second)
    longer, shorter = (first, second) if len(first) >= len(second) else (second, first)
    big, small = len(longer), len(shorter)
    if small == 0:
        return math.nan if big == 0 else 0.0
    seen_long: set = set()
    seen_short: set = set()
    overlap, total, x_small = 0, 0.0, 0
    for d in range(1, big + 1):
        a = longer[d - 1]
        b = shorter[d - 1] if d <= small else None
        if a not in seen_long:
            overlap += a in seen_short or a == b
            seen_long.add(a)
        if b is not None and b != a and b not in seen_short:
            overlap += b in seen_long
        if b is not None:
            seen_short.add(b)
        if d == small:
            x_small = overlap
        total += overlap / d * p**d
        if d > small:
            total += x_small * (d - small) / (small * d) * p**d
    tail = ((overlap - x_small) / big + x_small / small) * p**big
    return float((1 - p) / p * total + tail)


def tau_ap(ranking, reference) -> float:
    """AP rank correlation (Yilmaz, Aslam & Robertson 2008) of ``ranking`` against ``reference``, on the items both hold.

    ``tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1``, ``C(i)`` the number of
    items above position ``i`` of ``ranking`` that ``reference`` also puts above it.
    Swaps near the top weigh more than swaps lower down. NaN with fewer than two
    shared items.

    Examples
    --------
    >>> tau_ap(["a", "b", "c"], ["a", "b", "c"]), tau_ap(["c", "b", "a"], ["a", "b", "c"])
    (1.0, -1.0)
    """
    position = {d: i for i, d in enumerate(reference)}
    shared = [d for d in ranking if d in position]
    n = len(shared)
    if n < 2:
        return math.nan
    total = 0.0
    for i in range(1, n):
        mine = position[shared[i]]
        total += sum(position[shared[j]] < mine for j in range(i)) / i
    return float(2.0 * total / (n - 1) - 1.0)


def pair_reading(
    recall_delta: float, rr_delta: float, *, k: int, recall: str | None = None, significant=(True, True)
) -> str:
    """The recall-vs-MRR reading of a pair's mean differences, one sentence.

    ``recall`` names the recall compared (default ``R@k``); :func:`changes` compares the recall of the
    whole lists, since a reranker moves documents into the top ``k`` without finding new ones.
    ``significant`` says whether the paired test of each difference (recall, MRR) is significant: a
    difference that is not is "no clear difference", and no verdict rests on it.

    Examples
    --------
    >>> pair_reading(0.0, 0.05, k=10)
    'R@10 unchanged, MRR@10 up (+0.0500): the same documents are found and ranked higher; the reranker is working.'
    >>> pair_reading(0.003, -0.07, k=10, significant=(False, False))
    'R@10 no clear difference (+0.0030), MRR@10 no clear difference (-0.0700): no clear difference.'
    """

    def word(x, clear):
        return "unchanged" if abs(x) < _SAME else ("up" if x > 0 else "down") if clear else "no clear difference"

    r, m = word(recall_delta, significant[0]), word(rr_delta, significant[1])
    head = f"{recall or f'R@{k}'} {r}" + ("" if r == "unchanged" else f" ({recall_delta:+.4f})")
    head += f", MRR@{k} {m}" + ("" if m == "unchanged" else f" ({rr_delta:+.4f})")
    flat = ("unchanged", "no clear difference")
    if r in flat and m == "up":
        tail = "the same documents are found and ranked higher; the reranker is working."
    elif r in flat and m == "down":
        tail = "the same documents are found but ranked lower; the reordering hurts."
    elif r == m == "unchanged":
        tail = "no change in what is found or where the first relevant document lands."
    elif r in flat:
        tail = "no clear difference."
    elif r == "up":
        tail = "more relevant documents are found: retrieval improved."
    else:
        tail = "relevant documents are no longer found: retrieval lost them; fix recall before ordering."
    return f"{head}: {tail}"


def _significant(table: pd.DataFrame, baseline: str, measures: list[str]) -> tuple[bool, ...]:
    """Whether the paired t-test of each measure, system against baseline, is significant at 5%."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        result = stats.compare(table, baseline=baseline, measures=measures, test="t", correction=None)
    p = result.table.set_index("measure")["p_value"]
    return tuple(bool(np.isfinite(p[m]) and p[m] < 0.05) for m in measures)


#: a cutoff beyond any list: R at it is the recall of the whole list
_WHOLE_LIST = 2**31 - 1


@with_options(EVAL)
def changes(
    options: EvalOptions, run, qrels=None, *, system, baseline, measure=None, k: int = 10, **_: Unpack[EvalKeywords]
) -> pd.DataFrame:
    """What ``system`` changed against ``baseline``, query by query.

    Parameters
    ----------
    run : DataFrame or dict of DataFrames
        A run holding both systems (a ``system`` column), or ``{name: run frame}``.
    qrels : DataFrame, path or dict, optional
        Judgements; without them the run's own relevance column (closed world).
    system, baseline : str
        The two systems; every difference is ``system - baseline``.
    measure : str, optional
        The measure compared (default ``RR@k``).
    k : int, default 10
        The top ``k`` whose entries and exits are listed, and the depth of RBO and tau_AP.

    Returns
    -------
    DataFrame
        One row per query, sorted by ``delta`` (most hurt first): ``query_id``,
        ``baseline_value``, ``system_value``, ``delta``, ``outcome`` (``'helped'``,
        ``'hurt'``, ``'unchanged'``), ``recall_delta`` and ``rr_delta`` (the recall of the whole list, or of its first ``depth``
        items, and RR@k),
        ``entered`` and ``left`` (tuples of the relevant doc ids that entered or left
        the top k), ``n_entered``, ``n_left``, ``moves`` (a tuple of
        ``(doc_id, baseline_rank, system_rank)`` for every relevant document in
        either top k whose rank changed, None where a list lacks it; shown as
        ``d1: rank 3 -> 1``, see :class:`ChangesTable`),
        ``rbo`` and ``tau_ap`` (between the two top-k lists; no labels needed).
        ``attrs["rankviz"]`` holds ``system``, ``baseline``, ``measure``, ``k``,
        ``helped``, ``hurt``, ``unchanged`` (counts), ``recall_delta``, ``rr_delta``
        (mean differences) and ``reading`` (the recall-vs-MRR sentence).

    Notes
    -----
    Ranks are trec_eval's order (score descending, doc id descending), after
    ``depth``. RBO is the extrapolated rank-biased overlap with persistence 0.9
    (:func:`rank_biased_overlap`); tau_AP (:func:`tau_ap`) orders the documents both
    top-k lists hold, the system's order against the baseline's, and is NaN when they
    share fewer than two.

    Examples
    --------
    >>> import rankviz
    >>> run, qrels, _ = rankviz.datasets.load_example()
    >>> table = rankviz.changes(run, qrels, system="bm25+rerank", baseline="bm25", k=10)
    >>> table.attrs["rankviz"]["helped"] > table.attrs["rankviz"]["hurt"]
    True
    """
    return changes_of(run, qrels, options, system=system, baseline=baseline, measure=measure, k=k)


def changes_of(run, qrels, options: EvalOptions, *, system, baseline, measure, k) -> pd.DataFrame:
    """:func:`changes` with the options already validated (what ``df.rank.plot.changes`` calls)."""
    caller = "changes"
    k = check_cutoff(k, caller, allow_none=False)
    system, baseline = str(system), str(baseline)
    if system == baseline:
        raise InputError(f"{caller}: system and baseline are both {system!r}; name two different systems.")
    (chosen,) = with_rel([parse_measure(measure if measure is not None else f"RR@{k}")], options.rel)
    rel = 1 if options.rel is None else options.rel
    # The reading compares what the lists find at all (recall of the whole list, or of its first `depth`
    # items), not R@k: a reranker moves relevant documents into the top k without finding new ones.
    whole = options.depth if options.depth is not None else _WHOLE_LIST
    rr, recall = with_rel([parse_measure(f"RR@{k}"), parse_measure(f"R@{whole}")], options.rel)
    names = list(dict.fromkeys([chosen.name, rr.name, recall.name]))
    table = per_query_table(run, names, qrels, options)
    if "system" not in table.columns:
        raise InputError(f"{caller} compares two systems: the run needs a system column (or pass {{name: run}}).")
    wide = {}
    for who in (baseline, system):
        part = table[table["system"] == who]
        if part.empty:
            known = ", ".join(map(repr, pd.unique(table["system"])))
            raise InputError(f"{caller}: unknown system {who!r}; the run has {known}.")
        wide[who] = part.set_index("query_id")[names]
    joined = wide[baseline].add_suffix("_b").join(wide[system].add_suffix("_s"), how="inner")
    lists, relevant = _ranked_lists(run, qrels, (baseline, system), options, rel, caller)
    roles = (chosen.name, rr.name, recall.name)
    rows = [_query_row(q, joined.loc[q], roles, lists, relevant, baseline, system, k) for q in joined.index]
    result = ChangesTable(pd.DataFrame(rows, columns=_COLUMNS))
    result = result.sort_values(["delta", "query_id"], kind="mergesort").reset_index(drop=True)
    counts = result["outcome"].value_counts()
    recall_delta, rr_delta = float(result["recall_delta"].mean()), float(result["rr_delta"].mean())
    result.attrs["rankviz"] = {
        "system": system, "baseline": baseline, "measure": chosen.name, "k": k,
        "helped": int(counts.get("helped", 0)), "hurt": int(counts.get("hurt", 0)),
        "unchanged": int(counts.get("unchanged", 0)), "recall_delta": recall_delta, "rr_delta": rr_delta,
        "reading": pair_reading(
            recall_delta, rr_delta, k=k, recall="recall" if options.depth is None else f"R@{options.depth}",
            significant=_significant(table[table["system"].isin([baseline, system])], baseline,
                                     [recall.name, rr.name]),
        ),
    }  # fmt: skip
    return result


def _docs_text(docs) -> str:
    """A tuple of doc ids as a reader sees it: ``r1, r2``, or ``none``."""
    if not isinstance(docs, tuple):
        return docs
    return ", ".join(map(str, docs)) if docs else "none"


def _moves_text(moves) -> str:
    """``(("r1", 3, 1), ("r2", 1, None))`` as ``r1: rank 3 -> 1; r2: rank 1 -> not retrieved``, or ``none``."""
    if not isinstance(moves, tuple):
        return moves
    if not moves:
        return "none"

    def rank(r):
        return "not retrieved" if r is None else str(r)

    return "; ".join(f"{d}: rank {rank(b)} -> {rank(s)}" for d, b, s in moves)


class ChangesTable(pd.DataFrame):
    """The table :func:`changes` returns: a DataFrame whose ``entered``, ``left`` and ``moves`` read as words.

    The cells keep their tuples (``table["moves"].iloc[0]`` is ``(("r1", 3, 1),)``); only the
    display (a notebook's HTML and ``repr``) writes them as ``r1, r2`` and ``r1: rank 3 -> 1``
    (``none`` for an empty tuple, ``not retrieved`` for a rank a list lacks), so that a page
    shows no raw tuples. Selections, sorts and ``head`` keep the display.
    """

    @property
    def _constructor(self):
        return ChangesTable

    def _shown(self) -> pd.DataFrame:
        shown = pd.DataFrame(self, copy=True)
        for column, text in (("entered", _docs_text), ("left", _docs_text), ("moves", _moves_text)):
            if column in shown.columns and not isinstance(shown[column], pd.DataFrame):
                shown[column] = shown[column].map(text)
        return shown

    def _repr_html_(self):
        shown: Any = self._shown()  # pandas-stubs do not declare _repr_html_
        return shown._repr_html_()

    def __repr__(self) -> str:
        return repr(self._shown())

    def to_string(self, *args, **kwargs) -> str:  # type: ignore[override]
        return self._shown().to_string(*args, **kwargs)


_COLUMNS = [
    "query_id", "baseline_value", "system_value", "delta", "outcome", "recall_delta", "rr_delta",
    "entered", "left", "n_entered", "n_left", "moves", "rbo", "tau_ap",
]  # fmt: skip


def _query_row(q, values, roles, lists, relevant, baseline, system, k) -> dict:
    chosen, rr, recall = roles
    b_list, s_list = lists[baseline].get(q, []), lists[system].get(q, [])
    b_rank = {d: i + 1 for i, d in enumerate(b_list)}
    s_rank = {d: i + 1 for i, d in enumerate(s_list)}
    mine = relevant.get(q, frozenset())
    b_top = [d for d in b_list[:k] if d in mine]
    s_top = [d for d in s_list[:k] if d in mine]
    entered = tuple(sorted(set(s_top) - set(b_top), key=s_rank.__getitem__))
    left = tuple(sorted(set(b_top) - set(s_top), key=b_rank.__getitem__))
    moves = tuple(
        (d, b_rank.get(d), s_rank.get(d))
        for d in sorted(set(b_top) | set(s_top), key=lambda d: (s_rank.get(d) or math.inf, d))
        if b_rank.get(d) != s_rank.get(d)
    )
    delta = float(values[f"{chosen}_s"] - values[f"{chosen}_b"])
    return {
        "query_id": q,
        "baseline_value": float(values[f"{chosen}_b"]),
        "system_value": float(values[f"{chosen}_s"]),
        "delta": delta,
        "outcome": "helped" if delta > 0 else "hurt" if delta < 0 else "unchanged",
        "recall_delta": float(values[f"{recall}_s"] - values[f"{recall}_b"]),
        "rr_delta": float(values[f"{rr}_s"] - values[f"{rr}_b"]),
        "entered": entered,
        "left": left,
        "n_entered": len(entered),
        "n_left": len(left),
        "moves": moves,
        "rbo": rank_biased_overlap(s_list[:k], b_list[:k]) if (s_list or b_list) else math.nan,
        "tau_ap": tau_ap(s_list[:k], b_list[:k]),
    }


def _ranked_lists(run, qrels, systems, options: EvalOptions, rel: int, caller: str):
    """({system: {query: [doc ids in trec_eval order, cut to depth]}}, {query: relevant doc ids})."""
    arrays, judged = run_arrays(
        read_run_input(run), read_judgements(qrels), caller=caller, columns=options.columns,
        order=options.order, score_dtype=options.score_dtype,
    )  # fmt: skip
    docs = np.asarray(arrays.docs.to_pylist(), dtype=object)
    frame = pd.DataFrame({"query": arrays.q_values[arrays.q_codes], "doc": docs, "key": arrays.key})
    frame["system"] = (
        np.asarray(arrays.systems, dtype=object)[arrays.sys_codes]
        if arrays.sys_codes is not None
        else (arrays.systems[0] if arrays.systems else None)
    )
    if judged is not None:
        grades = pd.DataFrame({"query": judged.query_ids, "doc": judged.doc_ids, "grade": judged.grades})
        relevant_rows = grades[grades["grade"] >= rel]
        judged_pairs = set(zip(grades.loc[grades["grade"] >= 0, "query"], grades.loc[grades["grade"] >= 0, "doc"]))
    else:
        frame["grade"] = arrays.grade
        relevant_rows = frame[frame["grade"] >= rel]
        judged_pairs = set(zip(frame.loc[frame["grade"].notna(), "query"], frame.loc[frame["grade"].notna(), "doc"]))
    relevant = {q: frozenset(part["doc"]) for q, part in relevant_rows.groupby("query", sort=False)}
    frame = frame[frame["system"].isin(systems)]
    frame = frame.sort_values(["system", "query", "key", "doc"], ascending=[True, True, False, False], kind="mergesort")
    lists: dict[Any, dict[Any, list]] = {s: {} for s in systems}
    for (s, q), part in frame.groupby(["system", "query"], sort=False):
        ids = part["doc"].tolist()
        if options.depth is not None:
            ids = ids[: options.depth]
        if options.judged_only:
            ids = [d for d in ids if (q, d) in judged_pairs]
        lists[s][q] = ids  # an empty slot of a retrieved list (MISSING_DOC) keeps its rank and is never relevant
    return lists, relevant
