"""``rankviz diff --history PATH QRELS RUN``: the CI gate against a stored record of a :class:`rankviz.History`.

Instead of a second run file, the baseline is a record of the history (``--against
accepted``, ``last``, a record id or a name) and the check is
:meth:`rankviz.History.gate`: per measure, the one-sided paired t-test of
``mean(new - baseline) >= -margin`` (``--margin``, a non-inferiority margin; 0 by
default), Bonferroni across the measures, at ``--alpha``; with ``--sequential`` check
``k`` of this name against this baseline is tested at ``alpha / (k (k + 1))``, so
the chance of any false alarm over every scheduled check of an unchanged system stays
at most ``alpha`` (alpha spending by a union bound, :mod:`rankviz.stats.sequential`).
``--record`` stores the new run as a record. The exit status is the gate's: 0 pass,
1 regression, 2 refused (a missing history, an unknown ref, qrels or queries that
changed without ``--relabelled common``: one line on stderr, as any bad input).
"""

from __future__ import annotations

import math
import os
import textwrap

from .arguments import UsageError, as_flags, markdown_escape, non_negative_number

__all__ = ["add_arguments", "wanted", "check", "history_result", "text_report", "markdown_text", "HISTORY_FLAGS"]

#: the gate's keywords -> the flags of ``rankviz diff --history`` (its messages name the flags)
HISTORY_FLAGS = {"relabelled": "--relabelled", "margin": "--margin", "alpha": "--alpha", "name": "--name"}

_ONLY_WITH_HISTORY = {
    "against": "--against",
    "name": "--name",
    "record": "--record",
    "margin": "--margin",
    "sequential": "--sequential",
    "relabelled": "--relabelled",
}
_NOT_WITH_HISTORY = {
    "max_drop": ("--max-drop", "use --margin M, the non-inferiority rule of the history's gate"),
    "rel": ("-l", "the run is evaluated with the baseline record's options, its minimum grade included"),
    "topics": ("--topics", "the history gate lists no most hurt queries"),
}


def add_arguments(parser) -> None:
    """The options of ``rankviz diff`` that gate against a history."""
    group = parser.add_argument_group(
        "against a history (rankviz.History)",
        "rankviz diff --history PATH QRELS RUN [--against REF] [--record --name NAME] [--margin M] [--sequential]: "
        "compare RUN with a stored record instead of a second run file. Each measure: a one-sided paired t-test "
        "of mean(new - baseline) >= -margin, Bonferroni across the measures, at --alpha. "
        "--n-resamples and --seed do not apply.",
    )
    group.add_argument("--history", metavar="PATH", help="the history file (it must exist: rankviz.History(PATH))")
    group.add_argument(
        "--against",
        metavar="REF",
        default=None,
        help="the baseline record: accepted (the last record marked accepted; the default), last, a record id, "
        "or a name (its latest record); with --name, accepted and last look among that name's records",
    )
    group.add_argument(
        "--name", help="the name the check belongs to and the new record gets (default: the baseline's name)"
    )
    group.add_argument(
        "--record", action="store_true", help="store the new run as a record (pass or fail; not when refused)"
    )
    group.add_argument(
        "--margin",
        metavar="M",
        type=non_negative_number,
        default=None,
        help="non-inferiority margin: fail only when the new run is worse than the baseline by more than M with "
        "confidence (one-sided paired test at alpha on the difference plus M; default 0)",
    )
    group.add_argument(
        "--sequential",
        action="store_true",
        help="for scheduled checks: check k of this name against this baseline is tested at alpha / (k (k + 1)) "
        "(alpha spending: any false alarm over all checks of an unchanged system stays <= alpha)",
    )
    group.add_argument(
        "--relabelled",
        choices=("common",),
        default=None,
        help="when the qrels or the queries changed since the baseline, compare on the queries both evaluated "
        "whose judgements did not change (otherwise such a comparison is refused, exit 2)",
    )


def wanted(args) -> bool:
    """Whether the command gates against a history (``--history`` given)."""
    return args.history is not None


def check(args) -> None:
    """Refuse options that do not go with the mode (a one-line usage error, exit 2)."""
    if not wanted(args):
        given = [flag for key, flag in _ONLY_WITH_HISTORY.items() if getattr(args, key) not in (None, False)]
        if given:
            raise UsageError(f"{given[0]} needs --history PATH (rankviz diff --history PATH QRELS RUN {given[0]} ...)")
        return
    for key, (flag, why) in _NOT_WITH_HISTORY.items():
        if getattr(args, key) is not None:
            raise UsageError(f"{flag} does not go with --history: {why}")


def history_result(args, qrels, new, schema: str) -> dict:
    """Gate ``new`` against the history's record; the JSON document (see docs/diff.md); bad input raises."""
    from .._errors import InputError
    from ..history import History
    from ..measures import parse_measures

    path = args.history
    if not os.path.isfile(path):
        raise InputError(
            f"--history {path}: no such history file; start one in Python: rankviz.History(PATH).record(run, "
            "qrels, measures, name=NAME), then mark the baseline with History.accept(ref)"
        )
    against = "accepted" if args.against is None else args.against
    measures = None if args.measures is None else [m.name for m in parse_measures(args.measures)]
    history = History(path, create=False)
    try:
        decision = history.gate(
            new, qrels, measures, against=against, name=args.name, margin=args.margin, sequential=args.sequential,
            alpha=args.alpha, record=args.record, relabelled=args.relabelled,
        )  # fmt: skip
        if decision.exit_code == 2:
            raise InputError(as_flags(decision.message, HISTORY_FLAGS))
        baseline = history.get(decision.baseline)
    finally:
        history.close()
    tag = str(new["system"].iloc[0]) if "system" in new.columns and len(new) else ""
    return {
        "schema": schema,
        "mode": "history",
        "qrels": str(args.baseline if args.qrels is None else args.qrels),
        "new": {"path": str(args.baseline), "system": tag},
        "history": {"path": str(path), "against": against, "name": args.name},
        "baseline": {"record": baseline.id, "name": baseline.name, "time": baseline.time.isoformat()},
        "alpha": args.alpha,
        "margin": decision.margin,
        "sequential": decision.sequential,
        "check": decision.check,
        "recorded": decision.record,
        "regressions": decision.regressions,
        "exit_code": decision.exit_code,
        "rule": decision.rule,
        "message": decision.message,
        "gate": decision.to_dict(),
    }


def _verdict(result: dict) -> str:
    return f"REGRESSION in {', '.join(result['regressions'])}" if result["regressions"] else "no regression"


def _number(value, spec: str) -> str:
    return "n/a" if value is None or (isinstance(value, float) and not math.isfinite(value)) else format(value, spec)


def text_report(result: dict) -> str:
    """The plain-text report of a history gate: a header, one line per measure, the rule, the verdict."""
    b, n = result["baseline"], result["new"]
    lines = [
        f"rankviz diff: {n['system']} ({n['path']}) against record #{b['record']} {b['name']} ({b['time']}) of "
        f"{result['history']['path']}",
        "",
        f"{'measure':<16}{'baseline':>10}{'new':>10}{'diff':>10}{'margin':>8}{'p (1-sided)':>13}{'level':>9}"
        f"{'upper bound':>13}  verdict",
    ]
    for r in result["gate"]["measures"]:
        lines.append(
            f"{r['measure']:<16}{_number(r['baseline_mean'], '.4f'):>10}{_number(r['new_mean'], '.4f'):>10}"
            f"{_number(r['difference'], '+.4f'):>10}{r['margin']:>8g}{_number(r['p_value'], '.4g'):>13}"
            f"{_number(r['level'], '.3g'):>9}{_number(r['upper_bound'], '+.4f'):>13}  "
            + ("REGRESSION" if r["regression"] else "ok")
        )
    recorded = [f"Recorded as record #{result['recorded']}."] if result["recorded"] is not None else []
    rule = textwrap.wrap(f"Rule that decided: {result['rule']}.", 110)
    return "\n".join([*lines, "", *rule, result["message"], *recorded, "", _verdict(result)]) + "\n"


def markdown_text(result: dict) -> str:
    """The history gate as a GitHub pull-request comment: the verdict, a table, the rule that decided."""
    e = markdown_escape
    b, n = result["baseline"], result["new"]
    icon = "\u274c" if result["regressions"] else "\u2705"
    out = [
        f"### {icon} rankviz diff: {e(_verdict(result))}",
        "",
        f"**{e(n['system'])}** against record \\#{b['record']} **{e(b['name'])}** of {e(b['time'])} "
        f"(history {e(result['history']['path'])}, against {e(result['history']['against'])}).",
        "",
        "| measure | baseline | new | difference | margin | p (one-sided) | level | upper bound | |",
        "|:--|--:|--:|--:|--:|--:|--:|--:|:--|",
    ]
    for r in result["gate"]["measures"]:
        out.append(
            f"| {e(r['measure'])} | {_number(r['baseline_mean'], '.4f')} | {_number(r['new_mean'], '.4f')} | "
            f"{_number(r['difference'], '+.4f')} | {r['margin']:g} | {_number(r['p_value'], '.4g')} | "
            f"{_number(r['level'], '.3g')} | {_number(r['upper_bound'], '+.4f')} | "
            + ("\u274c regression" if r["regression"] else "\u2705")
            + " |"
        )
    out += ["", f"**Rule that decided:** {result['rule']}.", "", e(result["message"]) + "."]
    if result["recorded"] is not None:
        out += ["", f"Recorded as record \\#{result['recorded']}."]
    return "\n".join(out) + "\n"
