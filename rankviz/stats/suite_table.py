"""The significance table of a suite: each dataset's column, then the macro average with its tiers.

Per measure the columns are each dataset's mean, its letters decided exactly as the one-collection
table decides them on that dataset alone (:func:`rankviz.stats.many_systems.significance_table_of`),
then the macro average (the mean of the dataset means). The macro column's letters come from the
simultaneous band of :func:`rankviz.stats.rank_intervals.ranks_of` at confidence ``1 - alpha`` (a
paired bootstrap of queries within each dataset): a system beats another when their macro averages
differ by more than the band. The tiers beside it are the same band's compact letters, so letters
and tiers never disagree, and they equal ``rankviz.ranks`` of the suite at that level and seed.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from .._errors import InputError
from .many_systems import significance_table_of
from .options import StatsOptions
from .rank_intervals import ranks_of
from .suites import MACRO, stratified_means, suite_matrices
from .table_exports import SignificanceTable, system_labels

__all__ = ["suite_significance_table", "suite_column"]


def suite_column(dataset: str, measure: str) -> str:
    """The name of a suite table's column: ``"<dataset>: <measure>"`` (the macro average's dataset is ``MACRO``)."""
    return f"{dataset}: {measure}"


def _macro_intervals(table: pd.DataFrame, measure: str, systems, cfg: StatsOptions, caller: str):
    """Percentile intervals of each system's macro average, queries resampled within each dataset."""
    datasets, order, mats = suite_matrices(table, measure, caller)
    boot = stratified_means(mats, datasets, cfg.n_resamples, cfg.entropy).mean(axis=1)  # (B, S)
    tail = (1 - cfg.level) / 2
    low, high = np.quantile(boot, [tail, 1 - tail], axis=0)
    at = [order.index(s) for s in systems]
    return low[at], high[at]


def _band_pairs(label: str, systems, values: np.ndarray, board, columns: list[str]) -> pd.DataFrame:
    """The pairs of a macro-average column: significant when the band of ``board`` separates them (no p-value)."""
    estimate = dict(zip(board.table["system"], board.table["estimate"], strict=True))
    rows = []
    for i, j in itertools.combinations(range(len(systems)), 2):
        a, b = systems[i], systems[j]
        apart = estimate[a] - estimate[b]
        significant = bool(abs(apart) > board.width)
        rows.append(
            {
                "measure": label,
                "system": a,
                "other": b,
                "difference": float(values[i] - values[j]),
                "p_value": np.nan,
                "p_corrected": np.nan,
                "significant": significant,
                "better": (a if apart > 0 else b) if significant else None,
            }
        )
    frame = pd.DataFrame(rows, columns=columns)
    frame["better"] = frame["better"].astype("str").where(frame["significant"], None)
    return frame


def _dataset_tables(table, names, datasets, *, test, correction, alpha, cfg, system_order, caller):
    """The one-collection table of each dataset alone, refusing datasets with different systems."""
    parts = {
        d: significance_table_of(
            table[table["dataset"].astype(str) == d].drop(columns="dataset").reset_index(drop=True),
            names,
            test=test,
            correction=correction,
            alpha=alpha,
            cfg=cfg,
            system_order=system_order,
            caller=caller,
        )
        for d in datasets
    }
    systems = parts[datasets[0]].systems
    for d, part in parts.items():
        if set(part.systems) != set(systems):
            raise InputError(
                f"{caller}: dataset {d!r} has the systems {list(part.systems)}, dataset {datasets[0]!r} has "
                f"{list(systems)}; a suite's table needs every system on every dataset."
            )
    return parts


def suite_significance_table(
    table: pd.DataFrame,
    names: list[str],
    *,
    test,
    correction,
    alpha,
    cfg: StatsOptions,
    system_order=None,
    macro: pd.DataFrame | None = None,
    caller: str = "table",
) -> SignificanceTable:
    """The :class:`SignificanceTable` of a per-query suite table (``dataset``, ``system``, ``query_id``, measures).

    ``macro`` (system x measure) gives the macro averages as ``rankviz.evaluate`` computed them;
    by default the mean of the per-dataset columns.
    """
    datasets = sorted(table["dataset"].astype(str).unique())
    if not datasets:
        raise InputError(f"{caller}: the suite is empty.")
    parts = _dataset_tables(
        table,
        names,
        datasets,
        test=test,
        correction=correction,
        alpha=alpha,
        cfg=cfg,
        system_order=system_order,
        caller=caller,
    )
    first = parts[datasets[0]]
    systems = first.systems
    columns, means, lows, highs, pairs, tiers, notes = [], {}, {}, {}, [], {}, []
    band = cfg.replace(confidence_level=1 - first.alpha)
    for m in names:
        for d in datasets:
            label = suite_column(d, m)
            columns.append(label)
            part = parts[d]
            means[label] = part.means.loc[list(systems), m].to_numpy()
            if part.ci_low is not None and part.ci_high is not None:
                lows[label] = part.ci_low.loc[list(systems), m].to_numpy()
                highs[label] = part.ci_high.loc[list(systems), m].to_numpy()
            pairs.append(part.pairs[part.pairs["measure"] == m].assign(measure=label))
        label = suite_column(MACRO, m)
        columns.append(label)
        values = (
            np.mean([parts[d].means.loc[list(systems), m].to_numpy() for d in datasets], axis=0)
            if macro is None
            else macro.loc[list(systems), m].to_numpy(dtype=np.float64)
        )
        means[label] = values
        if cfg.confidence_level is not None:
            lows[label], highs[label] = _macro_intervals(table, m, systems, cfg, caller)
        board = ranks_of(table[["dataset", "system", "query_id", m]], m, level="queries", cfg=band, caller=caller)
        tier = board.tiers
        tiers[label] = [tier[s] for s in systems]
        pairs.append(_band_pairs(label, systems, values, board, list(first.pairs.columns)))
        notes.append(
            f"{label}: separated when the macro averages differ by more than {board.width:.4g}, the "
            f"{band.level:.0%} simultaneous band of the paired bootstrap of queries within each dataset "
            f"({band.n_resamples} resamples); no p-values."
        )
    index = pd.Index(systems, name="system")
    for d, part in parts.items():
        notes.extend(f"{d}: {n}" for n in part.notes)
    return SignificanceTable(
        systems=systems,
        measures=tuple(columns),
        labels=system_labels(len(systems)),
        means=pd.DataFrame(means, index=index),
        ci_low=pd.DataFrame(lows, index=index) if cfg.confidence_level is not None else None,
        ci_high=pd.DataFrame(highs, index=index) if cfg.confidence_level is not None else None,
        pairs=pd.concat(pairs, ignore_index=True),
        test=first.test,
        correction=first.correction,
        alpha=first.alpha,
        confidence_level=cfg.confidence_level,
        n_resamples=first.n_resamples,
        rng=first.rng,
        n_queries=sum(part.n_queries for part in parts.values()),
        exact=tuple(f"{d}: {e}" for d, part in parts.items() for e in part.exact),
        notes=tuple(notes),
        tiers=pd.DataFrame(tiers, index=index),
        datasets=tuple(datasets),
    )
