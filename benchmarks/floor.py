"""The pyarrow floor of rankviz's DataFrame path: what Arrow alone needs to join the run with its qrels.

Usage::

    .venv/bin/python benchmarks/floor.py              # the 7,000 x 1,000 set of benchmarks/run.py, 5 rounds
    .venv/bin/python benchmarks/floor.py --rounds 3 --no-write

In one process, on the frames ``benchmarks/run.py`` times (ids in pandas' ``str``
dtype, Arrow-backed), each round times in turn (so every figure sees the same load):

* ``rankviz.evaluate(run, ["RR@10", "nDCG@10", "AP", "R@100"], qrels)``, everything included;
* ``pc.index_in`` of the run's query ids and doc ids against the qrels' (each row's codes, no pairing);
* ``pc.dictionary_encode`` of the run's query ids and ``pc.index_in`` of its doc ids against the qrels';
* ``pa.Table.join`` of the run's (query, doc) pairs with the qrels' (inner join on both keys, Arrow's threads).

None of the Arrow figures is a whole evaluation: they only find each row's judgement
(the join alone), with no duplicate check, no ranks and no measures. They are the
floor the join part of rankviz could reach with Arrow's C++ hashing; rankviz's time
is given as a multiple of each. Medians of ``--rounds`` rounds, after one warm-up
round; ``uptime`` is printed with the results. Written to ``RESULTS.md`` between the
``floor.py`` markers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import datagen  # noqa: E402
import speed_history  # noqa: E402
from run import log, write_results  # noqa: E402

START, END = "<!-- floor.py:start -->", "<!-- floor.py:end -->"
MEASURES = ["RR@10", "nDCG@10", "AP", "R@100"]


def steps(run, qrels) -> dict:
    """name -> a function of no arguments doing that step once."""
    import pyarrow as pa
    import pyarrow.compute as pc

    import rankviz

    run_q, run_d = pa.array(run["query_id"], from_pandas=True), pa.array(run["doc_id"], from_pandas=True)
    qrels_q = pa.array(qrels["query_id"], from_pandas=True)
    qrels_d = pa.array(qrels["doc_id"], from_pandas=True)
    judged_q, judged_d = pc.unique(qrels_q).cast(run_q.type), pc.unique(qrels_d).cast(run_d.type)
    run_table = pa.table({"q": run_q, "d": run_d, "row": pa.array(range(len(run)), pa.int64())})
    qrels_table = pa.table({"q": qrels_q.cast(run_q.type), "d": qrels_d.cast(run_d.type), "g": qrels["relevance"]})
    return {
        "rankviz.evaluate (everything)": lambda: rankviz.evaluate(run, MEASURES, qrels),
        "pc.index_in of query and doc ids": lambda: (
            pc.index_in(run_q, value_set=judged_q),
            pc.index_in(run_d, value_set=judged_d),
        ),
        "pc.dictionary_encode query + pc.index_in doc": lambda: (
            pc.dictionary_encode(run_q),
            pc.index_in(run_d, value_set=judged_d),
        ),
        "pa.Table.join on (query, doc)": lambda: run_table.join(qrels_table, keys=["q", "d"], join_type="inner"),
    }


def measure(rounds: int) -> dict:
    import pandas as pd

    p = datagen.ensure("msmarco", log=log)
    run, qrels = pd.read_parquet(p["run"]), pd.read_parquet(p["qrels"])
    todo = steps(run, qrels)
    for f in todo.values():  # warm-up
        f()
    times: dict[str, list[float]] = {name: [] for name in todo}
    cpu: dict[str, list[float]] = {name: [] for name in todo}
    start_uptime = speed_history.uptime()
    for _ in range(rounds):
        for name, f in todo.items():
            t, c = time.perf_counter(), time.process_time()
            f()
            times[name].append(time.perf_counter() - t)
            cpu[name].append(time.process_time() - c)
    return {
        "rows": len(run),
        "judgements": len(qrels),
        "rounds": rounds,
        "wall": {k: statistics.median(v) for k, v in times.items()},
        "cpu": {k: statistics.median(v) for k, v in cpu.items()},
        "uptime_at_start": start_uptime,
        "uptime_at_end": speed_history.uptime(),
        "commit": speed_history.commit(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }


def render(r: dict) -> str:
    ours = r["wall"]["rankviz.evaluate (everything)"]
    lines = [
        START,
        "",
        "## The pyarrow floor of the DataFrame path (`benchmarks/floor.py`)",
        "",
        f"Generated {r['date']} at commit {r['commit']}: {r['rows']:,} run rows, {r['judgements']:,} judgements, "
        f"medians of {r['rounds']} rounds in one process (each round times every line in turn).",
        f"Load: `{r['uptime_at_start']}` at the start, `{r['uptime_at_end']}` at the end.",
        "",
        "| step | wall | CPU (all threads) | rankviz.evaluate / this |",
        "|---|---|---|---|",
    ]
    for name, wall in r["wall"].items():
        lines.append(f"| {name} | {wall:.3f} s | {r['cpu'][name]:.3f} s | {ours / wall:.2f}x |")
    lines += [
        "",
        "The Arrow lines find each row's judgement only (the join): no duplicate check, no ranks, no measures. Arrow "
        "has no cheaper way to the duplicate check than hashing every (query, doc) pair into one table "
        "(`dictionary_encode` of the 4.8M distinct doc ids, or a `group_by` on both keys, costs seconds), which is "
        "why rankviz hashes the doc ids itself and sorts the 64-bit keys.",
        "",
        END,
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; RESULTS.md untouched")
    args = parser.parse_args()
    r = measure(max(args.rounds, 1))
    ours = r["wall"]["rankviz.evaluate (everything)"]
    for name, wall in r["wall"].items():
        log(f"{name}: {wall:.3f} s wall, {r['cpu'][name]:.3f} s CPU; rankviz / this = {ours / wall:.2f}x")
    log(f"uptime: {r['uptime_at_end']}")
    if not args.no_write:
        write_results(render(r), START, END)
        log("wrote benchmarks/RESULTS.md")


if __name__ == "__main__":
    main()
