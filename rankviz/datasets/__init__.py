"""Built-in example data: known-item search over the Python stdlib docs.

The example is a small but real retrieval experiment, generated offline from
the docstrings of the Python standard library by
``scripts/make_example_dataset.py`` (see ``rankviz/datasets/README.md`` for
the full recipe, parameters and headline numbers).

Documents
    Every public function, class and method of a curated set of stdlib
    modules (about 5,300 entries).  The ``doc_id`` is the qualified name where
    the entry is defined, e.g. ``json.dumps`` or
    ``collections.OrderedDict.move_to_end``.  The text is the qualified name
    and signature followed by the docstring *without its summary sentence*
    (undocumented entries have the signature line only).

Queries
    600 summary sentences ("Serialize ``obj`` to a JSON formatted ``str``.")
    sampled with a fixed seed from the entries whose summary makes a usable
    query.  The task is to find the entry the sentence was taken from.

Relevance grades (``qrels``)
    * **2** -- the entry whose summary is the query (exactly one per query);
    * **1** -- closely related entries, by three fixed rules: (1) for a
      method, its class; (2) entries of the same kind in the same namespace
      (class for methods, module otherwise) whose name terms overlap with the
      target's and differ from them by at most one term (``json.dump`` for
      ``json.dumps``, ``queue.LifoQueue`` for ``queue.Queue``); (3) entries
      of the same kind with the same short name (``join``; ``Queue.put`` for
      methods) in other modules, when there are at most five of them
      (``ntpath.join`` for ``posixpath.join``);
    * **0** -- the remaining documents of a depth-5 pool over the ``bm25``
      and ``tfidf`` runs, as in a TREC pooled assessment.

    Documents without a judgement are non-relevant.  Name terms are the
    lower-cased parts of an identifier split at ``_``, camelCase and digits,
    without stopwords and plural endings.

Runs (100 results per query and system)
    * ``bm25`` -- BM25 (k1 = 0.9, b = 0.4);
    * ``tfidf`` -- cosine similarity of log-tf-idf vectors;
    * ``rrf`` -- reciprocal rank fusion (k = 60) of the top 1,000 of both;
    * ``bm25+rerank`` -- BM25's top 100 re-ordered by a fixed combination of
      the BM25 score with name, phrase and coverage matching (same retrieved
      set as ``bm25``, different order).

    Scores are rounded to 6 decimals; ranks follow the scores, ties broken by
    ``doc_id`` descending (trec_eval's convention).

The files are read lazily on the first call and cached; every call returns
new DataFrames that the caller may modify freely.
"""

from __future__ import annotations

import functools
import gzip
import json
from importlib import resources
from typing import NamedTuple

import pandas as pd

from .irds import IrDataset, from_ir_datasets

__all__ = ["Example", "load_example", "load_example_documents", "from_ir_datasets", "IrDataset"]

#: Names of the systems in the example run, as stored in the run file.
_SYSTEMS = ("bm25", "bm25+rerank", "rrf", "tfidf")


class Example(NamedTuple):
    """The example experiment returned by :func:`load_example`.

    Parameters
    ----------
    run : pandas.DataFrame
        Columns ``system``, ``query_id``, ``doc_id``, ``rank``, ``score``.
    qrels : pandas.DataFrame
        Columns ``query_id``, ``doc_id``, ``relevance`` (0, 1 or 2).
    queries : pandas.DataFrame
        Columns ``query_id``, ``text``.

    Examples
    --------
    >>> from rankviz.datasets import load_example
    >>> example = load_example()
    >>> example.qrels.columns.tolist()
    ['query_id', 'doc_id', 'relevance']
    """

    run: pd.DataFrame
    qrels: pd.DataFrame
    queries: pd.DataFrame


def _open(name: str):
    """Open a data file shipped with the package (works from wheels/zips)."""
    return (resources.files(__name__) / "data" / name).open("rb")


def _read_tsv(name: str, **kwargs) -> pd.DataFrame:
    # keep_default_na=False: an id or query text such as "None" or "NA" must
    # stay a string, not become a missing value.
    with _open(name) as fh:
        return pd.read_csv(fh, sep="\t", compression="gzip", keep_default_na=False, **kwargs)


@functools.cache
def _run() -> pd.DataFrame:
    # The file is "wide": one row per (query, document) retrieved by any
    # system and one score column per system, empty where that system did
    # not retrieve the document.  Ranks are not stored; they are recomputed
    # from the scores with trec_eval's tie-breaking (doc_id descending),
    # exactly as the generator ranked the documents.
    wide = _read_tsv(
        "run.tsv.gz",
        dtype={"query_id": "str", "doc_id": "str", **dict.fromkeys(_SYSTEMS, "float64")},
        na_values=dict.fromkeys(_SYSTEMS, [""]),
    )
    run = (
        wide.melt(id_vars=["query_id", "doc_id"], value_vars=list(_SYSTEMS), var_name="system", value_name="score")
        .dropna(subset=["score"])
        .astype({"system": "str"})
        .sort_values(["system", "query_id", "score", "doc_id"], ascending=[True, True, False, False])
        .reset_index(drop=True)
    )
    run["rank"] = run.groupby(["system", "query_id"]).cumcount().astype("int64") + 1
    return run[["system", "query_id", "doc_id", "rank", "score"]]


@functools.cache
def _qrels() -> pd.DataFrame:
    return _read_tsv("qrels.tsv.gz", dtype={"query_id": "str", "doc_id": "str", "relevance": "int64"})


@functools.cache
def _queries() -> pd.DataFrame:
    return _read_tsv("queries.tsv.gz", dtype={"query_id": "str", "text": "str"})


@functools.cache
def _documents() -> pd.DataFrame:
    # Parsed with the json module rather than pd.read_json, whose type and
    # date inference varies between pandas versions.
    with _open("documents.jsonl.gz") as fh, gzip.open(fh, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    docs = pd.DataFrame.from_records(records, columns=["doc_id", "text"])
    # The qualified name is both the id and the title of an entry.
    docs.insert(1, "title", docs["doc_id"])
    return docs


def load_example() -> Example:
    """Load the example experiment: a run of four systems, qrels and queries.

    Known-item search over the Python standard library's documentation: 600
    queries (docstring summary sentences), about 5,300 documents, and 100
    results per query for each of the systems ``bm25``, ``tfidf``, ``rrf``
    and ``bm25+rerank``.  See the module documentation for how the grades
    were assigned.

    Returns
    -------
    Example
        A named tuple ``(run, qrels, queries)`` of new DataFrames:

        * ``run`` -- ``system``, ``query_id``, ``doc_id`` (str), ``rank``
          (int64, 1-based), ``score`` (float64); sorted by system, query and
          rank;
        * ``qrels`` -- ``query_id``, ``doc_id`` (str), ``relevance`` (int64:
          2 for the target entry, 1 for related entries, 0 for judged
          non-relevant ones);
        * ``queries`` -- ``query_id``, ``text`` (str).

    See Also
    --------
    load_example_documents : The document collection the runs rank.

    Examples
    --------
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> sorted(run["system"].unique())
    ['bm25', 'bm25+rerank', 'rrf', 'tfidf']
    >>> run.groupby(["system", "query_id"]).size().unique().tolist()
    [100]
    >>> qrels.groupby("query_id")["relevance"].max().unique().tolist()
    [2]
    >>> queries.columns.tolist()
    ['query_id', 'text']
    """
    return Example(run=_run().copy(), qrels=_qrels().copy(), queries=_queries().copy())


def load_example_documents() -> pd.DataFrame:
    """Load the document collection of the example experiment.

    Returns
    -------
    pandas.DataFrame
        A new DataFrame with one row per document, sorted by ``doc_id``:

        * ``doc_id`` -- the qualified name, e.g. ``json.dumps``;
        * ``title`` -- the same qualified name;
        * ``text`` -- the signature line followed by the docstring without
          its summary sentence.

    See Also
    --------
    load_example : Queries, relevance judgements and runs over these documents.

    Examples
    --------
    >>> from rankviz.datasets import load_example_documents
    >>> docs = load_example_documents()
    >>> docs.columns.tolist()
    ['doc_id', 'title', 'text']
    >>> print(docs.set_index("doc_id").loc["re.finditer", "text"])
    re.finditer(pattern, string, flags=0)
    <BLANKLINE>
    For each match, the iterator returns a Match object.
    <BLANKLINE>
    Empty matches are included in the result.

    The summary sentence of that docstring is one of the queries:

    >>> from rankviz.datasets import load_example
    >>> _, qrels, queries = load_example()
    >>> target = qrels[(qrels["doc_id"] == "re.finditer") & (qrels["relevance"] == 2)]
    >>> queries.merge(target, on="query_id")["text"].tolist()
    ['Return an iterator over all non-overlapping matches in the string.']
    """
    return _documents().copy()
