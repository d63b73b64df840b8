"""The gate against a history: a new run checked against a stored record, with the rule that decided.

:func:`gate` is what :meth:`History.gate <rankviz.history.History.gate>` runs and what
``rankviz diff --history`` can call: it evaluates the new run with the baseline
record's options, refuses (exit code 2) when the two are not comparable, tests each
measure with the one-sided paired test of :func:`rankviz.stats.sequential.margin_test`
and returns a :class:`GateDecision` (exit code 0 pass, 1 regression, 2 refused).
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd

from .._errors import InputError, RankvizError
from ..stats.sequential import SPENDING_RULE, margin_test, spending_alpha
from . import across
from .recording import now, prepare

__all__ = ["GateDecision", "gate", "count_checks"]


@dataclasses.dataclass(frozen=True, repr=False)
class GateDecision:
    """What a gate decided and why.

    Parameters
    ----------
    exit_code : int
        0: no measure regressed; 1: at least one did; 2: refused (bad input, an unknown
        ref, qrels or queries that changed): ``message`` says why, in one line.
    rule : str
        The rule that decided, in words (the test, the margin, the level and how it was spent).
    message : str
        One line: the verdict and the measures that regressed, or why the gate refused.
    table : DataFrame
        One row per measure: ``measure``, ``baseline_mean``, ``new_mean``, ``difference``,
        ``margin``, ``statistic``, ``p_value``, ``level`` (each measure's level: the
        check's level over the number of measures), ``upper_bound``, ``regression``.
    baseline, record : int or None
        The baseline record's id; the new record's id when it was recorded.
    check : int or None
        The check's number against this baseline and name (sequential gates).
    alpha, margin : float
        The check's significance level, and the drop that counts as a regression.
    sequential : bool
        Whether the level was spent over the sequence of checks (alpha-spending).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.history import GateDecision
    >>> table = pd.DataFrame({"measure": ["nDCG@10", "RR@10"], "regression": [True, False]})
    >>> decision = GateDecision(1, "one-sided t-test", "regressed: nDCG@10", table)
    >>> decision.passed, decision.regressions
    (False, ['nDCG@10'])
    """

    exit_code: int
    rule: str
    message: str
    table: pd.DataFrame
    baseline: int | None = None
    record: int | None = None
    check: int | None = None
    alpha: float = 0.05
    margin: float = 0.0
    sequential: bool = False

    @property
    def passed(self) -> bool:
        """Whether no measure regressed (exit code 0)."""
        return self.exit_code == 0

    @property
    def regressions(self) -> list[str]:
        """The measures that regressed, in the table's order."""
        return [] if not len(self.table) else self.table.loc[self.table["regression"], "measure"].tolist()

    def to_dict(self) -> dict:
        """A JSON-able dict (non-finite numbers as None).

        Returns
        -------
        dict
            The fields and ``regressions``, with the table as ``measures``: a list of row dicts.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz.history import GateDecision
        >>> table = pd.DataFrame({"measure": ["nDCG@10"], "regression": [False], "p_value": [float("nan")]})
        >>> GateDecision(0, "one-sided t-test", "passed", table).to_dict()["measures"]
        [{'measure': 'nDCG@10', 'regression': False, 'p_value': None}]
        """

        def clean(value):
            if isinstance(value, (float, np.floating)):
                return float(value) if math.isfinite(value) else None
            if isinstance(value, np.integer):
                return int(value)
            if isinstance(value, np.bool_):
                return bool(value)
            return value

        rows = [{k: clean(v) for k, v in row.items()} for row in self.table.to_dict("records")]
        return {
            "exit_code": self.exit_code, "rule": self.rule, "message": self.message, "baseline": self.baseline,
            "record": self.record, "check": self.check, "alpha": self.alpha, "margin": self.margin,
            "sequential": self.sequential, "regressions": self.regressions, "measures": rows,
        }  # fmt: skip

    def __repr__(self) -> str:
        shown = "" if not len(self.table) else "\n" + self.table.round(6).to_string(index=False)
        return f"GateDecision(exit {self.exit_code}): {self.message}\nrule: {self.rule}{shown}"


def count_checks(history, baseline: int, name: str) -> int:
    """How many sequential checks were made of ``name`` against the record ``baseline``."""
    rows = (
        history._db()
        .execute("SELECT note FROM events WHERE kind = 'check' AND record_id = ?", (int(baseline),))
        .fetchall()
    )
    return sum(1 for (note,) in rows if json.loads(note or "{}").get("name") == name)


def _reserve_check(history, baseline: int, name: str) -> int:
    """Number this check (count + 1) and append its event, in one transaction (concurrent gates get distinct k)."""
    db = history._db()
    db.execute("BEGIN IMMEDIATE")
    try:
        k = count_checks(history, baseline, name) + 1
        db.execute(
            "INSERT INTO events (record_id, kind, time, note) VALUES (?, 'check', ?, ?)",
            (int(baseline), now(), json.dumps({"name": name, "check": k})),
        )
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return k


def _rule(margin: float, alpha: float, sequential: bool, check: int | None, level: float, n_measures: int) -> str:
    test = "one-sided paired t-test of mean(new - baseline)"
    what = f"worse than the baseline by more than {margin:g} (non-inferiority margin)" if margin else "a drop"
    spent = f"; sequential: check {check}, {SPENDING_RULE}" if sequential else ""
    split = f", Bonferroni over {n_measures} measures: {level / n_measures:.3g} each" if n_measures > 1 else ""
    return f"fail on {what} with confidence: {test} at level {level:.3g}{spent}{split}"


def gate(
    history, run, qrels=None, measures=None, *, against="accepted", name=None, margin=None, sequential=False,
    alpha=0.05, record=False, relabelled=None, options=None,
) -> GateDecision:  # fmt: skip
    """Check a new run against a stored record; see :meth:`rankviz.history.History.gate`."""
    margin_value = 0.0 if margin is None else margin
    try:
        if (
            isinstance(margin_value, bool)
            or not isinstance(margin_value, (int, float))
            or not 0 <= margin_value < math.inf
        ):
            raise InputError(f"History.gate: margin must be a finite number >= 0. Got {margin!r} instead.")
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
            raise InputError(f"History.gate: alpha must be strictly between 0 and 1. Got {alpha!r} instead.")
        if qrels is None:
            raise InputError("History.gate: give the qrels, so that the gate can check they did not change.")
        baseline = history.get(against, name=name)
        evaluation = dict(baseline.options if options is None else options)
        prepared = prepare(run, qrels, list(baseline.measures) if measures is None else measures,
                           name=name or baseline.name, queries=None, meta=None, time=None, options=evaluation,
                           caller="History.gate")  # fmt: skip
        if prepared.qrels_fp is not None and prepared.per_query_fp is not None:
            history.remember_qrels(prepared.qrels_fp, prepared.per_query_fp)
        _, new, base_table, new_table = across.paired(
            history, baseline, prepared.record, None, relabelled, "History.gate"
        )
        names = [m for m in baseline.measures if m in new.measures]
        if not names:
            raise InputError(
                f"History.gate: the new run has none of the baseline's measures {list(baseline.measures)}."
            )
        check = _reserve_check(history, baseline.id, new.name) if sequential else None
        level = spending_alpha(check, alpha) if check is not None else float(alpha)
        merged = base_table.merge(new_table, on="query_id", suffixes=("_b", "_n"))
        rows = []
        for measure in names:
            b, n = merged[f"{measure}_b"].to_numpy(np.float64), merged[f"{measure}_n"].to_numpy(np.float64)
            test = margin_test(n - b, margin=float(margin_value), alpha=level / len(names))
            rows.append({
                "measure": measure, "baseline_mean": float(b.mean()), "new_mean": float(n.mean()),
                "difference": test.difference, "margin": test.margin, "statistic": test.statistic,
                "p_value": test.p_value, "level": test.level, "upper_bound": test.upper_bound, "regression": test.worse,
            })  # fmt: skip
        table = pd.DataFrame(rows)
        stored = history.write(prepared) if record else None
    except RankvizError as error:
        return GateDecision(2, "refused before testing", " ".join(str(error).split()), pd.DataFrame(), alpha=alpha,
                            margin=float(margin_value) if isinstance(margin_value, (int, float)) else 0.0,
                            sequential=bool(sequential))  # fmt: skip
    regressions = table.loc[table["regression"], "measure"].tolist()
    verdict = f"regression in {', '.join(regressions)}" if regressions else "no regression"
    message = f"{verdict} against record #{baseline.id} ({baseline.name}) on {len(merged)} queries"
    return GateDecision(
        exit_code=1 if regressions else 0,
        rule=_rule(float(margin_value), float(alpha), bool(sequential), check, level, len(names)),
        message=message,
        table=table,
        baseline=baseline.id,
        record=stored,
        check=check,
        alpha=float(alpha),
        margin=float(margin_value),
        sequential=bool(sequential),
    )
