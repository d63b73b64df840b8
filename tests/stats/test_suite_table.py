"""rankviz.table of a suite: each dataset's column as the one-collection table, the macro average, tiers."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.datasets import load_example

pytestmark = pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")

ODD = "web<b>&_$|*x"  # a dataset name that is markup in HTML, LaTeX and markdown
MEASURES = ["nDCG@10", "RR@10"]
KW = {"rng": 3, "n_resamples": 200}


@pytest.fixture(scope="module")
def suite():
    ex = load_example()
    qids = sorted(ex.qrels["query_id"].unique())
    parts = {ODD: set(qids[:250]), "news": set(qids[250:])}
    return {
        name: (ex.run[ex.run["query_id"].isin(keep)], ex.qrels[ex.qrels["query_id"].isin(keep)])
        for name, keep in parts.items()
    }


@pytest.fixture(scope="module")
def result(suite):
    return rankviz.table(suite, MEASURES, **KW)


def test_dataset_columns_equal_the_table_of_each_dataset_alone(suite, result):
    assert result.datasets == tuple(sorted(suite))
    for name, (run, qrels) in suite.items():
        alone = rankviz.table(run, MEASURES, qrels, **KW)
        assert alone.systems == result.systems
        for m in MEASURES:
            column = f"{name}: {m}"
            assert result.means[column].tolist() == alone.means[m].tolist()
            assert result.ci_low[column].tolist() == alone.ci_low[m].tolist()
            assert result.ci_high[column].tolist() == alone.ci_high[m].tolist()
            for s in result.systems:
                assert result.better_than(s, column) == alone.better_than(s, m)
            mine = result.pairs[result.pairs["measure"] == column].drop(columns="measure").reset_index(drop=True)
            theirs = alone.pairs[alone.pairs["measure"] == m].drop(columns="measure").reset_index(drop=True)
            pd.testing.assert_frame_equal(mine, theirs)
    # something is significant on a dataset, so the comparison above compared letters that could differ
    assert any(result.better_than(s, f"news: {MEASURES[0]}") for s in result.systems)


def test_macro_column_equals_evaluate_of_the_suite(suite, result):
    macro = rankviz.evaluate(suite, MEASURES).loc["(macro average)"]
    for m in MEASURES:
        assert result.means[f"(macro average): {m}"].tolist() == macro.loc[list(result.systems), m].tolist()
        # and it is the mean of the dataset columns
        columns = [f"{d}: {m}" for d in result.datasets]
        np.testing.assert_allclose(
            result.means[f"(macro average): {m}"], result.means[columns].mean(axis=1), rtol=1e-12
        )
    assert list(result.measures) == [f"{d}: {m}" for m in MEASURES for d in [*result.datasets, "(macro average)"]]


def test_tiers_equal_ranks_of_the_suite_and_agree_with_the_macro_letters(suite, result):
    for m in MEASURES:
        column = f"(macro average): {m}"
        board = rankviz.ranks(suite, m, confidence_level=0.95, **KW)
        assert result.tiers[column].to_dict() == board.tiers
        frame = result.to_frame()
        rows = frame[
            (frame["measure"] == column)
            & frame["p_value"].isna()
            & (frame["better_than"].isna() | (frame["better_than"] == "None"))
        ]
        assert dict(zip(rows["system"], rows["tier"])) == board.tiers
        for s in result.systems:
            for o in result.systems:
                if s == o:
                    continue
                share = bool(set(board.tiers[s]) & set(board.tiers[o]))  # 4 systems: one letter per tier
                separated = o in result.better_than(s, column) or s in result.better_than(o, column)
                assert separated == (not share), (s, o)
    assert len(set(result.tiers.iloc[:, 0])) > 1  # the example's systems are separated: the check above had teeth


def test_alpha_sets_the_band_of_the_macro_letters(suite):
    wide = rankviz.table(suite, "nDCG@10", alpha=0.2, confidence_level=None, **KW)
    board = rankviz.ranks(suite, "nDCG@10", confidence_level=0.8, **KW)
    assert wide.tiers["(macro average): nDCG@10"].to_dict() == board.tiers
    assert wide.ci_low is None


def test_tiers_shown_in_every_rendering(result):
    column = f"(macro average): {MEASURES[0]}"
    tier = result.tiers.loc["bm25", column]
    md = result.to_markdown()
    assert md.splitlines()[0].count("| tier |") == len(MEASURES) and md.splitlines()[0].endswith("| tier |")
    bm25 = [line for line in md.splitlines() if "| bm25 |" in line][0]
    assert f"| {tier} |" in bm25
    assert result.to_latex().count(" & Tier") == len(MEASURES)
    assert result._repr_html_().count("<th>tier</th>") == len(MEASURES)
    assert "tier" in repr(result)
    assert "macro average" in result.description()


def test_a_dataset_name_with_markup_is_escaped(result):
    page = result._repr_html_()
    assert html.escape(ODD) in page and ODD not in page
    latex = result.to_latex()
    assert r"web\textless{}b\textgreater{}\&\_\$\textbar{}*x: nDCG@10" in latex and ODD not in latex
    md = result.to_markdown()
    assert r"web&lt;b&gt;&amp;\_\$\|\*x: nDCG@10" in md and ODD not in md


def test_dataset_column_input_gives_the_same_table(suite, result):
    run = pd.concat([r.assign(dataset=name) for name, (r, _) in suite.items()], ignore_index=True)
    qrels = pd.concat([q.assign(dataset=name) for name, (_, q) in suite.items()], ignore_index=True)
    again = rankviz.table(run, MEASURES, qrels, **KW)
    pd.testing.assert_frame_equal(again.means, result.means)
    assert again.tiers.equals(result.tiers)
    pd.testing.assert_frame_equal(again.pairs, result.pairs)


def test_one_collection_table_has_no_tiers():
    ex = load_example()
    one = rankviz.table(ex.run, "nDCG@10", ex.qrels, **KW)
    assert one.tiers is None and one.datasets == ()
    assert "tier" not in one.to_frame().columns and "tier" not in one.to_markdown()
