"""Out-of-core scaling of rankviz.dask (issue #17): time and peak memory per worker versus the pandas path.

Usage::

    python benchmarks/dask_scale.py --scratch /work/scratch/dask_bench --sizes 1 10 100 --pandas-sizes 1 10 --trec 20

``--sizes`` are millions of rows (queries x 1,000 documents, string ids), written
once as parquet datasets (1,000 queries = 1M rows per file) under ``--scratch``
(outside the repository: nothing generated is committed). ``--trec`` writes the
first that many million rows as TREC run files too and times reading + evaluating
them. Each Dask measurement runs on a fresh LocalCluster of 2 worker processes, one
thread each, ``--memory-limit`` per worker; peak memory per worker is sampled every
0.5 s (RSS of the worker processes), and a restarted worker is reported. The pandas
path runs in a child process (peak RSS from ``getrusage``). Prints one JSON line per
measurement; ``--markdown`` prints the table for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

MEASURES = ["RR@10", "nDCG@10", "AP", "R@100"]
DOCS_PER_QUERY = 1_000
QUERIES_PER_FILE = 1_000


def _ids(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")


def _file(index: int) -> tuple[pa.Table, pd.DataFrame]:
    """1,000 queries x 1,000 docs (seeded by the file index) and their qrels (10 judged retrieved + 10 unretrieved)."""
    rng = np.random.default_rng(index)
    q = np.repeat(np.arange(index * QUERIES_PER_FILE, (index + 1) * QUERIES_PER_FILE), DOCS_PER_QUERY)
    pos = np.tile(np.arange(DOCS_PER_QUERY), QUERIES_PER_FILE)
    doc = (q * 7_919 + pos * 13) % 50_000_000
    score = np.round(rng.random(len(q)) * 100, 2)  # two decimals: ties happen
    run = pa.table({"query_id": _ids("q", q), "doc_id": _ids("d", doc), "score": score})
    judged_pos = rng.integers(0, DOCS_PER_QUERY, size=(QUERIES_PER_FILE, 10))
    qs = np.arange(index * QUERIES_PER_FILE, (index + 1) * QUERIES_PER_FILE)
    jdoc = (qs[:, None] * 7_919 + judged_pos * 13) % 50_000_000
    extra = 60_000_000 + qs[:, None] * 10 + np.arange(10)
    docs = np.concatenate([jdoc, extra], axis=1)
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat(["q" + str(x) for x in qs], 20),
            "doc_id": ["d" + str(x) for x in docs.ravel()],
            "relevance": rng.integers(0, 3, size=docs.size),
        }
    )
    return run, qrels.drop_duplicates(["query_id", "doc_id"])


def generate(scratch: Path, millions: int) -> tuple[Path, Path]:
    """The parquet dataset of ``millions`` M rows and its qrels file (reusing files already written)."""
    data, qrels_dir = scratch / "parquet", scratch / "qrels"
    data.mkdir(parents=True, exist_ok=True)
    qrels_dir.mkdir(exist_ok=True)
    for i in range(millions):
        target = data / f"part-{i:04d}.parquet"
        if not target.exists():
            run, qrels = _file(i)
            pq.write_table(run, target, row_group_size=DOCS_PER_QUERY * QUERIES_PER_FILE)
            qrels.to_parquet(qrels_dir / f"q-{i:04d}.parquet")
    qrels_path = scratch / f"qrels_{millions}M.txt"
    if not qrels_path.exists():
        frames = [pd.read_parquet(qrels_dir / f"q-{i:04d}.parquet") for i in range(millions)]
        qrels = pd.concat(frames, ignore_index=True)
        with open(qrels_path, "w") as f:
            for a, b, c in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]):
                f.write(f"{a} 0 {b} {c}\n")
    return data, qrels_path


def write_trec(scratch: Path, millions: int) -> list[Path]:
    out = scratch / "trec"
    out.mkdir(exist_ok=True)
    paths = []
    for i in range(millions):
        target = out / f"run-{i:04d}.txt"
        if not target.exists():
            t = pq.read_table(scratch / "parquet" / f"part-{i:04d}.parquet").to_pandas()
            rank = t.groupby("query_id", sort=False).cumcount() + 1
            lines = (
                t["query_id"] + " Q0 " + t["doc_id"] + " " + rank.astype(str) + " " + t["score"].map(repr) + " bench\n"
            )
            target.write_text("".join(lines.tolist()))
        paths.append(target)
    return paths


class _Sampler(threading.Thread):
    """Peak RSS of each worker process and the set of worker addresses seen, sampled every 0.5 s."""

    def __init__(self, client):
        super().__init__(daemon=True)
        self.client, self.peak, self.addresses, self.stop = client, {}, set(), threading.Event()

    def run(self):
        import psutil

        while not self.stop.is_set():
            try:
                for address, rss in self.client.run(lambda: psutil.Process().memory_info().rss).items():
                    self.addresses.add(address)
                    self.peak[address] = max(self.peak.get(address, 0), rss)
            except Exception:  # a worker restarting: the next sample sees the new one
                pass
            self.stop.wait(0.5)


def time_dask(paths, qrels_path: Path, rows: int, memory_limit: str, label: str, shuffle: bool = True) -> dict:
    from distributed import Client, LocalCluster

    import rankviz
    import rankviz.dask

    qrels = rankviz.read_qrels(qrels_path)
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        sampler = _Sampler(client)
        sampler.start()
        start = time.perf_counter()
        run = rankviz.dask.read_run(paths)
        table = run.rankviz.evaluate(MEASURES, qrels=qrels, per_query=True, shuffle=shuffle)
        seconds = time.perf_counter() - start
        sampler.stop.set()
        sampler.join()
    peak = max(sampler.peak.values()) / 2**30 if sampler.peak else float("nan")
    means = {m: float(table[m].mean()) for m in MEASURES}
    return {
        "path": "dask" if shuffle else "dask, shuffle=False",
        "input": label,
        "rows": rows,
        "seconds": round(seconds, 1),
        "rows_per_s": round(rows / seconds),
        "peak_worker_gib": round(peak, 2),
        "workers_seen": len(sampler.addresses),
        "queries": len(table),
        "means": means,
    }


_PANDAS_CHILD = """
import json, resource, sys, time
import pandas as pd, rankviz
paths, qrels_path, measures = json.loads(sys.argv[1])
start = time.perf_counter()
run = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
qrels = rankviz.read_qrels(qrels_path)
table = rankviz.evaluate(run, measures, qrels, per_query=True)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({"seconds": seconds, "peak_gib": peak, "queries": len(table),
                  "means": {m: float(table[m].mean()) for m in measures}}))
"""


def time_pandas(data: Path, qrels_path: Path, millions: int) -> dict:
    paths = [str(data / f"part-{i:04d}.parquet") for i in range(millions)]
    out = subprocess.run(
        [sys.executable, "-c", _PANDAS_CHILD, json.dumps([paths, str(qrels_path), MEASURES])],
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    rows = millions * 1_000_000
    return {
        "path": "pandas",
        "input": "parquet",
        "rows": rows,
        "seconds": round(result["seconds"], 1),
        "rows_per_s": round(rows / result["seconds"]),
        "peak_gib": round(result["peak_gib"], 2),
        "queries": result["queries"],
        "means": result["means"],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1, 10, 100], help="millions of rows (Dask, parquet)")
    parser.add_argument("--pandas-sizes", type=int, nargs="*", default=[1, 10])
    parser.add_argument("--trec", type=int, default=0, help="millions of rows also read from TREC files (0: none)")
    parser.add_argument(
        "--no-shuffle-sizes",
        type=int,
        nargs="*",
        default=[],
        help="millions of rows also timed with shuffle=False (each parquet file holds whole queries)",
    )
    parser.add_argument("--memory-limit", default="4GB")
    args = parser.parse_args(argv)
    for millions in sorted(set(args.sizes) | set(args.pandas_sizes) | set(args.no_shuffle_sizes) | ({args.trec} - {0})):
        data, qrels_path = generate(args.scratch, millions)
        if millions in args.pandas_sizes:
            print(json.dumps(time_pandas(data, qrels_path, millions)), flush=True)
        if millions in args.sizes:
            paths = [str(data / f"part-{i:04d}.parquet") for i in range(millions)]
            print(json.dumps(time_dask(paths, qrels_path, millions * 10**6, args.memory_limit, "parquet")), flush=True)
        if millions in args.no_shuffle_sizes:
            paths = [str(data / f"part-{i:04d}.parquet") for i in range(millions)]
            print(
                json.dumps(time_dask(paths, qrels_path, millions * 10**6, args.memory_limit, "parquet", False)),
                flush=True,
            )
        if millions == args.trec:
            trec = [str(p) for p in write_trec(args.scratch, millions)]
            print(json.dumps(time_dask(trec, qrels_path, millions * 10**6, args.memory_limit, "trec")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
