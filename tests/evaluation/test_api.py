"""The public API's shape: one options object, one columns mapping, one return type per function.

Regression tests for the defects the architecture issue named (ranked_list's
``query=`` clash, summary's labels under ``rel=``, ``evaluate(..., rel=2)``,
swallowed keyword typos) and for the signatures users see in help() and Shift-Tab.
"""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import rankviz
from rankviz._core.options import option_names
from tests.conftest import shared_path


@pytest.fixture
def run():
    return pd.DataFrame(
        {
            "qid": ["q1", "q1", "q1", "q2", "q2"],
            "doc_id": ["a", "b", "c", "d", "e"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )


@pytest.fixture
def qrels():
    return pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "c", "e"], "relevance": [1, 2, 2]})


def test_ranked_list_picks_the_system_with_one_or_several(run, qrels):
    """A run of one system (as read_run gives, with its tag) keeps no per-row system codes; system= still works."""
    one = run.assign(system=pd.Categorical(["bm25"] * len(run)))
    assert rankviz.ranked_list(one, "q1", qrels, system="bm25", columns={"query": "qid"})["doc_id"].tolist() == [
        "a",
        "b",
        "c",
    ]
    with pytest.raises(rankviz.InputError, match="unknown system 'dense'"):
        rankviz.ranked_list(one, "q1", qrels, system="dense", columns={"query": "qid"})
    two = pd.concat([one, run.assign(system="dense", score=-run["score"])], ignore_index=True)
    two["system"] = two["system"].astype("str")
    assert rankviz.ranked_list(two, "q1", qrels, system="dense", columns={"query": "qid"})["doc_id"].tolist() == [
        "c",
        "b",
        "a",
    ]
    assert rankviz.ranked_list(two, "q1", qrels, system="bm25", columns={"query": "qid"})["doc_id"].tolist() == [
        "a",
        "b",
        "c",
    ]


def test_ranked_list_takes_the_query_as_a_value_and_the_column_in_columns(run, qrels):
    listed = rankviz.ranked_list(run, "q1", qrels, columns={"query": "qid"})
    assert listed["doc_id"].tolist() == ["a", "b", "c"]
    assert listed["relevance"].tolist()[1:] == [1, 2]
    # the old spelling clashed with the query argument; now the message says what each one is
    with pytest.raises(
        rankviz.UnknownOptionError,
        match=r"query= is the query itself \(a value\); to name the query column use columns=\{'query': 'your_column'\}",
    ):
        rankviz.ranked_list(run, "q1", qrels, query="qid")


def test_summary_labels_carry_rel(run, qrels):
    table = run.rank.summary(k=10, qrels=qrels, rel=2, confidence_level=None, columns={"query": "qid"})
    assert {"RR(rel=2)@10", "Success(rel=2)@10", "R(rel=2)@10", "nDCG@10"} <= set(table.columns)
    assert "RR@10" not in table.columns
    # q1: first grade-2 item at rank 3; q2: at rank 2
    assert table.loc["run", "RR(rel=2)@10"] == pytest.approx((1 / 3 + 1 / 2) / 2)
    plain = run.rank.summary(k=10, qrels=qrels, confidence_level=None, columns={"query": "qid"})
    assert plain.loc["run", "RR@10"] == pytest.approx((1 / 2 + 1 / 2) / 2)


def test_evaluate_rel_equals_measures_with_rel(run, qrels):
    by_option = rankviz.evaluate(run, ["RR@10", "AP", "nDCG@10", "P@2"], qrels, rel=2, columns={"query": "qid"})
    by_name = rankviz.evaluate(
        run, ["RR(rel=2)@10", "AP(rel=2)", "nDCG@10", "P(rel=2)@2"], qrels, columns={"query": "qid"}
    )
    pd.testing.assert_frame_equal(by_option, by_name)
    assert list(by_option.columns) == ["RR(rel=2)@10", "AP(rel=2)", "nDCG@10", "P(rel=2)@2"]
    # a measure's own rel wins over the call's
    own = rankviz.evaluate(run, ["RR(rel=3)@10"], qrels, rel=2, columns={"query": "qid"})
    assert list(own.columns) == ["RR(rel=3)@10"]


def test_evaluate_rel_2_equals_trec_eval_l2():
    """rankviz.evaluate(..., rel=2) against trec_eval -l2 (out.test.aql), every query and the mean."""
    folder = shared_path("trec_eval")
    run = rankviz.read_run(folder / "results.test")
    names = {
        "recip_rank": "RR",
        "map": "AP",
        "P_10": "P@10",
        "recall_100": "R@100",
        "Rprec": "Rprec",
        "ndcg_cut_10": "nDCG@10",
    }
    table = rankviz.evaluate(run, list(names.values()), folder / "qrels.rel_level", per_query=True, rel=2)
    table = table.set_index("query_id")
    expected = {}
    for line in (folder / "out.test.aql").read_text().splitlines():
        measure, qid, value = line.split()
        if measure in names:
            expected[(measure, qid)] = float(value)
    checked = 0
    for (measure, qid), value in expected.items():
        column = rankviz.parse_measure(names[measure])
        column = column if column.family == "nDCG" else column(rel=2)
        got = table[column.name].mean() if qid == "all" else table.loc[qid, column.name]
        assert abs(got - value) <= 0.00005 + 1e-12, (measure, qid, got, value)
        checked += 1
    assert checked == 4 * len(names)


def test_unknown_keywords_are_errors_with_a_hint(run, qrels, tmp_path):
    with pytest.raises(
        rankviz.UnknownOptionError,
        match=r"evaluate\(\) got an unexpected keyword argument 'per_qery'\. Did you mean 'per_query'\?",
    ):
        rankviz.evaluate(run, "RR", qrels, per_qery=True, columns={"query": "qid"})
    with pytest.raises(TypeError, match="scor"):
        rankviz.write_run(run, tmp_path / "run.txt", scor="s")
    assert not (tmp_path / "run.txt").exists()
    with pytest.raises(
        rankviz.InputError,
        match=r"'columns' parameter of write_run has an unknown role 'scor'\. Did you mean 'score'\?",
    ):
        rankviz.write_run(run, tmp_path / "run.txt", columns={"scor": "s"})


@pytest.mark.parametrize(
    "name",
    [
        "mrr",
        "ndcg",
        "map",
        "recall",
        "precision",
        "hit_rate",
        "r_precision",
        "evaluate",
        "first_relevant_rank",
        "summary",
        "bootstrap",
        "compare",
        "ties",
    ],
)
def test_help_shows_every_option_with_its_default(name):
    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    signature = inspect.signature(getattr(frame.rank, name))
    expected = set(option_names()) - ({"ties"} if name == "ties" else set())
    assert expected <= set(signature.parameters)
    assert signature.parameters["missing"].default == "zero"
    assert signature.parameters["depth"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "self" not in signature.parameters
    assert "Evaluation options" in getattr(frame.rank, name).__doc__


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")
def test_one_return_type_whatever_the_input(run, qrels):
    # Issue 27.6 changed the single-measure functions deliberately: a frame without a system
    # column is one run and gives a float; a Series indexed by system only when there are systems.
    single = run.rank.mrr(k=10, qrels=qrels, columns={"query": "qid"})
    several = pd.concat([run.assign(system="a"), run.assign(system="b")]).rank.mrr(
        k=10, qrels=qrels, columns={"query": "qid"}
    )
    assert type(single) is float and isinstance(several, pd.Series)
    assert list(several.index) == ["a", "b"]
    assert several.name == "RR@10" and several.index.name == "system"

    one = run.rank.bootstrap("RR@10", qrels=qrels, rng=0, n_resamples=200, columns={"query": "qid"})
    two = run.rank.bootstrap(["RR@10", "AP"], qrels=qrels, rng=0, n_resamples=200, columns={"query": "qid"})
    assert type(one) is type(two) is rankviz.BootstrapResults
    assert one["run", "RR@10"].estimate == pytest.approx(0.5)
    assert list(two.to_frame()[["system", "measure"]].itertuples(index=False, name=None)) == [
        ("run", "RR@10"),
        ("run", "AP"),
    ]
    assert "<table" in two._repr_html_()
    with pytest.raises(KeyError, match="index by"):
        two["nope"]


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")
def test_compare_returns_a_comparison_that_keeps_its_settings(qrels):
    base = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["b", "a", "d", "e"], "score": [2.0, 1.0, 2.0, 1.0]}
    )
    runs = pd.concat([base.assign(system="x"), base.assign(system="<y>", score=-base["score"])])
    result = runs.rank.compare("x", ["RR@10"], qrels=qrels, rng=7, n_resamples=100, test="t", correction="bh")
    assert isinstance(result, rankviz.Comparison)
    assert (result.test, result.correction, result.rng, result.baseline) == ("t", "bh", 7, "x")
    frame = result.to_frame()
    assert set(frame["test"]) == {"t"} and set(frame["correction"]) == {"bh"}
    assert "&lt;y&gt;" in result._repr_html_() and "<y>" not in result._repr_html_()


def test_cli_seed_is_the_rng_of_the_api():
    from rankviz.cli.commands import _parser

    args = _parser().parse_args(["report", "--qrels", "q.txt", "run.txt", "--seed", "5"])
    assert args.rng == 5
