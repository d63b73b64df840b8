"""A gate that runs every day: false alarms over 100 checks, power, and the margin's type I error (issue 33).

Simulated per-query nDCG@10-like values: each sequence draws its query set's
difficulties mu_q ~ Beta(0.9, 1.3) and one baseline run; every check draws a new run
of the same system, value = clip(mu_q + e, 0, 1), e ~ N(0, 0.15) (so many queries
score exactly 0 or 1, as nDCG@10 does), independently of the baseline given the
queries. A drop of size delta is a shift s of mu_q calibrated (by quadrature, to
1e-9) so that the expected mean value falls by exactly delta.

Measured, for n = 50 and 200 queries, at alpha = 0.05, with
:func:`rankviz.stats.sequential.margin_p_values` (the one-sided paired t-test of each
check) and :func:`rankviz.stats.sequential.spending_alpha`:

1. 100 checks of an unchanged system: the probability of any false alarm with the
   sequential rule (check k at alpha / (k (k + 1))) beside the naive rule (every
   check at alpha).
2. Power: a drop of 0.02 or 0.05 appearing at check k0 (1, 10 or 100) and staying:
   the probability the check k0 alarms, and that one of the checks k0 .. k0 + 6 does.
3. The margin: true drop exactly at the margin M (0.02, 0.05): the probability one
   check at alpha fails (the type I error, <= alpha), and that any of 100 sequential
   checks does.

Run: ``python benchmarks/sequential_gate.py [--sequences 2000]``; the results replace
the marked section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy import integrate, optimize
from scipy import stats as scipy_stats

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from run import write_results  # noqa: E402  (benchmarks/run.py: replace one marked section of RESULTS.md)

from rankviz.stats.sequential import margin_p_values, spending_alpha  # noqa: E402

START, END = "<!-- sequential_gate.py:start -->", "<!-- sequential_gate.py:end -->"
ALPHA = 0.05
CHECKS = 100
SIZES = (50, 200)
SIGMA = 0.15
BETA = (0.9, 1.3)
DROPS = (0.02, 0.05)
ONSETS = (1, 10, 100)
WINDOW = 7


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def expected_value(shift: float) -> float:
    """E[clip(mu - shift + e, 0, 1)] over mu ~ Beta and e ~ N(0, SIGMA)."""

    def given_mu(mu: float) -> float:
        m = mu - shift  # E clip(X, 0, 1) = integral_0^1 P(X > t) dt
        return integrate.quad(lambda t: scipy_stats.norm.sf((t - m) / SIGMA), 0.0, 1.0, epsabs=1e-12)[0]

    return integrate.quad(lambda mu: given_mu(mu) * scipy_stats.beta.pdf(mu, *BETA), 0.0, 1.0, epsabs=1e-11)[0]


def calibrated_shift(drop: float) -> float:
    base = expected_value(0.0)
    return optimize.brentq(lambda s: base - expected_value(s) - drop, 0.0, 0.5, xtol=1e-10)


def draw(rng, mu: np.ndarray, shape: tuple, shift: float = 0.0) -> np.ndarray:
    return np.clip(mu - shift + rng.normal(0.0, SIGMA, shape + mu.shape[-1:]), 0.0, 1.0)


def null_sequences(rng, n: int, sequences: int, margin: float = 0.0, shift: float = 0.0, block: int = 100):
    """Per sequence and check, the one-sided p-value (H0: mean >= -margin) of new - baseline; shape (sequences, CHECKS)."""
    out = np.empty((sequences, CHECKS))
    for start in range(0, sequences, block):
        size = min(block, sequences - start)
        mu = rng.beta(*BETA, (size, 1, n))
        base = draw(rng, mu, (size, 1))
        new = draw(rng, mu, (size, CHECKS), shift)
        out[start : start + size] = margin_p_values(new - base, margin=margin)
    return out


def single_checks(rng, n: int, sequences: int, margin: float, shift: float, block: int = 5000) -> float:
    """The share of single checks at ALPHA that fail when the true drop is exactly ``margin``."""
    fails = 0
    for start in range(0, sequences, block):
        size = min(block, sequences - start)
        mu = rng.beta(*BETA, (size, n))
        d = draw(rng, mu, (size,), shift) - draw(rng, mu, (size,))
        fails += int((margin_p_values(d, margin=margin) < ALPHA).sum())
    return fails / sequences


def power_sequences(rng, n: int, sequences: int, shift: float, onset: int) -> np.ndarray:
    """p-values of the checks onset .. onset + WINDOW - 1 of a regressed system: shape (sequences, WINDOW)."""
    mu = rng.beta(*BETA, (sequences, 1, n))
    base = draw(rng, mu, (sequences, 1))
    new = draw(rng, mu, (sequences, WINDOW), shift)
    return margin_p_values(new - base, margin=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sequences", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2033)
    parser.add_argument("--margin-sequences", type=int, default=50_000, help="single checks at the margin")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    began, load_before = time.time(), uptime()
    print("uptime:", load_before)
    rng = np.random.default_rng(args.seed)
    levels = np.array([spending_alpha(k, ALPHA) for k in range(1, CHECKS + 1)])
    shifts = {d: calibrated_shift(d) for d in DROPS}
    rows_null, rows_power, rows_margin = [], [], []
    for n in SIZES:
        p = null_sequences(rng, n, args.sequences)
        sequential, naive = (p < levels).any(axis=1).mean(), (p < ALPHA).any(axis=1).mean()
        first = (p[:, 0] < ALPHA).mean()
        rows_null.append((n, sequential, naive, first))
        print(f"n={n}: P(any false alarm in {CHECKS}) sequential {sequential:.4f}, naive {naive:.4f}")
        for drop in DROPS:
            for onset in ONSETS:
                pw = power_sequences(rng, n, args.sequences, shifts[drop], onset)
                window_levels = np.array([spending_alpha(k, ALPHA) for k in range(onset, onset + WINDOW)])
                rows_power.append((n, drop, onset, (pw[:, 0] < window_levels[0]).mean(),
                                   (pw < window_levels).any(axis=1).mean(), (pw[:, 0] < ALPHA).mean()))  # fmt: skip
        for margin in DROPS:
            p_margin = null_sequences(rng, n, args.sequences, margin=margin, shift=shifts[margin])
            one = single_checks(rng, n, args.margin_sequences, margin, shifts[margin])
            anyseq = (p_margin < levels).any(axis=1).mean()
            rows_margin.append((n, margin, one, anyseq))
            print(f"n={n} margin {margin}: type I one check {one:.4f}; any of {CHECKS} sequential {anyseq:.4f}")
    elapsed, load_after = time.time() - began, uptime()
    section = render(args, rows_null, rows_power, rows_margin, shifts, elapsed, load_before, load_after)
    print(section)
    if not args.no_write:
        write_results(section, START, END)
        print(f"wrote {HERE / 'RESULTS.md'}")


def _se(p: float, m: int) -> str:
    return f"± {1.96 * np.sqrt(max(p * (1 - p), 1e-12) / m):.3f}"


def render(args, rows_null, rows_power, rows_margin, shifts, elapsed, load_before, load_after) -> str:
    m = args.sequences
    lines = [
        START, "", "## A gate that runs every day (`benchmarks/sequential_gate.py`, issue 33)", "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC by `python benchmarks/sequential_gate.py "
        f"--sequences {m} --seed {args.seed}` in {elapsed:.0f} s on the shared 2-core machine "
        f"(`uptime` before: {load_before.split('load average:')[-1].strip()}; after: "
        f"{load_after.split('load average:')[-1].strip()}).", "",
        f"Model: per sequence, query difficulties mu_q ~ Beta{BETA}, one baseline run and one new run per check, "
        f"value = clip(mu_q + e, 0, 1) with e ~ N(0, {SIGMA}) (nDCG@10-like: mean {expected_value(0.0):.3f}, many "
        "queries exactly 0 or 1). Every check compares the new run with the same baseline (so the checks are "
        "dependent), with the one-sided paired t-test of `rankviz.stats.sequential`. The sequential rule tests check "
        "k at alpha / (k (k + 1)) (`spending_alpha`: Bonferroni over an infinite sequence of checks, Lan and DeMets "
        "1983, Darling and Robbins 1967); the naive rule tests every check at alpha. "
        f"alpha = {ALPHA}; {m} sequences per cell; ± is the 95% Monte Carlo half-width.", "",
        f"### 1. {CHECKS} checks of an unchanged system: P(any false alarm)", "",
        "| queries | sequential (alpha spending) | naive (every check at 0.05) | one check at 0.05 |", "|---|---|---|---|",
    ]  # fmt: skip
    for n, seq, naive, first in rows_null:
        lines.append(f"| {n} | **{seq:.4f}** {_se(seq, m)} | {naive:.4f} {_se(naive, m)} | {first:.4f} |")
    lines += [
        "", "### 2. Power: a drop appears at check k0 and stays", "",
        "Drops in expected mean nDCG@10 (shift of mu calibrated by quadrature: "
        + ", ".join(f"{d} -> shift {s:.5f}" for d, s in shifts.items()) + "). "
        f"'at k0' is the probability that check k0 alarms; 'within {WINDOW}' that one of the checks k0 .. "
        f"k0 + {WINDOW - 1} does (the regression stays); the naive column is one check at 0.05 (its false alarms "
        "are in table 1).", "",
        f"| queries | drop | k0 | level at k0 | sequential: at k0 | sequential: within {WINDOW} | naive: one check |",
        "|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for n, drop, onset, at, within, naive in rows_power:
        lines.append(
            f"| {n} | {drop} | {onset} | {spending_alpha(onset, ALPHA):.2g} | {at:.3f} | {within:.3f} | {naive:.3f} |"
        )
    lines += [
        "", "### 3. The non-inferiority margin at the margin (true drop = M)", "",
        "The check fails when the one-sided paired t-test of H0: mean(new - baseline) >= -M rejects. At the "
        "boundary of H0 its failure rate is the type I error, which must be <= alpha.", "",
        f"The single-check column is over {args.margin_sequences} checks (each with its own queries and runs); "
        f"the sequential column over {m} sequences of {CHECKS} checks.", "",
        f"| queries | margin M | type I error, one check at 0.05 | any failure over {CHECKS} sequential checks |",
        "|---|---|---|---|",
    ]  # fmt: skip
    for n, margin, one, anyseq in rows_margin:
        lines.append(
            f"| {n} | {margin} | **{one:.4f}** {_se(one, args.margin_sequences)} | {anyseq:.4f} {_se(anyseq, m)} |"
        )
    lines += [
        "",
        "Reading: the naive gate's chance of a false alarm over 100 checks is many times alpha, while alpha "
        "spending keeps it under alpha (conservative: the union bound ignores that the checks share the "
        "baseline, and late checks are tested at tiny levels, so a regression is caught best when it appears "
        "early in a baseline's life; accepting a new baseline starts a new count).",
        "",
        END,
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
