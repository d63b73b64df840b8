"""How the human sample of queries was drawn: a :class:`Design` with its inclusion probabilities.

Prediction-powered inference corrects a model's labels with people's labels on a
*random* sample of queries; the correction is unbiased only when the chance of each
query entering the sample is known and positive. A :class:`Design` records that
chance. Three methods are known:

``'srswor'``
    A simple random sample of ``n`` queries without replacement (every query has
    inclusion probability ``n / N``): what :func:`~rankviz.labels.sample_queries`
    draws without ``probabilities``, and what ``design='random'`` declares.
``'stratified'``
    A simple random sample without replacement within each stratum, ``n_h`` of the
    ``N_h`` queries of stratum ``h`` (inclusion probability ``n_h / N_h``): what
    :func:`~rankviz.labels.plan` draws.
``'pps'``
    ``n`` independent draws with replacement, query ``i`` drawn with probability
    ``p_i`` each time (Hansen and Hurwitz 1943): what :func:`~rankviz.labels.sample_queries`
    draws with ``probabilities``. A query drawn twice is judged once and counts twice.
``'poisson'``
    Each query enters independently with its own inclusion probability ``pi_i``
    (Horvitz and Thompson 1952); a design built by hand from known probabilities.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._errors import InputError

__all__ = ["Design", "METHODS", "best_ranks", "query_universe"]

METHODS = ("srswor", "stratified", "pps", "poisson")


def query_universe(queries, caller: str) -> list[str]:
    """Distinct query ids (as str, first-seen order) of a list, Series, Index or a frame with a query id column."""
    if isinstance(queries, pd.DataFrame):
        column = next((c for c in ("query_id", "qid", "query", "topic") if c in queries.columns), None)
        if column is None:
            raise InputError(
                f"{caller}: the queries frame has no query id column (one of 'query_id', 'qid', 'query', 'topic'). "
                f"Got columns {list(queries.columns)}; rename the id column to 'query_id'."
            )
        values = queries[column]
    elif isinstance(queries, (str, bytes)) or not hasattr(queries, "__iter__"):
        raise InputError(
            f"{caller}: queries must be a list of query ids, a Series or a frame with a 'query_id' column. "
            f"Got {type(queries).__name__} instead."
        )
    else:
        values = pd.Series(list(queries), dtype=object)
    ids = list(dict.fromkeys(str(v) for v in values))
    if not ids:
        raise InputError(f"{caller}: there are no queries to sample from; pass the run's or the qrels' query ids.")
    return ids


def best_ranks(run) -> pd.DataFrame:
    """``query_id``, ``doc_id``, ``rank``: the best (smallest) rank any system of the run gives each document.

    Ranks follow the scores (descending, ties by doc id descending, as trec_eval), or the
    rank column when there is no score.
    """
    from .._core.columns import find_column

    frame = (
        run
        if isinstance(run, pd.DataFrame)
        else pd.concat([pd.DataFrame(r).assign(system=name) for name, r in dict(run).items()], ignore_index=True)
    )
    q = find_column(frame, "query", None, required=True, what="run")
    d = find_column(frame, "doc", None, required=True, what="run")
    score = find_column(frame, "score", None, required=False, what="run")
    view = pd.DataFrame({"query_id": frame[q].astype(str), "doc_id": frame[d].astype(str),
                         "system": frame["system"].astype(str) if "system" in frame.columns else "run"})  # fmt: skip
    if score is not None:
        view["key"] = -frame[score].to_numpy(dtype=float)
        view = view.sort_values(["key", "doc_id"], ascending=[True, False], kind="stable")
    else:
        view["key"] = frame[find_column(frame, "rank", None, required=True, what="run")].to_numpy(dtype=float)
        view = view.sort_values("key", kind="stable")
    view["rank"] = view.groupby(["system", "query_id"], sort=False).cumcount() + 1
    best = view.groupby(["query_id", "doc_id"], sort=False)["rank"].min().reset_index()
    return best.sort_values(["query_id", "rank"], kind="stable").reset_index(drop=True)


@dataclasses.dataclass(frozen=True, repr=False)
class Design:
    """A sample of queries for people to judge and the probabilities it was drawn with.

    Parameters
    ----------
    universe : tuple of str
        Every query the sample was drawn from (the queries the model graded).
    draws : tuple of str
        The sampled queries in draw order, with repeats for a ``'pps'`` design.
    method : {'srswor', 'stratified', 'pps', 'poisson'}
        How the sample was drawn (see :mod:`rankviz.labels.design`).
    inclusion : Series
        The probability that each query of ``universe`` is in the sample (index: query id).
    draw_probabilities : Series or None
        ``'pps'`` only: the probability of each query at each draw (sums to 1).
    seed : int or None
        The seed the sample was drawn with.
    strata : Series or None
        ``'stratified'`` only: the stratum of each query of ``universe``.

    Examples
    --------
    >>> from rankviz import labels
    >>> design = labels.sample_queries(["q1", "q2", "q3", "q4"], n=2, seed=0)
    >>> design.method, len(design.draws), design.inclusion.tolist()
    ('srswor', 2, [0.5, 0.5, 0.5, 0.5])
    """

    universe: tuple[str, ...]
    draws: tuple[str, ...]
    method: str
    inclusion: pd.Series
    draw_probabilities: pd.Series | None = None
    seed: int | None = None
    strata: pd.Series | None = None

    def __post_init__(self):
        if self.method not in METHODS:
            raise InputError(f"Design: method must be one of {METHODS}. Got {self.method!r} instead.")
        unknown = sorted(set(self.draws) - set(self.universe))
        if unknown:
            raise InputError(
                f"Design: sampled queries {unknown[:5]} are not in the universe of queries it was drawn from."
            )
        pi = self.inclusion.reindex(list(self.universe))
        if self.method == "stratified" and (
            self.strata is None or self.strata.reindex(list(self.universe)).isna().any()
        ):
            raise InputError("Design: a 'stratified' design needs the stratum of every query of its universe.")
        if pi.isna().any() or not ((pi > 0) & (pi <= 1)).all():
            raise InputError(
                "Design: every query of the universe needs an inclusion probability in (0, 1]; a query that could "
                "never be sampled leaves the correction biased. Floor the probabilities above 0."
            )

    @classmethod
    def poisson(cls, sampled, inclusion: Mapping | pd.Series, *, seed=None) -> Design:
        """A design where each query entered independently with a known probability (Horvitz-Thompson weights).

        ``inclusion`` maps every query of the universe to its probability; ``sampled`` lists those that entered.

        Parameters
        ----------
        sampled : iterable of str
            The queries that entered the sample.
        inclusion : mapping or Series
            Every query of the universe and the probability it had to enter.
        seed : int, optional
            The seed the sample was drawn with (recorded only).

        Returns
        -------
        Design
            A ``'poisson'`` design.

        Examples
        --------
        >>> from rankviz.labels import Design
        >>> design = Design.poisson(["q1"], {"q1": 0.5, "q2": 0.25})
        >>> design.method, design.queries
        ('poisson', ['q1'])
        """
        pi = pd.Series(inclusion, dtype=float)
        pi.index = pi.index.astype(str)
        return cls(tuple(pi.index), tuple(dict.fromkeys(str(q) for q in sampled)), "poisson", pi, None, seed)

    @property
    def queries(self) -> list[str]:
        """The distinct sampled queries, in draw order (the ones to send to people)."""
        return list(dict.fromkeys(self.draws))

    @property
    def n(self) -> int:
        """Number of draws (distinct queries for ``'srswor'`` and ``'poisson'``)."""
        return len(self.draws)

    def to_frame(self) -> pd.DataFrame:
        """One row per query of the universe: ``query_id``, ``inclusion_probability``, ``draw_probability``, ``n_draws``, ``sampled``.

        Returns
        -------
        DataFrame
            The columns above, in the universe's order.

        Examples
        --------
        >>> from rankviz import labels
        >>> labels.sample_queries(["q1", "q2"], n=1, seed=0).to_frame()["inclusion_probability"].tolist()
        [0.5, 0.5]
        """
        counts = pd.Series(self.draws, dtype=object).value_counts()
        ids = list(self.universe)
        frame = pd.DataFrame({
            "query_id": pd.Series(ids, dtype="str"),
            "inclusion_probability": self.inclusion.reindex(ids).to_numpy(dtype=float),
            "draw_probability": (self.draw_probabilities.reindex(ids).to_numpy(dtype=float)
                                 if self.draw_probabilities is not None else np.nan),
            "n_draws": counts.reindex(ids).fillna(0).to_numpy(dtype=np.int64),
        })  # fmt: skip
        frame["sampled"] = frame["n_draws"] > 0
        return frame

    def strata_counts(self) -> pd.DataFrame:
        """``'stratified'`` only: per stratum ``N_h`` (queries) and ``n_h`` (sampled).

        Returns
        -------
        DataFrame
            Index: the strata; columns ``N_h`` and ``n_h``.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> queries = [f"q{i}" for i in range(20)]
        >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
        >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
        >>> labels.plan(run, model, budget=6, measure="P@1", seed=0).design.strata_counts()
           N_h  n_h
        0    7    2
        1    7    2
        2    6    2
        """
        if self.strata is None:
            raise InputError(f"Design.strata_counts: a {self.method!r} design has no strata.")
        strata = self.strata.reindex(list(self.universe))
        sampled = strata.loc[self.queries]
        return pd.DataFrame({"N_h": strata.value_counts(), "n_h": sampled.value_counts()}).fillna(0).astype(int)

    def pairs(self, run, k: int = 10) -> pd.DataFrame:
        """The (query, doc) pairs people must grade: every system's top ``k`` on the sampled queries.

        The frame (``query_id``, ``doc_id``, ``rank`` as the best rank any system gave) feeds
        :func:`rankviz.widgets.judge` directly.

        Parameters
        ----------
        run : DataFrame or dict
            The run (one or several systems), as for :func:`rankviz.evaluate`.
        k : int, default 10
            The depth of each system's list to grade.

        Returns
        -------
        DataFrame
            ``query_id``, ``doc_id`` and ``rank``, queries in draw order.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
        >>> labels.sample_queries(["q1", "q2"], n=1, seed=0).pairs(run, k=1)["rank"].tolist()
        [1]
        """
        view = best_ranks(run)
        view = view[view["query_id"].isin(set(self.draws)) & (view["rank"] <= k)]
        out = view.reset_index(drop=True)
        position = {qid: i for i, qid in enumerate(self.queries)}
        out = out.sort_values(["query_id", "rank"], key=lambda s: s.map(position) if s.name == "query_id" else s)
        return out.reset_index(drop=True)

    def __repr__(self) -> str:
        return (
            f"Design(method={self.method!r}, {len(self.queries)} of {len(self.universe)} queries sampled "
            f"in {self.n} draws, seed={self.seed!r})"
        )

    def _repr_html_(self) -> str:
        shown = ", ".join(self.queries[:20]) + (" ..." if len(self.queries) > 20 else "")
        return f"<div><b>{html.escape(repr(self))}</b><br><small>{html.escape(shown)}</small></div>"
