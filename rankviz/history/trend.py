"""The trend of a history: :func:`prepare_trend` computes a tidy frame (no matplotlib), :func:`draw_trend` draws it.

One line per name, the mean of one measure per record with its bootstrap interval
(a band), a marker on each record significantly different from the previous
accepted record of its name, and a vertical rule wherever the qrels changed.
Readable with hundreds of records: the band and the line carry the records, only
the significant ones get markers, and rules are drawn once per qrels change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import stats
from .._errors import InputError
from ..plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["prepare_trend", "draw_trend", "axes", "TREND_COLUMNS"]

TREND_COLUMNS = (
    "id", "name", "time", "mean", "ci_low", "ci_high", "n_queries", "accepted", "baseline", "difference",
    "p_value", "significant", "qrels_changed",
)  # fmt: skip


def axes(ax):
    return style.axes(ax, "History.plot")


def _column(record, measure) -> str | None:
    if measure in record.table.columns:
        return measure
    return None


def prepare_trend(history, measure: str, *, name=None, n_resamples: int = 1000, alpha: float = 0.05) -> pd.DataFrame:
    """The trend of one measure as a tidy frame: one row per record (of one system each), oldest first.

    Parameters
    ----------
    history : History
    measure : str
        A measure column of the records (records without it are left out).
    name : str or list of str, optional
        The names to show (default: all).
    n_resamples : int, default 1000
        Bootstrap resamples of each record's interval (percentile, seed 0).
    alpha : float, default 0.05
        Level of the paired t-test against the previous accepted record of the same name.

    Returns
    -------
    DataFrame
        :data:`TREND_COLUMNS`: the record, its mean and interval, whether it was
        accepted, the id of the accepted record it was tested against (``baseline``,
        missing when there was none or the two are not comparable), the difference
        and p-value, ``significant`` and ``qrels_changed`` (its qrels differ from
        the previous record's).
    """
    listing = history.list()
    if not len(listing):
        raise InputError("History.plot: the history is empty; record an evaluation first.")
    names = None if name is None else ([name] if isinstance(name, str) else list(name))
    if names is not None:
        unknown = sorted(set(names) - set(listing["name"]))
        if unknown:
            raise InputError(f"History.plot: no records named {unknown}; the names are {sorted(set(listing['name']))}.")
    ids = listing.drop_duplicates("id").sort_values(["time", "id"], kind="mergesort")["id"].tolist()
    rows: list[dict] = []
    previous_qrels: str | None = None
    last_accepted: dict = {}
    for rid in ids:
        record = history.get(int(rid))
        changed = previous_qrels is not None and record.fingerprints["qrels"] != previous_qrels
        previous_qrels = record.fingerprints["qrels"]
        if names is not None and record.name not in names:
            continue
        column = _column(record, measure)
        table = record.table if "system" not in record.table.columns or len(record.systems) == 1 else None
        if column is None or table is None:
            continue
        values = table[column].to_numpy(dtype=np.float64)
        interval = stats.bootstrap(
            table.drop(columns=[c for c in ("system",) if c in table.columns])[["query_id", column]],
            column, n_resamples=n_resamples, method="percentile", rng=0,
        ).results[0].confidence_interval  # fmt: skip
        row = {
            "id": record.id, "name": record.name, "time": record.time, "mean": float(values.mean()),
            "ci_low": float(interval.low), "ci_high": float(interval.high), "n_queries": len(values),
            "accepted": record.accepted, "baseline": np.nan, "difference": np.nan, "p_value": np.nan,
            "significant": False, "qrels_changed": changed,
        }  # fmt: skip
        base = last_accepted.get(record.name)
        if base is not None and base.fingerprints == {**base.fingerprints, **_comparable(record)}:
            merged = base.table[["query_id", column]].merge(table[["query_id", column]], on="query_id")
            d = merged[f"{column}_y"].to_numpy(np.float64) - merged[f"{column}_x"].to_numpy(np.float64)
            row.update(baseline=base.id, difference=float(d.mean()), p_value=_t_p(d))
            row["significant"] = bool(row["p_value"] < alpha)
        if record.accepted:
            last_accepted[record.name] = record
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(TREND_COLUMNS))
    if not len(frame):
        raise InputError(f"History.plot: no record of one system has a column {measure!r}.")
    frame.attrs = {"measure": measure, "alpha": alpha}
    return frame


def _comparable(record) -> dict:
    """The fingerprints that must match for two records to be compared (the run's may differ)."""
    return {k: record.fingerprints[k] for k in ("qrels", "queries", "options")}


def _t_p(d: np.ndarray) -> float:
    """Two-sided paired t-test p-value of differences (1 when they are all equal)."""
    from scipy import stats as scipy_stats

    n = len(d)
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    if n < 2 or sd == 0.0:
        return 1.0 if float(np.abs(d).max(initial=0.0)) == 0.0 else 0.0
    t = float(d.mean()) / (sd / np.sqrt(n))
    return float(2 * scipy_stats.t.sf(abs(t), n - 1))


@style.literal_text
def draw_trend(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_trend`'s frame on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.plot`."""
    from matplotlib.lines import Line2D

    measure = frame.attrs.get("measure", "measure")
    names = list(dict.fromkeys(frame["name"]))
    colors = style.colors(len(names))
    times = pd.to_datetime(frame["time"])
    for color, name in zip(colors, names):
        part = frame[frame["name"] == name]
        x = (
            pd.to_datetime(part["time"]).dt.tz_localize(None)
            if times.dt.tz is not None
            else pd.to_datetime(part["time"])
        )
        ax.fill_between(x, part["ci_low"], part["ci_high"], color=color, alpha=0.18, linewidth=0, step=None)
        defaults = {"color": color, "linewidth": 1.2, "marker": "o" if len(part) <= 40 else None, "markersize": 3,
                    "label": style.shorten(name, 30)}  # fmt: skip
        ax.plot(x, part["mean"], **style.merge(defaults, kwargs))
        accepted = part[part["accepted"]]
        if len(accepted):
            ax.scatter(x[part["accepted"]], accepted["mean"], s=28, facecolors="white", edgecolors=[color], zorder=4)
        marked = part[part["significant"]]
        if len(marked):
            ax.scatter(x[part["significant"]], marked["mean"], marker="*", s=70, c=[color], edgecolors="0.1",
                       linewidths=0.5, zorder=5)  # fmt: skip
    naive = times.dt.tz_localize(None) if times.dt.tz is not None else times
    for when in naive[frame["qrels_changed"].to_numpy()]:
        ax.axvline(when, color="0.35", linestyle="--", linewidth=0.9, zorder=1)
    ax.set_ylabel(f"mean {measure}")
    ax.set_xlabel("time (UTC)")
    ax.set_title(f"{measure} over time", fontsize="medium")
    ax.figure.autofmt_xdate()
    handles, labels = ax.get_legend_handles_labels()
    extra = [
        Line2D([], [], color="0.3", marker="o", markerfacecolor="white", linestyle="", label="accepted"),
        Line2D([], [], color="0.3", marker="*", markersize=9, linestyle="",
               label=f"differs from accepted (p < {frame.attrs.get('alpha', 0.05):g})"),
        Line2D([], [], color="0.35", linestyle="--", label="qrels changed"),
    ]  # fmt: skip
    style.legend_outside(ax, handles=handles + extra, title=style.colour_note(len(names)) or None)
    return ax
