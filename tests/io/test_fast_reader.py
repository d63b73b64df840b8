"""The fast TREC reader (pyarrow), read_runs and parquet runs.

The fast reader must give exactly the frame the validating reader gives, on every
file it accepts, and hand every other file to the validating reader (whose messages
tests/io/test_bad_files.py pins). The property test writes well-formed files the way
run files are usually written, in many variations, and compares the two readers'
frames; the other tests pin what read_runs and the parquet round trip do, and their
errors.
"""

from __future__ import annotations

import gzip
import os
import tempfile
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from rankviz.io import fast_reader as _trec_fast
from tests.conftest import shared_path

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# ids as files hold them: ASCII, digits with leading zeros, UTF-8, '#' inside an id (a comment only at a line's start)
IDS = st.text(
    alphabet=st.sampled_from(list("abqQdD0123456789-_.#:/") + ["é", "ß", "中"]), min_size=1, max_size=8
).filter(lambda s: not s.startswith("#"))


def _score_text(draw) -> str:
    value = draw(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-(10**6), 10**6).map(float)))
    style = draw(st.sampled_from(["repr", "17g", "e", "3f", "int", "lead dot", "trail dot", "E+"]))
    if style == "int" and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if style == "lead dot":
        return ("-" if value < 0 else "") + f"{abs(value) % 1:.6f}".lstrip("0")
    if style == "trail dot" and value.is_integer() and abs(value) < 1e15:
        return f"{int(value)}."
    if style == "E+":
        return f"{value:E}"
    return {"repr": repr(value), "17g": f"{value:.17g}", "e": f"{value:e}", "3f": f"{value:.3f}"}.get(
        style, repr(value)
    )


@st.composite
def well_formed(draw, kind: str) -> str:
    """A run or qrels file as files are usually written: single spaces, plain integers, finite decimal scores."""
    lines = []
    for _ in range(draw(st.integers(1, 30))):
        qid, doc = draw(IDS), draw(IDS)
        if kind == "run":
            rank = draw(st.one_of(st.integers(-5, 5000), st.sampled_from([2**53, -(2**53), 0])))
            tag = draw(st.sampled_from(["bm25", "run-A", "t", "tag#1"]))
            lines.append(f"{qid} {draw(st.sampled_from(['Q0', '0', 'x']))} {doc} {rank} {_score_text(draw)} {tag}")
        else:
            grade = draw(st.one_of(st.integers(-2, 4), st.sampled_from([2**53, -(2**53)])))
            lines.append(f"{qid} {draw(st.sampled_from(['0', '1', '0.5', 'Q0']))} {doc} {grade}")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    blank = draw(st.sampled_from(["", newline]))  # blank lines are skipped by both readers
    return blank + newline.join(lines) + draw(st.sampled_from([newline, ""]))


def _validating(kind: str, path):
    """The frame the validating reader gives (the fast reader switched off)."""
    with mock.patch.object(rankviz.io.trec_files, "read_fast", return_value=None):
        return rankviz.read_run(path, system_from="tag") if kind == "run" else rankviz.read_qrels(path)


def _fast_frame(kind: str, path, block_size: int) -> pd.DataFrame:
    """The fast reader's frame with blocks of ``block_size`` bytes."""
    with mock.patch.object(
        rankviz.io.trec_files, "read_fast", lambda path, names: _trec_fast.read_fast(path, names, block_size=block_size)
    ):
        return rankviz.read_run(path, system_from="tag") if kind == "run" else rankviz.read_qrels(path)


@pytest.mark.parametrize("kind", ["run", "qrels"])
@SETTINGS
@given(data=st.data())
def test_fast_and_validating_readers_give_identical_frames(kind, data):
    text = data.draw(well_formed(kind))
    names = _trec_fast.RUN_COLUMNS if kind == "run" else _trec_fast.QRELS_COLUMNS
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"{kind}.txt")
        raw = text.encode("utf-8")
        with open(path, "wb") as handle:
            handle.write(gzip.compress(raw) if data.draw(st.booleans()) else raw)
        assert _trec_fast.read_fast(path, names) is not None, "a well-formed file must take the fast path"
        # every line's tag kept (system_from="tag"): the readers must agree on each one
        fast = rankviz.read_run(path, system_from="tag") if kind == "run" else rankviz.read_qrels(path)
        pd.testing.assert_frame_equal(fast, _validating(kind, path), check_exact=True)
        # lines cut across blocks of any size give the same frame
        pd.testing.assert_frame_equal(
            _fast_frame(kind, path, block_size=data.draw(st.integers(1, 64))), fast, check_exact=True
        )


#: files the fast reader must hand to the validating one (which reads them, or names the bad line)
UNUSUAL = {
    "tab": "q1\tQ0 d1 1 2.5 t\n",
    "two spaces": "q1 Q0  d1 1 2.5 t\n",
    "iteration field missing, two spaces": "q1  d1 1 2.5 t\n",
    "leading space": " q1 Q0 d1 1 2.5 t\n",
    "leading space, five fields": " q1 d1 1 2.5 t\n",
    "trailing space": "q1 Q0 d1 1 2.5 t \n",
    "trailing space before CRLF": "q1 Q0 d1 1 2.5 t \r\n",
    "comment": "# header\nq1 Q0 d1 1 2.5 t\n",
    "comment after a line": "q1 Q0 d1 1 2.5 t\n#q2 Q0 d1 1 2.5 t\n",
    "old Mac line ends": "q1 Q0 d1 1 2.5 t\rq1 Q0 d2 2 1.5 t\r",
    "rank 2.0": "q1 Q0 d1 2.0 2.5 t\n",
    "rank +2": "q1 Q0 d1 +2 2.5 t\n",
    "rank beyond 2**53": f"q1 Q0 d1 {2**53 + 1} 2.5 t\n",
    "score nan": "q1 Q0 d1 1 nan t\n",
    "score inf": "q1 Q0 d1 1 -inf t\n",
    "score 1e400": "q1 Q0 d1 1 1e400 t\n",
    "seven fields": "q1 Q0 d1 1 2.5 t extra\n",
    "five fields": "q1 Q0 d1 1 2.5\n",
    "byte-order mark": "\ufeffq1 Q0 d1 1 2.5 t\n",
    "no-break space": "q1 Q0 d1\u00a0x 1 2.5 t\n",
    "vertical tab": "q1 Q0 d1 1\v2.5 t\n",
    "NUL": "q1 Q0 d\x001 1 2.5 t\n",
    "latin-1": b"q1 Q0 caf\xe9 1 2.5 t\n",
    "empty": "",
    "only blank lines": "\n\n",
}


@pytest.mark.parametrize("case", UNUSUAL, ids=list(UNUSUAL))
def test_unusual_files_go_to_the_validating_reader(tmp_path, case):
    content = UNUSUAL[case]
    path = tmp_path / "run.txt"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    assert _trec_fast.read_fast(path, _trec_fast.RUN_COLUMNS) is None


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_a_problem_in_a_late_block_names_its_line(tmp_path, compressed):
    """Also for gzip, whose blocks are decompressed one ahead on another thread while the current one is checked."""
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i}.5 bm25" for i in range(5000)]
    lines[4321] = "q43 Q0 d4321 22 high bm25"
    path = tmp_path / "run.txt"
    text = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(text) if compressed else text)
    small_blocks = lambda path, names: _trec_fast.read_fast(path, names, block_size=1000)  # noqa: E731
    assert small_blocks(path, _trec_fast.RUN_COLUMNS) is None
    with (
        mock.patch.object(rankviz.io.trec_files, "read_fast", small_blocks),
        pytest.raises(rankviz.TrecFormatError) as caught,
    ):
        rankviz.read_run(path)
    assert str(caught.value).startswith(
        f"{path}, line 4322: the score (5th) field must be a finite number, found 'high'"
    )


def test_read_run_system_is_categorical_and_evaluates_the_same(covid_dir):
    path = covid_dir / "runs" / "smith.bm25"
    run = rankviz.read_run(path)
    assert isinstance(run["system"].dtype, pd.CategoricalDtype)
    assert run["system"].cat.categories.tolist() == ["smith.bm25"] or run["system"].nunique() == 1
    assert run.dtypes[["rank", "score"]].tolist() == [np.dtype("int64"), np.dtype("float64")]
    qrels = covid_dir / "qrels-rnd1.txt"
    measures = ["RR", "nDCG@10", "AP", "R@100", "P@5", "bpref"]
    as_strings = run.astype({"system": "str"})
    pd.testing.assert_frame_equal(rankviz.evaluate(run, measures, qrels), rankviz.evaluate(as_strings, measures, qrels))
    per_query = rankviz.evaluate(run, measures, qrels, per_query=True)
    pd.testing.assert_frame_equal(per_query, rankviz.evaluate(as_strings, measures, qrels, per_query=True))


# ---- read_runs


def _runs_folder(tmp_path, tags=("bm25", "dense", "rerank")):
    folder = tmp_path / "runs"
    folder.mkdir()
    for i, tag in enumerate(tags):
        (folder / f"{tag}.txt").write_text(f"q1 Q0 d{i} 1 2.5 {tag}\nq1 Q0 x 2 1.5 {tag}\nq2 Q0 y 1 0.5 {tag}\n")
    return folder


def test_read_runs_glob_folder_and_list_give_one_frame(tmp_path):
    folder = _runs_folder(tmp_path)
    by_glob = rankviz.read_runs(str(folder / "*.txt"))
    assert by_glob.columns.tolist() == ["query_id", "doc_id", "rank", "score", "system"]
    assert by_glob["system"].dtype == pd.CategoricalDtype(pd.Index(["bm25", "dense", "rerank"], dtype="str"))
    assert by_glob["system"].tolist() == ["bm25"] * 3 + ["dense"] * 3 + ["rerank"] * 3
    assert by_glob["doc_id"].tolist()[:3] == ["d0", "x", "y"]
    pd.testing.assert_frame_equal(rankviz.read_runs(folder), by_glob)
    listed = rankviz.read_runs([folder / "rerank.txt", folder / "bm25.txt"])
    assert listed["system"].tolist()[:3] == ["rerank"] * 3
    one = rankviz.read_run(folder / "dense.txt")
    pd.testing.assert_frame_equal(rankviz.read_runs([folder / "dense.txt"]), one)
    # the same rows as concatenating read_run's frames, system as categorical
    parts = pd.concat([rankviz.read_run(folder / f"{t}.txt") for t in ("bm25", "dense", "rerank")], ignore_index=True)
    pd.testing.assert_frame_equal(by_glob.astype({"system": "str"}), parts.astype({"system": "str"}))
    means = rankviz.evaluate(by_glob, ["RR", "AP"], {"q1": {"x": 1}, "q2": {"y": 1}})
    assert means.index.tolist() == ["bm25", "dense", "rerank"] and means["RR"].tolist() == [0.75, 0.75, 0.75]


def test_read_runs_with_one_tag_in_two_files_asks_for_file_names(tmp_path):
    folder = _runs_folder(tmp_path, tags=("bm25",))
    (folder / "copy.txt").write_bytes((folder / "bm25.txt").read_bytes())
    with pytest.raises(rankviz.InputError, match=r"both name their rows 'bm25'.*system_from='file'"):
        rankviz.read_runs(folder)
    runs = rankviz.read_runs(folder, system_from="file")
    assert runs["system"].cat.categories.tolist() == ["bm25.txt", "copy.txt"]


def test_read_runs_errors_name_what_is_missing(tmp_path):
    folder = _runs_folder(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"read_runs: no file matches '.*nothing-\*\.txt'"):
        rankviz.read_runs(str(folder / "nothing-*.txt"))
    (folder / "sub.d").mkdir()
    with pytest.raises(FileNotFoundError, match=r"read_runs: no file matches '.*\*\.d'"):  # folders only
        rankviz.read_runs(str(folder / "*.d"))
    with pytest.raises(FileNotFoundError, match=r"read_runs: no such file: .*missing\.txt"):
        rankviz.read_runs([folder / "bm25.txt", folder / "missing.txt"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="has no files"):
        rankviz.read_runs(empty)
    with pytest.raises(rankviz.InputError, match="list of paths is empty"):
        rankviz.read_runs([])
    with pytest.raises(
        rankviz.InputError, match=r"'system_from' parameter of read_runs must be 'tag' or 'file'. Got 'name'"
    ):
        rankviz.read_runs(folder, system_from="name")
    (folder / "zz-bad.txt").write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2\n")
    with pytest.raises(rankviz.TrecFormatError, match=r"zz-bad\.txt, line 2: expected 6 whitespace-separated fields"):
        rankviz.read_runs(folder)


# ---- parquet


def test_parquet_round_trip_is_the_trec_file_round_trip(tmp_path, covid_dir):
    run = rankviz.read_run(covid_dir / "runs" / "smith.rm3")
    rankviz.write_run(run, tmp_path / "run.txt")
    rankviz.write_run(run, tmp_path / "run.parquet")  # the suffix chooses parquet
    rankviz.write_run(run, tmp_path / "cache.bin", format="parquet")
    assert (tmp_path / "run.parquet").read_bytes()[:4] == b"PAR1"
    as_text = rankviz.read_run(tmp_path / "run.txt")
    pd.testing.assert_frame_equal(rankviz.read_run(tmp_path / "run.parquet"), as_text)
    pd.testing.assert_frame_equal(rankviz.read_run(tmp_path / "cache.bin"), as_text)
    assert rankviz.read_run(tmp_path / "run.parquet", system="mine")["system"].tolist()[:2] == ["mine", "mine"]
    mixed = rankviz.read_runs([tmp_path / "run.parquet", tmp_path / "run.txt"], system_from="file")
    assert mixed["system"].value_counts().to_dict() == {"run.parquet": len(run), "run.txt": len(run)}


def test_write_run_replaces_a_file_but_a_refused_write_leaves_it(tmp_path):
    path = tmp_path / "run.parquet"
    good = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    rankviz.write_run(good, path)
    before = path.read_bytes()
    with pytest.raises(
        rankviz.InputError, match=r"The score column 'score' has 1 value\(s\) that are NaN or infinite, first at row 0"
    ):
        rankviz.write_run(good.assign(score=[np.inf]), path)
    assert path.read_bytes() == before
    rankviz.write_run(good.assign(doc_id=["b"]), path)  # write_run replaces files, as to_csv/to_parquet do
    assert rankviz.read_run(path)["doc_id"].tolist() == ["b"]
    assert [p.name for p in tmp_path.iterdir()] == ["run.parquet"]  # no temporary file left behind
    with pytest.raises(
        rankviz.InputError,
        match=r"'format' parameter of write_run must be 'trec', 'parquet', 'msmarco' or 'jsonl'. Got 'csv'",
    ):
        rankviz.write_run(good, tmp_path / "x.csv", format="csv")


def test_parquet_without_the_run_columns_names_them_and_the_fix(tmp_path):
    path = tmp_path / "foreign.parquet"
    pd.DataFrame({"qid": ["q"], "docno": ["a"], "score": [1.0]}).to_parquet(path)
    with pytest.raises(rankviz.ColumnError) as caught:
        rankviz.read_run(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: a run parquet file needs the columns query_id, doc_id, rank, score, system")
    assert "it has no 'query_id', 'doc_id', 'rank', 'system'" in message and "'qid', 'docno', 'score'" in message
    assert "rankviz.write_run(run, path, format='parquet')" in message and "pandas.read_parquet" in message


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (
            {"query_id": ["q"], "doc_id": ["a"], "rank": [1], "score": [np.nan], "system": ["t"]},
            r"the column 'score' has a missing value \(row 0\)",
        ),
        (
            {
                "query_id": ["q", "q"],
                "doc_id": ["a", "b"],
                "rank": [1, 2],
                "score": [1.0, np.inf],
                "system": ["t", "t"],
            },
            r"every score must be a finite number; row 1 has inf",
        ),
        (
            {"query_id": ["q"], "doc_id": ["a"], "rank": [1.5], "score": [1.0], "system": ["t"]},
            r"the column 'rank' must hold integers, found double",
        ),
        (
            {"query_id": [1], "doc_id": ["a"], "rank": [1], "score": [1.0], "system": ["t"]},
            r"the column 'query_id' must hold strings, found int64",
        ),
        (
            {"query_id": ["q"], "doc_id": ["a"], "rank": [2**60], "score": [1.0], "system": ["t"]},
            r"every rank must be an integer within \+-2\*\*53",
        ),
    ],
)
def test_parquet_with_bad_values_is_refused_naming_the_column(tmp_path, frame, message):
    path = tmp_path / "bad.parquet"
    pd.DataFrame(frame).to_parquet(path)
    with pytest.raises(rankviz.ColumnError, match=message):
        rankviz.read_run(path)


def test_a_truncated_parquet_file_is_named(tmp_path):
    path = tmp_path / "run.parquet"
    rankviz.write_run(pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]}), path)
    path.write_bytes(path.read_bytes()[:20])
    with pytest.raises(rankviz.TrecFormatError, match=rf"^{path}: not a readable parquet file"):
        rankviz.read_run(path)


def test_shared_runs_read_fast_and_identically():
    """Every TREC run and qrels file the tests use takes the fast path or gives the validating reader's frame."""
    for parts, kind in (
        (("trec_eval", "results.test"), "run"),
        (("trec_eval", "qrels.test"), "qrels"),
        (("trec_covid_round1", "runs", "PL2c1.0"), "run"),
        (("trec_covid_round1", "qrels-rnd1.txt"), "qrels"),
    ):
        path = shared_path(*parts)
        read = rankviz.read_run if kind == "run" else rankviz.read_qrels
        pd.testing.assert_frame_equal(read(path), _validating(kind, path), check_exact=True)
