"""MS MARCO TSVs: runs (qid, pid, rank) and qrels (qid, 0, pid, rel) through read_run/read_qrels and the writers."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import tempfile
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from tests.conftest import shared_path

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def test_run_is_read_by_format_and_found_by_its_three_fields(tmp_path):
    path = _write(tmp_path, "dev.tsv", "1048585\t7187158\t1\n1048585\t7187157\t2\n2\t01\t1\n")
    run = rankviz.read_run(path)
    assert run["query_id"].tolist() == ["1048585", "1048585", "2"]
    assert run["doc_id"].tolist() == ["7187158", "7187157", "01"]  # ids stay strings: '01' is not 1
    assert run["rank"].tolist() == [1, 2, 1] and run["score"].tolist() == [-1.0, -2.0, -1.0]
    assert run["system"].tolist() == ["dev.tsv"] * 3
    pd.testing.assert_frame_equal(rankviz.read_run(path, format="msmarco"), run)
    assert rankviz.read_run(path, format="msmarco", system="bm25")["system"].tolist() == ["bm25"] * 3
    with pytest.raises(rankviz.TrecFormatError, match="expected 6 whitespace-separated fields"):
        rankviz.read_run(path, format="trec")
    with pytest.raises(rankviz.InputError, match="'format' parameter of read_run must be"):
        rankviz.read_run(path, format="tsv")


def test_run_round_trip_and_agreement_with_the_trec_reader(tmp_path):
    source = shared_path("trec_covid_round1", "runs", "smith.bm25")
    trec = rankviz.read_run(source)
    rankviz.write_run(trec, tmp_path / "run.tsv", format="msmarco")
    first = (tmp_path / "run.tsv").read_text().split("\n", 1)[0]
    assert first.count("\t") == 2
    msmarco = rankviz.read_run(tmp_path / "run.tsv", system="smith.bm25")
    # round trip: the frame read, written again and read again, is the same frame
    rankviz.write_run(msmarco, tmp_path / "again.tsv", format="msmarco")
    pd.testing.assert_frame_equal(rankviz.read_run(tmp_path / "again.tsv", system="smith.bm25"), msmarco)
    # agreement: the same rows as a TREC file give the same frame
    rankviz.write_run(msmarco, tmp_path / "run.trec")
    pd.testing.assert_frame_equal(rankviz.read_run(tmp_path / "run.trec", system="smith.bm25"), msmarco)
    # and the same numbers as the TREC run it came from (ordering by rank = ordering by score, no ties here)
    qrels = shared_path("trec_covid_round1", "qrels-rnd1.txt")
    expected = rankviz.evaluate(trec, ["RR@10", "nDCG@10", "AP"], qrels=qrels, per_query=True)
    got = rankviz.evaluate(msmarco, ["RR@10", "nDCG@10", "AP"], qrels=qrels, per_query=True)
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=0, atol=0)


def test_qrels_round_trip_and_agreement(tmp_path):
    source = shared_path("trec_covid_round1", "qrels-rnd1.txt")
    trec = rankviz.read_qrels(source)
    rankviz.write_qrels(trec, tmp_path / "qrels.tsv", format="msmarco")
    assert (tmp_path / "qrels.tsv").read_text().split("\n", 1)[0].count("\t") == 3
    read = rankviz.read_qrels(tmp_path / "qrels.tsv", format="msmarco")
    pd.testing.assert_frame_equal(read.drop(columns="iteration"), trec.drop(columns="iteration"))
    pd.testing.assert_frame_equal(rankviz.read_qrels(tmp_path / "qrels.tsv"), read)


@pytest.mark.parametrize("how", ["gzip", "bzip2", "xz"])
def test_compressed_runs_found_by_their_bytes(tmp_path, how):
    text = b"q1\td1\t1\nq1\td2\t2\n"
    packed = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[how](text)
    plain = rankviz.read_run(_write(tmp_path, "plain.tsv", text), system="s")
    pd.testing.assert_frame_equal(rankviz.read_run(_write(tmp_path, "run.txt", packed), system="s"), plain)


BAD_FILES = {
    "rank 1.7": ("q1\td1\t1\nq1\td2\t1.7\n", r"line 2: the rank \(3rd\) field must be an integer, found '1.7'"),
    "rank nan": ("q1\td1\tnan\n", r"line 1: the rank \(3rd\) field must be an integer, found 'nan'"),
    "rank 2**63": ("q1\td1\t9223372036854775808\n", r"line 1: the rank \(3rd\) field must be an integer within"),
    "four fields": ("q1\td1\t1\nq1\td2\t2\tx\n", r"line 2: expected 3 whitespace-separated fields"),
    "two fields": ("q1\td1\t1\nq1\td2\n", r"line 2: expected 3 whitespace-separated fields"),
    "no-break space": ("q1\td1\t1\nq1\td\u00a02\t2\n", r"line 2: the line contains NO-BREAK SPACE"),
    "NUL byte": ("q1\td1\t1\nq1\td\x002\t2\n", r"line 2: the line contains a NUL byte"),
    "old Mac line ends": ("q1\td1\t1\rq1\td2\t2\r", r"line 1: a carriage return \(CR\) inside the line"),
    "latin-1 gzip": (gzip.compress("q1\tcaf\xe9\t1\n".encode("latin-1")), r"line 1: the file is not valid UTF-8"),
    "truncated gzip": (gzip.compress(b"q1\td1\t1\n" * 100)[:15], r"the gzip-compressed data is corrupt"),
    "zip archive": (b"PK\x03\x04rest", r"is a zip archive; unpack it"),
    "only comments": ("# nothing\n", r"the file has no MS MARCO run lines"),
}


@pytest.mark.parametrize("case", BAD_FILES, ids=list(BAD_FILES))
def test_bad_run_is_refused_naming_the_file_and_line(tmp_path, case):
    content, message = BAD_FILES[case]
    path = _write(tmp_path, "run.tsv", content)
    with pytest.raises(rankviz.TrecFormatError, match=message) as caught:
        rankviz.read_run(path, format="msmarco")
    assert str(caught.value).startswith(str(path))


@st.composite
def _line(draw):
    """(text, kind): a clean run line written with odd whitespace, a corrupted one, a comment or a blank line."""
    q, d = draw(st.sampled_from(["1", "01", "q-2"])), draw(st.sampled_from(["7", "007", "D1", "é"]))
    rank = str(draw(st.integers(-3, 3000)))
    choice = draw(st.sampled_from(["clean", "clean", "spaces", "missing", "extra", "rank", "comment", "blank"]))
    if choice == "clean":
        return f"{q}\t{d}\t{rank}", "data", f"{q}\t{d}\t{rank}"
    if choice == "spaces":
        return f" {q}  {d}\t {rank}\r", "data", f"{q}\t{d}\t{rank}"
    if choice == "missing":
        return f"{q}\t{d}", "error", ""
    if choice == "extra":
        return f"{q}\t{d}\t{rank}\t9", "error", ""
    if choice == "rank":
        return f"{q}\t{d}\t{draw(st.sampled_from(['1.5', 'x', '1e3', 'inf', str(2**60)]))}", "error", ""
    if choice == "comment":
        return "# note", "comment", ""
    return "", "skip", ""


@SETTINGS
@given(lines=st.lists(_line(), min_size=1, max_size=10), how=st.sampled_from(["plain", "gzip", "bom"]))
def test_corrupted_runs_read_exactly_or_fail_naming_a_bad_line(lines, how):
    raw = "\n".join(text for text, _, _ in lines).encode("utf-8") + b"\n"
    raw = gzip.compress(raw) if how == "gzip" else b"\xef\xbb\xbf" + raw if how == "bom" else raw
    errors = {i + 1 for i, (_, kind, _) in enumerate(lines) if kind == "error"}
    clean = [c for _, kind, c in lines if kind == "data"]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.tsv")
        with open(path, "wb") as handle:
            handle.write(raw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            try:
                got = rankviz.read_run(path, format="msmarco", system="s")
            except rankviz.TrecFormatError as exc:
                message = str(exc)
                assert message.startswith(path), message
                if errors:
                    assert any(f", line {n}:" in message for n in errors), (message, errors)
                else:
                    assert not clean and "has no" in message
                return
        assert not errors, f"no error although lines {sorted(errors)} are bad"
        clean_path = os.path.join(folder, "clean.tsv")
        with open(clean_path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(clean) + "\n")
        pd.testing.assert_frame_equal(got, rankviz.read_run(clean_path, format="msmarco", system="s"))


@SETTINGS
@given(raw=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(lambda t: t.encode("utf-8"))))
def test_arbitrary_bytes_never_raise_anything_but_a_rankviz_error(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "file.tsv")
        with open(path, "wb") as handle:
            handle.write(raw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            try:
                rankviz.read_run(path, format="msmarco")
            except rankviz.RankvizError as exc:
                assert str(exc).startswith(path), str(exc)


def test_writer_refuses_ids_a_tsv_line_cannot_hold(tmp_path):
    run = pd.DataFrame({"query_id": ["q 1"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(rankviz.InputError, match="whitespace"):
        rankviz.write_run(run, tmp_path / "r.tsv", format="msmarco")
    assert not (tmp_path / "r.tsv").exists() or (tmp_path / "r.tsv").read_text() == ""


def test_a_trec_run_line_with_tabs_among_its_separators_stays_a_trec_run(tmp_path):
    """Three TAB fields are MS MARCO only when the line has three fields in all (Hypothesis found this one)."""
    import rankviz

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0\tbm25\t7\nq1 Q0 d2 2 1.0 bm25\n")
    run = rankviz.read_run(path)
    assert run["doc_id"].tolist() == ["d1", "d2"] and run["score"].tolist() == [2.0, 1.0]
