"""Property tests against the C trec_eval 10 itself, for every measure of ``-m all_trec``.

trec_eval is built from ../shared/tools/trec_eval by the ``trec_eval_binary`` fixture
(or taken from ``$TREC_EVAL``). Generated runs (ties, short lists, unjudged and
negatively judged items, queries missing from either side) are evaluated by both
with the same flags (``-c``, and ``-l``, ``-M``, ``-J`` drawn); every per-query line
and "all" line must agree to trec_eval's 4 printed decimals. This covers what
pytrec_eval (trec_eval 9) lacks: rbp, rbp_resid, unj_*, and ``-J``.

Known differences, left out of the comparison: trec_eval prints ``nan`` where
``-J`` leaves a query with no item (11pt_avg, iprec_at_recall divide 0 by 0), where
rankviz gives 0; and with ``-c`` trec_eval's "all" ``num_rel`` counts grades > 0
whatever ``-l`` is, where rankviz sums the per-query values.
"""

from __future__ import annotations

import math
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from rankviz._core.options import EvalOptions
from rankviz.cli.trec_output import ALL_TREC, trec_eval_lines

from .strategies import run_and_qrels

# Random runs and qrels may share no judged document at all; that warning is not what these tests are about.
pytestmark = pytest.mark.filterwarnings("ignore::rankviz.UnmatchedIdsWarning")


def _parse(lines) -> dict:
    out = {}
    for line in lines:
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value.strip()
    return out


def _c_trec_eval(binary, qrels_path, run_path, flags) -> dict:
    cmd = [str(binary), "-q", "-c", "-m", "all_trec", *flags, str(qrels_path), str(run_path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return _parse(proc.stdout.splitlines())


def _close(expected: str, got: str) -> bool:
    if expected.startswith("'"):
        return expected == got
    return abs(float(expected) - float(got)) <= 1e-4 + 1e-9


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=run_and_qrels(), rel=st.sampled_from([1, 2]), depth=st.sampled_from([None, 4]), judged_only=st.booleans())
def test_every_all_trec_value_matches_the_c_program(trec_eval_binary, tmp_path_factory, data, rel, depth, judged_only):
    run, qrels = data
    folder = tmp_path_factory.mktemp("case")
    run_path, qrels_path = folder / "run", folder / "qrels"
    rankviz.write_run(run.assign(system="sys"), run_path)
    rankviz.write_qrels(qrels, qrels_path)
    flags = [f"-l{rel}"] + ([f"-M{depth}"] if depth else []) + (["-J"] if judged_only else [])
    expected = _c_trec_eval(trec_eval_binary, qrels_path, run_path, flags)
    options = EvalOptions.resolve("test", rel=rel, depth=depth, judged_only=judged_only)
    got = _parse(trec_eval_lines(run, qrels, ALL_TREC, run_id="sys", per_query=True, relstring=10, options=options))
    checked = 0
    for key, value in expected.items():
        name, qid = key
        if name == "runid" or value.lstrip("-") == "nan" or (name == "num_rel" and qid == "all" and rel != 1):
            continue
        assert key in got, f"rankviz prints no {key}"
        assert _close(value, got[key]), f"{key}: trec_eval {value}, rankviz {got[key]} (flags {flags})"
        checked += 1
    assert checked >= 98
    assert math.isfinite(checked)
