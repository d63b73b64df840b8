"""Paired comparisons across a suite: the macro-average difference, a stratified t-interval and a
stratified randomization test.

The statistic is the macro-average difference ``sum_d mean_d(system - baseline) / D``, a weighted sum of
the per-query differences (each query of dataset ``d`` weighs ``1 / (D n_d)``). Under the null of no
difference every query's sign is exchangeable *within its dataset*, so the randomization test flips the
signs of the per-query differences and keeps the weights: a stratified sign-flip test (+1 corrected,
Phipson & Smyth 2010). The interval is the stratified t-interval: variance ``sum_d s_d^2 / (n_d D^2)``
with Satterthwaite's degrees of freedom.
"""

from __future__ import annotations

import math
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.checks import check_choice
from .._core.options import with_options
from .._errors import InputError
from .inference import benjamini_hochberg_kept_nan, holm_kept_nan
from .options import IntervalKeywords, StatsGroup, StatsOptions
from .resampling import check_budget, query_stream
from .results import Comparison
from .suites import measure_columns, suite_matrices

__all__ = ["suite_compare", "suite_compare_of"]


@with_options(StatsGroup(methods=("t",), method="t", exclude=("batch",)))
def suite_compare(
    stats_options: StatsOptions,
    table: pd.DataFrame,
    *,
    baseline: str,
    measures=None,
    correction: str | None = "holm",
    **_: Unpack[IntervalKeywords],
) -> Comparison:
    """Each system against a baseline on the macro average of a suite, paired by query within each dataset.

    Parameters
    ----------
    table : DataFrame
        A per-query suite table (``dataset``, ``system``, ``query_id``, measure columns).
    baseline : str
        The system the others are compared with.
    measures : str or list of str, optional
        The measure columns (default: all).
    correction : {'holm', 'bh', None}, default 'holm'
        Over every system x measure of the call.

    Returns
    -------
    Comparison
        One row per system x measure: ``difference`` (of the macro averages), the stratified t-interval
        ``ci_low``/``ci_high``, the stratified randomization ``p_value`` and ``p_corrected``, ``n_datasets``,
        ``n_queries``, wins/ties/losses over all queries; ``test`` is ``'stratified randomization'``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, rankviz
    >>> rng = np.random.default_rng(0)
    >>> rows = [(d, s, f"q{i}", float(rng.random() + (0.1 if s == "new" else 0.0)))
    ...         for d in "abc" for i in range(40) for s in ("base", "new")]
    >>> table = pd.DataFrame(rows, columns=["dataset", "system", "query_id", "nDCG@10"])
    >>> res = rankviz.stats.suite_compare(table, baseline="base", rng=0)
    >>> res.test, bool(res.table["p_value"].iloc[0] < 0.05)
    ('stratified randomization', True)
    """
    return suite_compare_of(table, baseline=baseline, measures=measures, correction=correction, cfg=stats_options)


def suite_compare_of(
    table: pd.DataFrame, *, baseline, measures, correction, cfg: StatsOptions, caller: str = "suite_compare"
) -> Comparison:
    """:func:`suite_compare` with its options validated (what ``rankviz.compare`` of a suite calls)."""
    from scipy import stats as sps

    correction = check_choice(correction, "correction", caller, ("holm", "bh", None))
    names = measure_columns(table, measures, caller)
    rows = []
    for measure in names:
        datasets, systems, mats = suite_matrices(table, measure, caller)
        if str(baseline) not in systems:
            raise InputError(
                f"The 'baseline' parameter of {caller} must be one of {systems}. Got {baseline!r} instead."
            )
        others = [s for s in systems if s != str(baseline)]
        if not others:
            raise InputError(f"{caller}: there is no system to compare with the baseline {baseline!r}.")
        j = systems.index(str(baseline))
        k = len(datasets)
        sizes = np.array([m.shape[0] for m in mats], dtype=float)
        weights = np.concatenate([np.full(m.shape[0], 1.0 / (k * m.shape[0])) for m in mats])
        n = int(sizes.sum())
        check_budget(cfg.n_resamples, n, 0, caller)
        keys = [f"{d}\x1e{i}" for d, m in zip(datasets, mats, strict=True) for i in range(m.shape[0])]
        for name in others:
            i = systems.index(name)
            parts = [m[:, i] - m[:, j] for m in mats]
            diffs = np.concatenate(parts)
            estimate = float(weights @ diffs)
            pieces = np.array([p.var(ddof=1) / (len(p) * k * k) if len(p) > 1 else 0.0 for p in parts])
            se = math.sqrt(float(pieces.sum()))
            denominator = float(sum(v * v / (len(p) - 1) for v, p in zip(pieces, parts, strict=True) if len(p) > 1))
            df = (se**4 / denominator) if denominator > 0 else max(n - 1, 1)
            half = float(sps.t.ppf(0.5 + cfg.level / 2, df)) * se
            rng = query_stream(cfg.entropy, keys)
            weighted = weights * diffs
            observed = abs(estimate)
            tol = 1e-12 * max(1.0, float(np.abs(weighted).max(initial=0.0))) * n
            hits = 0
            batch = max(1, (1 << 22) // max(n, 1))
            for start in range(0, cfg.n_resamples, batch):
                b = min(batch, cfg.n_resamples - start)
                signs = rng.integers(0, 2, size=(b, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
                hits += int(np.count_nonzero(np.abs(signs @ weighted) >= observed - tol))
            base_macro = float(np.mean([m[:, j].mean() for m in mats]))
            rows.append(
                {
                    "system": name,
                    "baseline": str(baseline),
                    "measure": measure,
                    "n_datasets": k,
                    "n_queries": n,
                    "baseline_mean": base_macro,
                    "system_mean": base_macro + estimate,
                    "difference": estimate,
                    "ci_low": estimate - half,
                    "ci_high": estimate + half,
                    "ci_method": "stratified t",
                    "p_value": (hits + 1.0) / (cfg.n_resamples + 1.0),
                    "wins": int(np.count_nonzero(diffs > 0)),
                    "ties": int(np.count_nonzero(diffs == 0)),
                    "losses": int(np.count_nonzero(diffs < 0)),
                }
            )
    result = pd.DataFrame(rows)
    order = {name: i for i, name in enumerate(dict.fromkeys(result["system"]))}
    result = result.sort_values(  # system by system, then the measures in the order asked (as compare orders them)
        ["system", "measure"], key=lambda c: c.map(order) if c.name == "system" else c.map(names.index), kind="stable"
    ).reset_index(drop=True)
    p = result["p_value"].to_numpy()
    result["p_corrected"] = (
        holm_kept_nan(p) if correction == "holm" else benjamini_hochberg_kept_nan(p) if correction == "bh" else p
    )
    return Comparison(
        table=result,
        baseline=str(baseline),
        test="stratified randomization",
        correction=correction,
        method="stratified t",
        confidence_level=cfg.level,
        n_resamples=cfg.n_resamples,
        rng=cfg.seed,
    )
