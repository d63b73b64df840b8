"""The notebooks, the main job (rendered HTML), the report and the eval command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

import rankviz
from rankviz import cli
from rankviz.report import render_notebooks
from tests.conftest import ROOT, shared_path

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_notebooks_exist_numbered_and_without_outputs():
    names = [p.stem for p in NOTEBOOKS]
    for expected in (
        "01_quickstart",
        "02_metric_ladder",
        "03_per_query_debugging",
        "04_comparing_systems",
        "05_interactive",
        "06_many_systems_and_fusion",
        "07_at_scale",
        "09_labels",
        "10_labels_from_a_model",
        "11_tracking_over_time",
        "12_suites_and_leaderboards",
        "13_rag_pipeline",
    ):
        assert expected in names
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, f"{path.name} has outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_title_carries_its_two_digit_number(path):
    """The index lists the titles: '07 · At scale', as the file name and the other six, not '7 · At scale'."""
    first = "".join(json.loads(path.read_text())["cells"][0]["source"]).splitlines()[0]
    assert first.startswith(f"# {path.stem[:2]} · "), first


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_use_only_the_public_api(path):
    source = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
    assert not re.search(r"rankviz\._|from rankviz\.\w*_\w* import|rankviz\.\w+\._", source), "private rankviz API used"
    assert "../shared" not in source and "http://" not in source and "https://" not in source


@pytest.fixture(scope="module")
def rendered(rendered_notebooks):
    """The main job: every notebook executed and rendered (the same function `make notebooks` runs, shared fixture)."""
    return rendered_notebooks


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
        # both widgets reached the page as static snapshots; no widget view waits for a manager from a CDN
        assert "rankviz-static rankviz-playground" in html and "rankviz-static rankviz-explorer" in html
        assert "application/vnd.jupyter.widget-view+json" not in html and "widget-state+json" not in html
    assert not re.search(r"<script[^>]*src=[\"']https?://", html), "external script left in the HTML"
    assert not re.search(r"import\(\s*[\"']https?://", html), "a script imports from the network"
    # warnings are notes, not stderr boxes with temp paths
    assert 'data-mime-type="application/vnd.jupyter.stderr"' not in html  # (the CSS names it; no output has it)
    assert "ipykernel_" not in html and "/tmp/" not in html
    if path.stem != "05_interactive":
        assert "data:image/png;base64," in html, "plots should be embedded as images"


@pytest.mark.slow
@pytest.mark.notebooks
def test_builds_are_byte_identical(tmp_path, rendered_notebooks):
    """The same notebooks and the same report inputs, built twice: the same bytes (timestamps, ids, figures)."""
    from rankviz.report import build_report

    source = tmp_path / "src"
    source.mkdir()
    for name in ("01_quickstart", "05_interactive"):  # plots and a warning note; both widgets
        (source / f"{name}.ipynb").write_bytes((ROOT / "notebooks" / f"{name}.ipynb").read_bytes())
    second = render_notebooks(source, tmp_path / "b", timeout=300, quiet=True)  # the first: the run's shared build
    for b in second[:-1]:  # the index lists only these two here
        a = rendered_notebooks[0] / b.name
        assert a.read_bytes() == b.read_bytes(), f"{a.name} differs between two builds"
    base = shared_path("trec_covid_round1")
    runs = [base / "runs" / "smith.bm25", base / "runs" / "smith.rm3"]
    reports = [build_report(base / "qrels-rnd1.txt", runs, output=tmp_path / f"report{i}.html", n_resamples=200, quiet=True)
               for i in range(2)]  # fmt: skip
    assert reports[0].read_bytes() == reports[1].read_bytes(), "the report differs between two builds"
    assert "rankviz-note" in (tmp_path / "b" / "01_quickstart.html").read_text()  # the tie warning, as a note


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
        [
            sys.executable,
            "-m",
            "rankviz",
            "report",
            "--qrels",
            str(base / "qrels-rnd1.txt"),
            str(base / "runs" / "smith.bm25"),
            str(base / "runs" / "smith.rm3"),
            "--topics",
            str(topics),
            "--n-resamples",
            "2000",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
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
        return subprocess.run(
            [sys.executable, "-m", "rankviz", "report", *args], capture_output=True, text=True, timeout=300
        )

    no_runs = run("--qrels", str(base / "qrels-rnd1.txt"))
    assert no_runs.returncode == 2 and "no run files given" in no_runs.stderr
    missing = run("--qrels", str(tmp_path / "missing.txt"), str(base / "runs" / "T5R1"))
    assert missing.returncode == 2 and "missing.txt: no such file" in missing.stderr
    other = tmp_path / "other.run"
    other.write_text("q-1 Q0 d 1 1.0 x\n")
    mismatch = run("--qrels", str(base / "qrels-rnd1.txt"), str(other))
    assert mismatch.returncode == 2 and "share no query id" in mismatch.stderr


# ---- issue 12, classes 6 and 9: the command line checks everything first and fails in one line ----


@pytest.fixture
def no_kernel(monkeypatch):
    """Make any notebook execution fail the test: the checks must all come before it."""
    import rankviz.report.build

    def refuse(*args, **kwargs):
        raise AssertionError("a notebook was executed although the input was bad")

    monkeypatch.setattr(rankviz.report.build, "execute_notebook", refuse)


@pytest.fixture
def tiny(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.0 r\nq2 Q0 d3 1 1.0 r\n")
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tfirst\nq2\tsecond\n")
    return qrels, run, topics


def _one_line_error(capsys, code, expected):
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert re.search(expected, lines[0]), lines[0]


def test_report_refuses_to_overwrite_any_input(tiny, tmp_path, capsys, no_kernel):
    qrels, run, topics = tiny
    before = {p: p.read_bytes() for p in tiny}
    link = tmp_path / "hard-link.txt"
    os.link(run, link)
    for target in (run, qrels, topics, link, tmp_path / "." / "run.txt"):
        code = cli.main(
            ["report", "--qrels", str(qrels), str(run), "--topics", str(topics), "-o", str(target), "--quiet"]
        )
        _one_line_error(
            capsys, code, r"^rankviz report: error: refusing to write the report to .*: it is an input file"
        )
    assert {p: p.read_bytes() for p in tiny} == before


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        (["--n-resamples", "0"], r"argument --n-resamples: must be at least 40 for the report's 95% intervals.*got 0"),
        (["--n-resamples", "39"], r"must be at least 40 .*got 39"),
        (["--seed", "-1"], r"argument --seed: must be an integer >= 0, got -1"),
        (["--seed", "x"], r"argument --seed: expected an integer, got 'x'"),
        (["-k", "0"], r"argument -k: must be an integer >= 1, got 0"),
        (["-M", "0"], r"argument -M/--depth: must be an integer >= 1, got 0"),
        (["--measures", "nDCG@10", "XYZ"], r"Unknown measure 'XYZ'"),
        (["-o", "{run}/report.html"], r"cannot create its folder: .*run\.txt is a file, not a folder"),
        (["-o", "{tmp}"], r"is a folder; give the file to write"),
        (["--topics", "{tmp}/missing.tsv"], r"missing\.tsv: no such file"),
    ],
)
def test_report_bad_option_is_one_line_before_any_notebook(tiny, tmp_path, capsys, no_kernel, option, expected):
    qrels, run, _ = tiny
    option = [o.format(run=run, tmp=tmp_path) for o in option]
    code = cli.main(["report", "--qrels", str(qrels), str(run), "--quiet", "-o", str(tmp_path / "out.html"), *option])
    _one_line_error(capsys, code, r"^rankviz report: error: " + ".*" + expected)
    assert not (tmp_path / "out.html").exists()


def test_build_report_checks_options_before_reading_files(tiny, tmp_path, monkeypatch, no_kernel):
    import rankviz.io
    from rankviz.report import build_report

    monkeypatch.setattr(
        rankviz.io, "read_qrels", lambda *a, **k: pytest.fail("a file was read before the options were checked")
    )
    qrels, run, _ = tiny
    for bad, match in (
        ({"n_resamples": 0}, "'n_resamples' parameter of build_report"),
        ({"rng": -1}, "'rng' parameter"),
        ({"k": 0}, "'k' parameter"),
        ({"depth": 0}, "'depth' parameter"),
        ({"output": run}, "is an input file"),
    ):
        with pytest.raises(rankviz.InputError, match=match):
            build_report(qrels, [run], quiet=True, **{"output": tmp_path / "r.html", **bad})


def test_report_minimum_resamples_is_the_statistics_minimum():
    from rankviz.cli.commands import REPORT_MIN_RESAMPLES
    from rankviz.stats.options import StatsOptions

    StatsOptions.resolve("check", n_resamples=REPORT_MIN_RESAMPLES)
    with pytest.raises(rankviz.InputError, match=f"at least {REPORT_MIN_RESAMPLES}"):
        StatsOptions.resolve("check", n_resamples=REPORT_MIN_RESAMPLES - 1)


def test_report_bad_option_in_a_subprocess_exits_2_with_one_line(tiny):
    qrels, run, _ = tiny
    for option in (["--n-resamples", "0"], ["--seed", "-1"]):
        result = subprocess.run(
            [sys.executable, "-m", "rankviz", "report", "--qrels", str(qrels), str(run), *option],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "cell" not in result.stderr and "reading" not in result.stderr  # no file read, no kernel started


def test_eval_takes_several_measures_after_one_m(trec_eval_dir, capsys):
    files = [str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")]
    assert cli.main(["eval", *files, "-m", "nDCG@10", "AP", "RR"]) == 0
    together = capsys.readouterr().out
    assert cli.main(["eval", *files, "-m", "nDCG@10", "-m", "AP", "--measure", "RR"]) == 0
    assert capsys.readouterr().out == together
    # printed in trec_eval's table order whatever the order typed, as trec_eval prints them
    assert [line.split()[0] for line in together.splitlines()] == ["map", "recip_rank", "ndcg_cut_10"]
    # trec_eval's order, options first: the leading -m takes the files too, and gives them back
    assert cli.main(["eval", "-m", "nDCG@10", "AP", "RR", *files]) == 0
    assert capsys.readouterr().out == together
    assert cli.main(["eval", files[0], "-m", "nDCG@10", "AP", "RR", files[1]]) == 0
    assert capsys.readouterr().out == together
    _one_line_error(
        capsys,
        cli.main(["eval", "-m", "AP", files[0]]),
        r"^rankviz eval: error: the following arguments are required: qrels, run",
    )


def test_cli_bad_inputs_are_one_line_errors(tiny, tmp_path, capsys):
    qrels, run, _ = tiny
    latin = tmp_path / "latin.txt"
    latin.write_bytes("q1 Q0 caf\xe9 1 1.0 t\n".encode("latin-1"))
    big = tmp_path / "big.txt"
    big.write_text("q1 0 d1 9223372036854775808\n")
    cases = [
        (["eval", str(qrels), str(tmp_path)], r"is a directory"),
        (["eval", str(qrels), str(latin)], r"latin\.txt, line 1: the file is not valid UTF-8"),
        (
            ["eval", str(big), str(run)],
            r"big\.txt, line 1: the relevance \(4th\) field must be an integer within \+-2\*\*53",
        ),
        (["eval", str(qrels), str(run), "-m", "nDCG@x"], r"nDCG@x"),
        (["eval", str(qrels), str(run), "-M", "-3"], r"argument -M/--depth: must be an integer >= 1"),
        (["eval", str(qrels)], r"the following arguments are required: run"),
        (["notebooks", str(tmp_path / "none")], r"none: no such folder"),
        (["notebooks", str(tmp_path), "-o", str(run)], r"no notebooks|is a file"),
        (["notebooks", "--timeout", "0"], r"argument --timeout: must be an integer >= 1"),
    ]
    for argv, expected in cases:
        _one_line_error(capsys, cli.main(argv), expected)


def test_cli_warnings_are_one_line_each(tiny, capsys):
    qrels, run, _ = tiny
    commented = run.parent / "commented.run"
    commented.write_text("# produced by bm25\n" + run.read_text())
    assert cli.main(["eval", str(qrels), str(commented), "-m", "RR"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1
        and err[0].startswith("rankviz eval: warning: ")
        and "skipped 1 line(s) starting with '#'" in err[0]
    )


@pytest.mark.slow
@pytest.mark.notebooks
def test_notebooks_command_failing_cell_is_one_line(tmp_path, capsys):
    import nbformat

    source = tmp_path / "nbs"
    source.mkdir()
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("raise ValueError('bad\\nvalue')")]
    )
    nbformat.write(nb, source / "broken.ipynb")
    code = cli.main(["notebooks", str(source), "-o", str(tmp_path / "out"), "--quiet", "--timeout", "60"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1, err
    assert err[0] == "rankviz notebooks: error: broken: code cell 2 of 2 failed: ValueError: bad value"
