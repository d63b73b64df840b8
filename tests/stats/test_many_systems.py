"""Many systems at once: randomized Tukey HSD, all-pairs tests, the significance table and its exports."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import stats
from rankviz.datasets import load_example

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")  # as in conftest.py

pytestmark = pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")


def _table(n_queries: int, systems, seed: int = 0, effects=None) -> pd.DataFrame:
    """A per-query table: a query effect shared by every system plus noise, and a shift per system."""
    gen = np.random.default_rng(seed)
    base = gen.uniform(0.1, 0.7, size=n_queries)
    rows = []
    for i, name in enumerate(systems):
        shift = 0.0 if effects is None else effects[i]
        values = np.clip(base + shift + gen.normal(0, 0.15, size=n_queries), 0, 1)
        rows.append(
            pd.DataFrame(
                {
                    "system": name,
                    "query_id": [f"q{j:03d}" for j in range(n_queries)],
                    "AP": values,
                    "nDCG@10": np.clip(values + gen.normal(0, 0.05, size=n_queries), 0, 1),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _brute_force_tukey(x: np.ndarray) -> np.ndarray:
    """Exact randomized Tukey HSD by enumerating every joint permutation of every query (plain loops)."""
    n, s = x.shape
    means = x.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    hits = np.zeros((s, s))
    total = 0
    for assignment in itertools.product(list(itertools.permutations(range(s))), repeat=n):
        permuted_means = [sum(x[q][assignment[q][j]] for q in range(n)) / n for j in range(s)]
        largest = max(permuted_means) - min(permuted_means)
        hits += largest >= observed - 1e-12
        total += 1
    p = hits / total
    np.fill_diagonal(p, 1.0)
    return p


# ---------------------------------------------------------------------------- randomized Tukey HSD


@pytest.mark.parametrize("n, s, seed", [(3, 3, 0), (4, 3, 1), (5, 3, 2), (3, 4, 3), (6, 2, 4)])
def test_tukey_exact_equals_brute_force_enumeration(n, s, seed):
    x = np.round(np.random.default_rng(seed).uniform(size=(n, s)), 2)  # rounding makes ties of the statistic likely
    p, exact = stats.tukey_hsd_p(x, 100_000, np.random.default_rng(0))
    assert exact
    np.testing.assert_allclose(p, _brute_force_tukey(x), rtol=0, atol=1e-12)


def test_tukey_monte_carlo_agrees_with_exact_within_its_error():
    x = np.random.default_rng(7).uniform(size=(5, 3)) + np.array([0.0, 0.15, 0.4])
    exact = _brute_force_tukey(x)
    p, is_exact = stats.tukey_hsd_p(x, 20_000, np.random.default_rng(1))
    assert not is_exact or 6**5 <= 20_000
    p_mc, was_exact = stats.tukey_hsd_p(x, 5_000, np.random.default_rng(1))
    assert not was_exact  # 6**5 = 7776 permutations > 5000 draws
    se = np.sqrt(exact * (1 - exact) / 5_000) + 1 / 5_001
    assert np.all(np.abs(p_mc - exact) <= 4 * se + 1e-12)
    np.testing.assert_allclose(p, exact, atol=1e-12)


def test_tukey_with_two_systems_is_the_sign_flip_test():
    table = _table(12, ["a", "b"], seed=3)
    tukey = stats.all_pairs(table, "AP", test="tukey", rng=0)
    flips = stats.all_pairs(table, "AP", test="randomization", correction=None, rng=0)
    assert tukey.attrs["rankviz"]["exact"] and flips.attrs["rankviz"]["exact"]  # 2**12 = 4096 <= 10000: both exact
    assert tukey["p_value"].item() == pytest.approx(flips["p_value"].item(), abs=1e-12)


def test_tukey_p_values_are_monotone_in_the_difference_and_never_below_plus_one_bound():
    table = _table(40, list("abcde"), seed=5, effects=[0, 0.02, 0.05, 0.1, 0.2])
    pairs = stats.all_pairs(table, "AP", n_resamples=999, rng=1)
    ordered = pairs.assign(gap=pairs["difference"].abs()).sort_values("gap")
    assert (np.diff(ordered["p_value"].to_numpy()) <= 1e-12).all()
    assert pairs["p_value"].min() >= 1 / 1000


def test_tukey_does_not_depend_on_row_or_system_order():
    table = _table(30, list("abcd"), seed=2)
    first = stats.all_pairs(table, ["AP", "nDCG@10"], rng=11)
    shuffled = table.sample(frac=1.0, random_state=4).reset_index(drop=True)
    second = stats.all_pairs(shuffled, ["nDCG@10", "AP"], rng=11)
    key = lambda f: {
        (m, frozenset((a, b))): p for m, a, b, p in zip(f["measure"], f["system"], f["other"], f["p_value"])
    }  # noqa: E731
    assert key(first) == key(second)


# ---------------------------------------------------------------------------- all-pairs tests and the letters


@pytest.mark.parametrize(
    "test, correction",
    [
        ("tukey", "auto"),
        ("randomization", "holm"),
        ("randomization", "bh"),
        ("t", "holm"),
        ("wilcoxon", "bh"),
        ("t", None),
    ],
)
def test_letters_are_the_corrected_p_values_below_alpha(test, correction):
    table = _table(30, ["bm25", "dense", "rrf", "splade", "tfidf"], seed=1, effects=[0, 0.08, 0.1, 0.04, -0.05])
    result = rankviz.stats.significance_table(
        table,
        ["AP", "nDCG@10"],
        test=test,
        correction=correction,
        alpha=0.05,
        n_resamples=2000,
        confidence_level=None,
        rng=3,
    )
    pairs = stats.all_pairs(table, ["AP", "nDCG@10"], test=test, correction=correction, n_resamples=2000, rng=3)
    pd.testing.assert_frame_equal(result.pairs.reset_index(drop=True), pairs.reset_index(drop=True), check_like=True)
    if correction in ("holm", "bh"):
        adjust = rankviz.stats.holm if correction == "holm" else rankviz.stats.benjamini_hochberg
        for measure, part in pairs.groupby("measure"):
            np.testing.assert_allclose(part["p_corrected"], adjust(part["p_value"].to_numpy()))
    else:
        np.testing.assert_array_equal(pairs["p_corrected"], pairs["p_value"])
    for measure in ("AP", "nDCG@10"):
        for system in result.systems:
            expected = set()
            for row in pairs[pairs["measure"] == measure].itertuples():
                if row.p_corrected < 0.05 and system in (row.system, row.other):
                    mine = row.difference if row.system == system else -row.difference
                    if mine > 0:
                        expected.add(row.other if row.system == system else row.system)
            assert set(result.better_than(system, measure)) == expected
            labels = dict(zip(result.systems, result.labels))
            assert result.letters(system, measure) == "".join(labels[s] for s in result.systems if s in expected)
    assert any(result.better_than(s, "AP") for s in result.systems)


def test_same_seed_same_table_with_2_and_with_10_systems():
    names = [f"sys{i}" for i in range(10)]
    table = _table(40, names, seed=9, effects=np.linspace(0, 0.12, 10))
    two = table[table["system"].isin(["sys0", "sys9"])]
    for test in ("randomization", "t"):
        big = stats.significance_table(table, ["AP", "nDCG@10"], test=test, correction=None, n_resamples=2000, rng=42)
        small = stats.significance_table(two, ["AP", "nDCG@10"], test=test, correction=None, n_resamples=2000, rng=42)
        pair = lambda r: r.pairs[(r.pairs["system"] == "sys0") & (r.pairs["other"] == "sys9")].reset_index(drop=True)  # noqa: E731
        pd.testing.assert_frame_equal(pair(big), pair(small))
        for m in ("AP", "nDCG@10"):
            assert set(big.better_than("sys9", m)) & {"sys0"} == set(small.better_than("sys9", m))
            for s in ("sys0", "sys9"):
                assert big.means.loc[s, m] == small.means.loc[s, m]
                assert (
                    big.ci_low.loc[s, m] == small.ci_low.loc[s, m] and big.ci_high.loc[s, m] == small.ci_high.loc[s, m]
                )
    # The same call twice (and with the systems in another order) gives the same table.
    again = stats.significance_table(table.iloc[::-1], ["AP"], rng=42, n_resamples=2000)
    once = stats.significance_table(table, ["AP"], rng=42, n_resamples=2000)
    key = lambda r: sorted(
        (tuple(sorted((a, b))), p) for a, b, p in zip(r.pairs["system"], r.pairs["other"], r.pairs["p_value"])
    )  # noqa: E731
    assert key(again) == key(once)


def test_a_generator_seed_is_reproducible_and_none_is_accepted():
    table = _table(20, list("abc"), seed=4)
    one = stats.all_pairs(table, "AP", rng=np.random.default_rng(5), n_resamples=500)
    two = stats.all_pairs(table, "AP", rng=np.random.default_rng(5), n_resamples=500)
    pd.testing.assert_frame_equal(one, two)
    assert len(stats.all_pairs(table, "AP", rng=None, n_resamples=500)) == 3


def test_table_from_runs_equals_the_table_of_the_per_query_table():
    run, qrels, _ = load_example()
    small = run[run["query_id"] < "q0080"]
    via_run = rankviz.table(small, ["RR@10", "nDCG@10"], qrels, rng=0, n_resamples=1000, missing="drop")
    via_accessor = small.rank.table(["RR@10", "nDCG@10"], qrels=qrels, rng=0, n_resamples=1000, missing="drop")
    per_query = rankviz.evaluate(small, ["RR@10", "nDCG@10"], qrels, per_query=True, missing="drop")
    direct = stats.significance_table(per_query, ["RR@10", "nDCG@10"], rng=0, n_resamples=1000)
    for other in (via_accessor, direct):
        pd.testing.assert_frame_equal(via_run.to_frame(), other.to_frame())
    assert via_run.systems == ("bm25", "bm25+rerank", "rrf", "tfidf")
    assert "Evaluation options" in small.rank.table.__doc__
    runs = {name: part.drop(columns="system") for name, part in small.groupby("system")}
    from_dict = rankviz.table(runs, "RR@10", qrels, rng=0, n_resamples=1000, missing="drop")
    assert set(from_dict.systems) == set(via_run.systems)


# ---------------------------------------------------------------------------- bad input


def test_bad_input_names_the_problem_and_the_fix():
    table = _table(10, list("abc"), seed=0)
    with pytest.raises(rankviz.InputError, match="already controls the family-wise error.*correction='auto'"):
        stats.significance_table(table, "AP", test="tukey", correction="holm")
    with pytest.raises(rankviz.InputError, match="Did you mean 'tukey'"):
        stats.all_pairs(table, "AP", test="tukee")
    lacking = table.drop(index=table[(table["system"] == "b") & (table["query_id"] == "q003")].index)
    with pytest.raises(rankviz.InputError, match=r"system 'b' lacks 1 of the 10 queries.*'q003'.*missing='zero'"):
        stats.all_pairs(lacking, "AP")
    with pytest.raises(rankviz.InputError, match="holds one system"):
        stats.all_pairs(table[table["system"] == "a"], "AP")
    with pytest.raises(rankviz.ColumnError, match="'system' column"):
        stats.all_pairs(table[table["system"] == "a"].drop(columns="system"), "AP")
    with pytest.raises(rankviz.ColumnError, match="no column for measure 'P@5'"):
        stats.all_pairs(table, "P@5")
    with pytest.raises(rankviz.InputError, match="'alpha' parameter"):
        stats.all_pairs(table, "AP", alpha=5)
    result = stats.significance_table(table, "AP", confidence_level=None, rng=0, n_resamples=200)
    with pytest.raises(rankviz.InputError, match="confidence_level=None"):
        result.to_latex(ci=True)
    with pytest.raises(KeyError, match="Unknown system 'zz'"):
        result.better_than("zz", "AP")


def test_zero_variance_pairs_are_not_significant_and_say_why():
    table = pd.DataFrame(
        {
            "system": ["a"] * 5 + ["b"] * 5 + ["c"] * 5,
            "query_id": [f"q{i}" for i in range(5)] * 3,
            "AP": [0.1, 0.2, 0.3, 0.4, 0.5] + [0.2, 0.3, 0.4, 0.5, 0.6] + [0.1, 0.2, 0.3, 0.4, 0.5],
        }
    )
    with pytest.warns(rankviz.DegenerateDataWarning, match="zero variance"):
        result = stats.significance_table(table, "AP", test="t", confidence_level=None)
    assert result.better_than("b", "AP") == ()
    assert any("every difference is zero" in n for n in result.notes)


# ---------------------------------------------------------------------------- exports

SNAPSHOT_TABLE = pd.DataFrame(
    {
        "system": ["bm25_v2"] * 6 + ["A&B <script>"] * 6 + ["100% dense"] * 6,
        "query_id": [f"q{i}" for i in range(6)] * 3,
        "AP": [0.2, 0.3, 0.1, 0.4, 0.2, 0.3] + [0.9, 0.8, 0.7, 0.9, 0.8, 0.9] + [0.5, 0.6, 0.4, 0.7, 0.5, 0.6],
        "RR@10": [0.5, 0.25, 0.0, 1.0, 0.2, 0.5] + [1.0, 1.0, 0.5, 1.0, 1.0, 1.0] + [1.0, 0.5, 0.5, 1.0, 0.5, 1.0],
    }
)

LATEX_SNAPSHOT = r"""\begin{table}[t]
\centering
\caption{Mean over 6 queries; superscripts name the systems each one is significantly better than (exact paired randomization test, Holm correction over the pairs of each measure, alpha = 0.1); the best per column is in bold; intervals are 95\% bootstrap intervals.}
\begin{tabular}{llrr}
\toprule
 & System & AP & RR@10 \\
\midrule
(a) & 100\% dense & 0.550$^{\mathrm{c}}$ {\scriptsize [0.467, 0.633]} & 0.750 {\scriptsize [0.583, 0.917]} \\
(b) & A\&B \textless{}script\textgreater{} & \textbf{0.833}$^{\mathrm{ac}}$ {\scriptsize [0.767, 0.883]} & \textbf{0.917} {\scriptsize [0.667, 1.000]} \\
(c) & bm25\_v2 & 0.250 {\scriptsize [0.167, 0.333]} & 0.408 {\scriptsize [0.200, 0.708]} \\
\bottomrule
\end{tabular}
\end{table}
"""

MARKDOWN_SNAPSHOT = """|  | system | AP | RR@10 |
|---|---|---:|---:|
| a | 100% dense | 0.55<sup>c</sup> | 0.75 |
| b | A&amp;B &lt;script&gt; | **0.83**<sup>ac</sup> | **0.92** |
| c | bm25\\_v2 | 0.25 | 0.41 |

Mean over 6 queries; superscripts name the systems each one is significantly better than (exact paired randomization test, Holm correction over the pairs of each measure, alpha = 0.1); the best per column is in bold.
"""


@pytest.fixture(scope="module")
def snapshot_result():
    return stats.significance_table(
        SNAPSHOT_TABLE, ["AP", "RR@10"], test="randomization", alpha=0.1, n_resamples=1000, rng=0
    )


def test_latex_snapshot_escapes_user_strings(snapshot_result):
    assert snapshot_result.to_latex(ci=True) == LATEX_SNAPSHOT


def test_markdown_snapshot_escapes_user_strings(snapshot_result):
    assert snapshot_result.to_markdown(digits=2) == MARKDOWN_SNAPSHOT


def test_markdown_caption_mentions_intervals_only_when_it_shows_them(snapshot_result):
    assert "intervals" not in snapshot_result.to_markdown()
    assert "intervals are 95% bootstrap intervals" in snapshot_result.to_markdown(ci=True)
    assert "intervals" not in snapshot_result.to_latex()
    assert "intervals are 95" in snapshot_result.to_latex(ci=True)


def test_markdown_keeps_each_hostile_name_in_its_own_cell_and_row():
    names = ["dense\nv2", "a|b", "$x$ cost", "\n\nblank\r\nlines\u2028end"]
    table = SNAPSHOT_TABLE.replace({"system": dict(zip(["bm25_v2", "A&B <script>", "100% dense"], names))})
    table = pd.concat([table, SNAPSHOT_TABLE[SNAPSHOT_TABLE["system"] == "bm25_v2"].assign(system=names[3])])
    text = stats.significance_table(table, ["AP"], test="t", confidence_level=None).to_markdown()
    rows = text.split("\n\n")[0].split("\n")
    assert len(rows) == 2 + len(names)  # header, rule, one line per system: no name broke its row
    assert all(row.count("|") - row.count("\\|") == 4 for row in rows[2:]), rows  # 3 cells each, no extra |
    assert "dense<br>v2" in text and "a\\|b" in text and "\\$x\\$ cost" in text
    assert "<br><br>blank<br>lines<br>end" in text


def test_letters_follow_sorted_names_or_the_categories_never_the_row_order():
    table = _table(30, ["zeta", "alpha", "mid"], seed=3, effects=[0.4, 0.0, 0.2])
    shuffled = table.sample(frac=1.0, random_state=1).reset_index(drop=True)
    for frame in (table, shuffled, table.iloc[::-1]):
        result = stats.significance_table(frame, ["AP"], confidence_level=None, rng=0)
        assert result.systems == ("alpha", "mid", "zeta") and result.labels == ("a", "b", "c")
        assert result.letters("zeta", "AP") == "ab"
    chosen = table.assign(system=pd.Categorical(table["system"], categories=["zeta", "mid", "alpha"]))
    result = stats.significance_table(chosen.sample(frac=1.0, random_state=2), ["AP"], confidence_level=None, rng=0)
    assert result.systems == ("zeta", "mid", "alpha") and result.letters("zeta", "AP") == "bc"


def test_html_escapes_user_strings_and_marks_the_best(snapshot_result):
    page = snapshot_result._repr_html_()
    assert "<script>" not in page and "A&amp;B &lt;script&gt;" in page
    assert "<b>0.8333</b><sup>ac</sup>" in page and "<small>[" in page


def test_latex_structure_is_a_booktabs_table(snapshot_result):
    text = snapshot_result.to_latex(label="tab:sig", caption=r"Results \emph{here}.")
    lines = text.splitlines()
    assert lines[0] == r"\begin{table}[t]" and lines[-1] == r"\end{table}"
    assert r"\caption{Results \emph{here}.}" in text and r"\label{tab:sig}" in text
    assert [ln for ln in lines if ln in (r"\toprule", r"\midrule", r"\bottomrule")] == [
        r"\toprule",
        r"\midrule",
        r"\bottomrule",
    ]
    spec = re.search(r"\\begin\{tabular\}\{(\w+)\}", text).group(1)
    body = lines[lines.index(r"\toprule") + 1 : lines.index(r"\bottomrule")]
    for row in (ln for ln in body if ln != r"\midrule"):
        assert row.endswith(r"\\") and len(re.findall(r"(?<!\\)&", row)) == len(spec) - 1
    assert text.count("{") == text.count("}") - text.count(r"\}") + text.count(r"\{")


def test_latex_compiles_with_pdflatex(snapshot_result, tmp_path):
    if shutil.which("pdflatex") is None:
        message = "pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended; .ci/run does)"
        if IN_CI:
            pytest.fail(message + "; CI=true requires it", pytrace=False)
        pytest.skip(message)
    (tmp_path / "table.tex").write_text(snapshot_result.to_latex(ci=True, standalone=True))
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "table.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "table.pdf").stat().st_size > 0


def test_to_frame_is_tidy(snapshot_result):
    frame = snapshot_result.to_frame()
    assert list(frame.columns) == [
        "system",
        "label",
        "measure",
        "mean",
        "ci_low",
        "ci_high",
        "better_than",
        "difference",
        "p_value",
        "p_corrected",
        "test",
        "correction",
    ]
    means = frame[frame["better_than"].isna()]
    assert len(means) == 6 and means["ci_low"].notna().all()
    wins = frame[frame["better_than"].notna()]
    assert sorted(zip(wins["system"], wins["measure"], wins["better_than"])) == [
        ("100% dense", "AP", "bm25_v2"),
        ("A&B <script>", "AP", "100% dense"),
        ("A&B <script>", "AP", "bm25_v2"),
    ]
    assert (wins["p_corrected"] < 0.1).all() and (wins["difference"] > 0).all()
    assert "(c) bm25_v2" in repr(snapshot_result)


def test_system_order_sets_the_rows_and_letters_and_must_name_every_system():
    table = _table(30, ["zeta", "alpha", "mid"], seed=3, effects=[0.4, 0.0, 0.2])
    result = stats.significance_table(
        table, ["AP"], confidence_level=None, rng=0, system_order=["mid", "zeta", "alpha"]
    )
    assert result.systems == ("mid", "zeta", "alpha") and result.letters("zeta", "AP") == "ac"
    with pytest.raises(
        rankviz.InputError,
        match=r"'system_order' parameter of significance_table must name every system.*lacks \['mid'\]",
    ):
        stats.significance_table(table, ["AP"], confidence_level=None, system_order=["zeta", "alpha"])
    run, qrels, _ = load_example()
    order = ["tfidf", "bm25+rerank", "rrf", "bm25"]
    via_api = run.rank.table(["RR@10"], qrels=qrels, rng=0, n_resamples=200, confidence_level=None, system_order=order)
    assert via_api.systems == tuple(order)
