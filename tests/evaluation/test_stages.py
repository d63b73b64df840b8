"""rankviz.stages: the attribution against a plain-Python reference, the counts, planted faults, refusals."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from rankviz import DuplicateError, InputError, RankvizWarning

DOCS = [f"d{i}" for i in range(8)]
FAST = {"n_resamples": 200, "rng": 0}


# ----------------------------------------------------------------------------- the reference, plain Python


def trec_order(scored: dict) -> list:
    """Doc ids by score descending, then doc id descending (trec_eval's tie break)."""
    return [doc for doc, score in sorted(scored.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def reference(pipeline: list, depths: list, qrels: dict, queries: list):
    """{(query, doc): (lost_at, reason)} and {query: lost_at} computed over plain lists.

    ``pipeline`` is a list of (name, {query: list or set}) with each list already in rank order.
    """
    names = [name for name, _ in pipeline]
    whole = [{q: lists.get(q, []) for q in queries} for _, lists in pipeline]
    ordered = [not isinstance(next(iter(lists.values()), []), set) for _, lists in pipeline]
    held = []
    for s, stage in enumerate(whole):
        cut = depths[s]
        held.append({q: (list(ids) if cut is None else list(ids)[:cut]) for q, ids in stage.items()})

    def rank(s, q, doc):
        return held[s][q].index(doc) + 1 if doc in held[s][q] else None

    out_docs, out_queries = {}, {}
    for q in queries:
        relevant = sorted(d for d, g in qrels.get(q, {}).items() if g >= 1)
        for doc in relevant:
            stages_holding = [s for s in range(len(names)) if doc in held[s][q]]
            if names and len(names) - 1 in stages_holding:
                out_docs[q, doc] = ("kept", "kept")
                continue
            if not stages_holding:
                out_docs[q, doc] = (names[0], "never retrieved")
                continue
            last = stages_holding[-1]
            after = last + 1
            if not ordered[after]:
                out_docs[q, doc] = (names[after], "not kept")
            elif len(whole[after][q]) == 0:
                out_docs[q, doc] = (names[after], "empty stage")
            else:
                k = depths[after] if depths[after] is not None else len(whole[after][q])
                if rank(last, q, doc) <= k:
                    out_docs[q, doc] = (names[after], "demoted" if doc in whole[after][q] else "dropped")
                elif last > 0 and rank(last - 1, q, doc) is not None and rank(last - 1, q, doc) <= k:
                    out_docs[q, doc] = (names[last], "demoted")
                else:
                    out_docs[q, doc] = (names[after], "below depth")
        if not relevant:
            out_queries[q] = None
            continue
        first = [d for d in held[0][q] if d in relevant]
        out_queries[q] = out_docs[q, first[0]][0] if first else names[0]
    return out_docs, out_queries


# ----------------------------------------------------------------------------- generated pipelines


@st.composite
def pipelines(draw):
    n_queries = draw(st.integers(1, 5))
    queries = [f"q{i}" for i in range(n_queries)]
    scores = st.integers(0, 2)  # few values: ties everywhere
    retrieved = {q: {d: draw(scores) for d in draw(st.lists(st.sampled_from(DOCS), unique=True))} for q in queries}
    reranked = {}
    for q in queries:
        pool = list(retrieved[q]) + draw(st.lists(st.sampled_from(DOCS), max_size=2))  # may add documents
        keep = draw(st.lists(st.sampled_from(pool), unique=True)) if pool else []
        reranked[q] = {d: draw(scores) for d in keep}
    context = {q: draw(st.permutations(trec_order(reranked[q])))[: draw(st.integers(0, 4))] for q in queries}
    with_cited = draw(st.booleans())
    cited = {q: set(draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=3))) for q in queries}
    depths = [None, draw(st.none() | st.integers(1, 5)), draw(st.none() | st.integers(1, 3))]
    qrels = {
        q: {d: draw(st.integers(0, 2)) for d in draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=4))}
        for q in queries
    }
    qrels[queries[0]].setdefault("zz", 0)  # never an empty qrels frame (refused: nothing to follow)
    return queries, retrieved, reranked, context, (cited if with_cited else None), depths, qrels


def _long(scored: dict) -> pd.DataFrame:
    rows = [(q, d, float(s)) for q, docs in scored.items() for d, s in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pipelines())
def test_attribution_equals_the_plain_python_reference(case):
    queries, retrieved, reranked, context, cited, depths, qrels = case
    runs = {"retrieved": _long(retrieved), "reranked": _long(reranked), "context": context}
    plain = [
        ("retrieved", {q: trec_order(retrieved[q]) for q in queries}),
        ("reranked", {q: trec_order(reranked[q]) for q in queries}),
        ("context", context),
    ]
    if cited is not None:
        runs["cited"] = cited
        plain.append(("cited", cited))
    depth_list = depths + [None] * (len(plain) - 3)
    named = {n: k for (n, _), k in zip(plain, depth_list) if k is not None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankvizWarning)
        result = rankviz.stages(runs, qrels, depths=named, missing="empty", **FAST)
    expected_docs, expected_queries = reference(plain, depth_list, qrels, queries)
    got = {
        (q, d): (str(lost), str(reason))
        for q, d, lost, reason in result.documents[["query_id", "doc_id", "lost_at", "reason"]].itertuples(index=False)
    }
    assert got == expected_docs
    lost_at = dict(zip(result.queries["query_id"], result.queries["lost_at"]))
    assert {q: (None if pd.isna(v) else str(v)) for q, v in lost_at.items()} == expected_queries
    # counts add up exactly: lost at each stage plus kept = the relevant documents at the start
    counts = result.counts()
    n_relevant = sum(1 for q in queries for g in qrels[q].values() if g >= 1)
    assert int(counts["total"].sum()) == n_relevant == len(result.documents)
    assert int(counts.loc["kept", "total"]) == sum(1 for v in expected_docs.values() if v[0] == "kept")
    # a query with no relevant document is said, not attributed
    assert set(result.unattributed) == {q for q, v in expected_queries.items() if v is None}
    assert set(result.lost_at.index) == {q for q, v in expected_queries.items() if v is not None}


# ----------------------------------------------------------------------------- examples


def test_the_issue_example_reads_as_a_template():
    retrieved = {"q17": [f"x{i}" for i in range(44)] + ["d3"] + [f"y{i}" for i in range(10)]}
    reranked = {"q17": [f"x{i}" for i in range(11)] + ["d3"] + [f"x{i}" for i in range(11, 30)]}
    result = rankviz.stages(
        {"retrieved": retrieved, "reranked": reranked, "context": {"q17": reranked["q17"][:5]}},
        {"q17": ["d3"]},
        **FAST,
    )
    row = result.queries.iloc[0]
    assert row["explanation"] == (
        "q17: d3 retrieved at 45 → reranked to 12 → context holds the top 5: lost at the context depth."
    )
    assert (row["lost_at"], row["reason"]) == ("context", "below depth")


def test_each_reason_of_the_issue():
    retrieved = {"q": ["a", "b", "c", "d", "e", "f"]}
    reranked = {"q": ["b", "d", "a", "c"]}  # e below the reranker's depth; f as well
    context = {"q": ["b", "d"]}  # a demoted by the reranker past the context budget (1 -> 3); c cut by it
    cited = {"q": {"d"}}  # b in the context but not cited
    qrels = {"q": ["a", "b", "c", "d", "e", "z"]}
    result = rankviz.stages(
        {"retrieved": retrieved, "reranked": reranked, "context": context, "cited": cited}, qrels, **FAST
    )
    got = result.documents.set_index("doc_id")[["lost_at", "reason"]].astype(str).apply(tuple, axis=1).to_dict()
    assert got == {
        "a": ("reranked", "demoted"),
        "b": ("cited", "not kept"),
        "c": ("context", "below depth"),
        "d": ("kept", "kept"),
        "e": ("reranked", "below depth"),
        "z": ("retrieved", "never retrieved"),
    }
    assert result.documents.set_index("doc_id").loc["b", "explanation"] == (
        "q: b retrieved at 2 → reranked to 1 → context to 1 → in context but not in cited: lost at cited."
    )
    assert result.queries.iloc[0]["lost_at"] == "reranked"  # a, the best-ranked relevant document at retrieval


def test_a_context_budget_given_as_k():
    run = {"q1": ["a", "b", "c", "d"], "q2": ["c", "d", "a", "b"]}
    reranked = {"q1": ["b", "c", "d", "a"], "q2": ["c", "d", "a", "b"]}
    result = rankviz.stages(
        {"retrieved": run, "reranked": reranked, "context": reranked},
        {"q1": ["a"], "q2": ["a"]},
        depths={"context": 2},
        **FAST,
    )
    assert result.lost_at.to_dict() == {"q1": "reranked", "q2": "context"}


def test_the_funnel_and_the_summary_agree_with_the_per_query_table():
    rng = random.Random(3)
    retrieved, reranked, qrels = {}, {}, {}
    for i in range(40):
        q = f"q{i}"
        docs = [f"{q}d{j}" for j in range(20)]
        rng.shuffle(docs)
        retrieved[q] = docs
        reranked[q] = docs[:10]
        qrels[q] = [docs[rng.randrange(20)]]
    result = rankviz.stages(
        {"retrieved": retrieved, "reranked": reranked, "context": {q: v[:3] for q, v in reranked.items()}},
        qrels,
        **FAST,
    )
    funnel = result.funnel().set_index(["stage", "measure"])
    for stage in result.names:
        part = result.per_query[result.per_query["system"] == stage]
        assert funnel.loc[(stage, "recall"), "estimate"] == pytest.approx(part["recall"].mean())
        low, high = funnel.loc[(stage, "recall"), ["ci_low", "ci_high"]]
        assert low <= part["recall"].mean() <= high
    summary = result.summary()
    assert summary["queries_lost"].sum() == 40
    assert result.reading().startswith(f"{summary['stage'].iloc[0]} loses the most queries")
    assert list(summary["queries_lost"].iloc[:-1]) == sorted(summary["queries_lost"].iloc[:-1], reverse=True)
    transitions = result.transitions()
    first = transitions[(transitions["after"] == "reranked") & (transitions["measure"] == "recall")].iloc[0]
    lost = sum(len(set(qrels[q]) & (set(retrieved[q]) - set(reranked[q]))) for q in qrels)
    assert first["docs_lost"] == lost and first["docs_gained"] == 0


def test_recall_unchanged_mrr_up_only_when_both_hold():
    n = 40
    retrieved = {f"q{i}": ["x", "y", "z", "w", f"r{i}"] for i in range(n)}
    reranked = {q: [ids[-1], *ids[:-1]] for q, ids in retrieved.items()}  # the same ids, the relevant one first
    qrels = {q: [ids[-1]] for q, ids in retrieved.items()}
    t = rankviz.stages({"retrieved": retrieved, "reranked": reranked}, qrels, **FAST).transitions()
    assert t.loc[t["measure"] == "recall", "reading"].item() == "recall unchanged, MRR up: the stage does real work"
    same = rankviz.stages({"retrieved": retrieved, "reranked": retrieved}, qrels, **FAST).transitions()
    assert same.loc[same["measure"] == "recall", "reading"].item() == "recall: no clear difference"


def test_a_jsonl_log_reads_in_one_call(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"query_id": "q1", "retrieved": ["a", "b", "c"], "reranked": ["b", "a"], "context": ["b"], "cited": [], '
        '"relevant": ["a"]}\n'
        '{"query_id": "q2", "retrieved": ["d", "e"], "reranked": ["e", "d"], "context": ["e"], "cited": ["e"], '
        '"relevant": ["e"]}\n'
    )
    log = rankviz.read_jsonl(path, stages=["retrieved", "reranked", "context", "cited"])
    result = rankviz.stages(log, unordered="cited", **FAST)
    assert result.lost_at.to_dict() == {"q1": "reranked", "q2": "kept"}
    assert result.documents["rank_cited"].tolist()[1] == 0  # in the unordered stage, without a rank


# ----------------------------------------------------------------------------- by= and failure_slices


def test_the_attribution_column_works_with_by_and_failure_slices():
    rng = random.Random(5)
    retrieved, reranked, qrels = {}, {}, {}
    for i in range(60):
        q = f"q{i}"
        docs = [f"{q}d{j}" for j in range(10)]
        rng.shuffle(docs)
        retrieved[q], qrels[q] = docs, [docs[i % 10]]
        reranked[q] = docs[:5] if i % 3 else docs[5:]
    result = rankviz.stages({"retrieved": retrieved, "reranked": reranked}, qrels, **FAST)
    run = pd.DataFrame(
        [(q, d, r) for q, ids in reranked.items() for r, d in enumerate(ids, start=1)],
        columns=["query_id", "doc_id", "rank"],
    )
    judged = {q: {d[0]: 1} for q, d in qrels.items()}
    sliced = rankviz.evaluate(run, "RR@10", qrels=judged, by=result.lost_at)
    assert set(sliced["lost_at"].astype(str)) <= {"retrieved", "reranked", "kept"}
    assert sliced.loc[sliced["lost_at"] == "reranked", "mean"].item() == 0.0
    per_query = rankviz.evaluate(run, "RR@10", qrels=judged, per_query=True)
    slices = rankviz.failure_slices(per_query, queries=result.queries[["query_id", "lost_at"]], attributes=["lost_at"])
    assert slices.iloc[0]["value"] == "reranked"


# ----------------------------------------------------------------------------- planted faults


def _simulated_pipeline(seed: int, n_queries: int = 200):
    """Retrieval misses 4% of the relevant documents and ranks 6% past the top 5; the reranker (top 30) lifts
    half of those into the context (k = 5) and keeps the rest where they were, except for the planted fault:
    it demotes 20% of the first relevant documents past the context budget. The generator cites the relevant
    document 95% of the time."""
    rng = random.Random(seed)
    retrieved, reranked, context, cited, qrels = {}, {}, {}, {}, {}
    for i in range(n_queries):
        q = f"q{i}"
        gold, others = f"{q}-gold", [f"{q}-{j}" for j in range(60)]
        rng.shuffle(others)
        qrels[q] = [gold]
        draw = rng.random()
        ranked = list(others[:50])
        if draw >= 0.04:
            ranked.insert(rng.randrange(0, 5) if draw >= 0.10 else rng.randrange(5, 30), gold)
        retrieved[q] = ranked[:50]
        top = [d for d in retrieved[q][:30] if d != gold]
        rng.shuffle(top)
        if gold in retrieved[q][:30]:
            before = retrieved[q].index(gold)
            if rng.random() < 0.2:
                where = rng.randrange(5, 29)  # the planted fault
            elif before >= 5 and rng.random() < 0.5:
                where = rng.randrange(0, 5)
            else:
                where = before
            top.insert(where, gold)
        reranked[q] = top
        context[q] = top[:5]
        cited[q] = {d for d in context[q] if d != gold or rng.random() > 0.05}
    return {"retrieved": retrieved, "reranked": reranked, "context": context, "cited": cited}, qrels


def test_a_planted_reranker_fault_is_named_first_in_every_simulated_pipeline():
    firsts = []
    for seed in range(200):
        runs, qrels = _simulated_pipeline(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankvizWarning)
            result = rankviz.stages(runs, qrels, n_resamples=50, rng=seed)
        summary = result.summary()
        firsts.append(summary["stage"].iloc[0])
        if seed < 3:
            assert result.reading().startswith("reranked loses the most queries")
        assert summary["queries_lost"].sum() == 200
    assert firsts == ["reranked"] * 200


# ----------------------------------------------------------------------------- refusals and what is said


def test_stages_over_different_query_sets_are_refused_with_the_counts():
    with pytest.raises(InputError, match=r"different query sets \('retrieved': 3, 'reranked': 2 queries; 3 in all"):
        rankviz.stages(
            {"retrieved": {"q1": ["a"], "q2": ["b"], "q3": ["c"]}, "reranked": {"q1": ["a"], "q2": ["b"]}},
            {"q1": ["a"]},
        )


def test_an_unordered_stage_before_the_last_is_refused():
    with pytest.raises(InputError, match="'context' is unordered .* not the last stage"):
        rankviz.stages({"retrieved": {"q": ["a", "b"]}, "context": {"q": {"a"}}, "cited": {"q": {"a"}}}, {"q": ["a"]})
    with pytest.raises(InputError, match="not the last stage"):
        rankviz.stages(
            {"retrieved": {"q": ["a"]}, "context": {"q": ["a"]}, "x": {"q": ["a"]}}, {"q": ["a"]}, unordered="context"
        )


def test_duplicates_are_refused_as_everywhere_else():
    run = pd.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(DuplicateError):
        rankviz.mrr(run, {"q": {"a": 1}})
    with pytest.raises(DuplicateError):
        rankviz.stages({"retrieved": run, "reranked": {"q": ["a"]}}, {"q": ["a"]})
    with pytest.raises(DuplicateError):
        rankviz.stages({"retrieved": {"q": ["a", "b", "a"]}, "reranked": {"q": ["a"]}}, {"q": ["a"]})
    kept = rankviz.stages({"retrieved": run, "reranked": {"q": ["a"]}}, {"q": ["a"]}, duplicates="first", **FAST)
    assert kept.documents["rank_retrieved"].tolist() == [1]


def test_a_deeper_stage_and_added_documents_are_allowed_and_said():
    with pytest.warns(RankvizWarning, match="deeper than 'retrieved'"):
        rankviz.stages(
            {"retrieved": {"q": ["a", "b", "c"]}, "reranked": {"q": ["a", "b", "c"]}},
            {"q": ["a"]},
            depths={"retrieved": 1},
            **FAST,
        )
    with pytest.warns(RankvizWarning, match="stage added documents: 'reranked' holds 1 id"):
        result = rankviz.stages({"retrieved": {"q": ["a", "b"]}, "reranked": {"q": ["c", "a"]}}, {"q": ["c"]}, **FAST)
    assert result.documents["lost_at"].astype(str).tolist() == ["kept"]


def test_other_bad_input_is_refused_clearly():
    with pytest.raises(InputError, match="at least two stages"):
        rankviz.stages({"retrieved": {"q": ["a"]}}, {"q": ["a"]})
    with pytest.raises(InputError, match="relevant documents are missing"):
        rankviz.stages({"a": {"q": ["a"]}, "b": {"q": ["a"]}})
    with pytest.raises(InputError, match="unknown stage"):
        rankviz.stages({"a": {"q": ["a"]}, "b": {"q": ["a"]}}, {"q": ["a"]}, depths={"c": 3})
    with pytest.raises(InputError, match="has no depth"):
        rankviz.stages({"a": {"q": ["a"]}, "b": {"q": {"a"}}}, {"q": ["a"]}, depths={"b": 3})
    nothing = rankviz.stages({"a": {"q": ["x"]}, "b": {"q": ["x"]}}, {"q": {"x": 0}}, **FAST)
    assert nothing.unattributed == ["q"] and nothing.summary().empty
    with pytest.raises(InputError, match="no query has a relevant document"):
        nothing.funnel()
    with pytest.raises(InputError, match="without stages="):
        log = rankviz.RetrievalLog(run=pd.DataFrame(), qrels=None, queries=None)
        rankviz.stages(log)


def test_the_callers_data_is_not_modified():
    runs = {"retrieved": {"q": ["a", "b"]}, "reranked": {"q": ["b", "a"]}}
    qrels = {"q": ["a"]}
    rankviz.stages(runs, qrels, **FAST)
    assert runs == {"retrieved": {"q": ["a", "b"]}, "reranked": {"q": ["b", "a"]}} and qrels == {"q": ["a"]}


def test_no_relevant_queries_are_said_not_attributed():
    result = rankviz.stages(
        {"retrieved": {"q1": ["a"], "q2": ["b"]}, "reranked": {"q1": ["a"], "q2": ["b"]}}, {"q1": ["a"]}, **FAST
    )
    assert result.unattributed == ["q2"]
    assert result.queries.set_index("query_id").loc["q2", "explanation"] == "q2: no relevant document: not attributed."
    assert "1 without a relevant document" in repr(result)
    assert np.isclose(result.funnel().query("measure == 'recall'")["n_queries"], 1).all()


def test_every_run_shape_gives_the_same_attribution(tmp_path):
    lists = {"q1": ["a", "b", "c", "d"], "q2": ["e", "f", "g"]}
    long = pd.DataFrame(
        [(q, d, float(10 - r)) for q, ids in lists.items() for r, d in enumerate(ids)],
        columns=["query_id", "doc_id", "score"],
    )
    path = tmp_path / "run.txt"
    rankviz.write_run(long.assign(system="bm25"), path)
    shapes = {
        "id lists": lists,
        "long frame": long,
        "per-query lists": pd.DataFrame({"query_id": list(lists), "retrieved": list(lists.values())}),
        "TREC file": path,
        "pytrec_eval dict": {q: {d: 10.0 - r for r, d in enumerate(ids)} for q, ids in lists.items()},
    }
    reranked = {"q1": ["c", "b"], "q2": ["e", "g"]}
    qrels = {"q1": {"a": 1, "c": 2, "z": 1}, "q2": {"g": 1}}
    tables = {
        name: rankviz.stages({"retrieved": run, "reranked": reranked}, qrels, **FAST).documents
        for name, run in shapes.items()
    }
    for name, table in tables.items():
        pd.testing.assert_frame_equal(table, tables["id lists"], obj=name)
    assert tables["id lists"]["lost_at"].astype(str).tolist() == ["reranked", "kept", "retrieved", "kept"]


def test_rel_sets_which_grades_are_relevant():
    runs = {"retrieved": {"q": ["a", "b"]}, "reranked": {"q": ["b"]}}
    qrels = {"q": {"a": 1, "b": 2}}
    assert len(rankviz.stages(runs, qrels, **FAST).documents) == 2
    strict = rankviz.stages(runs, qrels, rel=2, **FAST)
    assert strict.documents["doc_id"].tolist() == ["b"] and strict.lost_at.to_dict() == {"q": "kept"}
