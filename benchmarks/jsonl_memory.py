"""Peak memory of reading a ~1 GB JSON-lines retrieval log vs the same run as a TREC file (issue 26).

Usage::

    .venv/bin/python benchmarks/jsonl_memory.py                  # ~1 GB log (50,000 queries x 1,000 docs)
    .venv/bin/python benchmarks/jsonl_memory.py --queries 2000   # a smoke run (does not write RESULTS.md)

The log and the TREC file are generated (deterministic) into a scratch folder outside the
repository (default ``$TMPDIR/rankviz-bench-jsonl``): one record per query,
``{"query_id": ..., "retrieved": [1,000 passage ids], "scores": [...], "relevant": [...]}``,
and the same rows as ``qid Q0 docid rank score tag`` lines. Each read is a fresh process
(``rankviz.read_jsonl(log)``; ``rankviz.read_run(run.txt)`` + ``read_qrels``) whose peak
resident memory is its ``ru_maxrss`` from ``os.wait4``; medians of ``--reps``. The target:
the log's peak within 2x of the TREC file's. Results go to ``benchmarks/RESULTS.md``
between the ``jsonl_memory.py`` markers, with ``uptime`` (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "RESULTS.md"
START, END = "<!-- jsonl_memory.py:start -->", "<!-- jsonl_memory.py:end -->"


def generate(folder: Path, n_queries: int, depth: int) -> tuple[Path, Path, Path]:
    """The log, the same run as a TREC file, and its qrels; written once per size."""
    log, run, qrels = (
        folder / f"log-{n_queries}.jsonl",
        folder / f"run-{n_queries}.txt",
        folder / f"qrels-{n_queries}.txt",
    )
    if log.exists() and run.exists() and qrels.exists():
        return log, run, qrels
    rng = np.random.default_rng(26)
    with open(log, "w") as out_log, open(run, "w") as out_run, open(qrels, "w") as out_qrels:
        for q in range(n_queries):
            qid = str(1_000_000 + q)
            docs = rng.choice(8_841_823, size=depth, replace=False).astype(str).tolist()
            scores = np.sort(rng.gamma(2.0, 5.0, size=depth).round(6))[::-1].tolist()
            gold = [docs[i] for i in rng.choice(depth, size=2, replace=False)] if q % 10 else [str(9_000_000 + q)]
            ids, values = '", "'.join(docs), ", ".join(map(repr, scores))
            out_log.write(
                f'{{"query_id": "{qid}", "retrieved": ["{ids}"], "scores": [{values}], "relevant": ["{gold[0]}"'
            )
            out_log.write("".join(f', "{g}"' for g in gold[1:]) + "]}\n")
            out_run.write("".join(f"{qid} Q0 {d} {i + 1} {s!r} bm25\n" for i, (d, s) in enumerate(zip(docs, scores))))
            out_qrels.write("".join(f"{qid} 0 {g} 1\n" for g in gold))
    return log, run, qrels


def unit(code: str, *args: str) -> dict:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], cwd=REPO, stdout=subprocess.PIPE)
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"unit failed: {code}")
    return {"wall": time.perf_counter() - start, "peak_mb": usage.ru_maxrss / 1024, "out": out.strip()}


JSONL = "import sys, rankviz; log = rankviz.read_jsonl(sys.argv[1]); print(len(log.run), len(log.qrels))"
TREC = (
    "import sys, rankviz; r = rankviz.read_run(sys.argv[1]); q = rankviz.read_qrels(sys.argv[2]); print(len(r), len(q))"
)
IMPORT = "import rankviz; print(0)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=50_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rankviz-bench-jsonl")
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    began = time.time()
    log, run, qrels = generate(args.scratch, args.queries, args.depth)
    uptime_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    rows = {"jsonl": [], "trec": [], "import": []}
    for rep in range(args.reps):
        order = ["jsonl", "trec"] if rep % 2 == 0 else ["trec", "jsonl"]
        for name in order:
            rows[name].append(unit(JSONL, str(log)) if name == "jsonl" else unit(TREC, str(run), str(qrels)))
        rows["import"].append(unit(IMPORT))
    assert rows["jsonl"][0]["out"] == rows["trec"][0]["out"], (rows["jsonl"][0]["out"], rows["trec"][0]["out"])
    uptime_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    med = {k: {m: statistics.median(r[m] for r in v) for m in ("wall", "peak_mb")} for k, v in rows.items()}
    ratio = statistics.median(j["peak_mb"] / t["peak_mb"] for j, t in zip(rows["jsonl"], rows["trec"]))
    sizes = {p.name: p.stat().st_size / 2**20 for p in (log, run, qrels)}
    lines = [
        START,
        "",
        "## A JSON-lines log vs the same run as a TREC file (`benchmarks/jsonl_memory.py`)",
        "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `benchmarks/jsonl_memory.py` in {(time.time() - began) / 60:.1f} min"
        f" ({args.reps} repetitions, each read a fresh process, order alternated; medians).",
        "",
        f"- Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}; shared.",
        f"- `uptime` before: `{uptime_before}`; after: `{uptime_after}`.",
        f"- Data: {args.queries:,} queries x {args.depth:,} docs = {args.queries * args.depth:,} rows, passage ids,"
        f" scores with 6 decimals. Log {sizes[log.name]:,.0f} MiB; TREC run {sizes[run.name]:,.0f} MiB"
        f" + qrels {sizes[qrels.name]:,.1f} MiB.",
        "",
        "| read | peak RSS (MiB) | wall (s) |",
        "|---|---|---|",
        f"| `read_jsonl(log)` (run and qrels) | {med['jsonl']['peak_mb']:,.0f} | {med['jsonl']['wall']:.1f} |",
        f"| `read_run(run.txt)` + `read_qrels(qrels.txt)` | {med['trec']['peak_mb']:,.0f} | {med['trec']['wall']:.1f} |",
        f"| `import rankviz` alone | {med['import']['peak_mb']:,.0f} | {med['import']['wall']:.1f} |",
        "",
        f"Peak of the log read / peak of the TREC read: **{ratio:.2f}x** (target: at most 2x).",
        "",
        END,
    ]
    report = "\n".join(lines)
    print(report)
    if args.queries >= 50_000:
        text = RESULTS.read_text()
        if START in text:
            text = text[: text.index(START)] + report + text[text.index(END) + len(END) :]
        else:
            text = text.rstrip() + "\n\n" + report + "\n"
        RESULTS.write_text(text)


if __name__ == "__main__":
    main()
