"""Is the model judge aligned with people? Confusion, weighted kappa, alpha, leniency, per query; self-consistency.

:func:`alignment` reads the model's and people's labels on the pairs both graded and
builds on :func:`~rankviz.labels.agreement` (the same kappa and alpha, equal to
scikit-learn's and the ``krippendorff`` package's). :func:`self_consistency` reads
several runs of one judge (repeats, prompt variants) as coders.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd

from .._errors import InputError
from ..stats.results import html_table
from .agreement import Agreement, agreement, frame_of, paired_grades
from .ppi import labels_frame
from .store import LabelStore

__all__ = ["Alignment", "SelfConsistency", "alignment", "self_consistency", "coincidence_alpha"]


@dataclasses.dataclass(frozen=True, repr=False)
class Alignment:
    """How a model judge's grades line up with people's (:func:`alignment` returns it).

    Parameters
    ----------
    agreement : Agreement
        Kappas, alphas, the confusion matrix (rows: model, columns: human) and per-query agreement.
    mean_shift : float
        Mean of (model grade - human grade) over the pairs both graded: > 0 is lenient, < 0 strict.
    leniency : DataFrame
        Per human grade: ``n``, ``mean_model`` (the model's mean grade there), ``shift``,
        ``over`` (share the model graded higher) and ``under`` (share graded lower).
    per_query : DataFrame
        ``query_id``, ``n_both``, ``observed`` (share of equal grades), ``cohen_kappa``, ``mean_shift``.

    Examples
    --------
    >>> from rankviz import labels
    >>> result = labels.alignment({"q1": {"d1": 2, "d2": 1}}, {"q1": {"d1": 2, "d2": 0}})
    >>> result.mean_shift, result.agreement.n_both
    (0.5, 2)
    """

    agreement: Agreement
    mean_shift: float
    leniency: pd.DataFrame
    per_query: pd.DataFrame

    @property
    def confusion(self) -> pd.DataFrame:
        """Counts of pairs: rows the model's grades, columns people's."""
        return self.agreement.confusion

    def to_frame(self) -> pd.DataFrame:
        """The scalar statistics (kappas, alphas, counts) and ``mean_shift`` as a one-row frame.

        Returns
        -------
        DataFrame
            One row: the kappas, the alphas, the pair counts and ``mean_shift``.

        Examples
        --------
        >>> from rankviz import labels
        >>> result = labels.alignment({"q1": {"d1": 2, "d2": 1}}, {"q1": {"d1": 2, "d2": 0}})
        >>> float(result.to_frame()["mean_shift"].iloc[0])
        0.5
        """
        return self.agreement.to_frame().assign(mean_shift=self.mean_shift)

    def __repr__(self) -> str:
        a = self.agreement
        return (
            f"Alignment({a.n_both} pairs both graded, kappa={a.cohen_kappa:.3f}, kappa_linear={a.kappa_linear:.3f}, "
            f"alpha_ordinal={a.alpha_ordinal:.3f}, mean_shift={self.mean_shift:+.3f})"
        )

    def _repr_html_(self) -> str:
        a = self.agreement
        caption = f"Model vs people on {a.n_both} pairs (model only: {a.n_only_a}, people only: {a.n_only_b})"
        shift = "lenient" if self.mean_shift > 0 else "strict" if self.mean_shift < 0 else "neither lenient nor strict"
        parts = [
            html_table(self.to_frame(), caption, (f"the model is {shift}: mean shift {self.mean_shift:+.3f} grades",)),
            html_table(self.leniency.set_index("human_grade"), "Leniency by people's grade"),
            "<p><b>Confusion (rows: model, columns: people)</b></p>",
            self.confusion.to_html(escape=True),
        ]
        return "<div>" + "".join(parts) + "</div>"

    def plot(self, *, ax=None, **kwargs):
        """The confusion matrix as a heatmap (rows: model's grades, columns: people's); returns the Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            The Axes to draw on; a new figure by default.
        **kwargs
            Passed to :func:`seaborn.heatmap`.

        Returns
        -------
        matplotlib Axes
            The heatmap's Axes.

        Examples
        --------
        >>> from rankviz import labels
        >>> result = labels.alignment({"q1": {"d1": 2, "d2": 1}}, {"q1": {"d1": 2, "d2": 0}})
        >>> ax = result.plot()
        >>> ax.get_ylabel(), ax.get_xlabel()
        ('grade by the model', 'grade by people')
        """
        ax = self.agreement.plot(ax=ax, **kwargs)
        ax.set_ylabel("grade by the model")
        ax.set_xlabel("grade by people")
        return ax


def _sides(model, human, caller: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    if isinstance(model, LabelStore) and human is None:
        return labels_frame(model, "model", "model", caller), labels_frame(model, "human", "human", caller)
    if human is None:
        raise InputError(
            f"{caller}: give the human labels too (alignment(model, human)), or a LabelStore holding both kinds."
        )
    return labels_frame(model, "model", "model", caller), labels_frame(human, "human", "human", caller)


def alignment(model, human=None) -> Alignment:
    """Confusion, weighted kappa, Krippendorff's alpha, leniency and per-query agreement of a model judge with people.

    Parameters
    ----------
    model : DataFrame, path, dict or LabelStore
        The model's grades; a store alone (``human`` left out) is split by kind.
    human : DataFrame, path, dict or LabelStore, optional
        People's grades (a store gives its ``kind='human'`` labels).

    Returns
    -------
    Alignment
        ``agreement`` (kappas, alphas, confusion), ``mean_shift``, ``leniency``, ``per_query``;
        ``.to_frame()``, ``.plot()`` (a heatmap), an HTML view.

    Notes
    -----
    Only pairs both graded count. Whether the systems' order and their significant
    differences survive the model's labels is :func:`~rankviz.labels.stability`'s question.

    Examples
    --------
    >>> from rankviz import labels
    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 0, "d2": 1}}
    >>> model = {"q1": {"d1": 2, "d2": 1, "d3": 2}, "q2": {"d1": 0, "d2": 1}}
    >>> result = labels.alignment(model, human)
    >>> round(result.mean_shift, 2), result.leniency["over"].tolist()
    (0.4, [0.5, 0.5, 0.0])
    """
    caller = "alignment"
    model_q, human_q = _sides(model, human, caller)
    both, _, _ = paired_grades(model_q, human_q)
    if both.empty:
        raise InputError(
            f"{caller}: no (query, doc) pair has both a model and a human grade; have people grade a sample of "
            "the pairs the model graded (labels.sample_queries, then design.pairs(run, k))."
        )
    result = agreement(model_q, human_q)
    shift = both["a"] - both["b"]
    rows = []
    for grade, group in both.groupby("b", sort=True):
        s = group["a"] - group["b"]
        rows.append({"human_grade": int(str(grade)), "n": len(group), "mean_model": float(group["a"].mean()),
                     "shift": float(s.mean()), "over": float((s > 0).mean()), "under": float((s < 0).mean())})  # fmt: skip
    per_query = result.per_query.merge(
        both.assign(shift=shift).groupby("query_id", sort=False)["shift"].mean().rename("mean_shift").reset_index(),
        on="query_id",
    )
    return Alignment(result, float(shift.mean()), pd.DataFrame(rows), per_query)


# ----------------------------------------------------------------------------- several runs of one judge


def coincidence_alpha(values: np.ndarray, level: str = "ordinal") -> float:
    """Krippendorff's alpha of a units x coders matrix of grades (NaN = not graded), nominal or ordinal.

    Each unit with ``m >= 2`` grades adds ``1 / (m - 1)`` to the coincidence matrix per ordered
    pair of its grades from different coders (Krippendorff 2004, ch. 11); units with one grade
    are left out. NaN when there is no expected disagreement.
    """
    grades = np.unique(values[~np.isnan(values)])
    index = {g: i for i, g in enumerate(grades.tolist())}
    o = np.zeros((len(grades), len(grades)))
    for row in values:
        present = row[~np.isnan(row)]
        m = len(present)
        if m < 2:
            continue
        counts = np.zeros(len(grades))
        for g in present.tolist():
            counts[index[g]] += 1
        o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        d = 1.0 - np.eye(len(o))
    else:
        cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
        positions = np.arange(len(o))
        low, high = np.minimum.outer(positions, positions), np.maximum.outer(positions, positions)
        d = (cumulative[high + 1] - cumulative[low] - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    expected = float((np.outer(n_c, n_c) * d).sum())
    return float("nan") if expected == 0 or n < 2 else 1.0 - (n - 1.0) * float((o * d).sum()) / expected


@dataclasses.dataclass(frozen=True, repr=False)
class SelfConsistency:
    """How far several runs of one judge agree with each other (:func:`self_consistency` returns it).

    Parameters
    ----------
    alpha_ordinal, alpha_nominal : float
        Krippendorff's alpha with the runs as coders.
    flip_rate : float
        Share of pairs graded by at least two runs whose grades are not all equal.
    pairwise_flip_rate : DataFrame
        Share of pairs graded differently, per two runs (``run_a``, ``run_b``, ``n_both``, ``flip_rate``).
    n_pairs, n_runs : int
        The (query, doc) pairs graded by at least two runs, and the number of runs.

    Examples
    --------
    >>> from rankviz import labels
    >>> result = labels.self_consistency([{"q1": {"d1": 2, "d2": 0}}, {"q1": {"d1": 2, "d2": 1}}])
    >>> result.flip_rate, result.n_pairs, result.n_runs
    (0.5, 2, 2)
    """

    alpha_ordinal: float
    alpha_nominal: float
    flip_rate: float
    pairwise_flip_rate: pd.DataFrame
    n_pairs: int
    n_runs: int

    def to_frame(self) -> pd.DataFrame:
        """The scalar statistics as a one-row frame.

        Returns
        -------
        DataFrame
            One row: the alphas, ``flip_rate``, ``n_pairs`` and ``n_runs``.

        Examples
        --------
        >>> from rankviz import labels
        >>> result = labels.self_consistency([{"q1": {"d1": 2, "d2": 0}}, {"q1": {"d1": 2, "d2": 1}}])
        >>> result.to_frame()[["flip_rate", "n_pairs", "n_runs"]]
           flip_rate  n_pairs  n_runs
        0        0.5        2       2
        """
        names = ("alpha_ordinal", "alpha_nominal", "flip_rate", "n_pairs", "n_runs")
        return pd.DataFrame([{name: getattr(self, name) for name in names}])

    def __repr__(self) -> str:
        return (
            f"SelfConsistency({self.n_runs} runs, {self.n_pairs} pairs, alpha_ordinal={self.alpha_ordinal:.3f}, "
            f"flip_rate={self.flip_rate:.3f})"
        )

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), f"Self-consistency of {self.n_runs} runs of one judge") + html_table(
            self.pairwise_flip_rate, "Flip rate per two runs"
        )


def self_consistency(runs) -> SelfConsistency:
    """Krippendorff's alpha and the flip rate of several runs of one judge (repeats or prompt variants).

    Parameters
    ----------
    runs : dict, list or LabelStore
        ``{run name: qrels}`` or a list of qrels (each in any form rankviz reads); or a
        store, whose model annotators are the runs.

    Returns
    -------
    SelfConsistency
        ``alpha_ordinal``, ``alpha_nominal``, ``flip_rate``, ``pairwise_flip_rate``.

    Examples
    --------
    >>> from rankviz import labels
    >>> first = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 0}}
    >>> second = {"q1": {"d1": 2, "d2": 0, "d3": 0, "d4": 0}}
    >>> result = labels.self_consistency({"try 1": first, "try 2": second})
    >>> result.flip_rate, result.n_pairs
    (0.25, 4)
    """
    caller = "self_consistency"
    if isinstance(runs, LabelStore):
        history = runs.history()
        names = list(dict.fromkeys(history.loc[history["kind"] == "model", "annotator"]))
        runs = {name: runs.to_qrels(annotator=name, kind="model") for name in names}
    elif isinstance(runs, (list, tuple)):
        runs = {f"run {i + 1}": r for i, r in enumerate(runs)}
    elif isinstance(runs, (str, os.PathLike)) or not isinstance(runs, dict):
        raise InputError(f"{caller}: runs must be a dict or list of qrels, or a LabelStore. Got {type(runs).__name__}.")
    if len(runs) < 2:
        raise InputError(f"{caller}: needs at least 2 runs of the judge; got {len(runs)}.")
    frames = [frame_of(q, str(name), caller).set_index(["query_id", "doc_id"])[str(name)] for name, q in runs.items()]
    wide = pd.concat(frames, axis=1).astype(float)
    graded = wide.notna().sum(axis=1) >= 2
    wide = wide[graded]
    if wide.empty:
        raise InputError(f"{caller}: no (query, doc) pair was graded by two runs; the runs cannot be compared.")
    values = wide.to_numpy()
    spread = np.nanmax(values, axis=1) != np.nanmin(values, axis=1)
    columns = list(wide.columns)
    pairwise = []
    for i in range(len(columns)):
        for j in range(i + 1, len(columns)):
            both = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
            flips = float((values[both, i] != values[both, j]).mean()) if both.any() else float("nan")
            pairwise.append({"run_a": columns[i], "run_b": columns[j], "n_both": int(both.sum()), "flip_rate": flips})
    return SelfConsistency(
        coincidence_alpha(values, "ordinal"), coincidence_alpha(values, "nominal"), float(spread.mean()),
        pd.DataFrame(pairwise), len(wide), len(columns),
    )  # fmt: skip
