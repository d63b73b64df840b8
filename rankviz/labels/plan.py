"""Which labels to buy next: a random sample of queries that favours where the model's labels matter most.

:func:`plan` draws the next queries for people with probabilities proportional to an
estimate of how far people's measure could differ from the model's on each query
(floored, so that every query can be drawn): the Neyman-style allocation that makes the
Hansen-Hurwitz estimate of the correction (:func:`~rankviz.labels.corrected`) tightest,
while it stays unbiased because every probability is known and positive.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from .._core.checks import check_choice, check_int, check_probability
from .._errors import InputError
from ..measures import parse_measure
from .agreement import paired_grades
from .corrected import per_query_values
from .design import Design, best_ranks
from .ppi import SCOPES, labels_frame

__all__ = ["Plan", "plan", "queries_for_width"]

#: smallest draw probability, as a share of the mean one (every query keeps a chance)
FLOOR = 0.1
#: chance that a person keeps the model's grade, when no pilot says otherwise (else one grade up or down)
DEFAULT_KEEP = 0.6


def queries_for_width(variance, width: float, *, confidence: float = 0.95, limit: int = 10_000_000) -> int:
    """Smallest ``n >= 2`` with ``2 * t_{n-1} * sqrt(variance(n)) <= width`` (``variance`` falls with ``n``).

    Raises when even ``limit`` queries (all of them) do not reach the width.
    """

    def wide(n: int) -> float:
        return 2.0 * float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * math.sqrt(max(variance(n), 0.0))

    if wide(limit) > width:
        raise InputError(
            f"plan: an interval of width {width} is out of reach: even {limit} human-judged queries give "
            f"{wide(limit):.4g}. Widen the target, or use scope='queries'."
        )
    low, high = 2, 2
    while wide(high) > width:
        low, high = high, min(high * 2, limit)
    while high - low > 1:
        middle = (low + high) // 2
        if wide(middle) <= width:
            high = middle
        else:
            low = middle
    return low if wide(low) <= width else high


@dataclasses.dataclass(frozen=True, repr=False)
class Plan:
    """The next queries for people and how they were chosen (:func:`plan` returns it).

    Parameters
    ----------
    design : Design
        A ``'stratified'`` design: pass it to :func:`~rankviz.labels.corrected`.
    table : DataFrame
        Per query: ``query_id``, ``spread`` (the estimated root-mean-square of people's minus
        the model's value of the target), ``stratum``, ``inclusion_probability``, ``sampled``.
    target : str or tuple
        ``'mean'`` (every system's mean) or the two systems whose difference is planned for.
    measure : str
        The measure the plan is for.
    pairs : DataFrame
        The (query, doc) pairs to grade (every system's top ``k`` on the planned queries),
        ready for :func:`rankviz.widgets.judge`.
    pilot : DataFrame or None
        People's minus the model's values on the pilot queries (``query_id``, ``difference``).
    scope : str
        ``'population'`` or ``'queries'``, as for :func:`corrected` (used by :meth:`size_for`).
    spread_y : float
        Variance of the per-query target (people's values on the pilot, else the model's): the
        population term of :meth:`size_for`.
    run : DataFrame or dict
        The run the plan was made for (:meth:`redraw` lists the new pairs from it).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import labels
    >>> queries = [f"q{i}" for i in range(20)]
    >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
    >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
    >>> p = labels.plan(run, model, budget=6, measure="P@1", seed=0)
    >>> p.measure, p.design.method, len(p.design.draws)
    ('P@1', 'stratified', 6)
    """

    design: Design
    table: pd.DataFrame
    target: object
    measure: str
    pairs: pd.DataFrame
    pilot: pd.DataFrame | None
    scope: str
    spread_y: float = 0.0
    run: object = dataclasses.field(default=None, compare=False)

    @property
    def queries(self) -> list[str]:
        """The planned queries, in draw order (each once)."""
        return self.design.queries

    def to_frame(self) -> pd.DataFrame:
        """The per-query table (see the class attributes).

        Returns
        -------
        DataFrame
            A copy of ``table``: ``query_id``, ``spread``, ``stratum``, ``inclusion_probability``, ``sampled``.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> queries = [f"q{i}" for i in range(20)]
        >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
        >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
        >>> p = labels.plan(run, model, budget=6, measure="P@1", seed=0)
        >>> int(p.to_frame()["sampled"].sum())
        6
        """
        return self.table.copy()

    def __repr__(self) -> str:
        return (
            f"Plan(target={self.target!r}, measure={self.measure!r}, {len(self.queries)} queries in "
            f"{self.design.n} draws of {len(self.design.universe)}, {len(self.pairs)} pairs to grade)"
        )

    def _repr_html_(self) -> str:
        from ..stats.results import html_table

        top = self.table.sort_values("draw_probability", ascending=False).head(20)
        return html_table(top, repr(self), ("the 20 queries most likely to be drawn",))

    def redraw(self, budget: int, *, seed=None) -> Plan:
        """The same strata and spreads, a new sample of ``budget`` queries (e.g. when the budget grows).

        Parameters
        ----------
        budget : int
            Number of queries people will grade (at least 2).
        seed : int, optional
            The seed of the new draw.

        Returns
        -------
        Plan
            This plan with a new design, table and pairs.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> queries = [f"q{i}" for i in range(20)]
        >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
        >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
        >>> p = labels.plan(run, model, budget=6, measure="P@1", seed=0)
        >>> p.redraw(8, seed=1).design.n
        8
        """
        budget = check_int(budget, "budget", "Plan.redraw", low=2)
        spread = self.table.set_index("query_id")["spread"]
        strata = self.table.set_index("query_id")["stratum"]
        design = _draw(spread, strata, budget, np.random.default_rng(seed), seed)
        table = self.table.assign(
            inclusion_probability=design.inclusion.reindex(spread.index).to_numpy(),
            sampled=spread.index.isin(design.queries),
        )
        depth = int(self.pairs["rank"].max()) if len(self.pairs) else 10
        return dataclasses.replace(self, design=design, table=table, pairs=design.pairs(self.run, depth))

    def size_for(self, width: float, *, confidence: float = 0.95) -> pd.DataFrame:
        """Human-judged queries an interval of ``width`` needs, drawn uniformly and as this plan draws.

        From the pilot's differences when :func:`plan` had human labels (a random pilot), else from
        the simulated spreads. Returns ``design`` (``uniform``, ``plan``), ``n_queries``, ``source``.

        Parameters
        ----------
        width : float
            The interval's full width wanted (high - low).
        confidence : float, default 0.95
            The interval's level.

        Returns
        -------
        DataFrame
            One row per way of drawing: ``design``, ``n_queries``, ``source``.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz import labels
        >>> queries = [f"q{i}" for i in range(20)]
        >>> run = pd.DataFrame({"query_id": queries, "doc_id": "a", "score": 1.0})
        >>> model = pd.DataFrame({"query_id": queries, "doc_id": "a", "relevance": 1})
        >>> p = labels.plan(run, model, budget=6, measure="P@1", seed=0)
        >>> p.size_for(0.2)
            design  n_queries                        source
        0  uniform          2  simulated spreads (no pilot)
        1     plan          2  simulated spreads (no pilot)
        """
        confidence = check_probability(confidence, "confidence", "Plan.size_for")
        if not (isinstance(width, (int, float)) and width > 0):
            raise InputError(f"Plan.size_for: width must be a positive number. Got {width!r} instead.")
        n_universe = len(self.table)
        table = self.table.set_index("query_id")
        weight = table.groupby("stratum")["spread"].agg(lambda x: float(np.sqrt((x**2).mean())))
        share = table["stratum"].value_counts() / n_universe
        spread_sq = table["spread"] ** 2
        if self.pilot is not None and len(self.pilot) >= 2:
            pilot = self.pilot.set_index("query_id")
            source = f"pilot of {len(pilot)} queries"
            var_d = float(pilot["difference"].var(ddof=1))
            simulated = float(spread_sq.loc[pilot.index].mean())
            scale = var_d / simulated if simulated > 0 else 1.0
        else:
            source = "simulated spreads (no pilot)"
            var_d, scale = float(spread_sq.mean()), 1.0
        sum_ws = float((share * weight).sum())
        sum_ws2 = float((share * weight**2).sum())
        fixed = 0.0 if self.scope == "queries" else self.spread_y / n_universe

        def uniform(n: int) -> float:
            return var_d * (1.0 / n - 1.0 / n_universe) + fixed

        def planned(n: int) -> float:  # Neyman allocation over the plan's strata
            return scale * (sum_ws**2 / n - sum_ws2 / n_universe) + fixed

        rows = [
            {
                "design": "uniform",
                "n_queries": queries_for_width(uniform, width, confidence=confidence, limit=n_universe),
            },
            {"design": "plan", "n_queries": queries_for_width(planned, width, confidence=confidence, limit=n_universe)},
        ]
        return pd.DataFrame(rows).assign(source=source)


#: best-rank buckets the pilot's confusion is estimated in: rank 1, 2-3, 4-10, deeper or not retrieved
RANK_EDGES = (1, 3, 10)


def _buckets(run, pairs: pd.DataFrame) -> np.ndarray:
    """The rank bucket (0..len(RANK_EDGES)) of each (query, doc) pair by the best rank any system gives it."""
    best = best_ranks(run)
    merged = pairs[["query_id", "doc_id"]].merge(best, on=["query_id", "doc_id"], how="left")
    ranks = merged["rank"].fillna(np.inf).to_numpy()
    return np.searchsorted(np.asarray(RANK_EDGES, dtype=float), ranks, side="left")


def _conditional(run, model_q: pd.DataFrame, human_q: pd.DataFrame | None, grades: np.ndarray) -> np.ndarray:
    """P(person's grade | model's grade, rank bucket): buckets x grades x grades, cumulated along the last axis.

    From a pilot: counts per bucket plus half a count per cell (and the pilot's overall
    confusion as a prior of weight 1); without one: the model's grade kept with
    probability 0.6, else one grade up or down, in every bucket.
    """
    g, b = len(grades), len(RANK_EDGES) + 1
    kernel = np.zeros((g, g))
    for i in range(g):
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j < g]
        kernel[i, i] = DEFAULT_KEEP if neighbours else 1.0
        for j in neighbours:
            kernel[i, j] = (1 - DEFAULT_KEEP) / len(neighbours)
    table = np.repeat(kernel[None], b, axis=0)
    if human_q is not None:
        both, _, _ = paired_grades(model_q, human_q)
        if len(both):
            index = {v: i for i, v in enumerate(grades.tolist())}
            rows = np.array([index[v] for v in both["a"]])
            cols = np.array([index[v] for v in both["b"]])
            where = _buckets(run, both)
            overall = np.full((g, g), 0.5)
            np.add.at(overall, (rows, cols), 1)
            overall /= overall.sum(axis=1, keepdims=True)
            counts = np.repeat(overall[None], b, axis=0)
            np.add.at(counts, (where, rows, cols), 1)
            table = counts / counts.sum(axis=2, keepdims=True)
    return np.cumsum(table, axis=2)


def _target_values(table: pd.DataFrame, name: str, target, systems: list[str], universe: list[str]) -> pd.DataFrame:
    wide = table.pivot(index="query_id", columns="system", values=name).reindex(universe).fillna(0.0)
    if isinstance(target, tuple):
        return pd.DataFrame({"target": wide[target[0]] - wide[target[1]]})
    return wide[systems]


def plan(run, model, human=None, *, budget: int, target="mean", measure="nDCG@10", seed=None, k=None,
         scope: str = "population", n_simulations: int = 30, n_strata: int = 5) -> Plan:  # fmt: skip
    """Draw the next queries for people, favouring those where people could most change the target.

    Parameters
    ----------
    run : DataFrame or dict
        The run (one or several systems).
    model : DataFrame, path, dict or LabelStore
        The model's grades of every query (a store gives its ``kind='model'`` labels).
    human : DataFrame, path, dict or LabelStore, optional
        A random pilot of people's grades: it calibrates how people's grades differ from
        the model's, and :meth:`Plan.size_for` sizes the study from it.
    budget : int
        Number of queries people will grade.
    target : 'mean' or (str, str)
        The mean of every system, or the difference between two named systems.
    measure : str, default 'nDCG@10'
        The measure the plan is for.
    seed : int, optional
    k : int, optional
        Depth of the pairs to grade (default: the measure's cutoff, else 100).
    scope : {'population', 'queries'}
        As for :func:`corrected` (used by :meth:`Plan.size_for`).
    n_simulations : int, default 30
        Simulated human labellings behind each query's spread.
    n_strata : int, default 5
        Strata of queries by spread (fewer when the budget is under twice as many).

    Returns
    -------
    Plan
        ``design`` (for :func:`corrected`), ``queries``, ``pairs`` (for :func:`rankviz.widgets.judge`),
        ``to_frame()``, ``size_for(width)``.

    Notes
    -----
    Each model-graded pair's human grade is simulated from the pilot's confusion (add-one
    smoothed; without a pilot: the model's grade kept with probability 0.6, else one grade
    up or down), the target re-evaluated with rankviz, and the root-mean-square of
    (simulated - model) per query is its spread ``s_i``. The queries are cut into strata by
    spread, and each stratum ``h`` gets ``n_h ∝ N_h S_h`` of the budget (Neyman allocation;
    ``S_h`` the root-mean-square spread there, floored at 0.1 of the mean, and ``n_h >= 2``),
    drawn at random without replacement: every query has the known inclusion probability
    ``n_h / N_h > 0``, so the stratified correction is unbiased. A query where two target
    systems show the same top ``k`` has ``s_i = 0`` and lands in the sparsest stratum.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import labels
    >>> queries = [f"q{i}" for i in range(30)]
    >>> run = pd.DataFrame({"system": ["a", "a", "b", "b"] * 30,
    ...                     "query_id": [q for q in queries for _ in range(4)],
    ...                     "doc_id": ["x", "y", "x", "y"] * 30, "score": [2.0, 1.0] * 60})
    >>> run.loc[(run["system"] == "b") & run["query_id"].isin(queries[:5]), "score"] *= -1
    >>> model = pd.DataFrame({"query_id": [q for q in queries for _ in range(2)],
    ...                       "doc_id": ["x", "y"] * 30, "relevance": [1, 0] * 30})
    >>> p = labels.plan(run, model, budget=8, target=("a", "b"), measure="P@1", seed=0)
    >>> table = p.to_frame().set_index("query_id")
    >>> float(table.loc["q0", "inclusion_probability"]), float(table.loc["q29", "inclusion_probability"])
    (1.0, 0.12)
    """
    caller = "plan"
    budget = check_int(budget, "budget", caller, low=2)
    n_strata = check_int(n_strata, "n_strata", caller, low=1)
    n_simulations = check_int(n_simulations, "n_simulations", caller, low=2)
    scope = check_choice(scope, "scope", caller, SCOPES)
    parsed = parse_measure(measure)
    name = parsed.name
    depth = k if k is not None else (parsed.cutoff or 100)
    model_q = labels_frame(model, "model", "model", caller)
    human_q = labels_frame(human, "human", "human", caller) if human is not None else None
    f_table = per_query_values(run, [name], model_q, set(model_q["query_id"]), caller)
    systems = list(dict.fromkeys(f_table["system"]))
    if isinstance(target, list):
        target = tuple(target)
    if isinstance(target, tuple):
        if len(target) != 2 or any(s not in systems for s in target) or target[0] == target[1]:
            raise InputError(
                f"{caller}: target must be 'mean' or two different systems of the run {systems}. Got {target!r}."
            )
    elif target != "mean":
        raise InputError(f"{caller}: target must be 'mean' or a pair of systems (a, b). Got {target!r} instead.")
    universe = list(dict.fromkeys(f_table["query_id"]))
    grades = np.union1d(model_q["relevance"].unique(), human_q["relevance"].unique() if human_q is not None else [])
    conditional = _conditional(run, model_q, human_q, grades)
    rng = np.random.default_rng(seed)
    position = np.searchsorted(grades, model_q["relevance"].to_numpy())
    cumulative = conditional[_buckets(run, model_q), position]
    f = _target_values(f_table, name, target, systems, universe)
    squares = np.zeros(f.shape)
    for _ in range(n_simulations):
        draws = (rng.random(len(model_q))[:, None] > cumulative).sum(axis=1)
        simulated = model_q.assign(relevance=grades[np.minimum(draws, len(grades) - 1)])
        y = _target_values(
            per_query_values(run, [name], simulated, set(universe), caller), name, target, systems, universe
        )
        squares += (y.to_numpy() - f.to_numpy()) ** 2
    spread = pd.Series(np.sqrt(squares.mean(axis=1) / n_simulations), index=universe)
    design = _stratified(spread, budget, n_strata, rng, seed)
    table = design.to_frame().drop(columns=["draw_probability", "n_draws"])
    table.insert(1, "spread", spread.to_numpy())
    table.insert(2, "stratum", pd.Series(design.strata).reindex(universe).to_numpy())
    pilot = None
    if human_q is not None:
        pilot_queries = [q for q in dict.fromkeys(human_q["query_id"]) if q in set(universe)]
        if pilot_queries:
            y_table = per_query_values(run, [name], human_q, set(pilot_queries), caller)
            y = _target_values(y_table, name, target, systems, pilot_queries)
            d = (y - f.loc[pilot_queries]).mean(axis=1)
            pilot = pd.DataFrame({"query_id": pd.Series(pilot_queries, dtype="str"), "difference": d.to_numpy()})
            spread_y = float(y.mean(axis=1).var(ddof=1)) if len(pilot_queries) > 1 else 0.0
    if pilot is None:
        spread_y = float(f.mean(axis=1).var(ddof=1))
    return Plan(design, table, target, name, design.pairs(run, int(depth)), pilot, scope, spread_y, run)


def _allocate(sizes: pd.Series, weights: pd.Series, budget: int) -> pd.Series:
    """Neyman allocation ``n_h ∝ N_h S_h`` rounded by largest remainders, each ``2 <= n_h <= N_h``."""
    share = sizes * weights
    share = share / share.sum() if share.sum() > 0 else sizes / sizes.sum()
    n = np.full(len(sizes), 2, dtype=np.int64)
    target = (share * budget).to_numpy(dtype=float)
    limit = sizes.to_numpy()
    for _ in range(budget - int(n.sum())):
        gap = np.where(n < limit, target - n, -np.inf)
        n[int(np.argmax(gap))] += 1
    return pd.Series(n, index=sizes.index)


def _strata(spread: pd.Series, h: int, most: int) -> pd.Series:
    """``h`` strata of equal size by spread; queries of zero spread (when at least 2, beside 2 others) form their own.

    Never more than ``most`` strata (each needs 2 of the budget).
    """
    zero = spread <= 1e-12 * max(float(spread.max()), 1.0)
    strata = pd.Series(0, index=spread.index, dtype=np.int64)
    if zero.sum() >= 2 and (~zero).sum() >= 2 and h >= 2:
        rest = spread[~zero]
        k = max(1, min(h, len(rest) // 4, most - 1))
        order = rest.rank(method="first").to_numpy() - 1
        strata[~zero] = 1 + (order * k // len(rest)).astype(np.int64)
    else:
        order = spread.rank(method="first").to_numpy() - 1
        strata[:] = (order * h // len(spread)).astype(np.int64)
    return strata


def _stratified(spread: pd.Series, budget: int, n_strata: int, rng, seed) -> Design:
    n_universe = len(spread)
    if budget > n_universe:
        raise InputError(f"plan: a budget of {budget} queries is more than the {n_universe} there are.")
    h = max(1, min(n_strata, budget // 2, n_universe // 2))
    return _draw(spread, _strata(spread, h, budget // 2), budget, rng, seed)


def _draw(spread: pd.Series, strata: pd.Series, budget: int, rng, seed) -> Design:
    """Neyman-allocated simple random samples within the strata."""
    universe = list(spread.index)
    if budget > len(universe):
        raise InputError(f"plan: a budget of {budget} queries is more than the {len(universe)} there are.")
    rms = spread.groupby(strata).agg(lambda x: float(np.sqrt((x**2).mean())))
    floor = FLOOR * float(rms.mean()) if rms.mean() > 0 else 1.0
    sizes = strata.value_counts().sort_index()
    if budget < 2 * len(sizes):
        raise InputError(f"plan: a budget of {budget} is below 2 queries for each of the {len(sizes)} strata.")
    n_h = _allocate(sizes, rms.clip(lower=floor), budget)
    draws: list[str] = []
    for stratum, count in n_h.items():
        members = [q for q in universe if strata[q] == stratum]
        draws += [members[i] for i in rng.choice(len(members), size=int(count), replace=False)]
    inclusion = (strata.map(n_h) / strata.map(sizes)).astype(float)
    return Design(tuple(universe), tuple(draws), "stratified", inclusion, None,
                  seed if isinstance(seed, int) else None, strata)  # fmt: skip
