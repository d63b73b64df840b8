"""Many systems at once: all-pairs paired tests and the significance table.

Every system is compared with every other on the same queries, per measure.

``test='tukey'``
    The randomized Tukey HSD for paired data (Carterette, TOIS 30(1), 2012; Sakai,
    *Statistical reform in IR?*, SIGIR Forum 48(1), 2014): in each permutation every
    query's scores are shuffled across all systems jointly (the pairing is kept: a
    query's scores stay that query's), the system means are recomputed, and the
    statistic is the largest absolute difference between two means. A pair's
    p-value is the share of permutations whose largest difference reaches the
    pair's observed difference, with the +1 correction of Phipson & Smyth (2010);
    exact when every permutation can be enumerated (``(S!)**n <= n_resamples``).
    Comparing every pair with the distribution of the *largest* difference
    controls the family-wise error over all pairs at once, so no further
    correction applies.
``test='randomization' | 't' | 'wilcoxon'``
    A paired test per pair (Fisher's sign-flip randomization test with the +1
    correction, the paired t-test, Wilcoxon's signed-rank test), corrected over the
    pairs of each measure by Holm (family-wise error) or Benjamini-Hochberg (false
    discovery rate).

Reproducibility: the random stream of a pair (randomization) or of the family
(Tukey) is a function of the seed, the sorted query ids and the sorted system
names only (:func:`rankviz.stats.resampling.query_stream`), so a pair's raw p-value
does not depend on the row order, on the measures or on the other systems of the
call; with Tukey the family is the set of systems, and its p-values are the same
for the same set. The family of a correction is the pairs of one measure.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.checks import check_choice, check_probability
from .._core.options import with_options
from .._errors import ColumnError, InputError
from ..io.per_query import per_query_table
from . import intervals
from .inference import (
    benjamini_hochberg_kept_nan,
    finite_scores,
    holm_kept_nan,
    t_test_p,
    warn_notes,
    wide_by_system,
)
from .options import ResampleKeywords, StatsGroup, StatsKeywords, StatsOptions
from .resampling import batch_size, check_budget, query_stream, randomization_p
from .segments import segment_columns
from .table_exports import SignificanceTable, system_labels

__all__ = ["TESTS", "CORRECTIONS", "tukey_hsd_p", "all_pairs", "significance_table", "significance_table_of"]

#: the tests of all_pairs() and significance_table()
TESTS = ("tukey", "randomization", "t", "wilcoxon")
#: 'auto' is Holm for the pairwise tests and none for Tukey's HSD (family-wise by construction)
CORRECTIONS = ("auto", "holm", "bh", None)

#: at most this many permutations are enumerated for an exact p-value (else Monte Carlo)
_MAX_EXACT = 1 << 20


def _name_words(names) -> tuple[int, ...]:
    """Seed material from system names (sorted), mixed with the query ids by query_stream."""
    digest = hashlib.blake2b("\x1e".join(sorted(map(str, names))).encode("utf-8"), digest_size=16).digest()
    return tuple(np.frombuffer(digest, dtype=np.uint32).tolist())


def _stream(entropy: tuple[int, ...], names, queries) -> np.random.Generator:
    return query_stream((*entropy, *_name_words(names)), queries)


def _null_hits(scores: np.ndarray, observed: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """How many permutations' largest mean difference reaches each observed |difference|.

    ``scores`` is (n queries, S systems, m measures); ``perms`` (b, n, S) gives, per
    permutation and query, which system's score each system receives.
    """
    n = scores.shape[0]
    permuted = scores[np.arange(n)[None, :, None], perms]  # (b, n, S, m)
    means = permuted.mean(axis=1)  # (b, S, m)
    largest = means.max(axis=1) - means.min(axis=1)  # (b, m)
    tol = 1e-12 * np.maximum(1.0, np.abs(scores).max(axis=(0, 1)))
    return (largest[:, None, None, :] >= observed[None] - tol).sum(axis=0)


def tukey_hsd_p(scores: np.ndarray, n_resamples: int, gen: np.random.Generator, batch: int | None = None):
    """Randomized Tukey HSD p-values of every pair of systems, per measure.

    Parameters
    ----------
    scores : ndarray, shape (n queries, S systems) or (n, S, m measures)
    n_resamples : int
        Permutations drawn (Monte Carlo), or the bound below which every one of the
        ``(S!)**n`` joint permutations is enumerated (exact).
    gen : numpy.random.Generator
    batch : int, optional
        Permutations drawn at once (bounds memory).

    Returns
    -------
    (ndarray (S, S, m) or (S, S), bool)
        Symmetric p-values (1 on the diagonal) and whether they are exact.

    Examples
    --------
    Two systems: the permutations are the sign flips of the paired differences.

    >>> import numpy as np
    >>> x = np.array([[0.5, 0.2], [0.9, 0.4], [0.3, 0.3], [0.8, 0.1]])
    >>> p, exact = tukey_hsd_p(x, 10_000, np.random.default_rng(0))
    >>> float(p[0, 1]), exact
    (0.25, True)
    """
    x = finite_scores(scores, "tukey_hsd_p")
    squeeze = x.ndim == 2
    x = x[:, :, None] if squeeze else x
    n, s, m = x.shape
    means = x.mean(axis=0)  # (S, m)
    observed = np.abs(means[:, None, :] - means[None, :, :])  # (S, S, m)
    n_orders = math.factorial(s)
    total = n_orders**n if n * math.log(n_orders) < math.log(_MAX_EXACT) + 1e-9 else math.inf
    if total <= min(n_resamples, _MAX_EXACT):
        orders = np.array(list(itertools.permutations(range(s))), dtype=np.intp)
        choice = np.array(list(itertools.product(range(len(orders)), repeat=n)), dtype=np.intp).reshape(-1, n)
        p = _null_hits(x, observed, orders[choice]) / total
        exact = True
    else:
        check_budget(n_resamples, n * s, 0, "table")
        step = batch or max(1, (1 << 22) // max(1, n * s * m))
        hits = np.zeros((s, s, m))
        for start in range(0, n_resamples, step):
            b = min(step, n_resamples - start)
            perms = np.argsort(gen.random((b, n, s)), axis=2)
            hits += _null_hits(x, observed, perms)
        p = (hits + 1.0) / (n_resamples + 1.0)
        exact = False
    p = np.minimum(p, 1.0)
    p[np.arange(s), np.arange(s), :] = 1.0
    return (p[:, :, 0] if squeeze else p), exact


def _pairwise_p(d: np.ndarray, test: str, p_random, label: str, notes: list) -> float:
    """The p-value of one pair and measure from its per-query differences ``d``."""
    if test == "randomization":
        return float(p_random)
    if not np.any(d != 0):
        notes.append(f"{label}: every difference is zero; p-value set to 1")
        return 1.0
    if test == "t":
        sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
        if not sd > 1e-12 * max(1.0, abs(float(d.mean()))):
            notes.append(
                f"{label}: every query changes by the same amount, so the t-test is undefined (zero variance); "
                "the pair counts as not significant: use test='randomization' or 'tukey'"
            )
            return math.nan
        return float(t_test_p(d))
    from scipy.stats import wilcoxon

    return float(wilcoxon(d, zero_method="wilcox").pvalue)


def _complete_block(wide: dict[str, pd.DataFrame], caller: str) -> list:
    """The sorted query ids every system has; refuse systems with different query sets."""
    sets = {name: set(frame.index) for name, frame in wide.items()}
    union = set().union(*sets.values())
    for name, queries in sets.items():
        if queries != union:
            lacking = sorted(map(str, union - queries))
            raise InputError(
                f"{caller}: system {name!r} lacks {len(lacking)} of the {len(union)} queries the other systems have "
                f"(e.g. {lacking[0]!r}); every system must be evaluated on the same queries for its means and tests to "
                "be comparable. Evaluate with missing='zero' (the default, trec_eval -c), or drop those queries for "
                "every system."
            )
    return sorted(union, key=str)


def _resolve(table, measures, caller: str, chosen=None):
    """(measure names, {system: wide frame on the common queries}, sorted query ids) of a per-query table."""
    resolved = per_query_table(table, caller)
    if resolved.system is None:
        raise ColumnError(
            f"{caller} compares several systems: give a per-query table with a 'system' column (rankviz.evaluate("
            "run, measures, qrels, per_query=True) on a run with one), or a run frame with one (df.rank.table)."
        )
    names = resolved.measure_columns(measures, caller)
    wide = wide_by_system(resolved, names, caller)
    if len(wide) < 2:
        raise InputError(f"{caller}: the table holds one system ({next(iter(wide))!r}); there is no pair to compare.")
    queries = _complete_block(wide, caller)
    order = system_order(resolved.frame[resolved.system], wide, chosen, caller)
    return names, {name: wide[name].loc[queries] for name in order}, queries


def system_order(column: pd.Series, names, chosen=None, caller: str = "table") -> list[str]:
    """The systems' order in every many-system result: never the row order, so shuffled rows change nothing.

    ``chosen`` (every system once, in the order wanted) when given; else a
    categorical ``system`` column's categories (``pd.Categorical(..., categories=
    ["bm25", "dense"])``); else the names sorted.
    """
    present = {str(n) for n in names}
    if chosen is not None:
        wanted = [str(s) for s in ([chosen] if isinstance(chosen, str) else chosen)]
        if sorted(wanted) != sorted(present):
            missing, extra = sorted(present - set(wanted)), sorted(set(wanted) - present)
            raise InputError(
                f"The 'system_order' parameter of {caller} must name every system of the table once"
                + (f"; it lacks {missing}" if missing else "")
                + (f"; the table has no {extra}" if extra else "")
                + ("; it repeats a name" if not missing and not extra else "")
                + f". The systems are {sorted(present)}."
            )
        return wanted
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [str(c) for c in column.cat.categories if str(c) in present]
    return sorted(present)


def _check_options(test, correction, caller: str):
    test = check_choice(test, "test", caller, TESTS)
    correction = check_choice(correction, "correction", caller, CORRECTIONS)
    if test == "tukey" and correction not in ("auto", None):
        raise InputError(
            f"{caller}: test='tukey' already controls the family-wise error over all pairs (each pair is compared "
            f"with the largest difference of any pair); a {correction!r} correction on top would be applied twice. "
            "Pass correction='auto' (or None), or a pairwise test such as test='randomization' with the correction."
        )
    resolved = None if test == "tukey" else ("holm" if correction == "auto" else correction)
    return test, resolved


def _pair_rows(wide, names, queries, test, n_resamples, entropy, batch, notes) -> tuple[list[dict], list[str]]:
    """One row per unordered pair x measure (raw p-values), and the measures whose p-values were exact."""
    systems = list(wide)
    values = np.stack([wide[s][names].to_numpy(dtype=np.float64) for s in systems], axis=1)  # (n, S, m)
    means = values.mean(axis=0)
    exact = []
    if test == "tukey":
        order = sorted(range(len(systems)), key=lambda i: systems[i])  # canonical column order: sorted names
        p_sorted, is_exact = tukey_hsd_p(values[:, order, :], n_resamples, _stream(entropy, systems, queries), batch)
        back = np.argsort(order)
        p_all = p_sorted[np.ix_(back, back)]
        exact = list(names) if is_exact else []
    rows = []
    for i, j in itertools.combinations(range(len(systems)), 2):
        a, b = systems[i], systems[j]
        d = values[:, i, :] - values[:, j, :]
        p_random = None
        if test == "randomization":
            first, second = sorted((a, b))
            oriented = d if first == a else -d
            gen = _stream(entropy, (a, b), queries)
            p_random, is_exact = randomization_p(
                oriented, n_resamples, gen, batch_size(len(queries), batch), caller="table"
            )
            if is_exact:
                exact.append(f"{a} vs {b}")
        for k, measure in enumerate(names):
            if test == "tukey":
                p = float(p_all[i, j, k])
            else:
                p = _pairwise_p(
                    d[:, k], test, None if p_random is None else p_random[k], f"{a} vs {b}, {measure}", notes
                )
            rows.append(
                {
                    "measure": measure,
                    "system": a,
                    "other": b,
                    "difference": float(means[i, k] - means[j, k]),
                    "p_value": p,
                }
            )
    return rows, exact


def _corrected(pairs: pd.DataFrame, correction: str | None, alpha: float) -> pd.DataFrame:
    """Add p_corrected (within each measure) and the winner of each significant pair."""
    adjust = None if correction is None else {"holm": holm_kept_nan, "bh": benjamini_hochberg_kept_nan}.get(correction)
    corrected = pairs["p_value"].to_numpy(dtype=np.float64).copy()
    if adjust is not None:
        for measure in pd.unique(pairs["measure"]):
            mask = (pairs["measure"] == measure).to_numpy()
            corrected[mask] = adjust(corrected[mask])
    pairs = pairs.assign(p_corrected=corrected)
    significant = (pairs["p_corrected"] < alpha) & (pairs["difference"] != 0)
    better = np.where(pairs["difference"] > 0, pairs["system"], pairs["other"])
    pairs["significant"] = significant.to_numpy(dtype=bool)
    pairs["better"] = pd.array([b if s else None for b, s in zip(better, pairs["significant"])], dtype="str")
    return pairs


@with_options(StatsGroup(optional_level=True, exclude=("confidence_level", "method")))
def all_pairs(
    stats_options: StatsOptions,
    table: pd.DataFrame,
    measures=None,
    *,
    test: str = "tukey",
    correction: str | None = "auto",
    alpha: float = 0.05,
    **_: Unpack[ResampleKeywords],
) -> pd.DataFrame:
    """Paired tests of every pair of systems, per measure, on a per-query table.

    Parameters
    ----------
    table : DataFrame
        A per-query table with a ``system`` column; every system must have the
        same queries.
    measures : str or list, optional
        Measure columns (default: all numeric ones).
    test : {'tukey', 'randomization', 't', 'wilcoxon'}, default 'tukey'
        The randomized Tukey HSD over all systems jointly, or a paired test per pair.
        ``n_resamples`` counts the permutations (Tukey) or the sign flips
        (randomization), per family or per pair.
    correction : {'auto', 'holm', 'bh', None}, default 'auto'
        Over the pairs of each measure: 'auto' is Holm for a pairwise test and
        nothing for Tukey's HSD (which controls the family-wise error itself).
    alpha : float, default 0.05
        A pair is significant when its corrected p-value is below ``alpha``.

    Returns
    -------
    DataFrame
        One row per measure x unordered pair: ``measure``, ``system``, ``other``
        (in the order of :func:`system_order`: a categorical column's categories,
        else the names sorted), ``difference`` (mean of ``system`` minus mean of
        ``other``), ``p_value``, ``p_corrected`` (equal to ``p_value``
        for Tukey and without correction), ``significant`` and ``better`` (the
        system with the higher mean when significant). ``attrs['rankviz']``
        records the test, the correction, the seed and the exact p-values.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...                       "query_id": ["q1", "q2", "q3", "q4"] * 3,
    ...                       "AP": [0.5, 0.9, 0.3, 0.8, 0.2, 0.4, 0.3, 0.1, 0.4, 0.5, 0.2, 0.6]})
    >>> pairs = rankviz.stats.all_pairs(table, "AP", rng=0)
    >>> pairs[["system", "other", "difference", "p_value"]].round(4)
      system other  difference  p_value
    0      a     b       0.375   0.0370
    1      a     c       0.200   0.5833
    2      b     c      -0.175   0.6667
    """
    pairs, _ = _tested(table, measures, test, correction, alpha, stats_options, "all_pairs")
    return pairs


def _tested(table, measures, test, correction, alpha, cfg: StatsOptions, caller: str, chosen=None):
    """(pairs with their settings in attrs, {system: wide frame}, the call's entropy): what both public functions share."""
    test, resolved_correction = _check_options(test, correction, caller)
    alpha = check_probability(alpha, "alpha", caller)
    by = segment_columns(table)
    if by:  # no segment level yet: say so rather than test every segment's queries as one
        raise InputError(
            f"{caller}: the per-query table carries the segment column(s) {', '.join(map(repr, by))} "
            f"(evaluate(..., by=...)), and {caller} has no segment level yet. Pass the table without them, "
            f"table.drop(columns={by!r}), after keeping one segment's rows if that is what you want "
            f"(table[table[{by[0]!r}] == value])."
        )
    names, wide, queries = _resolve(table, measures, caller, chosen)
    notes: list[str] = []
    rows, exact = _pair_rows(wide, names, queries, test, cfg.n_resamples, cfg.entropy, cfg.batch, notes)
    warn_notes(notes, caller)
    pairs = _corrected(pd.DataFrame(rows), resolved_correction, alpha)
    pairs.attrs["rankviz"] = {
        "test": test,
        "correction": resolved_correction,
        "alpha": alpha,
        "n_resamples": cfg.n_resamples,
        "measures": names,
        "rng": cfg.seed,
        "exact": tuple(exact),
        "n_queries": len(queries),
        "notes": tuple(dict.fromkeys(notes)),
    }
    return pairs, wide


def _intervals(table, names, cfg: StatsOptions):
    """(ci_low, ci_high) frames (system x measure) from stats.bootstrap, or (None, None)."""
    if cfg.confidence_level is None:
        return None, None
    results = intervals.bootstrap_of(table, names, cfg, "significance_table").to_frame()
    low = results.pivot(index="system", columns="measure", values="ci_low")
    high = results.pivot(index="system", columns="measure", values="ci_high")
    return low, high


@with_options(StatsGroup(optional_level=True))
def significance_table(
    stats_options: StatsOptions,
    table: pd.DataFrame,
    measures=None,
    *,
    test: str = "tukey",
    correction: str | None = "auto",
    alpha: float = 0.05,
    system_order=None,
    **_: Unpack[StatsKeywords],
) -> SignificanceTable:
    """The systems x measures table of means, with the systems each one is significantly better than.

    ``confidence_level`` adds bootstrap intervals of each mean (:func:`rankviz.stats.bootstrap`, with
    ``method`` and the same seed); ``confidence_level=None`` leaves them out.

    Parameters
    ----------
    table : DataFrame
        A per-query table with a ``system`` column (every system on the same queries).
    measures : str or list, optional
        Measure columns, in the order of the table's columns (default: all).
    test : {'tukey', 'randomization', 't', 'wilcoxon'}, default 'tukey'
        See :func:`all_pairs`.
    correction : {'auto', 'holm', 'bh', None}, default 'auto'
        See :func:`all_pairs`.
    alpha : float, default 0.05
        See :func:`all_pairs`.
    system_order : list of str, optional
        The rows' order, every system once (a baseline first, say); it decides the
        letters a, b, c, ... Default: see Returns.

    Returns
    -------
    SignificanceTable
        Rows are the systems, labelled a, b, c, ... in a stable order that never
        depends on the rows' order: ``system_order``, else a categorical ``system``
        column's categories, else the names sorted; columns the measures; ``.to_latex()``, ``.to_markdown()``, ``.to_frame()`` and the
        notebook view.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"system": ["a"] * 6 + ["b"] * 6,
    ...                       "query_id": [f"q{i}" for i in range(6)] * 2,
    ...                       "AP": [0.9, 0.8, 0.7, 0.9, 0.6, 0.8, 0.1, 0.2, 0.1, 0.3, 0.2, 0.1]})
    >>> result = rankviz.stats.significance_table(table, "AP", confidence_level=None, rng=0)
    >>> result.better_than("a", "AP"), result.better_than("b", "AP")
    (('b',), ())
    """
    return significance_table_of(
        table,
        measures,
        test=test,
        correction=correction,
        alpha=alpha,
        cfg=stats_options,
        system_order=system_order,
    )


def significance_table_of(
    table,
    measures,
    *,
    test,
    correction,
    alpha,
    cfg: StatsOptions,
    system_order=None,
    caller: str = "significance_table",
) -> SignificanceTable:
    """:func:`significance_table` with its statistics options already validated (what ``rankviz.table`` calls)."""
    pairs, wide = _tested(table, measures, test, correction, alpha, cfg, caller, system_order)
    how = pairs.attrs["rankviz"]
    names, systems = how["measures"], tuple(wide)
    means = pd.DataFrame(
        {m: [float(wide[s][m].mean()) for s in systems] for m in names}, index=pd.Index(systems, name="system")
    )
    low, high = _intervals(table, names, cfg)
    return SignificanceTable(
        systems=systems,
        measures=tuple(names),
        labels=system_labels(len(systems)),
        means=means,
        ci_low=None if low is None else low.loc[list(systems), names],
        ci_high=None if high is None else high.loc[list(systems), names],
        pairs=pairs,
        test=how["test"],
        correction=how["correction"],
        alpha=how["alpha"],
        confidence_level=cfg.confidence_level,
        n_resamples=how["n_resamples"],
        rng=how["rng"],
        n_queries=how["n_queries"],
        exact=how["exact"],
        notes=how["notes"],
    )
