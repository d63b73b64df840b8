"""Agreement between two labellers: Cohen's kappa (weighted), Krippendorff's alpha, the confusion matrix.

Every statistic is computed on the (query, doc) pairs both sides judged; the pairs
only one side judged are counted (``n_only_a``, ``n_only_b``), never guessed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._core.long_run import resolve_qrels
from .._errors import InputError
from ..io import qrels_from_dict, read_qrels

__all__ = [
    "Agreement",
    "agreement",
    "cohen_kappa",
    "confusion_counts",
    "frame_of",
    "krippendorff_alpha",
    "paired_grades",
]


@dataclasses.dataclass(frozen=True)
class Agreement:
    """How far two labellers agree, on the pairs both judged (:func:`agreement` returns it).

    Parameters
    ----------
    cohen_kappa, kappa_linear, kappa_quadratic : float
        Cohen's kappa, unweighted and with linear and quadratic weights (NaN when
        undefined: both sides gave one and the same grade to everything).
    alpha_nominal, alpha_ordinal : float
        Krippendorff's alpha with the nominal and the ordinal distance.
    confusion : DataFrame
        Counts of pairs: rows are side a's grades, columns side b's.
    per_query : DataFrame
        ``query_id``, ``n_both``, ``observed`` (share of pairs with the same grade)
        and ``cohen_kappa`` per query.
    n_both, n_only_a, n_only_b : int
        Pairs both sides judged, and pairs only one side judged.

    Examples
    --------
    >>> from rankviz import labels
    >>> result = labels.agreement({"q1": {"d1": 2, "d2": 0}}, {"q1": {"d1": 2, "d2": 1}})
    >>> result.n_both, int(result.confusion.loc[0, 1])
    (2, 1)
    """

    cohen_kappa: float
    kappa_linear: float
    kappa_quadratic: float
    alpha_nominal: float
    alpha_ordinal: float
    confusion: pd.DataFrame
    per_query: pd.DataFrame
    n_both: int
    n_only_a: int
    n_only_b: int

    def to_frame(self) -> pd.DataFrame:
        """The scalar statistics as a one-row frame.

        Returns
        -------
        DataFrame
            One row: the kappas, the alphas, ``n_both``, ``n_only_a`` and ``n_only_b``.

        Examples
        --------
        >>> from rankviz import labels
        >>> result = labels.agreement({"q1": {"d1": 2, "d2": 0, "d3": 1}}, {"q1": {"d1": 2, "d2": 1, "d3": 1}})
        >>> result.to_frame()[["n_both", "n_only_a", "n_only_b"]]
           n_both  n_only_a  n_only_b
        0       3         0         0
        """
        names = (
            "cohen_kappa",
            "kappa_linear",
            "kappa_quadratic",
            "alpha_nominal",
            "alpha_ordinal",
            "n_both",
            "n_only_a",
            "n_only_b",
        )
        return pd.DataFrame([{name: getattr(self, name) for name in names}])

    def _repr_html_(self) -> str:
        return (
            "<div><b>Agreement</b> on " + f"{self.n_both} pairs judged by both "
            f"({self.n_only_a} only by a, {self.n_only_b} only by b)</div>"
            + self.to_frame().drop(columns=["n_both", "n_only_a", "n_only_b"]).round(4).to_html(index=False)
            + "<div>confusion (rows: a, columns: b)</div>"
            + self.confusion.to_html()
        )

    def plot(self, *, ax=None, **kwargs):
        """The confusion matrix as a heatmap (rows: a's grades, columns: b's); returns the Axes.

        ``kwargs`` go to :func:`seaborn.heatmap`.

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
        >>> result = labels.agreement({"q1": {"d1": 2, "d2": 0, "d3": 1}}, {"q1": {"d1": 2, "d2": 1, "d3": 1}})
        >>> ax = result.plot()
        >>> ax.get_ylabel(), ax.get_xlabel()
        ('grade by a', 'grade by b')
        """
        import matplotlib.pyplot as plt
        import seaborn as sns

        ax = plt.gca() if ax is None else ax
        options = {"annot": True, "fmt": "d", "cmap": "Blues", "cbar": False, **kwargs}
        sns.heatmap(self.confusion, ax=ax, **options)
        ax.set_xlabel("grade by b")
        ax.set_ylabel("grade by a")
        ax.set_title(f"kappa = {self.cohen_kappa:.3f}, alpha (ordinal) = {self.alpha_ordinal:.3f}, {self.n_both} pairs")
        return ax


def frame_of(qrels, name: str, caller: str = "agreement") -> pd.DataFrame:
    """``query_id``, ``doc_id`` (as str) and the grades in column ``name``, from any qrels form rankviz reads."""
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels(qrels)
    elif isinstance(qrels, Mapping):
        qrels = qrels_from_dict(qrels)
    if not isinstance(qrels, pd.DataFrame):
        raise InputError(
            f"{caller}: {name} must be a DataFrame (query_id, doc_id, relevance), a TREC qrels file, a label store "
            f"or a {{query_id: {{doc_id: grade}}}} dict. Got {type(qrels).__name__} instead."
        )
    arrays = resolve_qrels(qrels)
    return pd.DataFrame(
        {"query_id": arrays.query_ids.astype(str), "doc_id": arrays.doc_ids.astype(str), name: arrays.grades}
    )


def paired_grades(qrels_a, qrels_b) -> tuple[pd.DataFrame, int, int]:
    """The pairs both judged (``query_id``, ``doc_id``, ``a``, ``b``) and the counts judged by one side only."""
    a, b = frame_of(qrels_a, "a"), frame_of(qrels_b, "b")
    both = a.merge(b, on=["query_id", "doc_id"], how="outer", indicator=True)
    n_only_a = int((both["_merge"] == "left_only").sum())
    n_only_b = int((both["_merge"] == "right_only").sum())
    both = both[both["_merge"] == "both"].drop(columns="_merge").reset_index(drop=True)
    both["a"], both["b"] = both["a"].astype(np.int64), both["b"].astype(np.int64)
    return both, n_only_a, n_only_b


def confusion_counts(a: np.ndarray, b: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """Counts of pairs by (grade of a, grade of b), rows and columns in the order of ``grades``."""
    index = {g: i for i, g in enumerate(grades.tolist())}
    matrix = np.zeros((len(grades), len(grades)), dtype=np.int64)
    np.add.at(matrix, ([index[g] for g in a.tolist()], [index[g] for g in b.tolist()]), 1)
    return matrix


def cohen_kappa(confusion: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of a confusion matrix, ``1 - sum(w * observed) / sum(w * expected)``.

    The weight of a cell is 1 off the diagonal (unweighted), ``|i - j|`` (linear)
    or ``(i - j) ** 2`` (quadratic), with ``i`` and ``j`` the positions of the two
    grades on the scale of grades either side used (scikit-learn's convention).
    NaN when the expected disagreement is 0.
    """
    n = confusion.sum()
    positions = np.arange(len(confusion))
    distance = np.abs(positions[:, None] - positions[None, :]).astype(float)
    w = {None: (distance > 0).astype(float), "linear": distance, "quadratic": distance**2}[weights]
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / n if n else np.zeros_like(w)
    denominator = float((w * expected).sum())
    return float("nan") if denominator == 0 else 1.0 - float((w * confusion).sum()) / denominator


def krippendorff_alpha(confusion: np.ndarray, level: str = "nominal") -> float:
    """Krippendorff's alpha of two coders from their confusion matrix (every unit judged by both).

    ``alpha = 1 - (n - 1) * sum(o * d) / sum(n_c * n_k * d)`` with the coincidence
    matrix ``o = C + C.T``, ``n_c`` its margins, ``n = 2 * units``, and the distance
    ``d`` nominal (``c != k``) or ordinal (``(sum of n_g for g from c to k - (n_c + n_k) / 2) ** 2``).
    NaN when there is no expected disagreement.
    """
    o = (confusion + confusion.T).astype(float)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        d = 1.0 - np.eye(len(o))
    else:
        cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
        low = np.minimum.outer(np.arange(len(o)), np.arange(len(o)))
        high = np.maximum.outer(np.arange(len(o)), np.arange(len(o)))
        d = (cumulative[high + 1] - cumulative[low] - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    expected = float((np.outer(n_c, n_c) * d).sum())
    return float("nan") if expected == 0 or n < 2 else 1.0 - (n - 1.0) * float((o * d).sum()) / expected


def _per_query(both: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for query_id, group in both.groupby("query_id", sort=False):
        a, b = group["a"].to_numpy(), group["b"].to_numpy()
        grades = np.union1d(a, b)
        rows.append({
            "query_id": query_id, "n_both": len(group), "observed": float((a == b).mean()),
            "cohen_kappa": cohen_kappa(confusion_counts(a, b, grades)),
        })  # fmt: skip
    frame = pd.DataFrame(rows, columns=["query_id", "n_both", "observed", "cohen_kappa"])
    frame["query_id"] = frame["query_id"].astype("str")
    return frame


def agreement(qrels_a, qrels_b) -> Agreement:
    """How far two labellers agree: Cohen's kappa, Krippendorff's alpha, the confusion matrix, per query.

    Parameters
    ----------
    qrels_a, qrels_b : DataFrame, path or dict
        The two labellers' judgements (frames with query id, doc id and relevance;
        TREC qrels files; label stores, read as ``read_qrels(path)``; dicts). For
        two annotators of one store, pass ``store.to_qrels(annotator="a")`` and
        ``store.to_qrels(annotator="b")``.

    Returns
    -------
    Agreement
        ``cohen_kappa``, ``kappa_linear``, ``kappa_quadratic``, ``alpha_nominal``,
        ``alpha_ordinal``, ``confusion``, ``per_query``, ``n_both``, ``n_only_a``,
        ``n_only_b``; ``.to_frame()``, ``.plot()``.

    Notes
    -----
    Only the pairs both judged count. Cohen's kappa is ``(p_o - p_e) / (1 - p_e)``
    (Cohen 1960), weighted as ``1 - sum(w O) / sum(w E)`` (Cohen 1968) with linear
    or quadratic weights over positions on the grade scale either side used, as
    :func:`sklearn.metrics.cohen_kappa_score` does. Krippendorff's alpha
    (Krippendorff 2004, *Content Analysis*, ch. 11) is ``1 - D_o / D_e`` from the
    coincidence matrix; with two coders and no missing values it equals the
    ``krippendorff`` package's value.

    Examples
    --------
    >>> from rankviz import labels
    >>> a = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 0}}
    >>> b = {"q1": {"d1": 2, "d2": 0, "d3": 0, "d5": 1}}
    >>> result = labels.agreement(a, b)
    >>> round(result.cohen_kappa, 4), result.n_both, result.n_only_a, result.n_only_b
    (0.5, 3, 1, 1)
    >>> int(result.confusion.loc[1, 0])  # a said 1 where b said 0
    1
    """
    both, n_only_a, n_only_b = paired_grades(qrels_a, qrels_b)
    a, b = both["a"].to_numpy(), both["b"].to_numpy()
    grades = np.union1d(a, b)
    matrix = confusion_counts(a, b, grades)
    confusion = pd.DataFrame(matrix, index=pd.Index(grades, name="a"), columns=pd.Index(grades, name="b"))
    return Agreement(
        cohen_kappa=cohen_kappa(matrix), kappa_linear=cohen_kappa(matrix, "linear"),
        kappa_quadratic=cohen_kappa(matrix, "quadratic"), alpha_nominal=krippendorff_alpha(matrix, "nominal"),
        alpha_ordinal=krippendorff_alpha(matrix, "ordinal"), confusion=confusion, per_query=_per_query(both),
        n_both=len(both), n_only_a=n_only_a, n_only_b=n_only_b,
    )  # fmt: skip
