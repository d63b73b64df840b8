"""Deterministic synthetic runs and qrels for the benchmarks.

The large set mimics MS MARCO passage dev: query ids and passage ids are decimal
strings of varying length (passage ids drawn from 0 .. 8,841,822, so 1 to 7
digits), 1,000 retrieved passages per query with float scores, and graded qrels
with 1-10 judged passages per query (grades 0-3, at least one grade >= 1). About
10% of the queries retrieve none of their relevant passages.

Scores are multiples of 2**-12 below 64, so they are exact in float32 (pytrec_eval
compares scores as float32; with these scores float32 and float64 agree). About 3%
of the rows tie with a neighbour by chance, and in 5% of the queries a relevant
item is tied on purpose with the item ranked just above it, so trec_eval's doc-id
tie-break matters for a few hundred queries.

Everything is a pure function of the seed. Frames are written to parquet under
``benchmarks/_data`` (git-ignored) and load back with pandas' default ``str`` dtype.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "_data"
N_PASSAGES = 8_841_823
STEP = 1.0 / 4096


def _unique_per_row(rng, n_rows, n_cols, high, forbid=None):
    """An (n_rows, n_cols) int64 array, values in [0, high), distinct within each row (and not in ``forbid``)."""
    out = rng.integers(0, high, size=(n_rows, n_cols))
    while True:
        flat = out.ravel()
        key = np.repeat(np.arange(n_rows, dtype=np.int64), n_cols) * high + flat
        order = np.argsort(key, kind="stable")
        dup = np.zeros(len(key), dtype=bool)
        dup[order[1:]] = key[order[1:]] == key[order[:-1]]
        if forbid is not None:
            dup |= np.isin(key, forbid)
        if not dup.any():
            return out
        flat[dup] = rng.integers(0, high, size=int(dup.sum()))


def generate(n_queries: int, n_docs: int, seed: int):
    """(run in TREC order, qrels) as DataFrames with ``str`` id columns."""
    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(1_102_000, size=n_queries, replace=False))
    docs = _unique_per_row(rng, n_queries, n_docs, N_PASSAGES)

    # Scores: a per-query level plus noise, on a grid of 2**-12 (float32-exact), sorted descending per query.
    level = rng.uniform(8.0, 30.0, size=(n_queries, 1))
    raw = level + rng.gamma(2.0, 2.0, size=(n_queries, n_docs))
    scores = -np.sort(-np.round(np.minimum(raw, 63.0) / STEP) * STEP, axis=1)

    # Judgements: 1-10 judged docs per query, at least one with grade >= 1.
    n_judged = rng.integers(1, 11, size=n_queries)
    n_rel = 1 + (rng.random(n_queries) * n_judged).astype(np.int64)
    owner = np.repeat(np.arange(n_queries), n_judged)
    nth = np.arange(len(owner)) - np.repeat(np.cumsum(n_judged) - n_judged, n_judged)
    grade = np.where(nth < n_rel[owner], rng.choice([1, 1, 1, 2, 2, 3], size=len(owner)), 0)
    no_relevant_retrieved = rng.random(n_queries) < 0.10
    # A judged doc is retrieved with probability 0.7 (grade 0 docs too), the first relevant one always,
    # except in the 10% of queries that retrieve no relevant doc.
    retrieved = (rng.random(len(owner)) < 0.7) | (nth == 0)
    retrieved &= ~(no_relevant_retrieved[owner] & (grade > 0))
    retrieved &= nth < n_docs
    # Position in the list: exp(U**1.3 * log(n_docs)), skewed to the top (43% in the top 10 at n_docs = 1,000).
    pos = np.full(len(owner), -1)
    todo = np.flatnonzero(retrieved)
    while len(todo):
        pos[todo] = np.minimum(np.exp(rng.random(len(todo)) ** 1.3 * np.log(n_docs)).astype(np.int64) - 1, n_docs - 1)
        key = owner * n_docs + np.where(pos >= 0, pos, -1)
        used = key[pos >= 0]
        order = np.argsort(used, kind="stable")
        clash_sorted = np.zeros(len(used), dtype=bool)
        clash_sorted[1:] = used[order[1:]] == used[order[:-1]]
        clash = np.zeros(len(used), dtype=bool)
        clash[order] = clash_sorted
        todo = np.flatnonzero(pos >= 0)[clash]
    judged_doc = np.empty(len(owner), dtype=np.int64)
    r = pos >= 0
    judged_doc[r] = docs[owner[r], pos[r]]
    # Unretrieved judged docs: fresh ids, not in the query's list and distinct from each other.
    forbid = np.arange(n_queries, dtype=np.int64).repeat(n_docs) * N_PASSAGES + docs.ravel()
    fresh = ~r
    if fresh.any():
        extra = _unique_per_row(rng, int(fresh.sum()), 1, N_PASSAGES)
        key = owner[fresh] * N_PASSAGES + extra[:, 0]
        while True:
            bad = np.isin(key, forbid) | pd.Series(key).duplicated().to_numpy()
            if not bad.any():
                break
            extra[bad, 0] = rng.integers(0, N_PASSAGES, size=int(bad.sum()))
            key = owner[fresh] * N_PASSAGES + extra[:, 0]
        judged_doc[fresh] = extra[:, 0]

    # Deliberate ties: in 5% of the queries, the item above a retrieved relevant item gets its score.
    rel_pos = np.where(r & (grade > 0) & (pos > 0), pos, n_docs)
    first_rel = np.full(n_queries, n_docs)
    np.minimum.at(first_rel, owner, rel_pos)
    tie_q = np.flatnonzero((first_rel < n_docs) & (rng.random(n_queries) < 0.05))
    scores[tie_q, first_rel[tie_q] - 1] = scores[tie_q, first_rel[tie_q]]

    qid_str = qids.astype(str)
    run = pd.DataFrame(
        {
            "query_id": pd.array(np.repeat(qid_str, n_docs), dtype="str"),
            "doc_id": pd.array(docs.ravel().astype(str), dtype="str"),
            "score": scores.ravel(),
        }
    )
    qrels = pd.DataFrame(
        {
            "query_id": pd.array(qid_str[owner], dtype="str"),
            "doc_id": pd.array(judged_doc.astype(str), dtype="str"),
            "relevance": grade.astype(np.int64),
        }
    )
    return run, qrels


def shuffled(run: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The same rows in a random order (fresh RangeIndex)."""
    perm = np.random.default_rng(seed).permutation(len(run))
    return run.iloc[perm].reset_index(drop=True)


def systems(run: pd.DataFrame, n_systems: int, depth: int, seed: int) -> pd.DataFrame:
    """``n_systems`` systems in one frame: each reranks every query's top ``depth`` with its own noise."""
    rng = np.random.default_rng(seed)
    pos = run.groupby("query_id", sort=False).cumcount().to_numpy()
    top = run[pos < depth].reset_index(drop=True)
    parts = []
    for s in range(n_systems):
        noise = np.round(rng.normal(0.0, 1.5, size=len(top)) / STEP) * STEP
        part = top.assign(score=np.clip(top["score"].to_numpy() + noise, 0.0, 63.0))
        part = part.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
        part.insert(0, "system", pd.array([f"system_{s:02d}"] * len(part), dtype="str"))
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


SETS = {
    # name: (n_queries, n_docs, seed)
    "msmarco": (7_000, 1_000, 20261201),
    "small": (500, 100, 20261202),
    "quick": (1_000, 300, 20261203),
}


def paths(name: str) -> dict[str, Path]:
    return {
        "run": DATA / f"{name}_run.parquet",
        "shuffled": DATA / f"{name}_run_shuffled.parquet",
        "qrels": DATA / f"{name}_qrels.parquet",
        "systems": DATA / f"{name}_systems.parquet",
    }


def ensure(name: str, *, with_systems: bool = False, log=print) -> dict[str, Path]:
    """Write the named set's parquet files unless they exist; return their paths."""
    n_queries, n_docs, seed = SETS[name]
    p = paths(name)
    DATA.mkdir(parents=True, exist_ok=True)
    if not (p["run"].exists() and p["shuffled"].exists() and p["qrels"].exists()):
        log(f"generating {name}: {n_queries:,} queries x {n_docs:,} docs ...")
        run, qrels = generate(n_queries, n_docs, seed)
        run.to_parquet(p["run"], index=False)
        shuffled(run, seed + 1).to_parquet(p["shuffled"], index=False)
        qrels.to_parquet(p["qrels"], index=False)
    if with_systems and not p["systems"].exists():
        log(f"generating {name}: 10 systems x top 100 ...")
        run = pd.read_parquet(p["run"])
        systems(run, 10, min(100, n_docs), seed + 2).to_parquet(p["systems"], index=False)
    return p
