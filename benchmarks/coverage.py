"""Monte Carlo coverage of rankviz's interval methods on zero-inflated reciprocal-rank data.

Usage::

    .venv/bin/python benchmarks/coverage.py            # 1,000 experiments per cell, 2,000 resamples each
    .venv/bin/python benchmarks/coverage.py --quick    # 200 experiments per cell

For every scenario and sample size n (25, 50, 200, 1000 queries), R samples of n
per-query values are drawn from a known distribution, an interval is computed on
each through rankviz's public API, and the share of intervals that contain the
true value is the observed coverage (nominal 95%), with its Monte Carlo standard
error sqrt(p (1 - p) / R).

Methods
    ``rankviz.stats.bootstrap`` with ``method="bca"`` and ``"percentile"`` (the mean);
    the Wilson interval of the share of zeros and the bootstrap interval of the MRR over
    the non-zero queries (both reported by ``bootstrap`` for RR measures); for paired
    differences ``rankviz.stats.compare`` (test="t"): the paired t-interval and the
    paired bootstrap interval (BCa and percentile).
Batching
    Many experiments go into one call as separate "systems" whose query ids differ, so
    each is resampled on its own (bootstrap pairs systems only when they share their
    queries; compare joins each system with its own queries of the baseline). The
    results are those of one call per experiment, at a fraction of the overhead.
Resamples
    2,000 per experiment by default (the library default is 10,000): the Monte Carlo
    error of an interval endpoint at 2,000 resamples is about 1.6% of the interval
    width, small next to the coverage differences of interest.

``DegenerateDataWarning`` is expected here (all-zero samples, BCa fallbacks) and
silenced. Results go to ``benchmarks/RESULTS.md`` (the coverage.py section) and
``benchmarks/_data/coverage.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
# This file's name would shadow the `coverage` package for anything that imports it: keep its folder off the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import rankviz
from rankviz import DegenerateDataWarning

START, END = "<!-- coverage.py:start -->", "<!-- coverage.py:end -->"
SIZES = (25, 50, 200, 1000)
LEVEL = 0.95


# ----------------------------------------------------------------------------- scenarios


class Discrete:
    """A distribution of per-query reciprocal ranks: values with probabilities."""

    def __init__(self, values, probs):
        self.values = np.asarray(values, dtype=np.float64)
        self.probs = np.asarray(probs, dtype=np.float64) / np.sum(probs)

    def sample(self, rng, size):
        return rng.choice(self.values, size=size, p=self.probs)

    @property
    def mean(self) -> float:
        return float(self.values @ self.probs)

    @property
    def zero_share(self) -> float:
        return float(self.probs[self.values == 0].sum())

    @property
    def nonzero_mean(self) -> float:
        nz = self.values > 0
        return float(self.values[nz] @ self.probs[nz] / self.probs[nz].sum())


def zero_inflated_rr(zero_share: float, max_rank: int = 100, exponent: float = 1.2) -> Discrete:
    """RR = 0 with probability ``zero_share``, else 1/rank with P(rank = r) proportional to r**-exponent."""
    ranks = np.arange(1, max_rank + 1)
    weights = ranks**-exponent
    weights = weights / weights.sum() * (1 - zero_share)
    return Discrete(np.r_[0.0, 1.0 / ranks], np.r_[zero_share, weights])


def mrr_at_10() -> Discrete:
    """RR@10 of a retriever: no relevant item in 1,000 for 20% of queries, else a first relevant rank with
    P(rank <= 10 | found) = 0.6 (geometric-like decay beyond); about 52% of RR@10 values are 0."""
    ranks = np.arange(1, 1001)
    weights = np.where(ranks <= 10, 0.6 * (ranks**-0.8) / np.sum(np.arange(1, 11) ** -0.8), 0.0)
    tail = (ranks > 10) * ranks**-1.0
    weights = weights + 0.4 * tail / tail.sum()
    weights *= 0.8
    values = np.where(ranks <= 10, 1.0 / ranks, 0.0)
    return Discrete(np.r_[0.0, values], np.r_[0.2, weights])


SCENARIOS = {
    "15% zeros": zero_inflated_rr(0.15),
    "60% zeros": zero_inflated_rr(0.60),
    "90% zeros": zero_inflated_rr(0.90),
    "MRR@10 (52% zeros)": mrr_at_10(),
}
# Paired: system B copies A's RR@10 on a share of the queries (plus chance equality), otherwise draws from a better
# retriever; about 70% of the paired scores are identical.
PAIRED_COPY = 0.57
PAIRED_BETTER = Discrete(mrr_at_10().values, np.r_[0.1, mrr_at_10().probs[1:] * 0.9 / mrr_at_10().probs[1:].sum()])


def paired_truth() -> tuple[float, float]:
    a, b = mrr_at_10(), PAIRED_BETTER
    chance_equal = float(sum(pa * b.probs[b.values == va].sum() for va, pa in zip(a.values, a.probs)))
    identical = PAIRED_COPY + (1 - PAIRED_COPY) * chance_equal
    return (1 - PAIRED_COPY) * (b.mean - a.mean), identical


# ----------------------------------------------------------------------------- experiments


def _one_sample_table(samples: np.ndarray, offset: int) -> pd.DataFrame:
    """Experiments as systems with their own query ids (so each is resampled on its own)."""
    n_exp, n = samples.shape
    exp = np.repeat(np.arange(offset, offset + n_exp), n)
    query = np.tile(np.arange(n), n_exp)
    return pd.DataFrame(
        {
            "system": pd.array([f"e{e}" for e in exp], dtype="str"),
            "query_id": pd.array([f"e{e}_q{q}" for e, q in zip(exp, query)], dtype="str"),
            "RR@10": samples.ravel(),
        }
    )


def run_one_sample(dist: Discrete, n: int, experiments: int, resamples: int, batch: int, rng) -> dict:
    hits = {"bca": 0, "percentile": 0, "wilson zero share": 0, "MRR over RR > 0 (BCa)": 0}
    defined_nonzero = 0
    all_zero = 0
    for start in range(0, experiments, batch):
        size = min(batch, experiments - start)
        samples = dist.sample(rng, (size, n))
        all_zero += int((samples == 0).all(axis=1).sum())
        table = _one_sample_table(samples, start)
        for method in ("bca", "percentile"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateDataWarning)
                results = rankviz.stats.bootstrap(table, "RR@10", n_resamples=resamples, method=method, rng=rng)
            for res in results:
                low, high = res.confidence_interval
                hits[method] += bool(low <= dist.mean <= high)
                if method == "bca":
                    zl, zh = res.zero_share_interval
                    hits["wilson zero share"] += bool(zl <= dist.zero_share <= zh)
                    nl, nh = res.nonzero_interval
                    if not (math.isnan(nl) or math.isnan(nh)):
                        defined_nonzero += 1
                    hits["MRR over RR > 0 (BCa)"] += bool(nl <= dist.nonzero_mean <= nh)
    out = {method: count / experiments for method, count in hits.items()}
    out["all_zero_samples"] = all_zero / experiments
    out["nonzero_interval_defined"] = defined_nonzero / experiments
    return out


def run_paired(n: int, experiments: int, resamples: int, batch: int, rng) -> dict:
    truth, _ = paired_truth()
    a_dist, b_dist = mrr_at_10(), PAIRED_BETTER
    hits = {"paired t": 0, "paired bootstrap bca": 0, "paired bootstrap percentile": 0}
    identical = 0.0
    for start in range(0, experiments, batch):
        size = min(batch, experiments - start)
        a = a_dist.sample(rng, (size, n))
        b = np.where(rng.random((size, n)) < PAIRED_COPY, a, b_dist.sample(rng, (size, n)))
        identical += float((a == b).mean(axis=1).sum())
        base = _one_sample_table(a, start).assign(system="A")
        other = _one_sample_table(b, start)
        table = pd.concat([base, other], ignore_index=True)
        for method in ("bca", "percentile"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateDataWarning)
                result = rankviz.stats.compare(
                    table, baseline="A", measures="RR@10", test="t", correction=None, n_resamples=resamples, method=method, rng=rng
                ).table
            covered = (result["ci_low"] <= truth) & (truth <= result["ci_high"])
            hits[f"paired bootstrap {method}"] += int(covered.sum())
            if method == "bca":
                t_covered = (result["t_ci_low"] <= truth) & (truth <= result["t_ci_high"])
                hits["paired t"] += int(t_covered.sum())
    out = {method: count / experiments for method, count in hits.items()}
    out["identical_share"] = identical / experiments
    return out


# ----------------------------------------------------------------------------- report


def wilson_exact(n: int, p: float) -> float:
    """The Wilson interval's exact coverage of a true share p at n: a sum over the binomial outcomes."""
    from scipy.stats import binom

    return float(sum(binom.pmf(x, n, p) for x in range(n + 1) if _covers(rankviz.stats.wilson_interval(x, n, LEVEL), p)))


def _covers(interval, value) -> bool:
    return interval.low <= value <= interval.high


def _cell(p: float, experiments: int) -> str:
    se = math.sqrt(max(p * (1 - p), 1e-12) / experiments)
    flag = " **short**" if p < LEVEL - 2 * se - 0.005 else ""
    return f"{p:.3f} ± {se:.3f}{flag}"


def render(results: dict, args, elapsed: float) -> str:
    R = args.experiments
    lines = [START, "", "## Coverage of the interval methods (`benchmarks/coverage.py`)", ""]
    lines += [
        (f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `benchmarks/coverage.py{' --quick' if args.quick else ''}` in "
        f"{elapsed / 60:.1f} min: {R:,} experiments per cell, {args.resamples:,} bootstrap resamples per experiment "
        f"(the library default is 10,000), nominal level {LEVEL:.0%}, seed {args.seed}. Each cell is the observed coverage "
        "± its Monte Carlo standard error; **short** marks coverage more than two standard errors (and half a point) "
        "below 95%. With about 80 cells, one or two such dips are expected by chance alone. For the Wilson interval "
        "the exact coverage (a sum over the binomial distribution) is shown too: it oscillates with n and p, a known "
        "property of every binomial interval."),
        "",
        "Scenarios (per-query reciprocal ranks; true values known exactly):",
        "",
    ]
    for name, dist in SCENARIOS.items():
        lines.append(
            f"- {name}: mean {dist.mean:.4f}, share of zeros {dist.zero_share:.2f}, MRR over RR > 0 {dist.nonzero_mean:.4f}."
        )
    truth, identical = paired_truth()
    lines.append(
        f"- Paired differences: system A as in MRR@10; B copies A on {PAIRED_COPY:.0%} of the queries and otherwise draws "
        f"from a better retriever (10% zeros instead of 20% not found); {identical:.0%} of the pairs identical; true mean "
        f"difference {truth:.4f}."
    )
    lines += ["", "| scenario | method | " + " | ".join(f"n = {n}" for n in SIZES) + " |", "|---|---|" + "---|" * len(SIZES)]
    methods = ["bca", "percentile", "wilson zero share", "MRR over RR > 0 (BCa)"]
    for name, dist in SCENARIOS.items():
        for method in methods:
            cells = [_cell(results[name][str(n)][method], R) for n in SIZES]
            if method == "wilson zero share":
                cells = [f"{c} (exact {wilson_exact(n, dist.zero_share):.3f})" for c, n in zip(cells, SIZES)]
            lines.append(f"| {name} | {method} | " + " | ".join(cells) + " |")
    for method in ("paired t", "paired bootstrap bca", "paired bootstrap percentile"):
        cells = [_cell(results["paired"][str(n)][method], R) for n in SIZES]
        lines.append(f"| paired diff, ~70% identical | {method} | " + " | ".join(cells) + " |")
    lines += [
        "",
        ("Compared with the reference figures in `shared/notes/statistics.md` (other zero-inflated distributions, same "
        "design) the pattern is the same: BCa near 95% from n = 50 with up to 60% zeros, percentile short at small n, "
        "everything short at 90% zeros and n <= 50, the paired bootstrap short and the paired t-interval at 95% for "
        "tied paired differences at n <= 50."),
    ]
    zero = results["90% zeros"]
    lines += [
        "",
        "Share of samples that are all zeros at 90% zeros: "
        + ", ".join(f"n = {n}: {zero[str(n)]['all_zero_samples']:.3f}" for n in SIZES)
        + " (0.9^25 = 0.072: no interval built from such a sample can cover a positive mean). "
        "The MRR over non-zero queries is undefined on those samples and counts as not covered; its interval was defined in "
        + ", ".join(f"{zero[str(n)]['nonzero_interval_defined']:.1%}" for n in SIZES)
        + " of the samples.",
        "",
        "Observed share of identical paired scores: "
        + ", ".join(f"n = {n}: {results['paired'][str(n)]['identical_share']:.2f}" for n in SIZES)
        + ".",
        "",
        "### Where coverage falls short",
        "",
    ]
    lines += shortfalls(results, R)
    lines += ["", END]
    return "\n".join(lines)


def shortfalls(results: dict, R: int) -> list[str]:
    out = []
    for scenario, per_n in results.items():
        for n in SIZES:
            for method, p in per_n[str(n)].items():
                if method in ("all_zero_samples", "nonzero_interval_defined", "identical_share"):
                    continue
                se = math.sqrt(max(p * (1 - p), 1e-12) / R)
                if p < LEVEL - 2 * se - 0.005:
                    out.append((scenario, n, method, p))
    if not out:
        return ["Nowhere: every method covers within two Monte Carlo standard errors of 95%."]
    lines = ["| scenario | n | method | coverage |", "|---|---|---|---|"]
    lines += [f"| {'paired diff' if s == 'paired' else s} | {n} | {m} | {p:.3f} |" for s, n, m, p in out]
    lines += [
        "",
        ("Reading: the bootstrap intervals are only as good as the sample is informative. At 90% zeros and n <= 50 a sample "
        "holds a handful of non-zero queries (and is all zeros 7% of the time at n = 25), so every bootstrap interval is "
        "too narrow; BCa needs n >= 200 there, percentile more. Percentile under-covers at n <= 50 once half the "
        "queries or more are zeros (and is below BCa at n = 25 everywhere), which is why BCa is the default. The "
        "Wilson interval's dips follow its exact coverage at that n and share. For paired differences with ~70% identical scores the bootstrap "
        "intervals under-cover at n <= 50 while the paired t-interval stays at 95% -- rankviz's compare() reports both "
        "and warns when there are many ties at n <= 50. The MRR over non-zero queries is a ratio with few non-zero "
        "queries at 90% zeros: read its interval as indicative below n = 200."),
    ]
    return lines


def write_results(section: str) -> None:
    path = HERE / "RESULTS.md"
    header = "# rankviz benchmarks\n\nRegenerate with `make bench` (`benchmarks/run.py`) and `benchmarks/coverage.py`.\n"
    text = path.read_text() if path.exists() else header
    if START in text and END in text:
        before, rest = text.split(START, 1)
        text = before + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200 experiments per cell")
    parser.add_argument("--experiments", type=int, default=None, help="experiments per cell (default 1000; 200 with --quick)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples per experiment (default 2000)")
    parser.add_argument("--batch", type=int, default=100, help="experiments per rankviz call")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    args.experiments = args.experiments or (200 if args.quick else 1000)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    results: dict = {}
    for name, dist in SCENARIOS.items():
        results[name] = {}
        for n in SIZES:
            t = time.perf_counter()
            results[name][str(n)] = run_one_sample(dist, n, args.experiments, args.resamples, args.batch, rng)
            cov = results[name][str(n)]
            print(f"{name:22s} n={n:5d}  bca {cov['bca']:.3f}  pct {cov['percentile']:.3f}  wilson {cov['wilson zero share']:.3f}  "
                  f"nonzero {cov['MRR over RR > 0 (BCa)']:.3f}  ({time.perf_counter() - t:.0f} s)", flush=True)
    results["paired"] = {}
    for n in SIZES:
        t = time.perf_counter()
        results["paired"][str(n)] = run_paired(n, args.experiments, args.resamples, args.batch, rng)
        cov = results["paired"][str(n)]
        print(f"{'paired':22s} n={n:5d}  t {cov['paired t']:.3f}  boot-bca {cov['paired bootstrap bca']:.3f}  "
              f"boot-pct {cov['paired bootstrap percentile']:.3f}  identical {cov['identical_share']:.2f}  "
              f"({time.perf_counter() - t:.0f} s)", flush=True)
    elapsed = time.perf_counter() - started
    (HERE / "_data").mkdir(exist_ok=True)
    (HERE / "_data" / ("coverage_quick.json" if args.quick else "coverage.json")).write_text(json.dumps(results, indent=1))
    if not args.no_write:
        write_results(render(results, args, elapsed))
        print(f"wrote {HERE / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
