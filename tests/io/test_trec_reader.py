"""The TREC reader (pyarrow in blocks, unusual blocks tidied, bad lines located), read_runs and parquet runs.

The property test writes well-formed files the way run files are usually written, in
many variations, and compares the frame with a model (Python's own split, int and
float) and with the frame read in blocks of any size. The unusual files below are each
read as their clean form, or refused naming the line; tests/io/test_bad_files.py
checks every mix of them against a model of the corruptions. The other tests pin what
read_runs and the parquet round trip do, and their errors.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import os
import re
import tempfile
import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from rankviz.io import trec_reader
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
    blank = draw(st.sampled_from(["", newline]))  # blank lines are skipped
    return blank + newline.join(lines) + draw(st.sampled_from([newline, ""]))


def _model(kind: str, text: str) -> pd.DataFrame:
    """The frame a well-formed file must give, from Python's own str.split, int and float."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    if kind == "qrels":
        return pd.DataFrame(
            {
                "query_id": pd.Series([r[0] for r in rows], dtype="str"),
                "iteration": pd.Series([r[1] for r in rows], dtype="str"),
                "doc_id": pd.Series([r[2] for r in rows], dtype="str"),
                "relevance": np.array([int(r[3]) for r in rows], dtype=np.int64),
            }
        )
    tags = [r[5] for r in rows]
    return pd.DataFrame(
        {
            "query_id": pd.Series([r[0] for r in rows], dtype="str"),
            "doc_id": pd.Series([r[2] for r in rows], dtype="str"),
            "rank": np.array([int(r[3]) for r in rows], dtype=np.int64),
            "score": np.array([float(r[4]) for r in rows], dtype=np.float64),
            "system": pd.Categorical(tags, categories=pd.Index(sorted(set(tags)), dtype="str")),
        }
    )


def _read(kind: str, path, **options):
    # every line's own tag kept (system_from="tag")
    return (
        rankviz.read_run(path, system_from="tag", **options) if kind == "run" else rankviz.read_qrels(path, **options)
    )


def _in_blocks(kind: str, path, block_size: int, **options) -> pd.DataFrame:
    """The frame read in blocks of ``block_size`` bytes."""
    small = functools.partial(trec_reader.read_trec, block_size=block_size)
    with mock.patch.object(rankviz.io.trec_files, "read_trec", small):
        return _read(kind, path, **options)


@pytest.mark.parametrize("kind", ["run", "qrels"])
@SETTINGS
@given(data=st.data())
def test_well_formed_files_give_the_model_frame_in_blocks_of_any_size(kind, data):
    text = data.draw(well_formed(kind))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"{kind}.txt")
        raw = text.encode("utf-8")
        with open(path, "wb") as handle:
            handle.write(gzip.compress(raw) if data.draw(st.booleans()) else raw)
        assert trec_reader.plain_block(raw), "a well-formed file must be parsed with typed numbers"
        got = _read(kind, path)
        pd.testing.assert_frame_equal(got, _model(kind, text), check_exact=True)
        # lines cut across blocks of any size give the same frame
        pd.testing.assert_frame_equal(
            _in_blocks(kind, path, block_size=data.draw(st.integers(1, 64))), got, check_exact=True
        )


#: files the typed parse alone cannot read: each reads as its clean form (a string) or fails naming line 1 (a regex)
UNUSUAL = {
    "tab": ("q1\tQ0 d1 1 2.5 t\n", "q1 Q0 d1 1 2.5 t"),
    "two spaces": ("q1 Q0  d1 1 2.5 t\n", "q1 Q0 d1 1 2.5 t"),
    "iteration field missing, two spaces": ("q1  d1 1 2.5 t\n", r"expected 6 whitespace-separated fields .* found 5"),
    "leading space": (" q1 Q0 d1 1 2.5 t\n", "q1 Q0 d1 1 2.5 t"),
    "leading space, five fields": (" q1 d1 1 2.5 t\n", r"expected 6 .* found 5"),
    "trailing space": ("q1 Q0 d1 1 2.5 t \n", "q1 Q0 d1 1 2.5 t"),
    "trailing space before CRLF": ("q1 Q0 d1 1 2.5 t \r\n", "q1 Q0 d1 1 2.5 t"),
    "comment": ("# header\nq1 Q0 d1 1 2.5 t\n", "q1 Q0 d1 1 2.5 t"),
    "comment after a line": ("q1 Q0 d1 1 2.5 t\n#q2 Q0 d1 1 2.5 t\n", "q1 Q0 d1 1 2.5 t"),
    "old Mac line ends": ("q1 Q0 d1 1 2.5 t\rq1 Q0 d2 2 1.5 t\r", r"a carriage return \(CR\) inside the line"),
    "rank 2.0": ("q1 Q0 d1 2.0 2.5 t\n", "q1 Q0 d1 2 2.5 t"),
    "rank +2": ("q1 Q0 d1 +2 2.5 t\n", "q1 Q0 d1 2 2.5 t"),
    "rank beyond 2**53": (f"q1 Q0 d1 {2**53 + 1} 2.5 t\n", r"the rank \(4th\) field must be an integer within"),
    "score nan": ("q1 Q0 d1 1 nan t\n", r"the score \(5th\) field must be a finite number, found 'nan'"),
    "score inf": ("q1 Q0 d1 1 -inf t\n", r"found '-inf' \(trec_eval's atof would read it as infinity"),
    "score 1e400": ("q1 Q0 d1 1 1e400 t\n", r"found '1e400' \(too large for a float64\)"),
    "seven fields": ("q1 Q0 d1 1 2.5 t extra\n", "q1 Q0 d1 1 2.5 t"),
    "five fields": ("q1 Q0 d1 1 2.5\n", r"expected 6 whitespace-separated fields .* found 5: 'q1 Q0 d1 1 2.5'$"),
    "byte-order mark": ("\ufeffq1 Q0 d1 1 2.5 t\n", "q1 Q0 d1 1 2.5 t"),
    "no-break space": ("q1 Q0 d1\u00a0x 1 2.5 t\n", r"the line contains NO-BREAK SPACE \(U\+00A0\)"),
    "vertical tab": ("q1 Q0 d1 1\v2.5 t\n", "q1 Q0 d1 1 2.5 t"),
    "NUL": ("q1 Q0 d\x001 1 2.5 t\n", r"the line contains a NUL byte"),
    "latin-1": (b"q1 Q0 caf\xe9 1 2.5 t\n", r"the file is not valid UTF-8"),
    "a line longer than pyarrow's blocks": (f"q1 Q0 {'d' * 3_000_000} 1 2.5 t\n", f"q1 Q0 {'d' * 3_000_000} 1 2.5 t"),
}


@pytest.mark.parametrize("case", UNUSUAL, ids=list(UNUSUAL))
def test_unusual_files_read_as_their_clean_form_or_name_the_line(tmp_path, case):
    content, outcome = UNUSUAL[case]
    path = tmp_path / "run.txt"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.RankvizWarning)
        if outcome.startswith("q1 "):
            clean = tmp_path / "clean.txt"
            clean.write_text(outcome + "\n")
            pd.testing.assert_frame_equal(rankviz.read_run(path), rankviz.read_run(clean), check_exact=True)
            return
        with pytest.raises(rankviz.TrecFormatError) as caught:
            rankviz.read_run(path)
    assert re.match(re.escape(str(path)) + ", line 1: ", str(caught.value)), str(caught.value)
    assert re.search(outcome, str(caught.value)), str(caught.value)


@pytest.mark.parametrize("content", ["", "\n\n", " \n\t\n"], ids=["empty", "blank lines", "blanks"])
def test_a_file_without_data_lines_is_refused(tmp_path, content):
    path = tmp_path / "run.txt"
    path.write_text(content)
    with pytest.raises(rankviz.TrecFormatError, match=r": the file has no run lines \(expected 'query_id Q0"):
        rankviz.read_run(path)


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_a_problem_in_a_late_block_names_its_line(tmp_path, compressed):
    """Also for gzip, whose blocks are decompressed one ahead on another thread while the current one is checked."""
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i}.5 bm25" for i in range(5000)]
    lines[4321] = "q43 Q0 d4321 22 high bm25"
    path = tmp_path / "run.txt"
    text = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(text) if compressed else text)
    with pytest.raises(rankviz.TrecFormatError) as caught:
        _in_blocks("run", path, 1000)
    assert str(caught.value).startswith(
        f"{path}, line 4322: the score (5th) field must be a finite number, found 'high'"
    )


@pytest.mark.parametrize("how", ["plain", "bzip2", "utf-16"])
def test_unusual_lines_in_late_blocks_read_as_clean_ones_and_comments_are_counted(tmp_path, how):
    """Blocks of the typed parse and tidied blocks mix in one file: the same frame, the comments' warning names the
    first comment's line in the file, and an error after them its own."""
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i}.5 bm25" for i in range(3000)]
    odd = list(lines)
    odd[1700] = odd[1700].replace(" ", "\t")
    odd[2100] = odd[2100].replace(" Q0 ", "  Q0 ") + " extra fields"
    odd[2500] = odd[2500].replace(" 1000", " +1000").replace("bm25", "bm25\r")
    odd.insert(1200, "# a comment in the middle")
    odd.insert(2900, "  # and another")

    def write(name, rows):
        text = "\n".join(rows) + "\n"
        raw = {"plain": text.encode(), "bzip2": bz2.compress(text.encode()), "utf-16": text.encode("utf-16")}[how]
        (tmp_path / name).write_bytes(raw)
        return tmp_path / name

    clean, path = write("clean.txt", lines), write("odd.txt", odd)
    with pytest.warns(rankviz.RankvizWarning, match=r"skipped 2 line\(s\) .*line 1201: '# a comment in the middle'"):
        got = _in_blocks("run", path, 1000)
    pd.testing.assert_frame_equal(got, _read("run", clean), check_exact=True)
    odd[2950] = odd[2950].replace("bm25", "")
    with pytest.raises(rankviz.TrecFormatError, match=r"odd2\.txt, line 2951: expected 6 whitespace-separated fields"):
        _in_blocks("run", write("odd2.txt", odd), 1000)


def test_utf16_that_is_not_is_named(tmp_path):
    path = tmp_path / "ps.txt"
    path.write_bytes(b"\xff\xfe" + "q1 0 d1 1\n".encode("utf-16-le") + b"\x00\xd8")
    with pytest.raises(rankviz.TrecFormatError, match=r"line 2: the file is not valid UTF-16"):
        rankviz.read_qrels(path)


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


def test_shared_files_read_the_same_in_small_blocks():
    """The TREC files the tests use (separated by spaces or tabs) read the same in blocks of any size."""
    for parts, kind in (
        (("trec_eval", "results.test"), "run"),
        (("trec_eval", "qrels.test"), "qrels"),
        (("trec_covid_round1", "runs", "PL2c1.0"), "run"),
        (("trec_covid_round1", "qrels-rnd1.txt"), "qrels"),
    ):
        path = shared_path(*parts)
        read = (lambda p: rankviz.read_run(p, system_from="tag")) if kind == "run" else rankviz.read_qrels
        pd.testing.assert_frame_equal(_in_blocks(kind, path, 4096), read(path), check_exact=True)
