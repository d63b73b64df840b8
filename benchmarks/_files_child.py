"""One timed unit of ``benchmarks/files.py`` in a fresh process; prints one JSON object on its last stdout line.

Called by ``files.py`` (never imported by it). The parent times the whole process
(start to exit) and reads its peak resident memory; this child adds the time of
each step inside it (``import``, reading, evaluating) and the means it computed.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# As in _child.py: benchmarks/coverage.py would shadow the `coverage` package numba (imported by ranx) looks for.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

MEASURES = ["RR", "nDCG@10", "AP", "R@100"]
PYTREC = {"RR": "recip_rank", "nDCG@10": "ndcg_cut_10", "AP": "map", "R@100": "recall_100"}


def rankviz_means(run_path: str, qrels_path: str) -> dict:
    t0 = time.perf_counter()
    import rankviz

    t1 = time.perf_counter()
    run = rankviz.read_run(run_path)
    t2 = time.perf_counter()
    qrels = rankviz.read_qrels(qrels_path)
    t3 = time.perf_counter()
    means = rankviz.evaluate(run, MEASURES, qrels)
    t4 = time.perf_counter()
    return {
        "means": {m: float(means[m].iloc[0]) for m in MEASURES},
        "steps": {"import": t1 - t0, "read_run": t2 - t1, "read_qrels": t3 - t2, "evaluate": t4 - t3},
    }


def pytrec_eval_means(run_path: str, qrels_path: str) -> dict:
    t0 = time.perf_counter()
    import pytrec_eval

    t1 = time.perf_counter()
    with open(run_path) as handle:
        run = pytrec_eval.parse_run(handle)
    with open(qrels_path) as handle:
        qrels = pytrec_eval.parse_qrel(handle)
    t2 = time.perf_counter()
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "ndcg_cut.10", "map", "recall.100"}).evaluate(run)
    # trec_eval -c: judged queries missing from the run count as 0
    n = len(qrels)
    means = {m: sum(v[PYTREC[m]] for v in per_query.values()) / n for m in MEASURES}
    t3 = time.perf_counter()
    return {"means": means, "steps": {"import": t1 - t0, "parse files": t2 - t1, "evaluate": t3 - t2}}


def ranx_files(run_path: str, qrels_path: str) -> dict:
    """ranx reading the two files (``Run/Qrels.from_file``); its evaluate is left out (it compiles with numba on first
    use in every fresh process, minutes on this machine, which says nothing about reading files)."""
    t0 = time.perf_counter()
    from ranx import Qrels, Run

    t1 = time.perf_counter()
    run = Run.from_file(run_path, kind="trec")
    t2 = time.perf_counter()
    Qrels.from_file(qrels_path, kind="trec")
    t3 = time.perf_counter()
    return {"queries": len(run), "steps": {"import": t1 - t0, "Run.from_file": t2 - t1, "Qrels.from_file": t3 - t2}}


def rankviz_read(kind: str, paths: list[str]) -> dict:
    t0 = time.perf_counter()
    import rankviz

    t1 = time.perf_counter()
    frame = rankviz.read_runs(paths) if kind == "read_runs" else rankviz.read_run(paths[0])
    t2 = time.perf_counter()
    return {
        "rows": len(frame),
        "systems": int(frame["system"].nunique()),
        "frame_mb": float(frame.memory_usage(deep=True).sum()) / 2**20,
        "steps": {"import": t1 - t0, kind: t2 - t1},
    }


def main() -> None:
    unit, *paths = sys.argv[1:]
    if unit == "rankviz":
        out = rankviz_means(*paths)
    elif unit == "pytrec_eval":
        out = pytrec_eval_means(*paths)
    elif unit == "ranx":
        out = ranx_files(*paths)
    else:
        out = rankviz_read(unit, paths)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
