"""The recall-vs-MRR diagnosis: :func:`recall_vs_mrr`.

:func:`prepare_recall_vs_mrr` averages the per-query columns for display, chooses
where the quadrants split (from the data, or from a reference the caller names)
and reads each system's quadrant, without matplotlib; :func:`draw_recall_vs_mrr`
draws the points and writes the readings beside the plot, never on the points.
"""

from __future__ import annotations

import re
from numbers import Real
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from .._core.checks import check_cutoff
from .._core.columns import columns_text
from .._errors import ColumnError, InputError
from ..io.per_query import per_query_table
from . import style
from .inputs import check_system, groups, values

if TYPE_CHECKING:
    from collections.abc import Iterable

    from matplotlib.axes import Axes

__all__ = ["recall_vs_mrr", "prepare_recall_vs_mrr", "draw_recall_vs_mrr", "QUADRANTS"]

#: quadrant key -> (high recall?, high MRR?, arrow, reading, advice)
QUADRANTS = {
    "tr": (True, True, "↗", "found and ranked high", "works"),
    "br": (True, False, "↘", "found, ranked low", "a reranker helps"),
    "tl": (False, True, "↖", "first hit high, most missed", "fix retrieval first"),
    "bl": (False, False, "↙", "not retrieved", "fix retrieval first"),
}
#: markers of the system points, with the colours told apart in black and white
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "p")


def recall_vs_mrr(data, *, k=10, recall_k=None, per_query=False, split="median", ax=None, **kwargs) -> Axes:
    """The diagnosis view: recall (is it retrieved at all?) against MRR (is it on top?), per system.

    Read the quadrants the way practitioners do: high recall with low MRR means
    the relevant items are in the candidate list but ranked low — the ordering is
    the problem and a reranker helps; low recall means they are not retrieved at
    all — fix retrieval (the first stage) first, no reranker can bring back what
    is not there. Each system's reading is written beside the plot (legend), never
    on the points.

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
        system the share of queries in each quadrant is given beside the plot.
    split : 'median', str or (float, float), default 'median'
        Where the quadrants split (recall, MRR); see Notes.

        - ``'median'``: from the data. With several systems, the median over the
          systems of their mean recall and their MRR (each system is read against
          the typical system on the same queries). With one system and a per-query
          table, the medians over its queries (the queries are read against its
          typical query; the system itself gets no reading).
        - a system of the table: that system's mean recall and MRR (the others are
          read against it, e.g. ``split="bm25"``).
        - two numbers ``(recall, mrr)``: fixed split points.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.scatter` for the system points.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    InputError
        ``split`` is neither 'median', a system of the table nor two numbers,.

    Notes
    -----
    Why the split comes from the data. "High" recall is not a fixed number: R@k
    cannot exceed ``k / |relevant|`` for a query, so on a collection with 26-202
    relevant documents per topic (TREC-COVID) R@100 stays far below 1 for every
    system, and a fixed split at 0.5 tells every system to fix retrieval first.
    MRR's range depends on the queries in the same way. Reading each system
    against the median system (or a baseline you name) on the same queries removes
    the collection's scale: a system with more recall but lower MRR than the
    typical one has the candidates and ranks them low (a reranker helps); one with
    less recall misses what others find (fix retrieval). The reading is therefore
    relative: with two systems they split on both axes at their midpoint. With an
    odd number of systems the median system sets a split line and has no side: it
    is labelled as on the split, not read as high. Other points on a split line
    (an even number of systems, given split points, query clouds) count as high. With one system and only its means there is nothing
    to read it against: pass a reference (``split=(0.6, 0.4)``) or evaluate a
    baseline alongside.

    See Also
    --------
    prepare_recall_vs_mrr : the points, split and readings as a table, without drawing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, ["RR@10", "R@100"], qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(6, 6))
    >>> ax = rankviz.plots.recall_vs_mrr(table, k=10, recall_k=100, ax=ax)
    """
    frame = prepare_recall_vs_mrr(data, k=k, recall_k=recall_k, per_query=per_query, split=split)
    return draw_recall_vs_mrr(frame, style.axes(ax, "recall_vs_mrr"), **kwargs)


def prepare_recall_vs_mrr(data, *, k=10, recall_k=None, per_query=False, split="median") -> pd.DataFrame:
    """The points and readings of :func:`recall_vs_mrr`; nothing drawn.

    Parameters are those of :func:`recall_vs_mrr`.

    Returns
    -------
    DataFrame
        ``kind`` is 'query' (a per-query point: ``x`` recall, ``y`` RR, ``count``
        queries there, marker ``size``), 'system' (a system's means, ``label`` its
        name, ``quadrant`` its reading: a key of :data:`QUADRANTS`, 'reference'
        for the system that sets the split, 'median' for a system on a median
        split line, or None; ``verdict`` the advice, given only where the paired t-tests behind it
        (``recall_p``, ``mrr_p``: the system against the nearest system across the split line, the
        reference system, or the given split value) are significant at 5%, else "no clear difference",
        and "untested" for a table of means) or 'quadrant' (``label`` the
        quadrant's text, ``share`` of the queries in it with one system and
        ``per_query``); ``color`` is a palette position. ``attrs`` holds
        ``split`` ((recall, MRR) or None), ``split_text``, ``n_colors``,
        ``cloud_alpha``, ``xlabel``, ``ylabel``, ``title`` and ``legend_title``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.diagnosis import prepare_recall_vs_mrr
    >>> table = pd.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["q1", "q2"] * 2,
    ...                       "RR@10": [1.0, 0.0, 0.5, 0.5], "R@100": [0.2, 0.4, 0.6, 0.8]})
    >>> frame = prepare_recall_vs_mrr(table)
    >>> frame.loc[frame.kind == "system", ["label", "x", "y", "quadrant"]]
      label    x    y quadrant
    0     a  0.3  0.5       tl
    1     b  0.7  0.5       tr
    >>> frame.attrs["split"]
    (0.5, 0.5)
    """
    caller = "recall_vs_mrr"
    table = per_query_table(data, caller, require_query=bool(per_query))
    frame = table.frame
    k = check_cutoff(k, caller, allow_none=False)
    rr_col = table.measure_column(f"RR@{k}", caller)
    r_col = _recall_column(frame, k, recall_k, caller)
    split = _split_argument(split, caller)
    parts = groups(frame, table.system)
    points, clouds, pooled = [], [], []
    for g, (name, part) in enumerate(parts):
        recall, rr = values(part, r_col, caller), values(part, rr_col, caller)
        points.append(
            {
                "kind": "system",
                "label": name or "mean",
                "x": float(np.nanmean(recall)),
                "y": float(np.nanmean(rr)),
                "color": g,
            }
        )
        pooled.append((recall, rr))
        if per_query:
            cloud = pd.DataFrame({"x": recall, "y": rr}).dropna().round(6).value_counts().reset_index()
            counts = cloud["count"].to_numpy()
            # Area grows with the number of queries at the point; the largest stays readable.
            clouds.append(
                cloud.assign(kind="query", color=g, size=np.maximum(6.0, 12.0 * counts * min(1.0, 25.0 / counts.max())))
            )
    systems = pd.DataFrame(points)
    where, split_text, reference = _split_points(split, systems, pooled, table.query is not None, r_col, k, caller)
    on_median = split == "median" and len(parts) > 1 and len(parts) % 2 == 1  # an odd number: a system sets it
    systems["quadrant"] = [
        "reference"
        if name == reference
        else ("median" if on_median and _on_line(x, y, where) else _reading(x, y, where))
        for name, x, y in zip(systems["label"], systems["x"], systems["y"])
    ]
    if where is not None and len(parts) == 1 and table.query is not None and split == "median":
        systems["quadrant"] = None  # read against its own queries' medians, the system itself has no reading
    tested = _tested_sides(frame, table, systems, where, split, reference, (r_col, rr_col))
    systems["recall_p"], systems["mrr_p"] = tested[0], tested[1]
    systems["verdict"] = [
        _verdict(q, pr, pm, table.query is not None)
        for q, pr, pm in zip(systems["quadrant"], systems["recall_p"], systems["mrr_p"])
    ]
    shares = _query_shares(pooled[0], where) if per_query and len(parts) == 1 and where is not None else {}
    quadrants = pd.DataFrame([{"kind": "quadrant", "label": key, "share": shares.get(key)} for key in QUADRANTS])
    out = pd.concat([*clouds, systems, quadrants], ignore_index=True)
    out = out.reindex(
        columns=[
            "kind",
            "label",
            "x",
            "y",
            "count",
            "size",
            "color",
            "quadrant",
            "share",
            "recall_p",
            "mrr_p",
            "verdict",
        ]
    )
    out.attrs = {
        "split": where,
        "split_text": split_text,
        "n_colors": len(parts),
        "cloud_alpha": 0.35 if len(parts) > 1 else 0.45,
        "xlabel": f"{r_col} — recall: is the relevant item retrieved at all?",
        "ylabel": f"MRR@{k} (mean {rr_col}) — is the first relevant item on top?",
        "title": f"Recall vs MRR: where to improve ({r_col} vs MRR@{k})",
        "legend_title": (table.system or "system") + style.colour_note(len(parts)) if table.system else None,
    }
    return out


def _split_argument(split, caller):
    """'median', a system name or a (recall, MRR) pair of floats, from ``split``."""
    if isinstance(split, str):
        return split
    try:
        pair = tuple(split)
        if len(pair) != 2 or not all(isinstance(v, Real) and np.isfinite(float(v)) for v in pair):
            raise TypeError
    except TypeError:
        raise InputError(
            f"The 'split' parameter of {caller} must be 'median', a system of the table or two numbers (recall, MRR). "
            f"Got {split!r} instead."
        ) from None
    return (float(pair[0]), float(pair[1]))


def _split_points(split, systems, pooled, has_queries, r_col, k, caller):
    """((recall, MRR) or None, how it was chosen, the reference system or None)."""
    if isinstance(split, tuple):
        return split, f"split at {r_col} = {split[0]:.3g}, MRR@{k} = {split[1]:.3g} (given)", None
    names = systems["label"].tolist()
    if split != "median":
        if names == ["mean"]:
            raise InputError(f"{caller}: split={split!r} names a system, but the table has no system column.")
        reference = check_system(split, names, caller, "split system")
        row = systems[systems["label"] == reference].iloc[0]
        return (
            (row["x"], row["y"]),
            f"split at {reference}: {r_col} = {row['x']:.3f}, MRR@{k} = {row['y']:.3f}",
            reference,
        )
    if len(systems) > 1:
        where = (float(systems["x"].median()), float(systems["y"].median()))
        return (
            where,
            f"split at the median of {len(systems)} systems: {r_col} = {where[0]:.3f}, MRR@{k} = {where[1]:.3f}",
            None,
        )
    if has_queries:
        recall, rr = pooled[0]
        where = (float(np.nanmedian(recall)), float(np.nanmedian(rr)))
        return where, f"split at the median query: {r_col} = {where[0]:.3f}, RR@{k} = {where[1]:.3f}", None
    return (
        None,
        "one system: no reference to read it against (pass split=(recall, mrr) or evaluate a baseline too)",
        None,
    )


def _on_line(x, y, where) -> bool:
    """Whether a point sits on a split line (the median system of an odd number sets both): it has no side."""
    close = lambda a, b: abs(a - b) <= 1e-12 * max(1.0, abs(b))  # noqa: E731
    return where is not None and (close(x, where[0]) or close(y, where[1]))


def _reading(x, y, where) -> str | None:
    if where is None or not (np.isfinite(x) and np.isfinite(y)):
        return None
    high_recall, high_mrr = x >= where[0], y >= where[1]
    return next(key for key, (hr, hm, *_) in QUADRANTS.items() if (hr, hm) == (high_recall, high_mrr))


def _query_shares(values_pair, where) -> dict:
    recall, rr = values_pair
    ok = ~(np.isnan(recall) | np.isnan(rr))
    high_r, high_m = recall[ok] >= where[0], rr[ok] >= where[1]
    return {key: float(np.mean((high_r == hr) & (high_m == hm))) for key, (hr, hm, *_) in QUADRANTS.items()}


def _recall_column(frame, k, recall_k, caller) -> str:
    if recall_k is None:
        recall_k = 100 if "R@100" in frame.columns else k
    recall_k = check_cutoff(recall_k, caller, allow_none=False, name="recall_k")
    if f"R@{recall_k}" not in frame.columns:
        have = [c for c in frame.columns if isinstance(c, str) and re.fullmatch(r"R@\d+", c)]
        raise ColumnError(
            f"{caller}: the table has no column 'R@{recall_k}'"
            + (f"; it has {columns_text(have)} (choose one with recall_k=)" if have else "")
            + f". Evaluate it, e.g. rankviz.evaluate(run, ['RR@{k}', 'R@{recall_k}'], qrels, per_query=True)."
        )
    return f"R@{recall_k}"


def _entry(name, quadrant, verdict=None) -> str:
    if quadrant == "reference":
        return f"{name} — the reference"
    if quadrant == "median":
        return f"{name} — on the median split, no reading"
    if quadrant is None or pd.isna(quadrant):
        return str(name)
    _, _, arrow, reading, advice = QUADRANTS[quadrant]
    if verdict == NO_CLEAR:
        return f"{name} — {arrow} {NO_CLEAR} (not significant)"
    if verdict == UNTESTED:
        return f"{name} — {arrow} {reading} (means only: untested)"
    return f"{name} — {arrow} {advice} ({reading})"


#: the verdicts that are not advice: the tests behind it are not significant, or there are no per-query values
NO_CLEAR, UNTESTED, ALPHA = "no clear difference", "untested", 0.05


def _verdict(quadrant, recall_p, mrr_p, has_queries: bool):
    """The advice of a quadrant, only where the tests that decide it are significant.

    "fix retrieval first" rests on recall being clearly low; "a reranker helps" on recall clearly high
    and MRR clearly low; "works" on both clearly high.
    """
    if quadrant not in QUADRANTS:
        return None
    if not has_queries:
        return UNTESTED
    needed = (recall_p,) if quadrant in ("tl", "bl") else (recall_p, mrr_p)
    clear = all(p is not None and np.isfinite(p) and p < ALPHA for p in needed)
    return QUADRANTS[quadrant][4] if clear else NO_CLEAR


def _tested_sides(frame, table, systems, where, split, reference, columns) -> tuple[list, list]:
    """Per system, the p-values of the paired t-tests behind its side of each split line (recall, MRR).

    Against the given split value (one-sample), the reference system, or, for the median split, the system
    nearest the line on the other side (the median system itself with an odd number of systems).
    """
    import warnings

    from scipy import stats as scipy_stats

    from .._errors import DegenerateDataWarning
    from ..stats import compare

    n = len(systems)
    if where is None or table.query is None or (table.system is None and not isinstance(split, tuple)):
        return [np.nan] * n, [np.nan] * n
    by_system = dict(groups(frame, table.system))
    out: list[list] = [[], []]
    for axis, (col, line) in enumerate(zip(columns, where)):
        means = dict(zip(systems["label"], systems["x" if axis == 0 else "y"]))
        for name in systems["label"]:
            own = by_system.get(name if table.system else None)
            if own is None or name == reference:
                out[axis].append(np.nan)
                continue
            if isinstance(split, tuple):
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    p = float(
                        scipy_stats.ttest_1samp(values(own, col, "recall_vs_mrr"), line, nan_policy="omit").pvalue
                    )
                out[axis].append(p)
                continue
            other = reference or _across(name, means, line)
            if other is None:
                out[axis].append(np.nan)
                continue
            pair = frame[frame[table.system].astype(str).isin([str(name), str(other)])]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateDataWarning)
                result = compare(
                    pair.rename(columns={table.system: "system", table.query: "query_id"}),
                    baseline=str(other),
                    measures=[col],
                    test="t",
                    correction=None,
                )
            out[axis].append(float(result.table["p_value"].iloc[0]))
    return out[0], out[1]


def _across(name, means: dict, line: float):
    """The system nearest the split line on the other side of it from ``name`` (on it counts as the other side)."""
    high = means[name] > line
    others = [(abs(m - line), s) for s, m in means.items() if s != name and ((m <= line) if high else (m >= line))]
    return min(others, key=lambda t: t[0])[1] if others else None


@style.literal_text
def draw_recall_vs_mrr(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_recall_vs_mrr`'s points on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.scatter` (system points).

    The readings go in a legend beside the Axes: one entry per system (its marker,
    its reading), then the quadrants and, with one system, their shares of queries.
    """
    from matplotlib.lines import Line2D

    info = frame.attrs
    palette = style.colors(info["n_colors"])
    for color, cloud in cast(
        "Iterable[tuple[int, pd.DataFrame]]", frame[frame["kind"] == "query"].groupby("color", sort=True)
    ):
        ax.scatter(
            cloud["x"],
            cloud["y"],
            s=cloud["size"].to_numpy(),
            color=palette[int(color)],
            alpha=info["cloud_alpha"],
            linewidths=0,
            zorder=1,
        )
    if info["split"] is not None:
        ax.axvline(info["split"][0], color="0.6", linestyle="--", linewidth=1, zorder=0)
        ax.axhline(info["split"][1], color="0.6", linestyle="--", linewidth=1, zorder=0)
    points = frame[frame["kind"] == "system"]
    handles = []
    point: Any  # a row of the points table (pandas-stubs types its fields as any scalar)
    for i, point in enumerate(points.itertuples(index=False)):
        look: dict[str, Any] = {
            "s": 90,
            "color": [palette[int(point.color)]],
            "marker": MARKERS[i % len(MARKERS)],
            "edgecolors": "black",
            "linewidths": 0.8,
            "zorder": 3,
        }
        ax.scatter([point.x], [point.y], **style.merge(look, kwargs))
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker=look["marker"],
                markersize=8,
                markerfacecolor=look["color"][0],
                markeredgecolor="black",
                label=_entry(point.label, point.quadrant, point.verdict),
            )
        )
    quadrants = frame[frame["kind"] == "quadrant"]
    blank: dict[str, Any] = {"linestyle": "none", "marker": "none"}
    handles.append(Line2D([], [], label=info["split_text"], color="0.6", linestyle="--"))
    if info["split"] is not None:
        for key, share in zip(quadrants["label"], quadrants["share"]):
            _, _, arrow, reading, advice = QUADRANTS[key]
            text = f"{arrow} {reading}: {advice}" + (f" ({share:.0%} of queries)" if pd.notna(share) else "")
            handles.append(Line2D([], [], label=text, **blank))
    style.legend_outside(ax, handles=handles, title=info["legend_title"])
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(info["xlabel"])
    ax.set_ylabel(info["ylabel"])
    ax.set_title(info["title"], fontsize="medium")
    return ax
