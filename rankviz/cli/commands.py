"""The argument parser and the commands behind ``rankviz`` (see the package docstring)."""

from __future__ import annotations

import argparse
import math
import os
import sys
import warnings
from pathlib import Path

from . import diff
from .arguments import EVAL_FLAGS, REPORT_FLAGS, UsageError, as_flags, int_at_least, integer, one_line
from .eval_command import DEFAULT_EVAL_MEASURES, add_eval, files_after_m, run_eval

__all__ = ["main", "trec_name", "DEFAULT_EVAL_MEASURES"]


def trec_name(measure) -> str:
    """trec_eval's output name of a measure (``RR`` -> ``recip_rank``, ``nDCG@10`` -> ``ndcg_cut_10``)."""
    from ..measures import parse_measure

    return parse_measure(measure).trec_name


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``rankviz report: error: ... (see 'rankviz report -h')``, exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} -h')\n")


#: the report's intervals are 95%; a two-sided 95% bootstrap interval needs ceil(2 / 0.05) resamples
#: (rankviz.stats.options.StatsOptions refuses fewer; tests/report/test_notebooks_and_cli.py checks that the two agree)
REPORT_MIN_RESAMPLES = math.ceil(2 / (1 - 0.95) - 1e-9)


def _n_resamples(text: str) -> int:
    """An argparse type: at least as many resamples as the report's 95% intervals need."""
    value = integer(text, -sys.maxsize)
    if value < REPORT_MIN_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"must be at least {REPORT_MIN_RESAMPLES} for the report's 95% intervals (each tail needs at least one "
            f"resample; the default is 10000), got {value}"
        )
    return value


def _version() -> str:
    """The installed rankviz's version (its package metadata, which pyproject.toml and rankviz.__version__ share)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rankviz")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rankviz", description="Rank-aware evaluation with trec_eval-exact numbers.")
    parser.add_argument("--version", action="version", version=f"rankviz {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_eval(sub)
    _add_report(sub)
    _add_notebooks(sub)
    diff.add_parser(sub)
    return parser


def _add_report(sub) -> None:
    rep = sub.add_parser(
        "report", help="write a one-file HTML report", description="Evaluate runs and write a shareable HTML report."
    )
    rep.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files or JSONL logs (the first is the baseline)")
    rep.add_argument(
        "--qrels", help="TREC qrels file or a JSONL log (its gold ids); by default the gold ids of the first log"
    )
    rep.add_argument("--topics", help="query texts: TREC topic XML, <top> topics or a query_id<TAB>text file")
    rep.add_argument("--measures", nargs="+", help="measures (default: RR@k nDCG@k AP R@100 P@k)")
    rep.add_argument(
        "-k", type=int_at_least(1), default=10, help="cutoff for the default measures and the plots (default 10)"
    )
    rep.add_argument(
        "-M", "--depth", type=int_at_least(1), default=None, help="cut every ranked list to this depth first"
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
        type=int_at_least(0),
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
    nbs.add_argument("--timeout", type=int_at_least(1), default=600, help="seconds per cell (default 600)")
    nbs.add_argument("--quiet", action="store_true")


def _report(args) -> int:
    from .._errors import InputError

    if not args.runs:
        hint = " (the measures after --measures took every name: put the runs first)" if args.measures else ""
        raise InputError(f"no run files given{hint}; usage: rankviz report --qrels QRELS RUN [RUN ...]")
    import tempfile

    from .logs import as_trec_files, is_log

    inputs = [p for p in [args.qrels, *args.runs] if p is not None]
    if any(Path(args.output).resolve() == Path(p).resolve() for p in inputs):
        raise InputError(f"refusing to write the report to {args.output}: it is an input file; choose another -o")
    with tempfile.TemporaryDirectory() as folder:  # the report notebook reads TREC files: logs are written as such
        qrels, runs = args.qrels, args.runs
        if qrels is None or any(is_log(p) for p in inputs):
            qrels, runs = as_trec_files(qrels, runs, folder)
        return _build(args, qrels, runs)


def _build(args, qrels, runs) -> int:
    from ..report import build_report

    build_report(
        qrels,
        runs,
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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rankviz`` console script: the exit status (0, 1 when a notebook failed, 2 for bad input)."""
    from .._errors import RankvizError, RankvizWarning
    from ..report import NotebookError

    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # -h, or a usage error already printed in one line: a status, as for the commands
        return exc.code if isinstance(exc.code, int) else 2
    handlers = {"eval": run_eval, "report": _report, "notebooks": _notebooks, "diff": diff.run}
    flags = {"eval": EVAL_FLAGS, "report": REPORT_FLAGS}.get(args.command, {})
    prog = f"rankviz {args.command}"
    try:
        if args.command == "eval":
            files_after_m(args)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RankvizWarning)  # shown, one line each, whatever the filters say
            try:
                return handlers[args.command](args)
            finally:
                # once each: -q with relstring judges the run twice, and would warn twice
                for text in dict.fromkeys(as_flags(one_line(w.message), flags) for w in caught):
                    print(f"{prog}: warning: {text}", file=sys.stderr)
    except UsageError as exc:
        print(f"{prog}: error: {exc} (see '{prog} -h')", file=sys.stderr)
        return 2
    except NotebookError as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except (RankvizError, OSError, ValueError) as exc:  # bad input: a file, a value, a measure name
        if isinstance(exc, BrokenPipeError):  # `rankviz eval ... | head`: the reader left, nothing to report
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        print(f"{prog}: error: {as_flags(one_line(exc), flags)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - interactive
        return 130
