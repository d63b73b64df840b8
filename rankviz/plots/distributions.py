"""Where the first relevant result lands: :func:`rr_distribution`.

:func:`prepare_rr_distribution` reads the ranks off a per-query RR column and counts
them (no matplotlib); :func:`draw_rr_distribution` draws those counts as bars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from .._core.checks import check_choice, check_cutoff
from .._errors import InputError
from ..io.per_query import per_query_table
from ..measures import parse_measure
from . import style
from .inputs import groups, hue_column, values

if TYPE_CHECKING:
    from collections.abc import Iterable

    from matplotlib.axes import Axes

__all__ = ["rr_distribution", "prepare_rr_distribution", "draw_rr_distribution"]


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
    prepare_rr_distribution : the bars as a table, without drawing.
    rankviz.first_relevant_rank : the ranks themselves, at any depth.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(9, 4))
    >>> ax = rankviz.plots.rr_distribution(table, k=10, ax=ax)
    """
    frame = prepare_rr_distribution(data, k=k, measure=measure, stat=stat, hue=hue)
    return draw_rr_distribution(frame, style.axes(ax, "rr_distribution"), **kwargs)


def prepare_rr_distribution(data, *, k=10, measure=None, stat="percent", hue=None) -> pd.DataFrame:
    """The bars of :func:`rr_distribution`: one row per (group, rank category), nothing drawn.

    Parameters are those of :func:`rr_distribution`.

    Returns
    -------
    DataFrame
        ``group`` (the hue value, or the measure column without hue), ``slot`` (the
        group's position, which picks its colour), ``category`` (0 .. k-1 for ranks
        1 .. k, then the tail bars), ``rank_label`` and ``rr_label`` (the tick
        labels below and above), ``tick`` (whether the category is labelled),
        ``tail`` (True for the not-found bars), ``count``, ``height`` (share or
        count, as ``stat`` says) and ``bar_label`` (the text on the bar, or None).
        ``attrs`` holds ``column``, ``stat``, ``hue``, ``title``, ``top_label`` and
        ``legend``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.distributions import prepare_rr_distribution
    >>> table = pd.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "RR@3": [1.0, 0.5, 0.0, 1.0]})
    >>> prepare_rr_distribution(table, k=3, stat="count")[["rank_label", "count"]]
          rank_label  count
    0              1      2
    1              2      1
    2              3      0
    3  not in\\ntop 3      1
    """
    caller = "rr_distribution"
    table = per_query_table(data, caller)
    frame = table.frame
    if measure is None:
        measure = f"RR@{check_cutoff(k, caller, allow_none=False)}"
    parsed = parse_measure(measure)
    if parsed.family != "RR":
        raise InputError(
            f"{caller} reads the first-hit rank off a reciprocal rank, so measure must be an RR measure "
            f"such as 'RR@10'. Got {str(measure)!r} instead."
        )
    column = table.measure_column(measure, caller)
    stat = check_choice(stat, "stat", caller, ("percent", "count"))
    cutoff = parsed.cutoff
    k = cutoff if cutoff is not None else check_cutoff(k, caller, allow_none=False)
    categories = _first_hit_categories(frame, column, table.query, k, cutoff is not None, caller)
    labels = _category_labels(k, cut=cutoff is not None)

    hue_col = hue_column(frame, hue, table.system, caller)
    parts = groups(frame.assign(__category=categories), hue_col)
    rows = []
    for slot, (label, part) in enumerate(parts):
        counts = np.bincount(part["__category"].to_numpy(), minlength=len(labels))
        heights = counts / len(part) if stat == "percent" else counts.astype(np.float64)
        shown = len(parts) == 1 and len(labels) <= 25
        texts = [(style.percent(h) if stat == "percent" else f"{int(h)}") if shown else None for h in heights]
        # pandas-stubs refuses a list holding None, which pandas takes as missing labels
        bars = labels.assign(group=label or column, slot=slot, count=counts, height=heights, bar_label=texts)  # type: ignore[arg-type]
        rows.append(bars)
    out = pd.concat(rows, ignore_index=True)
    out = out[["group", "slot", "category", "rank_label", "rr_label", "tick", "tail", "count", "height", "bar_label"]]
    if len(parts) == 1:
        n_text = f"{len(frame)} queries"
    else:
        n_text = f"{len(parts)} systems" if hue_col == table.system else f"by {hue_col}"
    out.attrs = {
        "column": column,
        "stat": stat,
        "hue": hue_col,
        "title": f"Rank of the first relevant result — {column}, {n_text}",
        "top_label": f"{column} of those queries (1/rank)",
        "legend": len(parts) > 1,
    }
    return out


def _first_hit_categories(frame, column, query_col, k, cut, caller) -> np.ndarray:
    """Each query's bar: rank - 1 for ranks 1..k, then k ("not in top k"), or k and k+1 ("> k", "none") uncut."""
    rr = values(frame, column, caller)
    if np.isnan(rr).any():
        raise InputError(
            f"{caller}: the column {column!r} has missing values; evaluate with missing='zero' or drop them."
        )
    if ((rr < 0) | (rr > 1)).any():
        raise InputError(
            f"{caller}: the column {column!r} has values outside [0, 1]; it does not hold reciprocal ranks."
        )
    found = rr > 0
    inverse = np.where(found, 1.0 / np.where(found, rr, 1.0), 0.0)
    ranks = np.rint(inverse)
    bad = found & (np.abs(inverse - ranks) > 1e-6 * inverse)
    if cut:
        bad |= ranks > k
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{caller}: {int(bad.sum())} value(s) of {column!r} are not reciprocal ranks (1/rank with rank <= k, or 0), "
            f"e.g. {rr[i]!r} for query {frame[query_col].iloc[i]!r}. Pass the per-query table, not means."
        )
    return np.where(found, np.minimum(ranks, k + 1) - 1, k if cut else k + 1).astype(np.int64)


def _category_labels(k: int, *, cut: bool) -> pd.DataFrame:
    """The categories of the x axis with their labels; every rank up to 20 is labelled, then a readable subset."""
    if k <= 20:
        ticked = set(range(1, k + 1))
    else:
        ticked = {1, 2, 3, 5, k} | {m * 10**e for e in range(1, 6) for m in (1, 2, 5) if m * 10**e < k}
    ranks = range(1, k + 1)
    tail = [(f"not in\ntop {k}", "0")] if cut else [(f"> {k}", f"< 1/{k}"), ("none\nfound", "0")]
    return pd.DataFrame(
        {
            "category": np.arange(k + len(tail)),
            "rank_label": [str(r) for r in ranks] + [text for text, _ in tail],
            "rr_label": ["1" if r == 1 else f"1/{r}" for r in ranks] + [rr for _, rr in tail],
            "tick": [r in ticked for r in ranks] + [True] * len(tail),
            "tail": [False] * k + [True] * len(tail),
        }
    )


@style.literal_text
def draw_rr_distribution(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw the bars of :func:`prepare_rr_distribution` on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.bar`."""
    from matplotlib import ticker

    info = frame.attrs
    slots = int(frame["slot"].max()) + 1
    width = 0.8 / slots
    # Room for the bars: a rank of 20 grouped bars needs more than a rank of one bar and its label.
    n_categories = int(frame["category"].max()) + 1
    style.grow_figure(ax, width=n_categories * max(0.4, 0.04 * slots + 0.15))
    palette = style.colors(slots)
    for slot, part in cast("Iterable[tuple[int, pd.DataFrame]]", frame.groupby("slot", sort=True)):
        x = part["category"].to_numpy(dtype=np.float64) + (slot - (slots - 1) / 2) * width
        defaults = {"width": width, "color": palette[slot], "label": part["group"].iloc[0]}
        bars = ax.bar(x, part["height"].to_numpy(), **style.merge(defaults, kwargs))
        for patch, tail in zip(bars.patches, part["tail"]):
            if tail:
                patch.set_hatch("//")
                patch.set_edgecolor("white")
                patch.set_linewidth(0)
        if part["bar_label"].notna().all():
            ax.bar_label(bars, labels=part["bar_label"].tolist(), padding=2, fontsize="small")

    categories = frame[frame["slot"] == 0]
    ticked = categories[categories["tick"]]
    ax.set_xticks(ticked["category"].tolist(), labels=ticked["rank_label"].tolist())
    ax.set_xlim(-0.6, len(categories) - 0.4)
    top = ax.secondary_xaxis("top")
    top.set_xticks(ticked["category"].tolist(), labels=ticked["rr_label"].tolist(), fontsize="small")
    top.set_xlabel(info["top_label"], fontsize="small")
    ax.set_xlabel("rank of the first relevant result")
    if info["stat"] == "percent":
        ax.set_ylabel("share of queries")
        ax.yaxis.set_major_formatter(ticker.PercentFormatter(xmax=1.0, decimals=0))
    else:
        ax.set_ylabel("queries")
    ax.margins(y=0.12)
    ax.set_title(info["title"])
    if info["legend"]:  # beside the bars: inside, some corner always holds a bar at 20 systems
        style.legend_outside(ax, title=f"{info['hue']}{style.colour_note(slots)}")
    return ax
