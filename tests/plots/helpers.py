"""Shared data of the plot tests: the built-in example evaluated, generated tables and results."""

from __future__ import annotations

import warnings
from functools import cache

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.text
import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection
from matplotlib.container import BarContainer
from matplotlib.patches import Rectangle, StepPatch

import rankviz
from rankviz import DegenerateDataWarning
from rankviz.datasets import load_example

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
AT_K = [f"{m}@{k}" for m in ("RR", "R", "nDCG") for k in range(1, 21)] + ["R@100"]


# ----------------------------------------------------------------------------- data


@cache
def _example():
    run, qrels, queries = load_example()
    table = rankviz.evaluate(run, AT_K, qrels, per_query=True)
    return run, qrels, queries, table


def example_table() -> pd.DataFrame:
    return _example()[3].copy()


def one_system(table: pd.DataFrame, name: str = "bm25") -> pd.DataFrame:
    return table[table["system"] == name].drop(columns="system").reset_index(drop=True)


@cache
@cache
def _changes():
    run, qrels, _, _ = _example()
    return rankviz.changes(run, qrels, system="bm25+rerank", baseline="bm25", k=10)


@cache
def _slices():
    table, queries = _example()[3], _example()[2]
    return rankviz.failure_slices(table, system="bm25", measure="RR@10", queries=queries)


def _bootstrap():
    """(one measure's results by system, the tidy table of three measures)."""
    table = _example()[3]
    single = rankviz.stats.bootstrap(table, "RR@10", n_resamples=2000, rng=0)
    several = rankviz.stats.bootstrap(table, ["RR@10", "nDCG@10", "R@100"], n_resamples=2000, rng=0)
    return {r.system: r for r in single}, several.to_frame()


def big_table(n_queries: int = 7000, systems=("a", "b"), seed: int = 0) -> pd.DataFrame:
    """A generated per-query table: RR@10 values are 0 or 1/rank, R@100 in [0, 1]."""
    gen = np.random.default_rng(seed)
    parts = []
    for name in systems:
        ranks = gen.integers(1, 16, size=n_queries)
        rr = np.where(ranks <= 10, 1.0 / ranks, 0.0)
        parts.append(
            pd.DataFrame(
                {
                    "system": name,
                    "query_id": [f"q{i:05d}" for i in range(n_queries)],
                    "RR@10": rr,
                    "R@100": gen.integers(0, 5, size=n_queries) / 4,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def small_table() -> pd.DataFrame:
    """Five queries, two systems."""
    return pd.DataFrame(
        {
            "system": ["x"] * 5 + ["y"] * 5,
            "query_id": ["q1", "q2", "q3", "q4", "q5"] * 2,
            "RR@10": [1.0, 0.5, 0.0, 0.25, 0.0, 0.5, 0.5, 1.0, 0.0, 0.1],
            "R@100": [1.0, 0.5, 0.0, 1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 1.0],
        }
    )


def steps(ax) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{label: (values, edges)} of the step patches (paired_differences draws losses, ties, wins)."""
    out = {}
    for patch in ax.patches:
        if isinstance(patch, StepPatch):
            values, edges, _ = patch.get_data()
            out[patch.get_label()] = (np.asarray(values), np.asarray(edges))
    return out


def step_heights(ax) -> list[float]:
    parts = steps(ax)
    return [float(v) for label in ("losses", "ties", "wins") if label in parts for v in parts[label][0]]


def bars(ax) -> list[Rectangle]:
    return [patch for container in ax.containers if isinstance(container, BarContainer) for patch in container.patches]


def _expected_first_hits(k: int) -> pd.DataFrame:
    """Counts per system of first-relevant ranks 1..k and 'not in top k', from first_relevant_rank (not RR)."""
    run, qrels, _, _ = _example()
    ranks = rankviz.first_relevant_rank(run, qrels)
    out = {}
    for system, part in ranks.groupby(level="system", sort=False):
        values = part.astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
        counts = [int(np.sum(values == r)) for r in range(1, k + 1)]
        counts.append(int(np.sum(np.isnan(values) | (values > k))))
        out[system] = counts
    return pd.DataFrame(out)


def _segments(ax) -> list[tuple[float, float, float]]:
    """(y, low, high) of every interval whisker."""
    out = []
    for collection in ax.collections:
        if isinstance(collection, LineCollection):
            for segment in collection.get_segments():
                (x0, y0), (x1, y1) = segment
                if y0 == y1:
                    out.append((y0, x0, x1))
    return out


CALL_NAMES = [
    "slices",
    "rr_distribution",
    "failures",
    "ci",
    "bootstrap_distribution",
    "paired_differences",
    "metric_at_k",
    "recall_vs_mrr",
    "failure_causes",
    "changes",
    "funnel",
]


@cache
def _by_first_hit():
    run, qrels, _, _ = _example()
    with warnings.catch_warnings():  # RR@10 is constant in the buckets 1, >10 and none: said, and beside the point
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return rankviz.bootstrap(run, "RR@10", qrels, by="first_hit", n_resamples=500, rng=0)


# ----------------------------------------------------------------------------- pipelines for the funnel


def generated_stages(names: tuple, n_queries: int = 40) -> dict:
    """{name: rankviz.stages(...)}: one simulated five-stage pipeline per name (retrieved, reranked, context, top
    3 of the context, cited), each losing the relevant document at a different rate."""
    import random

    results = {}
    for i, name in enumerate(names):
        rng = random.Random(i)
        runs: dict = {"retrieved": {}, "reranked": {}, "context": {}, "top 3": {}, "cited": {}}
        qrels = {}
        for q in range(n_queries):
            qid = f"q{q:02d}"
            docs = [f"{qid}-{j}" for j in range(30)]
            rng.shuffle(docs)
            qrels[qid] = docs[:2] if rng.random() < 0.9 else ["absent"]
            runs["retrieved"][qid] = docs
            runs["reranked"][qid] = docs[: 10 + i % 10]
            runs["context"][qid] = docs[:5]
            runs["top 3"][qid] = docs[:3]
            runs["cited"][qid] = {d for d in docs[:3] if rng.random() < 0.8}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            results[name] = rankviz.stages(runs, qrels, unordered="cited", n_resamples=100, rng=0)
    return results
