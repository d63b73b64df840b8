"""Family-wise error and power of the all-pairs tests behind ``rankviz.table`` (Monte Carlo).

Usage::

    .venv/bin/python benchmarks/tukey.py            # 1,000 experiments per null cell, 500 per power cell
    .venv/bin/python benchmarks/tukey.py --quick    # 200 and 100

Five systems answer the same n queries (n = 25, 50, 200). Every experiment is one
call of ``rankviz.stats.all_pairs`` (the public API) on a per-query table, with

- ``test='tukey'``: the randomized Tukey HSD for paired data (999 permutations);
- ``test='randomization', correction='holm'``: sign-flip test per pair (999 flips), Holm over the 10 pairs;
- ``test='t', correction='holm'``: paired t-test per pair, Holm over the 10 pairs.

True null (the family-wise error): the five systems are exchangeable within each
query, so every pair is truly equal; an experiment errs when any of the 10 pairs
is significant at alpha = 0.05. Two null scenarios: graded scores (a query effect
shared by all systems plus independent noise, clipped to [0, 1]) and
zero-inflated reciprocal ranks (each query has its own chance that a system finds
the relevant item and its own rank distribution; systems draw independently).

Power: graded scores with system shifts (0, 0, 0.04, 0.08, 0.12) and noise sd
0.2; 9 of the 10 pairs truly differ. Reported: the share of truly different pairs
found (in the right direction), and how often the one truly equal pair
(the first two systems) was called significant.

Each rate is shown with its Monte Carlo standard error sqrt(p (1 - p) / R).
Results go to ``benchmarks/RESULTS.md`` (between the tukey.py markers) and
``benchmarks/_data/tukey.json``.
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
sys.path[:0] = [str(HERE.parent), str(HERE)]

from run import write_results  # noqa: E402  (benchmarks/run.py: replace one marked section of RESULTS.md)

import rankviz  # noqa: E402

START, END = "<!-- tukey.py:start -->", "<!-- tukey.py:end -->"
SIZES = (25, 50, 200)
SYSTEMS = ("s1", "s2", "s3", "s4", "s5")
ALPHA = 0.05
TESTS = {
    "randomized Tukey HSD": ("tukey", "auto"),
    "randomization + Holm": ("randomization", "holm"),
    "paired t + Holm": ("t", "holm"),
}
SHIFTS = (0.0, 0.0, 0.04, 0.08, 0.12)


def graded(n: int, gen: np.random.Generator, shifts=(0.0,) * 5, sd: float = 0.2) -> np.ndarray:
    """(n, 5): a query effect shared by every system, independent noise, a shift per system, clipped to [0, 1]."""
    base = gen.beta(2, 3, size=(n, 1))
    return np.clip(base + np.asarray(shifts)[None, :] + gen.normal(0, sd, size=(n, len(shifts))), 0, 1)


def reciprocal_ranks(n: int, gen: np.random.Generator) -> np.ndarray:
    """(n, 5) zero-inflated RR@10: per query a chance to find the item and a geometric rank; systems independent."""
    found = gen.beta(2, 2, size=(n, 1))
    p_top = gen.uniform(0.2, 0.8, size=(n, 1))
    ranks = gen.geometric(np.broadcast_to(p_top, (n, 5)))
    hit = (gen.uniform(size=(n, 5)) < found) & (ranks <= 10)
    return np.where(hit, 1.0 / ranks, 0.0)


def per_query_table(x: np.ndarray) -> pd.DataFrame:
    n = x.shape[0]
    return pd.DataFrame(
        {
            "system": np.repeat(SYSTEMS, n),
            "query_id": np.tile([f"q{j:03d}" for j in range(n)], len(SYSTEMS)),
            "score": x.T.ravel(),
        }
    )


def one_experiment(x: np.ndarray, resamples: int, seed: int) -> dict:
    """{test: pairs frame} for one sample."""
    table = per_query_table(x)
    return {
        label: rankviz.stats.all_pairs(
            table, "score", test=test, correction=correction, alpha=ALPHA, n_resamples=resamples, rng=seed
        )
        for label, (test, correction) in TESTS.items()
    }


def run_null(scenario, n: int, experiments: int, resamples: int, gen) -> dict:
    errors = dict.fromkeys(TESTS, 0)
    for e in range(experiments):
        x = graded(n, gen) if scenario == "graded" else reciprocal_ranks(n, gen)
        for label, pairs in one_experiment(x, resamples, int(gen.integers(2**31))).items():
            errors[label] += bool(pairs["significant"].any())
    return {label: count / experiments for label, count in errors.items()}


def run_power(n: int, experiments: int, resamples: int, gen) -> dict:
    found = dict.fromkeys(TESTS, 0)
    false = dict.fromkeys(TESTS, 0)
    truth = {(SYSTEMS[i], SYSTEMS[j]): SHIFTS[i] - SHIFTS[j] for i in range(5) for j in range(i + 1, 5)}
    for e in range(experiments):
        x = graded(n, gen, SHIFTS)
        for label, pairs in one_experiment(x, resamples, int(gen.integers(2**31))).items():
            for row in pairs.itertuples():
                true_diff = truth[row.system, row.other]
                if true_diff == 0:
                    false[label] += bool(row.significant)
                else:
                    right = row.system if true_diff > 0 else row.other
                    found[label] += bool(row.significant and row.better == right)
    different = sum(1 for d in truth.values() if d != 0)
    return {
        label: {"power": found[label] / (experiments * different), "false_equal_pair": false[label] / experiments}
        for label in TESTS
    }


def _se(p: float, r: int) -> float:
    return math.sqrt(max(p * (1 - p), 1e-12) / r)


def render(results: dict, args, elapsed: float) -> str:
    lines = [START, "", "## Family-wise error and power of the all-pairs tests (`benchmarks/tukey.py`)", ""]
    lines.append(
        f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `benchmarks/tukey.py` in {elapsed / 60:.1f} min: 5 systems, "
        f"{args.experiments:,} experiments per null cell and {args.power_experiments:,} per power cell, "
        f"{args.resamples} permutations per test, alpha = {ALPHA}, seed {args.seed}. Each experiment is one call of "
        "`rankviz.stats.all_pairs` (the public API). Rates are shown ± their Monte Carlo standard error; "
        "**over** marks a family-wise error more than two standard errors above 0.05."
    )
    lines += ["", "### Family-wise error under a true null (any of the 10 pairs significant)", ""]
    lines += ["| scenario | test | " + " | ".join(f"n = {n}" for n in SIZES) + " |", "|---|---|" + "---|" * len(SIZES)]
    for scenario in ("graded", "reciprocal ranks"):
        for label in TESTS:
            cells = []
            for n in SIZES:
                p = results["null"][scenario][str(n)][label]
                se = _se(p, args.experiments)
                cells.append(f"{p:.3f} ± {se:.3f}" + (" **over**" if p > ALPHA + 2 * se else ""))
            lines.append(f"| {scenario} | {label} | " + " | ".join(cells) + " |")
    lines += ["", "### Power (graded scores, shifts 0, 0, 0.04, 0.08, 0.12, noise sd 0.2)", ""]
    lines += [
        "Share of the 9 truly different pairs found (in the right direction); in brackets, how often the one truly "
        "equal pair was called significant.",
        "",
    ]
    lines += ["| test | " + " | ".join(f"n = {n}" for n in SIZES) + " |", "|---|" + "---|" * len(SIZES)]
    for label in TESTS:
        cells = []
        for n in SIZES:
            cell = results["power"][str(n)][label]
            se = _se(cell["power"], args.power_experiments * 9)
            cells.append(f"{cell['power']:.3f} ± {se:.3f} ({cell['false_equal_pair']:.3f})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", reading(results, args), "", END]
    return "\n".join(lines)


def reading(results: dict, args) -> str:
    """The paragraph under the tables, its numbers computed from the results."""
    cells = [(scenario, n) for scenario in results["null"] for n in SIZES]
    pooled = {label: sum(results["null"][s][str(n)][label] for s, n in cells) / len(cells) for label in TESTS}
    r = args.experiments * len(cells)
    bound = math.floor(ALPHA * (args.resamples + 1) - 1e-9) / (args.resamples + 1)
    shown = "; ".join(f"{label} {p:.4f} ± {_se(p, r):.4f}" for label, p in pooled.items())
    winners = []
    for n in SIZES:
        best = max(TESTS, key=lambda label: results["power"][str(n)][label]["power"])
        winners.append(f"n = {n}: {best}")
    return (
        f"Reading: pooled over the {len(cells)} null cells ({r:,} experiments per test) the family-wise error is {shown}. "
        f"With {args.resamples} permutations and the +1 correction a permutation test rejects at most "
        f"{bound:.3f} of the time under exchangeable systems, so the randomized Tukey HSD spends its whole 5% and no "
        "more (a single cell a little above 0.05 among the 18 is Monte Carlo noise: the pooled rate is what to read), "
        "while Holm over the 10 pairs is conservative because it ignores how the pairwise tests depend on each other. "
        "The Tukey HSD compares every pair with the largest difference of any pair and permutes each query's scores "
        "across the systems jointly, so it keeps the pairing by query (an unpaired Tukey test, as ranx's, does not). "
        f"Power, the highest share of truly different pairs found: {'; '.join(winners)}. The single-step Tukey HSD "
        "tends to find more at small n, Holm's step-down more once the largest differences are clear and the "
        "threshold for the rest relaxes. Tukey is the default of `rankviz.table`: its letters are one family; "
        "`test='randomization', correction='holm'` gives the same family-wise guarantee step-down."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200 null and 100 power experiments per cell")
    parser.add_argument("--experiments", type=int, default=None)
    parser.add_argument("--power-experiments", type=int, default=None)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--from-json", action="store_true", help="re-render RESULTS.md from benchmarks/_data/tukey.json"
    )
    args = parser.parse_args()
    args.experiments = args.experiments or (200 if args.quick else 1000)
    args.power_experiments = args.power_experiments or (100 if args.quick else 500)
    saved = HERE / "_data" / ("tukey_quick.json" if args.quick else "tukey.json")
    if args.from_json:
        results = json.loads(saved.read_text())
        for key, value in results["args"].items():
            setattr(args, key, value)
        write_results(render(results, args, results["elapsed_s"]), START, END)
        return
    gen = np.random.default_rng(args.seed)
    warnings.simplefilter("ignore", rankviz.RankvizWarning)
    started = time.perf_counter()
    results: dict = {"null": {}, "power": {}}
    for scenario in ("graded", "reciprocal ranks"):
        results["null"][scenario] = {}
        for n in SIZES:
            t = time.perf_counter()
            cell = results["null"][scenario][str(n)] = run_null(scenario, n, args.experiments, args.resamples, gen)
            print(
                f"null {scenario:17s} n={n:4d} "
                + "  ".join(f"{k}: {v:.3f}" for k, v in cell.items())
                + f" ({time.perf_counter() - t:.0f} s)",
                flush=True,
            )
    for n in SIZES:
        t = time.perf_counter()
        cell = results["power"][str(n)] = run_power(n, args.power_experiments, args.resamples, gen)
        print(
            f"power n={n:4d} "
            + "  ".join(f"{k}: {v['power']:.3f} ({v['false_equal_pair']:.3f})" for k, v in cell.items())
            + f" ({time.perf_counter() - t:.0f} s)",
            flush=True,
        )
    elapsed = time.perf_counter() - started
    results["elapsed_s"] = elapsed
    results["args"] = {k: getattr(args, k) for k in ("experiments", "power_experiments", "resamples", "seed")}
    (HERE / "_data").mkdir(exist_ok=True)
    saved.write_text(json.dumps(results, indent=1))
    if not args.no_write:
        write_results(render(results, args, elapsed), START, END)
        print(f"wrote {HERE / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
