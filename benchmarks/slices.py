"""Slices must not make statistics slow (issue 24 item 6).

1. ``compare(..., by=)`` with 20 segments x 10 systems x 4 measures against the same unsliced
   ``compare``: the same run, the same queries, alternated in one process, medians of ``--reps``.
   Timed twice: the public call from the run (evaluation included, what a user waits for) and
   the statistics alone on the evaluated per-query table (the part slicing changes).
2. The bootstrap figure of ``benchmarks/run.py`` (paired bootstrap of 4 measures x 2 systems x
   7,000 queries x 10,000 resamples vs ``scipy.stats.bootstrap`` BCa of one measure of one system),
   run through the same ``_child.py bootstrap`` command on the same data.

``uptime`` is printed beside every figure: the machine is shared.

Run: ``python benchmarks/slices.py [--queries 7000] [--reps 3]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import rankviz  # noqa: E402

MEASURES = ["RR@10", "nDCG@10", "AP", "R@100"]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def generate(n_queries: int, n_systems: int, depth: int, seed: int = 24):
    """A run of ``n_systems`` x ``n_queries`` x ``depth`` rows over 60 candidates per query, and graded qrels."""
    rng = np.random.default_rng(seed)
    n_cand = 60
    grades = np.where(rng.random((n_queries, n_cand)) < 0.06, rng.integers(1, 4, (n_queries, n_cand)), 0)
    difficulty = rng.normal(0, 1, n_queries)[:, None]
    qids = np.array([f"q{i:05d}" for i in range(n_queries)])
    judged = rng.random((n_queries, n_cand)) < 0.3
    keep = judged | (grades > 0)
    qi, di = np.nonzero(keep)
    qrels = pd.DataFrame({"query_id": qids[qi], "doc_id": [f"d{d}" for d in di], "relevance": grades[qi, di]})
    parts = []
    for s in range(n_systems):
        score = grades * (0.6 + 0.05 * s) + difficulty * 0.3 + rng.normal(0, 1, (n_queries, n_cand))
        top = np.argsort(-score, axis=1)[:, :depth]
        rows = np.repeat(np.arange(n_queries), depth)
        parts.append(
            pd.DataFrame(
                {
                    "system": f"s{s:02d}",
                    "query_id": qids[rows],
                    "doc_id": [f"d{d}" for d in top.ravel()],
                    "score": np.take_along_axis(score, top, axis=1).ravel(),
                }
            )  # fmt: skip
        )
    segments = pd.Series([f"segment {i % 20:02d}" for i in rng.permutation(n_queries)], index=qids, name="segment")
    return pd.concat(parts, ignore_index=True), qrels, segments


def timed(func) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        func()
        return time.perf_counter() - start


def compare_figures(n_queries: int, reps: int) -> dict:
    run, qrels, segments = generate(n_queries, 10, 50)
    out = {"n_queries": n_queries, "rows": len(run), "uptime_before": uptime(), "public": {}, "stats": {}}
    public = {"unsliced": [], "sliced": []}
    for rep in range(reps):
        public["unsliced"].append(timed(lambda rep=rep: rankviz.compare(run, "s00", MEASURES, qrels, rng=rep)))
        public["sliced"].append(
            timed(lambda rep=rep: rankviz.compare(run, "s00", MEASURES, qrels, by=segments, rng=rep))
        )
    out["public"] = public
    table = rankviz.evaluate(run, MEASURES, qrels, per_query=True, by=segments)
    plain = table.drop(columns="segment")
    stats = {"unsliced": [], "sliced": []}
    for _ in range(reps):
        stats["unsliced"].append(timed(lambda: rankviz.stats.compare(plain, baseline="s00", measures=MEASURES, rng=0)))
        stats["sliced"].append(timed(lambda: rankviz.stats.compare(table, baseline="s00", measures=MEASURES, rng=0)))
    out["stats"] = stats
    out["uptime_after"] = uptime()
    return out


def bootstrap_figure(reps: int) -> dict:
    sys.path.insert(0, str(HERE))
    import datagen  # the data benchmarks/run.py uses

    data = datagen.ensure("msmarco", with_systems=True)
    before = uptime()
    cmd = [sys.executable, str(HERE / "_child.py"), "bootstrap", "--run", str(data["systems"]),
           "--qrels", str(data["qrels"]), "--reps", str(reps)]  # fmt: skip
    result = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    return {**result, "uptime_before": before, "uptime_after": uptime()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--skip-bootstrap", action="store_true")
    parser.add_argument("--skip-compare", action="store_true")
    args = parser.parse_args()
    report = {}
    if not args.skip_compare:
        report["compare"] = c = compare_figures(args.queries, args.reps)
        for kind in ("public", "stats"):
            unsliced, sliced = np.median(c[kind]["unsliced"]), np.median(c[kind]["sliced"])
            print(f"compare ({kind}): unsliced {unsliced:.2f} s, by= {sliced:.2f} s, ratio {sliced / unsliced:.2f}")
        print(f"  uptime before: {c['uptime_before']}\n  uptime after:  {c['uptime_after']}")
    if not args.skip_bootstrap:
        report["bootstrap"] = b = bootstrap_figure(args.reps)
        ours, scipy = np.median(b["rankviz"]), np.median(b["scipy_one_column"])
        print(f"bootstrap: rankviz {ours:.2f} s, scipy BCa one column {scipy:.2f} s, ratio {ours / scipy:.2f}")
        print(f"  uptime before: {b['uptime_before']}\n  uptime after:  {b['uptime_after']}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
