"""The argument parser and the commands behind ``rankviz`` (see the package docstring)."""

from __future__ import annotations

import argparse
import math
import os
import sys
import warnings
from pathlib import Path

from .._core.options import TIES

__all__ = ["main", "trec_name"]

DEFAULT_EVAL_MEASURES = ["RR", "AP", "Rprec", "nDCG", "nDCG@10", "P@5", "P@10", "R@100", "R@1000", "Success@10"]


def trec_name(measure) -> str:
    """trec_eval's output name of a measure (``RR`` -> ``recip_rank``, ``nDCG@10`` -> ``ndcg_cut_10``)."""
    from ..measures import parse_measure

    return parse_measure(measure).trec_name


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``rankviz report: error: ... (see 'rankviz report -h')``, exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} -h')\n")


def _integer(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
    return value


def _int_at_least(low: int):
    """An argparse type: an integer >= ``low``."""
    return lambda text: _integer(text, low)


#: the report's intervals are 95%; a two-sided 95% bootstrap interval needs ceil(2 / 0.05) resamples
#: (rankviz.stats.inference.settings refuses fewer; tests/test_notebooks_and_cli.py checks that the two agree)
REPORT_MIN_RESAMPLES = math.ceil(2 / (1 - 0.95) - 1e-9)


def _n_resamples(text: str) -> int:
    """An argparse type: at least as many resamples as the report's 95% intervals need."""
    value = _integer(text, -sys.maxsize)
    if value < REPORT_MIN_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"must be at least {REPORT_MIN_RESAMPLES} for the report's 95% intervals (each tail needs at least one "
            f"resample; the default is 10000), got {value}"
        )
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rankviz", description="Rank-aware evaluation with trec_eval-exact numbers.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_eval(sub)
    _add_report(sub)
    _add_notebooks(sub)
    return parser


def _add_eval(sub) -> None:
    ev = sub.add_parser(
        "eval",
        help="print a trec_eval-style table",
        usage="%(prog)s [options] QRELS RUN",
        description="Evaluate a TREC run against qrels. Options may come before or after the files "
        "(rankviz eval -m map ndcg QRELS RUN, or QRELS RUN -m map ndcg).",
    )
    # Optional only for argparse: `-m map QRELS RUN` (trec_eval's order) lets -m take the files; see _files_after_m.
    ev.add_argument("qrels", nargs="?", help="TREC qrels file (plain or gzip/bzip2/xz)")
    ev.add_argument("run", nargs="?", help="TREC run file (plain or gzip/bzip2/xz)")
    ev.add_argument("-q", action="store_true", help="also print per-query values")
    ev.add_argument(
        "-m",
        "--measure",
        nargs="+",
        action="extend",
        dest="measures",
        metavar="MEASURE",
        help="measures to print, several after one -m or -m repeated: RR@10, nDCG@10, AP, P@5, "
        "recall_100, trec_eval's all_trec, P.5,10 or relstring.20 (default: a standard set)",
    )
    ev.add_argument(
        "-M",
        "--depth",
        type=_int_at_least(1),
        default=None,
        help="cut every ranked list to this depth first (trec_eval -M)",
    )
    ev.add_argument("-l", "--rel", type=int, default=1, help="minimum relevant grade (trec_eval -l), default 1")
    ev.add_argument(
        "--missing",
        choices=("zero", "drop", "error"),
        default="zero",
        help="judged queries the run did not retrieve: score 0 (default, trec_eval -c), drop, or error",
    )
    ev.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="drop unjudged items before ranking (trec_eval -J, condensed lists)",
    )
    ev.add_argument("--ties", choices=TIES, default="trec_eval")
    ev.add_argument(
        "--dask",
        nargs="?",
        const="",
        default=None,
        metavar="SCHEDULER_ADDRESS",
        help="evaluate on Dask (pip install 'rankviz[dask]'): a local cluster, or the scheduler at "
        "SCHEDULER_ADDRESS (tcp://host:8786); RUN may then be a glob or a parquet folder",
    )


def _add_report(sub) -> None:
    rep = sub.add_parser(
        "report", help="write a one-file HTML report", description="Evaluate runs and write a shareable HTML report."
    )
    rep.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (the first is the baseline)")
    rep.add_argument("--qrels", required=True, help="TREC qrels file")
    rep.add_argument("--topics", help="query texts: TREC topic XML, <top> topics or a query_id<TAB>text file")
    rep.add_argument("--measures", nargs="+", help="measures (default: RR@k nDCG@k AP R@100 P@k)")
    rep.add_argument(
        "-k", type=_int_at_least(1), default=10, help="cutoff for the default measures and the plots (default 10)"
    )
    rep.add_argument(
        "-M", "--depth", type=_int_at_least(1), default=None, help="cut every ranked list to this depth first"
    )
    rep.add_argument("-l", "--rel", type=int, default=1, help="minimum relevant grade, default 1")
    rep.add_argument(
        "--n-resamples",
        type=_n_resamples,
        default=10_000,
        help=f"bootstrap resamples, at least {REPORT_MIN_RESAMPLES} (default 10000)",
    )
    rep.add_argument(
        "--seed",
        dest="rng",
        type=_int_at_least(0),
        default=0,
        help="random seed for resampling, an integer >= 0, the rng= of the API (default 0)",
    )
    rep.add_argument("--title", help="report title")
    rep.add_argument(
        "-o", "--output", default="report.html", help="output HTML file (default report.html); never an input"
    )
    rep.add_argument("--quiet", action="store_true", help="no progress messages")


def _add_notebooks(sub) -> None:
    nbs = sub.add_parser(
        "notebooks",
        help="execute notebooks and render them to HTML",
        description="Execute every notebook of a folder and write HTML files plus index.html.",
    )
    nbs.add_argument("source", nargs="?", default="notebooks", help="folder of .ipynb files (default notebooks)")
    nbs.add_argument("-o", "--output", default="build", help="output folder (default build)")
    nbs.add_argument("--timeout", type=_int_at_least(1), default=600, help="seconds per cell (default 600)")
    nbs.add_argument("--quiet", action="store_true")


def _files_after_m(args) -> None:
    """Give back to QRELS and RUN the file names that a leading ``-m`` took (``rankviz eval -m map QRELS RUN``).

    ``-m`` takes several measures, so in trec_eval's argument order it also takes the
    two files; they are the last values when the positional arguments are missing.
    """
    if args.dask and "://" not in args.dask:  # `--dask QRELS RUN`: --dask took the qrels file, not an address
        args.qrels, args.run, args.dask = args.dask, args.qrels, ""
    missing = [name for name in ("qrels", "run") if getattr(args, name) is None]
    values = args.measures or []
    if not missing:
        return
    if len(values) <= len(missing):
        raise _UsageError(f"the following arguments are required: {', '.join(missing)}")
    args.measures = values[: -len(missing)]
    for name, value in zip(missing, values[-len(missing) :]):
        setattr(args, name, value)


class _UsageError(Exception):
    """A usage error found after argparse: printed like argparse's own, one line, exit 2."""


def _eval(args) -> int:
    from .._core.options import EvalOptions
    from ..evaluation.pipeline import with_rel
    from ..io import read_qrels, read_run
    from ..measures import parse_measures
    from .trec_output import expand_trec_names, trec_eval_lines

    names, relstring = expand_trec_names(args.measures or DEFAULT_EVAL_MEASURES)
    measures = with_rel(parse_measures(names), args.rel)
    qrels = read_qrels(args.qrels)
    options = EvalOptions.resolve(
        "eval", rel=args.rel, depth=args.depth, missing=args.missing, ties=args.ties, judged_only=args.judged_only
    )
    # all_trec comes in trec_eval's table order; measures named one by one keep the order given
    trec_order = "all_trec" in (args.measures or ())
    if args.dask is not None:
        return _eval_on_dask(args, qrels, measures, relstring, options, trec_order)
    run = read_run(args.run)
    tag = run["system"].iloc[0]
    run = run.drop(columns="system")
    lines = trec_eval_lines(
        run, qrels, measures, run_id=tag, per_query=args.q, relstring=relstring, options=options, trec_order=trec_order
    )
    sys.stdout.write("\n".join(lines) + "\n")
    _report_queries(run, qrels, args.missing)
    return 0


def _eval_on_dask(args, qrels, measures, relstring, options, trec_order) -> int:
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
    except ImportError as exc:
        raise InputError(f"--dask needs Dask: {exc}") from None
    with contextlib.ExitStack() as stack:
        if args.dask:
            stack.enter_context(Client(args.dask))
        else:
            cluster = stack.enter_context(LocalCluster(host="127.0.0.1", dashboard_address=":0"))
            stack.enter_context(Client(cluster))
        run = rankviz_dask.read_run(args.run)
        tag = str(run["system"].head(1).iloc[0])
        run = run.drop(columns="system")
        evaluate = functools.partial(rankviz_dask.evaluate, progress=sys.stderr.isatty())
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
            )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _report_queries(run, qrels, missing: str) -> None:
    """Say on stderr how many judged queries the run missed and how many run queries have no judgements."""
    queries = set(qrels["query_id"].astype(str))
    retrieved = set(run["query_id"].astype(str))
    absent, unjudged = queries - retrieved, retrieved - queries
    if absent or unjudged:
        print(
            f"rankviz: {len(absent)} judged queries missing from the run (missing={missing}); "
            f"{len(unjudged)} run queries without judgements (not evaluated)",
            file=sys.stderr,
        )


def _report(args) -> int:
    from .._errors import InputError
    from ..report import build_report

    if not args.runs:
        hint = " (the measures after --measures took every name: put the runs first)" if args.measures else ""
        raise InputError(f"no run files given{hint}; usage: rankviz report --qrels QRELS RUN [RUN ...]")
    build_report(
        args.qrels,
        args.runs,
        output=args.output,
        topics=args.topics,
        measures=args.measures,
        k=args.k,
        depth=args.depth,
        rel=args.rel,
        n_resamples=args.n_resamples,
        rng=args.rng,
        title=args.title,
        quiet=args.quiet,
    )
    return 0


def _notebooks(args) -> int:
    from ..report import render_notebooks

    render_notebooks(Path(args.source), Path(args.output), timeout=args.timeout, quiet=args.quiet)
    return 0


def _one_line(exc: BaseException | str) -> str:
    """An exception as one line: its message, or for an OS error 'file: reason'."""
    if isinstance(exc, OSError) and exc.strerror:
        where = exc.filename if exc.filename is not None else ""
        return f"{where}: {exc.strerror}" if where else exc.strerror
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rankviz`` console script: the exit status (0, 1 when a notebook failed, 2 for bad input)."""
    from .._errors import RankvizError, RankvizWarning
    from ..report import NotebookError

    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # -h, or a usage error already printed in one line: a status, as for the commands
        return exc.code if isinstance(exc.code, int) else 2
    handlers = {"eval": _eval, "report": _report, "notebooks": _notebooks}
    prog = f"rankviz {args.command}"
    try:
        if args.command == "eval":
            _files_after_m(args)
    except _UsageError as exc:
        print(f"{prog}: error: {exc} (see '{prog} -h')", file=sys.stderr)
        return 2
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RankvizWarning)  # shown, one line each, whatever the filters say
            try:
                return handlers[args.command](args)
            finally:
                for warning in caught:
                    print(f"{prog}: warning: {_one_line(warning.message)}", file=sys.stderr)
    except NotebookError as exc:
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except (RankvizError, OSError, ValueError) as exc:  # bad input: a file, a value, a measure name
        if isinstance(exc, BrokenPipeError):  # `rankviz eval ... | head`: the reader left, nothing to report
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - interactive
        return 130
