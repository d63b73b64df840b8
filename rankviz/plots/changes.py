"""What a system changed: :func:`changes`, the biggest movers of :func:`rankviz.changes`.

:func:`prepare_changes` picks the queries with the largest differences and lists
the ranks of their relevant documents before and after (no matplotlib);
:func:`draw_changes` draws one arrow per document, baseline rank to system rank.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._core.checks import check_int
from .._core.columns import check_key_cells, check_number_cells
from .._errors import InputError
from ..io.per_query import query_texts
from . import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["changes", "prepare_changes", "draw_changes"]


def changes(data, *, n: int = 10, queries=None, ax=None, **kwargs) -> Axes:
    """The queries that moved most: each relevant document's rank in the baseline and in the system.

    Parameters
    ----------
    data : DataFrame
        The output of :func:`rankviz.changes`.
    n : int, default 10
        How many queries: the ``n`` with the largest ``|delta|``.
    queries : DataFrame, Series or dict, optional
        Query texts for the labels.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.annotate` (one arrow per document).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> moved = rankviz.changes(run, qrels, system="bm25+rerank", baseline="bm25", k=10)
    >>> ax = rankviz.plots.changes(moved, n=8, queries=queries)
    """
    frame = prepare_changes(data, n=n, queries=queries)
    return draw_changes(frame, style.axes(ax, "changes"), **kwargs)


def prepare_changes(data, *, n: int = 10, queries=None) -> pd.DataFrame:
    """One row per (query, moved relevant document) of :func:`changes`; ranks beyond k are ``k + 1``.

    Returns
    -------
    DataFrame
        ``position`` (the query's row, 0 on top), ``query_id``, ``label``, ``delta``,
        ``doc_id``, ``before`` and ``after`` (ranks, ``k + 1`` for "not in the top k"),
        ``offset`` (to separate several documents of one query) and ``direction``
        (``'up'`` or ``'down'``). A query without a moved relevant document has one row
        with ``doc_id`` None.
    """
    caller = "changes"
    n = check_int(n, "n", caller, low=1)
    if not isinstance(data, pd.DataFrame) or not {"query_id", "delta", "moves"} <= set(data.columns):
        raise InputError(f"{caller} draws the table rankviz.changes returns. Got {type(data).__name__} instead.")
    if data.empty:
        raise InputError(
            f"{caller}: the table of rankviz.changes is empty (no query to draw). Check that the system and the "
            "baseline share queries, or that the table was not filtered to nothing."
        )
    check_key_cells(data, "query_id", "query", f"{caller} table")
    check_number_cells(data, ["delta"], f"{caller} (the table of rankviz.changes)")
    meta = data.attrs.get("rankviz", {}) if isinstance(data.attrs.get("rankviz"), dict) else {}
    k = int(meta.get("k", 10))
    texts = query_texts(queries, caller)
    order = np.argsort(-np.abs(data["delta"].to_numpy(dtype=float)), kind="mergesort")[:n]
    rows = []
    for position, i in enumerate(order):
        q, delta, moves = str(data["query_id"].iloc[i]), float(data["delta"].iloc[i]), data["moves"].iloc[i]
        text = texts.get(q, "")
        label = f"{q} {style.shorten(text, 40)} (Δ {delta:+.3f})" if text else f"{q} (Δ {delta:+.3f})"
        moves = list(moves) or [(None, None, None)]
        for j, (doc, before, after) in enumerate(moves):
            b = k + 1 if before is None or before > k else before
            a = k + 1 if after is None or after > k else after
            rows.append({"position": position, "query_id": q, "label": label, "delta": delta, "doc_id": doc,
                         "before": b, "after": a, "offset": (j - (len(moves) - 1) / 2) * min(0.25, 0.7 / len(moves)),
                         "direction": "up" if a < b else "down"})  # fmt: skip
    frame = pd.DataFrame(rows)
    frame.attrs = {"system": meta.get("system", "system"), "baseline": meta.get("baseline", "baseline"),
                   "measure": meta.get("measure", "the measure"), "k": k}  # fmt: skip
    return frame


@style.literal_text
def draw_changes(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_changes`' rows on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.annotate`."""
    from matplotlib.lines import Line2D

    info = frame.attrs
    k = info["k"]
    m = int(frame["position"].max()) + 1 if len(frame) else 1
    style.grow_figure(ax, width=4.5, height=m * style.LINE_INCHES * 2.0 + 0.3)
    colours = {"up": style.color(style.WIN), "down": style.color(style.LOSS)}
    # records, not itertuples: pandas-stubs types a named tuple's fields as any scalar (str, date, ...)
    for row in frame[frame["doc_id"].notna()].to_dict("records"):
        y = row["position"] + row["offset"]
        ax.plot([row["before"]], [y], marker="o", color="0.4", markersize=4, zorder=3)
        arrow = {"arrowstyle": "-|>", "color": colours[row["direction"]], "linewidth": 1.5, "shrinkA": 0, "shrinkB": 0}
        ax.annotate("", xy=(row["after"], y), xytext=(row["before"], y), **style.merge({"arrowprops": arrow}, kwargs))
    labels = frame.drop_duplicates("position").sort_values("position")
    ax.set_yticks(labels["position"].to_numpy(), labels["label"].tolist(), fontsize="small")
    ax.set_ylim(m - 0.5, -0.5)
    ax.set_xlim(0.5, k + 1.5)
    ticks = sorted({1, *range(0, k + 1, max(1, k // 5))} - {0}) + [k + 1]
    ax.set_xticks(ticks, [str(t) for t in ticks[:-1]] + [f"> {k}"])
    ax.axvline(k + 0.5, color="0.7", linewidth=0.8, linestyle=":")
    ax.set_xlabel("rank of each relevant document (dot: baseline, arrow head: system)")
    system, baseline, measure = info["system"], info["baseline"], info["measure"]
    ax.set_title(f"Biggest movers in {measure}: {system} vs {baseline}", fontsize="medium")
    handles = [
        Line2D([], [], color=colours["up"], linewidth=2, label=f"moved up ({system})"),
        Line2D([], [], color=colours["down"], linewidth=2, label="moved down"),
        Line2D([], [], color="0.4", marker="o", linestyle="none", label=f"rank in {baseline}"),
    ]
    style.legend_outside(ax, handles=handles)
    return ax
