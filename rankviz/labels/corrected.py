"""Corrected numbers: a model's labels on every query, people's on a random sample, one honest mean.

:func:`corrected` is prediction-powered inference (Angelopoulos et al., *Science* 2023)
with the query as the unit; the arithmetic is in :mod:`rankviz.labels.ppi`.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from .._core.checks import check_choice, check_probability
from .._errors import DegenerateDataWarning, InputError, warn
from ..evaluation import evaluate
from ..io.per_query import is_reciprocal_rank
from ..measures import parse_measures
from ..stats.results import html_table
from .design import Design
from .ppi import SCOPES, Layout, check_scales, design_estimate, labels_frame

__all__ = ["Corrected", "corrected", "per_query_values", "TINY_SAMPLE", "TINY_SAMPLE_RR", "FEW_NONZERO_DIFFERENCES"]

#: below this many human-judged queries the corrected 95% interval under-covers (nDCG@10, P@10); calibrated by
#: benchmarks/label_correction.py: at 3-5 queries coverage 0.77-0.95, from 8 on 0.935 or more (R = 200 per cell;
#: see benchmarks/RESULTS.md, 'Labels from a model')
TINY_SAMPLE = 8
#: the same for reciprocal-rank measures, whose per-query values jump between 0 and 1: 0.77 at 3 queries,
#: 0.89-0.93 at 8, 0.92-0.93 at 12, 0.94 or more from 20 on
TINY_SAMPLE_RR = 20
#: fewer queries than this whose human and model values differ: the t interval rests on too few non-zero terms
#: (a heuristic, not calibrated by the benchmark)
FEW_NONZERO_DIFFERENCES = 5

_ESTIMATORS = ("naive", "corrected", "human-only")


@dataclasses.dataclass(frozen=True, repr=False)
class Corrected:
    """Naive, corrected and human-only means per system x measure (:func:`corrected` returns it).

    Parameters
    ----------
    table : DataFrame
        One row per system (x baseline) x measure; see :meth:`to_frame`.
    confidence : float
        The confidence level of the intervals (0.95 for 95%).
    scope : {'population', 'queries'}
        The mean the intervals are for (see :func:`corrected`).
    design : Design
        How the human-judged queries were drawn.
    baseline : str or None
        The system the differences are taken against, or None for plain means.
    notes : tuple of str
        Caveats about the result (too few human-judged queries, grades missing), shown with it.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import labels
    >>> queries = [f"q{i}" for i in range(20)]
    >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
    >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
    >>> design = labels.sample_queries(queries, n=10, seed=0)
    >>> human = model[model["query_id"].isin(design.queries)]
    >>> result = labels.corrected(run, model, human, "P@1", design=design)
    >>> result.confidence, result.scope, float(result.to_frame()["corrected"].iloc[0])
    (0.95, 'population', 1.0)
    """

    table: pd.DataFrame
    confidence: float
    scope: str
    design: Design
    baseline: str | None = None
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The tidy table: ``system``, (``baseline``), ``measure``, ``naive`` (``naive_low``, ``naive_high``),
        ``corrected``, ``ci_low``, ``ci_high``, ``standard_error``, ``human_only``, ``human_low``, ``human_high``,
        ``human_standard_error``, ``rectifier``, ``n_queries``, ``n_human``, ``n_draws``, ``effective_sample_size``.

        Returns
        -------
        DataFrame
            One row per system (x baseline) x measure, the columns above.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> queries = [f"q{i}" for i in range(20)]
        >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
        >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
        >>> design = labels.sample_queries(queries, n=10, seed=0)
        >>> result = labels.corrected(run, model, model[model["query_id"].isin(design.queries)], "P@1", design=design)
        >>> result.to_frame()[["measure", "naive", "corrected", "n_human"]]
          measure  naive  corrected  n_human
        0     P@1    1.0        1.0       10
        """
        return self.table.copy()

    def __repr__(self) -> str:
        what = f"differences from {self.baseline!r}" if self.baseline is not None else "means"
        return (
            f"Corrected({what}, {len(self.table)} rows, {self.confidence:.0%} intervals, scope={self.scope!r}, "
            f"{self.design.n} human draws of {len(self.design.universe)} queries, method={self.design.method!r})"
        )

    def _repr_html_(self) -> str:
        shown = self.table.set_index([c for c in ("system", "baseline", "measure") if c in self.table.columns])
        keep = ["naive", "corrected", "ci_low", "ci_high", "human_only", "human_low", "human_high", "n_human",
                "effective_sample_size"]  # fmt: skip
        what = f"differences from {self.baseline}" if self.baseline is not None else "means"
        caption = (
            f"Prediction-powered {what}: {self.confidence:.0%} intervals, {len(self.design.queries)} of "
            f"{len(self.design.universe)} queries graded by people ({self.design.method})"
        )
        return html_table(shown[keep], caption, self.notes)

    def prepare_plot(self) -> pd.DataFrame:
        """The forest plot's rows: ``system``, ``measure``, ``estimator`` (naive, corrected, human-only), ``estimate``, ``low``, ``high``.

        Returns
        -------
        DataFrame
            Three rows (one per estimator) per system x measure.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> queries = [f"q{i}" for i in range(20)]
        >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
        >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
        >>> design = labels.sample_queries(queries, n=10, seed=0)
        >>> result = labels.corrected(run, model, model[model["query_id"].isin(design.queries)], "P@1", design=design)
        >>> result.prepare_plot()["estimator"].tolist()
        ['naive', 'corrected', 'human-only']
        """
        rows = []
        for record in self.table.to_dict("records"):
            name = record["system"] if self.baseline is None else f"{record['system']} - {self.baseline}"
            for estimator, (est, low, high) in zip(_ESTIMATORS, (
                ("naive", "naive_low", "naive_high"), ("corrected", "ci_low", "ci_high"),
                ("human_only", "human_low", "human_high"),
            )):  # fmt: skip
                rows.append({"system": name, "measure": record["measure"], "estimator": estimator,
                             "estimate": record[est], "low": record[low], "high": record[high]})  # fmt: skip
        return pd.DataFrame(rows)

    def plot(self, *, ax=None):
        """Forest plot: per measure a panel, per system the naive, corrected and human-only intervals side by side.

        Returns the Axes (an array of them for several measures, unless ``ax`` is given: then one measure only).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            The Axes to draw one measure on; by default a new figure with a panel per measure.

        Returns
        -------
        matplotlib Axes or array of Axes
            The panels.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> queries = [f"q{i}" for i in range(20)]
        >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
        >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
        >>> design = labels.sample_queries(queries, n=10, seed=0)
        >>> result = labels.corrected(run, model, model[model["query_id"].isin(design.queries)], "P@1", design=design)
        >>> ax = result.plot()
        """
        return draw_forest(self.prepare_plot(), ax=ax, difference=self.baseline is not None)


def _mathtext_safe(text) -> str:
    return str(text).replace("$", r"\$")


def draw_forest(frame: pd.DataFrame, *, ax=None, difference: bool = False):
    """Draw :meth:`Corrected.prepare_plot`'s rows (no computation here)."""
    import matplotlib.pyplot as plt
    import numpy as np

    measures = list(dict.fromkeys(frame["measure"]))
    systems = list(dict.fromkeys(frame["system"]))
    if ax is not None and len(measures) > 1:
        raise InputError(
            f"Corrected.plot: ax= draws one measure, but the result has {len(measures)}; "
            "leave ax out (one panel per measure) or correct one measure."
        )
    if ax is None:
        width = 3.2 * len(measures) + 1.5
        _, axes = plt.subplots(1, len(measures), figsize=(width, 0.6 * len(systems) + 1.4), squeeze=False, sharey=True)
        axes = axes[0]
    else:
        axes = np.array([ax])
    colours = {"naive": "#999999", "corrected": "#1f77b4", "human-only": "#ff7f0e"}
    offsets = {"naive": -0.22, "corrected": 0.0, "human-only": 0.22}
    for axis, measure in zip(axes, measures):
        part = frame[frame["measure"] == measure]
        for estimator in _ESTIMATORS:
            rows = part[part["estimator"] == estimator]
            y = np.array([systems.index(s) for s in rows["system"]]) + offsets[estimator]
            est = rows["estimate"].to_numpy(dtype=float)
            err = np.vstack([est - rows["low"].to_numpy(dtype=float), rows["high"].to_numpy(dtype=float) - est])
            axis.errorbar(est, y, xerr=err, fmt="o", color=colours[estimator], capsize=3, label=estimator)
        if difference:
            axis.axvline(0.0, color="black", linewidth=0.8)
        axis.set_title(_mathtext_safe(measure))
        axis.set_yticks(range(len(systems)), [_mathtext_safe(s) for s in systems])
    axes[0].invert_yaxis()
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    axes[0].figure.tight_layout()
    return axes[0] if len(axes) == 1 else axes


def per_query_values(run, measures, qrels, queries, caller: str) -> pd.DataFrame:
    """rankviz's own per-query values (``system``, ``query_id``, measures) on ``queries`` only (trec_eval-exact)."""
    wanted = set(queries)
    if isinstance(qrels, pd.DataFrame):
        qrels = qrels[qrels["query_id"].isin(wanted)]
    table = evaluate(run, measures, qrels, per_query=True)
    table.attrs = {}  # (evaluation notes are not needed here, and pandas deep-copies attrs on every operation)
    if "system" not in table.columns:
        table.insert(0, "system", "run")
    table["query_id"] = table["query_id"].astype(str)
    return table[table["query_id"].isin(wanted)]


def _resolve_design(design, universe: list[str], human: pd.DataFrame, caller: str) -> Design:
    if isinstance(design, Design):
        return design
    if isinstance(design, str) and design == "random":
        known = set(universe)
        judged = [q for q in human["query_id"].unique().tolist() if q in known]
        if len(judged) < 2:
            raise InputError(
                f"{caller}: people graded {len(judged)} of the model's queries; the correction needs a random "
                "sample of at least 2 (draw one with labels.sample_queries and grade its pairs)."
            )
        inclusion = pd.Series(len(judged) / len(universe), index=universe, dtype=float)
        return Design(tuple(universe), tuple(judged), "srswor", inclusion)
    raise InputError(
        f"{caller}: say how the human queries were chosen. The correction holds only for a random sample with "
        "known inclusion probabilities: a hand-picked sample (the hard queries, the ones someone looked at) "
        "or the holes of a pool measure something else than the model's error on all queries, and the "
        "'corrected' mean would carry that choice as bias. Pass design=labels.sample_queries(...) or "
        "labels.plan(...), or design='random' if the human queries were drawn uniformly at random"
        + ("" if design is None else f" (got {design!r})")
        + "."
    )


def corrected(
    run,
    model,
    human,
    measures,
    *,
    design=None,
    baseline=None,
    confidence: float = 0.95,
    scope: str = "population",
    scale=None,
) -> Corrected:
    """Prediction-powered means: the model's labels everywhere, corrected by people's on a random sample of queries.

    Parameters
    ----------
    run : DataFrame or dict
        The run (one or several systems), as for :func:`rankviz.evaluate`.
    model : DataFrame, path, dict or LabelStore
        The model's grades of every query's pairs (a store gives its ``kind='model'`` labels).
    human : DataFrame, path, dict or LabelStore
        People's grades on the sampled queries (a store gives its ``kind='human'`` labels).
        On each sampled query people grade every pair the measures need
        (``design.pairs(run, k)``); an ungraded pair counts as non-relevant.
    measures : str, Measure or list of them
        As for :func:`rankviz.evaluate`.
    design : Design or 'random'
        How the human queries were drawn: :func:`sample_queries` or :func:`plan`, or
        ``'random'`` to declare that the queries people graded are a simple random sample
        of the model's queries. Required: without it the sample may be hand-picked.
    baseline : str, optional
        A system of the run: then every other system's paired difference (system - baseline).
    confidence : float, default 0.95
    scope : {'population', 'queries'}, default 'population'
        The mean the interval is for: over the population the queries were drawn from,
        or over exactly these queries had people graded all of them.
    scale : (int, int), optional
        The grade scale both sides share, when the human sample happens not to use every grade.

    Returns
    -------
    Corrected
        ``.to_frame()`` (per system x measure: ``naive``, ``corrected`` with ``ci_low``/``ci_high``,
        ``human_only`` with its interval, ``effective_sample_size``, ...), an HTML view, ``.plot()``.

    Notes
    -----
    The corrected mean is the model-label mean over all ``N`` queries plus the design-weighted
    mean of (human - model) on the sample (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
    "Prediction-powered inference", *Science* 382, 2023); see :mod:`rankviz.labels.ppi` for
    the variance. It is unbiased whatever the model's errors; a poor model widens the interval.
    The effective sample size is ``n_human * var(human-only mean) / var(corrected mean)``:
    how many human-judged queries alone would give the corrected interval's width, clipped
    to ``[1, N]``. Below 8 human-judged queries (20 for reciprocal rank) the interval
    under-covers in simulation and a :class:`~rankviz.DegenerateDataWarning` says so.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import labels
    >>> queries = [f"q{i}" for i in range(40)]
    >>> run = pd.DataFrame({"query_id": [q for q in queries for _ in range(2)],
    ...                     "doc_id": ["a", "b"] * 40, "score": [2.0, 1.0] * 40})
    >>> truth = pd.DataFrame({"query_id": [q for q in queries for _ in range(2)],
    ...                       "doc_id": ["a", "b"] * 40, "relevance": [i % 2 for i in range(80)]})
    >>> model = truth.assign(relevance=1)  # a lenient judge: everything relevant
    >>> design = labels.sample_queries(queries, n=20, seed=0)
    >>> human = truth[truth["query_id"].isin(design.queries)]
    >>> result = labels.corrected(run, model, human, "P@1", design=design).to_frame()
    >>> float(result["naive"].iloc[0]), round(float(result["corrected"].iloc[0]), 2)
    (1.0, 0.0)
    """
    caller = "corrected"
    confidence = check_probability(confidence, "confidence", caller)
    scope = check_choice(scope, "scope", caller, SCOPES)
    names = [m.name for m in parse_measures(measures)]
    model_q = labels_frame(model, "model", "model", caller)
    human_q = labels_frame(human, "human", "human", caller)
    model_queries = set(model_q["query_id"].unique())
    if not model_queries.intersection(human_q["query_id"].unique()):
        raise InputError(
            f"{caller}: no query has both model and human labels (model: {model_q['query_id'].nunique()} queries, "
            f"human: {human_q['query_id'].nunique()}). Check that both use the same query ids, and have people "
            "grade a random sample of the model's queries."
        )
    check_scales(model_q, human_q, scale, caller)
    model_table = per_query_values(run, names, model_q, model_queries, caller)
    universe = model_table["query_id"].unique().tolist() if not isinstance(design, Design) else list(design.universe)
    plan_ = _resolve_design(design, universe, human_q, caller)
    _check_sample(plan_, model_table, model_q, human_q, caller)
    human_table = per_query_values(run, names, human_q, set(plan_.queries), caller)
    systems = list(dict.fromkeys(model_table["system"]))
    if baseline is not None and baseline not in systems:
        raise InputError(f"{caller}: baseline {baseline!r} is not a system of the run; the systems are {systems}.")
    rows, notes = [], []
    layout = Layout.of(plan_)
    f_wide = model_table.pivot(index="query_id", columns="system", values=names).reindex(list(plan_.universe))
    y_wide = human_table.pivot(index="query_id", columns="system", values=names).reindex(plan_.queries).fillna(0.0)
    f_sampled = f_wide.reindex(plan_.queries)
    for name in names:
        for system in systems:
            if system == baseline:
                continue
            f, y, fs = (
                f_wide[name][system].to_numpy(),
                y_wide[name][system].to_numpy(),
                f_sampled[name][system].to_numpy(),
            )
            if baseline is not None:
                f = f - f_wide[name][baseline].to_numpy()
                y = y - y_wide[name][baseline].to_numpy()
                fs = fs - f_sampled[name][baseline].to_numpy()
            e = design_estimate(f, y, plan_, scope=scope, confidence=confidence, layout=layout, model_sampled=fs)
            row = {"system": system} | ({"baseline": baseline} if baseline is not None else {}) | {"measure": name}
            rows.append(row | {
                "naive": e["naive"], "naive_low": e["naive_low"], "naive_high": e["naive_high"],
                "corrected": e["estimate"], "ci_low": e["low"], "ci_high": e["high"], "standard_error": e["se"],
                "human_only": e["human"], "human_low": e["human_low"], "human_high": e["human_high"],
                "human_standard_error": e["human_se"], "rectifier": e["rectifier"], "n_queries": e["n_universe"],
                "n_human": e["n_human"], "n_draws": e["n_draws"], "effective_sample_size": e["effective_sample_size"],
            })  # fmt: skip
            if 0 < e["nonzero_differences"] < FEW_NONZERO_DIFFERENCES:
                notes.append(
                    f"{system}, {name}: people and the model differ on only {e['nonzero_differences']} sampled "
                    "queries; the interval rests on so few terms that it may under-cover. Grade more queries."
                )
    n_human = len(plan_.queries)
    short = [n for n in names if n_human < (TINY_SAMPLE_RR if is_reciprocal_rank(n) else TINY_SAMPLE)]
    if short:
        notes.insert(0, (
            f"only {n_human} human-judged queries: the corrected {confidence:.0%} interval of {', '.join(short)} covers "
            f"less often than it says below {TINY_SAMPLE} queries ({TINY_SAMPLE_RR} for reciprocal rank; measured "
            "0.77-0.93, see benchmarks/RESULTS.md, 'Labels from a model'); grade more queries or read the interval "
            "as optimistic"
        ))  # fmt: skip
    for note in notes:
        warn(f"{caller}: {note}", DegenerateDataWarning)
    table = pd.DataFrame(rows)
    for column in ("system", "measure") + (("baseline",) if baseline is not None else ()):
        table[column] = table[column].astype("str")
    return Corrected(table, confidence, scope, plan_, baseline, tuple(notes))


def _check_sample(design: Design, model_table, model_q, human_q, caller: str) -> None:
    graded = set(model_table["query_id"].unique())
    missing = [q for q in design.universe if q not in graded]
    if missing:
        raise InputError(
            f"{caller}: {len(missing)} queries of the design (e.g. {missing[:3]}) have no model label on the run's "
            "results, so the model mean cannot cover them. Judge them with the model, or draw the design from "
            "the queries the model graded."
        )
    if len(design.queries) < 2:
        raise InputError(
            f"{caller}: the human sample has {len(design.queries)} query; the interval needs at least 2 "
            "(and covers poorly below 10). Grade more randomly sampled queries."
        )
    human_queries = set(human_q["query_id"].unique())
    absent = [q for q in design.queries if q not in human_queries]
    if absent:
        raise InputError(
            f"{caller}: {len(absent)} sampled queries have no human label (e.g. {absent[:3]}). Leaving them out "
            "would make the sample no longer random; grade them (design.pairs(run, k) lists their pairs)."
        )
    on_sample = human_q.loc[human_q["query_id"].isin(design.queries), ["query_id", "doc_id"]]
    if on_sample.merge(model_q[["query_id", "doc_id"]], on=["query_id", "doc_id"]).empty:
        raise InputError(
            f"{caller}: on the sampled queries people graded only pairs the model did not grade (holes). The "
            "correction compares people's and the model's measure on the same queries, over the same pairs; "
            "labels for the holes alone measure the holes, not the model's error, so the corrected mean would "
            "not be unbiased. Have people grade every pair of the sampled queries (design.pairs(run, k))."
        )
