"""Bad and unusual TREC files: every file gives the exact frame or a rankviz error naming the file and the line.

The generated tests write run and qrels files line by line, each line clean or
corrupted (a field missing or extra, a score that is not a finite number, a grade or
rank beyond 2**53, a no-break space, a NUL byte, a comment, a blank line), then
possibly transform the whole file (a byte-order mark, CRLF line ends, gzip, bzip2 or
xz under a misleading name, UTF-16). A model of the corruptions predicts the outcome:
either the frame read from the cleaned file (only the data lines, single spaces,
plain UTF-8), or a :class:`rankviz.RankvizError` whose message names the file and
one of the corrupted lines. Nothing else may happen: no other exception type, no
other frame, no comment line dropped without its warning.

Below them, one regression test per example of issue 12, class 3 and 5.
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import lzma
import math
import os
import re
import tempfile
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from tests.conftest import shared_path

LIMIT = 2**53
QUERY_IDS = ["q1", "q2", "01", "1", "Q-3", "301"]
DOC_IDS = ["d1", "D1", "d10", "doc-7", "FBIS3-1", "é", "a.b", "x"]
SEPARATORS = [" ", "\t", "  ", " \t ", "\t\t", "\v", "\f"]
BAD_SCORES = [
    "high",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1e999",
    "-1e400",
    "0x1p3",
    "1_000",
    "1.5abc",
    "\u0661",
    "1,5",
    "--1",
]
BAD_INTEGERS = [
    "1.7",
    "1e3",
    "one",
    "0x10",
    str(2**53 + 1),
    str(-(2**53) - 1),
    str(2**63),
    str(-(2**63) - 1),
    str(10**30),
    "+",
    "2-1",
]
FOREIGN = ["\u00a0", "\u2003", "\u3000", "\u202f", "\x85", "\x1c", "\x00", "\ufeff"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclasses.dataclass
class Line:
    """One written line and what reading it must give: 'data' (its clean form), 'skip', 'comment' or 'error'."""

    text: str
    kind: str
    clean: str = ""


def _number_text(draw, integer: bool) -> str:
    if integer:
        value = draw(st.one_of(st.integers(-5, 3000), st.sampled_from([LIMIT, -LIMIT, 0])))
        return draw(st.sampled_from([str(value), f"+{value}" if value >= 0 else str(value), f"{value}.0"]))
    value = draw(st.floats(allow_nan=False, allow_infinity=False, width=64))
    return draw(st.sampled_from([repr(value), f"{value:.17g}", f"{value:e}", f"{value:.3f}"]))


@st.composite
def data_fields(draw, kind: str) -> list[str]:
    """The fields of one clean line: a run line (6 fields) or a qrels line (4)."""
    qid, doc = draw(st.sampled_from(QUERY_IDS)), draw(st.sampled_from(DOC_IDS))
    if kind == "run":
        tag = draw(st.sampled_from(["bm25", "run-A", "t"]))
        return [qid, "Q0", doc, _number_text(draw, integer=True), _number_text(draw, integer=False), tag]
    return [qid, draw(st.sampled_from(["0", "1", "0.5", "Q0"])), doc, _number_text(draw, integer=True)]


def _join(draw, fields: list[str]) -> str:
    """Fields joined with random trec_eval separators, with optional leading and trailing whitespace."""
    text = fields[0]
    for field in fields[1:]:
        text += draw(st.sampled_from(SEPARATORS)) + field
    return draw(st.sampled_from(["", " ", "\t"])) + text + draw(st.sampled_from(["", " ", "\t ", "\r"]))


@st.composite
def file_line(draw, kind: str) -> Line:
    """A clean line written oddly but validly, a corrupted line, a comment or a blank line."""
    fields = draw(data_fields(kind))
    clean = " ".join(fields)
    n, numeric = (6, [3, 4]) if kind == "run" else (4, [3])
    choice = draw(
        st.sampled_from(
            ["clean", "clean", "clean", "extra", "missing", "number", "foreign", "comment", "hash", "blank"]
        )
    )
    if choice == "clean":
        return Line(_join(draw, fields), "data", clean)
    if choice == "extra":  # trec_eval ignores fields after the sixth of a run line; a qrels line must have four
        extra = fields + draw(st.lists(st.sampled_from(["junk", "1", "#", "x y"]), min_size=1, max_size=3))
        return Line(_join(draw, extra), "data" if kind == "run" else "error", clean)
    if choice == "missing":
        keep = draw(st.integers(1, n - 1))
        return Line(_join(draw, fields[:keep]), "error")
    if choice == "number":
        i = draw(st.sampled_from(numeric))
        bad = draw(st.sampled_from(BAD_SCORES if (kind == "run" and i == 4) else BAD_INTEGERS))
        return Line(_join(draw, fields[:i] + [bad] + fields[i + 1 :]), "error")
    if choice == "foreign":  # a Unicode space as a separator or inside a field: trec_eval would keep it in the field
        char, i = draw(st.sampled_from(FOREIGN)), draw(st.integers(0, n - 1))
        if draw(st.booleans()) and i < n - 1:
            return Line(" ".join(fields[: i + 1]) + char + " ".join(fields[i + 1 :]), "error")
        return Line(" ".join(fields[:i] + [fields[i] + char] + fields[i + 1 :]), "error")
    if choice == "comment":
        return Line(
            draw(st.sampled_from(["#", "# a comment", "  # indented", "#\tq1 Q0 d1 1 2 t", "# caf\u00e9 \u00a0 nbsp"])),
            "comment",
        )
    if choice == "hash":  # a query id starting with '#': a comment line for trec_eval 10, so for rankviz too
        return Line("#" + _join(draw, fields), "comment")
    return Line(draw(st.sampled_from(["", " ", "\t", " \t ", "\r"])), "skip")


ENCODINGS = ["plain", "bom", "gzip", "bzip2", "xz", "utf-16"]


def _encode(text: str, how: str) -> bytes:
    raw = ("\ufeff" + text).encode("utf-16") if how == "utf-16" else text.encode("utf-8")
    if how == "bom":
        return b"\xef\xbb\xbf" + raw
    compress = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}.get(how)
    return compress(raw) if compress else raw


def _read(kind: str, path, **options):
    # every line's own tag kept (system_from="tag"): the lines of a file here carry several tags
    return (
        rankviz.read_run(path, system_from="tag", **options) if kind == "run" else rankviz.read_qrels(path, **options)
    )


def _check_file(kind: str, lines: list[Line], how: str, newline: str) -> None:
    """Write the lines, read them back, and compare with what the model of the corruptions predicts."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"{kind}.txt")  # compressed files keep a misleading plain-text name
        with open(path, "wb") as handle:
            handle.write(_encode(newline.join(line.text for line in lines) + newline, how))
        errors = {i + 1 for i, line in enumerate(lines) if line.kind == "error"}
        data = [line.clean for line in lines if line.kind == "data"]
        comments = [line for line in lines if line.kind == "comment"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got = _read(kind, path)
            except rankviz.RankvizError as exc:
                message = str(exc)
                assert message.startswith(path), message
                if errors:
                    where = re.match(re.escape(path) + r", line (\d+): ", message)
                    assert where and int(where.group(1)) in errors, (message, sorted(errors))
                else:
                    assert not data and "has no" in message, message
                return
        assert not errors, f"no error although lines {sorted(errors)} are bad"
        clean_path = os.path.join(folder, "clean.txt")
        with open(clean_path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(data) + "\n")
        pd.testing.assert_frame_equal(got, _read(kind, clean_path))
        messages = [str(w.message) for w in caught if issubclass(w.category, rankviz.RankvizWarning)]
        if comments:
            assert len(messages) == 1 and f"skipped {len(comments)} line(s) starting with '#'" in messages[0], messages
        else:
            assert messages == []


@pytest.mark.parametrize("kind", ["run", "qrels"])
@SETTINGS
@given(data=st.data())
def test_corrupted_trec_files_read_exactly_or_fail_naming_the_line(kind, data):
    lines = data.draw(st.lists(file_line(kind), min_size=1, max_size=12))
    how = data.draw(st.sampled_from(ENCODINGS))
    newline = data.draw(st.sampled_from(["\n", "\r\n"]))
    _check_file(kind, lines, how, newline)


@pytest.mark.parametrize("kind", ["run", "qrels", "topics"])
@SETTINGS
@given(
    raw=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda t: t.encode("utf-8"))),
    how=st.sampled_from(["plain", "gzip", "truncated gzip"]),
)
def test_arbitrary_bytes_never_raise_anything_but_a_rankviz_error(kind, raw, how):
    if how != "plain":
        raw = gzip.compress(raw)
        raw = raw[: len(raw) // 2] if how == "truncated gzip" else raw
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "file.txt")
        with open(path, "wb") as handle:
            handle.write(raw)
        read = {"run": rankviz.read_run, "qrels": rankviz.read_qrels, "topics": rankviz.read_topics}[kind]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            try:
                read(path)
            except rankviz.RankvizError as exc:
                assert str(exc).startswith(path), str(exc)


@SETTINGS
@given(
    value=st.one_of(
        st.integers(-(2**70), 2**70), st.sampled_from([LIMIT, LIMIT + 1, -LIMIT, -LIMIT - 1, 2**63, 2**64 - 1])
    )
)
def test_grades_are_exact_up_to_2_53_and_refused_beyond(value):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "qrels.txt")
        with open(path, "w") as handle:
            handle.write(f"q1 0 d1 {value}\n")
        if abs(value) <= LIMIT:
            assert rankviz.read_qrels(path)["relevance"].tolist() == [value]
        else:
            with pytest.raises(
                rankviz.TrecFormatError,
                match=r"line 1: the relevance \(4th\) field must be an integer within \+-2\*\*53",
            ):
                rankviz.read_qrels(path)


@SETTINGS
@given(value=st.floats(allow_nan=False, allow_infinity=False), digits=st.integers(1, 25))
def test_scores_are_rounded_as_strtod_rounds(value, digits):
    text = f"{value:.{digits}e}"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.txt")
        with open(path, "w") as handle:
            handle.write(f"q1 Q0 d1 1 {text} t\nq1 Q0 d2 2 {value!r} t\n")
        if math.isinf(float(text)):  # rounding to fewer digits can overflow: 1.75e308 -> '1.8e+308'
            with pytest.raises(rankviz.TrecFormatError, match=r"line 1: .* \(too large for a float64\)"):
                rankviz.read_run(path)
        else:
            assert rankviz.read_run(path)["score"].tolist() == [float(text), value]


# ---- regression tests: one per example of issue 12 (classes 3 and 5, files) ----


def _write(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


def test_hash_lines_are_comments_with_one_warning_or_data_when_asked(tmp_path):
    path = _write(tmp_path, "run.txt", "#301 Q0 d9 1 9.0 t\nq1 Q0 d1 1 2.0 t\n# header\n")
    with pytest.warns(
        rankviz.RankvizWarning, match=r"run\.txt: skipped 2 line\(s\) starting with '#'.*line 1: '#301 Q0 d9 1 9\.0 t'"
    ) as caught:
        assert rankviz.read_run(path)["query_id"].tolist() == ["q1"]
    assert len(caught) == 1
    data = _write(tmp_path, "run2.txt", "#301 Q0 d9 1 9.0 t\nq1 Q0 d1 1 2.0 t\n")
    assert rankviz.read_run(data, comments=False)["query_id"].tolist() == ["#301", "q1"]
    qrels = _write(tmp_path, "qrels.txt", "#301 0 d9 1\nq1 0 d1 1\n")
    assert rankviz.read_qrels(qrels, comments=False)["query_id"].tolist() == ["#301", "q1"]
    with pytest.raises(
        rankviz.TrecFormatError, match=r"line 1: expected 6 whitespace-separated fields .* found 2: '# header'"
    ):
        rankviz.read_run(_write(tmp_path, "run3.txt", "# header\nq1 Q0 d1 1 2.0 t\n"), comments=False)


def test_byte_order_marks_do_not_join_the_first_id(tmp_path):
    bom = "\ufeff"
    assert rankviz.read_run(_write(tmp_path, "r.txt", bom + "q1 Q0 d1 1 2.0 t\n"))["query_id"].tolist() == ["q1"]
    assert rankviz.read_qrels(_write(tmp_path, "q.txt", bom + "q1 0 d1 1\n"))["query_id"].tolist() == ["q1"]
    assert rankviz.read_topics(_write(tmp_path, "t.tsv", bom + "1\tcoronavirus origin\n"))["query_id"].tolist() == ["1"]
    xml = bom + '<?xml version="1.0"?><topics><topic number="1"><query>origin</query></topic></topics>'
    assert rankviz.read_topics(_write(tmp_path, "t.xml", xml))["query_id"].tolist() == ["1"]
    windows = ("\ufeffq1 0 d1 1\r\n").encode("utf-16-le")  # PowerShell's `>` writes UTF-16 with a mark
    assert rankviz.read_qrels(_write(tmp_path, "ps.txt", b"\xff\xfe" + windows[2:]))["doc_id"].tolist() == ["d1"]


def test_xml_topic_number_label_is_dropped(tmp_path):
    xml = "<topics><topic><num>Number: 301</num><title>Topic: Organized crime</title><desc>Description: Which?</desc></topic></topics>"
    topics = rankviz.read_topics(_write(tmp_path, "t.xml", xml))
    assert topics.to_dict("records") == [{"query_id": "301", "text": "Organized crime", "description": "Which?"}]


def test_classic_trec_sgml_topics(tmp_path):
    sgml = (
        "<top>\n\n<num> Number: 301\n<title> International Organized Crime\n\n<desc> Description:\n"
        "Identify organizations that participate in international criminal activity & drugs.\n\n"
        "<narr> Narrative:\nA relevant document must identify the organization.\n\n</top>\n\n"
        "<top>\n<num> Number: 302 \n<title> Poliomyelitis and Post-Polio\n</top>\n"
    )
    topics = rankviz.read_topics(_write(tmp_path, "topics.301-302", sgml))
    assert topics.columns.tolist() == ["query_id", "text", "description", "narrative"]
    assert topics["query_id"].tolist() == ["301", "302"]
    assert topics["text"].tolist() == ["International Organized Crime", "Poliomyelitis and Post-Polio"]
    assert topics["description"].tolist() == [
        "Identify organizations that participate in international criminal activity & drugs.",
        "",
    ]
    assert topics["narrative"].iloc[0] == "A relevant document must identify the organization."


def test_gzip_files_read_by_their_magic_bytes_not_their_name(tmp_path):
    run = _write(tmp_path, "run.txt", gzip.compress(b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"))
    qrels = _write(tmp_path, "qrels.dat", gzip.compress(b"q1 0 d2 1\n"))
    topics = _write(
        tmp_path, "topics.xml", gzip.compress(b"<topics><topic number='q1'><query>x</query></topic></topics>")
    )
    plain = _write(tmp_path, "plain.txt.gz", "q1 0 d2 1\n")  # a .gz name on a plain file is read as plain text
    assert rankviz.read_run(run)["doc_id"].tolist() == ["d1", "d2"]
    assert rankviz.read_qrels(qrels).equals(rankviz.read_qrels(plain))
    assert rankviz.read_topics(topics)["query_id"].tolist() == ["q1"]
    assert rankviz.read_run(run).rank.mrr(qrels=qrels).item() == 0.5


def test_trec_covid_run_read_gzipped_is_the_same_frame(tmp_path):
    source = shared_path("trec_covid_round1", "runs", "smith.bm25")
    packed = _write(tmp_path, "smith.bm25.gz", gzip.compress(source.read_bytes()))
    pd.testing.assert_frame_equal(rankviz.read_run(packed), rankviz.read_run(source))


_PACKED = gzip.compress(b"q1 0 d2 1\n" * 100)

#: (reader, file name, content, the error's message after '<file>, ' or '<file>: ')
BAD_FILES = {
    "grade 2**63": (
        "qrels",
        "q.txt",
        "q1 0 d1 1\nq1 0 d2 9223372036854775808\n",
        r"line 2: the relevance \(4th\) field must be an integer within \+-2\*\*53 \(\+-9007199254740992, where "
        r"float64 stops being exact\), found '9223372036854775808': 'q1 0 d2 9223372036854775808'",
    ),
    "rank 2**64": (
        "run",
        "r.txt",
        "q1 Q0 d1 18446744073709551616 2.0 t\n",
        r"line 1: the rank \(4th\) field must be an integer within \+-2\*\*53",
    ),
    "grade 1e3": (
        "qrels",
        "e.txt",
        "q1 0 d1 1e3\n",
        r"line 1: the relevance \(4th\) field must be an integer, found '1e3'",
    ),
    "score nan": (
        "run",
        "r.txt",
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 nan t\n",
        r"line 2: the score \(5th\) field must be a finite number, found 'nan' \(trec_eval's atof would read it as NaN",
    ),
    "score inf": (
        "run",
        "r.txt",
        "q1 Q0 d1 1 inf t\n",
        r"line 1: .* found 'inf' \(trec_eval's atof would read it as infinity",
    ),
    "score -Infinity": ("run", "r.txt", "q1 Q0 d1 1 -Infinity t\n", r"line 1: .* found '-Infinity' \(trec_eval's atof"),
    "score 1e400": ("run", "r.txt", "q1 Q0 d1 1 1e400 t\n", r"line 1: .* found '1e400' \(too large for a float64\)"),
    "no-break space": (
        "qrels",
        "q.txt",
        "q1 0 d1 1\nq1 0 d2\u00a01\n",
        r"line 2: the line contains NO-BREAK SPACE \(U\+00A0\), which trec_eval does not read as a field separator",
    ),
    "old Mac line ends": (
        "qrels",
        "mac.txt",
        "q1 0 d1 1\rq1 0 d2 1\r",
        r"line 1: a carriage return \(CR\) inside the line, as old Mac files",
    ),
    "NUL byte": ("qrels", "nul.txt", "q1 0 d1 1\nq1 0 d\x002 1\n", r"line 2: the line contains a NUL byte"),
    "mark inside": (
        "qrels",
        "cat.txt",
        "q1 0 d1 1\n\ufeffq2 0 d2 1\n",
        r"line 2: the line contains a byte-order mark .* concatenated",
    ),
    "zip archive": ("run", "a.zip", b"PK\x03\x04rest", r"is a zip archive; unpack it"),
    "truncated gzip": (
        "qrels",
        "broken.gz",
        _PACKED[: len(_PACKED) // 2],
        r"the gzip-compressed data is corrupt or truncated",
    ),
    "gzip of latin-1": (
        "qrels",
        "latin.gz",
        gzip.compress("q1 0 d1 1\nq1 0 caf\xe9 1\n".encode("latin-1")),
        r"line 2: the file is not valid UTF-8",
    ),
    "<top> without <num>": (
        "topics",
        "topics.bad",
        "<top>\n<num> Number: 1\n</top>\n<top>\n<title> x\n</top>\n",
        r"line 4: a <top> topic without a <num>",
    ),
    "only comments": ("run", "run.txt", "# only\n", r"the file has no run lines \(1 comment line"),
}


@pytest.mark.parametrize("case", BAD_FILES, ids=list(BAD_FILES))
def test_bad_file_is_refused_naming_the_file_and_line(tmp_path, case):
    kind, name, content, message = BAD_FILES[case]
    path = _write(tmp_path, name, content)
    read = {"run": rankviz.read_run, "qrels": rankviz.read_qrels, "topics": rankviz.read_topics}[kind]
    with pytest.raises(rankviz.TrecFormatError) as caught:
        read(path)
    assert re.match(re.escape(path) + "(, |: )" + message, str(caught.value)), str(caught.value)


def test_grades_up_to_2_53_are_exact_and_dicts_are_checked_too(tmp_path):
    assert rankviz.read_qrels(_write(tmp_path, "ok.txt", f"q1 0 d1 {LIMIT}\nq1 0 d2 2.0\n"))["relevance"].tolist() == [
        LIMIT,
        2,
    ]
    with pytest.raises(
        rankviz.InputError,
        match=r"qrels_from_dict: relevance grades must be integers within \+-2\*\*53; the grade of \('q1', 'd1'\) is 9223372036854775808",
    ):
        rankviz.qrels_from_dict({"q1": {"d1": 2**63}})
    with pytest.raises(rankviz.InputError, match=r"\('q1', 'd1'\) is 'high'"):
        rankviz.qrels_from_dict({"q1": {"d1": "high"}})
    with pytest.raises(rankviz.InputError, match=r"run_from_dict: the score of \('q1', 'd1'\) must be a number"):
        rankviz.run_from_dict({"q1": {"d1": "2.0"}})


def test_whitespace_as_trec_eval_reads_it(tmp_path):
    crlf_tabs = "q1\tQ0\t d1 1\t2.0 t  \r\n\r\n \tq1 Q0\vd2\f2 1.0 t\r\n"
    assert rankviz.read_run(_write(tmp_path, "r.txt", crlf_tabs))["doc_id"].tolist() == ["d1", "d2"]


#: every character Python's str.split() splits on that C's isspace() (trec_eval's separator) does not
PYTHON_ONLY_SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace() and chr(c) not in " \t\n\v\f\r"]


@pytest.mark.parametrize("char", PYTHON_ONLY_SPACES, ids=[f"U+{ord(c):04X}" for c in PYTHON_ONLY_SPACES])
def test_every_space_trec_eval_would_keep_in_a_field_is_refused(tmp_path, char):
    path = _write(tmp_path, "q.txt", f"q1 0 d1 1\nq1 0 d2{char}x 1\n")
    with pytest.raises(rankviz.TrecFormatError, match=rf"line 2: the line contains .*U\+{ord(char):04X}"):
        rankviz.read_qrels(path)


def test_xml_topic_without_a_number_is_refused(tmp_path):
    xml = "<topics><topic number='1'><query>a</query></topic><topic><query>b</query></topic></topics>"
    with pytest.raises(rankviz.TrecFormatError, match=r"<topic> number 2 of the file has no number attribute or <num>"):
        rankviz.read_topics(_write(tmp_path, "t.xml", xml))


def test_a_folder_is_not_a_trec_file(tmp_path):
    with pytest.raises(rankviz.InputError, match="is a directory"):
        rankviz.read_qrels(tmp_path)


def test_written_files_read_back_as_written(tmp_path):
    run = pd.DataFrame({"query_id": ["#1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(rankviz.InputError, match=r"starts with '#', which trec_eval 10 and read_run read as a comment"):
        rankviz.write_run(run, tmp_path / "r.txt")
    with pytest.raises(rankviz.InputError, match="empty or contains whitespace"):
        rankviz.write_qrels(
            pd.DataFrame({"query_id": ["q"], "doc_id": ["a\u00a0b"], "relevance": [1]}), tmp_path / "q.txt"
        )
    with pytest.raises(
        rankviz.InputError, match=r"The score column 'score' has 1 value\(s\) that are NaN or infinite, first at row 0"
    ):
        rankviz.write_run(
            pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [float("inf")]}), tmp_path / "r.txt"
        )
