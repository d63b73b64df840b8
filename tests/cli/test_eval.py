"""``rankviz eval``: trec_eval's command lines and lines, several runs as one table, flags in every message."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess

import pytest

import rankviz
from rankviz import cli

# trec_eval command lines (its flags, its -m spellings) whose output rankviz must print byte for byte
TREC_EVAL_COMMAND_LINES = [
    ["-m", "recip_rank"],
    ["-c", "-m", "recip_rank"],
    ["-m", "map", "-m", "P.5,10"],
    ["-q", "-m", "recip_rank"],
    ["-c", "-q", "-n", "-m", "P.5"],
    ["-n", "-m", "map"],
    ["-m", "num_q", "-m", "map"],
    ["-m", "runid", "-m", "recip_rank"],
    ["-c", "-l", "2", "-m", "recip_rank", "-m", "P.10"],
    ["-M", "5", "-m", "map", "-m", "ndcg_cut.10"],
    ["-J", "-c", "-m", "recip_rank"],
]


def _rankviz(argv, capsys) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("flags", TREC_EVAL_COMMAND_LINES, ids=[" ".join(f) for f in TREC_EVAL_COMMAND_LINES])
def test_a_trec_eval_command_line_prints_exactly_what_trec_eval_prints(flags, trec_eval_binary, trec_eval_dir, capsys):
    files = [str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")]
    expected = subprocess.run([str(trec_eval_binary), *flags, *files], capture_output=True, text=True, check=True)
    code, out, _ = _rankviz(["eval", *flags, *files], capsys)
    assert code == 0 and out == expected.stdout


def test_runid_and_num_q_only_when_asked(trec_eval_dir, capsys):
    files = [str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")]
    _, out, _ = _rankviz(["eval", "-m", "recip_rank", *files], capsys)
    assert [line.split()[0] for line in out.splitlines()] == ["recip_rank"]
    _, out, _ = _rankviz(["eval", "-m", "official", *files], capsys)
    assert [line.split()[0] for line in out.splitlines()][:3] == ["runid", "num_q", "num_ret"]
    _, out, _ = _rankviz(["eval", *files], capsys)  # trec_eval's default table: its header
    assert [line.split()[0] for line in out.splitlines()][:2] == ["runid", "num_q"]


def test_the_no_judged_document_warning_prints_once_with_q_and_all_trec(tmp_path, capsys):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 x1 1\nq2 0 x2 1\n")
    run.write_text("".join(f"{q} Q0 d{i} {i} {10 - i} t\n" for q in ("q1", "q2") for i in range(1, 7)))
    code, _, err = _rankviz(["eval", "-q", "-m", "all_trec", str(qrels), str(run)], capsys)
    assert code == 0
    assert err.count("No retrieved document of any evaluated query is judged") == 1, err


def test_errors_name_the_cli_flags_never_the_api_keywords(tmp_path, capsys):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    code, _, err = _rankviz(["eval", "-m", "recip_rank", str(qrels), str(run)], capsys)
    assert code == 2 and "--duplicates first" in err and "duplicates='first'" not in err, err
    code, out, err = _rankviz(["eval", "--duplicates", "first", "-m", "recip_rank", str(qrels), str(run)], capsys)
    assert code == 0 and out == "recip_rank            \tall\t0.5000\n"
    code, _, err = _rankviz(["eval", "--duplicates", "first", "--missing", "error", str(qrels), str(run)], capsys)
    assert code == 2 and "--missing zero" in err and "--missing drop" in err and "missing=" not in err, err
    code, out, _ = _rankviz(
        ["eval", "--duplicates", "first", "--missing", "drop", "-m", "RR", str(qrels), str(run)], capsys
    )
    assert code == 0 and out == "recip_rank            \tall\t1.0000\n"


def test_c_and_missing_drop_contradict(trec_eval_dir, capsys):
    files = [str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")]
    code, _, err = _rankviz(["eval", "-c", "--missing", "drop", *files], capsys)
    assert code == 2 and "-c means --missing zero" in err


def test_several_runs_are_one_table_in_every_format(covid_dir, tmp_path, capsys):
    qrels = str(covid_dir / "qrels-rnd1.txt")
    runs = [str(covid_dir / "runs" / name) for name in ("smith.bm25", "BERT", "T5R1")]
    singles = {}
    for path in runs:
        _, out, _ = _rankviz(["eval", "-m", "map", "-m", "ndcg_cut.10", qrels, path], capsys)
        singles[path] = [line.split("\t")[2] for line in out.splitlines()]
    code, out, _ = _rankviz(["eval", qrels, *runs, "-m", "map", "ndcg_cut.10"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["run", "query_id", "num_q", "map", "ndcg_cut_10"]
    assert [line.split()[0] for line in lines[1:]] == ["smith.bm25", "BERT", "T5R1"]
    assert [line.split()[3:] for line in lines[1:]] == [singles[p] for p in runs]  # the trec_eval lines' digits
    _, out, _ = _rankviz(["eval", "--format", "csv", "-m", "map", qrels, *runs], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["run"] for r in rows] == ["smith.bm25", "BERT", "T5R1"]
    assert [f"{float(r['map']):.4f}" for r in rows] == [singles[p][0] for p in runs]
    _, out, _ = _rankviz(["eval", "--format", "json", "-q", "-m", "map", qrels, runs[0]], capsys)
    records = json.loads(out)
    assert len(records) == 31 and records[-1]["query_id"] == "all" and records[-1]["num_q"] == 30
    assert f"{records[-1]['map']:.4f}" == singles[runs[0]][0]
    # one run keeps trec_eval's lines; --format table turns it into the table
    _, out, _ = _rankviz(["eval", "-m", "map", qrels, runs[0]], capsys)
    assert out.startswith("map ")
    _, out, _ = _rankviz(["eval", "--format", "table", "-m", "map", qrels, runs[0]], capsys)
    assert out.split()[:4] == ["run", "query_id", "num_q", "map"]


def test_runs_after_a_leading_m_are_given_back(covid_dir, capsys):
    qrels = str(covid_dir / "qrels-rnd1.txt")
    runs = [str(covid_dir / "runs" / name) for name in ("smith.bm25", "BERT")]
    _, together, _ = _rankviz(["eval", qrels, *runs, "-m", "map", "P.5"], capsys)
    _, leading, _ = _rankviz(["eval", "-m", "map", "P.5", qrels, *runs], capsys)
    _, between, _ = _rankviz(["eval", qrels, runs[0], "-m", "map", "P.5", runs[1]], capsys)
    assert together == leading == between and len(together.splitlines()) == 3


def test_version_and_the_ties_help(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"rankviz {rankviz.__version__}"
    assert cli.main(["eval", "-h"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert re.search(r"--ties \{trec_eval,expected,optimistic,pessimistic\} how documents with equal scores", text)
    for flag in ("-c ", "-n ", "-q ", "-J", "--duplicates", "--format"):
        assert flag in text


def test_a_qrels_file_passed_as_a_run_is_named_so(trec_eval_dir, capsys):
    qrels = str(trec_eval_dir / "qrels.test")
    code, _, err = _rankviz(["eval", qrels, qrels], capsys)
    assert code == 2 and "It looks like a qrels file, not a run" in err


def test_two_files_with_one_tag_are_told_apart_by_file(covid_dir, tmp_path, capsys):
    qrels = str(covid_dir / "qrels-rnd1.txt")
    full = covid_dir / "runs" / "BERT"
    part = tmp_path / "BERT.first20"  # the same tag, fewer queries: 20 rows with -q and --missing drop
    part.write_text("".join(line for line in full.read_text().splitlines(keepends=True) if int(line.split()[0]) <= 20))
    _, out, _ = _rankviz(
        ["eval", "-q", "--missing", "drop", "--format", "csv", "-m", "map", qrels, str(full), str(part)], capsys
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["file"] for r in rows].count(str(full)) == 31 and [r["file"] for r in rows].count(str(part)) == 21
    assert {r["run"] for r in rows} == {"BERT"}
