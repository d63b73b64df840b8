"""Rank fusion: agreement with ranx on TREC-COVID runs, a brute-force reference, tuning by cross-validation.

ranx is in the ``test`` extra: the agreement test skips with a reason where ranx is
absent on a developer's machine and fails under CI (CI=true), where it must run; the
brute-force reference below pins rankviz's own definitions everywhere, including where
ranx's differ (ties, 'max').
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import fusion
from rankviz.datasets import load_example
from tests.conftest import IN_CI

METHODS = ["rrf", "borda", "combsum", "wsum", "combmnz", "combanz", "combmax", "combmin"]
SCORE_NORMS = ["none", "min-max", "z-score", "sum", "max", "rank"]
WEIGHTS = [0.1, 0.2, 0.3, 0.4]


def _covid(covid_dir, names, depth=100) -> pd.DataFrame:
    parts = [rankviz.read_run(covid_dir / "runs" / name).assign(system=name) for name in names]
    run = pd.concat(parts, ignore_index=True)
    return run[run["rank"] <= depth].reset_index(drop=True)


def _trec_lists(run: pd.DataFrame) -> dict:
    """{(system, query): [(doc, score), ...]} in trec_eval order (score descending, doc id descending)."""
    lists = {}
    ordered = run.sort_values(["system", "query_id", "score", "doc_id"], ascending=[True, True, False, False])
    for (system, query), part in ordered.groupby(["system", "query_id"], sort=False):
        lists[system, query] = list(zip(part["doc_id"], part["score"]))
    return lists


def _normalise(items, norm):
    scores = np.array([s for _, s in items], dtype=float)
    n = len(items)
    if norm == "none":
        out = scores
    elif norm == "rank":
        out = np.array([1 - i / n for i in range(n)])
    elif norm == "max":
        top = max(abs(s) for s in scores)
        out = scores / top if top > 0 else np.zeros(n)
    elif norm == "min-max":
        width = scores.max() - scores.min()
        out = (scores - scores.min()) / width if width > 0 else np.zeros(n)
    elif norm == "sum":
        total = (scores - scores.min()).sum()
        out = (scores - scores.min()) / total if total > 0 else np.zeros(n)
    else:
        sd = scores.std()
        out = (scores - scores.mean()) / sd if sd > 0 else np.zeros(n)
    return {doc: float(v) for (doc, _), v in zip(items, out)}


def _reference(run, method, norm, weights, k=60) -> dict:
    """Brute force, one query at a time, straight from the definitions in rankviz.fusion.combine."""
    lists = _trec_lists(run)
    systems = list(dict.fromkeys(run["system"]))
    w = (
        dict(zip(systems, weights))
        if weights is not None
        else {s: (1 / len(systems) if method == "wsum" else 1.0) for s in systems}
    )
    out = {}
    for query in dict.fromkeys(run["query_id"]):
        own = {s: lists.get((s, query), []) for s in systems}
        docs = {d for items in own.values() for d, _ in items}
        for doc in docs:
            values, total = [], 0.0
            for s in systems:
                ranked = [d for d, _ in own[s]]
                if method == "rrf":
                    total += w[s] / (k + ranked.index(doc) + 1) if doc in ranked else 0.0
                elif method == "borda":
                    points = len(docs) - ranked.index(doc) if doc in ranked else (len(docs) - len(ranked) + 1) / 2
                    total += w[s] * points
                elif doc in ranked:
                    values.append(_normalise(own[s], norm)[doc])
                    total += w[s] * values[-1]
            if method == "combmax":
                total = max(values)
            elif method == "combmin":
                total = min(values)
            elif method == "combmnz":
                total *= len(values)
            elif method == "combanz":
                total /= len(values)
            out[str(query), str(doc)] = total
    return out


def _as_dict(fused: pd.DataFrame) -> dict:
    return {(str(q), str(d)): float(s) for q, d, s in zip(fused["query_id"], fused["doc_id"], fused["score"])}


def _assert_same(got: dict, want: dict, rtol=1e-9):
    assert got.keys() == want.keys()
    keys = list(want)
    a, b = np.array([got[k] for k in keys]), np.array([want[k] for k in keys])
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-9)  # z-scores of near-equal scores cancel to ~1e-10


def _small_run() -> pd.DataFrame:
    """Three systems with ties, a one-document list, negative scores, and a query one system did not answer."""
    rows = [
        ("a", "q1", "d1", 3.0),
        ("a", "q1", "d2", 3.0),
        ("a", "q1", "d3", 1.0),
        ("a", "q2", "d9", 0.5),
        ("b", "q1", "d3", -0.2),
        ("b", "q1", "d4", -0.9),
        ("b", "q1", "d1", -2.5),
        ("b", "q2", "d9", -1.0),
        ("b", "q2", "d8", -4.0),
        ("c", "q1", "d5", 7.0),
        ("c", "q1", "d2", 2.0),
    ]
    return pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])


@pytest.mark.parametrize("method", METHODS)
def test_fuse_equals_the_brute_force_reference(method):
    run = _small_run()
    for norm in ["none"] if method in ("rrf", "borda") else SCORE_NORMS:
        weights = [0.2, 0.5, 0.3] if method in fusion.WEIGHTED else None
        fused = rankviz.fuse(run, method, norm=None if method in ("rrf", "borda") else norm, weights=weights, rrf_k=10)
        _assert_same(_as_dict(fused), _reference(run, method, norm, weights, k=10))


@pytest.mark.parametrize("method", ["rrf", "combmnz", "combmax", "borda"])
def test_fuse_equals_the_reference_on_trec_covid(covid_dir, method):
    run = _covid(covid_dir, ["smith.ql", "run1", "BERT", "Tetralogie0Fr"], depth=30)
    norms = ["none"] if method in ("rrf", "borda") else ["max", "z-score", "rank"]
    for norm in norms:
        fused = rankviz.fuse(run, method, norm=None if method in ("rrf", "borda") else norm)
        _assert_same(_as_dict(fused), _reference(run, method, norm, None))


def _ranx_runs(run, rank_based):
    from ranx import Run

    out = []
    for system, part in run.groupby("system", sort=False):
        part = part.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
        # ranx orders tied scores as its sort leaves them; for the rank-based methods it gets a strict
        # order (minus rankviz's trec_eval rank), so both sides rank the same lists.
        values = -(part.groupby("query_id").cumcount() + 1.0) if rank_based else part["score"].astype(float)
        d: dict = {}
        for q, doc, v in zip(part["query_id"], part["doc_id"], values):
            d.setdefault(str(q), {})[str(doc)] = float(v)
        out.append(Run.from_dict(d, name=system))
    return out


RANX_METHOD = {
    "rrf": "rrf",
    "borda": "bordafuse",
    "combsum": "sum",
    "wsum": "wsum",
    "combmnz": "mnz",
    "combanz": "anz",
    "combmax": "max",
    "combmin": "min",
}
RANX_NORM = {"none": None, "min-max": "min-max", "z-score": "zmuv", "sum": "sum", "max": "max", "rank": "rank"}


@pytest.mark.slow  # ranx JIT-compiles each fusion and normalisation on first use: about a minute per process
@pytest.mark.parametrize(
    "names",
    [["smith.bm25", "sab20.1.meta.docs", "T5R1", "PL2c1.0"], ["smith.ql", "run1", "BERT", "Tetralogie0Fr"]],
    ids=["positive-scores", "negative-scores"],
)
def test_fuse_equals_ranx_on_four_trec_covid_runs(covid_dir, names):
    try:
        import ranx  # noqa: F401
    except ImportError:
        message = "ranx is not installed (it is in the 'test' extra: pip install -e '.[test]')"
        if IN_CI:
            pytest.fail(message + "; CI=true requires it", pytrace=False)
        pytest.skip(message)
    from ranx import fuse as ranx_fuse

    run = _covid(covid_dir, names)
    compared = 0
    for method in METHODS:
        for norm in ["none"] if method in ("rrf", "borda") else SCORE_NORMS:
            if norm == "max" and names[0] == "smith.ql":
                continue  # ranx divides by max(max, 1e-9), which reverses nothing only for positive scores: see below
            weights = WEIGHTS if method == "wsum" else None
            ours = rankviz.fuse(run, method, norm=None if method in ("rrf", "borda") else norm, weights=weights)
            theirs = ranx_fuse(
                _ranx_runs(run, method in ("rrf", "borda") or norm == "rank"),
                norm=None if method in ("rrf", "borda") else RANX_NORM[norm],
                method=RANX_METHOD[method],
                params={"weights": WEIGHTS} if method == "wsum" else {},
            )
            want = {(q, d): v for q, docs in theirs.to_dict().items() for d, v in docs.items()}
            _assert_same(_as_dict(ours), want, rtol=1e-8)
            compared += 1
    assert compared == (38 if names[0] == "smith.bm25" else 32)


def test_max_norm_keeps_the_order_of_negative_scores_where_ranx_would_not():
    run = pd.DataFrame(
        {
            "system": ["a"] * 3 + ["b"] * 2,
            "query_id": "q",
            "doc_id": ["x", "y", "z", "x", "y"],
            "score": [-1.0, -2.0, -4.0, 2.0, 1.0],
        }
    )
    fused = rankviz.fuse(run, "combsum", norm="max")
    values = _as_dict(fused)
    assert values["q", "x"] == pytest.approx(-0.25 + 1.0) and values["q", "z"] == pytest.approx(-1.0)
    assert fused["doc_id"].tolist() == ["x", "y", "z"]


def test_ties_are_broken_by_doc_id_descending_as_trec_eval():
    run = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b"],
            "query_id": "q",
            "doc_id": ["d1", "d2", "d2", "d1"],
            "score": [1.0, 1.0, 5.0, 5.0],
        }
    )
    fused = rankviz.fuse(run, "rrf")
    # In both lists d2 ranks first (equal scores, doc id descending), so d2 wins.
    assert fused["doc_id"].tolist() == ["d2", "d1"] and fused["rank"].tolist() == [1, 2]
    assert (
        rankviz.evaluate(fused, "RR", pd.DataFrame({"query_id": ["q"], "doc_id": ["d2"], "relevance": [1]}))[
            "RR"
        ].item()
        == 1.0
    )


def test_missing_documents_count_as_each_method_says():
    run = pd.DataFrame(
        {"system": ["a", "a", "b"], "query_id": "q", "doc_id": ["x", "y", "y"], "score": [2.0, 1.0, 3.0]}
    )
    values = lambda method, **kw: _as_dict(rankviz.fuse(run, method, **kw))  # noqa: E731
    assert values("combmnz", norm="none") == {("q", "x"): 2.0, ("q", "y"): 8.0}
    assert values("combanz", norm="none") == {("q", "x"): 2.0, ("q", "y"): 2.0}
    assert values("combmin", norm="none") == {("q", "x"): 2.0, ("q", "y"): 1.0}
    assert values("combsum", norm="none") == {("q", "x"): 2.0, ("q", "y"): 4.0}
    # Borda: two candidates; b missed x, so x gets b's leftover points (2 - 1 + 1) / 2 = 1.
    assert values("borda") == {("q", "x"): 2.0 + 1.0, ("q", "y"): 1.0 + 2.0}
    assert values("rrf", rrf_k=0) == {("q", "x"): 1.0, ("q", "y"): 0.5 + 1.0}


def test_output_is_a_run_with_the_inputs_column_names_and_id_types():
    run = pd.DataFrame(
        {"tag": ["a", "a", "b", "b"], "qid": [1, 1, 1, 2], "docno": ["x", "y", "x", "z"], "score": [2.0, 1.0, 1.0, 3.0]}
    )
    fused = rankviz.fuse(run, "combsum", name="both")
    assert list(fused.columns) == ["tag", "qid", "docno", "score", "rank"]
    assert fused["qid"].dtype == run["qid"].dtype and set(fused["tag"]) == {"both"}
    assert fused["qid"].tolist() == [1, 1, 2] and fused["rank"].tolist() == [1, 2, 1]
    assert len(pd.concat([run.assign(rank=0), fused])) == 7
    assert run.columns.tolist() == ["tag", "qid", "docno", "score"]  # the caller's frame is untouched
    cut = rankviz.fuse(run, "rrf", depth=1)
    assert set(cut["docno"]) == {"x", "z"}
    by_rank = rankviz.fuse(run.drop(columns="score").assign(rank=[1, 2, 1, 1]), "rrf")
    assert _as_dict(by_rank.rename(columns={"qid": "query_id", "docno": "doc_id"})) == pytest.approx(
        _as_dict(rankviz.fuse(run, "rrf").rename(columns={"qid": "query_id", "docno": "doc_id"}))
    )


def test_bad_input_names_the_problem_and_the_fix():
    run = _small_run()
    with pytest.raises(rankviz.InputError, match="combines ranks, not scores"):
        rankviz.fuse(run, "rrf", norm="min-max")
    with pytest.raises(rankviz.InputError, match="Did you mean 'combmnz'"):
        rankviz.fuse(run, "combmnzz")
    with pytest.raises(rankviz.ColumnError, match="system column"):
        rankviz.fuse(run.drop(columns="system"))
    with pytest.raises(rankviz.InputError, match="one system"):
        rankviz.fuse(run[run["system"] == "a"])
    with pytest.raises(rankviz.DuplicateError, match="system 'a' retrieves doc 'd1' more than once for query 'q1'"):
        rankviz.fuse(pd.concat([run, run.iloc[[0]]]))
    with pytest.raises(rankviz.InputError, match="no weight for system 'c'"):
        rankviz.fuse(run, "wsum", weights={"a": 1, "b": 2})
    with pytest.raises(rankviz.InputError, match="takes no weights"):
        rankviz.fuse(run, "combmax", weights=[1, 1, 1])
    with pytest.raises(rankviz.InputError, match=">= 0"):
        rankviz.fuse(run, "wsum", weights=[1, -1, 1])
    with pytest.raises(rankviz.ColumnError, match="needs scores"):
        rankviz.fuse(run.drop(columns="score").assign(rank=1), "combsum")
    assert rankviz.fuse(run, "CombSUM", norm="min_max").equals(rankviz.fuse(run, "combsum", norm="min-max"))


def test_weights_by_dict_equal_weights_in_system_order():
    run = _small_run()
    by_dict = rankviz.fuse(run, "wsum", weights={"c": 0.3, "a": 0.2, "b": 0.5})
    by_list = rankviz.fuse(run, "wsum", weights=[0.2, 0.5, 0.3])
    pd.testing.assert_frame_equal(by_dict, by_list)


# ---------------------------------------------------------------------------- tune


@pytest.fixture(scope="module")
def two_systems():
    run, qrels, _ = load_example()
    keep = run["system"].isin(["bm25", "tfidf"]) & (run["query_id"] < "q0150")
    return run[keep].reset_index(drop=True), qrels


def test_tune_cross_validates_by_query(two_systems):
    run, qrels = two_systems
    result = fusion.tune(run, qrels, measure="nDCG@10", grid=0.25, folds=4, rng=0, missing="drop")
    assert len(result.grid) == 5 and result.grid[["bm25", "tfidf"]].sum(axis=1).eq(1).all()
    # In-sample: the best grid mean; the CV estimate: each query scored by weights chosen without its fold.
    assert result.in_sample == pytest.approx(result.grid["mean"].max())
    assert result.cv_estimate <= result.in_sample + 1e-12
    pq = result.per_query
    assert sorted(pq["fold"].unique().tolist()) == [0, 1, 2, 3]
    for f, weights in enumerate(result.fold_weights):
        per_candidate = {}
        for w_bm25 in (0.0, 0.25, 0.5, 0.75, 1.0):
            fused = rankviz.fuse(run, "wsum", weights={"bm25": w_bm25, "tfidf": 1 - w_bm25})
            table = rankviz.evaluate(fused, "nDCG@10", qrels, per_query=True, missing="drop").set_index("query_id")[
                "nDCG@10"
            ]
            per_candidate[w_bm25] = table
        train = pq.loc[pq["fold"] != f, "query_id"]
        best = max(per_candidate, key=lambda w: (per_candidate[w].loc[train].mean(), -abs(w - 0.5)))
        assert weights["bm25"] == best
        held = pq[pq["fold"] == f]
        np.testing.assert_allclose(held["cross_validated"], per_candidate[best].loc[held["query_id"]].to_numpy())
    assert result.uniform == pytest.approx(per_candidate[0.5].mean())
    assert "cross-validated" in repr(result) and result.optimism >= 0


def test_tune_is_reproducible_and_checks_its_options(two_systems):
    run, qrels = two_systems
    one = fusion.tune(run, qrels, method="rrf", measure="RR@10", grid=0.5, folds=3, rng=7, missing="drop")
    two = fusion.tune(
        run.sample(frac=1.0, random_state=2),
        qrels,
        method="rrf",
        measure="RR@10",
        grid=0.5,
        folds=3,
        rng=7,
        missing="drop",
    )
    pd.testing.assert_frame_equal(one.per_query, two.per_query)
    assert one.measure == "RR@10"
    with pytest.raises(rankviz.InputError, match="divide 1 into equal steps"):
        fusion.tune(run, qrels, grid=0.3)
    with pytest.raises(rankviz.InputError, match="takes no weights"):
        fusion.tune(run, qrels, method="combmax")
    with pytest.raises(rankviz.InputError, match="'folds' parameter"):
        fusion.tune(run, qrels, folds=1)
    with pytest.raises(rankviz.UnknownOptionError, match="Did you mean 'measure'"):
        fusion.tune(run, qrels, measures="AP")
    with pytest.raises(rankviz.InputError, match="weightings"):
        fusion.weight_grid(8, 0.05)


def test_rrf_constant_is_rrf_k_and_k_is_not_a_keyword_of_fuse_or_tune():
    run = pd.DataFrame(
        {"system": ["a", "a", "b", "b"], "query_id": "q", "doc_id": ["x", "y", "y", "x"], "score": [2.0, 1.0, 2.0, 1.0]}
    )
    assert (
        "rrf_k" in inspect.signature(rankviz.fuse).parameters and "k" not in inspect.signature(rankviz.fuse).parameters
    )
    assert "rrf_k" in inspect.signature(rankviz.fusion.tune).parameters
    fused = rankviz.fuse(run, "rrf", rrf_k=0)
    assert fused["score"].tolist() == [1.5, 1.5]  # 1/(0+1) + 1/(0+2) for both documents
    for call in (lambda: rankviz.fuse(run, "rrf", k=60), lambda: rankviz.fusion.tune(run, {"q": {"x": 1}}, k=60)):
        with pytest.raises(TypeError, match=r"\bk\b"):
            call()
