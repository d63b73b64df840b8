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
    table = rankviz.multiple.significance_table(per_query, ["AP"], rng=0, n_resamples=200, confidence_level=None)
    page = rs.significance_overview(table)
    assert page.index("&lt;s1&gt;") < page.index("s2") < page.index("s3")  # best first
    assert "<b>0.9000</b>" in page and "<s1>" not in page


def test_resampling_floor_says_when_nothing_can_be_significant():
    assert "--n-resamples" in rs.resampling_floor(500, 245)
    assert rs.resampling_floor(10_000, 245) == ""
