"""Bootstrap intervals: :func:`ci` (forest plot) and :func:`bootstrap_distribution` (histogram).

Whatever form the results come in, :func:`interval_frame` turns them into one tidy
table (``system``, ``measure``, ``estimate``, ``ci_low``, ``ci_high``, ...) and
:func:`one_result` picks the single :class:`~rankviz.stats.BootstrapResult` a
histogram needs. The ``prepare_*`` steps build what is drawn without matplotlib.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._core.columns import columns_text
from .._errors import ColumnError, InputError
from ..measures import parse_measure
from ..stats import BootstrapResult
from . import style
from .inputs import check_system

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "ci",
    "prepare_ci",
    "draw_ci",
    "interval_frame",
    "bootstrap_results",
    "one_result",
]

_RESULT_FIELDS = ("standard_error", "confidence_level", "method", "n_queries", "n_resamples")


# ----------------------------------------------------------------------------- reading results


def bootstrap_results(results, caller: str) -> list[BootstrapResult]:
    """The :class:`~rankviz.stats.BootstrapResult` objects of one result, a dict of them or any iterable of them.

    Raises
    ------
    InputError
        For anything else, or an empty collection.
    """
    if isinstance(results, BootstrapResult):
        return [results]
    if isinstance(results, Mapping):
        items = list(results.values())
    elif isinstance(results, Iterable) and not isinstance(results, (str, bytes, pd.DataFrame)):
        items = list(results)
    else:
        raise InputError(
            f"{caller} plots bootstrap results: a BootstrapResult, a list or dict of them, or what "
            f"rankviz.stats.bootstrap returns. Got {type(results).__name__} instead."
        )
    if not items or not all(isinstance(r, BootstrapResult) for r in items):
        raise InputError(f"{caller}: a list of results must hold rankviz.stats.BootstrapResult objects (non-empty).")
    return items


def interval_frame(results, caller: str) -> pd.DataFrame:
    """One tidy table of intervals from any form of bootstrap or comparison results.

    Accepts what :func:`rankviz.stats.bootstrap` and :func:`rankviz.stats.compare`
    return: an object with a ``to_frame()`` method (a result collection), one
    :class:`~rankviz.stats.BootstrapResult`, a dict or iterable of them, a tidy
    table with ``ci_low``/``ci_high`` (or ``low``/``high``) bounds, or a comparison
    table (``difference``, ``ci_low``, ``ci_high``).

    Returns
    -------
    DataFrame
        ``system`` (when the results name systems), ``measure``, ``estimate``,
        ``ci_low``, ``ci_high`` and whatever else the results carry. For a comparison
        table ``estimate`` is the difference from the baseline and
        ``attrs["difference"]`` is True.

    Raises
    ------
    ColumnError
        A table without an estimate or its bounds.
    InputError
        Anything that is not results.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.intervals import interval_frame
    >>> table = pd.DataFrame({"system": ["a"], "measure": ["RR@10"], "estimate": [0.5], "low": [0.4], "high": [0.6]})
    >>> interval_frame(table, "ci")
      system measure  estimate  ci_low  ci_high
    0      a   RR@10       0.5     0.4      0.6
    """
    if isinstance(results, pd.DataFrame):
        return _tidy(results, caller)
    segments = getattr(results, "by", ())
    if not isinstance(results, BootstrapResult) and isinstance(segments, tuple) and segments:
        raise InputError(
            f"{caller}: these results are per segment (by {', '.join(map(str, segments))}); draw them with "
            "rankviz.plots.slices, or compute them without by=."
        )
    if not isinstance(results, BootstrapResult) and callable(getattr(results, "to_frame", None)):
        return _tidy(results.to_frame(), caller)
    rows = []
    for r in bootstrap_results(results, caller):
        low, high = r.confidence_interval
        row = {"system": r.system, "measure": r.measure, "estimate": r.estimate, "ci_low": low, "ci_high": high}
        rows.append(row | {name: getattr(r, name) for name in _RESULT_FIELDS})
    frame = pd.DataFrame(rows)
    if frame["system"].isna().all():
        frame = frame.drop(columns="system")
    frame.attrs = {"difference": False}
    return frame


def _tidy(table: pd.DataFrame, caller: str) -> pd.DataFrame:
    difference = {"difference", "ci_low", "ci_high"} <= set(table.columns)
    if difference:
        frame = table.rename(columns={"difference": "estimate", "ci_method": "method"})
    else:
        frame = table.rename(
            columns={old: new for old, new in (("low", "ci_low"), ("high", "ci_high")) if new not in table.columns}
        )
    missing = [c for c in ("estimate", "ci_low", "ci_high") if c not in frame.columns]
    if missing:
        raise ColumnError(
            f"{caller}: the results table lacks the columns {columns_text(missing)}; pass what rankviz.stats.bootstrap "
            f"or rankviz.stats.compare returns. Its columns are {columns_text(table.columns)}."
        )
    frame.attrs = {"difference": difference}
    return frame


def one_result(results, caller: str, *, system=None, measure=None) -> BootstrapResult:
    """The one :class:`~rankviz.stats.BootstrapResult` of ``results`` (of ``system`` and ``measure`` when given).

    Raises
    ------
    InputError
        A results table (it has no resampled means), an unknown system or measure,
        or several results left to choose from.
    """
    if isinstance(results, pd.DataFrame):
        raise InputError(
            f"{caller} needs a BootstrapResult (it keeps the resampled means); a results table does not. "
            "Bootstrap one measure: rankviz.stats.bootstrap(table, 'RR@10')."
        )
    items = bootstrap_results(results, caller)
    if system is not None:
        names = list(dict.fromkeys(str(r.system) for r in items if r.system is not None))
        if not names:
            raise InputError(f"{caller}: system={system!r} given, but the results have no system.")
        system = check_system(system, names, caller)
        items = [r for r in items if str(r.system) == system]
    if measure is not None:
        names = list(dict.fromkeys(r.measure for r in items))
        wanted = str(measure) if str(measure) in names else parse_measure(measure).name
        if wanted not in names:
            raise InputError(f"{caller}: unknown measure {str(measure)!r}; the results have {columns_text(names)}.")
        items = [r for r in items if r.measure == wanted]
    if len(items) == 1:
        return items[0]
    systems = list(dict.fromkeys(str(r.system) for r in items))
    measures = list(dict.fromkeys(r.measure for r in items))
    ways = [f"system= (systems: {columns_text(systems)})"] if len(systems) > 1 else []
    ways += [f"measure= (measures: {columns_text(measures)})"] if len(measures) > 1 else []
    choose = " and ".join(ways) or "system= or measure="
    if items[0].segment and len(systems) == len(measures) == 1:
        key = ", ".join(map(repr, (systems[0], *(str(v) for _, v in items[0].segment), measures[0])))
        raise InputError(
            f"{caller} draws one bootstrap distribution; got one per segment: pass one, e.g. results[{key}]."
        )
    if isinstance(results, Mapping):
        choose += f", or pass one of them, e.g. results[{next(iter(results))!r}]"
    elif isinstance(results, (list, tuple)):
        choose += ", or pass one of them, e.g. results[0]"
    raise InputError(f"{caller} draws one bootstrap distribution; got {len(items)} results; choose one with {choose}.")


# ----------------------------------------------------------------------------- ci


def ci(results, *, baseline=None, sort=True, ax=None, **kwargs) -> Axes:
    """Forest plot: each system's estimate with its bootstrap interval, per measure.

    Parameters
    ----------
    results : results of rankviz.stats.bootstrap or compare
        What :func:`rankviz.stats.bootstrap` returns (one result, a dict by system, a
        result collection, or the tidy table for several measures), or
        ``.to_frame()`` of results; see :func:`interval_frame`.
        The table of :func:`rankviz.stats.compare` works too: its differences and
        intervals are drawn against a reference line at 0 (the baseline).
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
    The intervals are drawn from the results' bounds exactly as given (no
    error-bar arithmetic). Each row is annotated on the right with
    ``estimate [low, high]``. With several measures each gets a block headed by its
    name; systems keep their colour across blocks.

    See Also
    --------
    prepare_ci : the rows as a table, without drawing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, ["RR@10", "nDCG@10"], qrels, per_query=True)
    >>> results = rankviz.stats.bootstrap(table, ["RR@10", "nDCG@10"], rng=0)
    >>> fig, ax = plt.subplots(figsize=(7, 5))
    >>> ax = rankviz.plots.ci(results, baseline="bm25", ax=ax)
    """
    frame = prepare_ci(results, baseline=baseline, sort=sort)
    return draw_ci(frame, style.axes(ax, "ci"), **kwargs)


def prepare_ci(results, *, baseline=None, sort=True) -> pd.DataFrame:
    """The rows of :func:`ci`, top to bottom; nothing drawn.

    Parameters are those of :func:`ci`.

    Returns
    -------
    DataFrame
        One row per line of the plot: ``kind`` is 'header' (a measure's block
        title), 'interval' (a whisker: ``estimate``, ``ci_low``, ``ci_high``, its
        ``text`` and ``color``, a palette position kept per system) or 'baseline'
        (the dashed line at ``estimate`` from ``y`` to ``y_end``); ``y`` is the row's
        position, ``label`` its tick label. ``attrs`` holds ``reference`` (0.0 for
        a comparison table), ``reference_label``, ``n_colors``, ``ylim``,
        ``xlabel``, ``title`` and ``note`` (what the dashed lines mean, shown under
        the x label; no legend covers the intervals).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.intervals import prepare_ci
    >>> table = pd.DataFrame({"system": ["a", "b"], "measure": "RR@10", "estimate": [0.4, 0.6],
    ...                       "ci_low": [0.3, 0.5], "ci_high": [0.5, 0.7]})
    >>> prepare_ci(table)[["kind", "y", "label", "ci_low", "ci_high"]]
           kind    y label  ci_low  ci_high
    0  interval  0.0     b     0.5      0.7
    1  interval  1.0     a     0.3      0.5
    """
    caller = "ci"
    frame = interval_frame(results, caller)
    difference = frame.attrs["difference"]
    if len(frame) == 0:
        raise InputError(f"{caller}: there are no results to plot.")
    has_system = "system" in frame.columns and frame["system"].notna().any()
    frame = frame.reset_index(drop=True).assign(
        system=frame["system"].astype(str).to_numpy() if has_system else "",
        measure=frame["measure"].astype(str).to_numpy() if "measure" in frame.columns else "estimate",
    )
    systems = list(pd.unique(frame["system"]))
    if baseline is not None:
        if not has_system:
            raise InputError(
                f"{caller}: baseline={baseline!r} needs results for several systems; these have no system."
            )
        baseline = check_system(baseline, systems, caller, "baseline")
    if frame.duplicated(["system", "measure"]).any():
        raise InputError(f"{caller}: the results hold the same (system, measure) twice.")
    measures = list(pd.unique(frame["measure"]))
    blocks = len(measures) > 1 and has_system
    out = _ci_rows(
        frame,
        measures,
        systems,
        has_system=has_system,
        blocks=blocks,
        sort=sort,
        baseline=None if difference else baseline,
    )
    end = out["y"].max() + 1 + (0.6 if blocks else 0)
    out.attrs = {
        "reference": 0.0 if difference else None,
        "reference_label": f"baseline: {frame['baseline'].iloc[0]}" if "baseline" in frame.columns else "no difference",
        "n_colors": len(systems),
        "ylim": (end - (0.9 if blocks else 0.4), -0.6),
        **_ci_texts(frame, measures, difference),
        "note": _ci_note(frame, baseline, difference, len(systems)),
    }
    return out


def _ci_rows(frame, measures, systems, *, has_system, blocks, sort, baseline) -> pd.DataFrame:
    rows = []
    position = 0.0
    for measure in measures:
        part = frame[frame["measure"] == measure]
        if sort and has_system:
            part = part.sort_values("estimate", ascending=False, kind="mergesort", na_position="last")
        if blocks:
            rows.append({"kind": "header", "y": position, "label": measure, "measure": measure})
            position += 1
        start = position
        for row in part.itertuples(index=False):
            low, high, estimate = float(row.ci_low), float(row.ci_high), float(row.estimate)
            rows.append(
                {
                    "kind": "interval",
                    "y": position,
                    "label": row.system if has_system else row.measure,
                    "system": row.system,
                    "measure": measure,
                    "estimate": estimate,
                    "ci_low": low,
                    "ci_high": high,
                    "color": systems.index(row.system),
                    "text": f"{estimate:.3f} [{low:.3f}, {high:.3f}]",
                }
            )
            position += 1
        base = part.loc[part["system"] == baseline, "estimate"] if baseline is not None else None
        if base is not None and len(base):
            rows.append(
                {
                    "kind": "baseline",
                    "y": start - 0.5,
                    "y_end": position - 0.5,
                    "system": baseline,
                    "measure": measure,
                    "estimate": float(base.iloc[0]),
                    "label": f"baseline: {baseline}" if measure == measures[0] else None,
                }
            )
        position += 0.6 if blocks else 0
    columns = ["kind", "y", "y_end", "label", "system", "measure", "estimate", "ci_low", "ci_high", "color", "text"]
    out = pd.DataFrame(rows).reindex(columns=columns)
    out["color"] = out["color"].astype("Int64")
    return out


def _ci_note(frame, baseline, difference, n_systems) -> str:
    """What the dashed lines mean (and how colours repeat), written under the x label instead of a legend."""
    if difference:
        base = frame["baseline"].iloc[0] if "baseline" in frame.columns else None
        note = f"dashed line: no difference from the baseline{f' ({base})' if base is not None else ''}"
    else:
        note = f"dashed line: {baseline}'s estimate (baseline)" if baseline is not None else ""
    repeat = style.colour_note(n_systems).strip(" ()")
    return "; ".join(part for part in (note, repeat) if part)


def _ci_texts(frame, measures, difference) -> dict:
    level = frame["confidence_level"].iloc[0] if "confidence_level" in frame.columns else None
    methods = list(pd.unique(frame["method"].astype(str))) if "method" in frame.columns else []
    names = {
        "bca": "bootstrap CI (BCa)",
        "percentile": "bootstrap CI (percentile)",
        "t": "paired t CI",
        "bootstrap-t": "bootstrap-t CI",
    }
    kinds = ", ".join(dict.fromkeys(names.get(m, f"CI ({m})") for m in methods)) or "bootstrap CI"
    interval = (f"{level:.0%} " if level is not None and np.isfinite(level) else "") + kinds
    what = "difference from the baseline" if difference else "mean"
    name = measures[0] if len(measures) == 1 and measures[0] != "estimate" else ""
    n_queries = list(pd.unique(frame["n_queries"])) if "n_queries" in frame.columns else []
    suffix = f" ({int(n_queries[0])} queries)" if len(n_queries) == 1 else ""
    title = "Paired differences" if difference else "Bootstrap confidence intervals"
    return {
        "xlabel": f"{name + ' ' if name else ''}{what} with {interval}".strip(),
        "title": f"{title}{': ' + name if name else ''}{suffix}",
    }


#: height of one row of the forest plot, in inches: a tick label and its annotation with air between rows
ROW_INCHES = 0.24


@style.literal_text
def draw_ci(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw the rows of :func:`prepare_ci` on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.hlines`.

    The figure grows until every row has :data:`ROW_INCHES` of height; the reference
    lines are explained in the x label, not in a legend over the intervals.
    """
    from matplotlib.transforms import blended_transform_factory

    info = frame.attrs
    low, high = info["ylim"]
    style.grow_figure(ax, width=4.0, height=ROW_INCHES * abs(low - high) + 0.2)
    for line in frame[frame["kind"] == "baseline"].itertuples(index=False):
        ax.vlines(line.estimate, line.y, line.y_end, colors="0.35", linestyles="--", linewidth=1, zorder=1)
    rows = frame[frame["kind"] == "interval"]
    ys = rows["y"].to_numpy(dtype=np.float64)
    palette = style.colors(info["n_colors"])
    colors = [palette[int(i)] for i in rows["color"]]
    ax.hlines(
        ys,
        rows["ci_low"].to_numpy(),
        rows["ci_high"].to_numpy(),
        **style.merge({"colors": colors, "linewidth": 2.5, "zorder": 2}, kwargs),
    )
    markers = kwargs.get("colors", kwargs.get("color", colors))
    ax.scatter(rows["estimate"].to_numpy(), ys, color=markers, s=40, zorder=3, edgecolors="white", linewidths=0.8)
    if info["reference"] is not None:
        ax.axvline(info["reference"], color="0.35", linestyle="--", linewidth=1, zorder=1)
    where = blended_transform_factory(ax.transAxes, ax.transData)
    for y, text in zip(ys, rows["text"]):
        ax.text(1.02, y, text, transform=where, va="center", ha="left", fontsize="x-small")
    ticked = frame[frame["kind"] != "baseline"]
    ax.set_yticks(ticked["y"].tolist(), labels=ticked["label"].tolist())
    for label, kind in zip(ax.get_yticklabels(), ticked["kind"]):
        if kind == "header":
            label.set_fontweight("bold")
    ax.set_ylim(low, high)
    ax.set_xlabel(info["xlabel"] + (f"\n{info['note']}" if info["note"] else ""))
    ax.set_title(info["title"])
    ax.grid(axis="x", alpha=0.3)
    return ax


# ----------------------------------------------------------------------------- bootstrap_distribution
