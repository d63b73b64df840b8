"""One measurement in a fresh process; prints one JSON object on its last stdout line.

Called by ``benchmarks/run.py`` (never imported by it), so every tool runs in its own
interpreter: no shared caches, JIT state or allocator history between tools.

Memory: after loading the frames and a warm-up call on the small set, the child
reads its resident set size (VmRSS), resets the kernel's high-water mark
(``echo 5 > /proc/self/clear_refs``) and reads VmHWM after the first timed call.
``peak_above_mb`` = VmHWM - VmRSS: the most memory the call held at any moment on
top of what was already resident (frames, imported modules, warm-up leftovers).
Where clear_refs is not writable, ``getrusage(RUSAGE_SELF).ru_maxrss`` before and
after is used instead (a lower bound: it cannot see below an earlier peak).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Python puts the script's folder first on sys.path, where benchmarks/coverage.py would shadow the `coverage`
# package that numba (imported by ranx) looks for. Take the folder off the path and load the helpers by file.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))


def _helper(name: str):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tools = _helper("tools")


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


class PeakMemory:
    """Peak resident memory of a block above the resident memory before it (MB)."""

    def __enter__(self):
        gc.collect()
        self.method = "VmHWM after clear_refs"
        try:
            Path("/proc/self/clear_refs").write_text("5")
            self.before = _status_kb("VmRSS")
        except OSError:
            self.method = "ru_maxrss"
            self.before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return self

    def __exit__(self, *exc):
        if self.method == "ru_maxrss":
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        else:
            after = _status_kb("VmHWM")
        self.rss_before_mb = self.before / 1024
        self.peak_above_mb = max(after - self.before, 0) / 1024
        return False


def _load(path):
    import pandas as pd

    return pd.read_parquet(path)


def cmd_time(args) -> dict:
    """Time one tool: warm-up on the small set, then reps on the large one (alternating orders if several runs)."""

    t = time.perf_counter()
    if args.tool == "rankviz":
        import rankviz  # noqa: F401
    elif args.tool == "pytrec_eval":
        import pytrec_eval  # noqa: F401
    else:
        import ranx  # noqa: F401
    import_s = time.perf_counter() - t
    evaluate = tools.EVALUATE[args.tool]

    t = time.perf_counter()
    runs = {Path(p).stem: _load(p) for p in args.run}
    qrels = _load(args.qrels)
    load_s = time.perf_counter() - t
    frames_mb = sum(float(f.memory_usage(deep=True).sum()) for f in [*runs.values(), qrels]) / 2**20

    t = time.perf_counter()
    evaluate(_load(args.warm_run), _load(args.warm_qrels))
    warm_s = time.perf_counter() - t
    gc.collect()

    out = {
        "tool": args.tool,
        "import_s": import_s,
        "load_s": load_s,
        "warm_s": warm_s,
        "frames_mb": frames_mb,
        "runs": {},
    }
    for name in runs:
        out["runs"][name] = {"times": []}
    means = {}
    for rep in range(args.reps):
        for name, run in runs.items():
            entry = out["runs"][name]
            if rep == 0:
                with PeakMemory() as mem:
                    t = time.perf_counter()
                    means[name] = evaluate(run, qrels)
                    entry["times"].append(time.perf_counter() - t)
                entry.update(peak_above_mb=mem.peak_above_mb, rss_before_mb=mem.rss_before_mb, memory_method=mem.method)
            else:
                gc.collect()
                t = time.perf_counter()
                evaluate(run, qrels)
                entry["times"].append(time.perf_counter() - t)
    for name in runs:
        out["runs"][name]["means"] = means[name]
    return out


def cmd_agree(args) -> dict:
    """Per-query values of the three tools on one run; which queries have a relevant item in a score tie."""
    import numpy as np

    run, qrels = _load(args.run[0]), _load(args.qrels)
    scores = run["score"].to_numpy()
    out = {"float32_exact_scores": bool((scores.astype(np.float32).astype(np.float64) == scores).all())}
    # Queries where a relevant item shares its score with another item of the query: trec_eval orders them
    # by doc id (descending), ranx by an unstable sort, so RR/AP/nDCG may legitimately differ there.
    tied_rows = run.duplicated(["query_id", "score"], keep=False)
    relevant = qrels[qrels["relevance"] > 0][["query_id", "doc_id"]]
    hits = run[tied_rows].merge(relevant, on=["query_id", "doc_id"])
    tie_queries = set(hits["query_id"].tolist())
    out["queries"] = int(qrels["query_id"].nunique())
    out["queries_with_tied_relevant"] = len(tie_queries)
    values = {}
    for tool in ("rankviz", "pytrec_eval", "ranx"):
        t = time.perf_counter()
        values[tool] = tools.PER_QUERY[tool](run, qrels)
        out[f"{tool}_per_query_s"] = time.perf_counter() - t
    ref = values["rankviz"]
    for tool in ("pytrec_eval", "ranx"):
        other = values[tool]
        common = sorted(set(ref) & set(other))
        report = {"queries_compared": len(common), "missing": len(set(ref) ^ set(other))}
        for m in tools.MEASURES:
            diff = np.array([abs(ref[q][m] - other[q][m]) for q in common])
            untied = np.array([q not in tie_queries for q in common])
            report[m] = {
                "max_abs_diff": float(diff.max()) if len(diff) else 0.0,
                "max_abs_diff_without_tied_relevant": float(diff[untied].max()) if untied.any() else 0.0,
                "queries_over_1e-9": int((diff > 1e-9).sum()),
                "queries_over_1e-9_without_tied_relevant": int((diff[untied] > 1e-9).sum()),
            }
        out[tool] = report
    return out


def cmd_systems(args) -> dict:
    """One frame with a system column vs one evaluation per system (frames split before timing)."""
    import rankviz

    frame, qrels = _load(args.run[0]), _load(args.qrels)
    systems = list(dict.fromkeys(frame["system"].tolist()))
    separate = {
        s: part.drop(columns="system").reset_index(drop=True) for s, part in frame.groupby("system", sort=False)
    }
    rankviz.evaluate(_load(args.warm_run), tools.MEASURES, _load(args.warm_qrels))
    combined_t, separate_t = [], []
    for rep in range(args.reps):
        gc.collect()
        t = time.perf_counter()
        rankviz.evaluate(frame, tools.MEASURES, qrels)
        combined_t.append(time.perf_counter() - t)
        gc.collect()
        t = time.perf_counter()
        for s in systems:
            rankviz.evaluate(separate[s], tools.MEASURES, qrels)
        separate_t.append(time.perf_counter() - t)
    return {"n_systems": len(systems), "rows": len(frame), "combined": combined_t, "separate": separate_t}


def cmd_bootstrap(args) -> dict:
    """rankviz.stats.bootstrap on 2 systems x 4 measures x n queries vs scipy.stats.bootstrap on one column."""
    import numpy as np
    import scipy.stats

    import rankviz

    frame, qrels = _load(args.run[0]), _load(args.qrels)
    two = frame[frame["system"].isin(sorted(set(frame["system"].tolist()))[:2])]
    table = rankviz.evaluate(two, tools.MEASURES, qrels, per_query=True)
    n_queries = int(table["query_id"].nunique())
    x = table[table["system"] == table["system"].iloc[0]]["RR@10"].to_numpy()
    out = {"n_queries": n_queries, "n_resamples": args.resamples, "rankviz": [], "scipy_one_column": []}
    import warnings

    for rep in range(args.reps):
        gc.collect()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with PeakMemory() as mem:
                t = time.perf_counter()
                rankviz.stats.bootstrap(table, tools.MEASURES, n_resamples=args.resamples, rng=rep)
                out["rankviz"].append(time.perf_counter() - t)
        if rep == 0:
            out["rankviz_peak_above_mb"] = mem.peak_above_mb
        gc.collect()
        with PeakMemory() as mem:
            t = time.perf_counter()
            scipy.stats.bootstrap((x,), np.mean, n_resamples=args.resamples, method="BCa", vectorized=True, rng=rep)
            out["scipy_one_column"].append(time.perf_counter() - t)
        if rep == 0:
            out["scipy_peak_above_mb"] = mem.peak_above_mb
    return out


def cmd_stages(args) -> dict:
    """Median time of each stage of rankviz.evaluate, for each run (alternating), through thin timing wrappers."""
    import collections

    import rankviz
    from rankviz._core import judged as _judged
    from rankviz._core import long_run as _frame  # where the query ids are encoded
    from rankviz.measures import dispatch as kernels

    runs = {Path(p).stem: _load(p) for p in args.run}
    qrels = _load(args.qrels)
    spent = collections.defaultdict(float)

    def timed(module, name, label):
        inner = getattr(module, name)

        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                spent[label] += time.perf_counter() - t

        setattr(module, name, wrapper)

    timed(_judged, "run_arrays", "columns to arrays (_frame.run_arrays)")
    timed(_frame, "encode", "  of which: encode query (and system) ids (_codes.encode)")
    timed(
        _judged,
        "scan_rows",
        "hash doc ids, keep join candidates, sort (cell, doc) keys for repeats (_row_keys.scan_rows)",
    )
    timed(_judged, "matched_grades", "qrels join: confirm the candidates (_row_keys.matched_grades)")
    timed(_judged, "_duplicate_rows", "duplicate check: confirm the candidates (_duplicate_rows)")
    timed(_judged, "rank_hits", "ranks of the judged rows (_ranks.rank_hits)")
    timed(kernels, "compute", "measure kernels (kernels.compute)")
    for run in runs.values():
        rankviz.evaluate(run, tools.MEASURES, qrels)
    samples = {name: collections.defaultdict(list) for name in runs}
    for rep in range(args.reps):
        for name, run in runs.items():
            gc.collect()
            spent.clear()
            t = time.perf_counter()
            rankviz.evaluate(run, tools.MEASURES, qrels)
            total = time.perf_counter() - t
            for label, seconds in spent.items():
                samples[name][label].append(seconds)
            samples[name]["total (rankviz.evaluate)"].append(total)
            top = sum(v for k, v in spent.items() if not k.startswith("  "))
            samples[name]["everything else"].append(total - top)
    import statistics

    return {name: {label: statistics.median(v) for label, v in per.items()} for name, per in samples.items()}


def cmd_profile(args) -> dict:
    """Line timings of rankviz's canonical-data builder on one run (line_profiler; after a warm-up call)."""

    from line_profiler import LineProfiler

    import rankviz
    from rankviz import evaluation
    from rankviz._core import hashing as _hashing
    from rankviz._core import hit_ranks as _ranks
    from rankviz._core import judged as _judged
    from rankviz._core import long_run as _frame
    from rankviz._core import row_hashes as _row_keys

    run, qrels = _load(args.run[0]), _load(args.qrels)
    rankviz.evaluate(run, tools.MEASURES, qrels)
    profiler = LineProfiler()
    functions = [
        evaluation.evaluate,
        _judged.judge,
        _judged._judge_arrays,
        _frame.long_shape,
        _ranks.rank_hits,
        _judged._duplicate_rows,
        _row_keys.scan_rows,
        _row_keys.matched_grades,
        _hashing.repeated_candidates,
    ]
    for f in functions:
        profiler.add_function(f)
    t = time.perf_counter()
    profiler.runcall(rankviz.evaluate, run, tools.MEASURES, qrels)
    total = time.perf_counter() - t
    stats = profiler.get_stats()
    lines = []
    for (filename, first_line, name), timings in stats.timings.items():
        source = Path(filename).read_text().splitlines()
        for lineno, hits, ns in timings:
            seconds = ns * stats.unit
            if seconds >= 0.004:
                lines.append(
                    {
                        "function": name,
                        "file": Path(filename).name,
                        "line": lineno,
                        "seconds": seconds,
                        "code": source[lineno - 1].strip(),
                    }
                )
    return {"total_s": total, "lines": lines}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["time", "agree", "systems", "bootstrap", "profile", "stages"])
    parser.add_argument("--tool", default="rankviz")
    parser.add_argument("--run", nargs="+", default=[])
    parser.add_argument("--qrels")
    parser.add_argument("--warm-run")
    parser.add_argument("--warm-qrels")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()
    commands = {
        "time": cmd_time,
        "agree": cmd_agree,
        "systems": cmd_systems,
        "bootstrap": cmd_bootstrap,
        "profile": cmd_profile,
        "stages": cmd_stages,
    }
    result = commands[args.command](args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
