"""``rankviz eval``: trec_eval's command line and output, and a table of several runs.

``rankviz eval [trec_eval's flags] QRELS RUN`` prints what trec_eval prints for the
same command line: its flags (``-q -m -c -n -M -l -J``) mean what they mean there,
and only the lines of the measures asked for are printed (``runid`` and ``num_q``
only when asked, or in one of trec_eval's sets, or without ``-m``). Several runs
(``rankviz eval QRELS RUN RUN ...``) or ``--format table|csv|json`` give one table,
one row per run (and per query with ``-q``).
"""

from __future__ import annotations

import json
import os
import sys

from .._core.options import TIES
from .arguments import UsageError, int_at_least
from .logs import is_log

__all__ = ["DEFAULT_EVAL_MEASURES", "FORMATS", "add_eval", "files_after_m", "run_eval"]

#: the measures without -m: trec_eval's own default, its ``official`` set (runid, num_q, ..., P_1000: 30 lines)
DEFAULT_EVAL_MEASURES = ["official"]

#: output formats: trec_eval's lines (the default for one run), or one table of every run
FORMATS = ("trec", "table", "csv", "json")

_TIES_HELP = (
    "how documents with equal scores are ordered: trec_eval (the default: by doc id, descending, as trec_eval "
    "does), expected (the exact mean over every order of the tied documents), optimistic (relevant ones first) "
    "or pessimistic (relevant ones last)"
)


def add_eval(sub) -> None:
    """The ``eval`` sub-command and its flags (trec_eval's own, then rankviz's)."""
    ev = sub.add_parser(
        "eval",
        help="print a trec_eval-style table",
        usage="%(prog)s [options] QRELS RUN [RUN ...]",
        description="Evaluate TREC runs against qrels, as trec_eval does: a trec_eval command line works unchanged "
        "(-q, -m, -c, -n, -M, -l, -J). Options may come before or after the files (rankviz eval -m map ndcg QRELS "
        "RUN, or QRELS RUN -m map ndcg). Several runs give one table (--format).",
    )
    # Optional only for argparse: `-m map QRELS RUN` (trec_eval's order) lets -m take the files; see files_after_m.
    ev.add_argument(
        "qrels",
        nargs="?",
        help="TREC qrels file (plain or gzip/bzip2/xz), or a JSONL log (its gold ids); a log alone "
        "(rankviz eval LOG.jsonl) is its run against its own gold ids",
    )
    ev.add_argument("runs", nargs="*", metavar="RUN", help="TREC run file(s) or JSONL logs (plain or gzip/bzip2/xz)")
    ev.add_argument("-q", action="store_true", help="also print per-query values (trec_eval -q)")
    ev.add_argument(
        "-m",
        "--measure",
        nargs="+",
        action="extend",
        dest="measures",
        metavar="MEASURE",
        help="measures to print, several after one -m or -m repeated: RR@10, nDCG@10, AP, P@5, recall_100, "
        "trec_eval's sets all_trec, official and set, P (its default cutoffs), P.5,10 or relstring.20; printed in "
        "trec_eval's order (default: official, trec_eval's own default table)",
    )
    ev.add_argument(
        "-M",
        "--depth",
        type=int_at_least(1),
        default=None,
        help="cut every ranked list to this depth first (trec_eval -M)",
    )
    ev.add_argument("-l", "--rel", type=int, default=1, help="minimum relevant grade (trec_eval -l), default 1")
    ev.add_argument(
        "-c",
        dest="complete",
        action="store_true",
        help="score judged queries the run did not retrieve 0 and count them (trec_eval -c; rankviz's default, "
        "the same as --missing zero)",
    )
    ev.add_argument(
        "--missing",
        choices=("zero", "drop", "error"),
        default=None,
        help="judged queries the run did not retrieve: score 0 (default, trec_eval -c), drop, or error",
    )
    ev.add_argument("-n", dest="no_summary", action="store_true", help="no summary ('all') lines (trec_eval -n)")
    ev.add_argument(
        "-J", "--judged-only", action="store_true", help="drop unjudged items before ranking (trec_eval -J)"
    )
    ev.add_argument(
        "--duplicates",
        choices=("error", "first"),
        default="error",
        help="a document retrieved twice for a query: an error (default, as trec_eval), or keep its best-ranked row",
    )
    ev.add_argument("--ties", choices=TIES, default="trec_eval", help=_TIES_HELP)
    ev.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="trec: trec_eval's lines (the default for one run); table, csv or json: one row per run (and per "
        "query with -q), the default table for several runs",
    )
    ev.add_argument(
        "--dask",
        nargs="?",
        const="",
        default=None,
        metavar="SCHEDULER_ADDRESS",
        help="evaluate on Dask (pip install 'rankviz[dask]'): a local cluster, or the scheduler at "
        "SCHEDULER_ADDRESS (tcp://host:8786); RUN may then be a glob or a parquet folder",
    )


def files_after_m(args) -> None:
    """Give back to QRELS and RUN the file names that ``-m`` took (``rankviz eval -m map QRELS RUN [RUN ...]``).

    ``-m`` takes several values, so in trec_eval's argument order it also takes the
    files. They are its last values that name existing paths (at least as many as
    QRELS and one RUN still need, so that a missing file is reported as missing).
    """
    if args.dask and "://" not in args.dask:  # `--dask QRELS RUN`: --dask took the qrels file, not an address
        args.qrels, args.runs, args.dask = args.dask, [*([args.qrels] if args.qrels else []), *args.runs], ""
    files = ([args.qrels] if args.qrels is not None else []) + list(args.runs)
    values = list(args.measures or [])
    existing = 0
    while existing < len(values) and os.path.exists(values[len(values) - 1 - existing]):
        existing += 1
    needed = 2 - len(files)
    if existing and not files and is_log(values[len(values) - existing]):  # a log alone is its run and its qrels
        needed = existing
    taken = min(max(existing, needed), len(values) - 1)  # at least one measure stays with -m
    if taken > 0:
        args.measures = values[: len(values) - taken]
        files += values[len(values) - taken :]
    if len(files) == 1 and is_log(files[0]):  # `rankviz eval LOG.jsonl`: the log's run against its own gold ids
        files = [files[0], files[0]]
    if len(files) < 2:
        missing = ["qrels", "run"][len(files) - max(taken, 0) :]
        raise UsageError(f"the following arguments are required: {', '.join(missing)}")
    args.qrels, args.runs = files[0], files[1:]
    if args.complete and args.missing not in (None, "zero"):
        raise UsageError(f"-c means --missing zero; it cannot be used with --missing {args.missing}")
    args.missing = args.missing or "zero"


def run_eval(args) -> int:
    """``rankviz eval``: the exit status (the lines or the table on stdout, notes on stderr)."""
    from .._core.options import EvalOptions
    from ..evaluation.pipeline import with_rel
    from ..measures import parse_measures
    from .logs import qrels_of
    from .trec_output import expand_trec_names, header_asked

    asked = args.measures or DEFAULT_EVAL_MEASURES
    names, relstring = expand_trec_names(asked)
    measures = with_rel(parse_measures(names), args.rel)
    header = header_asked(asked)
    header += ("num_q",) if "num_q" in names and "num_q" not in header else ()
    fmt = args.format or ("trec" if len(args.runs) == 1 else "table")
    if args.dask is not None and (len(args.runs) > 1 or fmt != "trec"):
        raise UsageError("--dask evaluates one run and prints trec_eval's lines: give one RUN and no --format")
    qrels = qrels_of(args.qrels)
    options = EvalOptions.resolve(
        "eval",
        rel=args.rel,
        depth=args.depth,
        missing=args.missing,
        duplicates=args.duplicates,
        ties=args.ties,
        judged_only=args.judged_only,
    )
    # trec_eval prints in its table's order whatever the order of -m; measures it lacks come last, as given
    trec_order = True
    if args.dask is not None:
        return _eval_on_dask(args, qrels, measures, relstring, options, trec_order, header)
    if fmt == "trec":
        return _trec_lines(args, qrels, measures, relstring, options, trec_order, header)
    return _table(args, qrels, measures, options, trec_order, fmt)


def _read(path):
    """(the run without its system column, its tag): trec_eval reads a file as one run whatever its tags.

    A JSON-lines log is read as its run (:mod:`rankviz.cli.logs`)."""
    from .logs import run_of

    run = run_of(path)
    return run.drop(columns="system"), str(run["system"].iloc[0])


def _trec_lines(args, qrels, measures, relstring, options, trec_order, header) -> int:
    from .trec_output import trec_eval_lines

    for path in args.runs:
        run, tag = _read(path)
        lines = trec_eval_lines(
            run,
            qrels,
            measures,
            run_id=tag,
            per_query=args.q,
            relstring=relstring,
            options=options,
            trec_order=trec_order,
            header=header,
            summary=not args.no_summary,
        )
        sys.stdout.write("".join(line + "\n" for line in lines))
        _report_queries(run, qrels, args.missing, args.rel, str(path))
    return 0


def _table(args, qrels, measures, options, trec_order, fmt: str) -> int:
    """Every run in one table: one row per run (its "all" values), and per query with -q; csv, json or text."""
    import pandas as pd

    from .trec_output import result_rows

    rows, files, tags = [], [], []
    for path in args.runs:
        run, tag = _read(path)
        these = result_rows(run, qrels, measures, run_id=tag, per_query=args.q, options=options, trec_order=trec_order)
        rows += these
        files += [str(path)] * len(these)
        tags.append(tag)
        _report_queries(run, qrels, args.missing, args.rel, str(path))
    frame = pd.DataFrame(rows)
    if len(set(tags)) < len(tags):  # two files with one tag: the file tells their rows apart
        frame.insert(1, "file", files)
    if args.no_summary:
        frame = frame[frame["query_id"] != "all"]
    if fmt == "csv":
        frame.to_csv(sys.stdout, index=False, float_format="%.6g", lineterminator="\n")
    elif fmt == "json":
        sys.stdout.write(json.dumps(frame.to_dict(orient="records"), indent=1) + "\n")
    else:
        with pd.option_context("display.max_columns", None, "display.width", 10_000):
            sys.stdout.write(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
    return 0


def _eval_on_dask(args, qrels, measures, relstring, options, trec_order, header) -> int:
    """``rankviz eval --dask [ADDRESS]``: the same lines, computed on a Dask cluster with a text progress bar."""
    import contextlib
    import functools

    from .._errors import InputError
    from .trec_output import trec_eval_lines

    if relstring is not None and args.q:
        raise InputError("relstring is not available with --dask (it needs the whole run in memory); leave it out.")
    try:
        from distributed import Client, LocalCluster

        import rankviz.dask as rankviz_dask
        from rankviz.dask.evaluation import per_query
    except ImportError as exc:
        raise InputError(f"--dask needs Dask: {exc}") from None
    with contextlib.ExitStack() as stack:
        if args.dask:
            stack.enter_context(Client(args.dask))
        else:
            cluster = stack.enter_context(LocalCluster(host="127.0.0.1", dashboard_address=":0"))
            stack.enter_context(Client(cluster))
        run = rankviz_dask.read_run(args.runs[0])
        tag = str(run["system"].head(1).iloc[0])
        run = run.drop(columns="system")
        evaluate = functools.partial(per_query, progress=sys.stderr.isatty())
        with contextlib.redirect_stdout(sys.stderr):  # distributed's text bar writes to stdout: keep stdout the table
            lines = trec_eval_lines(
                run,
                qrels,
                measures,
                run_id=tag,
                per_query=args.q,
                relstring=None,
                options=options,
                trec_order=trec_order,
                evaluate_with=evaluate,
                header=header,
                summary=not args.no_summary,
            )
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


def _report_queries(run, qrels, missing: str, rel: int = 1, path: str = "the run") -> None:
    """Say on stderr how many judged queries the run missed and how many run queries have no judgements.

    And when every measure is 0 whatever the run does (the qrels share no relevant judgement with it),
    the same cause as ``rankviz diff`` gives for refusing them; trec_eval's lines are printed all the same.
    """
    from .diff import unusable_qrels

    problem = unusable_qrels(qrels, run, rel, f"RUN {path}")
    if problem is not None and problem[0] != "no judged document":  # that one the evaluation already warns about
        print(f"rankviz eval: warning: {problem[1]}", file=sys.stderr)
    queries = set(qrels["query_id"].astype(str))
    retrieved = set(run["query_id"].astype(str))
    absent, unjudged = queries - retrieved, retrieved - queries
    if absent or unjudged:
        print(
            f"rankviz: {len(absent)} judged queries missing from the run (--missing {missing}); "
            f"{len(unjudged)} run queries without judgements (not evaluated)",
            file=sys.stderr,
        )
