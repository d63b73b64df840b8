"""Statistics across a suite of collections: stratified and two-level intervals, and a meta-analysis.

A *suite table* is a per-query table with a ``dataset`` column: ``dataset``, ``system``,
``query_id`` and one column per measure (a query id is unique only within its dataset). Two
questions get two intervals, and each result says which it answers:

Stratified bootstrap (``level="queries"``)
    "How sure are we of the mean on *these* datasets?" Queries are resampled within each
    dataset (the datasets are fixed); the interval of each dataset's mean and of the macro
    average (the mean of the dataset means, what BEIR and MTEB report) follow. Every system
    gets the same resamples (paired).
Two-level bootstrap (``level="datasets"``)
    "Would the average hold on *other* datasets like these?" The datasets are resampled
    first, then the queries within each drawn dataset (Davison & Hinkley 1997, sec. 3.8,
    the two-stage bootstrap of clustered data). It is wider: it adds the spread between datasets.
Random-effects meta-analysis
    The per-dataset paired mean differences pooled with DerSimonian & Laird's (1986) estimate of
    the between-dataset variance tau^2 and the Hartung-Knapp-Sidik-Jonkman interval (a t interval
    on k - 1 degrees of freedom, which keeps its coverage with few datasets where the plain normal
    interval does not; IntHout, Ioannidis & Borm 2014). Also I^2 (Higgins & Thompson 2002).
"""

from __future__ import annotations

import dataclasses
import html
import math
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.columns import check_key_cells, check_number_cells
from .._errors import DegenerateDataWarning, InputError, warn
from .options import IntervalKeywords, LevelKeywords, StatsGroup, StatsOptions, with_options
from .resampling import check_budget, query_stream
from .results import ConfidenceInterval, html_table

__all__ = [
    "SuiteIntervals",
    "MetaAnalysis",
    "suite_matrices",
    "measure_columns",
    "suite_intervals",
    "meta_analysis",
    "stratified_means",
    "MACRO",
    "WEIGHTED",
]

#: the name of the macro average's row (the mean of the dataset means)
MACRO = "(macro average)"
#: the name of the query-weighted average's row (every query counts once, whatever its dataset)
WEIGHTED = "(query-weighted average)"


def measure_columns(table: pd.DataFrame, measures, caller: str) -> list[str]:
    keys = {"dataset", "system", "query_id"}
    if measures is None:
        found = [c for c in table.columns if c not in keys and pd.api.types.is_numeric_dtype(table[c])]
    else:
        found = [measures] if isinstance(measures, str) else [str(m) for m in measures]
    missing = [m for m in found if m not in table.columns]
    if missing or not found:
        raise InputError(
            f"{caller}: the table has no measure column {missing or ''}; its columns are {list(table.columns)}. "
            "Pass a per-query suite table (rankviz.evaluate of a suite with per_query=True) and name its measures."
        )
    return found


def suite_matrices(table: pd.DataFrame, measure: str, caller: str) -> tuple[list[str], list[str], list[np.ndarray]]:
    """(datasets, systems, one queries x systems matrix per dataset) of one measure, refusing holes.

    Every system must have a value for every query of every dataset: a system missing from a dataset,
    or a query missing for one system, is named, with the fix.
    """
    for column in ("dataset", "query_id"):
        if column not in table.columns:
            raise InputError(
                f"{caller}: the table has no {column!r} column (columns: {list(table.columns)}). A suite table holds "
                "dataset, system, query_id and the measures: rankviz.evaluate(suite, measures, per_query=True) gives one."
            )
    frame = table if "system" in table.columns else table.assign(system="run")
    frame = frame[["dataset", "system", "query_id", measure]]
    for column, role in (("dataset", "dataset"), ("system", "system"), ("query_id", "query")):
        check_key_cells(frame, column, role, f"{caller} table")
    check_number_cells(frame, [measure], f"{caller} (suite table)", missing_ok=[measure])  # holes: named below
    datasets = sorted(frame["dataset"].astype(str).unique())
    systems = sorted(frame["system"].astype(str).unique())
    if not datasets:
        raise InputError(f"{caller}: the suite table is empty.")
    mats = []
    for dataset in datasets:
        part = frame[frame["dataset"].astype(str) == dataset]
        if part.duplicated(["system", "query_id"]).any():
            row = part[part.duplicated(["system", "query_id"])].iloc[0]
            raise InputError(
                f"{caller}: dataset {dataset!r} holds query {row['query_id']!r} of system {row['system']!r} twice; "
                "a per-query table has one row per dataset, system and query."
            )
        wide = part.pivot(index="query_id", columns="system", values=measure)
        wide.index = wide.index.astype(str)
        wide.columns = wide.columns.astype(str)
        absent = [s for s in systems if s not in wide.columns]
        if absent:
            raise InputError(
                f"{caller}: system(s) {absent} have no queries in dataset {dataset!r}. Compare systems on the datasets "
                "they share: evaluate the suite with missing='drop' (which drops them, with a warning), or add their runs."
            )
        wide = wide[systems].sort_index()
        holes = wide.isna()
        if holes.to_numpy().any():
            query = wide.index[holes.any(axis=1)][0]
            system = wide.columns[holes.loc[query]][0]
            raise InputError(
                f"{caller}: in dataset {dataset!r}, system {system!r} has no {measure} for query {query!r}. Every system "
                "needs a value for every query of a dataset (evaluate with the same qrels so missing queries score 0)."
            )
        mats.append(wide.to_numpy(dtype=np.float64))
    return datasets, systems, mats


def stratified_means(
    mats: list[np.ndarray], datasets: list[str], n_resamples: int, entropy: tuple[int, ...]
) -> np.ndarray:
    """Resampled means, shape (n_resamples, datasets, systems): queries resampled within each dataset.

    Each dataset's stream depends on the seed, the dataset's name and its sorted positions only,
    so adding a dataset to the suite does not move the others' resamples.
    """
    out = np.empty((n_resamples, len(mats), mats[0].shape[1]))
    for d, (name, mat) in enumerate(zip(datasets, mats, strict=True)):
        n = mat.shape[0]
        rng = query_stream(entropy, [f"{name}\x1e{i}" for i in range(n)])
        batch = max(1, (1 << 22) // max(n, 1))
        for start in range(0, n_resamples, batch):
            b = min(batch, n_resamples - start)
            draws = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
            counts = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
            out[start : start + b, d, :] = (counts @ mat) / n
    return out


def _dataset_weights(n_datasets: int, n_resamples: int, entropy: tuple[int, ...]) -> np.ndarray:
    """How often each dataset is drawn in each resample of the datasets (two-level bootstrap), (B, D)."""
    rng = query_stream(entropy, ["\x1ddatasets", str(n_datasets)])
    draws = rng.integers(0, n_datasets, size=(n_resamples, n_datasets)) + (np.arange(n_resamples) * n_datasets)[:, None]
    return np.bincount(draws.ravel(), minlength=n_resamples * n_datasets).reshape(n_resamples, n_datasets).astype(float)


@dataclasses.dataclass(frozen=True, repr=False)
class SuiteIntervals:
    """Means of a suite with percentile bootstrap intervals: per dataset, the macro and query-weighted averages.

    Parameters
    ----------
    table : DataFrame
        What :meth:`to_frame` returns: a row per measure x system x dataset (averages: :data:`MACRO`, :data:`WEIGHTED`).
    level : {'queries', 'datasets'}
        The bootstrap behind the averages' intervals (see :attr:`question`).
    confidence_level : float
        The intervals' level (0.95 for 95%).
    n_resamples : int
        Bootstrap resamples behind each interval.
    notes : tuple of str
        Caveats shown with the result.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"dataset": list("aabb"), "query_id": list("xyxy"), "RR@10": [1.0, 0.5, 0.0, 1.0]})
    >>> rankviz.stats.suite_intervals(table, "RR@10", n_resamples=100).level
    'queries'
    """

    table: pd.DataFrame
    level: str
    confidence_level: float
    n_resamples: int
    notes: tuple[str, ...] = ()

    @property
    def question(self) -> str:
        if self.level == "datasets":
            return (
                "two-level bootstrap (datasets, then queries): would the average hold on other datasets like these? "
                "The datasets are taken as a sample of a population of datasets."
            )
        return (
            "stratified bootstrap (queries within each dataset): how sure are we of the mean on these datasets? "
            "The datasets are fixed; the interval says nothing about other datasets."
        )

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def macro(self, measure: str | None = None) -> pd.DataFrame:
        """The macro average of each system (rows of ``to_frame`` whose dataset is :data:`MACRO`)."""
        rows = self.table[self.table["dataset"] == MACRO]
        return rows if measure is None else rows[rows["measure"] == measure]

    def __repr__(self) -> str:
        shown = self.table.round(4).to_string(index=False)
        return f"SuiteIntervals ({self.question})\n{shown}"

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(self.question)}</p>" + html_table(self.table)


@with_options(StatsGroup(methods=("percentile",), method="percentile", exclude=("batch",)))
def suite_intervals(stats_options: StatsOptions, table: pd.DataFrame, measures=None, *, level: str = "queries",
                    weighted: bool = False, **_: Unpack[IntervalKeywords]) -> SuiteIntervals:  # fmt: skip
    """Per-dataset means and the macro average of a suite, with stratified or two-level percentile intervals.

    Parameters
    ----------
    table : DataFrame
        A per-query suite table: ``dataset``, ``system`` (optional), ``query_id`` and measure columns, as
        ``rankviz.evaluate(suite, measures, per_query=True)`` gives.
    measures : str or list of str, optional
        The measure columns (default: every numeric column).
    level : {'queries', 'datasets'}, default 'queries'
        ``'queries'``: the stratified bootstrap (queries resampled within each dataset), the interval of
        the mean on *these* datasets. ``'datasets'``: the two-level bootstrap (datasets, then queries),
        the interval that generalises to datasets like these. Per-dataset intervals are stratified either way.
    weighted : bool, default False
        Also give the query-weighted average (every query counts once).

    Returns
    -------
    SuiteIntervals
        ``.to_frame()``: measure, system, dataset (a dataset name, ``'(macro average)'`` or
        ``'(query-weighted average)'``), n_queries, estimate, ci_low, ci_high; ``.question`` says in words
        which question the averages' intervals answer.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"dataset": ["a"] * 20 + ["b"] * 20, "query_id": [f"q{i}" for i in range(20)] * 2,
    ...                       "RR@10": [1.0, 0.5, 0.0, 0.25] * 5 + [0.0, 1.0] * 10})
    >>> res = rankviz.stats.suite_intervals(table, "RR@10", rng=0, n_resamples=2000)
    >>> float(res.macro()["estimate"].iloc[0])
    0.46875
    >>> res.level, list(res.macro()["dataset"])
    ('queries', ['(macro average)'])
    """
    caller = "suite_intervals"
    if level not in ("queries", "datasets"):
        raise InputError(
            f"The 'level' parameter of {caller} must be 'queries' (stratified: these datasets) or 'datasets' "
            f"(two-level: datasets like these). Got {level!r} instead."
        )
    n_resamples, confidence_level, entropy = stats_options.n_resamples, stats_options.level, stats_options.entropy
    alpha = (1 - confidence_level) / 2
    rows, notes = [], []
    for measure in measure_columns(table, measures, caller):
        datasets, systems, mats = suite_matrices(table, measure, caller)
        check_budget(n_resamples, max(m.shape[0] for m in mats), len(datasets) * len(systems), caller)
        means = np.stack([m.mean(axis=0) for m in mats])  # (D, S)
        sizes = np.array([m.shape[0] for m in mats], dtype=float)
        boot = stratified_means(mats, datasets, n_resamples, entropy)  # (B, D, S)
        for d, name in enumerate(datasets):
            low, high = np.quantile(boot[:, d, :], [alpha, 1 - alpha], axis=0)
            for s, system in enumerate(systems):
                rows.append((measure, system, name, int(sizes[d]), means[d, s], low[s], high[s]))
        if level == "datasets":
            if len(datasets) < 2:
                notes.append(
                    f"{measure}: one dataset cannot say how the average varies across datasets; the two-level "
                    "interval needs several (it is the stratified one here)."
                )
                weights = np.ones((n_resamples, len(datasets)))
            else:
                weights = _dataset_weights(len(datasets), n_resamples, entropy)
            macro_boot = np.einsum("bd,bds->bs", weights, boot) / len(datasets)
        else:
            macro_boot = boot.mean(axis=1)
        averages = [(MACRO, means.mean(axis=0), macro_boot)]
        if weighted:
            w = sizes / sizes.sum()
            averages.append((WEIGHTED, w @ means, np.einsum("d,bds->bs", w, boot)))
            if level == "datasets":
                notes.append("the query-weighted average's interval is stratified (queries within these datasets)")
        for name, estimate, dist in averages:
            low, high = np.quantile(dist, [alpha, 1 - alpha], axis=0)
            for s, system in enumerate(systems):
                rows.append((measure, system, name, int(sizes.sum()), estimate[s], low[s], high[s]))
    frame = pd.DataFrame(rows, columns=["measure", "system", "dataset", "n_queries", "estimate", "ci_low", "ci_high"])
    for note in notes:
        warn(f"{caller}: {note}", DegenerateDataWarning)
    return SuiteIntervals(frame, level, confidence_level, n_resamples, tuple(notes))


@dataclasses.dataclass(frozen=True, repr=False)
class MetaAnalysis:
    """A random-effects meta-analysis of one system's paired difference from a baseline, across datasets.

    Parameters
    ----------
    system, baseline, measure : str
        What is compared: ``system - baseline`` on ``measure``.
    per_dataset : DataFrame
        One row per dataset: difference, its standard error and interval, n_queries, weight.
    estimate, standard_error : float
        The pooled difference and its standard error.
    tau2, i2, q : float
        The between-dataset variance (DerSimonian-Laird), its share of the spread (I^2), Cochran's Q.
    confidence_interval, prediction_interval : ConfidenceInterval
        The pooled difference's interval, and where the difference on a new dataset would fall.
    confidence_level : float
        The level of both intervals.
    method : str
        How tau^2 and the interval were computed.
    notes : tuple of str
        Caveats shown with the result.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"dataset": list("aaaabbbbcccc"), "system": ["new", "base"] * 6, "query_id": list("xxyy") * 3, "P@1": [1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 0.5, 0.5, 1.0, 0.5, 1.0, 0.0]})
    >>> rankviz.stats.meta_analysis(table, "new", "base", "P@1").per_dataset["dataset"].tolist()
    ['a', 'b', 'c']
    """

    system: str
    baseline: str
    measure: str
    per_dataset: pd.DataFrame
    estimate: float
    standard_error: float
    confidence_interval: ConfidenceInterval
    prediction_interval: ConfidenceInterval
    tau2: float
    i2: float
    q: float
    confidence_level: float
    method: str = "DerSimonian-Laird tau^2, Hartung-Knapp-Sidik-Jonkman interval"
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The per-dataset rows, then the pooled row (dataset ``"(pooled)"``)."""
        pooled = pd.DataFrame(
            [
                {
                    "dataset": "(pooled)",
                    "n_queries": int(self.per_dataset["n_queries"].sum()),
                    "difference": self.estimate,
                    "standard_error": self.standard_error,
                    "ci_low": self.confidence_interval.low,
                    "ci_high": self.confidence_interval.high,
                    "weight": 1.0,
                }
            ]
        )
        return pd.concat([self.per_dataset, pooled], ignore_index=True)

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        return (
            f"MetaAnalysis {self.measure}: {self.system} - {self.baseline} over {len(self.per_dataset)} datasets\n"
            f"pooled {self.estimate:+.4f} [{low:+.4f}, {high:+.4f}] ({self.method}); tau^2 {self.tau2:.3g}, "
            f"I^2 {self.i2:.0%}" + "".join(f"\nnote: {n}" for n in self.notes)
        )

    def _repr_html_(self) -> str:
        head = html.escape(repr(self).splitlines()[1])
        return f"<p>{head}</p>" + html_table(self.to_frame())

    def plot(self, ax=None):
        """The forest plot: one row per dataset (difference and interval, marker sized by weight), the pooled diamond."""
        import matplotlib.pyplot as plt

        per = self.per_dataset
        k = len(per)
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.3 * k + 1.6), layout="constrained")
        y = np.arange(k)
        ax.hlines(y, per["ci_low"], per["ci_high"], color="#4c72b0")
        ax.scatter(per["difference"], y, s=20 + 200 * per["weight"], marker="s", color="#4c72b0", zorder=3)
        low, high = self.confidence_interval
        if np.isfinite(low):
            ax.fill([low, self.estimate, high, self.estimate], [k + 0.6, k + 0.35, k + 0.6, k + 0.85], color="#222222")
        ax.axvline(0.0, color="#888888", linewidth=0.8, linestyle="--")
        ax.set_yticks([*y, k + 0.6])
        ax.set_yticklabels([_plain(d) for d in per["dataset"]] + ["pooled (random effects)"], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(_plain(f"{self.measure}: {self.system} - {self.baseline}"))
        ax.set_title(f"τ² = {self.tau2:.2g}, I² = {self.i2:.0%}\n{self.method}", fontsize=8)
        return ax


def _plain(text) -> str:
    """Text drawn by matplotlib as written ('$' would start mathtext)."""
    return str(text).replace("$", r"\$")


@with_options(StatsGroup(exclude=("n_resamples", "method", "rng", "batch")))
def meta_analysis(stats_options: StatsOptions, table: pd.DataFrame, system: str, baseline: str, measure: str,
                  **_: Unpack[LevelKeywords]) -> MetaAnalysis:  # fmt: skip
    """A random-effects meta-analysis of the per-dataset paired differences ``system - baseline``.

    Parameters
    ----------
    table : DataFrame
        A per-query suite table (``dataset``, ``system``, ``query_id``, measure columns).
    system, baseline : str
        The two systems compared (paired by query within each dataset).
    measure : str
        The measure column.

    Returns
    -------
    MetaAnalysis
        The pooled difference with its Hartung-Knapp-Sidik-Jonkman interval, tau^2 (DerSimonian-Laird),
        I^2, the prediction interval for a new dataset, and the per-dataset rows (``.to_frame()``,
        ``.plot()``: the forest plot).

    Examples
    --------
    >>> import numpy as np, pandas as pd, rankviz
    >>> rng = np.random.default_rng(0)
    >>> rows = [(d, s, f"q{i}", float(rng.random() + (0.1 if s == "new" else 0.0)))
    ...         for d in "abcdef" for i in range(30) for s in ("base", "new")]
    >>> table = pd.DataFrame(rows, columns=["dataset", "system", "query_id", "nDCG@10"])
    >>> meta = rankviz.stats.meta_analysis(table, "new", "base", "nDCG@10")
    >>> bool(meta.confidence_interval.low > 0), len(meta.per_dataset)
    (True, 6)
    """
    from scipy import stats as sps

    caller = "meta_analysis"
    confidence_level = stats_options.level

    datasets, systems, mats = suite_matrices(table, measure, caller)
    for name, role in ((system, "system"), (baseline, "baseline")):
        if str(name) not in systems:
            raise InputError(f"The {role!r} parameter of {caller} must be one of {systems}. Got {name!r} instead.")
    i, j = systems.index(str(system)), systems.index(str(baseline))
    rows, notes = [], []
    for name, mat in zip(datasets, mats, strict=True):
        diff = mat[:, i] - mat[:, j]
        n = len(diff)
        if n < 2:
            raise InputError(f"{caller}: dataset {name!r} has {n} query; a difference's variance needs at least 2.")
        var = float(diff.var(ddof=1)) / n
        rows.append((name, n, float(diff.mean()), var))
    k = len(rows)
    y = np.array([r[2] for r in rows])
    v = np.array([r[3] for r in rows])
    if np.any(v <= 0):
        zero = [r[0] for r in rows if r[3] <= 0]
        notes.append(f"datasets {zero} have no spread in the difference; a small variance floor was used for them")
        v = np.maximum(v, 1e-12)
    w = 1 / v
    fixed = float(np.sum(w * y) / np.sum(w))
    q = float(np.sum(w * (y - fixed) ** 2))
    c = float(np.sum(w) - np.sum(w**2) / np.sum(w))
    tau2 = max(0.0, (q - (k - 1)) / c) if k > 1 and c > 0 else 0.0
    i2 = max(0.0, (q - (k - 1)) / q) if k > 1 and q > 0 else 0.0
    ws = 1 / (v + tau2)
    mu = float(np.sum(ws * y) / np.sum(ws))
    level = confidence_level
    if k >= 2:
        hk = float(np.sum(ws * (y - mu) ** 2) / (k - 1))
        se = math.sqrt(max(hk, 1e-300) / np.sum(ws))
        tq = float(sps.t.ppf(0.5 + level / 2, k - 1))
        ci = ConfidenceInterval(mu - tq * se, mu + tq * se)
    else:
        se = math.sqrt(1 / float(np.sum(ws)))
        ci = ConfidenceInterval(math.nan, math.nan)
        notes.append("one dataset: there is nothing to pool; the interval across datasets needs several")
    if k >= 3:
        tp = float(sps.t.ppf(0.5 + level / 2, k - 2))
        half = tp * math.sqrt(tau2 + se**2)
        pred = ConfidenceInterval(mu - half, mu + half)
    else:
        pred = ConfidenceInterval(math.nan, math.nan)
    if 2 <= k < 5:
        notes.append(
            f"{k} datasets: tau^2 is barely estimable and the interval, though valid in design, is wide; "
            "with fewer than about 5 datasets read the per-dataset rows rather than the pooled value"
        )
    z = float(sps.norm.ppf(0.5 + level / 2))
    per = pd.DataFrame(
        {
            "dataset": [r[0] for r in rows],
            "n_queries": [r[1] for r in rows],
            "difference": y,
            "standard_error": np.sqrt(v),
            "ci_low": y - z * np.sqrt(v),
            "ci_high": y + z * np.sqrt(v),
            "weight": ws / ws.sum(),
        }
    )
    for note in notes:
        warn(f"{caller}: {note}", DegenerateDataWarning)
    return MetaAnalysis(
        str(system), str(baseline), measure, per, mu, se, ci, pred, tau2, i2, q, level, notes=tuple(notes)
    )
