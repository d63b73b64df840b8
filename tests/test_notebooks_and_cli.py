"""The notebooks, the main job (rendered HTML), the report and the eval command."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from rankviz import cli
from rankviz.report import render_notebooks

from .conftest import ROOT, shared_path

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_notebooks_exist_numbered_and_without_outputs():
    names = [p.stem for p in NOTEBOOKS]
    for expected in ("01_quickstart", "02_metric_ladder", "03_per_query_debugging", "04_comparing_systems", "05_interactive",
                     "06_many_systems_and_fusion"):
        assert expected in names
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, f"{path.name} has outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_use_only_the_public_api(path):
    source = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
    assert not re.search(r"rankviz\._|from rankviz\.\w*_\w* import|rankviz\.\w+\._", source), "private rankviz API used"
    assert "../shared" not in source and "http://" not in source and "https://" not in source


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The main job: execute every notebook and render it (the same function `make notebooks` runs)."""
    out = tmp_path_factory.mktemp("build")
    # A per-cell timeout caps a hung cell; the durations are printed, not asserted (this machine is shared).
    written = render_notebooks(ROOT / "notebooks", out, timeout=120, quiet=False)
    return out, written


@pytest.mark.slow
@pytest.mark.notebooks
def test_main_job_writes_index_and_one_html_per_notebook(rendered):
    out, written = rendered
    assert [p.name for p in written] == [p.stem + ".html" for p in NOTEBOOKS] + ["index.html"]
    index = (out / "index.html").read_text()
    for path in NOTEBOOKS:
        assert f'href="{path.stem}.html"' in index


@pytest.mark.slow
@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_rendered_notebook_is_self_contained(rendered, path):
    html = (rendered[0] / f"{path.stem}.html").read_text()
    if path.stem == "05_interactive":
        # both widgets (the playground and the explorer) reached the executed notebook's outputs
        assert html.count('<script type="application/vnd.jupyter.widget-view+json">') == 2
    assert not re.search(r"<script[^>]*src=[\"']https?://", html), "external script left in the HTML"
    if path.stem != "05_interactive":
        assert "data:image/png;base64," in html, "plots should be embedded as images"


def test_eval_command_matches_trec_eval(capsys):
    base = shared_path("trec_eval")
    expected = {}
    for line in (base / "out.test.aq").read_text().splitlines():
        name, qid, value = line.split()
        expected[(name, qid)] = value
    measures = ["recip_rank", "map", "ndcg", "ndcg_cut_10", "P_5", "P_10", "recall_100", "Rprec", "success_10"]
    argv = ["eval", str(base / "qrels.test"), str(base / "results.test"), "-q"]
    for m in measures:
        argv += ["-m", m]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    checked = 0
    for line in printed:
        name, qid, value = line.split("\t")
        name = name.strip()
        if name in ("runid", "num_q"):
            assert expected[(name, qid)] == value
            continue
        assert value == expected[(name, qid)], line
        checked += 1
    assert checked == len(measures) * 4


def test_eval_command_errors(tmp_path, capsys):
    assert cli.main(["eval", str(tmp_path / "nope.txt"), str(tmp_path / "run.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    assert cli.main(["eval", str(qrels), str(bad)]) == 2
    assert "bad.run, line 1: expected 6 whitespace-separated fields" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.notebooks
def test_report_on_two_trec_covid_runs(tmp_path):
    base = shared_path("trec_covid_round1")
    topics = tmp_path / "topics.tsv"
    rows = [f"{i}\tquery {i} <script>alert({i})</script>" for i in range(1, 31)]
    topics.write_text("\n".join(rows) + "\n")
    out = tmp_path / "report.html"
    result = subprocess.run(
        [sys.executable, "-m", "rankviz", "report", "--qrels", str(base / "qrels-rnd1.txt"),
         str(base / "runs" / "smith.bm25"), str(base / "runs" / "smith.rm3"), "--topics", str(topics),
         "--n-resamples", "2000", "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "cell 1/" in result.stderr  # progress
    html = out.read_text()
    for text in ("smith.bm25", "smith.rm3", "RR@10", "nDCG@10", "AP", "R@100"):
        assert text in html
    assert html.count("data:image/png;base64,") >= 3
    assert "<script>alert(" not in html
    assert "&lt;script&gt;alert(" in html
    assert not re.search(r"<script[^>]*src=[\"']https?://", html)


@pytest.mark.slow
@pytest.mark.notebooks
def test_report_errors(tmp_path):
    base = shared_path("trec_covid_round1")

    def run(*args):
        return subprocess.run([sys.executable, "-m", "rankviz", "report", *args], capture_output=True, text=True, timeout=300)

    no_runs = run("--qrels", str(base / "qrels-rnd1.txt"))
    assert no_runs.returncode == 2 and "no run files given" in no_runs.stderr
    missing = run("--qrels", str(tmp_path / "missing.txt"), str(base / "runs" / "T5R1"))
    assert missing.returncode == 2 and "missing.txt: no such file" in missing.stderr
    other = tmp_path / "other.run"
    other.write_text("q-1 Q0 d 1 1.0 x\n")
    mismatch = run("--qrels", str(base / "qrels-rnd1.txt"), str(other))
    assert mismatch.returncode == 2 and "share no query id" in mismatch.stderr
