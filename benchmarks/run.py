"""rankviz vs pytrec_eval vs ranx: speed and memory from DataFrames to mean measures.

Usage::

    .venv/bin/python benchmarks/run.py            # MS MARCO dev scale: 7,000 queries x 1,000 docs
    .venv/bin/python benchmarks/run.py --quick    # smoke run: 1,000 x 300, 3 repetitions

What is timed, per tool, in its own subprocess (``benchmarks/_child.py``), is the
function of the same name in ``benchmarks/tools.py``: from the loaded run and qrels
frames (ids in pandas' default ``str`` dtype) to the means of RR@10, nDCG@10, AP and
R@100 -- for pytrec_eval and ranx including the dicts / objects they need built from
the frames. Each child imports its tool, loads the frames, makes one untimed
warm-up call on the 500 x 100 set (ranx's numba JIT, lazy imports), then times
``--reps`` calls on the large set; the first call also measures the peak memory
(see ``_child.py``). rankviz's TREC-ordered and shuffled rows alternate in one child,
so their ratio is measured under the same load. Medians are reported.

Before timing, all three tools are checked to agree per query (1e-9) on the large
set. Results go to ``benchmarks/RESULTS.md`` (the section between the run.py
markers; ``coverage.py`` owns the other) and ``benchmarks/_data/results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import datagen
import speed_history

RESULTS = HERE / "RESULTS.md"
START, END = "<!-- run.py:start -->", "<!-- run.py:end -->"

TARGETS = {
    "speed": "rankviz end to end >= 12x faster than pytrec_eval (TREC order; issue 36)",
    "order": "rows in random order <= 1.5x slower than rows in TREC order",
    "memory": "peak memory above the loaded frames <= 300 MB",
    "first_call": "fresh process: import + evaluating the 500 x 100 set < 2 s",
    "systems": "one frame with 10 systems costs less than 10 separate evaluations",
    "bootstrap": "paired bootstrap, n queries x 10,000 resamples x 4 measures x 2 systems < 2 s",
}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def child(*args: str) -> dict:
    """Run ``_child.py`` in a fresh interpreter and return its JSON result."""
    cmd = [sys.executable, str(HERE / "_child.py"), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def first_call(small: dict[str, Path], repeats: int) -> dict:
    """Wall time of a fresh ``python -c``: interpreter start, import rankviz, read and evaluate the small set."""
    code = (
        "import json, time; t0 = time.perf_counter()\n"
        "import rankviz, pandas as pd\n"
        "t1 = time.perf_counter()\n"
        f"run = pd.read_parquet({str(small['run'])!r}); qrels = pd.read_parquet({str(small['qrels'])!r})\n"
        "t2 = time.perf_counter()\n"
        "rankviz.evaluate(run, ['RR@10', 'nDCG@10', 'AP', 'R@100'], qrels)\n"
        "t3 = time.perf_counter()\n"
        "print(json.dumps({'import_s': t1 - t0, 'read_s': t2 - t1, 'evaluate_s': t3 - t2}))\n"
    )
    walls, parts = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=HERE.parent, check=False
        )
        walls.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-4000:])
        parts.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {"wall": walls, "parts": parts}


def machine() -> dict:
    info = {"cpu": platform.processor() or "unknown", "cores": os.cpu_count(), "python": platform.python_version()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["ram_gib"] = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    info["load_average_at_start"] = os.getloadavg()
    info["kernel"] = platform.release()
    return info


def versions() -> dict:
    out = {"python": platform.python_version()}
    for name, dist in [
        ("numpy", "numpy"),
        ("pandas", "pandas"),
        ("pyarrow", "pyarrow"),
        ("scipy", "scipy"),
        ("pytrec_eval", "pytrec_eval-terrier"),
        ("ranx", "ranx"),
        ("numba", "numba"),
        ("rankviz", "rankviz"),
    ]:
        try:
            out[name] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def median(values) -> float:
    return float(statistics.median(values))


# ----------------------------------------------------------------------------- report


def _fmt_s(x: float) -> str:
    return f"{x:.3f} s" if x < 10 else f"{x:.1f} s"


def verdicts(r: dict) -> dict:
    rv = r["rankviz"]["runs"]
    sorted_name, shuffled_name = r["names"]["sorted"], r["names"]["shuffled"]
    t_sorted, t_shuffled = median(rv[sorted_name]["times"]), median(rv[shuffled_name]["times"])
    out = {}
    if "pytrec_eval" in r:
        ratio = median(r["pytrec_eval"]["runs"][sorted_name]["times"]) / t_sorted
        out["speed"] = (ratio >= 12, f"{ratio:.1f}x faster")
    ratio = t_shuffled / t_sorted
    out["order"] = (ratio <= 1.5, f"{ratio:.2f}x")
    mem = r["rankviz_memory"]
    peak = max(mem[sorted_name]["peak_above_mb"], mem[shuffled_name]["peak_above_mb"])
    out["memory"] = (peak <= 300, f"+{peak:.0f} MB")
    wall = median(r["first_call"]["wall"])
    out["first_call"] = (wall < 2, f"{wall:.2f} s")
    combined, separate = median(r["systems"]["combined"]), median(r["systems"]["separate"])
    out["systems"] = (combined < separate, f"{combined:.2f} s vs {separate:.2f} s ({separate / combined:.1f}x)")
    boot = median(r["bootstrap"]["rankviz"])
    out["bootstrap"] = (boot < 2, f"{boot:.2f} s")
    return out


def render(r: dict) -> str:
    sorted_name, shuffled_name = r["names"]["sorted"], r["names"]["shuffled"]
    m, v = r["machine"], r["versions"]
    lines = [START, "", "## Speed and memory (`benchmarks/run.py`)", ""]
    lines += [
        f"Generated {r['date']} by `{r['command']}` in {r['elapsed_s'] / 60:.1f} min.",
        "",
        (
            f"- Machine: {m['cpu']}, {m['cores']} cores, {m.get('ram_gib', '?')} GiB RAM, Linux {m['kernel']}; "
            f"shared and noisy (load average {m['load_average_at_start'][0]:.2f} at start)."
        ),
        (
            f"- Versions: Python {v['python']}, numpy {v['numpy']}, pandas {v['pandas']}, pyarrow {v['pyarrow']}, scipy {v['scipy']}, "
            f"pytrec_eval-terrier {v['pytrec_eval']}, ranx {v['ranx']} (numba {v['numba']}), rankviz {v['rankviz']}."
        ),
        (
            f"- Data ({'--quick: ' if r['quick'] else ''}`benchmarks/datagen.py`, deterministic): {r['data']['queries']:,} queries x "
            f"{r['data']['docs']:,} docs = {r['data']['rows']:,} rows, string ids (passage ids of 1-7 digits), float32-exact "
            f"scores with ties, {r['data']['judgements']:,} graded judgements (0-3, 1-10 per query; "
            f"{r['data']['no_relevant_retrieved']:.0%} of the queries retrieve no relevant doc). Frames in memory: "
            f"{r['rankviz']['frames_mb']:.0f} MB (both row orders + qrels) for rankviz's child."
        ),
        (
            f"- Timed: the functions in `benchmarks/tools.py` -- DataFrames in, means of RR@10, nDCG@10, AP, R@100 out; for "
            "pytrec_eval building `{query: {doc: score}}` dicts from the frames (one pass over `.tolist()`s) and the evaluator; "
            "for ranx `astype(object)` of the id columns (its `from_df` refuses pandas 3's `str` dtype), `Qrels/Run.from_df` and "
            "`evaluate` (numba-parallel on both cores; pytrec_eval and rankviz use one). Each tool in its own process, after one "
            "untimed warm-up call on the 500 x 100 set; "
            f"{r['reps']} repetitions (ranx {r['peer_reps']}); medians. Memory: VmHWM after resetting it with `/proc/self/clear_refs` "
            "minus VmRSS before the first timed call (see `benchmarks/_child.py`)."
        ),
        "",
    ]
    # Agreement
    a = r["agree"]
    lines += ["### Agreement (checked before timing)", ""]
    lines.append(
        f"Scores exact in float32: {a['float32_exact_scores']} (so pytrec_eval's float32 scores and rankviz's float64 "
        f"order the same). {a['queries']:,} queries; {a['queries_with_tied_relevant']:,} have a relevant doc in a score tie."
    )
    lines += [
        "",
        "| peer | measure | queries compared | max abs diff | queries > 1e-9 | same, excluding queries with a tied relevant doc |",
        "|---|---|---|---|---|---|",
    ]
    for peer in ("pytrec_eval", "ranx"):
        for measure in ("RR@10", "nDCG@10", "AP", "R@100"):
            x = a[peer][measure]
            lines.append(
                f"| {peer} | {measure} | {a[peer]['queries_compared']:,} | {x['max_abs_diff']:.2e} | {x['queries_over_1e-9']} | "
                f"{x['queries_over_1e-9_without_tied_relevant']} (max {x['max_abs_diff_without_tied_relevant']:.1e}) |"
            )
    lines += [
        "",
        (
            "pytrec_eval (trec_eval 9) orders ties like trec_eval 10 (score, then doc id descending), and agrees on every query. "
            "ranx sorts each query's scores with numba's unstable quicksort and never looks at doc ids, so where a relevant "
            "doc ties with another doc its rank -- and RR, AP, nDCG -- can differ; on every query without such a tie all "
            "three tools agree within 1e-9. (The data deliberately puts a relevant doc in a tie in 5% of the queries.)"
        ),
        "",
    ]
    # Timing table
    lines += [
        "### Results",
        "",
        "| tool | rows | median | first call | min | peak memory above frames | vs rankviz (TREC order) |",
        "|---|---|---|---|---|---|---|",
    ]
    t_ref = median(r["rankviz"]["runs"][sorted_name]["times"])
    rows = [("rankviz", sorted_name, "TREC order"), ("rankviz", shuffled_name, "shuffled")]
    rows += [(peer, sorted_name, "TREC order") for peer in ("pytrec_eval", "ranx") if peer in r]
    for tool, name, label in rows:
        e = r[tool]["runs"][name]
        t = median(e["times"])
        peak = (r["rankviz_memory"][name] if tool == "rankviz" else e)["peak_above_mb"]
        lines.append(
            f"| {tool} | {label} | {_fmt_s(t)} | {_fmt_s(e['times'][0])} | {_fmt_s(min(e['times']))} | "
            f"+{peak:.0f} MB | {t / t_ref:.1f}x |"
        )
    lines += [
        "",
        (
            "rankviz's two row orders alternate in one process (so their ratio sees the same machine load); its peak "
            'memory for each order comes from a separate fresh process with that order alone. "first call" is the first '
            "timed call after the warm-up on the small set."
        ),
    ]
    fc = r["first_call"]
    parts = fc["parts"]
    lines += [
        "",
        f"Fresh process (`python -c`: interpreter start, `import rankviz, pandas`, read and evaluate the 500 x 100 set), "
        f"{len(fc['wall'])} runs: median wall {median(fc['wall']):.2f} s (import {median([p['import_s'] for p in parts]):.2f} s, "
        f"read {median([p['read_s'] for p in parts]):.3f} s, evaluate {median([p['evaluate_s'] for p in parts]):.3f} s). "
        "No JIT. (This machine sets PYTHONDONTWRITEBYTECODE=1"
        + (
            ", so rankviz's own modules are compiled from source in every fresh process"
            if os.environ.get("PYTHONDONTWRITEBYTECODE")
            else ""
        )
        + ".)",
        "",
    ]
    s = r["systems"]
    lines.append(
        f"10 systems: one frame of {s['rows']:,} rows ({s['n_systems']} systems x {r['data']['queries']:,} queries x top 100) "
        f"evaluated at once: median {median(s['combined']):.3f} s; the same rows as {s['n_systems']} separate frames, "
        f"one call each: {median(s['separate']):.3f} s."
    )
    b = r["bootstrap"]
    lines += [
        "",
        (
            f"Bootstrap (`rankviz.stats.bootstrap`, BCa, paired): {b['n_queries']:,} queries x {b['n_resamples']:,} resamples x "
            f"4 measures x 2 systems (plus the RR > 0 indicator columns for the zero-share / non-zero MRR intervals): median "
            f"{median(b['rankviz']):.2f} s, peak +{b['rankviz_peak_above_mb']:.0f} MB. For scale, `scipy.stats.bootstrap` (BCa, "
            f"vectorized) of one measure of one system: {median(b['scipy_one_column']):.2f} s, peak +{b['scipy_peak_above_mb']:.0f} MB."
        ),
        "",
    ]
    lines += ["### Targets", "", "| target | measured | verdict |", "|---|---|---|"]
    for key, (ok, text) in verdicts(r).items():
        lines.append(f"| {TARGETS[key]} | {text} | {'PASS' if ok else 'FAIL'} |")
    lines += ["", "### Where rankviz's time goes", ""]
    st = r["stages"]
    lines += [
        (
            f"Median time per stage over {r['reps']} calls (timing wrappers around each stage; the orders alternate in one "
            "process):"
        ),
        "",
        "| stage | TREC order | shuffled | difference |",
        "|---|---|---|---|",
    ]
    ordered = sorted(st[sorted_name], key=lambda label: (label.startswith("total"), label == "everything else"))
    of_which = [label for label in ordered if label.startswith("  ")]
    ordered = [label for label in ordered if not label.startswith("  ")]
    if of_which:
        ordered[1:1] = of_which  # right under the _frame stage
    for label in ordered:
        a, b = st[sorted_name][label] * 1e3, st[shuffled_name][label] * 1e3
        shown = "↳ " + label.strip() if label.startswith("  ") else label
        lines.append(f"| {shown} | {a:.0f} ms | {b:.0f} ms | {b - a:+.0f} ms |")
    lines += ["", STAGE_NOTES, ""]
    for name, label in ((sorted_name, "TREC order"),):
        prof = r["profile"][name]
        if prof.get("error"):
            lines += [f"No line profile for {label}: line_profiler is not installed (`pip install line_profiler`).", ""]
            continue
        lines.append(
            f"line_profiler, one call after a warm-up, {label}: {prof['total_s']:.3f} s in total (profiled). Lines >= 4 ms:"
        )
        lines += ["", "| function | line | seconds | code |", "|---|---|---|---|"]
        for item in sorted(prof["lines"], key=lambda x: (x["file"], x["function"], x["line"])):
            code = item["code"].replace("|", "\\|")
            if len(code) > 90:
                code = code[:87] + "..."
            lines.append(f"| {item['file']}:{item['function']} | {item['line']} | {item['seconds']:.3f} | `{code}` |")
        lines.append("")
    lines += [r.get("notes", ""), "", END]
    return "\n".join(lines)


def write_results(section: str, start: str, end: str) -> None:
    header = (
        "# rankviz benchmarks\n\nRegenerate with `make bench` (`benchmarks/run.py`) and `benchmarks/coverage.py`.\n"
    )
    text = RESULTS.read_text() if RESULTS.exists() else header
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + section + after
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    RESULTS.write_text(text)


NOTES = """\
How rankviz gets there (`rankviz/_core/judged.py`, `rankviz/_core/row_hashes.py`, `rankviz/_core/hashing.py`,
`rankviz/_core/id_codes.py`): no sort of the run's rows and no dictionary of all doc ids. Query ids whose equal values
come in runs (TREC order) are encoded from the first id of each run (one Arrow comparison of every row with the next,
on two threads); ids in any order by Arrow's dictionary encoding on two threads. Each row's doc id is hashed straight
from the Arrow string buffers (8-byte windows read as two aligned words + length, MurmurHash3's finaliser), piece by
piece on two threads (in TREC order, pieces of 250k rows that never cut a query, so the keys of all rows never exist).
The qrels join keeps the rows whose doc hash passes two bit tables of the judged doc ids' hashes, matches those few on
their (query, doc) key and confirms them on the real strings. Duplicate (query, doc) pairs are found by sorting the
rows' 64-bit (cell, doc) keys (NumPy's vectorised sort: per piece in TREC order, all at once otherwise) and comparing
neighbours; only the few candidates are grouped by their real doc ids. Ranks come from a branchless binary search of
each row among its query's distinct relevant scores, skipping rows below the deepest relevant one, in two halves on
two threads. The look-alike id check compares 200,000 rows' ids with the judged ones, with the regular expression only
for ids that are not ASCII and no lookup when no respelling changes an id. Judgements stay sparse (judged rows only);
per-row codes are int32. Before this (commit e68162b, same data, measured in one process during the work): 4.1 s in
TREC order and 6.3 s shuffled, 80% of it in the duplicate check, which dictionary-encoded all 7 M doc ids (~2 s) and
lexsorted them (~1.4 s)."""


STAGE_NOTES = """\
Reading the table: the doc-id hashing, the join and the kernels cost the same in either order. Rows in random order
cost more in three places: the query ids must be dictionary-encoded row by row (TREC order lets them be encoded from
the first id of each run), the duplicate check sorts every row's key at once (TREC order sorts piece by piece in
cache), and the rank search reads its per-query tables in random order."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small smoke run (1,000 x 300 rows, 3 repetitions)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per tool (default 5; 3 with --quick)")
    parser.add_argument("--peer-reps", type=int, default=None, help="repetitions for ranx (default: --reps, at most 3)")
    parser.add_argument("--no-peers", action="store_true", help="skip pytrec_eval and ranx (agreement included)")
    parser.add_argument(
        "--write", action="store_true", help="write RESULTS.md after a --quick run too (a full run always does)"
    )
    parser.add_argument(
        "--render-only", action="store_true", help="rewrite RESULTS.md from the last results.json, measure nothing"
    )
    args = parser.parse_args()
    if args.render_only:
        r = json.loads((datagen.DATA / ("results_quick.json" if args.quick else "results.json")).read_text())
        r["notes"] = NOTES
        write_results(render(r), START, END)
        log(f"wrote {RESULTS}")
        return
    started = time.perf_counter()
    reps = args.reps or (3 if args.quick else 5)
    peer_reps = args.peer_reps or min(reps, 3)
    big_name = "quick" if args.quick else "msmarco"

    log("data ...")
    big = datagen.ensure(big_name, with_systems=True, log=log)
    small = datagen.ensure("small", log=log)
    import pandas as pd

    run_frame, qrels_frame = pd.read_parquet(big["run"]), pd.read_parquet(big["qrels"])
    n_q, n_docs, _ = datagen.SETS[big_name]
    relevant = qrels_frame[qrels_frame["relevance"] > 0][["query_id", "doc_id"]]
    found = run_frame.merge(relevant, on=["query_id", "doc_id"])["query_id"].nunique()
    data = {
        "queries": n_q,
        "docs": n_docs,
        "rows": len(run_frame),
        "judgements": len(qrels_frame),
        "no_relevant_retrieved": 1 - found / qrels_frame["query_id"].nunique(),
    }
    del run_frame, qrels_frame, relevant

    r = {
        "quick": args.quick,
        "reps": reps,
        "peer_reps": peer_reps,
        "data": data,
        "machine": machine(),
        "versions": versions(),
        "names": {"sorted": big["run"].stem, "shuffled": big["shuffled"].stem},
        "command": "benchmarks/run.py" + (" --quick" if args.quick else ""),
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }
    warm = ["--warm-run", str(small["run"]), "--warm-qrels", str(small["qrels"])]

    if not args.no_peers:
        log("agreement: rankviz vs pytrec_eval vs ranx, per query ...")
        r["agree"] = child("agree", "--run", str(big["run"]), "--qrels", str(big["qrels"]))
        problems = [
            f"{peer} {m}"
            for peer in ("pytrec_eval", "ranx")
            for m in ("RR@10", "nDCG@10", "AP", "R@100")
            if r["agree"][peer][m][
                "queries_over_1e-9" if peer == "pytrec_eval" else "queries_over_1e-9_without_tied_relevant"
            ]
        ]
        if problems or r["agree"]["pytrec_eval"]["missing"] or r["agree"]["ranx"]["missing"]:
            raise SystemExit(
                f"the tools disagree per query ({', '.join(problems) or 'different query sets'}); not timing"
            )
    load_start = speed_history.load()
    r["uptime_at_start"] = speed_history.uptime()
    log(f"timing rankviz (TREC order and shuffled, alternating) ... | {r['uptime_at_start']}")
    r["rankviz"] = child(
        "time",
        "--tool",
        "rankviz",
        "--run",
        str(big["run"]),
        str(big["shuffled"]),
        "--qrels",
        str(big["qrels"]),
        "--reps",
        str(reps),
        *warm,
    )
    # Peak memory of each row order from its own fresh process (in the alternating child the second order would
    # reuse memory the allocator kept from the first).
    r["rankviz_memory"] = {}
    for key in ("run", "shuffled"):
        single = child(
            "time", "--tool", "rankviz", "--run", str(big[key]), "--qrels", str(big["qrels"]), "--reps", "1", *warm
        )
        r["rankviz_memory"][big[key].stem] = single["runs"][big[key].stem]
    if not args.no_peers:
        log("timing pytrec_eval ...")
        r["pytrec_eval"] = child(
            "time",
            "--tool",
            "pytrec_eval",
            "--run",
            str(big["run"]),
            "--qrels",
            str(big["qrels"]),
            "--reps",
            str(reps),
            *warm,
        )
        log("timing ranx ...")
        r["ranx"] = child(
            "time",
            "--tool",
            "ranx",
            "--run",
            str(big["run"]),
            "--qrels",
            str(big["qrels"]),
            "--reps",
            str(peer_reps),
            *warm,
        )
    log("first call in a fresh process ...")
    r["first_call"] = first_call(small, 5)
    log("10 systems in one frame vs 10 frames ...")
    r["systems"] = child(
        "systems", "--run", str(big["systems"]), "--qrels", str(big["qrels"]), "--reps", str(reps), *warm
    )
    log("bootstrap ...")
    r["bootstrap"] = child(
        "bootstrap", "--run", str(big["systems"]), "--qrels", str(big["qrels"]), "--reps", str(min(reps, 3))
    )
    log("stages ...")
    r["stages"] = child(
        "stages", "--run", str(big["run"]), str(big["shuffled"]), "--qrels", str(big["qrels"]), "--reps", str(reps)
    )
    log("profile ...")
    r["profile"] = {}
    for key in ("run",):
        try:
            r["profile"][big[key].stem] = child("profile", "--run", str(big[key]), "--qrels", str(big["qrels"]))
        except RuntimeError as error:  # line_profiler missing
            r["profile"][big[key].stem] = {"total_s": float("nan"), "lines": [], "error": str(error)[-300:]}
    r["elapsed_s"] = time.perf_counter() - started
    r["notes"] = NOTES

    datagen.DATA.mkdir(exist_ok=True)
    (datagen.DATA / ("results_quick.json" if args.quick else "results.json")).write_text(json.dumps(r, indent=1))
    for key, (ok, text) in verdicts(r).items():
        log(f"{'PASS' if ok else 'FAIL'}  {TARGETS[key]}: {text}")
    sorted_name = r["names"]["sorted"]
    t_rankviz = median(r["rankviz"]["runs"][sorted_name]["times"])
    t_shuffled = median(r["rankviz"]["runs"][r["names"]["shuffled"]]["times"])
    log(speed_history.say("shuffled / TREC order", t_shuffled / t_rankviz, "<= 1.5x"))
    if "pytrec_eval" in r:
        t_peer = median(r["pytrec_eval"]["runs"][sorted_name]["times"])
        log(
            speed_history.say(
                f"DataFrame path vs pytrec_eval ({t_rankviz:.3f} s vs {t_peer:.2f} s)", t_peer / t_rankviz, ">= 12x"
            )
        )
    if (args.write or not args.quick) and not args.no_peers:
        write_results(render(r), START, END)
        speed_history.append("run.py DataFrame -> means", t_rankviz, "pytrec_eval", t_peer, 12, load_start)
        log(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
