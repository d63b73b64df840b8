"""BEIR folders: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

The layout of the BEIR benchmark (Thakur et al., 2021) and of the embedding benchmarks
built on it: the corpus and the queries are JSON lines with ``_id``, ``text`` (and, in the
corpus, ``title``) fields; a split's qrels are tab-separated ``query-id corpus-id score``
lines under that header. Each file may be compressed (gzip, bzip2, xz, found by their
bytes; ``corpus.jsonl.gz`` is found too). The JSON files are parsed by pyarrow into Arrow
strings (no Python object per document); any file or line that cannot be read exactly is
an error naming the file, the line and the fix.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.json as pa_json

from .._errors import InputError, TrecFormatError
from .json_text import load_json
from .run_frame import string_series
from .text_files import CORRUPT, open_bytes
from .trec_lines import Shape
from .trec_reader import read_trec

__all__ = ["BeirData", "read_beir"]

_HEADER = ("query-id", "corpus-id", "score")
_SUFFIXES = ("", ".gz", ".bz2", ".xz")
#: what a line of BEIR's JSON files holds, for the message on one nested too deeply
_FLAT = "each line of a BEIR file is one flat object ('_id', 'text', 'title' strings)"


@dataclasses.dataclass(frozen=True)
class BeirData:
    """A BEIR split: its qrels, the queries and the documents.

    Attributes
    ----------
    qrels : DataFrame
        ``query_id``, ``doc_id`` (str) and ``relevance`` (int64), in file order.
    queries : DataFrame
        ``query_id`` and ``text`` (str) of every query in ``queries.jsonl``.
    documents : DataFrame or None
        ``doc_id``, ``title`` and ``text`` (str): the lookup ``rankviz.explore(...,
        documents=)`` takes. None when read with ``corpus=False``.
    """

    qrels: pd.DataFrame
    queries: pd.DataFrame
    documents: pd.DataFrame | None


def _find(folder: Path, stem: str) -> Path:
    for suffix in _SUFFIXES:
        if (folder / (stem + suffix)).is_file():
            return folder / (stem + suffix)
    raise FileNotFoundError(f"{folder}: no {stem} (nor {stem}.gz); is this a BEIR dataset folder?")


def _bad_json_line(name: str, path, fields: tuple[str, ...]) -> TrecFormatError | None:
    """The error naming the first line of a JSON-lines file that is not an object with string ``fields``."""
    _, _, stream = open_bytes(path)
    with stream:
        for number, raw in enumerate(stream, start=1):
            if not raw.strip():
                continue
            shown = raw.decode("utf-8", "replace").strip()[:200]
            try:
                record = load_json(raw.decode("utf-8").removeprefix("\ufeff"), f"{name}, line {number}", fix=_FLAT)
            except UnicodeDecodeError as exc:
                return TrecFormatError(f"{name}, line {number}: the file is not valid UTF-8 ({exc.reason}).")
            except TrecFormatError as exc:  # nested too deeply
                return exc
            except ValueError as exc:
                return TrecFormatError(f"{name}, line {number}: not a valid JSON object ({exc}): {shown!r}")
            if not isinstance(record, dict) or not isinstance(record.get("_id"), (str, int)):
                return TrecFormatError(f"{name}, line {number}: every record needs an '_id' (a string): {shown!r}")
            for field in fields[1:]:
                if not isinstance(record.get(field, ""), (str, type(None))):
                    return TrecFormatError(f"{name}, line {number}: the {field!r} field must be a string: {shown!r}")
            if isinstance(record["_id"], int):
                return TrecFormatError(
                    f"{name}, line {number}: the '_id' is a JSON number; BEIR ids are strings: write it as "
                    f'"{record["_id"]}": {shown!r}'
                )
    return None


def _json_table(path: Path, fields: tuple[str, ...]) -> pa.Table:
    """``fields`` (the first is ``_id``) of every line, as Arrow strings; missing texts become ``""``."""
    name = str(path)
    schema = pa.schema([(f, pa.string()) for f in fields])
    options = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    _, _, stream = open_bytes(path)
    try:
        with stream:
            table = pa_json.read_json(stream, parse_options=options)
        table.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise _bad_json_line(name, path, fields) or TrecFormatError(f"{name}: could not be read ({exc}).") from None
    except CORRUPT as exc:
        raise TrecFormatError(f"{name}: the compressed data is corrupt or truncated ({exc}).") from None
    if table.column("_id").null_count:
        raise _bad_json_line(name, path, fields) or TrecFormatError(f"{name}: a record has no '_id'.")
    return table


def _strings(table: pa.Table, field: str) -> pd.Series:
    return string_series(table.column(field).fill_null("").cast(pa.large_string()))


_QRELS = Shape("qrels", ("query_id", "doc_id", "relevance"), ("query_id", "doc_id", "relevance"),
                {"relevance": "score (3rd)"}, "query-id corpus-id score", extra=False)  # fmt: skip


def _qrels(path: Path) -> pd.DataFrame:
    def header(first: str) -> None:
        if tuple(first.split()) != _HEADER:
            raise TrecFormatError(
                f"{path}, line 1: expected BEIR's header 'query-id<TAB>corpus-id<TAB>score', found {first.strip()!r}. "
                "A file without it is TREC or MS MARCO qrels: read it with rankviz.read_qrels."
            )

    parsed = read_trec(path, lambda line: _QRELS, comments=False, header=header)
    return pd.DataFrame(
        {
            "query_id": string_series(parsed.strings["query_id"]),
            "doc_id": string_series(parsed.strings["doc_id"]),
            "relevance": parsed.numbers["relevance"],
        },
        copy=False,
    )


def read_beir(folder, *, split: str = "test", corpus: bool = True) -> BeirData:
    """Read a BEIR dataset folder: one split's qrels, the queries and the corpus as a document lookup.

    Parameters
    ----------
    folder : str or path-like
        The folder holding ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/`` (each JSON file
        may be compressed, e.g. ``corpus.jsonl.gz``).
    split : str, default 'test'
        The qrels file ``qrels/<split>.tsv`` (``'train'``, ``'dev'``, ``'test'``).
    corpus : bool, default True
        Read the corpus into ``documents`` (False skips it: the corpus can be large).

    Returns
    -------
    BeirData
        ``.qrels``, ``.queries`` and ``.documents`` frames; evaluate a run with
        ``rankviz.evaluate(run, measures, qrels=data.qrels)`` and explore it with
        ``rankviz.explore(run, qrels=data.qrels, queries=data.queries, documents=data.documents)``.

    Raises
    ------
    FileNotFoundError
        For a folder without those files or a split without its qrels (the message lists the splits there are).
    TrecFormatError
        Naming the file and the line, for a qrels file without BEIR's header, a line without three
        fields, a score that is not an integer, or a JSON line that is not an object with a string ``_id``.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> folder = tempfile.mkdtemp(); os.mkdir(os.path.join(folder, "qrels"))
    >>> _ = open(os.path.join(folder, "corpus.jsonl"), "w").write('{"_id": "d1", "title": "T", "text": "a doc"}\\n')
    >>> _ = open(os.path.join(folder, "queries.jsonl"), "w").write('{"_id": "q1", "text": "a question"}\\n')
    >>> _ = open(os.path.join(folder, "qrels", "test.tsv"), "w").write("query-id\\tcorpus-id\\tscore\\nq1\\td1\\t1\\n")
    >>> data = rankviz.read_beir(folder)
    >>> data.qrels.values.tolist(), data.documents["title"].tolist()
    ([['q1', 'd1', 1]], ['T'])
    """
    root = Path(os.fsdecode(folder))
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such folder (read_beir takes the folder of a BEIR dataset).")
    if not isinstance(split, str) or not split:
        raise InputError(f"The 'split' parameter of read_beir must be a split name such as 'test'. Got {split!r}.")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        found = (
            sorted(p.name.removesuffix(".tsv") for p in (root / "qrels").glob("*.tsv"))
            if (root / "qrels").is_dir()
            else []
        )
        raise FileNotFoundError(
            f"{qrels_path}: no such file; the splits in {root / 'qrels'} are {found or 'none'}. Pass split=..."
        )
    queries = _json_table(_find(root, "queries.jsonl"), ("_id", "text"))
    documents = None
    if corpus:
        table = _json_table(_find(root, "corpus.jsonl"), ("_id", "title", "text"))
        documents = pd.DataFrame(
            {"doc_id": _strings(table, "_id"), "title": _strings(table, "title"), "text": _strings(table, "text")}
        )
    return BeirData(
        qrels=_qrels(qrels_path),
        queries=pd.DataFrame({"query_id": _strings(queries, "_id"), "text": _strings(queries, "text")}),
        documents=documents,
    )
