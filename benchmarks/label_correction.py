"""Labels from a model, corrected by a random human sample: coverage, bias and the sampling plan (issue 32).

Usage::

    .venv/bin/python benchmarks/label_correction.py              # full run (R = 500; about 40 min on a busy core)
    .venv/bin/python benchmarks/label_correction.py --quick      # R = 60
    .venv/bin/python benchmarks/label_correction.py --parts plan --plan-replicates 10

The truth is a collection's own qrels (what people said). A simulated judge
(``labels.simulate_judge``: truth + Gaussian grade noise + a leniency shift, rounded and
clipped) plays the model; its noise is redrawn for every replicate, and so is the 10%
random human sample of queries (``labels.sample_queries``). Each replicate calls
``labels.corrected(run, model, human, ..., design=design, scope="queries")``: its target is
the all-human mean, i.e. each system's mean under the true qrels over every query. We report
the share of 95% intervals covering it (Monte Carlo standard error sqrt(p(1-p)/R)), the bias
of the corrected and of the naive (model-label) mean, the mean interval widths and the
effective sample size.

Parts (``--parts``; all by default)
    coverage
        The built-in example (600 queries, 4 systems, run cut at rank 10) and TREC-COVID round 1
        (30 topics; 4 runs: run1, smith.bm25, smith.rm3, T5R1, full depth), two judges
        (kappa about 0.65 and about 0.45), nDCG@10, P@10, RR@10 per system and the paired
        differences from a baseline (example: ``bm25``; TREC-COVID: ``smith.bm25``).
    small
        Coverage against the size of the human sample (example, the weak judge): 3 to 40
        human-judged queries; calibrates ``TINY_SAMPLE`` in ``rankviz/labels/corrected.py``.
    plan
        Human-judged queries needed for a 95% interval of width ``--width`` on a two-system
        nDCG@10 difference: uniform random sampling against ``labels.plan`` (stratified by
        simulated spread, Neyman allocation), both computed exactly from the true per-query
        differences (normal quantile), after a 10% random pilot that ``plan`` calibrates on
        (the pilot is the same for both and not counted). Also the coverage of the corrected
        interval when the sample is drawn by the plan (it is unbiased by design).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import rankviz  # noqa: E402
from rankviz import labels  # noqa: E402
from rankviz.datasets import load_example  # noqa: E402

MEASURES = ["nDCG@10", "P@10", "RR@10"]
JUDGES = {"good (kappa~0.65)": (0.35, 0.15), "weak (kappa~0.45)": (0.5, 0.3)}
COVID = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "trec_covid_round1")


def example():
    ex = load_example()
    return "example", ex.run[ex.run["rank"] <= 10].reset_index(drop=True), ex.qrels, "bm25"


def _top10(run: pd.DataFrame) -> pd.DataFrame:
    """The first 10 of each query in trec_eval's order (score descending, ties by doc id descending): exact for @10."""
    ordered = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    return ordered[ordered.groupby("query_id").cumcount() < 10].reset_index(drop=True)


def covid():
    runs = {name: _top10(rankviz.read_run(os.path.join(COVID, "runs", name)))
            for name in ("run1", "smith.bm25", "smith.rm3", "T5R1")}  # fmt: skip
    qrels = rankviz.read_qrels(os.path.join(COVID, "qrels-rnd1.txt"))
    return "TREC-COVID r1", runs, qrels[["query_id", "doc_id", "relevance"]], "smith.bm25"


def _kappa(truth, noise, leniency, seed=0):
    return labels.agreement(truth, labels.simulate_judge(truth, noise=noise, leniency=leniency, seed=seed)).cohen_kappa


def one_setting(run, truth, baseline, noise, leniency, n_human, replicates, seed0):
    target = rankviz.evaluate(run, MEASURES, truth)
    universe = sorted(rankviz.evaluate(run, MEASURES[0], truth, per_query=True)["query_id"].astype(str).unique())
    rows, warned = [], 0
    for r in range(replicates):
        model = labels.simulate_judge(truth, noise=noise, leniency=leniency, seed=seed0 + 2 * r)
        design = labels.sample_queries(universe, n=n_human, seed=seed0 + 2 * r + 1)
        human = truth[truth["query_id"].astype(str).isin(design.queries)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            means = labels.corrected(run, model, human, MEASURES, design=design, scope="queries").to_frame()
            diffs = labels.corrected(
                run, model, human, MEASURES, design=design, scope="queries", baseline=baseline
            ).to_frame()
        warned += any("human-judged queries" in str(w.message) for w in caught)
        for frame, kind in ((means, "mean"), (diffs, "difference")):
            for row in frame.to_dict("records"):
                truth_value = target.loc[row["system"], row["measure"]]
                if kind == "difference":
                    truth_value -= target.loc[baseline, row["measure"]]
                rows.append({
                    "kind": kind, "system": row["system"], "measure": row["measure"], "truth": truth_value,
                    "corrected": row["corrected"], "naive": row["naive"],
                    "covered": row["ci_low"] <= truth_value <= row["ci_high"],
                    "human_covered": row["human_low"] <= truth_value <= row["human_high"],
                    "width": row["ci_high"] - row["ci_low"], "human_width": row["human_high"] - row["human_low"],
                    "ess": row["effective_sample_size"],
                })  # fmt: skip
    table = pd.DataFrame(rows)
    summary = table.groupby(["kind", "measure"], sort=False).apply(_summarise, include_groups=False).reset_index()
    return summary, warned / replicates, len(universe)


def _summarise(part: pd.DataFrame) -> pd.Series:
    """Over replicates and systems: coverage, worst system's coverage, |bias| (worst system), widths, ESS."""
    per_system = part.groupby("system").agg(
        coverage=("covered", "mean"), bias=("corrected", "mean"), naive=("naive", "mean"), truth=("truth", "first")
    )
    return pd.Series({
        "coverage": part["covered"].mean(), "worst_coverage": per_system["coverage"].min(),
        "human_only_coverage": part["human_covered"].mean(),
        "bias_corrected": (per_system["bias"] - per_system["truth"]).abs().max(),
        "bias_naive": (per_system["naive"] - per_system["truth"]).abs().max(),
        "width": part["width"].mean(), "human_width": part["human_width"].mean(), "ess": part["ess"].mean(),
    })  # fmt: skip


def part_coverage(replicates: int) -> list[str]:
    out = ["### Coverage and bias (10% random human sample, scope='queries', target = all-human mean)", ""]
    out += [
        f"R = {replicates} replicates per row (judge noise and sample redrawn each time); Monte Carlo SE of a "
        f"coverage near 0.95 is {math.sqrt(0.95 * 0.05 / replicates):.3f}. 'worst' is the least-covered system; "
        "bias is the largest |mean estimate - truth| over systems.",
        "",
        "| data | judge (kappa) | human queries | kind | measure | coverage | worst | human-only cov. | |bias| corrected "
        "| |bias| naive | width corrected | width human-only | ESS | tiny-sample warning |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for loader in (example, covid):
        name, run, truth, baseline = loader()
        for judge, (noise, leniency) in JUDGES.items():
            kappa = np.mean([_kappa(truth, noise, leniency, s) for s in range(3)])
            started = time.time()
            universe = truth["query_id"].astype(str).nunique()
            n_human = max(2, round(0.1 * universe))
            summary, warned, n_universe = one_setting(run, truth, baseline, noise, leniency, n_human, replicates, 1000)
            n_human = max(2, round(0.1 * n_universe))
            for row in summary.to_dict("records"):
                out.append(
                    f"| {name} | {judge.split()[0]} ({kappa:.2f}) | {n_human} of {n_universe} | {row['kind']} | {row['measure']} "
                    f"| **{row['coverage']:.3f}** | {row['worst_coverage']:.3f} | {row['human_only_coverage']:.3f} "
                    f"| {row['bias_corrected']:.4f} | {row['bias_naive']:.4f} | {row['width']:.4f} | {row['human_width']:.4f} "
                    f"| {row['ess']:.0f} | {warned:.0%} |"
                )
            print(f"{name} {judge}: {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    return out


def part_small(replicates: int) -> list[str]:
    name, run, truth, baseline = example()
    noise, leniency = JUDGES["weak (kappa~0.45)"]
    out = ["### Coverage against the human sample's size (example, weak judge)", "",
           f"R = {replicates} per row; coverage pooled over the 4 systems (means) or 3 differences.", "",
           "| human queries | kind | nDCG@10 | P@10 | RR@10 | warning fired |", "|---|---|---|---|---|---|"]  # fmt: skip
    for n_human in (3, 5, 8, 12, 20):
        summary, warned, _ = one_setting(run, truth, baseline, noise, leniency, n_human, replicates, 5000)
        for kind in ("mean", "difference"):
            cov = summary[summary["kind"] == kind].set_index("measure")["coverage"]
            out.append(
                f"| {n_human} | {kind} | {cov['nDCG@10']:.3f} | {cov['P@10']:.3f} | {cov['RR@10']:.3f} | {warned:.0%} |"
            )
        print(f"small n={n_human} done", file=sys.stderr, flush=True)
    return out


def _needed(variance, width, limit):
    """Smallest n in [2, limit] with 2 * 1.96 * sqrt(variance(n)) <= width (limit when none)."""
    for n in range(2, limit + 1):
        if 2 * 1.959964 * math.sqrt(max(variance(n), 0.0)) <= width:
            return n
    return limit


def _planned_variance(plan, n, sizes, s2, big_n):
    """Exact variance of the plan's stratified correction at budget n, from the true per-stratum variances."""
    counts = plan.redraw(n, seed=0).design.strata_counts()
    return sum((sizes[h] / big_n) ** 2 * (1 - counts.n_h[h] / sizes[h]) * s2[h] / counts.n_h[h] for h in sizes.index)


def part_plan(replicates: int, width: float, coverage_replicates: int) -> list[str]:
    name, run, truth, _ = example()
    noise, leniency = JUDGES["weak (kappa~0.45)"]
    m = "nDCG@10"
    true_values = rankviz.evaluate(run, m, truth, per_query=True).pivot(index="query_id", columns="system", values=m)
    out = ["### Plan vs uniform random sampling (example, weak judge, nDCG@10 difference)", "",
           f"Width target {width} (95%, normal quantile), {replicates} judge replicates per pair; a 10% random pilot "
           "(60 queries) calibrates the plan and is not counted.", "",
           "| pair | uniform: queries needed (median) | plan: queries needed (median) | reduction (mean of per-replicate) "
           "| reduction min..max | plan's `size_for` from the pilot (uniform, plan; median) |",
           "|---|---|---|---|---|---|"]  # fmt: skip
    for a, b in (("bm25+rerank", "bm25"), ("bm25", "tfidf"), ("rrf", "tfidf")):
        n_u, n_p, red, predicted = [], [], [], []
        for r in range(replicates):
            model = labels.simulate_judge(truth, noise=noise, leniency=leniency, seed=9000 + r)
            f = rankviz.evaluate(run, m, model, per_query=True).pivot(index="query_id", columns="system", values=m)
            d = ((true_values[a] - true_values[b]) - (f[a] - f[b])).astype(float)
            big_n = len(d)
            pilot = labels.sample_queries(list(d.index), n=60, seed=9500 + r)
            plan = labels.plan(run, model, truth[truth["query_id"].isin(pilot.queries)], budget=60, target=(a, b),
                               measure=m, seed=r, scope="queries")  # fmt: skip
            var_d = float(d.var(ddof=1))
            uniform = _needed(lambda n, v=var_d, big=big_n: v * (1 / n - 1 / big), width, big_n)
            strata = plan.to_frame().set_index("query_id")["stratum"]
            s2 = d.groupby(strata.reindex(d.index)).var(ddof=1)
            sizes = strata.value_counts()

            low, high = 2 * len(sizes), big_n
            while high - low > 1:  # planned variance falls with the budget
                mid = (low + high) // 2
                if 2 * 1.959964 * math.sqrt(_planned_variance(plan, mid, sizes, s2, big_n)) <= width:
                    high = mid
                else:
                    low = mid
            n_u.append(uniform)
            n_p.append(high)
            red.append(1 - high / uniform)
            predicted.append(plan.size_for(width)["n_queries"].tolist())
        pu, pp = np.median([p[0] for p in predicted]), np.median([p[1] for p in predicted])
        out.append(f"| {a} - {b} | {np.median(n_u):.0f} | {np.median(n_p):.0f} | **{np.mean(red):.1%}** "
                   f"| {min(red):.1%}..{max(red):.1%} | {pu:.0f}, {pp:.0f} |")  # fmt: skip
        print(f"plan {a}-{b} done", file=sys.stderr, flush=True)
    # coverage of the corrected difference under the plan's design
    a, b = "bm25+rerank", "bm25"
    target = float(true_values[a].mean() - true_values[b].mean())
    model = labels.simulate_judge(truth, noise=noise, leniency=leniency, seed=1)
    plan = labels.plan(run, model, budget=100, target=(a, b), measure=m, seed=0, scope="queries")
    covered, estimates = 0, []
    for r in range(coverage_replicates):
        design = plan.redraw(100, seed=r).design
        human = truth[truth["query_id"].isin(design.queries)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row = labels.corrected(run, model, human, m, design=design, baseline=b, scope="queries").to_frame()
        row = row[row["system"] == a].iloc[0]
        covered += row["ci_low"] <= target <= row["ci_high"]
        estimates.append(row["corrected"])
    naive = float(row["naive"])
    out += ["", f"Drawn by the plan (100 queries, no pilot, {coverage_replicates} redraws, one judge draw): coverage of the "
            f"{a} - {b} nDCG@10 difference **{covered / coverage_replicates:.3f}**; mean estimate "
            f"{np.mean(estimates):.4f} vs truth {target:.4f} (naive {naive:.4f})."]  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--parts", default="coverage,small,plan")
    parser.add_argument("--replicates", type=int, default=None)
    parser.add_argument("--plan-replicates", type=int, default=20)
    parser.add_argument("--width", type=float, default=0.06)
    args = parser.parse_args()
    replicates = args.replicates or (60 if args.quick else 500)
    parts = args.parts.split(",")
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines = [f"`uptime` at start: {load}", ""]
    started = time.time()
    if "coverage" in parts:
        lines += part_coverage(replicates) + [""]
    if "small" in parts:
        lines += part_small(max(100, replicates // 2)) + [""]
    if "plan" in parts:
        lines += part_plan(args.plan_replicates, args.width, max(100, replicates // 2)) + [""]
    end_load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines += [f"`uptime` at the end: {end_load}; wall time {time.time() - started:.0f} s.", ""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
