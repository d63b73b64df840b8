"""A simulated judge and random human samples: the parts of a labels-from-a-model study that need no model.

:func:`simulate_judge` reads the true grades and returns what a noisy, lenient model
would have said; :func:`sample_queries` draws the random sample of queries people
grade. Both are seeded, so a study (a test, the benchmark, a notebook) repeats exactly.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._core.checks import check_int, check_real
from .._errors import InputError
from .agreement import frame_of
from .design import Design, query_universe

__all__ = ["simulate_judge", "sample_queries"]


def _real(value, name: str, caller: str, *, low: float | None = None) -> float:
    return check_real(value, name, caller, low=low)


def simulate_judge(qrels, *, noise: float = 0.5, leniency: float = 0.0, scale=None, seed=None) -> pd.DataFrame:
    """A simulated model judge: the true grades plus Gaussian grade noise and a leniency shift, clipped to the scale.

    Parameters
    ----------
    qrels : DataFrame, path or dict
        The true grades (what people would say), in any form rankviz reads.
    noise : float, default 0.5
        Standard deviation of the Gaussian noise added to each grade (in grades).
    leniency : float, default 0.0
        Added to every grade before rounding: positive grades too generously, negative too strictly.
    scale : (int, int), optional
        The lowest and highest grade (default: those of ``qrels``).
    seed : int or numpy Generator, optional
        Seed of the noise.

    Returns
    -------
    DataFrame
        ``query_id``, ``doc_id``, ``relevance``: ``clip(round(grade + leniency + noise * Z), low, high)``
        for every judged pair, ``Z`` standard normal, independent per pair.

    Examples
    --------
    >>> from rankviz import labels
    >>> truth = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 0, "d4": 2}}
    >>> model = labels.simulate_judge(truth, noise=0.0, leniency=1.0)
    >>> model["relevance"].tolist()  # one grade higher, clipped at 2
    [2, 1, 2, 1, 2]
    >>> len(labels.simulate_judge(truth, noise=0.8, seed=1)) == 5
    True
    """
    caller = "simulate_judge"
    noise = _real(noise, "noise", caller, low=0.0)
    leniency = _real(leniency, "leniency", caller)
    truth = frame_of(qrels, "relevance", caller)
    grades = truth["relevance"].to_numpy(dtype=np.int64)
    if scale is None:
        low, high = (int(grades.min()), int(grades.max())) if len(grades) else (0, 1)
    else:
        try:
            low, high = (int(scale[0]), int(scale[1]))
        except (TypeError, ValueError, IndexError):
            raise InputError(
                f"simulate_judge: scale must be (lowest grade, highest grade). Got {scale!r} instead."
            ) from None
        if low >= high:
            raise InputError(f"simulate_judge: scale must be (lowest, highest) with lowest < highest. Got {scale!r}.")
    rng = np.random.default_rng(seed)
    shifted = grades + leniency + noise * rng.standard_normal(len(grades))
    simulated = np.clip(np.floor(shifted + 0.5), low, high).astype(np.int64)
    return truth.assign(relevance=simulated)


def sample_queries(queries, fraction=None, *, n=None, seed=None, probabilities=None) -> Design:
    """Draw the random sample of queries people grade, and record its inclusion probabilities.

    Parameters
    ----------
    queries : list, Series or DataFrame
        The query ids to sample from (a run or qrels frame works: its query id column is read).
    fraction : float, optional
        Share of the queries to sample (rounded, at least 2); or give ``n``.
    n : int, optional
        Number of queries (draws, with ``probabilities``).
    seed : int or numpy Generator, optional
    probabilities : Mapping or Series, optional
        Weights per query (need not sum to 1; every query needs a positive one). With
        them the sample is ``n`` draws with replacement (a ``'pps'`` design); without,
        a simple random sample without replacement (``'srswor'``).

    Returns
    -------
    Design
        ``.queries`` to send to people, ``.pairs(run, k)`` for the widget, the inclusion
        probabilities for :func:`~rankviz.labels.corrected`.

    Examples
    --------
    >>> from rankviz import labels
    >>> design = labels.sample_queries([f"q{i}" for i in range(50)], 0.1, seed=0)
    >>> design.method, len(design.queries), float(design.inclusion.iloc[0])
    ('srswor', 5, 0.1)
    """
    caller = "sample_queries"
    universe = query_universe(queries, caller)
    size = len(universe)
    if (fraction is None) == (n is None):
        raise InputError("sample_queries: give either fraction= (a share of the queries) or n= (a number), not both.")
    if fraction is not None:
        f = _real(fraction, "fraction", caller)
        if not 0 < f <= 1:
            raise InputError(f"sample_queries: fraction must be in (0, 1]. Got {fraction!r} instead.")
        count = max(2, int(round(f * size)))
    else:
        count = check_int(n, "n", caller, low=1)
    rng = np.random.default_rng(seed)
    seed_value = int(seed) if isinstance(seed, (int, np.integer)) else None
    if probabilities is None:
        if count > size:
            raise InputError(f"sample_queries: n={count} is more than the {size} queries there are.")
        picked = rng.choice(size, size=count, replace=False)
        draws = tuple(universe[i] for i in picked)
        inclusion = pd.Series(count / size, index=universe, dtype=float)
        return Design(tuple(universe), draws, "srswor", inclusion, None, seed_value)
    p = _draw_probabilities(probabilities, universe, caller)
    picked = rng.choice(size, size=count, replace=True, p=p.to_numpy())
    inclusion = 1.0 - (1.0 - p) ** count
    return Design(tuple(universe), tuple(universe[i] for i in picked), "pps", inclusion, p, seed_value)


def _draw_probabilities(probabilities, universe: list[str], caller: str) -> pd.Series:
    if not isinstance(probabilities, (Mapping, pd.Series)):
        raise InputError(
            f"{caller}: probabilities must map each query id to a weight. Got {type(probabilities).__name__}."
        )
    weights = pd.Series(dict(probabilities) if isinstance(probabilities, Mapping) else probabilities, dtype=float)
    weights.index = weights.index.astype(str)
    weights = weights.reindex(universe)
    bad = weights[~(weights > 0) | ~np.isfinite(weights.fillna(-1))]
    if len(bad):
        raise InputError(
            f"{caller}: every query needs a positive, finite weight (a query that cannot be drawn leaves the "
            f"correction biased); {len(bad)} do not, e.g. {list(bad.index[:3])}. Floor the weights above 0."
        )
    return weights / weights.sum()
