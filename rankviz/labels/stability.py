"""Do the conclusions survive the other labeller? System orderings and significance under two sets of qrels.

Voorhees (2000) asked whether a second assessor changes the ranking of systems
(SIGIR '98 / IP&M 36(5)): :func:`stability` runs that experiment on the user's own
run and labels.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy import stats as sps

from .._core.checks import check_probability
from .._errors import InputError
from ..evaluation import evaluate
from ..measures import parse_measures

__all__ = ["stability", "tau_ap", "kendall_tau"]


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b between two score vectors over the same systems (NaN for fewer than 2 or a constant one)."""
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(sps.kendalltau(x, y).statistic)


def _order(values: np.ndarray, names: list[str]) -> np.ndarray:
    """Positions best first: by value descending, ties by name (so an ordering always exists)."""
    return np.array(sorted(range(len(values)), key=lambda i: (-values[i], names[i])), dtype=np.int64)


def tau_ap(reference: np.ndarray, other: np.ndarray, names: list[str]) -> float:
    """tau_AP (Yilmaz, Aslam and Robertson, SIGIR 2008) of the ordering by ``other`` against the one by ``reference``.

    ``tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1``, where ``i`` runs over the
    positions of the ordering by ``other`` and ``C(i)`` counts the systems above
    position ``i`` there that are also above it in the ordering by ``reference``.
    A swap near the top costs more than one near the bottom; it is not symmetric.
    Ties are broken by system name in both orderings.
    """
    n = len(reference)
    if n < 2:
        return float("nan")
    position = np.empty(n, dtype=np.int64)
    position[_order(reference, names)] = np.arange(n)
    ranked = position[_order(other, names)]  # reference position of each system, in the other ordering
    total = 0.0
    for i in range(1, n):
        total += np.count_nonzero(ranked[:i] < ranked[i]) / i
    return 2.0 * total / (n - 1) - 1.0


def _significant(x: np.ndarray, y: np.ndarray, alpha: float) -> int:
    """+1 / -1 when x is significantly better / worse than y (paired t-test, two-sided), else 0."""
    difference = x - y
    if len(difference) < 2 or np.all(difference == difference[0]):
        return 0 if np.all(difference == 0) or len(difference) < 2 else int(np.sign(difference[0]))
    p = sps.ttest_rel(x, y).pvalue
    return int(np.sign(difference.mean())) if p < alpha else 0


_VERDICT = {1: "significantly better", -1: "significantly worse", 0: "not significant"}


def _flip_text(flipped: list) -> str:
    """The flipped pairs in words: ``"x vs y: significantly worse → not significant"``, joined by ``"; "``."""
    return "; ".join(f"{x} vs {y}: {_VERDICT[a]} → {_VERDICT[b]}" for x, y, a, b in flipped)


def _swap_text(swapped: list) -> str:
    """The swapped pairs in words: ``"x ahead of y under a, behind under b"``, joined by ``"; "``."""
    return "; ".join(f"{x} ahead of {y} under a, behind under b" for x, y in swapped)


def _one_measure(wide_a: pd.DataFrame, wide_b: pd.DataFrame, name: str, alpha: float) -> dict:
    systems = list(wide_a.columns)
    mean_a, mean_b = wide_a.mean().to_numpy(), wide_b.mean().to_numpy()
    swapped, flipped = [], []
    for i, j in itertools.combinations(range(len(systems)), 2):
        if (mean_a[i] - mean_a[j]) * (mean_b[i] - mean_b[j]) < 0:
            first, second = (i, j) if mean_a[i] > mean_a[j] else (j, i)
            swapped.append((systems[first], systems[second]))
        sig_a = _significant(wide_a.iloc[:, i].to_numpy(), wide_a.iloc[:, j].to_numpy(), alpha)
        sig_b = _significant(wide_b.iloc[:, i].to_numpy(), wide_b.iloc[:, j].to_numpy(), alpha)
        if sig_a != sig_b:
            flipped.append((systems[i], systems[j], sig_a, sig_b))
    return {
        "measure": name, "kendall_tau": kendall_tau(mean_a, mean_b), "tau_ap": tau_ap(mean_a, mean_b, systems),
        "swapped_pairs": len(swapped), "flipped_significance": len(flipped),
        "appeared": sum(1 for *_, a, b in flipped if a == 0), "disappeared": sum(1 for *_, a, b in flipped if b == 0),
        "n_systems": len(systems), "n_queries": len(wide_a), "swapped": swapped, "flipped": flipped,
        "swapped_text": _swap_text(swapped), "flipped_text": _flip_text(flipped),
    }  # fmt: skip


def _wide(table: pd.DataFrame, name: str, queries) -> pd.DataFrame:
    wide = table.pivot(index="query_id", columns="system", values=name)
    return wide.loc[queries]


def stability(run, qrels_a, qrels_b, measures, *, alpha: float = 0.05, columns=None) -> pd.DataFrame:
    """Whether the ordering of systems, and its significant differences, survive a second set of labels.

    Parameters
    ----------
    run : DataFrame
        A run of several systems (a ``system`` column), or ``{name: run}``.
    qrels_a, qrels_b : DataFrame, path or dict
        The two sets of judgements; ``a`` is the reference (tau_AP is not symmetric).
    measures : str, Measure or list of them
        As for :func:`rankviz.evaluate`.
    alpha : float, default 0.05
        Significance level of the paired tests.
    columns : dict, optional
        Column names by role, as for :func:`rankviz.evaluate`.

    Returns
    -------
    DataFrame
        One row per measure: ``measure``; ``kendall_tau`` (tau-b between the means
        of the systems under a and under b); ``tau_ap``; ``swapped_pairs`` (pairs
        of systems whose order changes); ``flipped_significance`` (pairs whose
        paired test at ``alpha`` differs: significant under one set only, or in
        opposite directions), split into ``appeared`` (significant under b only)
        and ``disappeared`` (under a only); ``n_systems``, ``n_queries``; and the
        lists ``swapped`` (``(ahead under a, ahead under b)``) and ``flipped``
        (``(system, system, sign under a, sign under b)``, +1 when the first is
        significantly better, -1 when significantly worse, 0 when not significant);
        ``swapped_text`` and ``flipped_text`` say the same in words, one pair after
        another separated by ``"; "`` (``"bm25 vs bm25+rerank: significantly worse →
        not significant"``: under a the first system was significantly worse than the
        second, under b the difference is not significant), empty when there is none.

    Notes
    -----
    Both evaluations use the queries that both sets of qrels judge, so each
    comparison is paired by query. The paired test is Student's paired t-test,
    two-sided and uncorrected (one test per pair of systems, as in Voorhees 2000).
    tau_AP follows Yilmaz, Aslam and Robertson, "A new rank correlation coefficient
    for information retrieval", SIGIR 2008, with the ordering under ``qrels_a`` as
    the reference.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import labels
    >>> run = pd.DataFrame({"system": ["x", "x", "y", "y"], "query_id": ["q1"] * 4,
    ...                     "doc_id": ["d1", "d2", "d2", "d1"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> a = {"q1": {"d1": 1, "d2": 0}}
    >>> b = {"q1": {"d1": 0, "d2": 1}}
    >>> labels.stability(run, a, b, "RR@10")[["measure", "kendall_tau", "tau_ap", "swapped_pairs"]]
      measure  kendall_tau  tau_ap  swapped_pairs
    0   RR@10         -1.0    -1.0              1
    >>> labels.stability(run, a, b, "RR@10")["swapped_text"].iloc[0]
    'x ahead of y under a, behind under b'
    """
    alpha = check_probability(alpha, "alpha", "stability")
    names = [m.name for m in parse_measures(measures)]
    options = {} if columns is None else {"columns": columns}
    table_a = evaluate(run, names, qrels_a, per_query=True, **options)
    table_b = evaluate(run, names, qrels_b, per_query=True, **options)
    if "system" not in table_a.columns:
        raise InputError(
            "stability: the run has one system; pass a run of several (a 'system' column, or {name: run})."
        )
    queries = sorted(set(table_a["query_id"]) & set(table_b["query_id"]))
    if not queries:
        raise InputError("stability: no query is judged in both qrels_a and qrels_b; the two cannot be compared.")
    rows = [_one_measure(_wide(table_a, name, queries), _wide(table_b, name, queries), name, alpha) for name in names]
    result = pd.DataFrame(rows)
    result["measure"] = result["measure"].astype("str")
    return result
