"""From TREC files to four means in a fresh process: rankviz vs the C trec_eval 10, pytrec_eval and ranx.

Usage::

    .venv/bin/python benchmarks/files.py                 # 7,000 queries x 1,000 docs = 7M run lines, 3 reps
    .venv/bin/python benchmarks/files.py --quick         # 1,000 x 300, a smoke run (does not write RESULTS.md)
    .venv/bin/python benchmarks/files.py --scratch DIR   # where the TREC files and trec_eval's build go

The TREC files are written from ``benchmarks/datagen.py``'s MS MARCO-dev-scale set
(the same rows as ``benchmarks/run.py`` uses) into a scratch folder outside the
repository (default ``$TMPDIR/rankviz-bench-files``): ``run.txt`` (``qid Q0 docid
rank score bm25`` lines), ``run.txt.gz``, ``qrels.txt``, ten runs ``runs/sysNN.txt``
(the same lines, each with its own tag) and ``run.parquet`` (written once by
``rankviz.write_run(..., format="parquet")``). trec_eval is built from the unmodified
source in ``../shared/tools/trec_eval`` in that folder too.

Every timed unit is a fresh process, from its start to its exit, with its peak
resident memory (``ru_maxrss`` of that process, from ``os.wait4``):

* ``trec_eval -c -m recip_rank -m ndcg_cut.10 -m map -m recall.100 qrels run``;
* rankviz ``read_run`` + ``read_qrels`` + ``evaluate(["RR", "nDCG@10", "AP", "R@100"])``,
  on the plain file and on the ``.gz``;
* pytrec_eval's own parsers (``parse_run``/``parse_qrel`` on open files) + ``RelevanceEvaluator``;
* ranx ``Run.from_file`` + ``Qrels.from_file`` only (its ``evaluate`` compiles with numba in every fresh
  process, minutes here, and is timed from DataFrames by ``benchmarks/run.py``), ``--ranx-reps`` times (default 1);
* rankviz ``read_runs`` of the ten runs into one frame, ``read_run`` of one of them, and ``read_run`` of the parquet file.

The units run in a fixed order, reversed every other repetition, so that the two
units of each ratio run back to back; ratios are medians of the per-repetition
ratios, times medians of ``--reps`` (at least 3). Before timing, rankviz's four means are checked against trec_eval's
output. Results go to ``benchmarks/RESULTS.md`` between the ``files.py`` markers.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import datagen  # noqa: E402
import speed_history  # noqa: E402
from run import log, machine, versions, write_results  # noqa: E402

START, END = "<!-- files.py:start -->", "<!-- files.py:end -->"
TREC_EVAL_SOURCE = REPO.parent / "shared" / "tools" / "trec_eval"
TREC_MEASURES = ["recip_rank", "ndcg_cut_10", "map", "recall_100"]
RANKVIZ_MEASURES = ["RR", "nDCG@10", "AP", "R@100"]
N_RUNS = 10


# ----------------------------------------------------------------------------- data and tools


def _trec_lines(run, tag: str) -> bytes:
    """The run frame (TREC order) as ``qid Q0 docid rank score tag`` lines."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rank = run.groupby("query_id", sort=False).cumcount().to_numpy() + 1
    score = [repr(float(s)) for s in run["score"].to_numpy()]
    parts = [
        pa.array(run["query_id"].to_numpy(dtype=object)),
        pa.scalar("Q0"),
        pa.array(run["doc_id"].to_numpy(dtype=object)),
        pc.cast(pa.array(rank.astype(np.int64)), pa.string()),
        pa.array(score),
        pa.scalar(tag),
    ]
    lines = pc.binary_join_element_wise(*parts, " ")
    return ("\n".join(lines.to_pylist()) + "\n").encode("ascii")


def generate(scratch: Path, name: str) -> dict[str, Path]:
    """Write the TREC files of the named ``datagen`` set into ``scratch`` unless they are there."""
    n_queries, n_docs, seed = datagen.SETS[name]
    folder = scratch / name
    p = {
        "run": folder / "run.txt",
        "gz": folder / "run.txt.gz",
        "qrels": folder / "qrels.txt",
        "runs": folder / "runs",
        "parquet": folder / "run.parquet",
    }
    if all(p[k].exists() for k in ("run", "gz", "qrels")) and len(list(p["runs"].glob("*.txt"))) == N_RUNS:
        return p
    folder.mkdir(parents=True, exist_ok=True)
    log(f"writing TREC files: {n_queries:,} queries x {n_docs:,} docs into {folder} ...")
    run, qrels = datagen.generate(n_queries, n_docs, seed)
    text = _trec_lines(run, "bm25")
    p["run"].write_bytes(text)
    with gzip.open(p["gz"], "wb", compresslevel=6) as handle:
        handle.write(text)
    p["runs"].mkdir(exist_ok=True)
    for k in range(N_RUNS):
        (p["runs"] / f"sys{k:02d}.txt").write_bytes(text.replace(b" bm25\n", f" sys{k:02d}\n".encode()))
    del text
    grades = [f"{q} 0 {d} {g}" for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"])]
    p["qrels"].write_text("\n".join(grades) + "\n")
    return p


def build_trec_eval(scratch: Path) -> Path:
    """trec_eval 10 built with its own Makefile from a copy of the unmodified source, in ``scratch``."""
    build = scratch / "trec_eval_build"
    binary = build / "trec_eval"
    if binary.exists():
        return binary
    if not TREC_EVAL_SOURCE.is_dir():
        raise SystemExit(f"no trec_eval source at {TREC_EVAL_SOURCE}")
    shutil.copytree(TREC_EVAL_SOURCE, build, dirs_exist_ok=True)
    log(f"building trec_eval in {build} ...")
    proc = subprocess.run(["make"], cwd=build, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not binary.exists():
        raise SystemExit(f"building trec_eval failed:\n{proc.stderr[-3000:]}")
    return binary


def ensure_parquet(p: dict[str, Path]) -> None:
    """``run.parquet``: the run read once and written by ``rankviz.write_run(..., format="parquet")`` (untimed)."""
    if p["parquet"].exists():
        return
    log("writing run.parquet with rankviz.write_run ...")
    code = "import sys, rankviz\nrankviz.write_run(rankviz.read_run(sys.argv[1]), sys.argv[2], format='parquet')\n"
    subprocess.run([sys.executable, "-c", code, str(p["run"]), str(p["parquet"])], check=True, cwd=REPO)


# ----------------------------------------------------------------------------- timing


def run_unit(cmd: list[str]) -> dict:
    """Run ``cmd`` in a fresh process: wall time, CPU time and peak resident memory (MB) of that process, its stdout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{stderr[-3000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024, "stdout": stdout}


def units(p: dict[str, Path], trec_eval: Path, *, peers: bool) -> dict[str, list[str]]:
    """The timed commands, by name."""
    child = [sys.executable, str(HERE / "_files_child.py")]
    runs = sorted(str(x) for x in p["runs"].glob("*.txt"))
    out = {  # in this order: the units of each ratio are neighbours (see timed)
        "trec_eval": [
            str(trec_eval),
            "-c",
            "-m",
            "recip_rank",
            "-m",
            "ndcg_cut.10",
            "-m",
            "map",
            "-m",
            "recall.100",
            str(p["qrels"]),
            str(p["run"]),
        ],
        "rankviz": [*child, "rankviz", str(p["run"]), str(p["qrels"])],
        "rankviz .gz": [*child, "rankviz", str(p["gz"]), str(p["qrels"])],
        "read_run (one of the ten)": [*child, "read_run", runs[0]],
        "read_runs (ten runs)": [*child, "read_runs", *runs],
        "read_run (parquet)": [*child, "read_run", str(p["parquet"])],
    }
    if peers:
        out["pytrec_eval"] = [*child, "pytrec_eval", str(p["run"]), str(p["qrels"])]
    return out


def trec_eval_means(stdout: str) -> dict[str, float]:
    names = dict(zip(TREC_MEASURES, RANKVIZ_MEASURES))
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] in names:
            out[names[parts[0]]] = float(parts[2])
    return out


def timed(commands: dict[str, list[str]], reps: int, once: dict[str, list[str]] | None = None) -> dict[str, list[dict]]:
    """Every command ``reps`` times; those in ``once`` only in the first repetition.

    The order is reversed every other repetition, so the units compared by a ratio
    (:data:`PAIRS`) always run one right after the other, in both orders: the load of
    a shared machine changes by the minute, and a ratio of two medians taken minutes
    apart would measure that.
    """
    once = once or {}
    commands = {**commands, **once}
    names = list(commands)
    results: dict[str, list[dict]] = {name: [] for name in names}
    for rep in range(reps):
        for name in names if rep % 2 == 0 else names[::-1]:
            if name in once and rep:
                continue
            result = run_unit(commands[name])
            parsed = (
                trec_eval_means(result["stdout"])
                if name == "trec_eval"
                else json.loads(result["stdout"].strip().splitlines()[-1])
            )
            results[name].append({**{k: v for k, v in result.items() if k != "stdout"}, "out": parsed})
            log(f"  rep {rep + 1}/{reps} {name}: {result['wall']:.2f} s, {result['peak_mb']:.0f} MB")
    return results


#: (numerator, denominator): the ratios of the targets, each from two units run back to back
PAIRS = {
    "speed": ("trec_eval", "rankviz"),
    "gz": ("rankviz .gz", "rankviz"),
    "ten": ("read_runs (ten runs)", "read_run (one of the ten)"),
}


def ratios(results: dict[str, list[dict]], key=lambda x: x["wall"]) -> dict[str, list[float]]:
    """Per repetition, each pair's ratio."""
    return {name: [key(a) / key(b) for a, b in zip(results[num], results[den])] for name, (num, den) in PAIRS.items()}


def median(values) -> float:
    return float(statistics.median(values))


PROFILE_CODE = """\
import cProfile, io, json, pstats, sys, rankviz
profiler = cProfile.Profile()
profiler.enable()
run = rankviz.read_run(sys.argv[1])
qrels = rankviz.read_qrels(sys.argv[2])
rankviz.evaluate(run, ["RR", "nDCG@10", "AP", "R@100"], qrels)
profiler.disable()
stats = pstats.Stats(profiler)
rows = []
for (file, line, name), (cc, nc, tt, ct, callers) in stats.stats.items():
    rows.append({"function": f"{file.rsplit('/', 2)[-2]}/{file.rsplit('/', 1)[-1]}:{name}" if "/" in file else name,
                 "tottime": tt, "cumtime": ct})
rows.sort(key=lambda r: -r["tottime"])
print(json.dumps(rows[:14]))
"""


def profile(p: dict[str, Path]) -> list[dict]:
    """cProfile of read_run + read_qrels + evaluate in a fresh process: the functions with the most own time."""
    result = run_unit([sys.executable, "-c", PROFILE_CODE, str(p["run"]), str(p["qrels"])])
    return json.loads(result["stdout"].strip().splitlines()[-1])


# ----------------------------------------------------------------------------- report


def verdicts(r: dict) -> dict[str, tuple[bool, str]]:
    res = r["results"]
    t = {name: median([x["wall"] for x in runs]) for name, runs in res.items()}
    peak = max(x["peak_mb"] for x in res["rankviz"])
    file_mb = r["files"]["run_mb"]
    wall, cpu = ratios(res), ratios(res, key=lambda x: x["cpu"])
    inside = [
        a["out"]["steps"]["read_runs"] / b["out"]["steps"]["read_run"]
        for a, b in zip(res["read_runs (ten runs)"], res["read_run (one of the ten)"])
    ]
    parquet = median([x["out"]["steps"]["read_run"] for x in res["read_run (parquet)"]])

    def shown(values):
        return f"{median(values):.2f}x (per repetition: {', '.join(f'{v:.2f}' for v in values)})"

    return {
        "speed": (
            median(wall["speed"]) >= 3.5,
            f"{shown(wall['speed'])} faster; CPU time {median(cpu['speed']):.1f}x "
            f"(trec_eval {median([x['cpu'] for x in res['trec_eval']]):.1f} s, rankviz {median([x['cpu'] for x in res['rankviz']]):.1f} s)",
        ),
        "memory": (peak <= 2 * file_mb, f"{peak:.0f} MB = {peak / file_mb:.2f}x the {file_mb:.0f} MB file"),
        "gz": (median(wall["gz"]) <= 1.5, shown(wall["gz"])),
        "ten": (
            median(wall["ten"]) <= 10,
            f"{shown(wall['ten'])} the process; {median(inside):.1f}x the reading alone",
        ),
        "parquet": (parquet < 1, f"{parquet:.2f} s to read (median; process {t['read_run (parquet)']:.2f} s)"),
    }


TARGETS = {
    "speed": "TREC files to the four means, fresh process: >= 3.5x faster than trec_eval 10 (issue 36)",
    "memory": "peak RSS of that process <= 2x the run file's size",
    "gz": "the same from the .gz run <= 1.5x the plain run's time",
    "ten": "read_runs of ten 7M-line runs <= 10x read_run of one",
    "parquet": "read_run of the run saved by write_run(..., format='parquet') well under a second",
}


def render(r: dict) -> str:
    m, v = r["machine"], r["versions"]
    res = r["results"]
    t_ref = median([x["wall"] for x in res["trec_eval"]])
    lines = [START, "", "## TREC files to numbers (`benchmarks/files.py`)", ""]
    lines += [
        f"Generated {r['date']} by `{r['command']}` in {r['elapsed_s'] / 60:.1f} min.",
        "",
        (
            f"- Machine: {m['cpu']}, {m['cores']} cores, {m.get('ram_gib', '?')} GiB RAM, Linux {m['kernel']}; shared with "
            f"other sessions and noisy (load average {m['load_average_at_start'][0]:.1f} at start, "
            f"{r['load_average_at_end'][0]:.1f} at the end): the ratios, measured alternately in one run, are what counts."
        ),
        (
            f"- Versions: Python {v['python']}, numpy {v['numpy']}, pandas {v['pandas']}, pyarrow {v['pyarrow']}, "
            f"pytrec_eval-terrier {v['pytrec_eval']}, ranx {v['ranx']} (numba {v['numba']}), rankviz {v['rankviz']}; trec_eval 10 "
            "built with its own Makefile from `../shared/tools/trec_eval`."
        ),
        (
            f"- Data: `benchmarks/datagen.py`'s {r['data']} set written as TREC files: run {r['files']['run_mb']:.0f} MB "
            f"({r['files']['run_lines']:,} lines `qid Q0 docid rank score bm25`, scores written exactly, e.g. `26.330078125`), "
            f".gz {r['files']['gz_mb']:.0f} MB, qrels {r['files']['qrels_lines']:,} lines, parquet {r['files']['parquet_mb']:.0f} MB; "
            "ten runs of the same lines, each with its own tag."
        ),
        (
            f"- Timed: each unit is a fresh process from start to exit (interpreter start and imports included), {r['reps']} "
            "repetitions, the units in the order of the table, reversed every other repetition, so that the two units of "
            "each ratio run back to back in both orders; a ratio is the median of the per-repetition ratios (the load on "
            "this machine changes by the minute). Peak memory: the process's own `ru_maxrss` (from `os.wait4`)."
        ),
        "",
        "### Results",
        "",
        "| unit | median wall | min | CPU (median) | peak RSS | trec_eval's median / this median | steps inside (median) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, runs in res.items():
        wall = median([x["wall"] for x in runs])
        steps = ""
        if name != "trec_eval":
            keys = runs[0]["out"]["steps"]
            steps = ", ".join(f"{k} {median([x['out']['steps'][k] for x in runs]):.2f} s" for k in keys)
        lines.append(
            f"| {name} | {wall:.2f} s | {min(x['wall'] for x in runs):.2f} s | {median([x['cpu'] for x in runs]):.2f} s | "
            f"{max(x['peak_mb'] for x in runs):.0f} MB | {t_ref / wall:.2f}x | {steps} |"
        )
    a = r["agreement"]
    lines += [
        "",
        (
            "Means (trec_eval prints 4 decimals): "
            + "; ".join(
                f"{tool} " + ", ".join(f"{k} {val:.4f}" for k, val in means.items())
                for tool, means in a["means"].items()
            )
            + f". rankviz agrees with trec_eval to its 4 printed decimals: {a['rankviz_matches_trec_eval']}."
        ),
        "",
        "### Targets (issue #13)",
        "",
        "| target | measured | verdict |",
        "|---|---|---|",
    ]
    for key, (ok, text) in verdicts(r).items():
        lines.append(f"| {TARGETS[key]} | {text} | {'PASS' if ok else 'FAIL'} |")
    lines += [
        "",
        "### Where rankviz's time goes",
        "",
        (
            "cProfile of `read_run` + `read_qrels` + `evaluate` in one fresh process (own time; the parsing runs on Arrow's "
            "threads, so in the main thread it shows as waiting for the parse of each block):"
        ),
        "",
        "| function | own time | cumulative |",
        "|---|---|---|",
    ]
    for row in r["profile"][:12]:
        lines.append(f"| `{row['function']}` | {row['tottime']:.2f} s | {row['cumtime']:.2f} s |")
    lines += ["", r.get("notes", ""), "", END]
    return "\n".join(lines)


NOTES = """\
How the file becomes a frame (`rankviz/io/trec_reader.py`): the file (decompressed on the fly) is read in 8 MB blocks;
each block's bytes are checked in the main thread, 1 MB at a time (one `bytes.translate` finds anything but printable
ASCII, space and LF; `#` at a line start; two spaces in a row, as 16-bit words) while pyarrow's CSV parser turns the
previous block into typed columns on its threads (ids as large strings, rank int64, score float64, the tag
dictionary-encoded). The parsed columns are checked too (no empty field, finite scores, integers within 2**53);
a block with anything unusual is tidied and parsed again with its numbers as text (or, if it has a bad line, read
again line by line to name it). As each block is accepted, its rank and score are copied into NumPy arrays reserved from the first block's rows per
byte (they grow in place if the guess was short) and its tags become codes; the ids stay in the parser's buffers.
So no column of the file exists twice, and every 4 blocks what parsing freed is returned to the system. A
compressed run's next block is decompressed on a thread of its own while the current one is checked and parsed.

Memory, measured in one process with `/proc/self/status` during the work (7M lines, MiB): `import rankviz` ~120;
the frame ~315 (query and doc ids 93 + 99 as Arrow large strings, which pandas' `str` dtype requires; rank and score
53 + 53; the categorical system 7); RSS after `read_run` ~435-450, and `read_run` peaks at ~500-515 (two blocks in
flight and what up to 4 blocks' parsing freed). `evaluate` then adds ~65-80 at its peak, where it added ~250 before
this work (commit 5eaf75d: 671 MB, 2.41x the file): int32 query codes, renumbered in place into the evaluated query
numbers; no per-row system codes for a run of one system (it had an int32 code and an int64 (system, query) pair
code per row); the (cell, doc id) hashes made 500,000 rows at a time, each piece filtered for the qrels join and the
duplicate check at once (`rankviz/_core/row_hashes.py`; the hashes of every row were 56 MB); NumPy lookups and counts in
blocks (`rankviz/_core/memory.py`: NumPy widens an int32 index to a 64-bit copy of the whole array first); and large
temporaries returned to the system after the step that frees them (glibc keeps freed blocks under 32 MB in the
process, Arrow's default pool keeps its pages).

Speed: in rankviz's CPU time about 0.5 s is `import` (pandas and pyarrow), ~1.2 s reading (pyarrow's parse on two
threads beside the main thread's checks), ~0.5 s `evaluate` (its largest step, the query ids' dictionary encoding,
runs in two halves on two threads: `rankviz/_core/id_codes.py`), the rest the interpreter's start and exit; trec_eval
spends its time in the C program's own parsing and sorting, on one core. The wall-time ratio moves with the load of
the shared machine (per repetition above); the CPU-time ratio is the steadier figure. The profile above is the main
thread's: `acquire` is the wait for the parser; `_blocks` and `read` read the file, `translate` and `_two_spaces`
check its bytes. `read_runs` of ten runs costs ten reads plus one concatenation of the numeric columns (~1.7 s for
70M rows), so its reading alone is ~11x one read; the process, with one interpreter start and import, ~8x."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--quick", action="store_true", help="1,000 x 300 smoke run (RESULTS.md untouched unless --write)"
    )
    parser.add_argument("--reps", type=int, default=3, help="repetitions per unit (default 3)")
    parser.add_argument(
        "--scratch",
        default=str(Path(tempfile.gettempdir()) / "rankviz-bench-files"),
        help="folder for the TREC files and trec_eval's build (outside the repository)",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip pytrec_eval and ranx")
    parser.add_argument("--ranx-reps", type=int, default=1, help="repetitions of ranx's file reading (default 1: slow)")
    parser.add_argument("--write", action="store_true", help="write RESULTS.md after a --quick run too")
    parser.add_argument(
        "--render-only", action="store_true", help="rewrite RESULTS.md from the last results, measure nothing"
    )
    args = parser.parse_args()
    scratch = Path(args.scratch).resolve()
    if REPO in scratch.parents or scratch == REPO:
        raise SystemExit(f"--scratch must be outside the repository ({REPO})")
    name = "quick" if args.quick else "msmarco"
    saved = scratch / f"results_{name}.json"
    if args.render_only:
        r = json.loads(saved.read_text())
        r["notes"] = NOTES
        write_results_section(render(r))
        return
    started = time.perf_counter()
    # The files are written by a child process: Linux starts a child's ru_maxrss at its parent's RSS, so a parent
    # that had just held the generated data (2.7 GB) made every timed unit, trec_eval too, report that peak.
    code = "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import files; files.generate(Path(sys.argv[2]), sys.argv[3])"
    subprocess.run([sys.executable, "-c", code, str(HERE), str(scratch), name], check=True, cwd=REPO)
    p = generate(scratch, name)  # written by now: only the paths
    ensure_parquet(p)
    trec_eval = build_trec_eval(scratch)
    r = {
        "reps": max(args.reps, 1),
        "data": name,
        "machine": machine(),
        "versions": versions(),
        "command": "benchmarks/files.py" + (" --quick" if args.quick else ""),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "files": {
            "run_mb": p["run"].stat().st_size / 2**20,
            "gz_mb": p["gz"].stat().st_size / 2**20,
            "parquet_mb": p["parquet"].stat().st_size / 2**20,
            "run_lines": sum(chunk.count(b"\n") for chunk in _chunks(p["run"])),
            "qrels_lines": sum(chunk.count(b"\n") for chunk in _chunks(p["qrels"])),
        },
    }
    load_start = speed_history.load()
    r["uptime_at_start"] = speed_history.uptime()
    log(f"timing ({r['reps']} repetitions, alternating) ... | {r['uptime_at_start']}")
    once = (
        {}
        if args.no_peers
        else {"ranx": [sys.executable, str(HERE / "_files_child.py"), "ranx", str(p["run"]), str(p["qrels"])]}
    )
    r["results"] = timed(units(p, trec_eval, peers=not args.no_peers), r["reps"], once if args.ranx_reps <= 1 else None)
    if once and args.ranx_reps > 1:
        r["results"].update(timed(once, args.ranx_reps))
    r["agreement"] = agreement(r["results"])
    log("profile ...")
    r["profile"] = profile(p)
    r["load_average_at_end"] = os.getloadavg()
    r["elapsed_s"] = time.perf_counter() - started
    r["notes"] = NOTES
    saved.write_text(json.dumps(r, indent=1))
    for key, (ok, text) in verdicts(r).items():
        log(f"{'PASS' if ok else 'FAIL'}  {TARGETS[key]}: {text}")
    res = r["results"]
    t_rankviz = median([x["wall"] for x in res["rankviz"]])
    if "trec_eval" in res:
        t_peer = median([x["wall"] for x in res["trec_eval"]])
        log(
            speed_history.say(
                f"TREC files vs trec_eval ({t_rankviz:.2f} s vs {t_peer:.2f} s)",
                median(ratios(res)["speed"]),
                ">= 3.5x",
            )
        )
    if not args.quick or args.write:
        write_results_section(render(r))
        if "trec_eval" in res:
            speed_history.append("files.py TREC files -> means", t_rankviz, "trec_eval", t_peer, 3.5, load_start)
        log("wrote benchmarks/RESULTS.md")


def _chunks(path: Path, size: int = 1 << 24):
    with open(path, "rb") as handle:
        while chunk := handle.read(size):
            yield chunk


def agreement(results: dict) -> dict:
    """The means of each tool (first repetition) and whether rankviz's round to trec_eval's printed ones."""
    means = {
        tool: runs[0]["out"] if tool == "trec_eval" else runs[0]["out"]["means"]
        for tool, runs in results.items()
        if tool in ("trec_eval", "rankviz", "rankviz .gz", "pytrec_eval")
    }
    reference = means["trec_eval"]
    same = all(
        abs(means[tool][m] - reference[m]) <= 5e-5 + 1e-12 for tool in ("rankviz", "rankviz .gz") for m in reference
    )
    if not same or set(reference) != set(RANKVIZ_MEASURES):
        raise SystemExit(f"rankviz and trec_eval disagree: {means}")
    return {"means": means, "rankviz_matches_trec_eval": same}


def write_results_section(section: str) -> None:
    write_results(section, START, END)


if __name__ == "__main__":
    main()
