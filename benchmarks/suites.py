"""Suites of collections (issue 34): coverage of the suite intervals, the meta-analysis and the rank
intervals by simulation, and the speed of rank intervals beside a naive pandas loop.

Usage::

    .venv/bin/python benchmarks/suites.py            # R = 500 replicates per cell, prints a markdown section
    .venv/bin/python benchmarks/suites.py --quick    # R = 100

Every cell draws R independent suites from a generator whose true value is known and reports the share of
intervals that cover it, with the Monte Carlo standard error sqrt(p (1 - p) / R). Nominal level 95%.

Models
    fixed datasets
        D = 6 datasets, each a fixed population of per-query scores (a zero-heavy mixture: a share of zeros,
        the rest Beta-distributed, different per dataset); n queries drawn per dataset. Target: the macro
        average of the population means of *these* datasets (the stratified interval's question).
    heterogeneous datasets
        Dataset means drawn from a population (sd 0.08 around 0.45) each replicate, then queries: target
        the population mean (the two-level interval's question). The stratified interval, which takes the
        datasets as fixed, is shown beside it.
    meta-analysis
        k datasets; the per-dataset true paired difference drawn around 0.02 (sd 0.02); queries paired
        with a shared difficulty. Target: the population mean difference 0.02.
    ranks
        8 systems with true means 0.50, 0.48, 0.48, 0.45, 0.40, 0.40, 0.40, 0.30 (two exact ties and a
        triple); 100 queries with a shared difficulty. Covered when every system's rank interval holds
        its whole true rank range (tied systems share ranks). Null tiers: 8 systems with equal true
        means; the share of replicates whose tiers separate any pair (family-wise error).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import rankviz  # noqa: E402

warnings.simplefilter("ignore", rankviz.RankvizWarning)


def _mc(p: float, r: int) -> str:
    return f"{p:.3f} ± {math.sqrt(max(p * (1 - p), 1e-12) / r):.3f}"


def _draw_scores(rng, n: int, zero: float, a: float, b: float) -> np.ndarray:
    return np.where(rng.random(n) < zero, 0.0, rng.beta(a, b, size=n))


def _true_mean(zero: float, a: float, b: float) -> float:
    return (1 - zero) * a / (a + b)


def _suite_table(per_dataset: dict[str, np.ndarray], system: str = "s") -> pd.DataFrame:
    frames = [
        pd.DataFrame({"dataset": d, "system": system, "query_id": [f"q{i}" for i in range(len(v))], "m": v})
        for d, v in per_dataset.items()
    ]
    return pd.concat(frames, ignore_index=True)


def fixed_datasets(reps: int, n: int, seed: int = 1) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    params = [(0.2 + 0.1 * d, 2 + d, 3) for d in range(6)]
    truth = float(np.mean([_true_mean(*p) for p in params]))
    hit_q = hit_d = 0
    for r in range(reps):
        table = _suite_table({f"d{d}": _draw_scores(rng, n, *p) for d, p in enumerate(params)})
        for level in ("queries", "datasets"):
            macro = rankviz.stats.suite_intervals(table, "m", rng=r, n_resamples=1000, level=level).macro().iloc[0]
            covered = macro["ci_low"] <= truth <= macro["ci_high"]
            if level == "queries":
                hit_q += covered
            else:
                hit_d += covered
    return hit_q / reps, hit_d / reps


def heterogeneous(reps: int, n: int, n_datasets: int, seed: int = 2) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    truth = 0.45
    hit_q = hit_d = 0
    for r in range(reps):
        means = rng.normal(truth, 0.08, size=n_datasets)
        scores = {f"d{d}": np.clip(m + rng.normal(0, 0.3, size=n), -1, 2) for d, m in enumerate(means)}
        # centre each dataset's population on its drawn mean (the noise is symmetric, clipping rare)
        table = _suite_table(scores)
        for level in ("queries", "datasets"):
            macro = rankviz.stats.suite_intervals(table, "m", rng=r, n_resamples=1000, level=level).macro().iloc[0]
            covered = macro["ci_low"] <= truth <= macro["ci_high"]
            if level == "queries":
                hit_q += covered
            else:
                hit_d += covered
    return hit_q / reps, hit_d / reps


def meta(reps: int, k: int, n: int, seed: int = 3) -> float:
    rng = np.random.default_rng(seed)
    truth = 0.02
    hits = 0
    for _ in range(reps):
        rows = []
        for d in range(k):
            delta = rng.normal(truth, 0.02)
            difficulty = rng.random(n)
            base = np.clip(difficulty + rng.normal(0, 0.15, n), 0, 1)
            new = np.clip(difficulty + delta + rng.normal(0, 0.15, n), 0, 1)
            new = new - new.mean() + base.mean() + delta  # the dataset's true difference is delta
            rows.append(pd.DataFrame({"dataset": f"d{d}", "system": "base", "query_id": range(n), "m": base}))
            rows.append(pd.DataFrame({"dataset": f"d{d}", "system": "new", "query_id": range(n), "m": new}))
        table = pd.concat(rows, ignore_index=True)
        res = rankviz.stats.meta_analysis(table, "new", "base", "m")
        hits += res.confidence_interval.low <= truth <= res.confidence_interval.high
    return hits / reps


TRUE_MEANS = np.array([0.50, 0.48, 0.48, 0.45, 0.40, 0.40, 0.40, 0.30])


def _rank_ranges(true: np.ndarray) -> list[tuple[int, int]]:
    return [(1 + int(np.sum(true > t)), int(np.sum(true >= t))) for t in true]


def ranks_coverage(reps: int, n: int, true: np.ndarray, seed: int = 4) -> tuple[float, float]:
    """(share of replicates with every true rank range inside, share with any pair of equal means separated)."""
    rng = np.random.default_rng(seed)
    ranges = _rank_ranges(true)
    covered = separated_equal = 0
    systems = [f"s{i}" for i in range(len(true))]
    for r in range(reps):
        difficulty = rng.normal(0, 0.15, size=(n, 1))
        values = true + difficulty + rng.normal(0, 0.2, size=(n, len(true)))
        values = values - values.mean(axis=0) + true + rng.normal(0, 0.2 / math.sqrt(n), size=len(true))
        table = pd.DataFrame(
            {"system": np.repeat(systems, n), "query_id": np.tile(np.arange(n), len(true)), "m": values.T.ravel()}
        )
        board = rankviz.stats.ranks(table, "m", rng=r, n_resamples=1000).to_frame().set_index("system")
        covered += all(
            board.loc[s, "rank_low"] <= lo and hi <= board.loc[s, "rank_high"]
            for s, (lo, hi) in zip(systems, ranges, strict=True)
        )
        tiers = board["tier"]
        separated_equal += any(
            true[i] == true[j] and not set(tiers[systems[i]]) & set(tiers[systems[j]])
            for i in range(len(true))
            for j in range(i)
        )
    return covered / reps, separated_equal / reps


def speed() -> list[tuple[str, float, float]]:
    out = []
    rng = np.random.default_rng(0)
    scores = pd.DataFrame(
        [(f"d{d}", f"s{s}", rng.random()) for d in range(40) for s in range(300)], columns=["dataset", "system", "m"]
    )
    rankviz.stats.ranks(scores, "m", rng=0, n_resamples=1000)  # warm
    t0 = time.perf_counter()
    rankviz.stats.ranks(scores, "m", rng=0, n_resamples=1000)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    wide = scores.pivot(index="dataset", columns="system", values="m")
    means = []
    for _ in range(1000):  # the naive loop: resample datasets with pandas, rank the means
        means.append(wide.sample(frac=1, replace=True, random_state=int(rng.integers(2**31))).mean().rank())
    naive = time.perf_counter() - t0
    out.append(("rank intervals, 1,000 resamples, 300 systems x 40 datasets (per-dataset scores)", ours, naive))
    systems, datasets, queries = 50, 10, 500
    rows = pd.DataFrame(
        {
            "dataset": np.repeat([f"d{d}" for d in range(datasets)], systems * queries),
            "system": np.tile(np.repeat([f"s{s}" for s in range(systems)], queries), datasets),
            "query_id": np.tile([f"q{q}" for q in range(queries)], systems * datasets),
            "m": rng.random(systems * datasets * queries),
        }
    )
    t0 = time.perf_counter()
    rankviz.stats.ranks(rows, "m", rng=0, n_resamples=1000)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    groups = {d: g.pivot(index="query_id", columns="system", values="m") for d, g in rows.groupby("dataset")}
    for _ in range(100):  # naive: pandas resampling per dataset (100 resamples, scaled x10)
        pd.concat([g.sample(frac=1, replace=True).mean() for g in groups.values()], axis=1).mean(axis=1).rank()
    naive = (time.perf_counter() - t0) * 10
    out.append(("rank intervals, 1,000 query resamples, 50 systems x 10 datasets x 500 queries", ours, naive))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    reps = 100 if args.quick else 500
    print(
        f"## Suites of collections (`benchmarks/suites.py`, issue 34)\n\nR = {reps} replicates per cell; "
        f"load: {os.getloadavg()[0]:.2f} (1-min average at the start)\n"
    )
    print("### Macro average, fixed datasets (6 datasets, zero-heavy scores): coverage of the true macro mean\n")
    print("| queries per dataset | stratified | two-level |\n|---|---|---|")
    for n in (50, 200):
        q, d = fixed_datasets(reps, n)
        print(f"| {n} | {_mc(q, reps)} | {_mc(d, reps)} |")
    print("\n### Macro average, heterogeneous datasets (dataset means sd 0.08): coverage of the population mean\n")
    print("| datasets | queries per dataset | stratified | two-level |\n|---|---|---|---|")
    for k in (8, 15):
        q, d = heterogeneous(reps, 100, k)
        print(f"| {k} | 100 | {_mc(q, reps)} | {_mc(d, reps)} |")
    print("\n### Random-effects meta-analysis (DerSimonian-Laird, Hartung-Knapp): coverage of the pooled difference\n")
    print("| datasets | queries per dataset | coverage |\n|---|---|---|")
    for k in (3, 5, 8, 15):
        print(f"| {k} | 100 | {_mc(meta(reps, k, 100), reps)} |")
    print("\n### Rank intervals (8 systems, exact ties) and tiers under equal means\n")
    print("| case | queries | all true ranks inside | tiers separating equal means (any pair) |\n|---|---|---|---|")
    for n in (50, 200):
        cov, sep = ranks_coverage(reps, n, TRUE_MEANS)
        print(f"| ties 0.48/0.48, 0.40 x 3 | {n} | {_mc(cov, reps)} | {_mc(sep, reps)} |")
    cov, sep = ranks_coverage(reps, 100, np.full(8, 0.45))
    print(f"| all 8 equal | 100 | {_mc(cov, reps)} | {_mc(sep, reps)} |")
    print("\n### Speed (seconds; the naive pandas loop beside)\n")
    print("| case | rankviz | naive pandas loop | ratio | target |\n|---|---|---|---|---|")
    targets = ["≤ 0.1 s", "≤ 3 s"]
    for (name, ours, naive), target in zip(speed(), targets, strict=True):
        print(f"| {name} | {ours:.3f} | {naive:.2f} | {naive / ours:.0f}x | {target} |")
    print(f"\nload at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
