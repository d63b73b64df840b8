"""``rankviz diff --history``: the gate against a stored record, run as a CI job would (a subprocess per step)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rankviz

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = "bm25+rerank"


def rankviz_diff(folder: Path, *args) -> subprocess.CompletedProcess:
    """``python -m rankviz diff ARGS`` in ``folder``, with this checkout's rankviz."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "rankviz", "diff", *map(str, args)],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=300,
    )


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankviz diff: error: "), done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """A CI job's folder: qrels, a baseline run, the same run again, a regressed run, relabelled qrels, a history."""
    folder = tmp_path_factory.mktemp("ci")
    run, qrels, _ = rankviz.datasets.load_example()
    base = run[run["system"] == SYSTEM].drop(columns="system").reset_index(drop=True)
    rankviz.write_qrels(qrels, folder / "qrels.txt")
    rankviz.write_run(base, folder / "base.txt", tag="prod")
    rankviz.write_run(base, folder / "same.txt", tag="prod")
    # the planted regression: the top 10 of every other query shuffled
    rng = np.random.default_rng(5)
    worse = base.sort_values(["query_id", "score"], ascending=[True, False]).reset_index(drop=True)
    for i, (_, rows) in enumerate(sorted(worse.groupby("query_id").indices.items())):
        if i % 2 == 0:
            top = rows[:10]
            worse.loc[top, "score"] = rng.permutation(worse.loc[top, "score"].to_numpy())
    rankviz.write_run(worse, folder / "worse.txt", tag="prod")
    # relabelled qrels: the judgements of 20 queries regraded
    changed = qrels.copy()
    queries = sorted(changed["query_id"].unique())[:20]
    regrade = changed["query_id"].isin(queries)
    changed.loc[regrade, "relevance"] = (changed.loc[regrade, "relevance"] == 0).astype(changed["relevance"].dtype)
    rankviz.write_qrels(changed, folder / "qrels-v2.txt")
    with rankviz.History(folder / "history.sqlite") as history:
        first = history.record(rankviz.read_run(folder / "base.txt"), qrels, ["nDCG@10", "RR@10"], name="nightly")
        history.accept(first.id)
    return folder


def test_a_ci_job_passes_unchanged_runs_catches_a_regression_and_records(job):
    h = job / "history.sqlite"
    # night 1 and 2: the same system, recorded, sequential checks numbered 1 and 2
    for night in (1, 2):
        done = rankviz_diff(job, "--history", h, "--record", "--name", "nightly", "--sequential", "--format", "json",
                            "qrels.txt", "same.txt")  # fmt: skip
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        assert doc["schema"] == "rankviz.diff/3" and doc["mode"] == "history"
        assert doc["exit_code"] == 0 and doc["regressions"] == [] and doc["check"] == night
        assert doc["baseline"]["record"] == 1 and doc["recorded"] == night + 1
        assert doc["gate"]["exit_code"] == 0 and doc["gate"]["record"] == night + 1
        assert f"check {night}" in doc["rule"] and "alpha / (k (k + 1))" in doc["rule"]
        levels = [m["level"] for m in doc["gate"]["measures"]]
        assert levels == [pytest.approx(0.05 / (night * (night + 1)) / 2)] * 2  # spent, then Bonferroni over 2
    # night 3: the planted regression fails the job, and is recorded too
    done = rankviz_diff(job, "--history", h, "--record", "qrels.txt", "worse.txt")
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stdout.rstrip().splitlines()[-1]
    assert last.startswith("REGRESSION in ") and "nDCG@10" in last
    assert "Rule that decided: fail on a drop with confidence" in done.stdout and "Recorded as record #4" in done.stdout
    with rankviz.History(h, create=False) as history:
        records = history.list()
        assert records["id"].tolist() == [1, 2, 3, 4] and set(records["name"]) == {"nightly"}
        assert records.loc[3, "nDCG@10"] < records.loc[0, "nDCG@10"] - 0.02
        assert records.loc[1, "nDCG@10"] == records.loc[0, "nDCG@10"]
    # against the last record (the regressed one) the same shuffled run does not regress
    assert rankviz_diff(job, "--history", h, "--against", "last", "qrels.txt", "worse.txt").returncode == 0
    # markdown names the rule that decided
    done = rankviz_diff(job, "--history", h, "--format", "markdown", "qrels.txt", "worse.txt")
    assert done.returncode == 1 and "**Rule that decided:** fail on a drop" in done.stdout
    assert done.stdout.startswith("### \u274c rankviz diff: REGRESSION in nDCG")


def test_margin_is_a_non_inferiority_rule(job):
    h = job / "history.sqlite"
    done = rankviz_diff(job, "--history", h, "--against", "1", "--margin", "0.5", "-m", "nDCG@10",
                        "--format", "json", "qrels.txt", "worse.txt")  # fmt: skip
    doc = json.loads(done.stdout)
    row = doc["gate"]["measures"][0]
    assert done.returncode == 0 and row["difference"] < -0.02 and row["margin"] == 0.5 and doc["margin"] == 0.5
    assert "non-inferiority margin" in doc["rule"] and doc["recorded"] is None
    # the margin smaller than the drop: the drop is worse than the margin with confidence
    done = rankviz_diff(job, "--history", h, "--against", "1", "--margin", "0.001", "qrels.txt", "worse.txt",
                        "-m", "nDCG@10")  # fmt: skip
    assert done.returncode == 1 and "more than 0.001 (non-inferiority margin)" in done.stdout


def test_bad_input_exits_2_with_one_line(job):
    h = job / "history.sqlite"
    before = h.read_bytes()
    line = one_line_error(rankviz_diff(job, "--history", job / "no-such.sqlite", "--record", "qrels.txt", "same.txt"))
    assert "no-such.sqlite" in line and "no such history file" in line
    assert not (job / "no-such.sqlite").exists()
    line = one_line_error(rankviz_diff(job, "--history", h, "--against", "release-7", "qrels.txt", "same.txt"))
    assert "no record matches 'release-7'" in line
    line = one_line_error(rankviz_diff(job, "--history", h, "--against", "99", "qrels.txt", "same.txt"))
    assert "no record matches '99'" in line
    line = one_line_error(rankviz_diff(job, "--history", h, "--record", "qrels-v2.txt", "same.txt"))
    assert "not comparable" in line and "--relabelled common" in line and "relabelled=" not in line
    assert h.read_bytes() == before  # nothing recorded by a refused gate
    for args in (
        ["--record", "qrels.txt", "same.txt"],  # a history option without --history
        ["--history", h, "qrels.txt", "base.txt", "same.txt"],  # two runs and a history
        ["--history", h, "--max-drop", "0.01", "qrels.txt", "same.txt"],
        ["--history", h, "--margin", "-1", "qrels.txt", "same.txt"],
        ["--history", h, "--relabelled", "all", "qrels.txt", "same.txt"],
        ["--history", h, "--name", "last", "qrels.txt", "same.txt"],
        ["--history", h, "qrels.txt", "no/such/run.txt"],
    ):
        one_line_error(rankviz_diff(job, *args))


def test_relabelled_common_compares_what_both_share_and_says_so(job):
    done = rankviz_diff(job, "--history", job / "history.sqlite", "--against", "1", "--relabelled", "common",
                        "--format", "json", "qrels-v2.txt", "same.txt")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "rankviz diff: warning:" in done.stderr and "compared on the 580 queries" in done.stderr
    assert "on 580 queries" in json.loads(done.stdout)["message"]


def test_two_run_diff_is_unchanged_but_for_the_schema(job):
    done = rankviz_diff(job, "--format", "json", "-m", "nDCG@10", "--n-resamples", "2000", "qrels.txt", "base.txt",
                        "worse.txt")  # fmt: skip
    doc = json.loads(done.stdout)
    assert done.returncode == 1 and doc["schema"] == "rankviz.diff/3" and doc["mode"] == "runs"
    assert doc["regressions"] == ["nDCG@10"] and "Holm" in doc["rule"]
