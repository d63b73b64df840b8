"""Per-query differences between two systems: :func:`paired_differences`.

:func:`prepare_paired_differences` sorts the differences and calls each a loss, tie
or win (no matplotlib); :func:`draw_paired_differences` draws them as three filled
step patches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import stats
from .._core.columns import columns_text
from .._errors import ColumnError, InputError
from ..io.per_query import per_query_table
from . import style
from .inputs import check_system, values

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["paired_differences", "prepare_paired_differences", "draw_paired_differences"]

#: the outcomes, left to right, with their palette positions
OUTCOMES = (("loss", style.LOSS), ("tie", style.TIE), ("win", style.WIN))


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

    See Also
    --------
    prepare_paired_differences : the sorted differences as a table, without drawing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(8, 4))
    >>> ax = rankviz.plots.paired_differences(table, system="bm25+rerank", baseline="bm25",
    ...                                       measure="RR@10", ax=ax)
    """
    frame = prepare_paired_differences(data, system=system, baseline=baseline, measure=measure)
    return draw_paired_differences(frame, style.axes(ax, "paired_differences"), **kwargs)


def prepare_paired_differences(data, *, system=None, baseline=None, measure=None) -> pd.DataFrame:
    """The differences of :func:`paired_differences`, sorted ascending, each a loss, tie or win; nothing drawn.

    Parameters are those of :func:`paired_differences`.

    Returns
    -------
    DataFrame
        ``position`` (0 .. n-1), ``query_id`` (when known), ``difference`` and
        ``outcome`` ('loss', 'tie' or 'win'). ``attrs`` holds ``system``,
        ``baseline``, ``measure``, ``wins``, ``ties``, ``losses`` and ``mean``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.differences import prepare_paired_differences
    >>> table = pd.DataFrame({"system": ["x"] * 3 + ["y"] * 3, "query_id": ["q1", "q2", "q3"] * 2,
    ...                       "RR@10": [1.0, 0.5, 0.0, 0.5, 0.5, 1.0]})
    >>> prepare_paired_differences(table, system="y", baseline="x")
       position query_id  difference outcome
    0         0       q1        -0.5    loss
    1         1       q2         0.0     tie
    2         2       q3         1.0     win
    """
    caller = "paired_differences"
    if isinstance(data, pd.DataFrame) and "difference" in data.columns:
        meta = data.attrs.get("rankviz", {}) if isinstance(data.attrs.get("rankviz"), dict) else {}
        system = str(system) if system is not None else meta.get("system", "system")
        baseline = str(baseline) if baseline is not None else meta.get("baseline", "baseline")
        measure = str(measure) if measure is not None else meta.get("measure", "measure")
        table = data
        if len(table) == 0:
            raise InputError(f"{caller}: the differences table is empty.")
    else:
        system, baseline, measure, table = _differences(data, system, baseline, measure, caller)
    diffs = values(table, "difference", caller)
    if np.isnan(diffs).any():
        raise InputError(f"{caller}: the differences have missing values.")
    order = np.argsort(diffs, kind="mergesort")
    diffs = diffs[order]
    frame = pd.DataFrame({"position": np.arange(len(diffs))})
    if "query_id" in table.columns:
        frame["query_id"] = table["query_id"].to_numpy()[order]
    frame["difference"] = diffs
    frame["outcome"] = np.select([diffs < 0, diffs > 0], ["loss", "win"], "tie")
    counts = frame["outcome"].value_counts()
    frame.attrs = {
        "system": system,
        "baseline": baseline,
        "measure": measure,
        "wins": int(counts.get("win", 0)),
        "ties": int(counts.get("tie", 0)),
        "losses": int(counts.get("loss", 0)),
        "mean": float(diffs.mean()),
    }
    return frame


def _differences(data, system, baseline, measure, caller) -> tuple[str, str, str, pd.DataFrame]:
    """(system, baseline, measure column, differences) of a per-query table, via rankviz.stats.paired_differences."""
    table = per_query_table(data, caller)
    frame = table.frame
    if table.system is None:
        raise ColumnError(f"{caller} compares two systems: the per-query table needs a system column.")
    systems = table.systems()
    if (system is None) != (baseline is None) and len(systems) == 2:
        given = system if system is not None else baseline
        other = [s for s in systems if s != str(given)]
        if len(other) == 1:
            system, baseline = (system, other[0]) if system is not None else (other[0], baseline)
    if system is None or baseline is None:
        raise InputError(
            f"{caller}: name the two systems with system= and baseline= (systems: {columns_text(systems)})."
        )
    if measure is None:
        numeric = table.numeric_columns()
        if len(numeric) != 1:
            raise InputError(f"{caller}: choose the measure with measure=; the table has {columns_text(numeric)}.")
        measure = numeric[0]
    system = check_system(system, systems, caller)
    baseline = check_system(baseline, systems, caller, "baseline")
    measure = table.measure_column(measure, caller)
    return system, baseline, measure, stats.paired_differences(frame, system=system, baseline=baseline, measure=measure)


@style.literal_text
def draw_paired_differences(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_paired_differences`' differences on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.stairs`."""
    from matplotlib import ticker
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    info = frame.attrs
    diffs = frame["difference"].to_numpy()
    n = len(diffs)
    colors = {outcome: style.color(index) for outcome, index in OUTCOMES}
    # One filled step patch per outcome: the look of width-1 bars, but three artists instead of
    # one per query (7,000 bars take seconds to build). Query i spans [i - 0.5, i + 0.5].
    for outcome, label in (("loss", "losses"), ("tie", "ties"), ("win", "wins")):
        part = frame[frame["outcome"] == outcome]
        if len(part):
            edges = np.append(part["position"].to_numpy(dtype=np.float64), part["position"].iloc[-1] + 1.0) - 0.5
            defaults = {"baseline": 0.0, "fill": True, "color": colors[outcome], "label": label}
            ax.stairs(part["difference"].to_numpy(), edges, **style.merge(defaults, kwargs))
    wins, ties, losses = info["wins"], info["ties"], info["losses"]
    if ties:
        ax.hlines(0, losses - 0.5, losses + ties - 0.5, colors=[colors["tie"]], linewidth=3, zorder=3)
    ax.axhline(0, color="0.2", linewidth=0.8, zorder=2)
    ax.axhline(info["mean"], color="0.2", linestyle="--", linewidth=1, zorder=2)
    ax.set_xlim(-0.5, n - 0.5)
    low, high = min(diffs.min(), 0.0), max(diffs.max(), 0.0)
    span = (high - low) or 1.0
    ax.set_ylim(low - 0.1 * span, high + 0.15 * span)
    ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    system, baseline, measure = info["system"], info["baseline"], info["measure"]
    ax.set_xlabel(f"queries, sorted by difference (n = {n})")
    ax.set_ylabel(f"Δ {measure} = {system} − {baseline}")
    ax.set_title(f"Per-query {measure}: {system} vs {baseline}", fontsize="medium")
    ax.text(
        0.02,
        0.97,
        f"wins {wins} · ties {ties} · losses {losses}",
        transform=ax.transAxes,
        va="top",
        ha="left",
        fontsize="small",
        bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "0.7"},
    )
    handles = [
        Patch(color=colors["win"], label=f"{system} better ({wins})"),
        Patch(color=colors["tie"], label=f"tie ({ties})"),
        Patch(color=colors["loss"], label=f"{baseline} better ({losses})"),
        Line2D([], [], color="0.2", linestyle="--", label=f"mean Δ = {info['mean']:+.4f}"),
    ]
    # Beside the plot: the lower right is empty only while some query is lost (a system that
    # wins every query leaves no room below zero).
    style.legend_outside(ax, handles=handles)
    return ax
