"""``rankviz diff``: the CI gate on the TREC-COVID runs, its three formats and its exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from markdown_it import MarkdownIt

import rankviz
from rankviz.cli import main
from rankviz.cli.diff import markdown_escape
from tests.conftest import shared_path

BASE = "T5R1"


@pytest.fixture(scope="module")
def covid():
    covid_dir = shared_path("trec_covid_round1")
    return covid_dir / "qrels-rnd1.txt", covid_dir / "runs" / BASE, covid_dir / "topics.covid-round1.xml"


@pytest.fixture(scope="module")
def shuffled(covid, tmp_path_factory):
    """The baseline with each query's top 10 scores shuffled among its top 10 documents.

    On 30 queries not every shuffle is a detectable drop (seed 7 leaves nDCG@10 at Holm p = 0.052); seed 1
    costs T5R1 0.037 nDCG@10 and 0.149 RR@10 (Holm p 0.025 and 0.024), which the gate must catch.
    """
    _, run_path, _ = covid
    run = rankviz.read_run(run_path)
    rng = np.random.default_rng(1)
    run = run.sort_values(["query_id", "score"], ascending=[True, False]).reset_index(drop=True)
    for _, rows in run.groupby("query_id").indices.items():
        top = rows[:10]
        run.loc[top, "score"] = rng.permutation(run.loc[top, "score"].to_numpy())
    path = tmp_path_factory.mktemp("diff") / "shuffled.txt"
    rankviz.write_run(run.drop(columns="system"), path, tag="shuffled")
    return path


def diff(capsys, *args):
    code = main(["diff", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_run_against_itself_exits_0(covid, capsys):
    qrels, run, _ = covid
    code, out, err = diff(capsys, qrels, run, run)
    assert code == 0, err
    assert out.rstrip().endswith("no regression")
    assert "+0.0000" in out and "REGRESSION" not in out


def test_top_10_shuffled_exits_1_and_names_the_measures(covid, shuffled, capsys):
    qrels, run, topics = covid
    code, out, err = diff(capsys, qrels, run, shuffled, "--topics", topics)
    assert code == 1, out + err
    verdict = out.rstrip().splitlines()[-1]
    assert verdict.startswith("REGRESSION in ")
    named = verdict.removeprefix("REGRESSION in ").split(", ")
    assert {"nDCG@10", "RR@10"} <= set(named)
    assert "R@100" not in named  # the top 100 hold the same documents: recall cannot move
    assert "Most hurt queries (nDCG@10)" in out and "coronavirus" in out  # texts from the topics


def test_max_drop_applies_to_the_holm_interval_s_bound(covid, shuffled, capsys):
    qrels, run, _ = covid
    code, out, _ = diff(capsys, qrels, run, shuffled, "-m", "RR@10", "--format", "json")
    rr = json.loads(out)["measures"][0]
    assert code == 1 and rr["regression"] and rr["holm_ci_high"] < 0
    below = -rr["holm_ci_high"]  # the drop is larger than this at the Holm interval's level
    assert -rr["difference"] > below * 1.1
    code, out, _ = diff(capsys, qrels, run, shuffled, "-m", "RR@10", "--max-drop", f"{below * 0.9:.6f}")
    assert code == 1 and "--max-drop" in out
    # the point estimate drops by more than --max-drop, but the interval cannot tell the drop from it: it passes
    code, out, _ = diff(
        capsys, qrels, run, shuffled, "-m", "RR@10", "--max-drop", f"{below * 1.1:.6f}", "--format", "json"
    )
    row = json.loads(out)["measures"][0]
    assert -row["difference"] > below * 1.1
    assert code == 0 and not row["regression"]
    code, _, _ = diff(capsys, qrels, run, shuffled, "-m", "P@5", "--alpha", "1e-9", "--max-drop", "0.01")
    assert code == 0  # not significant: --max-drop never fails more than the test


def test_the_interval_shown_matches_the_holm_verdict(covid, shuffled, capsys):
    """Each row's Holm-adjusted interval excludes 0 exactly when the Holm-adjusted test finds a drop."""
    qrels, run, _ = covid
    _, out, _ = diff(capsys, qrels, run, shuffled, "-m", "nDCG@10", "RR@10", "AP", "R@100", "P@5", "--format", "json")
    doc = json.loads(out)
    for row in doc["measures"]:
        excludes = row["holm_ci_high"] < 0 or row["holm_ci_low"] > 0
        assert excludes == (row["p_holm"] < doc["alpha"]) or row["note"], row
        assert row["holm_confidence_level"] >= row["confidence_level"]
        assert row["holm_ci_low"] <= row["ci_low"] + 1e-12 and row["holm_ci_high"] >= row["ci_high"] - 1e-12
    assert "Holm" in doc["rule"] and "decided by" in doc["rule"] and "false-alarm" in doc["size"]
    _, text, _ = diff(capsys, qrels, run, shuffled)
    assert "Holm CI (level)" in text and "The verdict is decided by" in text and "95% CI" not in text.split("\n")[2]
    _, md, _ = diff(capsys, qrels, run, shuffled, "--format", "markdown")
    assert "Holm CI (level)" in md and "decided by" in md


def test_holm_levels_and_t_interval_reproduce_compare_at_95():
    from rankviz.cli.gate import holm_levels, t_interval

    rng = np.random.default_rng(3)
    d = rng.normal(-0.05, 0.2, 40)
    table = rankviz.stats.compare(
        __import__("pandas").DataFrame(
            {"system": ["a"] * 40 + ["b"] * 40, "query_id": [*range(40), *range(40)], "m": [0.5] * 40 + list(0.5 + d)}
        ),
        baseline="a",
    ).table
    low, high = t_interval(d, 0.95)
    assert low == pytest.approx(table["ci_low"].iloc[0]) and high == pytest.approx(table["ci_high"].iloc[0])
    # one measure: Holm is no adjustment; three, all rejected: steps at alpha/3, alpha/2, alpha
    assert holm_levels([0.01], [0.01], 0.05) == [pytest.approx(0.95)]
    assert holm_levels([0.02, 0.001, 0.01], [0.02, 0.003, 0.02], 0.05) == [
        pytest.approx(0.95), pytest.approx(1 - 0.05 / 3), pytest.approx(0.975)
    ]  # fmt: skip
    # the first one not rejected and all after it: Bonferroni over the 2 not rejected
    assert holm_levels([0.3, 0.001, 0.04], [0.3, 0.003, 0.08], 0.05)[0] == pytest.approx(0.975)


@pytest.mark.parametrize(
    "args",
    [
        ["missing-qrels.txt", "{run}", "{run}"],
        ["{qrels}", "{run}", "no/such/run.txt"],
        ["{qrels}", "{run}", "{run}", "-m", "NoSuchMeasure@3"],
        ["{qrels}", "{run}", "{run}", "--alpha", "2"],
        ["{qrels}", "{run}", "{run}", "--format", "html"],
        ["{qrels}", "{run}"],
    ],
)
def test_bad_input_exits_2_with_one_line(covid, capsys, args):
    qrels, run, _ = covid
    code, out, err = diff(capsys, *[a.format(qrels=qrels, run=run) for a in args])
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("rankviz diff: error: ")
    assert "Traceback" not in err


def hostile_inputs(covid, tmp_path):
    qrels, run_path, _ = covid
    run = rankviz.read_run(run_path).drop(columns="system")
    evil = "<script>alert(1)</script>|**bold**_[x](javascript:alert(1))"
    new = run.copy()
    new.loc[new["query_id"] == "1", "score"] *= -1  # query 1 reversed: hurt
    paths = tmp_path / "base.txt", tmp_path / "new.txt", tmp_path / "topics.tsv"
    rankviz.write_run(run, paths[0], tag=evil)
    rankviz.write_run(new, paths[1], tag="new|" + evil)
    paths[2].write_text("1\tcoronavirus | <img src=x onerror=alert(1)> `code` *origin*\n2\tplain text\n")
    return qrels, paths, evil


def test_markdown_is_a_table_and_escapes_hostile_names_and_texts(covid, tmp_path, capsys):
    qrels, (base, new, topics), evil = hostile_inputs(covid, tmp_path)
    code, out, err = diff(capsys, qrels, base, new, "--topics", topics, "--format", "markdown", "-m", "nDCG@10", "AP")
    md = MarkdownIt("commonmark", {"html": True}).enable("table")  # GitHub renders HTML in comments: so do we
    tokens = md.parse(out)
    tables = [i for i, t in enumerate(tokens) if t.type == "table_open"]
    assert len(tables) == 2  # the measures, and the most hurt queries
    rows = [t for t in tokens[tables[0] :] if t.type == "tr_open"]
    body_rows = sum(1 for t in tokens[tables[0] : tables[1]] if t.type == "tr_open") - 1
    assert body_rows == 2 and rows
    html = md.render(out)
    assert "<script" not in html and "<img" not in html and "<strong>bold" not in html and "href=" not in html
    inline = " ".join(t.content for t in tokens if t.type == "inline")
    rendered_text = " ".join(
        child.content for t in tokens if t.type == "inline" for child in t.children if child.type == "text"
    )
    assert evil in rendered_text  # the name reaches the reader literally
    assert "<img src=x onerror=alert(1)>" in rendered_text and "`code` *origin*" in rendered_text
    assert inline  # parsed


def test_json_has_the_documented_schema(covid, shuffled, capsys):
    qrels, run, _ = covid
    code, out, _ = diff(capsys, qrels, run, shuffled, "--format", "json")
    doc = json.loads(out)
    assert doc["schema"] == "rankviz.diff/3" and doc["mode"] == "runs" and doc["exit_code"] == code == 1
    assert [m["measure"] for m in doc["measures"]] == ["nDCG@10", "RR@10", "AP", "R@100"]
    row = doc["measures"][0]
    assert set(row) == {
        "measure", "baseline_mean", "new_mean", "difference", "ci_low", "ci_high", "confidence_level",
        "holm_ci_low", "holm_ci_high", "holm_confidence_level",
        "p_value", "p_holm", "helped", "hurt", "unchanged", "regression", "reasons", "note",
    }  # fmt: skip
    assert row["ci_low"] <= row["difference"] <= row["ci_high"] and row["p_holm"] >= row["p_value"]
    assert row["helped"] + row["hurt"] + row["unchanged"] == doc["n_queries"] == 30
    assert doc["regressions"] == [m["measure"] for m in doc["measures"] if m["regression"]]
    per_query = rankviz.evaluate(
        {"b": rankviz.read_run(run), "n": rankviz.read_run(shuffled)}, ["nDCG@10"], qrels, per_query=True
    )
    means = per_query.groupby("system")["nDCG@10"].mean()
    assert row["difference"] == pytest.approx(means["n"] - means["b"], abs=1e-12)


def test_markdown_escape_backslashes_every_punctuation():
    assert markdown_escape("a|b\nc") == "a\\|b c"
    assert markdown_escape("x_y*z") == "x\\_y\\*z"


def test_the_console_script_exit_status(covid):
    qrels, run, _ = covid
    done = subprocess.run(
        [sys.executable, "-m", "rankviz", "diff", str(qrels), str(run), str(run)], capture_output=True
    )
    assert done.returncode == 0 and b"no regression" in done.stdout


# ----------------------------------------------------------------------------- the gate fails closed (issue 31)


def wrong_qrels(covid, tmp_path) -> dict:
    """Three qrels that make every measure 0 whatever the run: no shared query, no judged doc, no relevant doc."""
    qrels_path, _, _ = covid
    qrels = rankviz.read_qrels(qrels_path)
    cases = {
        "no query": qrels.assign(query_id="x" + qrels["query_id"].astype(str)),
        "no judged document": qrels.assign(doc_id="other-" + qrels["doc_id"].astype(str)),
        "no relevant document": qrels.assign(relevance=0),
    }
    paths = {}
    for cause, frame in cases.items():
        paths[cause] = tmp_path / cause.replace(" ", "_")
        rankviz.write_qrels(frame, paths[cause])
    return paths


@pytest.mark.parametrize("cause", ["no query", "no judged document", "no relevant document"])
def test_qrels_that_make_every_measure_0_exit_2_naming_the_cause(covid, shuffled, tmp_path, capsys, cause):
    _, run, _ = covid
    qrels = wrong_qrels(covid, tmp_path)[cause]
    for runs in ((run, run), (run, shuffled)):  # unchanged or changed: never "no regression"
        code, out, err = diff(capsys, qrels, *runs)
        assert code == 2 and out == "", out
        assert len(err.strip().splitlines()) == 1 and err.startswith("rankviz diff: error: cannot gate"), err
        words = {
            "no query": "share no query id",
            "no judged document": "retrieved is judged",
            "no relevant document": "judge no document relevant",
        }
        assert words[cause] in err and "BASELINE_RUN" in err


def test_eval_prints_trec_eval_s_lines_on_such_qrels_and_says_why(covid, tmp_path, trec_eval_binary, capsys):
    _, run, _ = covid
    paths = wrong_qrels(covid, tmp_path)
    for cause in ("no judged document", "no relevant document"):
        argv = ["-c", "-m", "map", "-m", "P.10", str(paths[cause]), str(run)]
        expected = subprocess.run([str(trec_eval_binary), *argv], capture_output=True, text=True, check=True).stdout
        code = main(["eval", *argv])
        out, err = capsys.readouterr()
        assert code == 0 and out == expected and "0.0000" in out
        assert ("is judged in the qrels" if cause == "no judged document" else "judge no document relevant") in err


def test_qrels_for_only_one_of_the_runs_fail_closed_naming_it(covid, tmp_path, capsys):
    qrels, run_path, _ = covid
    run = rankviz.read_run(run_path).drop(columns="system")
    other = tmp_path / "other.txt"
    rankviz.write_run(run.assign(doc_id="z" + run["doc_id"].astype(str)), other, tag="other")
    code, out, err = diff(capsys, qrels, run_path, other)
    assert code == 2 and "NEW_RUN" in err and str(other) in err


def test_the_size_sentence_quotes_the_benchmark_s_measured_rates():
    """The rates the diff prints are the ones benchmarks/gate_size.py measured and wrote to RESULTS.md."""
    import re
    from pathlib import Path

    from rankviz.cli.gate import SIZE_NOTE

    results = (Path(__file__).resolve().parents[2] / "benchmarks" / "RESULTS.md").read_text()
    section = results[results.index("<!-- gate_size.py:start -->") : results.index("<!-- gate_size.py:end -->")]
    rows = {line.split("|")[1].strip(): line.split("|")[2:4] for line in section.splitlines() if line.startswith("| ")}
    test = [float(cell.split("%")[0]) for cell in rows["gate, no `--max-drop` (Holm-adjusted randomization test)"]]
    point = [float(cell.split("%")[0]) for cell in rows["point estimate: a mean drops by more than 0.01"]]
    bound = [float(c.split("%")[0]) for c in rows["gate with `--max-drop 0.01` (significant and Holm CI below -0.01)"]]
    quoted = [float(x) for x in re.findall(r"([0-9.]+)%", SIZE_NOTE)]
    assert quoted == [test[0], test[1], round(point[0]), round(point[1]), bound[0], bound[1]]
    assert max(test) <= 5.0 + 2 * 0.7  # the test holds its size (alpha 0.05, within Monte Carlo error)


def test_holm_ties_at_the_p_value_floor_are_ordered_by_the_clearest_difference():
    from rankviz.cli.gate import holm_levels

    levels = holm_levels([0.0004] * 4, [0.0004] * 4, 0.05, ties=[-10.0, -12.0, -11.0, -3.0])
    assert levels == [pytest.approx(0.975), pytest.approx(1 - 0.05 / 4), pytest.approx(1 - 0.05 / 3), 0.95]
