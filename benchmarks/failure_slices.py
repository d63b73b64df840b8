"""Failure slices on simulated logs: planted causes found, nothing found under the null, and the time at 7,000 queries.

Design (one simulated log):

- ``N`` queries (default 2,000: a month of a small RAG assistant's logged questions), a base failure rate
  of 20% (RR@10 = 0);
- attributes: ``segment`` (8 product areas), 3 more categorical attributes (3-12 levels) and 3 numeric
  ones (query length, number of relevant documents, a latency), none of them related to failure;
- query text: 4-10 words from a Zipf(1.1) vocabulary of 1,500 words;
- planted (unless ``--null``): queries of one segment (1/8 of the log) fail at 40% instead of 20%, and a
  planted term added to 3% of the queries fails at 60%.

"Found" means the planted segment is the top-ranked slice of the attribute slices *and* the planted term
the top-ranked slice of the text slices (each is first among its kind), and both are significant (q < 0.05).
Under the null the reported share is the number of slices with q < 0.05 over the number tested, and
also the share of simulated logs with any slice reported (which BH keeps near alpha under the complete null).

Run: ``python benchmarks/failure_slices.py [--simulations 100] [--queries 2000]``; the timing part
evaluates ``failure_slices`` on 7,000 queries with 20 attributes and text.
"""

from __future__ import annotations

import argparse
import subprocess
import time

import numpy as np
import pandas as pd

import rankviz

PLANTED_TERM = "warranty"


def simulate(rng, n: int, *, planted: bool, n_attributes: int = 7, vocabulary: int = 1500):
    """(per-query table, queries) of one simulated log."""
    ranks = np.arange(1, vocabulary + 1)
    weights = ranks**-1.1
    weights /= weights.sum()
    words = np.array([f"w{i}" for i in range(vocabulary)], dtype=object)
    lengths = rng.integers(4, 11, size=n)
    texts = [" ".join(rng.choice(words, size=m, p=weights)) for m in lengths]
    segment = rng.integers(0, 8, size=n)
    has_term = rng.random(n) < 0.03
    p_fail = np.full(n, 0.20)
    if planted:
        p_fail[segment == 3] = 0.40
        p_fail[has_term] = 0.60
        texts = [f"{t} {PLANTED_TERM}" if h else t for t, h in zip(texts, has_term)]
    failed = rng.random(n) < p_fail
    rr = np.where(failed, 0.0, 1.0 / rng.integers(1, 11, size=n))
    ids = np.array([f"q{i:05d}" for i in range(n)], dtype=object)
    table = pd.DataFrame({"query_id": ids, "RR@10": rr, "segment": [f"area {s}" for s in segment]})
    extra = {}
    for a in range(n_attributes - 1):
        if a % 2 == 0:
            levels = int(rng.integers(3, 13))
            extra[f"category_{a}"] = [f"c{v}" for v in rng.integers(0, levels, size=n)]
        else:
            extra[f"number_{a}"] = rng.gamma(2.0, 10.0, size=n).round(1)
    queries = pd.DataFrame({"query_id": ids, "text": texts, **extra})
    return table, queries


def found(table) -> bool:
    attrs = table[table["attribute"] != "text"]
    terms = table[table["attribute"] == "text"]
    if attrs.empty or terms.empty:
        return False
    a, t = attrs.iloc[0], terms.iloc[0]
    return (
        (a["attribute"], a["value"]) == ("segment", "area 3")
        and t["value"] == PLANTED_TERM
        and a["q_value"] < 0.05
        and t["q_value"] < 0.05
    )


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    print("uptime:", uptime())
    hits, both_top2 = 0, 0
    for _ in range(args.simulations):
        table, queries = simulate(rng, args.queries, planted=True)
        result = rankviz.failure_slices(table, queries=queries)
        hits += found(result)
        top2 = set(zip(result["attribute"].head(2), result["value"].head(2)))
        both_top2 += top2 == {("segment", "area 3"), ("text", PLANTED_TERM)}
    print(f"planted: found (each first among its kind, q < 0.05) in {hits} of {args.simulations}; "
          f"the two planted slices are the top two overall in {both_top2} of {args.simulations}")  # fmt: skip

    shares, any_reported, tested = [], 0, []
    for _ in range(args.simulations):
        table, queries = simulate(rng, args.queries, planted=False)
        result = rankviz.failure_slices(table, queries=queries)
        m = result.attrs["rankviz"]["n_candidates"]
        reported = int((result["q_value"] < 0.05).sum())
        shares.append(reported / m)
        any_reported += reported > 0
        tested.append(m)
    print(f"null: mean share of slices reported at q < 0.05 = {np.mean(shares):.4%} (max {np.max(shares):.4%}); "
          f"logs with any slice reported: {any_reported} of {args.simulations}; "
          f"slices tested per log: median {int(np.median(tested))}")  # fmt: skip

    table, queries = simulate(np.random.default_rng(1), 7000, planted=True, n_attributes=20)
    rankviz.failure_slices(table.head(500), queries=queries)  # warm-up (imports)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        result = rankviz.failure_slices(table, queries=queries)
        times.append(time.perf_counter() - start)
    print(f"time: 7,000 queries, 20 attributes + text ({result.attrs['rankviz']['n_candidates']} slices tested): "
          f"median {np.median(times):.2f} s of 3 (min {min(times):.2f}); uptime: {uptime()}")  # fmt: skip


if __name__ == "__main__":
    main()
