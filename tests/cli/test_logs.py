"""JSONL retrieval logs on the command line (issue 31): eval, diff and report read them as runs and qrels."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess

import pytest

import rankviz
from rankviz.cli import main
from rankviz.cli.logs import as_trec_files, is_log


def _write_log(run, qrels, path, opener=open, *, gold=True):
    with opener(path, "wt") as out:
        for qid, rows in run.sort_values(["query_id", "rank"]).groupby("query_id"):
            record = {"query_id": qid, "retrieved": rows["doc_id"].tolist(), "scores": rows["score"].tolist()}
            if gold:
                own = qrels[qrels["query_id"] == qid]
                record["relevant"] = dict(zip(own["doc_id"], own["relevance"].astype(int).tolist()))
            out.write(json.dumps(record) + "\n")


@pytest.fixture
def logs(trec_eval_dir, tmp_path):
    """trec_eval's test run and qrels as logs: plain, gzip, no extension; a changed run; one without gold."""
    run = rankviz.read_run(trec_eval_dir / "results.test")
    qrels = rankviz.read_qrels(trec_eval_dir / "qrels.test")
    paths = {
        "plain": tmp_path / "base.jsonl",
        "gz": tmp_path / "base.jsonl.gz",
        "bare": tmp_path / "base_log",
        "new": tmp_path / "new.ndjson",
        "nogold": tmp_path / "nogold.jsonl",
        "other_gold": tmp_path / "other_gold.jsonl",
    }
    _write_log(run, qrels, paths["plain"])
    _write_log(run, qrels, paths["gz"], gzip.open)
    shutil.copy(paths["plain"], paths["bare"])
    reversed_run = run.assign(score=-run["score"]).sort_values(["query_id", "score"], ascending=[True, False])
    reversed_run["rank"] = reversed_run.groupby("query_id").cumcount() + 1
    _write_log(reversed_run, qrels, paths["new"])
    _write_log(run, qrels, paths["nogold"], gold=False)
    _write_log(reversed_run, qrels.assign(relevance=1 - qrels["relevance"]), paths["other_gold"])
    return paths


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_logs_are_recognised_by_name_or_first_byte(logs, trec_eval_dir):
    assert is_log(logs["plain"]) and is_log(logs["gz"]) and is_log(logs["bare"]) and is_log(logs["new"])
    assert not is_log(trec_eval_dir / "results.test") and not is_log(trec_eval_dir / "qrels.test")


@pytest.mark.parametrize("which", ["plain", "gz", "bare"])
def test_eval_on_a_log_alone_is_trec_eval_on_its_run_and_gold(logs, which, trec_eval_binary, trec_eval_dir, capsys):
    flags = ["-q", "-m", "map", "-m", "P.10", "-m", "ndcg_cut"]
    files = [str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")]
    expected = subprocess.run([str(trec_eval_binary), *flags, *files], capture_output=True, text=True, check=True)
    code, out, err = _run(capsys, "eval", *flags, logs[which])
    assert code == 0 and out == expected.stdout, err
    code, out, _ = _run(capsys, "eval", *flags, trec_eval_dir / "qrels.test", logs[which])  # a qrels file given
    assert code == 0 and out == expected.stdout
    code, out, _ = _run(capsys, "eval", "-m", "map", logs["plain"], trec_eval_dir / "results.test")  # log as qrels
    assert code == 0 and out == "map                   \tall\t0.1785\n"
    code, out, _ = _run(capsys, "eval", "-m", "runid", "-m", "map", logs["plain"])
    assert out.splitlines()[0].split("\t")[2] == "base"  # the system: the file name without .jsonl


def test_diff_of_two_logs_uses_their_gold_and_equals_the_trec_files(logs, trec_eval_dir, tmp_path, capsys):
    code_logs, out, err = _run(capsys, "diff", logs["plain"], logs["new"], "--format", "json", "--n-resamples", "200")
    from_logs = json.loads(out)
    assert code_logs in (0, 1) and from_logs["measures"][0]["difference"] < 0, err  # every list reversed: a drop
    reversed_file = tmp_path / "reversed.txt"
    rankviz.write_run(rankviz.read_jsonl(logs["new"]).run.drop(columns="system"), reversed_file, tag="new")
    argv = ["diff", trec_eval_dir / "qrels.test", trec_eval_dir / "results.test", reversed_file]
    code, out, _ = _run(capsys, *argv, "--format", "json", "--n-resamples", "200")
    from_files = json.loads(out)
    assert code == code_logs
    keys = ("measure", "baseline_mean", "new_mean", "p_value", "regression")
    assert [{k: m[k] for k in keys} for m in from_logs["measures"]] == [
        {k: m[k] for k in keys} for m in from_files["measures"]
    ]
    code, out, _ = _run(capsys, "diff", trec_eval_dir / "qrels.test", logs["gz"], logs["new"], "--n-resamples", "200")
    assert code == code_logs and "AP" in out


def test_logs_that_cannot_be_read_as_such_name_the_fix(logs, tmp_path, trec_eval_dir, capsys):
    other = tmp_path / "other.jsonl"
    other.write_text('{"question": "q1", "ids": ["d1"], "gold": ["d1"]}\n')
    code, out, err = _run(capsys, "eval", other)
    assert code == 2 and out == "" and "rankviz.read_jsonl(" in err and "write_run" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = _run(capsys, "eval", logs["nogold"])
    assert code == 2 and "no gold ids" in err and "pass a qrels file" in err
    code, _, err = _run(capsys, "diff", logs["nogold"], logs["new"])
    assert code == 2 and "no gold ids" in err
    code, _, err = _run(capsys, "diff", logs["plain"], logs["other_gold"])
    assert code == 2 and "gold ids of" in err and "differ" in err
    code, _, err = _run(capsys, "diff", trec_eval_dir / "results.test", logs["plain"])
    assert code == 2 and "QRELS is required" in err


def test_report_reads_logs_as_trec_files(logs, tmp_path, trec_eval_dir, monkeypatch, capsys):
    seen = {}

    def fake_build_report(qrels, runs, **kwargs):  # the notebook is tested elsewhere; here what it is given
        seen["qrels"], seen["runs"] = qrels, runs
        seen["per_query"] = rankviz.evaluate(
            {r: rankviz.read_run(r) for r in runs}, ["AP"], rankviz.read_qrels(qrels), per_query=True
        )

    monkeypatch.setattr("rankviz.report.build_report", fake_build_report)
    code, _, err = _run(capsys, "report", logs["plain"], logs["new"], "-o", tmp_path / "r.html")
    assert code == 0, err
    assert [r.rsplit("/", 1)[-1] for r in seen["runs"]] == ["base", "new"]  # named by the log's system
    expected = rankviz.evaluate(
        rankviz.read_run(trec_eval_dir / "results.test"), ["AP"], trec_eval_dir / "qrels.test", per_query=True
    )
    got = seen["per_query"][seen["per_query"]["system"].astype(str).str.endswith("base")]
    assert sorted(got["AP"].round(12)) == sorted(expected["AP"].round(12))
    code, _, err = _run(capsys, "report", trec_eval_dir / "results.test", "-o", tmp_path / "r.html")
    assert code == 2 and "--qrels is required" in err


def test_as_trec_files_passes_trec_files_through(tmp_path, trec_eval_dir):
    qrels, runs = as_trec_files(str(trec_eval_dir / "qrels.test"), [str(trec_eval_dir / "results.test")], tmp_path)
    assert qrels == str(trec_eval_dir / "qrels.test") and runs == [str(trec_eval_dir / "results.test")]
    assert list(tmp_path.iterdir()) == []


def test_the_trec_readers_name_read_jsonl_for_a_log(logs):
    for reader in (rankviz.read_run, rankviz.read_qrels):
        for which in ("plain", "gz", "bare"):
            with pytest.raises(rankviz.TrecFormatError, match=r"looks like a JSON-lines log.*rankviz\.read_jsonl"):
                reader(logs[which])


def test_as_trec_files_names_logs_by_their_system_without_whitespace(logs, tmp_path):
    spaced = tmp_path / "my log.jsonl"
    shutil.copy(logs["plain"], spaced)
    folder = tmp_path / "out"
    folder.mkdir()
    qrels, runs = as_trec_files(None, [str(spaced), str(logs["plain"]), str(logs["gz"])], folder)
    names = [r.rsplit("/", 1)[-1] for r in runs]
    assert names[0] == "my_log" and names[1] == "base" and names[2] != "base" and len(set(names)) == 3
    assert [str(rankviz.read_run(r)["system"].iloc[0]) for r in runs] == names
    assert len(rankviz.read_qrels(qrels)) == len(rankviz.read_jsonl(spaced).qrels) == 3681
