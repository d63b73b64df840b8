"""ir_datasets datasets in rankviz's frames: qrels, queries, a document lookup and the scored docs as a run.

``ir_datasets`` (MacAvaney et al., SIGIR 2021) names the collections IR people use
(``"msmarco-passage/dev/small"``, ``"beir/trec-covid"``) and downloads and iterates them;
rankviz only reads what a dataset provides, through its public API (``has_qrels()``,
``qrels_iter()``, ``queries_iter()``, ``docs_iter()``, ``scoreddocs_iter()``). Rows are
gathered in batches into Arrow arrays, so a large corpus or a scored-docs file of millions
of rows is never one Python list. The download itself is ir_datasets' job (and its cache's).
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools

import numpy as np
import pandas as pd
import pyarrow as pa

from .._errors import InputError
from ..io import run_frame as frames

__all__ = ["IrDataset", "from_ir_datasets"]

_BATCH = 1 << 16


@dataclasses.dataclass(frozen=True)
class IrDataset:
    """What :func:`from_ir_datasets` read from one dataset (None for what the dataset lacks).

    Parameters
    ----------
    name : str
        The dataset's id (``dataset.dataset_id()``), or ``"ir_datasets"`` when it has none.
    qrels : DataFrame or None
        ``query_id``, ``iteration`` (str), ``doc_id`` (str) and ``relevance`` (int64), as
        :func:`rankviz.read_qrels` gives them.
    queries : DataFrame or None
        ``query_id`` and ``text`` (the query's default text: the title of a TREC topic).
    documents : DataFrame or None
        ``doc_id``, ``title`` (``""`` where the documents have none) and ``text``: the lookup
        ``rankviz.explore(..., documents=)`` takes. None also when read with ``documents=False``.
    run : DataFrame or None
        The dataset's scored docs (``scoreddocs_iter()``, e.g. BM25's top 1000) with the
        columns of :func:`rankviz.read_run`; ``rank`` is the position in trec_eval's order
        (score descending, ties by doc id descending), ``system`` the dataset's name.

    Examples
    --------
    :func:`from_ir_datasets` builds one (``from_ir_datasets("beir/scifact/test")``); so can
    other code, from frames it already holds:

    >>> from rankviz.datasets import IrDataset, load_example
    >>> run, qrels, queries = load_example()
    >>> data = IrDataset(name="example", qrels=qrels, queries=queries, documents=None, run=run)
    >>> data.name, data.documents is None, len(data.queries)
    ('example', True, 600)
    """

    name: str
    qrels: pd.DataFrame | None
    queries: pd.DataFrame | None
    documents: pd.DataFrame | None
    run: pd.DataFrame | None


def _load(dataset_or_id):
    if not isinstance(dataset_or_id, str):
        if not hasattr(dataset_or_id, "has_qrels"):
            raise InputError(
                "from_ir_datasets takes an ir_datasets dataset id ('beir/scifact/test') or a dataset from "
                f"ir_datasets.load(...). Got {type(dataset_or_id).__name__} instead."
            )
        return dataset_or_id
    try:
        import ir_datasets
    except ImportError:
        raise ImportError(
            "from_ir_datasets needs the ir_datasets package: pip install ir_datasets (or 'rankviz[frames]')."
        ) from None
    try:
        return ir_datasets.load(dataset_or_id)
    except KeyError:
        close = difflib.get_close_matches(dataset_or_id, list(ir_datasets.registry), n=3)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else " See ir_datasets.registry for the ids."
        raise InputError(f"from_ir_datasets: ir_datasets has no dataset {dataset_or_id!r}.{hint}") from None


def _text(record, fields: tuple[str, ...]) -> str:
    if hasattr(record, "default_text"):
        return record.default_text()
    for field in fields:
        if isinstance(getattr(record, field, None), str):
            return getattr(record, field)
    return ""


def _columns(rows, getters: dict) -> dict[str, list]:
    """``{name: list of Arrow arrays}``, one array per batch of ``_BATCH`` rows, each value from its getter."""
    out: dict[str, list] = {name: [] for name in getters}
    iterator = iter(rows)
    while batch := list(itertools.islice(iterator, _BATCH)):
        for name, (get, arrow_type) in getters.items():
            out[name].append(pa.array([get(row) for row in batch], type=arrow_type))
        del batch
    return out


def _strings(arrays: list) -> pd.Series:
    return frames.string_series(pa.chunked_array(arrays, type=pa.large_string()))


def _qrels(dataset) -> pd.DataFrame:
    cols = _columns(
        dataset.qrels_iter(),
        {
            "query_id": (lambda r: str(r.query_id), pa.large_string()),
            "iteration": (lambda r: str(getattr(r, "iteration", "0")), pa.large_string()),
            "doc_id": (lambda r: str(r.doc_id), pa.large_string()),
            "relevance": (lambda r: int(r.relevance), pa.int64()),
        },
    )
    relevance = pa.chunked_array(cols.pop("relevance"), type=pa.int64()).to_numpy()
    return pd.DataFrame({**{k: _strings(v) for k, v in cols.items()}, "relevance": relevance})


def _queries(dataset) -> pd.DataFrame:
    cols = _columns(
        dataset.queries_iter(),
        {
            "query_id": (lambda r: str(r.query_id), pa.large_string()),
            "text": (lambda r: _text(r, ("text", "title", "query")), pa.large_string()),
        },
    )
    return pd.DataFrame({k: _strings(v) for k, v in cols.items()})


def _documents(dataset) -> pd.DataFrame:
    cols = _columns(
        dataset.docs_iter(),
        {
            "doc_id": (lambda r: str(r.doc_id), pa.large_string()),
            "title": (lambda r: getattr(r, "title", "") or "", pa.large_string()),
            "text": (lambda r: getattr(r, "text", None) or _text(r, ("body", "abstract")), pa.large_string()),
        },
    )
    return pd.DataFrame({k: _strings(v) for k, v in cols.items()})


def _run(dataset, name: str) -> pd.DataFrame:
    cols = _columns(
        dataset.scoreddocs_iter(),
        {
            "query_id": (lambda r: str(r.query_id), pa.large_string()),
            "doc_id": (lambda r: str(r.doc_id), pa.large_string()),
            "score": (lambda r: float(r.score), pa.float64()),
        },
    )
    queries = pa.chunked_array(cols["query_id"], type=pa.large_string())
    docs = pa.chunked_array(cols["doc_id"], type=pa.large_string())
    score = pa.chunked_array(cols["score"], type=pa.float64()).to_numpy()
    order, ranks = frames.trec_order(pd.Series(frames.string_series(queries)), -score, frames.string_series(docs))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = ranks  # each row keeps its place; its rank is its position in its query's list
    parts = frames.RunParts(name, queries, docs, rank, score, np.zeros(len(score), dtype=np.int8), [name])
    return frames.run_frame([parts])


def from_ir_datasets(dataset_or_id, *, documents: bool = True) -> IrDataset:
    """Read an ir_datasets dataset into rankviz's frames: qrels, queries, documents and scored docs.

    Parameters
    ----------
    dataset_or_id : str or ir_datasets dataset
        An id known to ir_datasets (``"beir/scifact/test"``, ``"msmarco-passage/dev/small"``),
        or a dataset object (``ir_datasets.load(...)``, or one made with
        ``ir_datasets.create_dataset`` from local files).
    documents : bool, default True
        Read the corpus into ``documents`` (False skips it; a corpus can be large).

    Returns
    -------
    IrDataset
        ``.qrels``, ``.queries``, ``.documents`` and ``.run`` (the scored docs), each None
        where the dataset has none.

    Raises
    ------
    InputError
        For an id ir_datasets does not know (with the closest ids) or an object that is not a dataset.
    ImportError
        When ir_datasets is not installed (``pip install ir_datasets``).

    Examples
    --------
    >>> data = rankviz.datasets.from_ir_datasets("beir/scifact/test")  # doctest: +SKIP
    >>> rankviz.evaluate(my_run, ["nDCG@10"], qrels=data.qrels)  # doctest: +SKIP
    """
    dataset = _load(dataset_or_id)
    name = dataset.dataset_id() if hasattr(dataset, "dataset_id") else "ir_datasets"
    name = name if isinstance(name, str) and name else "ir_datasets"

    def has(what: str) -> bool:
        check = getattr(dataset, f"has_{what}", None)
        return bool(check()) if check is not None else False

    return IrDataset(
        name=name,
        qrels=_qrels(dataset) if has("qrels") else None,
        queries=_queries(dataset) if has("queries") else None,
        documents=_documents(dataset) if documents and has("docs") else None,
        run=_run(dataset, name) if has("scoreddocs") else None,
    )
