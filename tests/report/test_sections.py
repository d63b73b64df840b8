"""The report's HTML pieces, without a kernel: escaped, linked, collapsed."""

from __future__ import annotations

import pandas as pd

from rankviz.report import sections as rs


def test_title_contents_and_details_escape_user_strings():
    page = rs.title_block("<b>T</b>", "2 runs on <q>", "k = 10") + rs.contents(
        [("summary", "Summary")], ["<run&1>", "b"]
    )
    assert "<b>T</b>" not in page and "&lt;b&gt;T&lt;/b&gt;" in page and "&lt;run&amp;1&gt;" in page
    assert 'href="#system-1"' in page and 'href="#system-2"' in page and 'href="#summary"' in page
    line = rs.system_summary("<x>", pd.Series({"RR@10": 0.123456}), baseline=True)
    assert "&lt;x&gt;" in line and "0.1235" in line and "baseline" in line
    block = rs.details(line, "<p>body</p>", anchor=rs.system_anchor(0))
    assert '<details id="system-1">' in block and " open" not in block
    assert "<details open>" in rs.details("s", "b", open=True)


def test_comparison_overview_counts_significant_wins_and_losses():
    table = pd.DataFrame(
        {
            "system": ["a", "b", "c"] * 2,
            "measure": ["RR@10"] * 3 + ["AP"] * 3,
            "difference": [0.1, -0.2, 0.01, 0.05, 0.0, -0.01],
            "p_corrected": [0.01, 0.001, 0.5, 0.2, 1.0, 0.04],
        }
    )
    page = rs.comparison_overview(table, "<base>")
    assert "&lt;base&gt;" in page
    rows = pd.read_html(__import__("io").StringIO(page))[0].set_index("measure")
    assert rows.loc["RR@10", ["n_better", "n_worse", "n_not_significant"]].tolist() == [1, 1, 1]
    assert rows.loc["AP", ["n_better", "n_worse", "n_not_significant"]].tolist() == [0, 1, 2]


def test_significance_overview_ranks_and_counts():
    import rankviz

    per_query = pd.DataFrame({
        "system": ["<s1>"] * 8 + ["s2"] * 8 + ["s3"] * 8,
        "query_id": [f"q{i}" for i in range(8)] * 3,
        "AP": [0.9] * 8 + [0.5, 0.4, 0.6, 0.5, 0.4, 0.6, 0.5, 0.5] + [0.1] * 8,
    })  # fmt: skip
    table = rankviz.stats.significance_table(per_query, ["AP"], rng=0, n_resamples=200, confidence_level=None)
    page = rs.significance_overview(table)
    assert page.index("&lt;s1&gt;") < page.index("s2") < page.index("s3")  # best first
    assert "<b>0.9000</b>" in page and "<s1>" not in page


def test_resampling_floor_says_when_nothing_can_be_significant():
    assert "--n-resamples" in rs.resampling_floor(500, 245)
    assert rs.resampling_floor(10_000, 245) == ""


def test_comparison_overview_names_no_gain_when_no_system_beats_the_baseline():
    table = pd.DataFrame(
        {
            "system": ["a", "b"] * 2,
            "measure": ["RR@10"] * 2 + ["AP"] * 2,
            "difference": [-0.1174, -0.2, 0.05, 0.02],
            "p_corrected": [0.01, 0.001, 0.2, 0.5],
        }
    )
    rows = pd.read_html(__import__("io").StringIO(rs.comparison_overview(table, "base")))[0].set_index("measure")
    assert rows.loc["RR@10", "largest_gain"] == "no system is above"  # not -0.1174, a loss
    assert rows.loc["RR@10", "largest_loss"] == "-0.2000 (b)"
    assert rows.loc["AP", "largest_gain"] == "+0.0500 (a)" and rows.loc["AP", "largest_loss"] == "no system is below"


def test_failed_queries_lists_every_query_with_a_zero_numeric_ids_in_number_order():
    per_query = pd.DataFrame(
        {
            "system": ["x"] * 5 + ["y"] * 5,
            "query_id": ["11", "4", "5", "14", "2"] * 2,
            "RR@10": [0.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.2, 0.0, 0.0, 1.0],
        }
    )
    texts = pd.DataFrame({"query_id": ["11", "4", "5", "14", "2"], "text": ["eleven", "four", "<five>", "14", "2"]})
    page = rs.failed_queries(per_query, "RR@10", texts)
    rows = pd.read_html(__import__("io").StringIO(page))[0]
    assert rows["query_id"].astype(str).tolist() == ["11", "14", "4", "5"]  # both systems first, then by number
    assert rows["failed_by"].tolist() == ["x, y", "x, y", "x", "y"] and "&lt;five&gt;" in page
    assert "4 queries with RR@10 = 0" in page
    assert rs.query_order(pd.Series(["11", "4", "5"])).tolist() == [11, 4, 5]
    assert "No query has" in rs.failed_queries(per_query.assign(**{"RR@10": 1.0}), "RR@10")
