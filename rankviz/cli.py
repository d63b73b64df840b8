"""Command line: ``rankviz eval``, ``rankviz report`` and ``rankviz notebooks`` (also ``python -m rankviz``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._options import TIES

__all__ = ["main", "trec_name"]

DEFAULT_EVAL_MEASURES = ["RR", "AP", "Rprec", "nDCG", "nDCG@10", "P@5", "P@10", "R@100", "R@1000", "Success@10"]


def trec_name(measure) -> str:
    """trec_eval's output name of a measure (``RR`` -> ``recip_rank``, ``nDCG@10`` -> ``ndcg_cut_10``)."""
    from .measures import parse_measure

    return parse_measure(measure).trec_name


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankviz", description="Rank-aware evaluation with trec_eval-exact numbers.")
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("eval", help="print a trec_eval-style table", description="Evaluate a TREC run against qrels.")
    ev.add_argument("qrels", help="TREC qrels file")
    ev.add_argument("run", help="TREC run file")
    ev.add_argument("-q", action="store_true", help="also print per-query values")
    ev.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                    help="measure to print (repeatable): RR@10, nDCG@10, AP, P@5, recall_100, trec_eval's all_trec, "
                         "P.5,10 or relstring.20 (default: a standard set)")
    ev.add_argument("-M", "--depth", type=int, default=None, help="cut every ranked list to this depth first (trec_eval -M)")
    ev.add_argument("-l", "--rel", type=int, default=1, help="minimum relevant grade (trec_eval -l), default 1")
    ev.add_argument("--missing", choices=("zero", "drop", "error"), default="zero",
                    help="judged queries the run did not retrieve: score 0 (default, trec_eval -c), drop, or error")
    ev.add_argument("-J", "--judged-only", action="store_true",
                    help="drop unjudged items before ranking (trec_eval -J, condensed lists)")
    ev.add_argument("--ties", choices=TIES, default="trec_eval")

    rep = sub.add_parser("report", help="write a one-file HTML report", description="Evaluate runs and write a shareable HTML report.")
    rep.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (the first is the baseline)")
    rep.add_argument("--qrels", required=True, help="TREC qrels file")
    rep.add_argument("--topics", help="query texts: TREC topic XML or a query_id<TAB>text file")
    rep.add_argument("--measures", nargs="+", help="measures (default: RR@k nDCG@k AP R@100 P@k)")
    rep.add_argument("-k", type=int, default=10, help="cutoff for the default measures and the plots (default 10)")
    rep.add_argument("-M", "--depth", type=int, default=None, help="cut every ranked list to this depth first")
    rep.add_argument("-l", "--rel", type=int, default=1, help="minimum relevant grade, default 1")
    rep.add_argument("--n-resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    rep.add_argument("--seed", dest="rng", type=int, default=0, help="random seed for resampling, the rng= of the API (default 0)")
    rep.add_argument("--title", help="report title")
    rep.add_argument("-o", "--output", default="report.html", help="output HTML file (default report.html)")
    rep.add_argument("--quiet", action="store_true", help="no progress messages")

    nbs = sub.add_parser("notebooks", help="execute notebooks and render them to HTML",
                         description="Execute every notebook of a folder and write HTML files plus index.html.")
    nbs.add_argument("source", nargs="?", default="notebooks", help="folder of .ipynb files (default notebooks)")
    nbs.add_argument("-o", "--output", default="build", help="output folder (default build)")
    nbs.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    nbs.add_argument("--quiet", action="store_true")
    return parser


def _eval(args) -> int:
    from ._options import EvalOptions
    from ._pipeline import with_rel
    from .io import read_qrels, read_run
    from .measures import parse_measures
    from .trec_output import expand_trec_names, trec_eval_lines

    names, relstring = expand_trec_names(args.measures or DEFAULT_EVAL_MEASURES)
    measures = with_rel(parse_measures(names), args.rel)
    qrels = read_qrels(args.qrels)
    run = read_run(args.run)
    tag = run["system"].iloc[0]
    options = EvalOptions.resolve(
        "eval", rel=args.rel, depth=args.depth, missing=args.missing, ties=args.ties, judged_only=args.judged_only
    )
    run = run.drop(columns="system")
    lines = trec_eval_lines(run, qrels, measures, run_id=tag, per_query=args.q, relstring=relstring, options=options)
    sys.stdout.write("\n".join(lines) + "\n")
    _report_queries(run, qrels, args.missing)
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
    from .report import build_report

    if not args.runs:
        raise ValueError("report: no run files given; usage: rankviz report --qrels QRELS RUN [RUN ...]")
    build_report(
        args.qrels, args.runs, output=args.output, topics=args.topics, measures=args.measures, k=args.k,
        depth=args.depth, rel=args.rel, n_resamples=args.n_resamples, rng=args.rng, title=args.title, quiet=args.quiet,
    )
    return 0


def _notebooks(args) -> int:
    from .report import render_notebooks

    render_notebooks(Path(args.source), Path(args.output), timeout=args.timeout, quiet=args.quiet)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rankviz`` console script."""
    from ._errors import RankvizError

    args = _parser().parse_args(argv)
    handlers = {"eval": _eval, "report": _report, "notebooks": _notebooks}
    try:
        return handlers[args.command](args)
    except (RankvizError, FileNotFoundError, IsADirectoryError, PermissionError, ValueError) as exc:
        print(f"rankviz {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - interactive
        return 130
