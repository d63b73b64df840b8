"""rankviz.changes: per-query differences, relevant documents in and out of the top k, RBO and tau_AP."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.evaluation.changes import pair_reading, rank_biased_overlap, tau_ap


def two_systems() -> tuple[pd.DataFrame, pd.DataFrame]:
    """q1: the reranker lifts relevant 'r1' from rank 3 to 1 (same top 3); q2: 'r2' leaves the top 2."""
    rows = []
    for system, q, docs in [
        ("base", "q1", ["a", "b", "r1", "c"]),
        ("new", "q1", ["r1", "a", "b", "c"]),
        ("base", "q2", ["r2", "x", "y"]),
        ("new", "q2", ["x", "y", "r2"]),
        ("base", "q3", ["m", "n"]),
        ("new", "q3", ["m", "n"]),
    ]:
        for i, d in enumerate(docs):
            rows.append({"system": system, "query_id": q, "doc_id": d, "score": float(10 - i)})
    qrels = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["r1", "r2", "zz"], "relevance": [1, 2, 1]})
    return pd.DataFrame(rows), qrels


def test_entered_left_and_moves_per_query():
    run, qrels = two_systems()
    table = rankviz.changes(run, qrels, system="new", baseline="base", k=2).set_index("query_id")
    assert table.loc["q1", "delta"] == pytest.approx(1.0 - 0.0)  # RR@2: 0 -> 1
    assert table.loc["q1", "entered"] == ("r1",) and table.loc["q1", "left"] == ()
    assert table.loc["q1", "moves"] == (("r1", 3, 1),)
    assert table.loc["q2", "delta"] == pytest.approx(-1.0)
    assert table.loc["q2", "left"] == ("r2",) and table.loc["q2", "moves"] == (("r2", 1, 3),)
    assert table.loc["q3", "outcome"] == "unchanged" and table.loc["q3", "rbo"] == pytest.approx(1.0)
    assert list(table["outcome"]) == ["hurt", "unchanged", "helped"]  # most hurt first
    meta = table.attrs["rankviz"]
    assert (meta["helped"], meta["hurt"], meta["unchanged"]) == (1, 1, 1)


def test_the_reranker_reading_recall_unchanged_mrr_up():
    run, qrels = two_systems()
    run = run[run["query_id"] != "q2"]
    table = rankviz.changes(run, qrels, system="new", baseline="base", k=3)
    meta = table.attrs["rankviz"]
    assert meta["recall_delta"] == 0 and meta["rr_delta"] > 0
    # two queries: the rise is not significant, so no verdict (the example's 600 queries give one, below)
    assert meta["reading"].endswith("no clear difference (+0.2222): no clear difference.")
    assert "reranker is working" in pair_reading(0.0, 0.2222, k=3)
    assert "retrieval lost" in pair_reading(-0.1, -0.2, k=10)


def test_accessor_and_dict_of_runs_give_the_same_table():
    run, qrels = two_systems()
    before = run.copy()
    direct = rankviz.changes(run, qrels, system="new", baseline="base", measure="nDCG@3", k=3)
    via = run.rank.changes(qrels=qrels, system="new", baseline="base", measure="nDCG@3", k=3)
    frames = {name: part.drop(columns="system") for name, part in run.groupby("system")}
    as_dict = rankviz.changes(frames, qrels, system="new", baseline="base", measure="nDCG@3", k=3)
    pd.testing.assert_frame_equal(direct, via)
    pd.testing.assert_frame_equal(direct, as_dict)
    pd.testing.assert_frame_equal(run, before)
    per_query = rankviz.evaluate(run, "nDCG@3", qrels, per_query=True).pivot(index="query_id", columns="system")
    expected = (per_query[("nDCG@3", "new")] - per_query[("nDCG@3", "base")]).sort_index()
    np.testing.assert_allclose(direct.set_index("query_id")["delta"].sort_index(), expected)


def test_bad_systems_are_named():
    run, qrels = two_systems()
    with pytest.raises(rankviz.InputError, match="unknown system 'old'"):
        rankviz.changes(run, qrels, system="new", baseline="old")
    with pytest.raises(rankviz.InputError, match="two different"):
        rankviz.changes(run, qrels, system="new", baseline="new")
    with pytest.raises(rankviz.InputError, match="system column"):
        rankviz.changes(run[run.system == "new"].drop(columns="system"), qrels, system="new", baseline="base")


def rbo_by_definition(s, t, p):
    """Webber, Moffat & Zobel (2010) eq. 32, written from the paper with sets: L the longer list, S the shorter."""
    big, small = (s, t) if len(s) >= len(t) else (t, s)
    n_long, k = len(big), len(small)
    x = {d: len(set(big[:d]) & set(small[:d])) for d in range(1, n_long + 1)}
    first = sum(x[d] / d * p**d for d in range(1, n_long + 1))
    extrapolated = sum(x[k] * (d - k) / (k * d) * p**d for d in range(k + 1, n_long + 1))
    return (1 - p) / p * (first + extrapolated) + ((x[n_long] - x[k]) / n_long + x[k] / k) * p**n_long


def rbo_equal_length(s, t, p):
    k = len(s)
    overlap = [len(set(s[:d]) & set(t[:d])) for d in range(1, k + 1)]
    return overlap[-1] / k * p**k + (1 - p) / p * sum(x / d * p**d for d, x in enumerate(overlap, start=1))


@pytest.mark.parametrize("seed", range(40))
def test_rbo_equals_eq_32_on_lists_of_any_lengths(seed):
    rng = np.random.default_rng(seed)
    pool = list("abcdefghijkl")
    s = list(rng.choice(pool, size=int(rng.integers(1, 9)), replace=False))
    t = list(rng.choice(pool, size=int(rng.integers(1, 9)), replace=False))
    p = float(rng.choice([0.5, 0.8, 0.9, 0.98]))
    assert rank_biased_overlap(s, t, p=p) == pytest.approx(rbo_by_definition(s, t, p), abs=1e-12)
    assert rank_biased_overlap(s, t, p=p) == pytest.approx(rank_biased_overlap(t, s, p=p), abs=1e-12)
    assert -1e-12 <= rank_biased_overlap(s, t, p=p) <= 1 + 1e-12
    assert rank_biased_overlap(s, s) == pytest.approx(1.0)
    u = list(rng.permutation(s))  # equal lengths: eq. 32 is the familiar formula
    assert rank_biased_overlap(s, u, p=p) == pytest.approx(rbo_equal_length(s, u, p), abs=1e-12)


def test_a_short_list_that_agrees_with_the_other_s_top_has_rbo_1():
    assert rank_biased_overlap(["a", "b"], ["a", "b", "c", "d", "e"]) == pytest.approx(1.0, abs=1e-12)
    assert rank_biased_overlap(list("abcdefghij"), ["a"]) == pytest.approx(1.0, abs=1e-12)
    assert rank_biased_overlap([], ["a"]) == 0.0 and math.isnan(rank_biased_overlap([], []))


@pytest.mark.parametrize(
    "first,second,p,expected",
    [  # the rbo package (0.1.3), RankingSimilarity(first, second).rbo_ext(p), computed once by hand
        (["a", "c", "x"], ["a", "b", "c", "d", "e"], 0.9, 0.685),
        (list("abcdefghij"), ["a", "b", "q", "d"], 0.9, 0.79075),
        (["x", "y", "z"], ["y", "x", "w", "z", "v", "u"], 0.8, 0.683264),
    ],
)
def test_rbo_matches_the_rbo_package_on_lists_of_different_lengths(first, second, p, expected):
    assert rank_biased_overlap(first, second, p=p) == pytest.approx(expected, abs=1e-12)


def tau_ap_brute(ranking, reference):
    shared = [d for d in ranking if d in reference]
    n = len(shared)
    total = sum(sum(reference.index(shared[j]) < reference.index(shared[i]) for j in range(i)) / i for i in range(1, n))
    return 2 * total / (n - 1) - 1


def test_tau_ap_identity_reversal_and_brute_force():
    items = list("abcde")
    assert tau_ap(items, items) == 1.0 and tau_ap(items[::-1], items) == -1.0
    for perm in itertools.permutations(items):
        assert tau_ap(list(perm), items) == pytest.approx(tau_ap_brute(list(perm), items))
    assert math.isnan(tau_ap(["a", "x"], ["a", "y"]))
    # a swap at the top costs more than a swap at the bottom (unlike Kendall's tau)
    assert tau_ap(list("bacde"), items) < tau_ap(list("abced"), items)


# ----------------------------------------------------------------------------- the explorer, side by side


def test_explorer_side_by_side_marks_moved_relevant_documents():
    from rankviz.widgets import ExplorerModel

    run, qrels = two_systems()
    model = ExplorerModel(run, qrels, k=3)
    mine, theirs = model.side_by_side("new", "base", "q1", 3)
    assert mine["doc_id"].tolist() == ["r1", "a", "b"] and mine["moved"].tolist() == ["\u25b2 from 3", "", ""]
    assert theirs["moved"].tolist() == ["", "", "\u25b2 to 1"]
    mine, theirs = model.side_by_side("new", "base", "q2", 2)
    assert mine["moved"].tolist() == ["", ""] and theirs["moved"].tolist() == ["\u25bc to 3", ""]
    with pytest.raises(rankviz.InputError, match="two different systems"):
        model.side_by_side("new", "new", "q1", 3)
    ui = rankviz.widgets.explore(run, qrels, k=3, system="new", baseline="base")
    ui.select("q1")
    assert "rankviz-side-baseline" in ui.table.value and ui.table.value.count("rankviz-moved-up") == 2
    ui.baseline.value = rankviz.widgets.explorer.NO_BASELINE
    assert "rankviz-side-by-side" not in ui.table.value


def systems_of_the_example(n: int) -> pd.DataFrame:
    run, _, _ = rankviz.datasets.load_example()
    names = ["bm25", "bm25+rerank", "rrf", "tfidf"]
    parts = [run[run["system"] == names[i % 4]].assign(system=f"system {i + 1:02d} <{names[i % 4]}>") for i in range(n)]
    return pd.concat(parts, ignore_index=True)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 5, 20])
def test_side_by_side_in_a_real_browser(n, tmp_path):
    """The snapshot of the side-by-side view in headless Chromium: two lists side by side, moves marked."""
    from tests.widgets.test_browser import CHROMIUM, CHROMIUM_ARGS, ROOT, _check_requirements

    _check_requirements(("playwright",))
    from playwright.sync_api import expect, sync_playwright

    _, qrels, queries = rankviz.datasets.load_example()
    run = systems_of_the_example(n)
    systems = list(pd.unique(run["system"]))
    system, baseline = systems[min(1, n - 1)], (systems[0] if n > 1 else None)
    ui = rankviz.widgets.explore(run, qrels, queries=queries, system=system, baseline=baseline)
    ui.select("q0389")  # bm25 has its relevant documents at 14 and 13, the reranker at 1 and 7
    page_path = tmp_path / "side_by_side.html"
    page_path.write_text(f"<!doctype html><html><meta charset='utf-8'><body>{ui.snapshot_html()}</body></html>")
    shots = ROOT / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
            page.goto(page_path.as_uri(), wait_until="load")
            shown = page.locator(".rankviz-panel-table:not([hidden])")
            if baseline is None:
                expect(shown.locator(".rankviz-side-by-side")).to_have_count(0)
                expect(shown.locator("table.rankviz-ranked-list tbody tr")).to_have_count(10)
            else:
                left = shown.locator(".rankviz-side-baseline table").bounding_box()
                right = shown.locator(".rankviz-side-system table").bounding_box()
                assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 5
                expect(shown.locator(".rankviz-side-baseline")).to_contain_text(baseline)
                expect(shown.locator(".rankviz-side-system .rankviz-moved-up")).to_have_text(
                    ["\u25b2 from 14", "\u25b2 from 13"]
                )
                expect(shown.locator(".rankviz-side-baseline .rankviz-moved")).to_have_count(0)  # both were below 10
            page.screenshot(path=str(shots / f"side_by_side_{n}_systems.png"), full_page=True)
        finally:
            browser.close()


def test_a_reranker_that_finds_nothing_new_reads_as_a_reranker_at_work():
    # bm25+rerank reorders bm25's lists: R@10 rises (documents move into the top 10), the whole-list recall does
    # not; the reading compares the latter (it said 'retrieval improved' when it compared R@k)
    run, qrels, _ = rankviz.datasets.load_example()
    meta = rankviz.changes(run, qrels, system="bm25+rerank", baseline="bm25", k=10).attrs["rankviz"]
    assert meta["recall_delta"] == 0 and meta["rr_delta"] > 0
    assert meta["reading"].startswith("recall unchanged, MRR@10 up") and "reranker is working" in meta["reading"]
    r10 = rankviz.evaluate(run, ["R@10"], qrels)["R@10"]
    assert r10["bm25+rerank"] > r10["bm25"]  # what made the old reading wrong


def test_the_table_shows_words_not_raw_tuples():
    """A page shows 'r1: rank 3 -> 1' and 'none', never '(('r1', 3, 1),)' or '()'; the cells keep their tuples."""
    run, qrels = two_systems()
    run.loc[run["doc_id"] == "r2", "doc_id"] = "<b>r2</b>"
    qrels.loc[qrels["doc_id"] == "r2", "doc_id"] = "<b>r2</b>"
    table = rankviz.changes(run, qrels, system="new", baseline="base", k=2)
    shown = table.sort_values("query_id").head(3)[["query_id", "entered", "left", "moves"]]
    html, text = shown._repr_html_(), repr(shown)
    for page in (html, text):
        assert "()" not in page and "((" not in page and "('" not in page
    assert "r1: rank 3 -&gt; 1" in html and "r1: rank 3 -> 1" in text
    assert "&lt;b&gt;r2&lt;/b&gt;: rank 1 -&gt; 3" in html and "<b>" not in html  # ids escaped in HTML
    assert "none" in text
    q1 = table.set_index("query_id").loc["q1"]
    assert q1["moves"] == (("r1", 3, 1),) and q1["left"] == ()  # the data are unchanged
    assert isinstance(shown, pd.DataFrame) and shown.to_string().count("none") >= 2
    gone = rankviz.changes(
        pd.concat([run, pd.DataFrame([{"system": "base", "query_id": "q4", "doc_id": "r4", "score": 9.0}])]),
        pd.concat([qrels, pd.DataFrame([{"query_id": "q4", "doc_id": "r4", "relevance": 1}])]),
        system="new",
        baseline="base",
        k=2,
    )
    assert "r4: rank 1 -> not retrieved" in repr(gone[gone["query_id"] == "q4"][["moves"]])
