"""Monte Carlo coverage and error rates of rankviz's intervals and tests on zero-heavy, tied IR data.

Usage::

    .venv/bin/python benchmarks/coverage.py               # full run (R = 2,000 per cell; 15-20 min on 1 busy core)
    .venv/bin/python benchmarks/coverage.py --quick       # R = 300 per cell everywhere
    .venv/bin/python benchmarks/coverage.py --quick --parts paired,single --no-write
    .venv/bin/python benchmarks/coverage.py --render-only # rewrite RESULTS.md from the last full run's JSON

Every cell draws R independent samples from a generator whose true value is known, computes an
interval (or a p-value) on each through rankviz's public API, and reports the share that covers
the truth (or rejects) with its Monte Carlo standard error sqrt(p (1 - p) / R). Nominal level 95%.

Parts (``--parts``; all by default)
    legacy
        One-sample reciprocal-rank scenarios with known discrete distributions (15%, 60%, 90% zeros
        and an MRR@10 retriever), n = 25, 50, 200, 1000: ``rankviz.stats.bootstrap`` BCa and
        percentile, the Wilson interval of the zero share and the interval of the MRR over non-zero
        queries. R = 1,000 (``--legacy-replicates``), 300 at n = 1000 (``--legacy-large-replicates``: each
        replicate there costs 20 times one at n = 50, and every method holds at n = 1000).
    paired
        The latent-difficulty paired model (below): coverage of the true mean difference by
        ``rankviz.stats.compare(..., method=M)`` for M in ``t``, ``bootstrap-t``, ``bca``,
        ``percentile``; two measure shapes x three tie levels x n = 25, 50, 100.
    type1
        The same model under the null (B's own draws identically distributed with A's given the
        difficulty, same tie levels): rejection rate at 0.05 of ``test="randomization"`` (1,000
        sign flips), ``"t"`` and ``"wilcoxon"``.
    holm
        A baseline and 4 systems x 2 measures (RR-like and nDCG-like of the same ranking), all nulls
        true, ``correction="holm"``, randomization test: the family-wise error rate (share of
        replicates with any corrected p < 0.05). One ``compare`` call per replicate (Holm's family is
        the call). R = 1,000 (``--holm-replicates``); systems copy the baseline on the share that gives ~50%
        identical RR-like pairs (``--holm-ties 0.3,0.5,0.7`` adds other tie levels, ~2.5 min each).
    single
        One system, zero-heavy samples (RR-like with 60% and 90% zeros, nDCG-like with 90% zeros),
        n = 25, 50, 100: ``rankviz.stats.bootstrap`` with ``method=`` bca, percentile, bootstrap-t, and
        a two-part interval built here from the result's ``zero_share_interval`` (Wilson) and
        ``nonzero_interval``: mean = (1 - zero share) x non-zero mean, bounds multiplied
        conservatively. Every replicate's user-visible features (n, non-zero queries, covered per
        method) go to ``benchmarks/_data/coverage_samples.json`` to calibrate a "few non-zero
        queries" warning; RESULTS shows the candidate rules "fewer than K non-zero queries".

Latent-difficulty model (what a new user's per-query scores look like)
    Per query a difficulty z ~ N(0, 1); a system's latent score on the query is
    1.5 z + mu + e with e ~ N(0, 1) independent per system and query.
    RR-like: first relevant rank r ~ Geometric(sigmoid(latent)) on 1, 2, ...; RR = 1/r if r <= 10,
    else 0 (zeros are misses). nDCG-like: max(0, (sigmoid(latent) - 0.4) / 0.6), continuous in
    [0, 1] with a point mass at 0 (30% for the baseline). System B copies A's value on a share of the
    queries (chosen so that ~30%, 50% or 70% of the pairs are identical, counting chance equality)
    and otherwise draws its own value with latent effect mu + 0.3 (0 under the null). The true
    mean difference is (1 - copy share) x (m(mu + 0.3) - m(mu)), with m the mean of the shape at
    latent location mu computed by numerical integration over the latent's normal distribution;
    a Monte Carlo of the generator itself (``--truth-draws``, 2,000,000 by default) checks it.

Batching
    Many replicates go into one call: each replicate is its own system with its own query ids
    (the baseline "A" holds every replicate's query ids), and the cells of one n (shapes x tie
    levels) are measure columns of the same table. compare joins each system with the baseline on
    its own query ids and draws its resamples from a stream seeded by the call's seed and those ids,
    so replicates are independent; bootstrap resamples systems with different queries separately.
    A self-check at start asserts that a batched call gives exactly the rows of one call per
    replicate and measure (``--no-check`` skips it). The methods of one batch share one integer
    seed, so they see the same resamples (differences between methods are paired).
Resamples
    2,000 per interval (library default 10,000); 1,000 sign flips for the randomization tests.

Reproducible from ``--seed``: every cell draws from its own stream (seed, part, n), so a cell's
numbers do not depend on which other parts ran; ``--quick`` uses the same streams with fewer
replicates. ``DegenerateDataWarning`` is expected (all-zero samples, ties, BCa fallbacks, few
non-zero queries) and silenced. Results go to ``benchmarks/RESULTS.md`` (between the coverage.py
markers; written only when every part ran), ``benchmarks/_data/coverage.json`` and
``benchmarks/_data/coverage_samples.json`` (``*_quick.json`` with ``--quick``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shlex
import subprocess
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
# This file's name would shadow the `coverage` package for anything that imports it: keep its folder off the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import rankviz
from rankviz import DegenerateDataWarning
from rankviz.stats.intervals import FEW_NONZERO, ZERO_HEAVY

START, END = "<!-- coverage.py:start -->", "<!-- coverage.py:end -->"
LEVEL = 0.95
ALPHA = 0.05
PARTS = ("legacy", "paired", "type1", "holm", "single")
LEGACY_SIZES = (25, 50, 200, 1000)
SIZES = (25, 50, 100)
PAIRED_METHODS = ("t", "bootstrap-t", "bca", "percentile")
TESTS = ("randomization", "t", "wilcoxon")
SINGLE_METHODS = ("bca", "percentile", "bootstrap-t", "two-part")
RULE_KS = tuple(range(3, 16))
UNDER, HOLDS = 0.93, 0.94  # a cell under-covers below UNDER and holds at or above HOLDS (warning-rule calibration)


def cell_rng(seed: int, *keys) -> np.random.Generator:
    """The random stream of one cell: a function of the seed and the cell's keys only."""
    words = [zlib.crc32(str(k).encode("utf-8")) for k in keys]
    return np.random.default_rng(np.random.SeedSequence([int(seed), *words]))


def se_of(p: float, r: int) -> float:
    return math.sqrt(max(p * (1 - p), 1e-12) / max(r, 1))


# ============================================================================= legacy one-sample scenarios


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
LEGACY_METHODS = ("bca", "percentile", "wilson zero share", "MRR over RR > 0 (BCa)")


# ============================================================================= latent-difficulty model

SZ, SE = 1.5, 1.0  # loading of the query difficulty and sd of the system x query noise on the latent scale
SPREAD = math.hypot(SZ, SE)  # sd of one system's latent score
CUTOFF = 10  # RR@10: a first relevant rank beyond 10 is a miss (RR = 0)
TAU = 0.4  # nDCG-like value is 0 where sigmoid(latent) <= TAU
DELTA = 0.3  # latent improvement of B's own draws (0 under the null)
TIE_TARGETS = (0.30, 0.50, 0.70)


def _expit(x):
    from scipy.special import expit

    return expit(x)


def _normal_expectation(f, mu: float, points=()) -> float:
    """E f(L) for L ~ N(mu, SPREAD^2), by adaptive quadrature (absolute error < 1e-10)."""
    from scipy.integrate import quad

    lo, hi = mu - 12 * SPREAD, mu + 12 * SPREAD
    inner = [p for p in points if lo < p < hi]
    value, _ = quad(
        lambda x: f(x) * math.exp(-0.5 * ((x - mu) / SPREAD) ** 2) / (SPREAD * math.sqrt(2 * math.pi)),
        lo,
        hi,
        points=inner or None,
        limit=400,
        epsabs=1e-12,
        epsrel=1e-12,
    )
    return float(value)


@dataclasses.dataclass(frozen=True)
class Shape:
    """A measure shape: how a latent score becomes a per-query value, and its exact moments."""

    name: str
    mu: float  # baseline system's latent location

    def draw(self, latent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.name == "RR-like":
            p = np.clip(_expit(latent), 1e-300, 1.0)
            rank = rng.geometric(p)
            return np.where(rank <= CUTOFF, 1.0 / rank, 0.0)
        return np.maximum(0.0, (_expit(latent) - TAU) / (1 - TAU))

    def mean(self, mu: float) -> float:
        if self.name == "RR-like":

            def rr(x):
                p, q = float(_expit(x)), float(_expit(-x))
                return sum(p * q ** (k - 1) / k for k in range(1, CUTOFF + 1))

            return _normal_expectation(rr, mu)
        logit_tau = math.log(TAU / (1 - TAU))
        return _normal_expectation(lambda x: max(0.0, (float(_expit(x)) - TAU) / (1 - TAU)), mu, points=(logit_tau,))

    def zero_share(self, mu: float) -> float:
        from scipy.special import ndtr

        if self.name == "RR-like":
            return _normal_expectation(lambda x: float(_expit(-x)) ** CUTOFF, mu)
        return float(ndtr((math.log(TAU / (1 - TAU)) - mu) / SPREAD))

    def mu_for_zero_share(self, share: float) -> float:
        from scipy.optimize import brentq
        from scipy.special import ndtri

        if self.name == "RR-like":
            return float(brentq(lambda m: self.zero_share(m) - share, -25.0, 15.0, xtol=1e-12))
        return float(math.log(TAU / (1 - TAU)) - SPREAD * ndtri(share))


RR_LIKE = Shape("RR-like", mu=-1.5)  # about 28% zeros
NDCG_LIKE = Shape("nDCG-like", mu=Shape("nDCG-like", 0.0).mu_for_zero_share(0.30))  # 30% zeros
SHAPES = (RR_LIKE, NDCG_LIKE)


def draw_pairs(shape: Shape, size: int, n: int, delta: float, copy: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) per-query values, shape (size, n): shared difficulty; B copies A w.p. ``copy``, else its own draw."""
    z = rng.standard_normal((size, n))
    a = shape.draw(SZ * z + shape.mu + SE * rng.standard_normal((size, n)), rng)
    own = shape.draw(SZ * z + shape.mu + delta + SE * rng.standard_normal((size, n)), rng)
    return a, np.where(rng.random((size, n)) < copy, a, own)


def calibrate_pair(shape: Shape, target: float, delta: float, draws: int, rng) -> dict:
    """Copy share for ``target`` identical pairs, and the cell's true mean difference (exact, MC-checked)."""
    chunk = 500_000
    equal, done = 0, 0
    while done < draws:
        m = min(chunk, draws - done)
        a, own = draw_pairs(shape, 1, m, delta, 0.0, rng)
        equal += int((a == own).sum())
        done += m
    chance = equal / draws
    copy = max(0.0, (target - chance) / (1 - chance))
    truth = (1 - copy) * (shape.mean(shape.mu + delta) - shape.mean(shape.mu))
    total, total_sq, identical, done = 0.0, 0.0, 0, 0
    while done < draws:  # the generator itself, copying included: its mean difference must match ``truth``
        m = min(chunk, draws - done)
        a, b = draw_pairs(shape, 1, m, delta, copy, rng)
        d = b - a
        total += float(d.sum())
        total_sq += float((d * d).sum())
        identical += int((d == 0).sum())
        done += m
    mc = total / draws
    mc_se = math.sqrt(max(total_sq / draws - mc * mc, 0.0) / draws)
    return {
        "shape": shape.name,
        "target": target,
        "delta": delta,
        "chance_equal": chance,
        "copy": copy,
        "expected_identical": copy + (1 - copy) * chance,
        "mc_identical": identical / draws,
        "truth": truth,
        "truth_mc": mc,
        "truth_mc_se": mc_se,
        "draws": draws,
    }


def cell_key(shape: Shape, target: float) -> str:
    return f"{shape.name} {target:.0%} ties"


# ============================================================================= tables for batched calls

_IDS: dict = {}


def _ids(size: int, n: int):
    """(system names, query ids) of ``size`` replicates of ``n`` queries; each replicate has its own query ids."""
    if (size, n) not in _IDS:
        rep = np.repeat(np.arange(size), n)
        query = np.tile(np.arange(n), size)
        _IDS[(size, n)] = (
            pd.array([f"e{e}" for e in rep], dtype="str"),
            pd.array([f"e{e}_q{q}" for e, q in zip(rep, query)], dtype="str"),
        )
    return _IDS[(size, n)]


def rr_column(i: int) -> str:
    """A column name that reads as a reciprocal rank (rankviz.io.per_query.is_reciprocal_rank), distinct per ``i``.

    The values are given, not computed: ``rel`` and the cutoff only keep the names apart.
    """
    return f"RR(rel={i + 1})@1000000"


def one_sample_table(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """Replicates as systems with their own query ids (so bootstrap resamples each on its own)."""
    size, n = next(iter(columns.values())).shape
    systems, queries = _ids(size, n)
    return pd.DataFrame({"system": systems, "query_id": queries, **{k: v.ravel() for k, v in columns.items()}})


def paired_table(base: dict[str, np.ndarray], other: dict[str, np.ndarray]) -> pd.DataFrame:
    """Baseline "A" holding every replicate's queries, each replicate a system with its own query ids."""
    size, n = next(iter(base.values())).shape
    systems, queries = _ids(size, n)
    a = pd.DataFrame(
        {
            "system": pd.array(["A"] * (size * n), dtype="str"),
            "query_id": queries,
            **{k: v.ravel() for k, v in base.items()},
        }
    )
    b = pd.DataFrame({"system": systems, "query_id": queries, **{k: v.ravel() for k, v in other.items()}})
    return pd.concat([a, b], ignore_index=True)


def by_replicate(frame: pd.DataFrame, measure: str, size: int, column: str) -> np.ndarray:
    """``column`` of ``measure``'s rows of a compare table, ordered by replicate (system "e<i>")."""
    part = frame[frame["measure"] == measure]
    index = part["system"].str.slice(1).astype(int).to_numpy()
    out = np.full(size, np.nan)
    out[index] = part[column].to_numpy(dtype=np.float64)
    if len(part) != size or len(np.unique(index)) != size:
        raise RuntimeError(f"compare returned {len(part)} rows for {measure!r}, expected one per replicate ({size})")
    return out


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return call(*args, **kwargs)


# ============================================================================= self-check of the batching


def self_check(seed: int) -> str:
    """Batched calls must give exactly what one call per replicate (and per measure) gives."""
    rng = cell_rng(seed, "self-check")
    size, n = 6, 25
    base, other = {}, {}
    for shape in SHAPES:
        base[shape.name], other[shape.name] = draw_pairs(shape, size, n, DELTA, 0.5, rng)
    table = paired_table(base, other)
    fields = ["n_queries", "difference", "ci_low", "ci_high", "t_ci_low", "t_ci_high", "p_value", "ties"]
    checked = 0
    for method, test in (("bca", "randomization"), ("bootstrap-t", "t"), ("percentile", "wilcoxon"), ("t", "t")):
        batched = quiet(
            rankviz.stats.compare,
            table,
            baseline="A",
            measures=list(base),
            test=test,
            correction=None,
            n_resamples=400,
            method=method,
            rng=7,
        ).table
        for i in range(size):
            name = f"e{i}"
            ids = set(table.loc[table["system"] == name, "query_id"])
            for measure in base:
                alone = table[table["query_id"].isin(ids)][["system", "query_id", measure]]
                single = quiet(
                    rankviz.stats.compare,
                    alone,
                    baseline="A",
                    measures=measure,
                    test=test,
                    correction=None,
                    n_resamples=400,
                    method=method,
                    rng=7,
                ).table.iloc[0]
                row = batched[(batched["system"] == name) & (batched["measure"] == measure)].iloc[0]
                for f in (f for f in fields if f in row.index):  # t_ci_* only when the interval is not the t
                    if not np.isclose(float(row[f]), float(single[f]), rtol=1e-12, atol=1e-14, equal_nan=True):
                        raise AssertionError(
                            f"compare batching changes {f} of {name}/{measure} ({method}, {test}): "
                            f"{row[f]!r} batched vs {single[f]!r} alone"
                        )
                if int(row["n_queries"]) != n:
                    raise AssertionError(f"compare paired {name} on {row['n_queries']} queries, expected {n}")
                checked += 1
        if method == "t" and "t_ci_low" in batched.columns:  # compare leaves out t_ci_* that would repeat ci_*
            raise AssertionError("compare(method='t') repeats its interval in t_ci columns")
    columns = {rr_column(i): base[shape.name] for i, shape in enumerate(SHAPES)}
    one = one_sample_table(columns)
    for method in ("bca", "percentile", "bootstrap-t"):
        batched = {
            (r.system, r.measure): r
            for r in quiet(rankviz.stats.bootstrap, one, list(columns), method=method, n_resamples=400, rng=11)
        }
        for i in range(size):
            sub = one[one["system"] == f"e{i}"]
            for measure in columns:
                r = quiet(
                    rankviz.stats.bootstrap,
                    sub[["system", "query_id", measure]],
                    measure,
                    method=method,
                    n_resamples=400,
                    rng=11,
                )[f"e{i}", measure]
                b = batched[(f"e{i}", measure)]
                got = [*b.confidence_interval, *b.nonzero_interval, *b.zero_share_interval]
                want = [*r.confidence_interval, *r.nonzero_interval, *r.zero_share_interval]
                if not np.allclose(got, want, rtol=1e-12, atol=1e-14, equal_nan=True):
                    raise AssertionError(
                        f"bootstrap batching changes the intervals of e{i}/{measure} ({method}): {got} vs {want}"
                    )
                checked += 1
    return f"self-check: {checked} batched results equal their one-replicate calls (compare and bootstrap)"


# ============================================================================= parts


def run_legacy(dist: Discrete, n: int, R: int, args, rng) -> dict:
    hits = dict.fromkeys(LEGACY_METHODS, 0)
    defined_nonzero = all_zero = 0
    nonzero = np.zeros(R, dtype=np.int64)
    covered = {"bca": np.zeros(R, dtype=bool), "percentile": np.zeros(R, dtype=bool)}
    for start in range(0, R, args.batch):
        size = min(args.batch, R - start)
        samples = dist.sample(rng, (size, n))
        all_zero += int((samples == 0).all(axis=1).sum())
        nonzero[start : start + size] = (samples > 0).sum(axis=1)
        table = one_sample_table({"RR@10": samples})
        seed = int(rng.integers(2**63))
        for method in ("bca", "percentile"):
            for res in quiet(
                rankviz.stats.bootstrap, table, "RR@10", n_resamples=args.resamples, method=method, rng=seed
            ):
                i = start + int(res.system[1:])
                low, high = res.confidence_interval
                covered[method][i] = low <= dist.mean <= high
                if method == "bca":
                    zl, zh = res.zero_share_interval
                    hits["wilson zero share"] += bool(zl <= dist.zero_share <= zh)
                    nl, nh = res.nonzero_interval
                    defined_nonzero += not (math.isnan(nl) or math.isnan(nh))
                    hits["MRR over RR > 0 (BCa)"] += bool(nl <= dist.nonzero_mean <= nh)
    out = {m: count / R for m, count in hits.items()}
    out["bca"], out["percentile"] = float(covered["bca"].mean()), float(covered["percentile"].mean())
    out["all_zero_samples"] = all_zero / R
    out["nonzero_interval_defined"] = defined_nonzero / R
    out["R"] = R
    samples_out = {
        "n": n,
        "nonzero": nonzero.tolist(),
        "covered": {m: covered[m].astype(int).tolist() for m in covered},
    }
    return out, samples_out


def run_paired(cells: dict, n: int, R: int, args, rng) -> tuple[dict, dict]:
    """Coverage of compare(method=M) for every cell (shape x tie level) at one n; cells are measure columns."""
    keys = list(cells)
    covered = {k: {m: np.zeros(R, dtype=bool) for m in PAIRED_METHODS} for k in keys}
    width = {k: {m: np.zeros(R) for m in PAIRED_METHODS} for k in keys}
    ties = {k: np.zeros(R, dtype=np.int64) for k in keys}
    reject_t = {k: np.zeros(R, dtype=bool) for k in keys}
    for start in range(0, R, args.batch):
        size = min(args.batch, R - start)
        base, other = {}, {}
        for k, cell in cells.items():
            base[k], other[k] = draw_pairs(cell["shape_obj"], size, n, DELTA, cell["copy"], rng)
        table = paired_table(base, other)
        seed = int(rng.integers(2**63))
        sl = slice(start, start + size)
        for method in PAIRED_METHODS:
            res = quiet(
                rankviz.stats.compare,
                table,
                baseline="A",
                measures=keys,
                test="t",
                correction=None,
                n_resamples=args.resamples,
                method=method,
                rng=seed,
            ).table
            for k in keys:
                truth = cells[k]["truth"]
                low, high = by_replicate(res, k, size, "ci_low"), by_replicate(res, k, size, "ci_high")
                covered[k][method][sl] = (low <= truth) & (truth <= high)
                width[k][method][sl] = high - low
                if method == "t":
                    ties[k][sl] = by_replicate(res, k, size, "ties")
                    reject_t[k][sl] = by_replicate(res, k, size, "p_value") < ALPHA
                    measured = (other[k] == base[k]).sum(axis=1)
                    if not np.array_equal(measured, ties[k][sl]):
                        raise RuntimeError(f"compare's ties differ from the generated identical pairs ({k}, n = {n})")
    out, samples = {}, {}
    for k in keys:
        out[k] = {
            "R": R,
            "n": n,
            "truth": cells[k]["truth"],
            "identical_share": float(ties[k].mean() / n),
            "coverage": {m: float(covered[k][m].mean()) for m in PAIRED_METHODS},
            "mean_width": {m: float(np.nanmean(width[k][m])) for m in PAIRED_METHODS},
            "t_test_power": float(reject_t[k].mean()),
        }
        samples[k] = {
            "n": n,
            "truth": cells[k]["truth"],
            "ties": ties[k].tolist(),
            "covered": {m: covered[k][m].astype(int).tolist() for m in PAIRED_METHODS},
        }
    return out, samples


def run_paired_t(cells: dict, n: int, R: int, args, rng) -> dict:
    """Coverage of the reported interval (compare's default, the paired t-interval) with many more replicates.

    The t-interval needs no resamples, so it can afford R large enough (20,000: Monte Carlo SE about 0.0015)
    to tell a cell at 0.94 from one at 0.95; its own stream, so the 2,000-replicate comparison of the four
    methods above is unchanged.
    """
    keys = list(cells)
    covered = {k: np.zeros(R, dtype=bool) for k in keys}
    ties = {k: np.zeros(R, dtype=np.int64) for k in keys}
    for start in range(0, R, args.t_batch):
        size = min(args.t_batch, R - start)
        base, other = {}, {}
        for k, cell in cells.items():
            base[k], other[k] = draw_pairs(cell["shape_obj"], size, n, DELTA, cell["copy"], rng)
        res = quiet(
            rankviz.stats.compare,
            paired_table(base, other),
            baseline="A",
            measures=keys,
            test="t",
            correction=None,
            n_resamples=40,
            method="t",
            rng=int(rng.integers(2**63)),
        ).table
        sl = slice(start, start + size)
        for k in keys:
            truth = cells[k]["truth"]
            low, high = by_replicate(res, k, size, "ci_low"), by_replicate(res, k, size, "ci_high")
            covered[k][sl] = (low <= truth) & (truth <= high)
            ties[k][sl] = by_replicate(res, k, size, "ties")
    return {
        k: {"R": R, "n": n, "coverage": float(covered[k].mean()), "identical_share": float(ties[k].mean() / n)}
        for k in keys
    }


def exact_test_ceiling(nonzero: np.ndarray, alpha: float = ALPHA) -> float:
    """The largest type I error any exact two-sided sign-flip test can have, averaged over samples.

    Under the null, given the k non-zero differences' sizes, the 2^k sign patterns are equally likely and a
    two-sided test treats a pattern and its mirror alike: it can reject at most floor(alpha 2^(k-1)) of the
    2^(k-1) mirror pairs. With k = 5 that is none (1/16 > 0.05); k = 6 gives 1/32. Tied sizes lower it further.
    """
    out = []
    for k in nonzero.tolist():
        if k <= 0:
            out.append(0.0)
        elif k - 1 >= 50:
            out.append(alpha)
        else:
            pairs = 2 ** (k - 1)
            out.append(math.floor(alpha * pairs + 1e-9) / pairs)
    return float(np.mean(out))


def run_type1(cells: dict, n: int, R: int, args, rng) -> dict:
    keys = list(cells)
    reject = {k: {t: np.zeros(R, dtype=bool) for t in TESTS} for k in keys}
    ties = {k: np.zeros(R, dtype=np.int64) for k in keys}
    for start in range(0, R, args.batch):
        size = min(args.batch, R - start)
        base, other = {}, {}
        for k, cell in cells.items():
            base[k], other[k] = draw_pairs(cell["shape_obj"], size, n, 0.0, cell["copy"], rng)
        table = paired_table(base, other)
        seed = int(rng.integers(2**63))
        sl = slice(start, start + size)
        for test in TESTS:
            # The interval is not used here: the t and Wilcoxon calls ask for the fewest resamples allowed.
            resamples = args.flips if test == "randomization" else 40
            res = quiet(
                rankviz.stats.compare,
                table,
                baseline="A",
                measures=keys,
                test=test,
                correction=None,
                n_resamples=resamples,
                method="t",
                rng=seed,
            ).table
            for k in keys:
                p = by_replicate(res, k, size, "p_value")
                reject[k][test][sl] = p < ALPHA  # NaN (t-test on constant differences) does not reject
                if test == "t":
                    ties[k][sl] = by_replicate(res, k, size, "ties")
    return {
        k: {
            "R": R,
            "n": n,
            "identical_share": float(ties[k].mean() / n),
            "rejection": {t: float(reject[k][t].mean()) for t in TESTS},
            "exact_ceiling": exact_test_ceiling(n - ties[k]),
        }
        for k in keys
    }


def run_holm(copy: float, n: int, R: int, args, rng) -> dict:
    """FWER of Holm over 4 systems x 2 measures against a baseline, all nulls true; one call per replicate."""
    systems = ["A", "S1", "S2", "S3", "S4"]
    k = len(systems)
    sys_col = pd.array(np.repeat(systems, n).tolist(), dtype="str")
    query_col = pd.array([f"q{j}" for j in range(n)] * k, dtype="str")
    shift = NDCG_LIKE.mu - RR_LIKE.mu  # both measures read the same ranking (latent), each at its own location
    any_corrected = any_raw = raw_rejections = 0
    ties = {"RR-like": 0, "nDCG-like": 0}
    for _ in range(R):
        z = rng.standard_normal(n)
        latent = SZ * z + RR_LIKE.mu + SE * rng.standard_normal((k, n))
        rr = RR_LIKE.draw(latent, rng)
        nd = NDCG_LIKE.draw(latent + shift, rng)
        copied = rng.random((k, n)) < copy
        copied[0] = False
        rr = np.where(copied, rr[0], rr)
        nd = np.where(copied, nd[0], nd)
        ties["RR-like"] += int((rr[1:] == rr[0]).sum())
        ties["nDCG-like"] += int((nd[1:] == nd[0]).sum())
        table = pd.DataFrame({"system": sys_col, "query_id": query_col, "RR-like": rr.ravel(), "nDCG-like": nd.ravel()})
        res = quiet(
            rankviz.stats.compare,
            table,
            baseline="A",
            measures=["RR-like", "nDCG-like"],
            test="randomization",
            correction="holm",
            n_resamples=args.flips,
            method="t",
            rng=int(rng.integers(2**63)),
        ).table
        if len(res) != 8:
            raise RuntimeError(f"compare returned {len(res)} comparisons, expected 8")
        any_corrected += bool((res["p_corrected"] < ALPHA).any())
        raw = res["p_value"] < ALPHA
        any_raw += bool(raw.any())
        raw_rejections += int(raw.sum())
    return {
        "R": R,
        "n": n,
        "copy": copy,
        "fwer_holm": any_corrected / R,
        "fwer_uncorrected": any_raw / R,
        "per_comparison": raw_rejections / (8 * R),
        "identical_share": {m: v / (4 * n * R) for m, v in ties.items()},
    }


def run_single(cells: dict, n: int, R: int, args, rng) -> tuple[dict, dict]:
    """bootstrap(method=M) coverage of one system's mean, plus the two-part interval, for every cell at one n."""
    keys = list(cells)
    # bootstrap reports the zero share (Wilson) and the non-zero mean only for columns that are reciprocal ranks: the
    # columns get distinct RR names so that it does for the nDCG-like cell too (the main interval ignores the name).
    column = {k: rr_column(i) for i, k in enumerate(keys)}
    of_column = {v: k for k, v in column.items()}
    covered = {k: {m: np.zeros(R, dtype=bool) for m in SINGLE_METHODS} for k in keys}
    nonzero = {k: np.zeros(R, dtype=np.int64) for k in keys}
    for start in range(0, R, args.batch):
        size = min(args.batch, R - start)
        values = {}
        for k, cell in cells.items():
            shape = cell["shape_obj"]
            z = rng.standard_normal((size, n))
            values[column[k]] = shape.draw(SZ * z + cell["mu"] + SE * rng.standard_normal((size, n)), rng)
            nonzero[k][start : start + size] = (values[column[k]] > 0).sum(axis=1)
        table = one_sample_table(values)
        seed = int(rng.integers(2**63))
        for method in ("bca", "percentile", "bootstrap-t"):
            res = quiet(
                rankviz.stats.bootstrap, table, list(values), n_resamples=args.resamples, method=method, rng=seed
            )
            for r in res:
                k = of_column[r.measure]
                i = start + int(r.system[1:])
                truth = cells[k]["truth"]
                low, high = r.confidence_interval
                covered[k][method][i] = low <= truth <= high
                if method == "bca":
                    if r.zero_share_interval is None or r.nonzero_interval is None:
                        raise RuntimeError(
                            f"bootstrap no longer reports zero_share_interval/nonzero_interval for {r.measure!r}"
                        )
                    zl, zh = r.zero_share_interval
                    nl, nh = r.nonzero_interval
                    # mean = (1 - zero share) x non-zero mean; undefined non-zero interval (all zeros) -> not covered
                    covered[k]["two-part"][i] = (1 - zh) * nl <= truth <= (1 - zl) * nh
    out, samples = {}, {}
    for k in keys:
        out[k] = {
            "R": R,
            "n": n,
            "truth": cells[k]["truth"],
            "zero_share": cells[k]["zero_share"],
            "mean_nonzero": float(nonzero[k].mean()),
            "all_zero": float((nonzero[k] == 0).mean()),
            "coverage": {m: float(covered[k][m].mean()) for m in SINGLE_METHODS},
        }
        samples[k] = {
            "n": n,
            "truth": cells[k]["truth"],
            "zero_share": cells[k]["zero_share"],
            "nonzero": nonzero[k].tolist(),
            "covered": {m: covered[k][m].astype(int).tolist() for m in SINGLE_METHODS},
        }
    return out, samples


# ============================================================================= report helpers


def cov_cell(p: float, r: int) -> str:
    se = se_of(p, r)
    flag = " **short**" if p < LEVEL - 2 * se - 0.005 else ""
    return f"{p:.3f} ± {se:.3f}{flag}"


def rate_cell(p: float, r: int, nominal: float = ALPHA) -> str:
    se = se_of(p, r)
    flag = " **high**" if p > nominal + 2 * se + 0.005 else ""
    return f"{p:.3f} ± {se:.3f}{flag}"


def wilson_exact(n: int, p: float) -> float:
    """The Wilson interval's exact coverage of a true share p at n: a sum over the binomial outcomes."""
    from scipy.stats import binom

    total = 0.0
    for x in range(n + 1):
        ci = rankviz.stats.wilson_interval(x, n, LEVEL)
        if ci.low <= p <= ci.high:
            total += float(binom.pmf(x, n, p))
    return total


def _version() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE.parent, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "rankviz"],
            cwd=HERE.parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        changed = [line[3:] for line in dirty.splitlines() if line.strip()]
        return f"commit {head}" + (f" with uncommitted changes in {', '.join(changed)}" if changed else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"


def render_legacy(res: dict) -> list[str]:
    lines = ["### One-sample reciprocal-rank scenarios (known discrete distributions)", ""]
    counts = ", ".join(f"{res['15% zeros'][str(n)]['R']:,} at n = {n}" for n in LEGACY_SIZES)
    lines.append(
        f"Samples per cell: {counts}. For the Wilson interval the exact coverage (a sum over the binomial distribution) "
        "is shown too: it oscillates with n and p, a property of every binomial interval. The MRR over non-zero "
        "queries is undefined on all-zero samples, which count as not covered."
    )
    lines += [""]
    for name, dist in SCENARIOS.items():
        lines.append(
            f"- {name}: mean {dist.mean:.4f}, share of zeros {dist.zero_share:.2f}, MRR over RR > 0 {dist.nonzero_mean:.4f}."
        )
    lines += [
        "",
        "| scenario | method | " + " | ".join(f"n = {n}" for n in LEGACY_SIZES) + " |",
        "|---|---|" + "---|" * len(LEGACY_SIZES),
    ]
    for name, dist in SCENARIOS.items():
        for method in LEGACY_METHODS:
            cells = [cov_cell(res[name][str(n)][method], res[name][str(n)]["R"]) for n in LEGACY_SIZES]
            if method == "wilson zero share":
                cells = [f"{c} (exact {wilson_exact(n, dist.zero_share):.3f})" for c, n in zip(cells, LEGACY_SIZES)]
            lines.append(f"| {name} | {method} | " + " | ".join(cells) + " |")
    zero = res["90% zeros"]
    lines += [
        "",
        "At 90% zeros the share of all-zero samples is "
        + ", ".join(f"{zero[str(n)]['all_zero_samples']:.3f} (n = {n})" for n in LEGACY_SIZES)
        + "; the non-zero MRR interval was defined on "
        + ", ".join(f"{zero[str(n)]['nonzero_interval_defined']:.1%}" for n in LEGACY_SIZES)
        + " of the samples.",
    ]
    return lines


def render_model(model: dict, draws: int) -> list[str]:
    lines = ["### The latent-difficulty model", ""]
    lines.append(
        f"Per query a difficulty z ~ N(0, 1); a system's latent score is {SZ} z + mu + e, e ~ N(0, 1) per system "
        f"and query. **RR-like**: first relevant rank ~ Geometric(sigmoid(latent)), RR = 1/rank if rank <= {CUTOFF} "
        f"else 0; baseline mu = {RR_LIKE.mu:.3f} (zero share {RR_LIKE.zero_share(RR_LIKE.mu):.3f}, mean "
        f"{RR_LIKE.mean(RR_LIKE.mu):.4f}). **nDCG-like**: max(0, (sigmoid(latent) - {TAU}) / {1 - TAU:.1f}); baseline "
        f"mu = {NDCG_LIKE.mu:.3f} (zero share {NDCG_LIKE.zero_share(NDCG_LIKE.mu):.3f}, mean "
        f"{NDCG_LIKE.mean(NDCG_LIKE.mu):.4f}). System B copies A's value on a share of the queries and otherwise "
        f"draws its own with latent effect mu + {DELTA} (mu under the null). True values by numerical integration; "
        f"the Monte Carlo check runs the generator itself ({draws:,} draws per cell)."
    )
    lines += [
        "",
        "| cell | copy share | chance-identical own draws | identical pairs (expected) | true mean difference | Monte Carlo check | null copy share |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, cell in model["paired"].items():
        null = model["null"][key]
        lines.append(
            f"| {key} | {cell['copy']:.3f} | {cell['chance_equal']:.3f} | {cell['expected_identical']:.3f} | "
            f"{cell['truth']:.5f} | {cell['truth_mc']:.5f} ± {cell['truth_mc_se']:.5f} | {null['copy']:.3f} |"
        )
    return lines


def render_paired(res: dict, R: int, resamples: int) -> list[str]:
    lines = ["### Paired mean difference: coverage of `compare(..., method=M)`", ""]
    lines.append(
        f'{R:,} replicates per cell, {resamples:,} bootstrap resamples; `test="t"`, `correction=None`. All four methods '
        'see the same samples and (for the bootstrap ones) the same resamples. "identical" is the realised share of '
        "queries with equal scores (compare's `ties`)."
    )
    big = next(iter(next(iter(res.values())).values())).get("t_large")
    if big:
        lines.append(
            f"**t, {big['R']:,} replicates** is the interval `compare()` reports by default, measured again on "
            f"{big['R']:,} fresh samples per cell (Monte Carlo SE about {se_of(0.95, big['R']):.4f}): the column to judge "
            "it by. The other columns compare the four methods on the same 2,000 samples."
        )
    big_head = f" t, {big['R']:,} replicates |" if big else ""
    lines += [
        "",
        f"| shape | tie level | n | identical | true diff |{big_head} t | bootstrap-t | bca | percentile |",
        "|---|---|---|---|---|" + ("---|" if big else "") + "---|---|---|---|",
    ]
    for key, per_n in res.items():
        shape, tie = key.split(" ", 1)
        for n in SIZES:
            c = per_n[str(n)]
            extra = f" {cov_cell(c['t_large']['coverage'], c['t_large']['R'])} |" if big else ""
            lines.append(
                f"| {shape} | {tie.replace(' ties', '')} | {n} | {c['identical_share']:.3f} | {c['truth']:.4f} |{extra} "
                + " | ".join(cov_cell(c["coverage"][m], c["R"]) for m in PAIRED_METHODS)
                + " |"
            )
    lines += [
        "",
        "Summary over the cells above (width relative to the t-interval's width in the same cell, averaged over cells):",
        "",
        "| method | worst cell | mean coverage | mean at n = 25 / 50 / 100 | cells < 0.93 | cells **short** | mean width / t width |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in PAIRED_METHODS:
        cells = [(key, n, per_n[str(n)]) for key, per_n in res.items() for n in SIZES]
        covs = [c["coverage"][m] for _, _, c in cells]
        worst = min(range(len(cells)), key=lambda i: covs[i])
        short = sum(c["coverage"][m] < LEVEL - 2 * se_of(c["coverage"][m], c["R"]) - 0.005 for _, _, c in cells)
        by_n = " / ".join(f"{np.mean([c['coverage'][m] for _, n2, c in cells if n2 == n]):.3f}" for n in SIZES)
        ratio = np.mean([c["mean_width"][m] / c["mean_width"]["t"] for _, _, c in cells])
        lines.append(
            f"| {m} | {covs[worst]:.3f} ({cells[worst][0]}, n = {cells[worst][1]}) | {np.mean(covs):.3f} | {by_n} | "
            f"{sum(v < UNDER for v in covs)} | {short} | {ratio:.3f} |"
        )
    if big:
        cells = [(key, n, per_n[str(n)]["t_large"]) for key, per_n in res.items() for n in SIZES]
        covs = [c["coverage"] for _, _, c in cells]
        worst = min(range(len(cells)), key=lambda i: covs[i])
        best = max(range(len(cells)), key=lambda i: covs[i])
        by_n = " / ".join(f"{np.mean([c['coverage'] for _, n2, c in cells if n2 == n]):.3f}" for n in SIZES)
        short = sum(c["coverage"] < LEVEL - 2 * se_of(c["coverage"], c["R"]) - 0.005 for _, _, c in cells)
        inside = sum(0.94 <= v <= 0.96 for v in covs)
        lines.append(
            f"| t, {big['R']:,} replicates | {covs[worst]:.3f} ({cells[worst][0]}, n = {cells[worst][1]}) | "
            f"{np.mean(covs):.3f} | {by_n} | {sum(v < UNDER for v in covs)} | {short} | – |"
        )
        lines += [
            "",
            f"The reported interval (t, {big['R']:,} replicates) is within 0.94-0.96 in {inside} of {len(covs)} "
            f"cells; lowest {covs[worst]:.4f} ({cells[worst][0]}, n = {cells[worst][1]}), highest {covs[best]:.4f} "
            f"({cells[best][0]}, n = {cells[best][1]}).",
        ]
    lines += [
        "",
        "Power of the paired t-test (p < 0.05) in the same cells: "
        + "; ".join(
            f"{key}: " + " / ".join(f"{per_n[str(n)]['t_test_power']:.2f}" for n in SIZES) for key, per_n in res.items()
        )
        + " (n = 25 / 50 / 100).",
    ]
    return lines


def render_type1(res: dict, R: int, flips: int) -> list[str]:
    lines = ["### Type I error of the paired tests (null true, alpha = 0.05)", ""]
    lines.append(
        f"{R:,} replicates per cell; randomization with {flips:,} sign flips; `correction=None`. **high** marks a "
        "rate more than two standard errors (and half a point) above 0.05. **ceiling**: the largest type I error "
        "any exact two-sided sign-flip test can have on these samples (given k non-zero differences, at most "
        "floor(0.05 x 2^(k-1)) of the 2^(k-1) mirror-image sign patterns can be rejected: none at k <= 5), "
        "averaged over the replicates. Where it is below 0.05 an exact test is conservative by necessity."
    )
    lines += [
        "",
        "| shape | tie level | n | identical | ceiling | randomization | t | wilcoxon |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, per_n in res.items():
        shape, tie = key.split(" ", 1)
        for n in SIZES:
            c = per_n[str(n)]
            ceiling = f"{c['exact_ceiling']:.3f}" if "exact_ceiling" in c else "–"
            lines.append(
                f"| {shape} | {tie.replace(' ties', '')} | {n} | {c['identical_share']:.3f} | {ceiling} | "
                + " | ".join(rate_cell(c["rejection"][t], c["R"]) for t in TESTS)
                + " |"
            )
    return lines


def render_holm(res: dict, R: int, flips: int) -> list[str]:
    lines = ["### Holm's family-wise error (4 systems x 2 measures vs a baseline, all nulls true)", ""]
    lines.append(
        f'{R:,} replicates per cell, one `compare(test="randomization", correction="holm", n_resamples={flips})` call '
        "each (8 comparisons). Each system copies the baseline's ranking (both measures) on a share of the queries "
        "and otherwise draws its own from the baseline's distribution; RR-like and nDCG-like read the same latent "
        "score. FWER = share of replicates with any corrected p < 0.05; uncorrected for reference."
    )
    lines += [
        "",
        "| copy share (RR tie level) | n | identical RR / nDCG | FWER Holm | any uncorrected p < 0.05 | per-comparison rate |",
        "|---|---|---|---|---|---|",
    ]
    for key, per_n in res.items():
        for n in SIZES:
            c = per_n[str(n)]
            ident = c["identical_share"]
            lines.append(
                f"| {c['copy']:.3f} ({key}) | {n} | {ident['RR-like']:.2f} / {ident['nDCG-like']:.2f} | "
                f"{rate_cell(c['fwer_holm'], c['R'])} | {c['fwer_uncorrected']:.3f} | {c['per_comparison']:.4f} |"
            )
    return lines


def render_single(res: dict, R: int) -> list[str]:
    lines = [
        "### One system, zero-heavy samples: coverage of `bootstrap(..., method=M)` and of a two-part interval",
        "",
    ]
    lines.append(
        f"{R:,} replicates per cell. two-part = [(1 - Wilson upper of the zero share) x non-zero lower, (1 - Wilson "
        "lower) x non-zero upper], from the BCa call's `zero_share_interval` and `nonzero_interval`; all-zero samples "
        "(non-zero interval undefined) count as not covered by it."
    )
    lines += [
        "",
        "| cell | n | true mean | mean non-zero queries | all-zero samples | bca | percentile | bootstrap-t | two-part |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, per_n in res.items():
        for n in SIZES:
            c = per_n[str(n)]
            lines.append(
                f"| {key} | {n} | {c['truth']:.4f} | {c['mean_nonzero']:.1f} | {c['all_zero']:.3f} | "
                + " | ".join(cov_cell(c["coverage"][m], c["R"]) for m in SINGLE_METHODS)
                + " |"
            )
    return lines


def rule_cells(single_samples: dict, legacy_samples: dict | None) -> list[dict]:
    """Every calibration cell: name, n, non-zero counts, covered per method; the single-system cells first."""
    cells = []
    for key, per_n in single_samples.items():
        for n, s in per_n.items():
            cells.append(
                {
                    "name": key,
                    "n": int(n),
                    "nonzero": np.array(s["nonzero"]),
                    "zero_share": s["zero_share"],
                    "covered": {m: np.array(v, dtype=bool) for m, v in s["covered"].items()},
                    "legacy": False,
                }
            )
    for key, per_n in (legacy_samples or {}).items():
        for n, s in per_n.items():
            cells.append(
                {
                    "name": f"legacy {key}",
                    "n": int(n),
                    "nonzero": np.array(s["nonzero"]),
                    "zero_share": SCENARIOS[key].zero_share,
                    "covered": {m: np.array(v, dtype=bool) for m, v in s["covered"].items()},
                    "legacy": True,
                }
            )
    return cells


def note_fires(nonzero, n: int):
    """rankviz's single-system note (rankviz.stats): fewer than FEW_NONZERO non-zero queries and >= ZERO_HEAVY zeros."""
    nonzero = np.asarray(nonzero)
    return (nonzero < FEW_NONZERO) & (n - nonzero >= ZERO_HEAVY * n)


def note_exact(n: int, zero_share: float) -> float:
    """The note's exact firing probability in a cell: the number of non-zero queries is Binomial(n, 1 - zero share)."""
    from scipy.stats import binom

    k = np.arange(n + 1)
    return float(binom.pmf(k, n, 1 - zero_share)[note_fires(k, n)].sum())


def rule_verdict(cells: list[dict], method: str) -> dict:
    """For each K: lowest firing share over under-covering cells, highest over holding cells; which K work."""
    rows = []
    for K in RULE_KS:
        under = [float((c["nonzero"] < K).mean()) for c in cells if c["covered"][method].mean() < UNDER]
        holds = [float((c["nonzero"] < K).mean()) for c in cells if c["covered"][method].mean() >= HOLDS]
        low = min(under) if under else math.nan
        high = max(holds) if holds else math.nan
        works = (not under or low >= 0.9) and (not holds or high <= 0.1)
        rows.append(
            {
                "K": K,
                "min_under": low,
                "max_holds": high,
                "works": works,
                "margin": (low if under else 1.0) - (high if holds else 0.0),
            }
        )
    n_under = sum(c["covered"][method].mean() < UNDER for c in cells)
    n_holds = sum(c["covered"][method].mean() >= HOLDS for c in cells)
    best = max(rows, key=lambda r: (r["works"], r["margin"]))
    return {"rows": rows, "n_under": n_under, "n_holds": n_holds, "best": best}


def _fmt_share(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.2f}"


def render_rules(single_samples: dict, legacy_samples: dict | None) -> list[str]:
    cells = rule_cells(single_samples, legacy_samples)
    lines = ['### Calibrating a "fewer than K non-zero queries" warning', ""]
    lines.append(
        f"A rule fires on a sample with fewer than K non-zero queries (all-zero samples included). Cells are classed by "
        f"the BCa coverage (the default): **under** < {UNDER}, **holds** >= {HOLDS}, in between unclassed. Each entry is "
        f"the share of that cell's samples the rule fires on. A K works if it fires on >= 90% of the samples of every "
        f"under-covering cell and on <= 10% of the samples of every holding cell. Per-replicate data: "
        "`benchmarks/_data/coverage_samples.json`."
    )
    lines += [
        "",
        (
            f"**note**: rankviz's rule (`rankviz.stats`: fewer than {FEW_NONZERO} non-zero queries and at least "
            f"{ZERO_HEAVY:.0%} zeros), as simulated / exactly: the number of non-zero queries in a cell is "
            "Binomial(n, 1 - zero share), so the rule's firing probability is a binomial sum with no Monte Carlo "
            "error."
        ),
    ]
    header = "| cell | n | bca coverage | class | note | " + " | ".join(f"K={K}" for K in RULE_KS) + " |"
    lines += ["", header, "|---|---|---|---|---|" + "---|" * len(RULE_KS)]
    for c in cells:
        cov = float(c["covered"]["bca"].mean())
        cls = "**under**" if cov < UNDER else "holds" if cov >= HOLDS else "–"
        note = f"{note_fires(c['nonzero'], c['n']).mean():.3f} / {note_exact(c['n'], c['zero_share']):.3f}"
        lines.append(
            f"| {c['name']} | {c['n']} | {cov:.3f} | {cls} | {note} | "
            + " | ".join(f"{(c['nonzero'] < K).mean():.2f}" for K in RULE_KS)
            + " |"
        )
    under = [c for c in cells if c["covered"]["bca"].mean() < UNDER]
    holds = [c for c in cells if c["covered"]["bca"].mean() >= HOLDS]
    low = min(note_exact(c["n"], c["zero_share"]) for c in under) if under else math.nan
    high = max(note_exact(c["n"], c["zero_share"]) for c in holds) if holds else math.nan
    worst_hold = max(holds, key=lambda c: note_exact(c["n"], c["zero_share"])) if holds else None
    lines += [
        "",
        (
            f"rankviz's note over all {len(cells)} cells (single-system and legacy; classed by BCa coverage): it fires "
            f"with probability at least {low:.3f} in every under-covering cell ({len(under)}) and at most {high:.3f} in "
            f"every holding cell ({len(holds)}"
            + (f"; the highest is {worst_hold['name']} n = {worst_hold['n']}" if worst_hold else "")
            + "): "
            + (
                "**meets** the >= 0.90 / <= 0.10 calibration."
                if low >= 0.9 and high <= 0.1
                else "**misses** the >= 0.90 / <= 0.10 calibration."
            )
        ),
    ]
    single = [c for c in cells if not c["legacy"]]
    verdicts = {m: rule_verdict(single, m) for m in SINGLE_METHODS}
    lines += [
        "",
        (
            "Verdict over the single-system cells, each method's cells classed by that method's coverage. Entry: "
            "lowest firing share over the under-covering cells / highest over the holding cells; **works** where "
            ">= 0.90 / <= 0.10."
        ),
        "",
        "| K | " + " | ".join(f"{m} ({v['n_under']} under, {v['n_holds']} hold)" for m, v in verdicts.items()) + " |",
        "|---|" + "---|" * len(verdicts),
    ]
    for i, K in enumerate(RULE_KS):
        row = []
        for v in verdicts.values():
            r = v["rows"][i]
            row.append(
                f"{_fmt_share(r['min_under'])} / {_fmt_share(r['max_holds'])}" + (" **works**" if r["works"] else "")
            )
        lines.append(f"| {K} | " + " | ".join(row) + " |")
    lines.append("")
    for m, v in verdicts.items():
        good = [r["K"] for r in v["rows"] if r["works"]]
        b = v["best"]
        if good:
            K = good[0]
            cov = {id(c): float(c["covered"][m].mean()) for c in single}
            loose = [c for c in single if UNDER <= cov[id(c)] < HOLDS]
            also = "; ".join(
                f"{c['name']} n = {c['n']} ({cov[id(c)]:.3f}): {(c['nonzero'] < K).mean():.2f}" for c in loose
            )
            lines.append(
                f"- {m}: K = {', '.join(map(str, good))} works, judged on {v['n_under']} under-covering and "
                f"{v['n_holds']} holding cells"
                + (f"; at K = {K} it also fires on the unclassed cells {also}" if loose else "")
                + "."
            )
        else:
            lines.append(
                f"- {m}: no single K works; the best is K = {b['K']} (largest margin): it fires on at least "
                f"{_fmt_share(b['min_under'])} of the samples of every under-covering cell and on at most "
                f"{_fmt_share(b['max_holds'])} of those of every holding cell."
            )
    if any(c["legacy"] for c in cells):
        v = rule_verdict(cells, "bca")
        b = v["best"]
        good = [r["K"] for r in v["rows"] if r["works"]]
        lines.append(
            f"- bca over the single-system and legacy cells together ({v['n_under']} under, {v['n_holds']} hold; the "
            "legacy cells have fewer replicates, so one near 0.93 can be classed by chance): "
            + (
                f"K = {', '.join(map(str, good))} works."
                if good
                else f"no single K works; best K = {b['K']} ({_fmt_share(b['min_under'])} / {_fmt_share(b['max_holds'])})."
            )
        )
    # Coverage given the number of non-zero queries, pooled over the single-system cells.
    edges = [
        (0, 0),
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 5),
        (6, 6),
        (7, 7),
        (8, 8),
        (9, 9),
        (10, 11),
        (12, 14),
        (15, 19),
        (20, 29),
        (30, 49),
        (50, 10**9),
    ]
    lines += [
        "",
        (
            "BCa and two-part coverage given the number of non-zero queries k, pooled over the single-system cells "
            "(coverage (samples)):"
        ),
        "",
        "| k | " + " | ".join(f"bca n = {n}" for n in SIZES) + " | bca all | two-part all |",
        "|---|" + "---|" * (len(SIZES) + 2),
    ]
    lines += [
        "",
        (
            "Pooled over this benchmark's cells, so these shares depend on their mix. Within one cell a k far from "
            "the expected count goes with a zero share, hence a mean, far from the truth: coverage falls at both "
            "ends of each cell's range of k (at n = 100, k = 15-19 is the upper tail of the 90%-zero cells and k "
            "<= 29 or >= 50 the tails of the 60%-zero cell). Per-cell data are in the JSON."
        ),
    ]
    for lo, hi in edges:
        label = str(lo) if lo == hi else (f"{lo}-{hi}" if hi < 10**9 else f">= {lo}")
        parts = []
        for n in [*SIZES, None]:
            pool = [c for c in single if n is None or c["n"] == n]
            mask = [((c["nonzero"] >= lo) & (c["nonzero"] <= hi)) for c in pool]
            count = int(sum(m.sum() for m in mask))
            hit = sum(int(c["covered"]["bca"][m].sum()) for c, m in zip(pool, mask))
            parts.append(f"{hit / count:.3f} ({count})" if count else "–")
        pool_mask = [((c["nonzero"] >= lo) & (c["nonzero"] <= hi)) for c in single]
        count = int(sum(m.sum() for m in pool_mask))
        hit = sum(int(c["covered"]["two-part"][m].sum()) for c, m in zip(single, pool_mask))
        parts.append(f"{hit / count:.3f} ({count})" if count else "–")
        if any(p != "–" for p in parts):
            lines.append(f"| {label} | " + " | ".join(parts) + " |")
    return lines


def render(results: dict, samples: dict, args, elapsed: float, command: str, generated: str) -> str:
    lines = [START, "", "## Coverage and error rates of the interval methods and tests (`benchmarks/coverage.py`)", ""]
    lines.append(
        f"Generated {generated} by `{command}` in **{elapsed / 60:.1f} min** wall time "
        f"(rankviz {results['meta']['version']}): {args.replicates:,} replicates per cell for the paired, type I and "
        f"single-system parts, {args.holm_replicates:,} for Holm, {args.legacy_replicates:,} for the one-sample "
        f"scenarios ({args.legacy_large_replicates:,} at n = 1000); {args.resamples:,} bootstrap resamples per interval (the library default is 10,000), "
        f"{args.flips:,} sign flips per randomization test; nominal level {LEVEL:.0%}; seed {args.seed}. Each cell is "
        "the observed coverage (or rejection rate) ± its Monte Carlo standard error sqrt(p (1 - p) / R); **short** "
        "marks coverage more than two standard errors (and half a point) below 95%. With this many cells, a few such "
        "marks are expected by chance alone."
    )
    lines += ["", results["meta"]["self_check"], ""]
    lines += render_model(results["model"], args.truth_draws) + [""]
    lines += render_paired(results["paired"], args.replicates, args.resamples) + [""]
    lines += render_type1(results["type1"], args.replicates, args.flips) + [""]
    lines += render_holm(results["holm"], args.holm_replicates, args.flips) + [""]
    lines += render_single(results["single"], args.replicates) + [""]
    lines += render_rules(samples["single"], samples.get("legacy")) + [""]
    lines += render_legacy(results["legacy"]) + ["", END]
    return "\n".join(lines)


def write_results(section: str) -> None:
    path = HERE / "RESULTS.md"
    header = (
        "# rankviz benchmarks\n\nRegenerate with `make bench` (`benchmarks/run.py`) and `benchmarks/coverage.py`.\n"
    )
    text = path.read_text() if path.exists() else header
    if START in text and END in text:
        before, rest = text.split(START, 1)
        text = before + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    path.write_text(text)


# ============================================================================= main


def build_model(args) -> dict:
    model = {"paired": {}, "null": {}, "single": {}}
    for shape in SHAPES:
        for target in TIE_TARGETS:
            key = cell_key(shape, target)
            model["paired"][key] = calibrate_pair(
                shape, target, DELTA, args.truth_draws, cell_rng(args.seed, "truth", key)
            )
            model["null"][key] = calibrate_pair(shape, target, 0.0, args.truth_draws, cell_rng(args.seed, "null", key))
    for shape, share in ((RR_LIKE, 0.6), (RR_LIKE, 0.9), (NDCG_LIKE, 0.9)):
        mu = shape.mu_for_zero_share(share)
        model["single"][f"{shape.name} {share:.0%} zeros"] = {
            "shape": shape.name,
            "mu": mu,
            "zero_share": shape.zero_share(mu),
            "truth": shape.mean(mu),
        }
    return model


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="300 replicates per cell everywhere")
    parser.add_argument(
        "--replicates", type=int, default=None, help="replicates per cell: paired, type1, single (2000)"
    )
    parser.add_argument("--holm-replicates", type=int, default=None, help="replicates per Holm cell (1000)")
    parser.add_argument(
        "--legacy-replicates", type=int, default=None, help="replicates per one-sample scenario cell (1000)"
    )
    parser.add_argument("--legacy-large-replicates", type=int, default=None, help="... at n = 1000 (300)")
    parser.add_argument(
        "--holm-ties", default="0.5", help="tie levels of the Holm part, from 0.3, 0.5, 0.7 (default 0.5)"
    )
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples per interval (2000)")
    parser.add_argument("--flips", type=int, default=1000, help="sign flips per randomization test (1000)")
    parser.add_argument("--truth-draws", type=int, default=2_000_000, help="Monte Carlo draws checking each true value")
    parser.add_argument("--batch", type=int, default=100, help="replicates per rankviz call")
    parser.add_argument(
        "--t-replicates",
        type=int,
        default=None,
        help="replicates per paired cell for the reported t-interval alone (20000; 0 skips)",
    )
    parser.add_argument("--t-batch", type=int, default=500, help="replicates per rankviz call in that run")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {', '.join(PARTS)}")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--no-check", action="store_true", help="skip the batching self-check")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    parser.add_argument(
        "--render-only",
        action="store_true",
        help="no simulation: rewrite RESULTS.md from the JSON of the last run (with --quick: of the last quick run)",
    )
    return parser


def resolve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """Fill in the replicate counts and check the options."""
    quick = 300 if args.quick else None
    args.replicates = args.replicates or quick or 2000
    args.t_replicates = (quick or 20000) if args.t_replicates is None else args.t_replicates
    args.holm_replicates = args.holm_replicates or quick or 1000
    args.legacy_replicates = args.legacy_replicates or quick or 1000
    args.legacy_large_replicates = args.legacy_large_replicates or quick or 300
    holm_ties = [float(t) for t in args.holm_ties.split(",") if t.strip()]
    if not set(holm_ties) <= set(TIE_TARGETS):
        parser.error(f"--holm-ties: choose from {', '.join(map(str, TIE_TARGETS))}")
    args.holm_ties_list = holm_ties
    args.parts_list = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = set(args.parts_list) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    return args


def render_only(parser: argparse.ArgumentParser, quick: bool) -> None:
    """Rewrite the RESULTS.md section from the saved JSON of a full run (its own options, timestamp and wall time)."""
    suffix = "_quick" if quick else ""
    path = HERE / "_data" / f"coverage{suffix}.json"
    results = json.loads(path.read_text())
    samples = json.loads((HERE / "_data" / f"coverage_samples{suffix}.json").read_text())
    meta = results["meta"]
    if set(meta.get("parts", [])) != set(PARTS):
        raise SystemExit(f"{path} holds only the parts {meta.get('parts')}: RESULTS.md needs a run of every part")
    command = meta["command"]
    args = resolve(parser, parser.parse_args(shlex.split(command)[1:]))
    generated = meta.get("generated") or time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    write_results(render(results, samples, args, meta["elapsed_s"], command, generated))
    print(f"wrote {HERE / 'RESULTS.md'} from {path} (run of {generated}, {meta['elapsed_s'] / 60:.1f} min)")


def main() -> None:
    parser = make_parser()
    args = resolve(parser, parser.parse_args())
    if args.render_only:
        render_only(parser, args.quick)
        return
    parts, holm_ties = args.parts_list, args.holm_ties_list
    command = "benchmarks/coverage.py" + "".join(f" {a}" for a in sys.argv[1:])
    started = time.perf_counter()

    def progress(text: str) -> None:
        print(f"[{(time.perf_counter() - started) / 60:5.1f} min] {text}", flush=True)

    results: dict = {"meta": {"version": _version(), "command": command, "seed": args.seed}}
    samples: dict = {
        "meta": {
            "seed": args.seed,
            "command": command,
            "note": "per cell: n, per-replicate non-zero query counts (single, legacy) or identical "
            "pairs (paired), and per-method covered flags (1/0), replicate i aligned",
        }
    }
    check = "self-check skipped (--no-check)"
    if not args.no_check:
        check = self_check(args.seed)
    results["meta"]["self_check"] = check
    progress(check)
    if {"paired", "type1", "holm", "single"} & set(parts):
        results["model"] = build_model(args)
        for key, cell in results["model"]["paired"].items():
            null = results["model"]["null"][key]
            progress(
                f"model {key:24s} copy {cell['copy']:.3f} (null {null['copy']:.3f})  identical {cell['mc_identical']:.3f}  "
                f"truth {cell['truth']:.5f}  MC {cell['truth_mc']:.5f} ± {cell['truth_mc_se']:.5f}"
            )
        for key, cell in results["model"]["single"].items():
            progress(
                f"model {key:24s} mu {cell['mu']:.3f}  zero share {cell['zero_share']:.3f}  mean {cell['truth']:.5f}"
            )
    shapes = {s.name: s for s in SHAPES}

    def cells_of(kind: str) -> dict:
        return {k: {**c, "shape_obj": shapes[c["shape"]]} for k, c in results["model"][kind].items()}

    if "paired" in parts:
        results["paired"], samples["paired"] = {}, {}
        cells = cells_of("paired")
        for key in cells:
            results["paired"][key], samples["paired"][key] = {}, {}
        for n in SIZES:
            t = time.perf_counter()
            out, smp = run_paired(cells, n, args.replicates, args, cell_rng(args.seed, "paired", n))
            for key in cells:
                results["paired"][key][str(n)], samples["paired"][key][str(n)] = out[key], smp[key]
                c = out[key]
                progress(
                    f"paired {key:24s} n={n:4d}  identical {c['identical_share']:.3f}  "
                    + "  ".join(f"{m} {c['coverage'][m]:.3f}" for m in PAIRED_METHODS)
                )
            progress(f"paired n={n} done in {time.perf_counter() - t:.0f} s")
        if args.t_replicates:
            for n in SIZES:
                t = time.perf_counter()
                out = run_paired_t(cells, n, args.t_replicates, args, cell_rng(args.seed, "paired-t", n))
                for key in cells:
                    results["paired"][key][str(n)]["t_large"] = out[key]
                    progress(
                        f"paired-t {key:22s} n={n:4d}  coverage {out[key]['coverage']:.4f} (R = {args.t_replicates:,})"
                    )
                progress(f"paired-t n={n} done in {time.perf_counter() - t:.0f} s")
    if "type1" in parts:
        results["type1"] = {}
        cells = cells_of("null")
        for key in cells:
            results["type1"][key] = {}
        for n in SIZES:
            t = time.perf_counter()
            out = run_type1(cells, n, args.replicates, args, cell_rng(args.seed, "type1", n))
            for key in cells:
                results["type1"][key][str(n)] = c = out[key]
                progress(
                    f"type1  {key:24s} n={n:4d}  identical {c['identical_share']:.3f}  "
                    + "  ".join(f"{x} {c['rejection'][x]:.3f}" for x in TESTS)
                )
            progress(f"type1 n={n} done in {time.perf_counter() - t:.0f} s")
    if "holm" in parts:
        results["holm"] = {}
        for target in holm_ties:
            key = f"{target:.0%} ties"
            copy = results["model"]["null"][cell_key(RR_LIKE, target)]["copy"]
            results["holm"][key] = {}
            for n in SIZES:
                t = time.perf_counter()
                results["holm"][key][str(n)] = c = run_holm(
                    copy, n, args.holm_replicates, args, cell_rng(args.seed, "holm", key, n)
                )
                progress(
                    f"holm   {key:24s} n={n:4d}  FWER {c['fwer_holm']:.3f}  uncorrected {c['fwer_uncorrected']:.3f}  "
                    f"per comparison {c['per_comparison']:.4f}  ({time.perf_counter() - t:.0f} s)"
                )
    if "single" in parts:
        results["single"], samples["single"] = {}, {}
        cells = cells_of("single")
        for key in cells:
            results["single"][key], samples["single"][key] = {}, {}
        for n in SIZES:
            t = time.perf_counter()
            out, smp = run_single(cells, n, args.replicates, args, cell_rng(args.seed, "single", n))
            for key in cells:
                results["single"][key][str(n)], samples["single"][key][str(n)] = out[key], smp[key]
                c = out[key]
                progress(
                    f"single {key:24s} n={n:4d}  non-zero {c['mean_nonzero']:5.1f}  "
                    + "  ".join(f"{m} {c['coverage'][m]:.3f}" for m in SINGLE_METHODS)
                )
            progress(f"single n={n} done in {time.perf_counter() - t:.0f} s")
    if "legacy" in parts:
        results["legacy"], samples["legacy"] = {}, {}
        for name, dist in SCENARIOS.items():
            results["legacy"][name], samples["legacy"][name] = {}, {}
            for n in LEGACY_SIZES:
                t = time.perf_counter()
                R = args.legacy_large_replicates if n >= 1000 else args.legacy_replicates
                out, smp = run_legacy(dist, n, R, args, cell_rng(args.seed, "legacy", name, n))
                results["legacy"][name][str(n)], samples["legacy"][name][str(n)] = out, smp
                progress(
                    f"legacy {name:24s} n={n:4d}  bca {out['bca']:.3f}  pct {out['percentile']:.3f}  "
                    f"wilson {out['wilson zero share']:.3f}  nonzero {out['MRR over RR > 0 (BCa)']:.3f}  "
                    f"({time.perf_counter() - t:.0f} s)"
                )
    elapsed = time.perf_counter() - started
    results["meta"]["elapsed_s"] = elapsed
    results["meta"]["parts"] = parts
    results["meta"]["generated"] = generated = time.strftime("%Y-%m-%d %H:%M")
    data = HERE / "_data"
    data.mkdir(exist_ok=True)
    suffix = "_quick" if args.quick else ""
    (data / f"coverage{suffix}.json").write_text(json.dumps(results, indent=1, default=float))
    (data / f"coverage_samples{suffix}.json").write_text(json.dumps(samples, separators=(",", ":")))
    progress(f"wrote {data / f'coverage{suffix}.json'} and {data / f'coverage_samples{suffix}.json'}")
    if "single" in parts:
        print("\n".join(render_rules(samples["single"], samples.get("legacy"))), flush=True)
    if args.no_write:
        return
    if set(parts) != set(PARTS):
        progress("RESULTS.md not written: it needs every part (run without --parts, or pass --no-write)")
        return
    write_results(render(results, samples, args, elapsed, command, generated))
    progress(f"wrote {HERE / 'RESULTS.md'} ({elapsed / 60:.1f} min)")


if __name__ == "__main__":
    main()
