"""rankviz.plots: worst queries."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import pandas as pd
import pytest

import rankviz.plots as rp
from rankviz import ColumnError, InputError, UnknownOptionError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import _example, big_table, example_table, one_system, small_table

# ----------------------------------------------------------------------------- failures


def test_failures_bars_are_the_n_lowest_sorted_with_query_text():
    table = example_table()
    queries = _example()[2]
    ax = rp.failures(table, measure="nDCG@10", system="bm25", n=25, queries=queries, zeros="show", ax=plt.subplots()[1])
    container = ax.containers[0]
    widths = [p.get_width() for p in container.patches]
    part = one_system(table).sort_values(["nDCG@10", "query_id"], kind="mergesort").head(25)
    assert widths == part["nDCG@10"].tolist()
    assert widths == sorted(widths)
    texts = dict(zip(queries["query_id"], queries["text"]))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 25
    for label, query in zip(labels, part["query_id"]):
        full = " ".join(texts[query].split())
        assert len(label) <= 50
        assert label == full or (label.endswith("…") and full.startswith(label[:-1]))
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # worst on top
    assert "nDCG@10" in ax.get_xlabel() and "nDCG@10" in ax.get_title()


def test_failures_zeros_come_first_and_are_marked():
    table = one_system(example_table())
    ax = rp.failures(table, n=20, zeros="show", ax=plt.subplots()[1])
    zeros = int((table["RR@10"] == 0).sum())
    assert zeros >= 20
    assert all(p.get_width() == 0 for p in ax.containers[0].patches)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == sorted(table.loc[table["RR@10"] == 0, "query_id"])[:20]  # ids when no texts
    assert f"{zeros} of 600" in ax.get_title()
    markers = [line for line in ax.get_lines() if line.get_marker() == "x"]
    assert sum(len(line.get_xdata()) for line in markers) == 20
    notes = [t.get_text() for t in ax.texts]
    assert notes.count("not in top 10") == 20


def test_failures_show_the_zero_queries_by_default():
    table = one_system(example_table())
    zeros = table[table["RR@10"] == 0].sort_values("query_id")["query_id"].head(10).tolist()
    ax = rp.failures(table, n=10, ax=plt.subplots()[1])
    assert [t.get_text() for t in ax.get_yticklabels()] == zeros


def test_failures_queries_whose_texts_shorten_alike_get_distinct_labels():
    table = one_system(example_table())
    worst = table.sort_values(["RR@10", "query_id"]).head(3)["query_id"].tolist()
    texts = {q: "Log a message with severity 'ERROR' on the root logger, variant " + q for q in worst}
    ax = rp.failures(table, n=3, queries=texts, ax=plt.subplots()[1])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(set(labels)) == 3 and all(label.endswith(f"({q})") for label, q in zip(labels, worst))
    assert all(len(label) <= 50 for label in labels)


def test_failures_zero_rows_collapse_into_one_and_the_n_rows_go_above_zero():
    table = one_system(example_table())
    zeros = int((table["RR@10"] == 0).sum())
    ax = rp.failures(table, n=10, zeros="collapse", ax=plt.subplots()[1])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == f"{zeros} queries: RR@10 = 0 for run"
    above = table[table["RR@10"] > 0].sort_values(["RR@10", "query_id"], kind="mergesort").head(10)
    assert labels[1:] == above["query_id"].tolist()
    assert [p.get_width() for p in ax.containers[0].patches] == [0.0, *above["RR@10"]]
    assert "above 0" in ax.get_title() and f"{zeros} of 600" in ax.get_title()


def test_failures_delta_is_system_minus_baseline_coloured_by_who_wins():
    # Before: failures(system=A, compare=B) wrote B - A in A's colour (the opposite of compare()).
    table = example_table()
    ax = rp.failures(
        table,
        system="bm25+rerank",
        baseline="bm25",
        worst_of="baseline",
        n=10,
        zeros="collapse",
        ax=plt.subplots()[1],
    )
    first, second = ax.containers[0], ax.containers[1]
    assert first.get_label() == "bm25+rerank" and second.get_label() == "bm25 (baseline)"
    wide = table.pivot(index="query_id", columns="system", values="RR@10")
    both_zero = (wide["bm25"] == 0) & (wide["bm25+rerank"] == 0)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == f"{int(both_zero.sum())} queries: RR@10 = 0 for both"
    picked = (
        wide[~both_zero].reset_index().sort_values(["bm25", "query_id"], kind="mergesort").head(10)["query_id"].tolist()
    )
    assert labels[1:] == picked  # the baseline's worst queries
    assert [p.get_width() for p in first.patches][1:] == wide.loc[picked, "bm25+rerank"].tolist()
    delta = (wide.loc[picked, "bm25+rerank"] - wide.loc[picked, "bm25"]).tolist()
    shown = [t for t in ax.texts if t.get_text() == "0" or t.get_text()[:1] in ("+", "-")]
    assert [t.get_text() for t in shown] == ["0"] + ["0" if d == 0 else f"{d:+.3f}" for d in delta]
    system_colour, baseline_colour = first.patches[1].get_facecolor(), second.patches[1].get_facecolor()
    for text, d in zip(shown[1:], delta):
        if d != 0:
            assert matplotlib.colors.to_rgba(text.get_color()) == (system_colour if d > 0 else baseline_colour)
    assert any(t.get_text() == "Δ = bm25+rerank − bm25" for t in ax.texts)


def test_failures_unknown_keyword_is_refused_by_the_accessor_naming_it():
    run, qrels, _, _ = _example()
    with pytest.raises(UnknownOptionError, match="compare"):  # the pre-0.1 keyword is an unknown keyword now
        run.rank.plot.failures(qrels, system="bm25", compare="rrf")


def test_failures_hue_draws_every_system_for_the_same_queries():
    table = example_table()
    ax = rp.failures(table, hue="system", n=8, zeros="show", ax=plt.subplots()[1])
    assert len(ax.containers) == 4
    assert all(len(c.patches) == 8 for c in ax.containers)
    assert len(ax.get_yticklabels()) == 8
    assert "every system" in ax.get_title()


@pytest.mark.parametrize("n", [1, 5, 20])
def test_failures_five_queries_never_more_bars_than_queries(n):
    table = small_table()
    ax = rp.failures(table, system="x", n=n, zeros="show", ax=plt.subplots()[1])
    assert len(ax.containers[0].patches) == min(n, 5)
    assert len(ax.get_yticklabels()) == min(n, 5)


def test_failures_seven_thousand_queries_show_n_labels():
    table = big_table(7000)
    ax = rp.failures(table, system="a", n=20, zeros="show", ax=plt.subplots()[1])
    assert len(ax.containers[0].patches) == 20
    assert len(ax.get_yticklabels()) == 20
    ax = rp.failures(table, system="b", baseline="a", n=30, zeros="show", ax=plt.subplots()[1])
    assert len(ax.get_yticklabels()) == 30
    assert sum(len(c.patches) for c in ax.containers) == 60


def test_failures_long_texts_are_shortened():
    table = small_table()
    queries = {"q3": "word " * 40, "q5": "short text"}
    ax = rp.failures(table, system="x", queries=queries, n=3, zeros="show", ax=plt.subplots()[1])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].endswith("…") and len(labels[0]) <= 50 and "  " not in labels[0]
    assert labels[1] == "short text"
    assert labels[2] == "q4"  # no text for q4: its id


def test_failures_errors():
    table = example_table()
    with pytest.raises(InputError, match=r"4 systems; choose one with system=.*'bm25'"):
        rp.failures(table)
    with pytest.raises(InputError, match=r"unknown system 'bm26'.*'bm25'"):
        rp.failures(table, system="bm26")
    with pytest.raises(InputError, match="unknown baseline"):
        rp.failures(table, system="bm25", baseline="nope")
    with pytest.raises(InputError, match="baseline=.*needs a table with several systems"):
        rp.failures(one_system(table), baseline="rrf")
    with pytest.raises(InputError, match="'worst_of' parameter"):
        rp.failures(table, system="bm25", baseline="rrf", worst_of="rrf")
    with pytest.raises(ColumnError, match=r"'AP'.*'RR@1'"):
        rp.failures(table, measure="AP", system="bm25")
    with pytest.raises(InputError, match="'n' parameter"):
        rp.failures(table, system="bm25", n=0)
    with pytest.raises(ColumnError, match=r"text column \('text'"):  # the message of rankviz.io.per_query.query_texts
        rp.failures(table, system="bm25", queries=pd.DataFrame({"query_id": ["q1"], "body": ["x"]}))
