"""``rankviz diff QRELS BASELINE_RUN NEW_RUN``: a regression gate for CI.

Both runs are evaluated per query and compared, paired by query id
(:func:`rankviz.stats.compare`: Fisher's randomization test, Holm's correction
across the measures) and shown with Holm-adjusted paired t-intervals, which match
the Holm-adjusted verdict (:mod:`rankviz.cli.gate`). A measure *regresses* when it
drops significantly (Holm-corrected p < ``--alpha``) and, with ``--max-drop X``,
its Holm-adjusted interval lies wholly below ``-X``. The exit status is 1 when any
measure regresses, 0 otherwise, 2 for bad input (a one-line error, see
:mod:`rankviz.cli.commands`), qrels on which every measure is 0 whatever the runs
retrieve included (the gate fails closed: :func:`unusable_qrels`).
Output: a text table, a markdown pull-request comment or JSON (schema
``rankviz.diff/3``, described in ``docs/diff.md``).

With ``--history PATH`` the command takes QRELS and one run, and gates it against a
record of a :class:`rankviz.History` instead (:mod:`rankviz.cli.diff_history`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap

from . import diff_history
from .arguments import UsageError, markdown_escape, non_negative_number
from .gate import RULE_NOTE, SIZE_NOTE, decide, holm_levels, t_interval, t_strength

__all__ = ["add_parser", "run", "DEFAULT_MEASURES", "SCHEMA", "markdown_text", "markdown_escape", "unusable_qrels"]

DEFAULT_MEASURES = ["nDCG@10", "RR@10", "AP", "R@100"]
#: the JSON output's ``schema`` field; docs/diff.md describes its fields
SCHEMA = "rankviz.diff/3"

_BASELINE, _NEW = "baseline", "new"


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {value:g}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value


def add_parser(sub) -> None:
    """Add the ``diff`` command to the ``rankviz`` subparsers."""
    p = sub.add_parser(
        "diff",
        help="compare a new run with a baseline; exit 1 on a regression (a CI gate)",
        description="Compare NEW_RUN with BASELINE_RUN per query (paired randomization test, Holm across measures). "
        "Exit status: 1 when a measure drops significantly (and, with --max-drop X, its Holm-adjusted interval lies "
        "wholly below -X), 0 otherwise, 2 for bad input or qrels on which every measure is 0. "
        "With --history PATH: 'rankviz diff --history PATH QRELS RUN' compares RUN with a stored record instead "
        "(a one-sided paired t-test per measure, Bonferroni across them; see the options below).",
    )
    p.add_argument(
        "qrels",
        metavar="QRELS",
        nargs="?",
        help="TREC qrels file or a JSONL log (its gold ids); left out when the runs are JSONL logs with gold ids",
    )
    p.add_argument(
        "baseline",
        metavar="BASELINE_RUN",
        help="the run to compare against (TREC run file or JSONL log); with --history, the new run",
    )
    p.add_argument(
        "new", metavar="NEW_RUN", nargs="?", help="the changed run (TREC run file or JSONL log); none with --history"
    )
    p.add_argument(
        "-m", "--measure", nargs="+", action="extend", dest="measures", metavar="MEASURE",
        help=f"measures (default: {' '.join(DEFAULT_MEASURES)})",
    )  # fmt: skip
    p.add_argument(
        "--max-drop",
        type=non_negative_number,
        default=None,
        help="tolerate drops up to this: a significant drop fails only when its Holm-adjusted interval lies wholly "
        "below -MAX_DROP (a rule on the interval's bound, not on the mean, which false-alarms on unchanged systems)",
    )
    p.add_argument("--alpha", type=_share, default=0.05, help="significance level after Holm's correction (0.05)")
    p.add_argument("--topics", help="query texts shown beside the most hurt queries (TREC topics or a TSV)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="output format (text)")
    p.add_argument("--top", type=_count, default=5, help="how many of the most hurt queries to list (5)")
    p.add_argument("--n-resamples", type=_count, default=10_000, help="randomization test resamples (10000)")
    p.add_argument("--seed", type=_count, default=0, help="random seed (0)")
    p.add_argument("-l", "--rel", type=int, default=None, help="minimum relevant grade, default 1")
    diff_history.add_arguments(p)


def run(args) -> int:
    """Run ``rankviz diff``; print the report; return 1 on a regression, else 0."""
    if diff_history.wanted(args):
        diff_history.check(args)
        qrels, new = _history_inputs(args)
        result = diff_history.history_result(args, qrels, new, SCHEMA)
        writer = {"text": diff_history.text_report, "markdown": diff_history.markdown_text, "json": json_text}[
            args.format
        ]
        sys.stdout.write(writer(result))
        return result["exit_code"]
    if args.new is None:  # `rankviz diff BASE.jsonl NEW.jsonl`: argparse gave the first log to QRELS
        if args.qrels is None:
            raise UsageError("the following arguments are required: NEW_RUN")
        args.qrels, args.baseline, args.new = None, args.qrels, args.baseline
    args.rel = 1 if args.rel is None else args.rel
    result = diff_result(args)
    writer = {"text": text_report, "markdown": markdown_text, "json": json_text}[args.format]
    sys.stdout.write(writer(result))
    return result["exit_code"]


def diff_result(args) -> dict:
    """Everything the three formats print, as the JSON document (see docs/diff.md)."""
    from .. import stats
    from ..evaluation import evaluate
    from ..evaluation.pipeline import with_rel
    from ..io import read_topics
    from ..measures import parse_measures

    measures = [m.name for m in with_rel(parse_measures(args.measures or DEFAULT_MEASURES), args.rel)]
    qrels, runs = _inputs(args)
    texts = {}
    if args.topics:
        topics = read_topics(args.topics)
        texts = dict(zip(topics["query_id"].astype(str), topics["text"].astype(str)))
    tags = {who: str(frame["system"].iloc[0]) if len(frame) else "" for who, frame in runs.items()}
    frames = {who: frame.drop(columns="system") for who, frame in runs.items()}
    per_query = evaluate(frames, measures, qrels, per_query=True, rel=args.rel)
    comparison = stats.compare(
        per_query, baseline=_BASELINE, measures=measures, correction="holm", n_resamples=args.n_resamples,
        rng=args.seed,
    )  # fmt: skip
    rows = _rows(comparison, per_query, args)
    first = measures[0]
    hurt = stats.paired_differences(per_query, system=_NEW, baseline=_BASELINE, measure=first)
    hurt = hurt[hurt["difference"] < 0].head(args.top)
    regressions = [r["measure"] for r in rows if r["regression"]]
    return {
        "schema": SCHEMA,
        "mode": "runs",
        "qrels": str(args.qrels),
        "baseline": {"path": str(args.baseline), "system": tags[_BASELINE]},
        "new": {"path": str(args.new), "system": tags[_NEW]},
        "n_queries": int(per_query["query_id"].nunique()),
        "test": comparison.test,
        "correction": comparison.correction,
        "alpha": args.alpha,
        "max_drop": args.max_drop,
        "n_resamples": comparison.n_resamples,
        "seed": args.seed,
        "measures": rows,
        "most_hurt": [
            {
                "query_id": str(h["query_id"]),
                "text": texts.get(str(h["query_id"])),
                "measure": first,
                "baseline": float(h["baseline"]),
                "new": float(h["system"]),
                "difference": float(h["difference"]),
            }
            for h in hurt.to_dict("records")
        ],  # fmt: skip
        "regressions": regressions,
        "exit_code": 1 if regressions else 0,
        "rule": RULE_NOTE,
        "size": SIZE_NOTE,
    }


def _inputs(args):
    """(qrels, {baseline: run, new: run}), logs read as such; qrels on which the gate could not fail refused."""
    from .._errors import InputError
    from .logs import is_log, qrels_of, run_of

    if args.qrels is None:  # `rankviz diff BASE.jsonl NEW.jsonl`: the logs' own gold ids
        if not is_log(args.baseline):
            raise InputError(
                "QRELS is required (rankviz diff QRELS BASELINE_RUN NEW_RUN); it may be left out only when the "
                "runs are JSONL logs with gold ids"
            )
        args.qrels = args.baseline
        if is_log(args.new) and not _same_qrels(qrels_of(args.baseline), qrels_of(args.new)):
            raise InputError(
                f"the gold ids of {args.baseline} and {args.new} differ, so the two logs are not judged alike; "
                "pass the qrels to judge both by (rankviz diff QRELS BASELINE_RUN NEW_RUN)"
            )
    qrels = qrels_of(args.qrels)
    runs = {_BASELINE: run_of(args.baseline), _NEW: run_of(args.new)}
    for who, name in ((_BASELINE, "BASELINE_RUN"), (_NEW, "NEW_RUN")):  # fail closed: never pass on unusable qrels
        problem = unusable_qrels(qrels, runs[who], args.rel, f"{name} {getattr(args, who)}")
        if problem is not None:
            raise InputError(f"cannot gate on these qrels (a gate on them would pass every change): {problem[1]}")
    return qrels, runs


def _history_inputs(args):
    """(qrels, new run) of ``rankviz diff --history PATH QRELS RUN`` (a log alone gives both); unusable qrels refused."""
    from .._errors import InputError
    from .logs import is_log, qrels_of, run_of

    if args.new is not None:
        raise UsageError(
            f"with --history give QRELS and one run (rankviz diff --history PATH QRELS RUN), not two runs: "
            f"the baseline is the record --against {args.against} ({args.new!r} is one file too many)"
        )
    if args.qrels is None and not is_log(args.baseline):
        raise InputError(
            "QRELS is required (rankviz diff --history PATH QRELS RUN) unless RUN is a JSONL log with gold ids"
        )
    qrels = qrels_of(args.baseline if args.qrels is None else args.qrels)
    new = run_of(args.baseline)
    problem = unusable_qrels(qrels, new, 1, f"RUN {args.baseline}")
    if problem is not None:
        raise InputError(f"cannot gate on these qrels (a gate on them would pass every change): {problem[1]}")
    return qrels, new


def _rows(comparison, per_query, args) -> list[dict]:
    """One row per measure: the comparison's numbers, the Holm-adjusted interval and the verdict."""
    from .. import stats

    records = comparison.table.to_dict("records")
    differences = [
        stats.paired_differences(per_query, system=_NEW, baseline=_BASELINE, measure=r["measure"])[
            "difference"
        ].to_numpy()
        for r in records
    ]
    levels = holm_levels(
        [r["p_value"] for r in records],
        [r["p_corrected"] for r in records],
        args.alpha,
        ties=[t_strength(d) for d in differences],
    )
    return [
        _measure_row(record, comparison.confidence_level, level, d, args)
        for record, level, d in zip(records, levels, differences)
    ]


def _same_qrels(a, b) -> bool:
    def rows(q):
        return set(zip(q["query_id"].astype(str), q["doc_id"].astype(str), q["relevance"].astype(int)))

    return rows(a) == rows(b)


def _examples(values) -> str:
    shown = list(dict.fromkeys(str(v) for v in values))
    return ", ".join(repr(v) for v in shown[:2]) + (", ..." if len(shown) > 2 else "")


def unusable_qrels(qrels, run, rel: int, run_name: str) -> tuple[str, str] | None:
    """Why every measure of ``run`` against ``qrels`` would be 0 whatever the run does, or None.

    ``(cause, message)``, the cause one of ``"no query"`` (the two share no query id),
    ``"no judged document"`` (no retrieved document of a shared query is judged) and
    ``"no relevant document"`` (no judgement of a shared query reaches grade ``rel``).
    ``rankviz diff`` refuses such qrels (a gate on them would pass every change);
    ``rankviz eval`` prints trec_eval's lines and says the cause on stderr.

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["x9"], "relevance": [1]})
    >>> unusable_qrels(qrels, run, 1, "run.txt")[0]
    'no judged document'
    >>> unusable_qrels(qrels.assign(doc_id="d1"), run, 1, "run.txt") is None
    True
    """
    fail = "so every measure is 0 whatever the run retrieves"
    qrel_q, run_q = qrels["query_id"].astype(str), run["query_id"].astype(str)
    shared = set(qrel_q) & set(run_q)
    if not shared:
        return (
            "no query",
            f"the qrels share no query id with {run_name} (the run has {_examples(run_q)}, the qrels "
            f"{_examples(qrel_q)}), {fail}; pass the qrels of these runs' queries",
        )
    judged = qrels[qrel_q.isin(shared).to_numpy()]
    retrieved = run[run_q.isin(shared).to_numpy()]
    pairs = [frame[["query_id", "doc_id"]].astype(str).drop_duplicates() for frame in (retrieved, judged)]
    if pairs[0].merge(pairs[1], on=["query_id", "doc_id"]).empty:
        return (
            "no judged document",
            f"no document {run_name} retrieved is judged in the qrels (the run has doc ids like "
            f"{_examples(retrieved['doc_id'])}, the qrels {_examples(judged['doc_id'])}), {fail}; pass the qrels "
            "of this collection, or make the doc ids match",
        )
    if not (judged["relevance"] >= rel).any():
        return (
            "no relevant document",
            f"the qrels judge no document relevant (grade >= {rel}) for the {len(shared)} queries they share with "
            f"{run_name}, {fail}; pass the right qrels, or a lower -l",
        )
    return None


def _measure_row(row: dict, confidence_level: float, holm_level: float, differences, args) -> dict:
    difference, p = float(row["difference"]), float(row["p_corrected"])
    interval = t_interval(differences, holm_level)
    regression, reasons, note = decide(difference, p, interval, args.alpha, args.max_drop)
    return {
        "measure": row["measure"],
        "baseline_mean": float(row["baseline_mean"]),
        "new_mean": float(row["system_mean"]),
        "difference": difference,
        "ci_low": float(row["ci_low"]),
        "ci_high": float(row["ci_high"]),
        "confidence_level": confidence_level,
        "holm_ci_low": interval[0],
        "holm_ci_high": interval[1],
        "holm_confidence_level": holm_level,
        "p_value": float(row["p_value"]),
        "p_holm": p,
        "helped": int(row["wins"]),
        "hurt": int(row["losses"]),
        "unchanged": int(row["ties"]),
        "regression": regression,
        "reasons": reasons,
        "note": note,
    }


def _verdict(result: dict) -> str:
    if result["regressions"]:
        return f"REGRESSION in {', '.join(result['regressions'])}"
    return "no regression"


def text_report(result: dict) -> str:
    """The plain-text report: a header, one line per measure, the most hurt queries, the verdict."""
    b, n = result["baseline"], result["new"]
    lines = [
        f"rankviz diff: {n['system']} ({n['path']}) against {b['system']} ({b['path']}), "
        f"{result['n_queries']} queries; randomization test, Holm across measures, alpha {result['alpha']:g}",
        "",
        f"{'measure':<16}{'baseline':>10}{'new':>10}{'diff':>10}  {'Holm CI (level)':<28}{'p (Holm)':>10}"
        f"{'helped':>8}{'hurt':>6}  verdict",
    ]
    for r in result["measures"]:
        ci = f"[{r['holm_ci_low']:+.4f}, {r['holm_ci_high']:+.4f}] {r['holm_confidence_level']:.1%}"
        verdict = "REGRESSION: " + "; ".join(r["reasons"]) if r["regression"] else "ok"
        verdict += f" ({r['note']})" if r["note"] else ""
        lines.append(
            f"{r['measure']:<16}{r['baseline_mean']:>10.4f}{r['new_mean']:>10.4f}{r['difference']:>+10.4f}  {ci:<28}"
            f"{r['p_holm']:>10.4g}{r['helped']:>8}{r['hurt']:>6}  {verdict}"
        )
    if result["most_hurt"]:
        lines += ["", f"Most hurt queries ({result['most_hurt'][0]['measure']}):"]
        width = max(12, *(len(str(h["query_id"])) + 2 for h in result["most_hurt"]))  # a long id keeps a gap
        for h in result["most_hurt"]:
            text = f"  {' '.join(h['text'].split())[:70]}" if h["text"] else ""
            qid = str(h["query_id"])
            lines.append(f"  {qid:<{width}}{h['baseline']:.4f} -> {h['new']:.4f} ({h['difference']:+.4f}){text}")
    lines += ["", *textwrap.wrap(result["rule"], 110), *textwrap.wrap(result["size"], 110), "", _verdict(result)]
    return "\n".join(lines) + "\n"


def markdown_text(result: dict) -> str:
    """The report as a GitHub pull-request comment: a heading with the verdict, a table, the most hurt queries."""
    e = markdown_escape
    b, n = result["baseline"], result["new"]
    icon = (
        "\u274c" if result["regressions"] else "\u2705"
    )  # rendered by GitHub and Jupyter alike (shortcodes only by GitHub)
    out = [
        f"### {icon} rankviz diff: {e(_verdict(result))}",
        "",
        f"**{e(n['system'])}** against the baseline **{e(b['system'])}** on {result['n_queries']} queries "
        f"(paired randomization test, Holm across measures, alpha {result['alpha']:g}"
        + (f", max drop {result['max_drop']:g}" if result["max_drop"] is not None else "")
        + ").",
        "",
        "| measure | baseline | new | difference | Holm CI (level) | p (Holm) | helped | hurt | |",
        "|:--|--:|--:|--:|:--|--:|--:|--:|:--|",
    ]
    for r in result["measures"]:
        flag = "\u274c " + e("; ".join(r["reasons"])) if r["regression"] else "\u2705"
        flag += f" {e(r['note'])}" if r["note"] else ""
        out.append(
            f"| {e(r['measure'])} | {r['baseline_mean']:.4f} | {r['new_mean']:.4f} | {r['difference']:+.4f} | "
            f"[{r['holm_ci_low']:+.4f}, {r['holm_ci_high']:+.4f}] ({r['holm_confidence_level']:.1%}) | "
            f"{r['p_holm']:.4g} | {r['helped']} | {r['hurt']} | {flag} |"
        )
    if result["most_hurt"]:
        measure = e(result["most_hurt"][0]["measure"])
        out += ["", "<details><summary>Most hurt queries</summary>", "",
                f"| query | text | baseline {measure} | new {measure} | difference |", "|:--|:--|--:|--:|--:|"]  # fmt: skip
        for h in result["most_hurt"]:
            out.append(
                f"| {e(h['query_id'])} | {e(h['text'] or '')} | {h['baseline']:.4f} | {h['new']:.4f} | "
                f"{h['difference']:+.4f} |"
            )
        out += ["", "</details>"]
    out += ["", result["rule"], "", result["size"]]  # rankviz's own sentences, no user text
    return "\n".join(out) + "\n"


def json_text(result: dict) -> str:
    """The report as JSON (``schema`` = :data:`SCHEMA`; NaN written as null)."""

    def clean(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return json.dumps(clean(result), indent=2, ensure_ascii=False) + "\n"
