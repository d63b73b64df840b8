"""The decision rule of ``rankviz diff``: Holm-adjusted intervals that match its Holm-adjusted verdict.

The gate tests every measure at once (a randomization test per measure, Holm's
step-down correction across them), so the interval shown beside a verdict must be
adjusted the same way, or a drop whose unadjusted 95% interval excludes 0 is shown
as "ok". :func:`holm_levels` gives each measure the confidence level of its Holm
step, and :func:`t_interval` the paired t-interval at that level: a measure Holm
rejects at step ``j`` (of ``m``, by ascending p) gets ``1 - alpha / (m - j)``; every
measure from the first one Holm does not reject on gets ``1 - alpha / k``, ``k`` the
number not rejected (the Bonferroni interval over them, in the spirit of Strassburger
and Bretz 2008). Those intervals exclude 0 exactly when a t-test would be rejected
by Holm; the gate's test is the randomization test, so on the rare measure where
the two tests fall on either side of ``alpha`` the row says so, and the test decides.

``--max-drop X`` applies to that interval's bound: a significant drop is a
regression only when the whole Holm-adjusted interval lies below ``-X`` (the drop is
larger than X at that confidence). Smaller drops, and drops the data cannot tell
from X, pass. :data:`SIZE_NOTE` is the sentence the output prints about the gate's
size, measured by ``benchmarks/gate_size.py``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["holm_levels", "t_interval", "t_strength", "decide", "SIZE_NOTE", "RULE_NOTE"]

#: how the verdict is reached, printed under the table (text, markdown) and kept in the JSON
RULE_NOTE = (
    "The verdict is decided by the randomization test's Holm-adjusted p (p (Holm) < alpha, and with --max-drop X "
    "the Holm-adjusted interval wholly below -X); the Holm CI column is the paired t-interval at the level of each "
    "measure's Holm step, so it excludes 0 when the verdict is a significant drop; the unadjusted 95% CI is in the "
    "JSON (ci_low, ci_high)."
)

#: the gate's size on unchanged systems, from benchmarks/gate_size.py (see benchmarks/RESULTS.md)
SIZE_NOTE = (
    "Size (benchmarks/gate_size.py, simulated unchanged systems, 4 measures): this gate false-alarms in 1.4% of "
    'changes at n = 50 queries and 3.2% at n = 200; a rule on the mean alone ("fail when a mean drops by more '
    "than 0.01\") would false-alarm in 68% and 53%, so --max-drop applies to the Holm interval's bound, not the "
    "mean (0.3% and 0.9% at --max-drop 0.01)."
)


def holm_levels(p_values, p_holm, alpha: float, ties=None) -> list[float]:
    """The confidence level of each measure's Holm-adjusted interval (see the module docstring).

    ``ties`` (optional, one number per measure) orders measures with equal p-values, smallest
    first: ``rankviz diff`` passes ``-|t|`` of each paired difference, so that among p-values
    tied at the randomization test's floor the clearest difference takes Holm's first step.

    Examples
    --------
    >>> [round(x, 4) for x in holm_levels([0.001, 0.2, 0.01], [0.003, 0.2, 0.02], 0.05)]
    [0.9833, 0.95, 0.975]
    >>> [round(x, 4) for x in holm_levels([0.03, 0.04], [0.06, 0.06], 0.05)]
    [0.975, 0.975]
    """
    p = np.asarray(p_values, dtype=float)
    adjusted = np.asarray(p_holm, dtype=float)
    m = len(p)
    second = np.zeros(m) if ties is None else np.asarray(ties, dtype=float)
    order = np.lexsort((second, np.where(np.isnan(p), np.inf, p)))
    levels = [1 - alpha / max(m, 1)] * m
    not_rejected = None
    for step, i in enumerate(order):
        if not_rejected is None and not adjusted[i] < alpha:
            not_rejected = m - step
        levels[i] = 1 - alpha / (not_rejected if not_rejected is not None else m - step)
    return levels


def t_interval(differences, level: float) -> tuple[float, float]:
    """The paired t-interval of the mean of ``differences`` at ``level`` ((nan, nan) below 2 values).

    >>> t_interval([0.5, 0.5, 0.5], 0.95)
    (0.5, 0.5)
    >>> low, high = t_interval([0.0, 0.2, 0.1, 0.3], 0.95); round(low, 4), round(high, 4)
    (-0.0554, 0.3554)
    """
    from scipy.special import stdtrit

    d = np.asarray(differences, dtype=float)
    n = len(d)
    if n < 2:
        return math.nan, math.nan
    mean = float(d.mean())
    half = float(stdtrit(n - 1, 0.5 + level / 2)) * float(d.std(ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def t_strength(differences) -> float:
    """``-|t|`` of the paired differences (0 when they are all equal or fewer than 2): Holm's tie-break.

    >>> round(t_strength([0.1, 0.3, 0.2]), 6), t_strength([0.5, 0.5])
    (-3.464102, 0.0)
    """
    d = np.asarray(differences, dtype=float)
    if len(d) < 2 or not d.std(ddof=1) > 0:
        return 0.0
    return -abs(float(d.mean()) / (float(d.std(ddof=1)) / math.sqrt(len(d))))


def decide(difference: float, p_holm: float, interval: tuple[float, float], alpha: float, max_drop) -> tuple:
    """(regression, reasons, note) of one measure: the gate's rule, and a note when test and interval disagree.

    >>> decide(-0.11, 0.08, (-0.25, 0.03), 0.05, None)
    (False, [], '')
    >>> decide(-0.11, 0.01, (-0.2, -0.02), 0.05, 0.05)[:2]
    (False, [])
    >>> decide(-0.11, 0.01, (-0.2, -0.06), 0.05, 0.05)[1]
    ['significant drop (Holm p = 0.01 < 0.05)', 'Holm CI wholly below -0.05 (drop > --max-drop 0.05)']
    """
    low, high = interval
    significant = difference < 0 and p_holm < alpha
    reasons = [f"significant drop (Holm p = {p_holm:.4g} < {alpha:g})"] if significant else []
    regression = significant
    if significant and max_drop is not None:
        regression = high < -max_drop
        reasons = (
            reasons + [f"Holm CI wholly below -{max_drop:g} (drop > --max-drop {max_drop:g})"] if regression else []
        )
    note = ""
    excludes_zero = high < 0 or low > 0
    if excludes_zero != (p_holm < alpha) and not (math.isnan(low) or math.isnan(p_holm)):
        note = "the randomization test and the t-interval fall on either side of alpha here; the test decides"
    return regression, reasons, note
