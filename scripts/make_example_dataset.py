#!/usr/bin/env python
"""Regenerate rankviz's built-in example data set.

The example is a *known-item search* experiment over the documentation of the
Python standard library of the interpreter that runs this script:

* **documents** are the public functions, classes and methods of a curated set
  of stdlib modules (:data:`EXCLUDED_MODULES` lists what is left out and
  why).  A document's text is its qualified name and signature followed by
  its docstring *minus the summary sentence* (otherwise known-item search
  would be trivial); undocumented entries have the signature line only;
* **queries** are the summary sentences ("Return the ... of ...") of a seeded
  random sample of the entries whose summary makes a usable query
  (:func:`query_candidates`);
* **qrels** grade the entry the summary was taken from 2, closely related
  entries 1 (see :func:`grade_related`) and the remaining documents of a
  depth-5 pool over the two first-stage systems 0;
* **runs** come from four systems implemented here with numpy/scipy only:
  ``bm25``, ``tfidf``, ``rrf`` (reciprocal rank fusion of the two) and
  ``bm25+rerank`` (a feature-based re-ordering of BM25's top 100, see
  :func:`rerank_features`).

The stdlib sources are read statically with :mod:`ast`; no stdlib module is
imported for its docstrings (importing ``this`` prints, ``antigravity`` opens a
browser, GUI modules touch the display).

The output is deterministic: running the script twice with the same Python
(stdlib sources) and library versions produces byte-identical files (sorted
iteration everywhere, a fixed seed, scores rounded to a fixed number of
decimals, explicit tie-breaking, gzip with ``mtime=0`` and no file name).

Usage::

    .venv/bin/python scripts/make_example_dataset.py [--out DIR]
    .venv/bin/python scripts/make_example_dataset.py --tune-reranker

By default the files are written to ``rankviz/datasets/data/``; see
``rankviz/datasets/README.md`` for the file formats.
"""

from __future__ import annotations

import argparse
import ast
import csv
import gzip
import hashlib
import io
import itertools
import json
import math
import platform
import random
import re
import sys
import sysconfig
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

# ---------------------------------------------------------------------------
# Configuration.  Everything that influences the output lives here and is
# recorded in ``metadata.json``.
# ---------------------------------------------------------------------------

#: Format version of the files written by this script.
FORMAT_VERSION = 1

#: Number of queries sampled (with :data:`SEED`) from the eligible summaries.
N_QUERIES = 600
SEED = 20240607

#: Results kept per query and system, and the candidate depth used for fusion.
RUN_DEPTH = 100
FUSION_DEPTH = 1000
RRF_K = 60

#: BM25 parameters (Anserini/Pyserini defaults for short documents).
BM25_K1 = 0.9
BM25_B = 0.4

#: Weights of the ``bm25+rerank`` features (see :func:`rerank_features`).
#: Chosen by ``--tune-reranker``: a grid search (0, 0.3, 0.6, 1.0 for ``name``
#: and ``bigram``, ``bm25`` fixed at 1) maximising MRR@10 on the eligible
#: summaries that were *not* sampled as queries, so the shipped queries were
#: never used for tuning.
RERANK_WEIGHTS = {"bm25": 1.0, "name": 0.6, "bigram": 0.3}

#: Depth of the pool over ``bm25`` and ``tfidf`` whose unjudged documents are
#: judged non-relevant (grade 0), as in a TREC pooled assessment.
POOL_DEPTH = 5

#: Scores are rounded to this many decimals before ranking and writing.
DECIMALS = 6

#: Namesake rule: other entries with the same short name count as related
#: only if there are at most this many (a name like ``close`` is too generic).
MAX_NAMESAKES = 5

#: Query eligibility: summary length in words, and minimum body length (in
#: words) of the target document so that it has text beyond its signature.
MIN_QUERY_WORDS, MAX_QUERY_WORDS = 4, 40
MIN_BODY_WORDS = 15

#: Top-level stdlib modules and packages that are left out, with the reason.
EXCLUDED_MODULES = {
    # Tests, demos, tools and jokes rather than library API.
    "test": "the regression test suite",
    "idlelib": "the IDLE application",
    "turtledemo": "demo scripts",
    "ensurepip": "installer bootstrap",
    "venv": "command-line tool",
    "pydoc_data": "generated data, no API",
    "antigravity": "joke module (opens a web browser)",
    "this": "joke module (prints the Zen of Python)",
    # GUI toolkits.
    "tkinter": "GUI toolkit",
    "turtle": "GUI toolkit (Tk based)",
    # Boilerplate-heavy or internal modules whose docstrings are repetitive.
    "encodings": "codec boilerplate, one near-identical module per codec",
    "sre_compile": "deprecated alias of re._compiler",
    "sre_constants": "deprecated alias of re._constants",
    "sre_parse": "deprecated alias of re._parser",
    # Deprecated modules removed in Python 3.12/3.13 (PEP 594, PEP 632, ...);
    # leaving them out keeps the corpus closer to current Pythons.
    "lib2to3": "deprecated, removed in 3.13",
    "distutils": "deprecated, removed in 3.12",
    "imp": "deprecated, removed in 3.12",
    "asynchat": "deprecated, removed in 3.12",
    "asyncore": "deprecated, removed in 3.12",
    "smtpd": "deprecated, removed in 3.12",
    "aifc": "deprecated, removed in 3.13",
    "cgi": "deprecated, removed in 3.13",
    "cgitb": "deprecated, removed in 3.13",
    "chunk": "deprecated, removed in 3.13",
    "crypt": "deprecated, removed in 3.13",
    "imghdr": "deprecated, removed in 3.13",
    "mailcap": "deprecated, removed in 3.13",
    "msilib": "deprecated, removed in 3.13",
    "nntplib": "deprecated, removed in 3.13",
    "pipes": "deprecated, removed in 3.13",
    "sndhdr": "deprecated, removed in 3.13",
    "sunau": "deprecated, removed in 3.13",
    "telnetlib": "deprecated, removed in 3.13",
    "uu": "deprecated, removed in 3.13",
    "xdrlib": "deprecated, removed in 3.13",
}

#: Directory names skipped at any depth inside packages.
EXCLUDED_SUBPACKAGES = frozenset({"test", "tests", "idle_test", "site-packages"})

#: Summaries starting like this point elsewhere instead of describing the
#: entry; they make poor queries.
NON_DESCRIPTIVE_PREFIXES = (
    "same as",
    "see ",
    "alias for",
    "alias of",
    "deprecated",
    "this method is deprecated",
    "for backward",
    "backward compat",
    "compatibility",
    "override",
    "overrides",
    "internal",
    "helper",
    "used internally",
    "xxx",
    "todo",
)

#: A small English stopword list (articles, pronouns, auxiliaries, common
#: prepositions and conjunctions).  Domain words such as "return" or "file"
#: are kept: IDF takes care of them.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because
    been before being below between both but by can could did do does doing
    down during each few for from further had has have having he her here hers
    him his how i if in into is it its itself just me more most my no nor not
    now of off on once only or other our ours out over own same she should so
    some such than that the their theirs them then there these they this those
    through to too under until up very was we were what when where which while
    who whom why will with would you your yours
    """.split()
)

OUTPUT_FILES = (
    "documents.jsonl.gz",
    "queries.tsv.gz",
    "qrels.tsv.gz",
    "run.tsv.gz",
    "metadata.json",
)

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "rankviz" / "datasets" / "data"


# ---------------------------------------------------------------------------
# Text processing.
# ---------------------------------------------------------------------------

# Runs of capitals not followed by a lower-case letter ("JSON" in
# "JSONDecoder"), capitalised or lower-case words, and digit runs.  Applied to
# the original text so that camelCase and snake_case identifiers split.
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _stem(token: str) -> str:
    """Strip English plural endings (a deliberately tiny stemmer)."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Split text into lower-case, stemmed, stopword-free index terms.

    Identifiers are split on ``_``, camelCase and any non-alphanumeric
    character, so ``OrderedDict.move_to_end`` yields
    ``["ordered", "dict", "move", "end"]``.  Single characters are dropped.

    Parameters
    ----------
    text : str
        Any text (docstring, query, qualified name).

    Returns
    -------
    list of str
        Terms in text order (duplicates kept).
    """
    terms = []
    for word in _WORD_RE.findall(text):
        word = word.lower()
        if len(word) < 2 or word in STOPWORDS:
            continue
        terms.append(_stem(word))
    return terms


# First sentence end: a period followed by white space and something that
# starts a sentence; common abbreviations do not end a sentence.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)\.\s+(?=[A-Z0-9`'\"(])")
_SIGNATURE_LINE = re.compile(r"^[\w.]+\s*\(.*\)")


def split_summary(docstring: str) -> tuple[str, str]:
    """Split a cleaned docstring into its summary sentence and the rest.

    The summary is the first sentence of the first paragraph (PEP 257 summary
    lines are often wrapped, so the whole paragraph is looked at), with white
    space collapsed.  The rest is the remainder of that paragraph followed by
    the other paragraphs, layout preserved.

    Parameters
    ----------
    docstring : str
        A docstring as returned by :func:`ast.get_docstring`.

    Returns
    -------
    summary, rest : str
    """
    parts = re.split(r"\n[ \t]*\n", docstring.strip(), maxsplit=1)
    first = " ".join(parts[0].split())
    rest = parts[1].strip() if len(parts) > 1 else ""
    match = _SENTENCE_END.search(first)
    if match:
        summary, remainder = first[: match.start() + 1], first[match.end() :]
        rest = f"{remainder}\n\n{rest}".strip()
    else:
        summary = first
    return summary, rest


# ---------------------------------------------------------------------------
# Static extraction of API entries from the stdlib sources.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One public API entry (function, class or method)."""

    qualname: str  #: e.g. ``collections.OrderedDict.move_to_end``
    module: str  #: e.g. ``collections``
    kind: str  #: ``"function"``, ``"class"`` or ``"method"``
    owner: str | None  #: qualified name of the class, for methods
    signature: str  #: parameter list without parentheses
    summary: str  #: first sentence of the docstring ("" if undocumented)
    body: str  #: docstring without the summary sentence

    @property
    def name(self) -> str:
        """Last component of the qualified name."""
        return self.qualname.rpartition(".")[2]

    @property
    def short_name(self) -> str:
        """``Class.method`` for methods, the plain name otherwise."""
        parts = self.qualname.split(".")
        return ".".join(parts[-2:]) if self.kind == "method" else parts[-1]

    @property
    def text(self) -> str:
        """Document text: header line (name and signature) plus the body."""
        prefix = "class " if self.kind == "class" else ""
        header = f"{prefix}{self.qualname}({self.signature})"
        return f"{header}\n\n{self.body}" if self.body else header


def discover_modules(stdlib: Path) -> list[tuple[str, Path]]:
    """List the curated stdlib modules as ``(dotted_name, path)`` pairs.

    Top-level modules and packages are taken from *stdlib* unless they are
    private (leading underscore) or listed in :data:`EXCLUDED_MODULES`.
    Inside packages, private modules and subpackages, ``__main__`` modules and
    test directories are skipped.

    Parameters
    ----------
    stdlib : Path
        The ``stdlib`` directory from :func:`sysconfig.get_paths`.

    Returns
    -------
    list of (str, Path)
        Sorted by dotted name.
    """
    modules = []
    for path in sorted(stdlib.iterdir()):
        name = path.name.removesuffix(".py")
        if name.startswith("_") or name in EXCLUDED_MODULES:
            continue
        if path.is_file() and path.suffix == ".py":
            modules.append((name, path))
        elif path.is_dir() and (path / "__init__.py").is_file():
            for sub in sorted(path.rglob("*.py")):
                parts = sub.relative_to(stdlib).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                if any(p.startswith("_") or p in EXCLUDED_SUBPACKAGES for p in parts):
                    continue
                # Only modules reachable through packages (every directory on
                # the way has an __init__.py).
                if all((stdlib.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(1, len(parts))):
                    modules.append((".".join(parts), sub))
    return sorted(modules)


def _static_all(tree: ast.Module) -> frozenset[str] | None:
    """Return the module's ``__all__`` if it can be read statically.

    Literal assignments, ``+=`` and ``.append``/``.extend`` calls with literal
    arguments anywhere at module level (including ``if``/``try`` blocks) are
    understood; anything else makes ``__all__`` dynamic and ``None`` is
    returned (the leading-underscore rule then decides what is public).
    """
    names: set[str] = set()
    found = False

    def literal_strings(node: ast.AST) -> list[str] | None:
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError):
            return None
        if isinstance(value, str):
            return [value]
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
        return None

    for node in _module_level_statements(tree.body):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            values = node.value
        elif isinstance(node, ast.AugAssign) and getattr(node.target, "id", None) == "__all__":
            values = node.value
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and getattr(node.value.func.value, "id", None) == "__all__"
        ):
            call = node.value
            if call.func.attr not in ("append", "extend") or len(call.args) != 1:
                return None
            values = call.args[0]
        else:
            continue
        found = True
        strings = literal_strings(values)
        if strings is None:
            return None
        names.update(strings)
    return frozenset(names) if found else None


def _module_level_statements(body: list[ast.stmt]):
    """Yield module-level statements, descending into ``if``/``try`` blocks.

    Function and class bodies are not entered.
    """
    for node in body:
        if isinstance(node, ast.If):
            yield from _module_level_statements(node.body)
            yield from _module_level_statements(node.orelse)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _module_level_statements(block)
            for handler in node.handlers:
                yield from _module_level_statements(handler.body)
        else:
            yield node


def _module_level_defs(body: list[ast.stmt]):
    """Yield function and class definitions at module level."""
    for node in _module_level_statements(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node


def _decorator_names(node) -> set[str]:
    names = set()
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
    return names


def _signature(args: ast.arguments, drop_first: bool) -> str:
    """Unparse a parameter list, optionally without ``self``/``cls``."""
    args = ast.arguments(
        posonlyargs=list(args.posonlyargs),
        args=list(args.args),
        vararg=args.vararg,
        kwonlyargs=list(args.kwonlyargs),
        kw_defaults=list(args.kw_defaults),
        kwarg=args.kwarg,
        defaults=list(args.defaults),
    )
    if drop_first:
        if args.posonlyargs:
            args.posonlyargs.pop(0)
        elif args.args:
            # Defaults align with the *last* parameters, so dropping the first
            # one only matters when every parameter had a default.
            if len(args.defaults) > len(args.args) - 1:
                args.defaults.pop(0)
            args.args.pop(0)
    return ast.unparse(args)


def _entry(qualname, module, kind, owner, signature, node) -> Entry:
    # Undocumented entries are kept: like an API reference they list the
    # name and signature only, and they are realistic distractors.
    summary, body = split_summary(ast.get_docstring(node, clean=True) or "")
    return Entry(qualname, module, kind, owner, signature, summary, body)


def extract_entries(module: str, tree: ast.Module) -> list[Entry]:
    """Extract the public functions, classes and methods of a module.

    Public means: not starting with an underscore and, for module-level
    names, listed in ``__all__`` when the module defines it statically.
    Methods are those defined directly in a public class's body; nested
    classes, ``@overload`` stubs and dunder methods are skipped.

    Parameters
    ----------
    module : str
        Dotted module name used to qualify the entries.
    tree : ast.Module
        The parsed module source.

    Returns
    -------
    list of Entry
        In source order; the first definition wins when a name is defined
        more than once (e.g. in both branches of an ``if``).
    """
    public = _static_all(tree)
    entries: dict[str, Entry] = {}

    def add(entry: Entry) -> None:
        if entry.qualname not in entries:
            entries[entry.qualname] = entry

    for node in _module_level_defs(tree.body):
        if node.name.startswith("_") or (public is not None and node.name not in public):
            continue
        if "overload" in _decorator_names(node):
            continue
        qualname = f"{module}.{node.name}"
        if qualname in entries:
            continue
        if isinstance(node, ast.ClassDef):
            init = next(
                (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
                None,
            )
            signature = _signature(init.args, drop_first=True) if init else ""
            add(_entry(qualname, module, "class", None, signature, node))
            for item in node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                decorators = _decorator_names(item)
                if item.name.startswith("_") or "overload" in decorators:
                    continue
                signature = _signature(item.args, drop_first="staticmethod" not in decorators)
                add(_entry(f"{qualname}.{item.name}", module, "method", qualname, signature, item))
        else:
            add(_entry(qualname, module, "function", None, _signature(node.args, drop_first=False), node))
    return list(entries.values())


def collect_entries(stdlib: Path) -> tuple[list[Entry], list[str], str]:
    """Read all curated modules and return entries, module names, fingerprint.

    The fingerprint is a SHA-256 over the names and bytes of the source files
    read, so that a regeneration can tell whether its inputs were the same.
    """
    digest = hashlib.sha256()
    entries: dict[str, Entry] = {}
    modules = []
    for name, path in discover_modules(stdlib):
        source = path.read_bytes()
        digest.update(name.encode() + b"\0" + source + b"\0")
        modules.append(name)
        tree = ast.parse(source, filename=str(path))
        for entry in extract_entries(name, tree):
            entries.setdefault(entry.qualname, entry)
    return [entries[k] for k in sorted(entries)], modules, digest.hexdigest()


# ---------------------------------------------------------------------------
# Queries and relevance judgements.
# ---------------------------------------------------------------------------


def _normalise(summary: str) -> str:
    return " ".join(summary.lower().split()).rstrip(".")


def query_candidates(entries: list[Entry]) -> list[Entry]:
    """Entries whose summary makes a reasonable known-item query.

    A summary qualifies when it

    * has between :data:`MIN_QUERY_WORDS` and :data:`MAX_QUERY_WORDS` words;
    * is not a signature line (``dumps(obj) -> str``) and does not merely
      refer elsewhere (:data:`NON_DESCRIPTIVE_PREFIXES`);
    * is not shared verbatim (case and white space aside) with another entry;
    * has at least two index terms that are not terms of the entry's own
      qualified name (it says more than the name);

    and the entry's document body has at least :data:`MIN_BODY_WORDS` words.
    """
    counts = Counter(_normalise(e.summary) for e in entries)
    selected = []
    for e in entries:
        words = e.summary.split()
        lowered = e.summary.lower()
        if not MIN_QUERY_WORDS <= len(words) <= MAX_QUERY_WORDS:
            continue
        if not e.summary[0].isupper() or "..." in e.summary:
            continue
        if _SIGNATURE_LINE.match(e.summary) or "->" in e.summary:
            continue
        if lowered.startswith(NON_DESCRIPTIVE_PREFIXES):
            continue
        if counts[_normalise(e.summary)] > 1:
            continue
        if len(set(tokenize(e.summary)) - set(tokenize(e.qualname))) < 2:
            continue
        if len(e.body.split()) < MIN_BODY_WORDS:
            continue
        selected.append(e)
    return selected


def _scope(entry: Entry) -> tuple[str, str]:
    """The namespace an entry is defined in: its class, or module and kind."""
    return ("method", entry.owner) if entry.kind == "method" else (entry.kind, entry.module)


def grade_related(
    target: Entry,
    entries_by_name: dict[str, Entry],
    scopes: dict[tuple[str, str], list[Entry]],
    namesakes: dict[tuple[str, str], list[Entry]],
) -> set[str]:
    """Qualified names of the entries judged partially relevant (grade 1).

    Rules, applied to every query's target entry:

    1. *Enclosing class* -- for a method, its class.
    2. *Name variants* -- entries of the same kind in the same namespace (the
       same class for methods, the same module otherwise) whose name terms
       (:func:`tokenize` of the last name component) overlap with the
       target's and differ from them by at most one term:
       ``json.dumps`` -> ``json.dump``; ``queue.Queue`` -> ``queue.LifoQueue``;
       ``Element.hasAttribute`` -> ``Element.getAttribute``,
       ``Element.hasAttributeNS``; but not ``Element.getAttributeNode``.
    3. *Namesakes* -- entries of the same kind and short name (``join`` for
       functions and classes, ``Queue.put`` for methods) in other modules,
       provided there are at most :data:`MAX_NAMESAKES` of them
       (``posixpath.join`` -> ``ntpath.join``; a name shared more widely,
       such as ``close``, says little).
    """
    related: set[str] = set()
    if target.kind == "method" and target.owner in entries_by_name:
        related.add(target.owner)
    terms = set(tokenize(target.name))
    for other in scopes[_scope(target)]:
        other_terms = set(tokenize(other.name))
        if terms & other_terms and len(terms ^ other_terms) <= 1:
            related.add(other.qualname)
    others = [e for e in namesakes[(target.kind, target.short_name)] if e.module != target.module]
    if len(others) <= MAX_NAMESAKES:
        related.update(e.qualname for e in others)
    related.discard(target.qualname)
    return related


# ---------------------------------------------------------------------------
# Retrieval.
# ---------------------------------------------------------------------------


def term_matrix(texts: list[list[str]], vocab: dict[str, int]) -> sp.csr_matrix:
    """Term-frequency matrix (rows = texts) over a fixed vocabulary."""
    indptr, indices, data = [0], [], []
    for terms in texts:
        counts = Counter(t for t in terms if t in vocab)
        for term in sorted(counts, key=vocab.__getitem__):
            indices.append(vocab[term])
            data.append(counts[term])
        indptr.append(len(indices))
    return sp.csr_matrix(
        (np.asarray(data, dtype=np.float64), np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
        shape=(len(texts), len(vocab)),
    )


def _log(values: np.ndarray) -> np.ndarray:
    # math.log (the C library's) rather than np.log: numpy may pick a SIMD
    # implementation by CPU, which can change the last bit of a score.
    return np.array([math.log(v) for v in values.tolist()], dtype=np.float64)


def bm25_scores(doc_tf: sp.csr_matrix, query_tf: sp.csr_matrix, k1: float = BM25_K1, b: float = BM25_B) -> np.ndarray:
    """BM25 scores of every document for every query (dense, queries x docs).

    Uses Lucene's non-negative IDF ``log(1 + (N - df + 0.5) / (df + 0.5))``;
    repeated query terms count as often as they occur.
    """
    n_docs = doc_tf.shape[0]
    df = np.bincount(doc_tf.indices, minlength=doc_tf.shape[1])
    idf = _log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    doc_len = np.asarray(doc_tf.sum(axis=1)).ravel()
    norm = k1 * (1.0 - b + b * doc_len / doc_len.mean())
    weights = doc_tf.copy()
    row_norm = np.repeat(norm, np.diff(weights.indptr))
    weights.data = weights.data * (k1 + 1.0) / (weights.data + row_norm)
    weights = weights @ sp.diags(idf)
    return (query_tf @ weights.T).toarray()


def tfidf_scores(doc_tf: sp.csr_matrix, query_tf: sp.csr_matrix) -> np.ndarray:
    """Cosine similarity of L2-normalised ``(1 + ln tf) * ln(N / df)`` vectors."""
    n_docs = doc_tf.shape[0]
    df = np.bincount(doc_tf.indices, minlength=doc_tf.shape[1])
    idf = _log(n_docs / np.maximum(df, 1))

    def weigh(tf: sp.csr_matrix) -> sp.csr_matrix:
        w = tf.copy()
        w.data = 1.0 + _log(w.data)
        w = (w @ sp.diags(idf)).tocsr()
        lengths = np.sqrt(np.asarray(w.multiply(w).sum(axis=1)).ravel())
        return sp.diags(1.0 / np.where(lengths > 0, lengths, 1.0)) @ w

    return (weigh(query_tf) @ weigh(doc_tf).T).toarray()


def _order(doc_index: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Positions sorting one query's candidates by score, ties by doc_id desc.

    Documents are numbered in ``doc_id`` order, so a higher index is a larger
    ``doc_id``: this is trec_eval's tie-breaking, hence rank and score agree.
    """
    return np.lexsort((-doc_index, -scores))


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and rounded scores of the *k* best documents per query.

    Scores are rounded to :data:`DECIMALS` first so that the ranking agrees
    with the written scores; ties are broken as in :func:`_order`.  A full
    sort (not ``argpartition``) keeps the cut-off exact under ties.
    """
    rounded = np.round(scores, DECIMALS)
    doc_index = np.arange(scores.shape[1])
    order = np.array([_order(doc_index, row)[:k] for row in rounded])
    return order, np.take_along_axis(rounded, order, axis=1)


def rrf(runs: list[tuple[np.ndarray, np.ndarray]], n_docs: int, k: int = RRF_K) -> np.ndarray:
    """Dense reciprocal-rank-fusion scores ``sum 1 / (k + rank)`` per query.

    Parameters
    ----------
    runs : list of (indices, scores)
        Ranked candidate lists as returned by :func:`top_k`.  Candidates with
        a zero score did not match the query and are not fused.
    n_docs : int
        Number of documents (columns of the result).
    k : int
        The RRF constant.
    """
    n_queries, depth = runs[0][0].shape
    fused = np.zeros((n_queries, n_docs))
    contribution = 1.0 / (k + np.arange(1, depth + 1))
    rows = np.repeat(np.arange(n_queries)[:, None], depth, axis=1)
    for indices, scores in runs:
        np.add.at(fused, (rows, indices), np.where(scores > 0, contribution, 0.0))
    return fused


def _bigrams(terms: list[str]) -> set[tuple[str, str]]:
    return set(zip(terms, terms[1:]))


def rerank_features(
    query_terms: list[list[str]],
    entries: list[Entry],
    doc_terms: list[list[str]],
    cand: np.ndarray,
    cand_scores: np.ndarray,
) -> dict[str, np.ndarray]:
    """Features a (cheap) cross-encoder-like reranker uses on BM25's candidates.

    * ``bm25``: the BM25 score divided by the query's best BM25 score;
    * ``name``: the share of the terms of the entry's own name (``Class`` and
      ``method`` for methods, the last component otherwise) that some query
      term matches on its first four characters -- a crude stand-in for the
      sub-word matching of a neural model (``decode`` ~ ``decoder``,
      ``attr`` ~ ``attribute``);
    * ``bigram``: the share of the query's adjacent term pairs that also occur
      adjacently in the document text (phrase / proximity evidence).

    Only the query and the indexed document text are used -- never the
    relevance judgements nor the held-out summary sentence.

    Returns
    -------
    dict of str to numpy.ndarray
        One array per feature, aligned with *cand* (queries x candidates).
    """
    own_name = [{t[:4] for t in tokenize(e.short_name)} for e in entries]
    features = {name: np.zeros(cand.shape) for name in ("bm25", "name", "bigram")}
    for i, (terms, docs) in enumerate(zip(query_terms, cand)):
        q_bigrams = _bigrams(terms)
        q_prefixes = {t[:4] for t in terms}
        features["bm25"][i] = cand_scores[i] / cand_scores[i].max()
        for j, d in enumerate(docs):
            if own_name[d]:
                features["name"][i, j] = len(own_name[d] & q_prefixes) / len(own_name[d])
            if q_bigrams:
                features["bigram"][i, j] = len(q_bigrams & _bigrams(doc_terms[d])) / len(q_bigrams)
    return features


def rerank(
    features: dict[str, np.ndarray], cand: np.ndarray, weights: dict[str, float] = RERANK_WEIGHTS
) -> tuple[np.ndarray, np.ndarray]:
    """Re-order candidates by a weighted sum of :func:`rerank_features`.

    Returns
    -------
    indices, scores : numpy.ndarray
        The candidates in their new order and their rounded new scores.
    """
    scores = np.round(sum(w * features[name] for name, w in weights.items()), DECIMALS)
    order = np.array([_order(c, s) for c, s in zip(cand, scores)])
    return np.take_along_axis(cand, order, axis=1), np.take_along_axis(scores, order, axis=1)


def _mrr_at_10(ranked: np.ndarray, target: np.ndarray) -> float:
    """MRR@10 of one target document per query (rows of *ranked*)."""
    hit = ranked[:, :10] == target[:, None]
    return float(np.sum(hit / np.arange(1, 11)) / len(target))


# ---------------------------------------------------------------------------
# The experiment.
# ---------------------------------------------------------------------------


@dataclass
class Collection:
    """The documents and their index."""

    entries: list[Entry]  #: sorted by qualified name (= doc_id)
    doc_terms: list[list[str]]
    vocab: dict[str, int]
    doc_tf: sp.csr_matrix

    @classmethod
    def build(cls, entries: list[Entry]) -> Collection:
        doc_terms = [tokenize(e.text) for e in entries]
        vocab = {t: i for i, t in enumerate(sorted({t for d in doc_terms for t in d}))}
        return cls(entries, doc_terms, vocab, term_matrix(doc_terms, vocab))

    def query_tf(self, queries: list[list[str]]) -> sp.csr_matrix:
        return term_matrix(queries, self.vocab)


def split_queries(collection: Collection) -> tuple[list[Entry], list[Entry]]:
    """Sample the query targets; return ``(targets, held_out)``.

    Besides the textual rules of :func:`query_candidates`, a query must share
    a term with at least :data:`RUN_DEPTH` documents, so that every system
    returns a full ranking of *matching* documents (no zero-score padding).
    :data:`N_QUERIES` of the candidates are drawn with :data:`SEED` (Python's
    :mod:`random`, whose sampling is stable for a given Python version); the
    others are held out and only used by ``--tune-reranker``.
    """
    candidates = query_candidates(collection.entries)
    tf = collection.query_tf([tokenize(e.summary) for e in candidates])
    matching = ((tf > 0).astype(np.float64) @ (collection.doc_tf > 0).astype(np.float64).T) > 0
    n_matching = np.asarray(matching.sum(axis=1)).ravel()
    candidates = [e for e, n in zip(candidates, n_matching) if n >= RUN_DEPTH]
    if len(candidates) < N_QUERIES:
        raise SystemExit(f"only {len(candidates)} eligible queries (< {N_QUERIES})")
    picked = random.Random(SEED).sample(range(len(candidates)), N_QUERIES)
    held_out = sorted(set(range(len(candidates))) - set(picked))
    return [candidates[i] for i in picked], [candidates[i] for i in held_out]


def first_stage(collection: Collection, query_terms: list[list[str]]):
    """BM25 and TF-IDF top-:data:`FUSION_DEPTH` ``(indices, scores)`` lists."""
    query_tf = collection.query_tf(query_terms)
    runs = {}
    for name, scores in (
        ("bm25", bm25_scores(collection.doc_tf, query_tf)),
        ("tfidf", tfidf_scores(collection.doc_tf, query_tf)),
    ):
        short = np.flatnonzero((scores > 0).sum(axis=1) < RUN_DEPTH)
        if len(short):  # cannot happen after split_queries(); be loud if it does
            raise SystemExit(f"{name}: queries with < {RUN_DEPTH} matches: {short}")
        runs[name] = top_k(scores, FUSION_DEPTH)
    return runs


def run_systems(collection: Collection, query_terms: list[list[str]]):
    """The four systems' top-:data:`RUN_DEPTH` ``(indices, scores)`` per query."""
    first = first_stage(collection, query_terms)
    bm25_top, bm25_val = (a[:, :RUN_DEPTH] for a in first["bm25"])
    tfidf_top, tfidf_val = (a[:, :RUN_DEPTH] for a in first["tfidf"])
    fused = rrf([first["bm25"], first["tfidf"]], len(collection.entries))
    features = rerank_features(query_terms, collection.entries, collection.doc_terms, bm25_top, bm25_val)
    return {
        "bm25": (bm25_top, bm25_val),
        "bm25+rerank": rerank(features, bm25_top),
        "rrf": top_k(fused, RUN_DEPTH),
        "tfidf": (tfidf_top, tfidf_val),
    }


def judge(collection: Collection, query_ids: list[str], targets: list[Entry], systems) -> list[tuple[str, str, int]]:
    """Relevance judgements ``(query_id, doc_id, grade)``, sorted.

    2 for the target, 1 by :func:`grade_related`, 0 for the rest of the
    depth-:data:`POOL_DEPTH` pool over ``bm25`` and ``tfidf``.
    """
    entries = collection.entries
    by_name = {e.qualname: e for e in entries}
    scopes: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    namesakes: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for e in entries:
        scopes[_scope(e)].append(e)
        namesakes[(e.kind, e.short_name)].append(e)
    rows = []
    for qi, (qid, target) in enumerate(zip(query_ids, targets)):
        grades = {target.qualname: 2}
        grades.update(dict.fromkeys(grade_related(target, by_name, scopes, namesakes), 1))
        for system in ("bm25", "tfidf"):
            for d in systems[system][0][qi, :POOL_DEPTH]:
                grades.setdefault(entries[d].qualname, 0)
        rows.extend((qid, doc, grades[doc]) for doc in sorted(grades))
    return rows


def tune_reranker(collection: Collection, held_out: list[Entry]) -> None:
    """Grid-search the reranker weights on the held-out summaries and print.

    This is how :data:`RERANK_WEIGHTS` was chosen; the sampled queries are
    never looked at.
    """
    position = {e.qualname: i for i, e in enumerate(collection.entries)}
    terms = [tokenize(e.summary) for e in held_out]
    target = np.array([position[e.qualname] for e in held_out])
    top, val = (a[:, :RUN_DEPTH] for a in first_stage(collection, terms)["bm25"])
    features = rerank_features(terms, collection.entries, collection.doc_terms, top, val)
    grid = (0.0, 0.3, 0.6, 1.0)
    results = []
    for name_w, bigram_w in itertools.product(grid, repeat=2):
        weights = {"bm25": 1.0, "name": name_w, "bigram": bigram_w}
        results.append((_mrr_at_10(rerank(features, top, weights)[0], target), weights))
    results.sort(key=lambda r: -r[0])  # stable: ties keep grid order
    print(f"{len(held_out)} held-out summaries; bm25 MRR@10 = {_mrr_at_10(top, target):.4f}")
    for mrr, weights in results[:5]:
        print(f"MRR@10 = {mrr:.4f}  {weights}")


# ---------------------------------------------------------------------------
# Output.
# ---------------------------------------------------------------------------


def _gzip_bytes(text: str) -> bytes:
    """Gzip *text* deterministically (no file name, ``mtime=0``)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as fh:
        fh.write(text.encode("utf-8"))
    return buffer.getvalue()


def _tsv(header: list[str], rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _fmt(score: float) -> str:
    # Scores are already rounded to DECIMALS; fixed-point formatting of the
    # rounded double reproduces exactly that decimal.
    return f"{score:.{DECIMALS}f}"


def serialise(
    collection: Collection, query_ids: list[str], query_texts: list[str], qrels: list[tuple[str, str, int]], systems
) -> dict[str, bytes]:
    """The data files' contents, by file name (without ``metadata.json``)."""
    doc_ids = [e.qualname for e in collection.entries]
    # The run is stored "wide" -- one row per (query, document) retrieved by
    # any system, one score column per system, empty when that system did not
    # return the document -- which spares repeating the long qualified names
    # four times (the file is about half the size of the long format).  Ranks
    # are not stored: they follow from the scores with trec_eval's
    # tie-breaking, and the loader recomputes them.
    system_names = sorted(systems)
    run_rows = []
    for qi, qid in enumerate(query_ids):
        cells: dict[int, dict[str, str]] = defaultdict(dict)
        for system in system_names:
            top, val = systems[system]
            for d, score in zip(top[qi].tolist(), val[qi].tolist()):
                cells[d][system] = _fmt(score)
        for d in sorted(cells):  # documents are numbered in doc_id order
            run_rows.append([qid, doc_ids[d], *(cells[d].get(s, "") for s in system_names)])
    documents = "".join(
        json.dumps({"doc_id": e.qualname, "text": e.text}, ensure_ascii=False) + "\n" for e in collection.entries
    )
    return {
        "documents.jsonl.gz": _gzip_bytes(documents),
        "queries.tsv.gz": _gzip_bytes(_tsv(["query_id", "text"], zip(query_ids, query_texts))),
        "qrels.tsv.gz": _gzip_bytes(_tsv(["query_id", "doc_id", "relevance"], qrels)),
        "run.tsv.gz": _gzip_bytes(_tsv(["query_id", "doc_id", *system_names], run_rows)),
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default: {DEFAULT_OUT})")
    parser.add_argument(
        "--tune-reranker",
        action="store_true",
        help="grid-search the reranker weights on the held-out summaries, print the best and write nothing",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    entries, modules, fingerprint = collect_entries(stdlib)
    collection = Collection.build(entries)
    targets, held_out = split_queries(collection)
    if args.tune_reranker:
        tune_reranker(collection, held_out)
        return 0

    query_ids = [f"q{i:04d}" for i in range(1, len(targets) + 1)]
    query_texts = [t.summary for t in targets]
    systems = run_systems(collection, [tokenize(q) for q in query_texts])
    qrels = judge(collection, query_ids, targets, systems)
    payloads = serialise(collection, query_ids, query_texts, qrels, systems)

    grades = Counter(g for _, _, g in qrels)
    metadata = {
        "format_version": FORMAT_VERSION,
        "generator": "scripts/make_example_dataset.py",
        "python_version": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "stdlib_sha256": fingerprint,
        "n_modules": len(modules),
        "n_documents": len(entries),
        "n_query_candidates": len(targets) + len(held_out),
        "n_queries": len(targets),
        "n_qrels_by_grade": {str(g): grades[g] for g in sorted(grades)},
        "systems": sorted(systems),
        "parameters": {
            "seed": SEED,
            "run_depth": RUN_DEPTH,
            "fusion_depth": FUSION_DEPTH,
            "rrf_k": RRF_K,
            "bm25_k1": BM25_K1,
            "bm25_b": BM25_B,
            "rerank_weights": RERANK_WEIGHTS,
            "pool_depth": POOL_DEPTH,
            "max_namesakes": MAX_NAMESAKES,
            "decimals": DECIMALS,
            "query_words": [MIN_QUERY_WORDS, MAX_QUERY_WORDS],
            "min_body_words": MIN_BODY_WORDS,
        },
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(payloads.items())},
        "excluded_modules": EXCLUDED_MODULES,
        "modules": modules,
    }
    payloads["metadata.json"] = (json.dumps(metadata, indent=1, sort_keys=True) + "\n").encode("utf-8")

    args.out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUT_FILES:
        (args.out / name).write_bytes(payloads[name])
    print(
        f"{len(entries)} documents, {len(targets)} queries, {len(qrels)} qrels; "
        f"{sum(map(len, payloads.values())) / 1e6:.2f} MB written to {args.out} "
        f"in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
