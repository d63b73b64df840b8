"""Result objects and tables in a notebook: an HTML view each, counts as integers, measures to 4 decimals."""

from __future__ import annotations

import re

import pandas as pd

from rankviz.datasets import load_example
from rankviz.stats.results import formatted, html_table


def _cells(page: str) -> list[str]:
    return re.findall(r"<td>([^<]*)</td>", page)


def test_formatted_keeps_counts_whole_also_when_transposed():
    frame = pd.DataFrame(
        {"n_queries": [30, 600], "n_tied_rows": [17937.0, 4.0], "AP": [0.123456, 1 / 3]}, index=["a", "b"]
    )
    shown = formatted(frame).T
    assert shown.loc["n_queries"].tolist() == ["30", "600"]
    assert shown.loc["n_tied_rows"].tolist() == ["17937", "4"]
    assert shown.loc["AP"].tolist() == ["0.1235", "0.3333"]


def test_html_table_escapes_every_string():
    frame = pd.DataFrame({"system": ["<b>x</b>"], "AP": [0.5]}, index=pd.Index(["<i>"], name="q"))
    page = html_table(frame, "caption <script>", ["note & <note>"])
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "<script>" not in page and "&lt;i&gt;" in page and "note &amp; &lt;note&gt;" in page


def test_summary_transposed_rounds():
    run, qrels, _ = load_example()
    table = run[run["system"] == "bm25"].rank.summary(k=10, qrels=qrels, confidence_level=None, ties="expected")
    assert all(kind in "fiu" for kind in table.dtypes.map(lambda d: d.kind))
    rounded = table.T.round(4)
    assert (rounded.to_numpy() == rounded.to_numpy().round(4)).all()


def test_bootstrap_results_have_an_html_view_with_four_decimals():
    run, qrels, _ = load_example()
    results = run.rank.bootstrap("nDCG@10", qrels=qrels, rng=0, n_resamples=200)
    page = results._repr_html_()
    assert "<table" in page and "bm25" in page
    numbers = [c for c in _cells(page) if re.fullmatch(r"-?\d+\.\d+", c)]
    assert numbers and all(len(c.split(".")[1]) == 4 for c in numbers)
    assert "<td>600</td>" in page  # n_queries, an integer
    one = results["bm25"]
    single = one._repr_html_()
    assert "bm25" in single and f"{one.estimate:.4f}" in single and "<td>600</td>" in single
    assert "\n" in repr(results)  # a table, not one long line


def test_tie_report_html_counts_are_integers():
    run, qrels, _ = load_example()
    report = run[run["system"] == "bm25"].rank.ties(qrels=qrels, k=10)
    page = report._repr_html_()
    assert "e+0" not in page and not re.search(r"<td>\d{3,}\.0000</td>", page)
    assert f"<td>{int(report.summary['n_tied_rows'].iloc[0])}</td>" in page
