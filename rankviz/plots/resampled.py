"""The bootstrap distribution of one system and measure, with its interval marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._errors import InputError
from . import style
from .intervals import one_result

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["bootstrap_distribution", "prepare_bootstrap_distribution", "draw_bootstrap_distribution"]


def bootstrap_distribution(result, *, system=None, measure=None, bins=50, ax=None, **kwargs) -> Axes:
    """Histogram of one bootstrap distribution, its interval shaded and the estimate marked.

    Parameters
    ----------
    result : BootstrapResult
        One result of :func:`rankviz.stats.bootstrap`, or results holding several
        (a dict, a list, a result collection) with ``system``/``measure`` naming one.
    system, measure : str, optional
        Which of several results to draw.
    bins : int or sequence, default 50
        As for :meth:`matplotlib.axes.Axes.hist`.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.hist`.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    prepare_bootstrap_distribution : the resampled values and the interval, without drawing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> results = rankviz.stats.bootstrap(table, "RR@10", rng=0)
    >>> fig, ax = plt.subplots(figsize=(7, 4))
    >>> ax = rankviz.plots.bootstrap_distribution(results, system="bm25", ax=ax)
    """
    frame = prepare_bootstrap_distribution(result, system=system, measure=measure)
    return draw_bootstrap_distribution(
        frame, style.axes(ax, "bootstrap_distribution"), **style.merge({"bins": bins}, kwargs)
    )


def prepare_bootstrap_distribution(result, *, system=None, measure=None) -> pd.DataFrame:
    """The histogram's data: the finite resampled means of one result; nothing drawn.

    Returns
    -------
    DataFrame
        One column, ``value``. ``attrs`` holds ``estimate``, ``ci_low``,
        ``ci_high``, ``interval_label`` (None when a bound is not finite),
        ``estimate_label``, ``xlabel`` and ``title``.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> from rankviz.plots.resampled import prepare_bootstrap_distribution
    >>> table = pd.DataFrame({"query_id": [f"q{i}" for i in range(40)], "RR@10": [1.0, 0.5, 0.0, 0.25] * 10})
    >>> frame = prepare_bootstrap_distribution(rankviz.stats.bootstrap(table, "RR@10", n_resamples=500, rng=0))
    >>> len(frame), frame.attrs["estimate"]
    (500, 0.4375)
    """
    caller = "bootstrap_distribution"
    r = one_result(result, caller, system=system, measure=measure)
    values = np.asarray(r.bootstrap_distribution, dtype=np.float64)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        raise InputError(f"{caller}: the result has no finite resampled values to draw.")
    low, high = r.confidence_interval
    method = "BCa" if r.method == "bca" else r.method
    finite = bool(np.isfinite(low) and np.isfinite(high))
    who = f" — {r.system}" if r.system is not None else ""
    frame = pd.DataFrame({"value": values})
    frame.attrs = {
        "estimate": r.estimate,
        "ci_low": low,
        "ci_high": high,
        "interval_label": f"{r.confidence_level:.0%} CI ({method}): [{low:.4f}, {high:.4f}]" if finite else None,
        "estimate_label": f"estimate: {r.estimate:.4f}",
        "xlabel": f"mean {r.measure} of a resample of the queries",
        "title": f"Bootstrap distribution of mean {r.measure}{who}\n{r.n_queries} queries, {r.n_resamples:,} resamples",
    }
    return frame


@style.literal_text
def draw_bootstrap_distribution(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_bootstrap_distribution`'s histogram on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.hist`."""
    info = frame.attrs
    win = style.color(style.WIN)
    if info["interval_label"] is not None:
        ax.axvspan(info["ci_low"], info["ci_high"], color=win, alpha=0.15, zorder=0, label=info["interval_label"])
    ax.hist(frame["value"].to_numpy(), **style.merge({"bins": 50, "color": win, "alpha": 0.85, "zorder": 1}, kwargs))
    ax.axvline(info["estimate"], color=style.color(style.LOSS), linewidth=2, zorder=2, label=info["estimate_label"])
    ax.set_xlabel(info["xlabel"])
    ax.set_ylabel("resamples")
    ax.set_title(info["title"], fontsize="medium")
    style.legend_outside(ax)  # beside the histogram: inside, it would cover bars whatever the corner
    return ax
