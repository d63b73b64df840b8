"""Plots of per-query tables and statistics results (matplotlib + seaborn's palette).

Every function here draws what it is handed and computes no measure: it takes a
*per-query table* (the output of ``rankviz.evaluate(..., per_query=True)``: columns
``system`` (optional), ``query_id`` and one column per measure), an aggregate table,
or the result objects of :mod:`rankviz.stats`. Reading a rank off a reciprocal rank,
counting queries and averaging a per-query column for display are the only
arithmetic they do. :class:`RunPlots` (``df.rank.plot``) evaluates a run first and
then hands the tables to these functions.

One signature shape everywhere, as in seaborn: ``plot(data, *, ..., hue=None,
ax=None, **kwargs) -> Axes``. The data comes first and everything else is
keyword-only; the plot is drawn on ``ax`` (default: the current Axes); the Axes is
returned; ``**kwargs`` go to the main matplotlib call underneath (named in each
docstring). Nothing here calls ``plt.show()`` or changes matplotlib's global state
(no ``rcParams``, no ``sns.set_theme``): colours come from seaborn's colour-blind
safe ``"colorblind"`` palette, asked for explicitly.

Functions
---------
rr_distribution
    Where the first relevant result lands: ranks 1..k and "not in top k".
failures
    The queries with the lowest score, labelled with their text.
ci
    Forest plot of bootstrap intervals, systems x measures.
bootstrap_distribution
    Histogram of one bootstrap distribution with its interval.
paired_differences
    Sorted per-query differences between two systems: wins, ties, losses.
metric_at_k
    RR@k, R@k and nDCG@k as the cutoff k grows.
recall_vs_mrr
    The diagnosis view: recall against MRR, with the quadrants read out.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from . import stats as _stats
from ._errors import ColumnError, InputError
from ._frame import ALIASES
from ._validation import check_choice, check_cutoff, check_int
from .measures import Measure, parse_measure

__all__ = [
    "rr_distribution",
    "failures",
    "ci",
    "bootstrap_distribution",
    "paired_differences",
    "metric_at_k",
    "recall_vs_mrr",
    "RunPlots",
]

_PALETTE = "colorblind"
# Positions in seaborn's "colorblind" palette: blue and orange are the colour-blind
# safe pair for better/worse; grey is neutral.
_WIN, _LOSS, _TIE = 0, 1, 7
_LABEL_WIDTH = 50
_TEXT_COLUMNS = ("text", "query_text", "question", "title")


# ----------------------------------------------------------------------------- helpers


def _colors(n: int) -> list:
    return sns.color_palette(_PALETTE, max(n, 1))


def _color(index: int):
    return sns.color_palette(_PALETTE)[index]


def _axes(ax, caller: str) -> Axes:
    if ax is None:
        return plt.gca()
    if not isinstance(ax, Axes):
        raise InputError(f"The 'ax' parameter of {caller} must be a matplotlib Axes or None. Got {type(ax).__name__} instead.")
    return ax


def _columns_text(names) -> str:
    names = [repr(str(c)) for c in names]
    return ", ".join(names[:15]) + (", ..." if len(names) > 15 else "") if names else "none"


def _first_column(frame: pd.DataFrame, role: str) -> str | None:
    for name in ALIASES[role]:
        if name in frame.columns:
            return name
    return None


def _table(data, caller: str, *, per_query: bool = True) -> tuple[pd.DataFrame, str | None, str | None]:
    """(frame, query column, system column) of a per-query (or, if allowed, aggregate) table."""
    if not isinstance(data, pd.DataFrame):
        raise InputError(
            f"{caller} plots a per-query table (the output of rankviz.evaluate(run, measures, qrels, per_query=True)). "
            f"Got {type(data).__name__} instead."
        )
    frame = data
    if frame.index.name in ALIASES["system"] and frame.index.name not in frame.columns:
        frame = frame.reset_index()  # e.g. rankviz.summary's table, indexed by system
    if len(frame) == 0:
        raise InputError(f"{caller}: the table is empty.")
    query = _first_column(frame, "query")
    if per_query and query is None:
        raise ColumnError(
            f"{caller} needs a per-query table with a query id column ({_columns_text(ALIASES['query'])}); "
            f"its columns are {_columns_text(frame.columns)}. "
            "Evaluate with rankviz.evaluate(run, measures, qrels, per_query=True)."
        )
    return frame, query, _first_column(frame, "system")


def _measure_column(frame: pd.DataFrame, measure, caller: str, exclude=()) -> str:
    """The column holding ``measure`` (exact name, or its canonical name: 'MRR@10' finds 'RR@10')."""
    return _stats._measure_columns(frame, [measure], caller, exclude=set(exclude))[0]


def _values(frame: pd.DataFrame, column: str, caller: str) -> np.ndarray:
    try:
        values = frame[column].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{caller}: the column {column!r} must hold numbers. Got dtype {frame[column].dtype}.") from None
    return values


def _systems(frame: pd.DataFrame, system_col: str | None) -> list[str]:
    if system_col is None:
        return []
    return [str(s) for s in pd.unique(frame[system_col].astype(str))]


def _check_system(name, systems: list[str], caller: str, param: str = "system") -> str:
    if str(name) not in systems:
        raise InputError(f"{caller}: unknown {param} {name!r}; the table has the systems {_columns_text(systems)}.")
    return str(name)


def _hue_column(frame: pd.DataFrame, hue, system_col: str | None, caller: str) -> str | None:
    """The column that splits the data into coloured groups: ``hue``, or the system column by default."""
    if hue is None:
        return system_col
    if hue not in frame.columns:
        raise ColumnError(f"{caller}: hue={hue!r} is not a column of the table; its columns are {_columns_text(frame.columns)}.")
    if system_col is not None and hue != system_col and frame[system_col].nunique() > 1:
        raise InputError(
            f"{caller}: the table holds several systems; hue must be the system column ({system_col!r}), "
            f"or select one system first (table[table.{system_col} == 'name'])."
        )
    return hue


def _groups(frame: pd.DataFrame, column: str | None):
    """[(label, sub-frame)] in order of first appearance (category order for categoricals)."""
    if column is None:
        return [(None, frame)]
    keys = frame[column]
    levels = keys.cat.categories if isinstance(keys.dtype, pd.CategoricalDtype) else pd.unique(keys)
    return [(str(level), frame[keys == level]) for level in levels if (keys == level).any()]


def _shorten(text: str, width: int = _LABEL_WIDTH) -> str:
    """One line of at most ``width`` characters, cut at a word boundary where one is near, with '…'."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    space = cut.rfind(" ")
    if space >= 0.6 * width:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def _query_texts(queries, caller: str) -> dict[str, str]:
    """{query id: text} from a DataFrame (query_id, text), a Series or a dict."""
    if isinstance(queries, pd.DataFrame):
        query = _first_column(queries, "query")
        text = next((c for c in _TEXT_COLUMNS if c in queries.columns and c != query), None)
        if query is None and queries.index.name in ALIASES["query"]:
            ids = queries.index
        elif query is not None:
            ids = queries[query]
        else:
            ids = None
        if ids is None or text is None:
            raise ColumnError(
                f"{caller}: queries must be a DataFrame with a query id column ('query_id') and a 'text' column "
                f"(as rankviz.read_topics returns); its columns are {_columns_text(queries.columns)}."
            )
        return dict(zip(pd.Index(ids).astype(str), queries[text].astype(str)))
    if isinstance(queries, pd.Series):
        return dict(zip(queries.index.astype(str), queries.astype(str)))
    if isinstance(queries, Mapping):
        return {str(k): str(v) for k, v in queries.items()}
    raise InputError(
        f"{caller}: queries must be a DataFrame (query_id, text), a Series or a dict of query texts. "
        f"Got {type(queries).__name__} instead."
    )


def _merge(defaults: dict, kwargs: dict) -> dict:
    """The caller's keyword arguments win over the plot's defaults."""
    return {**defaults, **kwargs}


def _percent(share: float) -> str:
    return "<1%" if 0 < share < 0.005 else f"{share:.0%}"


def _rr_label(value: float, cutoff: int | None) -> str:
    if not np.isfinite(value):
        return "not evaluated"
    if value <= 0:
        return f"not in top {cutoff}" if cutoff is not None else "none found"
    return f"rank {round(1 / value)}"


# ----------------------------------------------------------------------------- rr_distribution


def rr_distribution(data, *, k=10, measure=None, stat="percent", hue=None, ax=None, **kwargs) -> Axes:
    """Where the first relevant result lands: the share of queries at rank 1, 2, ..., k and not in the top k.

    The rank is read off the reciprocal rank (``rank = 1 / RR``), so the bars are
    exactly the distribution behind MRR@k: a bar at rank ``r`` contributes
    ``1/r`` to each of its queries, shown on the top axis.

    Parameters
    ----------
    data : DataFrame
        A per-query table (``rankviz.evaluate(..., per_query=True)``) with an
        ``RR@k`` column and ``query_id``; ``system`` when there are several systems.
    k : int, default 10
        The cutoff. When ``measure`` names its own cutoff (``"RR@5"``), that one is
        used. With ``measure="RR"`` (no cutoff) ``k`` only sets how many rank bars
        are drawn: deeper first hits go to a ``> k`` bar and queries with no
        relevant result at all to a ``none`` bar.
    measure : str, optional
        The RR column to read, default ``f"RR@{k}"`` (``"RR(rel=2)@10"`` works too).
    stat : {'percent', 'count'}, default 'percent'
        Bar height: share of the queries (of each hue group) or number of queries.
    hue : str, optional
        Column whose values get a bar each per rank (grouped bars). Default: the
        system column when the table has one, so each system gets its own series.
    ax : matplotlib Axes, optional
        Drawn on this Axes, or on the current one.
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.bar`.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ColumnError
        The table has no such measure column (the message lists those it has).
    InputError
        The measure is not an RR measure, or its values are not reciprocal ranks
        (``1/rank`` or 0), e.g. when given an aggregate table of means.

    See Also
    --------
    rankviz.first_relevant_rank : the ranks themselves, at any depth.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rankviz, rankviz.plots
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(9, 4))
    >>> ax = rankviz.plots.rr_distribution(table, k=10, ax=ax)
    """
    caller = "rr_distribution"
    ax = _axes(ax, caller)
    frame, query_col, system_col = _table(data, caller)
    if measure is None:
        k = check_cutoff(k, caller, allow_none=False)
        measure = f"RR@{k}"
    parsed = parse_measure(measure)
    if parsed.family != "RR":
        raise InputError(
            f"{caller} reads the first-hit rank off a reciprocal rank, so measure must be an RR measure "
            f"such as 'RR@10'. Got {str(measure)!r} instead."
        )
    column = _measure_column(frame, measure, caller, exclude={query_col, system_col})
    stat = check_choice(stat, "stat", caller, ("percent", "count"))
    cutoff = parsed.cutoff
    k = cutoff if cutoff is not None else check_cutoff(k, caller, allow_none=False)
    values = _values(frame, column, caller)
    if np.isnan(values).any():
        raise InputError(f"{caller}: the column {column!r} has missing values; evaluate with missing='zero' or drop them.")
    if ((values < 0) | (values > 1)).any():
        raise InputError(f"{caller}: the column {column!r} has values outside [0, 1]; it does not hold reciprocal ranks.")
    with np.errstate(divide="ignore"):
        inverse = np.where(values > 0, 1.0 / np.where(values > 0, values, 1.0), 0.0)
    ranks = np.rint(inverse)
    bad = (values > 0) & (np.abs(inverse - ranks) > 1e-6 * inverse)
    if cutoff is not None:
        bad |= ranks > cutoff
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{caller}: {int(bad.sum())} value(s) of {column!r} are not reciprocal ranks (1/rank with rank <= k, or 0), "
            f"e.g. {values[i]!r} for query {frame[query_col].iloc[i]!r}. Pass the per-query table, not means."
        )

    # Categories: ranks 1..k, then "not in top k" (cut measure) or "> k" and "none" (uncut RR).
    category = np.where(values > 0, np.minimum(ranks, k + 1) - 1, k if cutoff is not None else k + 1).astype(np.int64)
    tail = [f"not in\ntop {k}"] if cutoff is not None else [f"> {k}", "none\nfound"]
    n_categories = k + len(tail)
    positions = np.arange(n_categories, dtype=np.float64)

    hue_col = _hue_column(frame, hue, system_col, caller)
    groups = _groups(frame.assign(__category=category), hue_col)
    colors = _colors(len(groups))
    width = 0.8 / len(groups)
    for g, (label, part) in enumerate(groups):
        counts = np.bincount(part["__category"].to_numpy(), minlength=n_categories).astype(np.float64)
        heights = counts / len(part) if stat == "percent" else counts
        x = positions + (g - (len(groups) - 1) / 2) * width
        bars = ax.bar(x, heights, **_merge({"width": width, "color": colors[g], "label": label or column}, kwargs))
        for patch in bars.patches[k:]:
            patch.set_hatch("//")
            patch.set_edgecolor("white")
            patch.set_linewidth(0)
        if len(groups) == 1 and n_categories <= 25:
            texts = [_percent(h) if stat == "percent" else f"{int(h)}" for h in heights]
            ax.bar_label(bars, labels=texts, padding=2, fontsize="small")

    # Tick labels: every rank up to 20, then a readable subset.
    if k <= 20:
        shown = list(range(1, k + 1))
    else:
        shown = sorted({1, 2, 3, 5, k} | {m * 10**e for e in range(1, 6) for m in (1, 2, 5) if m * 10**e < k})
    tick_positions = [r - 1 for r in shown] + list(range(k, n_categories))
    ax.set_xticks(tick_positions, labels=[str(r) for r in shown] + tail)
    ax.set_xlim(-0.6, n_categories - 0.4)
    top = ax.secondary_xaxis("top")
    rr_labels = ["1" if r == 1 else f"1/{r}" for r in shown] + (["0"] if cutoff is not None else [f"< 1/{k}", "0"])
    top.set_xticks(tick_positions, labels=rr_labels, fontsize="small")
    top.set_xlabel(f"{column} of those queries (1/rank)", fontsize="small")
    ax.set_xlabel("rank of the first relevant result")
    if stat == "percent":
        ax.set_ylabel("share of queries")
        ax.yaxis.set_major_formatter(ticker.PercentFormatter(xmax=1.0, decimals=0))
    else:
        ax.set_ylabel("queries")
    ax.margins(y=0.12)
    if len(groups) == 1:
        n_text = f"{len(frame)} queries"
    else:
        n_text = f"{len(groups)} systems" if hue_col == system_col else f"by {hue_col}"
    ax.set_title(f"Rank of the first relevant result — {column}, {n_text}")
    if len(groups) > 1:
        ax.legend(title=hue_col, fontsize="small")
    return ax


# ----------------------------------------------------------------------------- failures


def failures(
    data, *, measure="RR@10", n=20, system=None, queries=None, compare=None, hue=None, ax=None, **kwargs
) -> Axes:
    """The ``n`` queries with the lowest score, worst first, labelled with their text.

    Parameters
    ----------
    data : DataFrame
        A per-query table with ``query_id``, the measure column and, for several
        systems, ``system``.
    measure : str, default 'RR@10'
        The column to sort by (ascending: zeros first; ties by query id).
    n : int, default 20
        How many queries to show; never more bars or labels than this, whatever the
        number of queries.
    system : str, optional
        The system whose failures are shown; required when the table holds several
        (unless ``hue`` is the system column).
    queries : DataFrame, Series or dict, optional
        Query texts: a DataFrame with ``query_id`` and ``text`` columns (as
        :func:`rankviz.read_topics` and the built-in example return), or a mapping
        from query id to text. Labels are cut to 50 characters with '…'; without
        texts the bars are labelled with the query ids.
    compare : str, optional
        Another system of the table: its bar is drawn beside each query's and the
        per-query delta (``compare - system``) is written on the right, so you can
        see which failures it fixes.
    hue : str, optional
        The system column, to draw one bar per system for each query; the queries
        are then the worst of ``system`` if given, else those with the lowest mean
        over the systems (the queries every system fails).
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.barh` (for every bar series).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ColumnError
        No such measure column.
    InputError
        Several systems and no ``system=``, an unknown system, or ``compare`` on a
        table without systems.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rankviz, rankviz.plots
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(8, 7))
    >>> ax = rankviz.plots.failures(table, measure="RR@10", n=15, system="bm25",
    ...                             compare="bm25+rerank", queries=queries, ax=ax)
    """
    caller = "failures"
    ax = _axes(ax, caller)
    frame, query_col, system_col = _table(data, caller)
    column = _measure_column(frame, measure, caller, exclude={query_col, system_col})
    n = check_int(n, "n", caller, low=1)
    try:
        parsed = parse_measure(column)
    except InputError:
        parsed = None
    is_rr = parsed is not None and parsed.family == "RR"
    cutoff = parsed.cutoff if parsed is not None else None
    systems = _systems(frame, system_col)

    if hue is not None and hue not in ("system", system_col):
        raise InputError(
            f"{caller}: hue can only be the system column ({system_col or 'system'!r}), to draw a bar per system; got {hue!r}."
        )
    if hue is not None and system_col is None:
        raise InputError(f"{caller}: hue={hue!r} needs a table with a system column; this table has one system.")
    if hue is not None and compare is not None:
        raise InputError(f"{caller}: use either hue (a bar per system) or compare (one other system), not both.")
    if system is not None:
        if system_col is None:
            raise InputError(f"{caller}: system={system!r} given, but the table has no system column.")
        system = _check_system(system, systems, caller)
    elif system_col is not None and len(systems) == 1:
        system = systems[0]
    elif system_col is not None and hue is None:
        raise InputError(
            f"{caller}: the table holds {len(systems)} systems; choose one with system=, e.g. system={systems[0]!r} "
            f"(systems: {_columns_text(systems)}), or draw them all with hue='system'."
        )
    if compare is not None:
        if system_col is None:
            raise InputError(f"{caller}: compare={compare!r} needs a table with several systems (a system column).")
        compare = _check_system(compare, systems, caller, "compare system")
        if compare == system:
            raise InputError(f"{caller}: compare={compare!r} is the plotted system itself; choose another system.")

    if system_col is not None:
        if frame.duplicated([system_col, query_col]).any():
            raise InputError(f"{caller}: the table has several rows for the same (system, query); pass a per-query table.")
        keys = frame[system_col].astype(str)
        columns = {}
        for name in systems:
            part = frame[keys == name]
            columns[name] = pd.Series(_values(part, column, caller), index=part[query_col].astype(str).to_numpy())
        wide = pd.DataFrame(columns)  # query x system; NaN where a system lacks a query
    else:
        if frame[query_col].duplicated().any():
            raise InputError(f"{caller}: the table has several rows for the same query; pass a per-query table.")
        system = "run"
        wide = pd.DataFrame({system: _values(frame, column, caller)}, index=frame[query_col].astype(str).to_numpy())
    shown_systems = systems if hue is not None else [system] + ([compare] if compare else [])
    key = wide[system] if system is not None else wide[systems].mean(axis=1)
    # Ties (typically the many zeros) keep query-id order: neutral, not picked to flatter either system.
    order = pd.DataFrame({"key": key.to_numpy(), "query": wide.index.to_numpy()})
    order = order[order["key"].notna()]
    total = len(order)
    zeros = int((order["key"] == 0).sum())
    order = order.sort_values(["key", "query"], kind="mergesort").head(n)
    picked = order["query"].tolist()
    m = len(picked)

    texts = _query_texts(queries, caller) if queries is not None else {}
    labels = [_shorten(texts[q]) if q in texts else q for q in picked]
    y = np.arange(m, dtype=np.float64)
    colors = _colors(len(systems) if hue is not None else 2)
    slots = len(shown_systems)
    height = 0.75 / slots
    for s, name in enumerate(shown_systems):
        values = wide.loc[picked, name].to_numpy()
        color = colors[systems.index(name)] if hue is not None else colors[s]
        offset = (s - (slots - 1) / 2) * height
        label = name if hue is not None or not compare or name != compare else f"{compare} (Δ = {compare} − {system})"
        bars = ax.barh(y + offset, np.nan_to_num(values), **_merge({"height": height, "color": color, "label": label}, kwargs))
        # A zero bar has no length: mark it, so "failed" is visible and not mistaken for "missing".
        zero = values == 0
        if zero.any():
            ax.plot(np.zeros(int(zero.sum())), (y + offset)[zero], linestyle="none", marker="x", color=color,
                    markersize=max(3.0, min(7.0, 120 / (m * slots))), clip_on=False, zorder=3)
        if slots <= 2:
            notes = [_rr_label(v, cutoff) if is_rr else ("not evaluated" if np.isnan(v) else f"{v:.3f}") for v in values]
            ax.bar_label(bars, labels=notes, padding=6, fontsize="x-small" if slots == 2 else "small", color="0.25")

    ax.set_yticks(y, labels=labels, fontsize="small" if m <= 30 else "x-small")
    ax.set_ylim(m - 0.5, -0.5)  # worst on top
    high = np.nanmax(wide[shown_systems].to_numpy()) if m else 1.0
    ax.set_xlim(0, 1.25 * max(1.0, high if np.isfinite(high) else 1.0))
    if max(1.0, high) == 1.0:
        ax.set_xticks(np.linspace(0, 1, 6))
    if compare:
        delta = (wide.loc[picked, compare] - wide.loc[picked, system]).to_numpy()
        where = blended_transform_factory(ax.transAxes, ax.transData)
        for yi, d in zip(y, delta):
            color = "0.45" if not np.isfinite(d) or d == 0 else _color(_WIN if d > 0 else _LOSS)
            text = "n/a" if not np.isfinite(d) else ("0" if d == 0 else f"{d:+.3f}")
            ax.text(1.02, yi, text, transform=where, va="center", ha="left", fontsize="small", color=color)
        ax.text(1.02, 1.0, "Δ", transform=ax.transAxes, va="bottom", ha="left", fontsize="small", fontweight="bold")
    ax.set_xlabel(f"{column} per query" + (" (1/rank of the first relevant result)" if is_rr else ""))
    ax.set_ylabel("query" if not texts else "query text")
    if system_col is None:
        who, zero_text = "", f"{zeros} of {total} queries have {column} = 0"
    elif system is not None:
        who, zero_text = f" — {system}", f"{zeros} of {total} queries have {column} = 0 for {system}"
    else:
        who = f" — mean over {len(systems)} systems"
        zero_text = f"{zeros} of {total} queries have {column} = 0 for every system"
    ax.set_title(f"The {m} queries with the lowest {column}{who}\n{zero_text}", fontsize="medium")
    if slots > 1:
        ax.legend(title=system_col if hue is not None else None, fontsize="small", loc="best")
    return ax


# ----------------------------------------------------------------------------- ci


def _results_frame(results, caller: str) -> tuple[pd.DataFrame, float | None]:
    """A tidy table (system?, measure, estimate, low, high, ...) and the reference at 0 for a comparison table."""
    if isinstance(results, _stats.BootstrapResult):
        results = [results]
    if isinstance(results, Mapping):
        results = list(results.values())
    if isinstance(results, (list, tuple)):
        if not results or not all(isinstance(r, _stats.BootstrapResult) for r in results):
            raise InputError(f"{caller}: a list of results must hold rankviz.stats.BootstrapResult objects (non-empty).")
        return _stats.results_table(list(results)), None
    if isinstance(results, pd.DataFrame):
        if {"difference", "ci_low", "ci_high"} <= set(results.columns):
            frame = results.rename(columns={"difference": "estimate", "ci_low": "low", "ci_high": "high"})
            return frame, 0.0
        missing = [c for c in ("estimate", "low", "high") if c not in results.columns]
        if missing:
            raise ColumnError(
                f"{caller}: the results table lacks the columns {_columns_text(missing)}; pass the output of "
                f"rankviz.stats.bootstrap (or rankviz.stats.results_table, or rankviz.stats.compare). "
                f"Its columns are {_columns_text(results.columns)}."
            )
        return results, None
    raise InputError(
        f"{caller} plots bootstrap results: a BootstrapResult, a list or dict of them, or the table "
        f"rankviz.stats.bootstrap returns for several measures. Got {type(results).__name__} instead."
    )


def ci(results, *, baseline=None, sort=True, ax=None, **kwargs) -> Axes:
    """Forest plot: each system's estimate with its bootstrap interval, per measure.

    Parameters
    ----------
    results : BootstrapResult, list or dict of them, or DataFrame
        What :func:`rankviz.stats.bootstrap` returns (one result, a dict by system,
        or the tidy table for several measures), or
        :func:`rankviz.stats.results_table` of results. The table of
        :func:`rankviz.stats.compare` works too: its differences and intervals are
        drawn against a reference line at 0 (the baseline).
    baseline : str, optional
        A system of the results: a dashed reference line marks its estimate in each
        measure's block.
    sort : bool, default True
        Within each measure, the best estimate on top. ``False`` keeps the input order.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.hlines`, which draws the intervals.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    The intervals are drawn from the results' ``low``/``high`` bounds exactly as
    given (no error-bar arithmetic). Each row is annotated on the right with
    ``estimate [low, high]``. With several measures each gets a block headed by its
    name; systems keep their colour across blocks.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rankviz, rankviz.plots
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> table = rankviz.evaluate(run, ["RR@10", "nDCG@10"], qrels, per_query=True)
    >>> results = rankviz.stats.bootstrap(table, ["RR@10", "nDCG@10"], rng=0)
    >>> fig, ax = plt.subplots(figsize=(7, 5))
    >>> ax = rankviz.plots.ci(results, baseline="bm25", ax=ax)
    """
    caller = "ci"
    ax = _axes(ax, caller)
    frame, reference = _results_frame(results, caller)
    if len(frame) == 0:
        raise InputError(f"{caller}: there are no results to plot.")
    frame = frame.reset_index(drop=True)
    has_system = "system" in frame.columns and frame["system"].notna().any()
    if not has_system:
        frame = frame.assign(system="")
    frame = frame.assign(system=frame["system"].astype(str))
    if "measure" not in frame.columns:
        frame = frame.assign(measure="estimate")
    frame = frame.assign(measure=frame["measure"].astype(str))
    systems = list(pd.unique(frame["system"]))
    measures = list(pd.unique(frame["measure"]))
    if baseline is not None:
        if not has_system:
            raise InputError(f"{caller}: baseline={baseline!r} needs results for several systems; these have no system.")
        baseline = _check_system(baseline, systems, caller, "baseline")
    if frame.duplicated(["system", "measure"]).any():
        raise InputError(f"{caller}: the results hold the same (system, measure) twice.")

    blocks = len(measures) > 1 and has_system
    rows, ticks, labels, headers = [], [], [], []
    position = 0.0
    for measure in measures:
        part = frame[frame["measure"] == measure]
        if sort and has_system:
            part = part.sort_values("estimate", ascending=False, kind="mergesort", na_position="last")
        if blocks:
            headers.append(len(labels))
            ticks.append(position)
            labels.append(measure)
            position += 1
        start = position
        for _, row in part.iterrows():
            rows.append((position, row))
            ticks.append(position)
            labels.append(row["system"] if has_system else row["measure"])
            position += 1
        if reference is None and baseline is not None:
            base = part.loc[part["system"] == baseline, "estimate"]
            if len(base):
                first = measure == measures[0]
                ax.vlines(float(base.iloc[0]), start - 0.5, position - 0.5, colors="0.35", linestyles="--", linewidth=1,
                          label=f"baseline: {baseline}" if first else None, zorder=1)
        position += 0.6 if blocks else 0

    ys = np.array([p for p, _ in rows])
    lows = np.array([float(r["low"]) for _, r in rows])
    highs = np.array([float(r["high"]) for _, r in rows])
    estimates = np.array([float(r["estimate"]) for _, r in rows])
    palette = _colors(len(systems))
    colors = [palette[systems.index(r["system"])] if has_system else palette[0] for _, r in rows]
    ax.hlines(ys, lows, highs, **_merge({"colors": colors, "linewidth": 2.5, "zorder": 2}, kwargs))
    markers = kwargs.get("colors", kwargs.get("color", colors))
    ax.scatter(estimates, ys, color=markers, s=40, zorder=3, edgecolors="white", linewidths=0.8)
    if reference is not None:
        name = f"baseline: {frame['baseline'].iloc[0]}" if "baseline" in frame.columns else "no difference"
        ax.axvline(reference, color="0.35", linestyle="--", linewidth=1, zorder=1, label=name)

    where = blended_transform_factory(ax.transAxes, ax.transData)
    for y, est, low, high in zip(ys, estimates, lows, highs):
        ax.text(1.02, y, f"{est:.3f} [{low:.3f}, {high:.3f}]", transform=where, va="center", ha="left", fontsize="x-small")
    ax.set_yticks(ticks, labels=labels)
    for i in headers:
        ax.get_yticklabels()[i].set_fontweight("bold")
    ax.set_ylim(position - (0.9 if blocks else 0.4), -0.6)

    level = frame["confidence_level"].iloc[0] if "confidence_level" in frame.columns else None
    methods = list(pd.unique(frame["method"].astype(str))) if "method" in frame.columns else []
    interval = (f"{level:.0%} " if level is not None and np.isfinite(level) else "") + "bootstrap CI"
    if methods:
        interval += f" ({', '.join('BCa' if m == 'bca' else m for m in methods)})"
    what = "difference from the baseline" if reference is not None else "mean"
    name = measures[0] if len(measures) == 1 and measures[0] != "estimate" else ""
    ax.set_xlabel(f"{name + ' ' if name else ''}{what} with {interval}".strip())
    n_queries = list(pd.unique(frame["n_queries"])) if "n_queries" in frame.columns else []
    suffix = f" ({int(n_queries[0])} queries)" if len(n_queries) == 1 else ""
    title = "Paired differences" if reference is not None else "Bootstrap confidence intervals"
    ax.set_title(f"{title}{': ' + name if name else ''}{suffix}")
    ax.grid(axis="x", alpha=0.3)
    if baseline is not None or reference is not None:
        ax.legend(fontsize="small", loc="best")
    return ax


# ----------------------------------------------------------------------------- bootstrap_distribution


def _one_result(result, caller: str) -> _stats.BootstrapResult:
    if isinstance(result, _stats.BootstrapResult):
        return result
    if isinstance(result, Mapping) and len(result) == 1:
        return _one_result(next(iter(result.values())), caller)
    if isinstance(result, (list, tuple)) and len(result) == 1:
        return _one_result(result[0], caller)
    if isinstance(result, (Mapping, list, tuple)):
        keys = list(result) if isinstance(result, Mapping) else []
        hint = f" e.g. results[{keys[0]!r}]" if keys else " e.g. results[0]"
        raise InputError(f"{caller} draws one bootstrap distribution; got {len(result)} results. Pass one of them,{hint}.")
    if isinstance(result, pd.DataFrame):
        raise InputError(
            f"{caller} needs a BootstrapResult (it keeps the resampled means); a results table does not. "
            "Bootstrap one measure: rankviz.stats.bootstrap(table, 'RR@10')."
        )
    raise InputError(f"{caller} draws a rankviz.stats.BootstrapResult. Got {type(result).__name__} instead.")


def bootstrap_distribution(result, *, bins=50, ax=None, **kwargs) -> Axes:
    """Histogram of one bootstrap distribution, its interval shaded and the estimate marked.

    Parameters
    ----------
    result : BootstrapResult
        One result of :func:`rankviz.stats.bootstrap` (a dict or list holding exactly
        one result is accepted too).
    bins : int or sequence, default 50
        As for :meth:`matplotlib.axes.Axes.hist`.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.hist`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rankviz, rankviz.plots
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> results = rankviz.stats.bootstrap(table, "RR@10", rng=0)
    >>> fig, ax = plt.subplots(figsize=(7, 4))
    >>> ax = rankviz.plots.bootstrap_distribution(results["bm25"], ax=ax)
    """
    caller = "bootstrap_distribution"
    ax = _axes(ax, caller)
    result = _one_result(result, caller)
    values = np.asarray(result.bootstrap_distribution, dtype=np.float64)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        raise InputError(f"{caller}: the result has no finite resampled values to draw.")
    low, high = result.confidence_interval
    level = f"{result.confidence_level:.0%}"
    method = "BCa" if result.method == "bca" else result.method
    if np.isfinite(low) and np.isfinite(high):
        ax.axvspan(low, high, color=_color(_WIN), alpha=0.15, zorder=0,
                   label=f"{level} CI ({method}): [{low:.4f}, {high:.4f}]")
    ax.hist(values, **_merge({"bins": bins, "color": _color(_WIN), "alpha": 0.85, "zorder": 1}, kwargs))
    ax.axvline(result.estimate, color=_color(_LOSS), linewidth=2, zorder=2, label=f"estimate: {result.estimate:.4f}")
    ax.set_xlabel(f"mean {result.measure} of a resample of the queries")
    ax.set_ylabel("resamples")
    who = f" — {result.system}" if result.system is not None else ""
    ax.set_title(
        f"Bootstrap distribution of mean {result.measure}{who}\n"
        f"{result.n_queries} queries, {result.n_resamples:,} resamples",
        fontsize="medium",
    )
    ax.legend(fontsize="small", loc="upper left")
    return ax


# ----------------------------------------------------------------------------- paired_differences


def paired_differences(data, *, system=None, baseline=None, measure=None, ax=None, **kwargs) -> Axes:
    """Sorted per-query differences between two systems: losses below zero, ties, wins above.

    Parameters
    ----------
    data : DataFrame
        The output of :func:`rankviz.stats.paired_differences` (``query_id``,
        ``baseline``, ``system``, ``difference``), or a per-query table with a
        ``system`` column, from which that is computed with ``system``,
        ``baseline`` and ``measure``.
    system, baseline : str, optional
        The two systems (difference = system - baseline). For a per-query table
        both are needed, except that with exactly two systems one names the other.
        For a differences table they only relabel the plot (by default the names
        recorded by :func:`rankviz.stats.paired_differences`).
    measure : str, optional
        The measure column; may be left out when the table has only one.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.stairs`, which draws the losses, ties
        and wins as three filled step patches (query ``i`` spans ``[i - 0.5, i + 0.5]``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rankviz, rankviz.plots
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(8, 4))
    >>> ax = rankviz.plots.paired_differences(table, system="bm25+rerank", baseline="bm25",
    ...                                       measure="RR@10", ax=ax)
    """
    caller = "paired_differences"
    ax = _axes(ax, caller)
    if isinstance(data, pd.DataFrame) and "difference" in data.columns:
        meta = data.attrs.get("rankviz", {}) if isinstance(data.attrs.get("rankviz"), dict) else {}
        system = str(system) if system is not None else meta.get("system", "system")
        baseline = str(baseline) if baseline is not None else meta.get("baseline", "baseline")
        measure = str(measure) if measure is not None else meta.get("measure", "measure")
        diffs = _values(data, "difference", caller)
        if len(diffs) == 0:
            raise InputError(f"{caller}: the differences table is empty.")
    else:
        frame, query_col, system_col = _table(data, caller)
        if system_col is None:
            raise ColumnError(f"{caller} compares two systems: the per-query table needs a system column.")
        systems = _systems(frame, system_col)
        if (system is None) != (baseline is None) and len(systems) == 2:
            given = system if system is not None else baseline
            other = [s for s in systems if s != str(given)]
            if len(other) == 1:
                system, baseline = (system, other[0]) if system is not None else (other[0], baseline)
        if system is None or baseline is None:
            raise InputError(
                f"{caller}: name the two systems with system= and baseline= (systems: {_columns_text(systems)})."
            )
        if measure is None:
            numeric = [c for c in frame.columns if c not in (query_col, system_col) and pd.api.types.is_numeric_dtype(frame[c])]
            if len(numeric) != 1:
                raise InputError(f"{caller}: choose the measure with measure=; the table has {_columns_text(numeric)}.")
            measure = numeric[0]
        _check_system(system, systems, caller)
        _check_system(baseline, systems, caller, "baseline")
        measure = _measure_column(frame, measure, caller, exclude={query_col, system_col})
        table = _stats.paired_differences(frame, system=str(system), baseline=str(baseline), measure=measure)
        diffs = table["difference"].to_numpy(dtype=np.float64)
        system, baseline = str(system), str(baseline)
    if np.isnan(diffs).any():
        raise InputError(f"{caller}: the differences have missing values.")
    diffs = np.sort(diffs, kind="mergesort")
    n = len(diffs)
    wins, losses = int((diffs > 0).sum()), int((diffs < 0).sum())
    ties = n - wins - losses
    win, loss, tie = _color(_WIN), _color(_LOSS), _color(_TIE)
    # One filled step patch per outcome: the look of width-1 bars, but three artists instead of
    # one per query (7,000 bars take seconds to build). Query i spans [i - 0.5, i + 0.5].
    segments = (("losses", 0, losses, loss), ("ties", losses, losses + ties, tie), ("wins", losses + ties, n, win))
    for label, start, stop, color in segments:
        if stop > start:
            edges = np.arange(start, stop + 1, dtype=np.float64) - 0.5
            ax.stairs(diffs[start:stop], edges, **_merge({"baseline": 0.0, "fill": True, "color": color, "label": label}, kwargs))
    if ties:
        ax.hlines(0, losses - 0.5, losses + ties - 0.5, colors=[tie], linewidth=3, zorder=3)
    ax.axhline(0, color="0.2", linewidth=0.8, zorder=2)
    mean = float(diffs.mean())
    ax.axhline(mean, color="0.2", linestyle="--", linewidth=1, zorder=2)
    ax.set_xlim(-0.5, n - 0.5)
    low, high = min(diffs.min(), 0.0), max(diffs.max(), 0.0)
    span = (high - low) or 1.0
    ax.set_ylim(low - 0.1 * span, high + 0.15 * span)
    ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.set_xlabel(f"queries, sorted by difference (n = {n})")
    ax.set_ylabel(f"Δ {measure} = {system} − {baseline}")
    ax.set_title(f"Per-query {measure}: {system} vs {baseline}", fontsize="medium")
    ax.text(0.02, 0.97, f"wins {wins} · ties {ties} · losses {losses}", transform=ax.transAxes,
            va="top", ha="left", fontsize="small", bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "0.7"})
    handles = [
        Patch(color=win, label=f"{system} better ({wins})"),
        Patch(color=tie, label=f"tie ({ties})"),
        Patch(color=loss, label=f"{baseline} better ({losses})"),
        Line2D([], [], color="0.2", linestyle="--", label=f"mean Δ = {mean:+.4f}"),
    ]
    ax.legend(handles=handles, fontsize="small", loc="lower right")  # sorted ascending: always empty
    return ax


# ----------------------------------------------------------------------------- metric_at_k

_STYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "P")


def _template(spec, caller: str) -> Measure:
    """A measure family with its parameters and no cutoff: 'RR', 'R', 'nDCG', "nDCG(gain='exp')", 'RR(rel=2)'."""
    if isinstance(spec, Measure):
        return dataclasses.replace(spec, cutoff=None)
    text = str(spec)
    if "@" in text:
        raise InputError(f"{caller}: give measure families without a cutoff, e.g. 'RR' or 'nDCG'. Got {text!r}.")
    return dataclasses.replace(parse_measure(f"{text}@1"), cutoff=None)


def metric_at_k(data, *, measures=("RR", "R", "nDCG"), hue=None, ax=None, **kwargs) -> Axes:
    """Measures as the cutoff k grows: RR@k, R@k, nDCG@k, one line per system and measure.

    Parameters
    ----------
    data : DataFrame
        A per-query table (means are taken per system for display) or an aggregate
        table (one row per system), with columns such as ``RR@1`` .. ``RR@20``,
        ``R@1`` .., ``nDCG@1`` ..; the cutoffs are read from the column names.
    measures : str or sequence of str, default ('RR', 'R', 'nDCG')
        Measure families, without a cutoff (``"P"``, ``"Success"``, ``"AP"``,
        ``"RR(rel=2)"`` work as well). Each needs at least one ``family@k`` column.
    hue : str, optional
        Column whose groups get a colour each; default the system column when there
        is one. With several groups, colour = group and line style = measure.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` (every line).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rankviz, rankviz.plots
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> names = [f"{m}@{k}" for m in ("RR", "R", "nDCG") for k in range(1, 21)]
    >>> table = rankviz.evaluate(run, names, qrels)
    >>> fig, ax = plt.subplots(figsize=(8, 5))
    >>> ax = rankviz.plots.metric_at_k(table, ax=ax)
    """
    caller = "metric_at_k"
    ax = _axes(ax, caller)
    frame, query_col, system_col = _table(data, caller, per_query=False)
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    templates = [_template(m, caller) for m in measures]
    if not templates:
        raise InputError(f"{caller}: give at least one measure family, e.g. measures=('RR', 'nDCG').")
    hue_col = _hue_column(frame, hue, system_col, caller)
    found: dict[Measure, list[tuple[int, str]]] = {}
    for column in frame.columns:
        if column in (query_col, system_col, hue_col) or not isinstance(column, str):
            continue
        try:
            parsed = parse_measure(column)
        except InputError:
            continue
        if parsed.cutoff is not None and parsed.name == column:
            found.setdefault(dataclasses.replace(parsed, cutoff=None), []).append((parsed.cutoff, column))
    for template in templates:
        if template not in found:
            available = ", ".join(f"{t.name}@{min(c for c, _ in v)}..{max(c for c, _ in v)}" for t, v in found.items()) or "none"
            raise ColumnError(
                f"{caller}: the table has no {template.name}@k columns (measures at cutoffs found: {available}). "
                f"Evaluate them, e.g. rankviz.evaluate(run, [f'{template.name}@{{k}}' for k in range(1, 21)], qrels)."
            )
    columns = sorted({c for t in templates for _, c in found[t]}, key=list(frame.columns).index)
    if query_col is not None:
        if hue_col is not None:
            means = frame.groupby(hue_col, sort=False, observed=True)[columns].mean()
        else:
            means = frame[columns].mean().to_frame().T
    else:
        if hue_col is not None:
            if frame[hue_col].duplicated().any():
                raise InputError(f"{caller}: the aggregate table has several rows per {hue_col}; pass a per-query table.")
            means = frame.set_index(hue_col)[columns]
        elif len(frame) > 1:
            raise InputError(
                f"{caller}: the table has {len(frame)} rows but neither a query id nor a system column; "
                "pass a per-query table or one row per system."
            )
        else:
            means = frame[columns]
    groups = [str(g) for g in means.index] if hue_col is not None else [None]
    several = len(groups) > 1
    palette = _colors(len(groups) if several else len(templates))
    all_ks = sorted({c for t in templates for c, _ in found[t]})
    markers = len(all_ks) <= 30
    for g, (group, (_, row)) in enumerate(zip(groups, means.iterrows())):
        for t, template in enumerate(templates):
            pairs = sorted(found[template])
            ks = [c for c, _ in pairs]
            ys = row[[c for _, c in pairs]].to_numpy(dtype=np.float64)
            label = f"{template.name}@k" if group is None else f"{group} · {template.name}@k"
            style = {
                "color": palette[g] if several else palette[t],
                "linestyle": _STYLES[t % len(_STYLES)] if several else "-",
                "marker": _MARKERS[t % len(_MARKERS)] if markers else None,
                "markersize": 4,
                "label": label,
            }
            ax.plot(ks, ys, **_merge(style, kwargs))
    if all_ks[-1] / all_ks[0] > 50:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    elif len(all_ks) <= 20:
        ax.set_xticks(all_ks)
    else:
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    values = means.to_numpy(dtype=np.float64)
    if np.nanmin(values) >= 0 and np.nanmax(values) <= 1:
        ax.set_ylim(0, 1.02)
    ax.set_xlabel("cutoff k")
    ax.set_ylabel("mean over queries" if query_col is not None else "value")
    names = [f"{t.name}@k" for t in templates]
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    ax.set_title(f"{joined} as k grows")
    ax.grid(alpha=0.3)
    if several and len(templates) > 1:
        handles = [Line2D([], [], color=palette[g], linewidth=2, label=str(group)) for g, group in enumerate(groups)]
        handles += [
            Line2D([], [], color="0.3", linestyle=_STYLES[t % len(_STYLES)], marker=_MARKERS[t % len(_MARKERS)] if markers else None,
                   label=f"{template.name}@k")
            for t, template in enumerate(templates)
        ]
        ax.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), title=hue_col)
    else:
        ax.legend(fontsize="small", loc="lower right", title=hue_col if several else None)
    return ax


# ----------------------------------------------------------------------------- recall_vs_mrr


def recall_vs_mrr(data, *, k=10, recall_k=None, per_query=False, thresholds=(0.5, 0.5), ax=None, **kwargs) -> Axes:
    """The diagnosis view: recall (is it retrieved at all?) against MRR (is it on top?), per system.

    Read the quadrants the way practitioners do: high recall with low MRR means
    the relevant items are in the candidate list but ranked low — the ordering is
    the problem and a reranker helps; low recall means they are not retrieved at
    all — fix retrieval (the first stage) first, no reranker can bring back what
    is not there.

    Parameters
    ----------
    data : DataFrame
        A per-query table with ``RR@k`` and ``R@recall_k`` columns (an aggregate
        table, one row per system, works when ``per_query`` is False).
    k : int, default 10
        The MRR cutoff: column ``RR@k``.
    recall_k : int, optional
        The recall cutoff: column ``R@recall_k``. Default ``R@100`` when the table
        has it, else ``R@k``.
    per_query : bool, default False
        Also draw each query as a point (identical points merged into one whose
        area grows with the number of queries), coloured by system; with one
        system the share of queries in each quadrant is written in its corner.
    thresholds : (float, float), default (0.5, 0.5)
        Where the quadrant guides cross: (recall, MRR).
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.scatter` for the system points.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rankviz, rankviz.plots
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> table = rankviz.evaluate(run, ["RR@10", "R@100"], qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(6, 6))
    >>> ax = rankviz.plots.recall_vs_mrr(table, k=10, recall_k=100, ax=ax)
    """
    caller = "recall_vs_mrr"
    ax = _axes(ax, caller)
    frame, query_col, system_col = _table(data, caller, per_query=bool(per_query))
    k = check_cutoff(k, caller, allow_none=False)
    rr_col = _measure_column(frame, f"RR@{k}", caller, exclude={query_col, system_col})
    if recall_k is None:
        recall_k = 100 if "R@100" in frame.columns else k
    recall_k = check_cutoff(recall_k, caller, allow_none=False, name="recall_k")
    if f"R@{recall_k}" not in frame.columns:
        have = [c for c in frame.columns if isinstance(c, str) and re.fullmatch(r"R@\d+", c)]
        raise ColumnError(
            f"{caller}: the table has no column 'R@{recall_k}'"
            + (f"; it has {_columns_text(have)} (choose one with recall_k=)" if have else "")
            + f". Evaluate it, e.g. rankviz.evaluate(run, ['RR@{k}', 'R@{recall_k}'], qrels, per_query=True)."
        )
    r_col = f"R@{recall_k}"
    try:
        t_recall, t_mrr = (float(t) for t in thresholds)
    except (TypeError, ValueError):
        raise InputError(f"The 'thresholds' parameter of {caller} must be two numbers (recall, MRR). Got {thresholds!r} instead.") from None

    groups = _groups(frame, system_col)
    palette = _colors(len(groups))
    points = []
    quadrant_shares = None
    for g, (name, part) in enumerate(groups):
        recall = _values(part, r_col, caller)
        rr = _values(part, rr_col, caller)
        points.append((name or "mean", float(np.nanmean(recall)), float(np.nanmean(rr))))
        if per_query:
            cloud = pd.DataFrame({"x": recall, "y": rr}).dropna().round(6).value_counts().reset_index()
            # Area grows with the number of queries at the point; the largest stays readable.
            counts = cloud["count"].to_numpy()
            sizes = np.maximum(6.0, 12.0 * counts * min(1.0, 25.0 / counts.max()))
            alpha = 0.35 if len(groups) > 1 else 0.45
            ax.scatter(cloud["x"], cloud["y"], s=sizes, color=palette[g], alpha=alpha, linewidths=0, zorder=1)
            if len(groups) == 1:
                ok = ~(np.isnan(recall) | np.isnan(rr))
                hi_r, hi_m = recall[ok] >= t_recall, rr[ok] >= t_mrr
                quadrant_shares = {
                    "tr": np.mean(hi_r & hi_m), "br": np.mean(hi_r & ~hi_m),
                    "tl": np.mean(~hi_r & hi_m), "bl": np.mean(~hi_r & ~hi_m),
                }
    ax.axvline(t_recall, color="0.6", linestyle="--", linewidth=1, zorder=0)
    ax.axhline(t_mrr, color="0.6", linestyle="--", linewidth=1, zorder=0)
    xs = [p[1] for p in points]
    ys = [p[2] for p in points]
    ax.scatter(xs, ys, **_merge({"s": 90, "color": palette[: len(points)], "edgecolors": "black", "linewidths": 0.8, "zorder": 3}, kwargs))
    for name, x, y in points:
        ax.annotate(name, (x, y), xytext=(6, 6), textcoords="offset points", fontsize="small", zorder=4,
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.7})
    # Quadrant readings, centred in each quadrant (the corners are where per-query points pile up).
    left, right = (t_recall - 0.03) / 2, (t_recall + 1.03) / 2
    bottom, top = (t_mrr - 0.03) / 2, (t_mrr + 1.03) / 2
    quadrants = {
        "tr": (right, top, "works: found\nand ranked high"),
        "br": (right, bottom, "ordering is the problem:\na reranker helps"),
        "tl": (left, top, "first hit high, most missed:\nfix retrieval first"),
        "bl": (left, bottom, "not retrieved:\nfix retrieval first"),
    }
    for key, (x, y, text) in quadrants.items():
        if quadrant_shares is not None:
            text += f"\n({quadrant_shares[key]:.0%} of queries)"
        ax.text(x, y, text, ha="center", va="center", fontsize="x-small", color="0.3", style="italic", zorder=2,
                bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "none", "alpha": 0.75})
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(f"{r_col} — recall: is the relevant item retrieved at all?")
    ax.set_ylabel(f"MRR@{k} (mean {rr_col}) — is the first relevant item on top?")
    ax.set_title(f"Recall vs MRR: where to improve ({r_col} vs MRR@{k})", fontsize="medium")
    return ax


# ----------------------------------------------------------------------------- df.rank.plot


def _split(options: dict, *, statistics: bool = False) -> tuple[dict, dict, dict]:
    """(evaluation options, statistics options, plot keyword arguments) from one ``**options``."""
    from .evaluation import _OPTIONS, _STATS_OPTIONS

    evaluation = {key: value for key, value in options.items() if key in _OPTIONS}
    stats_options = {key: value for key, value in options.items() if statistics and key in _STATS_OPTIONS}
    rest = {key: value for key, value in options.items() if key not in evaluation and key not in stats_options}
    return evaluation, stats_options, rest


class RunPlots:
    """The plots of a run, as ``df.rank.plot.<name>(qrels, ...)``.

    Each method evaluates what its plot needs (``rankviz.evaluate(...,
    per_query=True)``, :func:`rankviz.stats.bootstrap`) and calls the function of
    the same name in :mod:`rankviz.plots`. Keyword arguments are sorted by name:
    evaluation options (``depth``, ``missing``, ``ties``, column names), statistics
    options (``n_resamples``, ``confidence_level``, ``method``, ``rng``) where a
    bootstrap is involved, and the rest goes to matplotlib.

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> ax = run.rank.plot.rr_distribution(qrels, k=10)
    """

    def __init__(self, frame: pd.DataFrame):
        self._frame = frame

    def _per_query(self, measures, qrels, evaluation: dict) -> pd.DataFrame:
        from .evaluation import evaluate

        return evaluate(self._frame, measures, qrels, per_query=True, **evaluation)

    def rr_distribution(self, qrels=None, *, k=10, measure=None, stat="percent", hue=None, ax=None, **options) -> Axes:
        """Evaluate ``RR@k`` per query and plot :func:`rankviz.plots.rr_distribution`."""
        evaluation, _, kwargs = _split(options)
        table = self._per_query(measure or f"RR@{k}", qrels, evaluation)
        return rr_distribution(table, k=k, measure=measure, stat=stat, hue=hue, ax=ax, **kwargs)

    def failures(self, qrels=None, *, measure="RR@10", n=20, system=None, queries=None, compare=None, hue=None, ax=None, **options) -> Axes:
        """Evaluate ``measure`` per query and plot :func:`rankviz.plots.failures`."""
        evaluation, _, kwargs = _split(options)
        table = self._per_query(measure, qrels, evaluation)
        return failures(table, measure=measure, n=n, system=system, queries=queries, compare=compare, hue=hue, ax=ax, **kwargs)

    def ci(self, qrels=None, *, measures=("RR@10", "nDCG@10"), baseline=None, sort=True, ax=None, **options) -> Axes:
        """Bootstrap ``measures`` per system and plot :func:`rankviz.plots.ci`."""
        evaluation, statistics, kwargs = _split(options, statistics=True)
        names = [measures] if isinstance(measures, (str, Measure)) else list(measures)
        table = self._per_query(names, qrels, evaluation)
        columns = [parse_measure(m).name for m in names]
        results = _stats.bootstrap(table, columns if len(columns) > 1 else columns[0], **statistics)
        return ci(results, baseline=baseline, sort=sort, ax=ax, **kwargs)

    def bootstrap_distribution(self, qrels=None, *, measure="RR@10", system=None, bins=50, ax=None, **options) -> Axes:
        """Bootstrap ``measure`` and plot :func:`rankviz.plots.bootstrap_distribution` (of ``system``)."""
        evaluation, statistics, kwargs = _split(options, statistics=True)
        table = self._per_query(measure, qrels, evaluation)
        if "system" in table.columns:
            systems = _systems(table, "system")
            if system is None and len(systems) > 1:
                raise InputError(
                    f"bootstrap_distribution: the run holds {len(systems)} systems; choose one with system= "
                    f"(systems: {_columns_text(systems)})."
                )
            system = _check_system(system if system is not None else systems[0], systems, "bootstrap_distribution")
        elif system is not None:
            raise InputError(f"bootstrap_distribution: system={system!r} given, but the run has no system column.")
        # All systems resampled together, as rankviz.bootstrap does: same rng, same interval.
        result = _stats.bootstrap(table, parse_measure(measure).name, **statistics)
        return bootstrap_distribution(result[system] if system is not None else result, bins=bins, ax=ax, **kwargs)

    def paired_differences(self, qrels=None, *, system=None, baseline=None, measure="RR@10", ax=None, **options) -> Axes:
        """Evaluate ``measure`` per query and plot :func:`rankviz.plots.paired_differences` of two systems."""
        evaluation, _, kwargs = _split(options)
        table = self._per_query(measure, qrels, evaluation)
        return paired_differences(table, system=system, baseline=baseline, measure=parse_measure(measure).name, ax=ax, **kwargs)

    def metric_at_k(self, qrels=None, *, measures=("RR", "R", "nDCG"), cutoffs=range(1, 21), hue=None, ax=None, **options) -> Axes:
        """Evaluate each measure family at ``cutoffs`` and plot :func:`rankviz.plots.metric_at_k`."""
        evaluation, _, kwargs = _split(options)
        families = [measures] if isinstance(measures, (str, Measure)) else list(measures)
        templates = [_template(m, "metric_at_k") for m in families]
        table = self._per_query([t @ int(c) for t in templates for c in cutoffs], qrels, evaluation)
        return metric_at_k(table, measures=templates, hue=hue, ax=ax, **kwargs)

    def recall_vs_mrr(self, qrels=None, *, k=10, recall_k=100, per_query=False, thresholds=(0.5, 0.5), ax=None, **options) -> Axes:
        """Evaluate ``RR@k`` and ``R@recall_k`` per query and plot :func:`rankviz.plots.recall_vs_mrr`."""
        evaluation, _, kwargs = _split(options)
        recall_k = 100 if recall_k is None else recall_k
        table = self._per_query([f"RR@{k}", f"R@{recall_k}"], qrels, evaluation)
        return recall_vs_mrr(table, k=k, recall_k=recall_k, per_query=per_query, thresholds=thresholds, ax=ax, **kwargs)
