"""Plots of per-query tables and statistics results (matplotlib + seaborn's palette).

Every plot draws what it is handed and computes no measure: it takes a *per-query
table* (the output of ``rankviz.evaluate(..., per_query=True)``: columns ``system``
(optional), ``query_id`` and one column per measure), an aggregate table, or the
result objects of :mod:`rankviz.stats`. Reading a rank off a reciprocal rank,
counting queries and averaging a per-query column for display are the only
arithmetic they do. :class:`RunPlots` (``df.rank.plot``) evaluates a run first and
then hands the tables to these functions.

One signature shape everywhere, as in seaborn: ``plot(data, *, ..., ax=None,
**kwargs) -> Axes``. The data comes first and everything else is keyword-only; the
plot is drawn on ``ax`` (default: the current Axes); the Axes is returned;
``**kwargs`` go to the one main matplotlib call underneath (named in each
docstring). Nothing here calls ``plt.show()`` or changes matplotlib's global state
(no ``rcParams``, no ``sns.set_theme``): colours come from seaborn's colour-blind
safe ``"colorblind"`` palette, asked for explicitly, extended to 20 distinct colours for
systems (:data:`~rankviz.plots.style.COLORS`; beyond 20 they repeat, and legends say so).

Every plot sizes itself to its content: the draw step grows the figure holding the Axes
(never shrinks it) until rows, bars and legend entries fit, and legends and readings go
beside the Axes, never on the data. A difference is always ``system − baseline``,
coloured by who wins (blue: the system, orange: the baseline).

Each plot is two steps, both public in its module: ``prepare_<plot>(data, ...)``
resolves and validates the input and returns the tidy DataFrame of exactly what is
drawn (bar heights, labels, colours as palette positions, whisker bounds), without
importing matplotlib; ``draw_<plot>(frame, ax, **kwargs)`` draws that frame.

Plots
-----
rr_distribution
    Where the first relevant result lands: ranks 1..k and "not in top k".
    (:mod:`~rankviz.plots.distributions`)
failures
    The queries with the lowest score, labelled with their text.
    (:mod:`~rankviz.plots.worst_queries`)
ci
    Forest plot of bootstrap intervals, systems x measures.
    (:mod:`~rankviz.plots.intervals`)
bootstrap_distribution
    Histogram of one bootstrap distribution with its interval.
    (:mod:`~rankviz.plots.intervals`)
paired_differences
    Sorted per-query differences between two systems: wins, ties, losses.
    (:mod:`~rankviz.plots.differences`)
metric_at_k
    RR@k, R@k and nDCG@k as the cutoff k grows. (:mod:`~rankviz.plots.curves`)
recall_vs_mrr
    The diagnosis view: recall against MRR, each system read against the median
    system (or a reference), with the quadrants read out. (:mod:`~rankviz.plots.diagnosis`)
failure_causes
    The slices of :func:`rankviz.failure_slices`: failure share inside and outside each.
    (:mod:`~rankviz.plots.failure_causes`)
changes
    The biggest movers of :func:`rankviz.changes`: each relevant document's rank before and after.
    (:mod:`~rankviz.plots.changes`)
slices
    Per segment of ``rankviz.bootstrap(..., by=...)``: each system's mean with its interval.
    (:mod:`~rankviz.plots.slices`)
funnel
    The stages of :func:`rankviz.stages`, left to right: the share of queries and of relevant documents
    still present, with intervals, for one pipeline or several. (:mod:`~rankviz.plots.funnel`)
RunPlots
    ``df.rank.plot``: each plot above, evaluating the run first.
    (:mod:`~rankviz.plots.namespace`)

The shared pieces: :mod:`~rankviz.plots.inputs` (measure columns, systems, groups
read from a table) and :mod:`~rankviz.plots.style` (palette, Axes check, labels,
keyword merging).
"""

from __future__ import annotations

from .changes import changes
from .curves import metric_at_k
from .diagnosis import recall_vs_mrr
from .differences import paired_differences
from .distributions import rr_distribution
from .failure_causes import failure_causes
from .funnel import funnel
from .intervals import ci
from .namespace import RunPlots
from .resampled import bootstrap_distribution
from .slices import slices
from .worst_queries import failures

__all__ = [
    "rr_distribution",
    "failures",
    "ci",
    "bootstrap_distribution",
    "paired_differences",
    "metric_at_k",
    "recall_vs_mrr",
    "failure_causes",
    "changes",
    "slices",
    "funnel",
    "RunPlots",
]
