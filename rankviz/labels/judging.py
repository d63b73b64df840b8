"""Judging pairs with a judge straight into a label store: resumable, one committed transaction per answer.

:func:`judge_pairs` skips the pairs the judge (its name and fingerprint) already
graded, commits each grade or failure as it arrives, shows progress and returns
a :class:`JudgeReport`.
"""

from __future__ import annotations

import html
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from .._core.columns import columns_text, find_column
from .._core.frames import as_pandas
from .._errors import InputError, RankvizWarning, warn
from ..io.per_query import query_texts
from .judges import Judge, callable_judge
from .store import LabelStore

__all__ = ["JudgeReport", "judge_pairs", "document_texts", "pair_list"]


@dataclass
class JudgeReport:
    """What :func:`judge_pairs` did.

    Parameters
    ----------
    judge, fingerprint, annotator : str
        The judge's name and configuration hash, and the annotator its grades went in as.
    pairs : int
        Distinct pairs given.
    skipped : int
        Pairs this judge (same name and fingerprint) had graded before: not asked again.
    asked : int
        Pairs sent to the judge in this run.
    grades : int
        Grades committed in this run.
    failures : dict
        Failed judgements committed in this run, by kind (``'unparsable answer'``,
        ``'timeout'``, ``'rate limited'``, ``'HTTP 503'``, ``'connection error'``, ...).
    not_asked : int
        Pairs left unasked because the judge stopped (its server could not be
        reached); rerun :func:`judge_pairs` to ask them.
    requests : int
        HTTP requests made (retries included; 0 for a local function).
    tokens : dict
        Tokens the server reported, summed (``prompt_tokens``, ``completion_tokens``,
        ``total_tokens``); empty when it reported none.
    seconds : float
        Wall time of the run.

    Examples
    --------
    >>> from rankviz.labels import JudgeReport
    >>> report = JudgeReport("bm25-rule", "0123456789abcdef", "bm25-rule", pairs=3, asked=3, grades=2,
    ...                      failures={"timeout": 1})
    >>> report.n_failures, report.to_dict()["grades"]
    (1, 2)
    """

    judge: str
    fingerprint: str
    annotator: str
    pairs: int = 0
    skipped: int = 0
    asked: int = 0
    grades: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    not_asked: int = 0
    requests: int = 0
    tokens: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n_failures(self) -> int:
        """Failed judgements in this run."""
        return sum(self.failures.values())

    def to_dict(self) -> dict:
        """The report as a plain dict.

        Returns
        -------
        dict
            Every field by name (``failures`` and ``tokens`` as dicts).

        Examples
        --------
        >>> from rankviz.labels import JudgeReport
        >>> JudgeReport("rule", "0123456789abcdef", "rule", pairs=2, asked=2, grades=2).to_dict()["asked"]
        2
        """
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def __repr__(self) -> str:
        failed = ", ".join(f"{kind}: {n}" for kind, n in sorted(self.failures.items()))
        parts = [
            f"{self.grades} graded, {self.n_failures} failed" + (f" ({failed})" if failed else ""),
            f"{self.skipped} skipped (graded before)",
        ]
        if self.not_asked:
            parts.append(f"{self.not_asked} not asked (rerun to ask them)")
        parts.append(f"{self.requests} requests")
        if self.tokens:
            parts.append(f"{self.tokens.get('total_tokens', sum(self.tokens.values()))} tokens")
        return f"JudgeReport({self.judge!r}, {self.pairs} pairs: " + "; ".join(parts) + ")"

    def _repr_html_(self) -> str:
        rows = [
            ("judge", f"{self.judge} (fingerprint {self.fingerprint}, annotator {self.annotator})"),
            ("pairs", self.pairs), ("skipped (graded before)", self.skipped), ("asked now", self.asked),
            ("graded now", self.grades), ("failed now", self.n_failures),
        ]  # fmt: skip
        rows += [(f"&nbsp;&nbsp;{html.escape(kind)}", n) for kind, n in sorted(self.failures.items())]
        rows += [("not asked (rerun to ask them)", self.not_asked), ("HTTP requests", self.requests)]
        rows += [(html.escape(name), n) for name, n in sorted(self.tokens.items())]
        body = "".join(
            f"<tr><td style='text-align:left'>{name if name.startswith('&nbsp;') else html.escape(str(name))}</td>"
            f"<td>{html.escape(str(value))}</td></tr>"
            for name, value in rows
        )
        return f"<div><b>Judging report</b> ({self.seconds:.1f} s)</div><table>{body}</table>"


def pair_list(pairs, caller: str = "judge_pairs") -> list[tuple[str, str]]:
    """Distinct (query id, doc id) pairs, in the order first given, from a frame or a list of tuples."""
    pairs = as_pandas(pairs, "pairs")
    if isinstance(pairs, pd.DataFrame):
        query = find_column(pairs, "query", required=True, what="pairs")
        doc = find_column(pairs, "doc", required=True, what="pairs")
        listed = list(zip(pairs[query].astype(str).tolist(), pairs[doc].astype(str).tolist()))
    elif isinstance(pairs, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
        listed = [(str(q), str(d)) for q, d in pairs]
    else:
        raise InputError(
            f"{caller}: pairs must be a DataFrame with 'query_id' and 'doc_id' columns (rankviz.labels.holes(...), a "
            f"run's top k) or a list of (query_id, doc_id) tuples. Got {type(pairs).__name__} instead."
        )
    return list(dict.fromkeys(listed))


def document_texts(documents, caller: str = "judge_pairs") -> dict[str, str]:
    """``{doc id: text}`` from a dict, a Series, or a frame with a doc id column and ``text`` (and ``title``)."""
    documents = as_pandas(documents, "documents")
    if isinstance(documents, Mapping):
        return {str(d): "" if t is None else str(t) for d, t in documents.items()}
    if isinstance(documents, pd.Series):
        return {str(d): "" if pd.isna(t) else str(t) for d, t in documents.items()}
    if not isinstance(documents, pd.DataFrame):
        raise InputError(
            f"{caller}: documents must be a dict {{doc_id: text}}, a Series or a DataFrame (doc_id, text). "
            f"Got {type(documents).__name__} instead."
        )
    doc = find_column(documents, "doc", required=False, what="documents")
    ids = documents[doc] if doc is not None else documents.index.to_series() if documents.index.name else None
    if ids is None or "text" not in documents.columns:
        raise InputError(
            f"{caller}: documents needs a document id column ('doc_id', 'docid' or 'docno') and a 'text' column "
            f"(optionally 'title'); its columns are {columns_text(documents.columns)}."
        )
    texts = documents["text"].fillna("").astype(str)
    if "title" in documents.columns:
        titles = documents["title"].fillna("").astype(str)
        texts = (titles + "\n" + texts).where(titles.str.strip() != "", texts)
    out: dict[str, str] = {}
    for d, t in zip(ids.astype(str).tolist(), texts.tolist()):
        out.setdefault(d, t)
    return out


def _missing(ids: list[str], texts: Mapping[str, str], what: str, argument: str) -> None:
    absent = [i for i in dict.fromkeys(ids) if not texts.get(i, "").strip()]
    if absent:
        shown = ", ".join(map(repr, absent[:5])) + (f" and {len(absent) - 5} more" if len(absent) > 5 else "")
        raise InputError(
            f"judge_pairs: {len(absent)} {what} to judge have no text in {argument}: {shown}. Give their texts in "
            f"{argument}, or drop those pairs; nothing was asked."
        )


class _Progress:
    """A bar (tqdm's, a widget in Jupyter, when tqdm is installed) or a line rewritten on stderr."""

    def __init__(self, total: int, label: str, enabled: bool):
        self.bar = None
        self.enabled = enabled and total > 0
        self.total, self.done, self.label, self.last = total, 0, label, 0.0
        if not self.enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, desc=label, unit="pair")

    def update(self, failures: int) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix(failed=failures, refresh=False)
            self.bar.update(1)
        elif time.monotonic() - self.last > 0.5 or self.done == self.total:
            self.last = time.monotonic()
            sys.stderr.write(f"\r{self.label}: {self.done}/{self.total} pairs, {failures} failed")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            sys.stderr.write("\n")


def _as_judge(judge) -> Judge:
    if all(hasattr(judge, a) for a in ("name", "fingerprint", "scale")) and callable(judge):
        return judge
    if callable(judge):
        return callable_judge(judge)
    raise InputError(
        "judge_pairs: judge must be a judge (rankviz.labels.llm_judge(...), rankviz.labels.callable_judge(...)) or "
        f"a function of a list of (query, document) pairs. Got {type(judge).__name__} instead."
    )


def judge_pairs(
    judge, pairs, store, *, queries, documents, annotator: str | None = None, progress: bool = True
) -> JudgeReport:
    """Judge (query, document) pairs with a judge, each answer committed to a label store as it arrives.

    Pairs this judge (same name and fingerprint) graded before are skipped, so a
    rerun after a crash, a Ctrl-C or a dead server asks only what is left: every
    grade the store acknowledged survives the process being killed, and nothing is
    asked twice. A failed judgement (an unparsable answer, a timeout) is recorded
    with its reason (:meth:`LabelStore.failures`), never as a grade, and is asked
    again on the next run.

    Parameters
    ----------
    judge : judge or callable
        :func:`rankviz.labels.llm_judge`, :func:`rankviz.labels.callable_judge`, any
        object with ``name``, ``fingerprint``, ``scale`` and a call on a list of
        (query text, document text) pairs, or a bare function (wrapped by
        :func:`callable_judge` under its name).
    pairs : DataFrame or list of tuples
        The pairs: any frame with query and doc id columns
        (:func:`rankviz.labels.holes`, a run's top k, a plan), or ``[(query_id, doc_id), ...]``.
    store : LabelStore or path
        The store to write into (a path opens or creates one).
    queries : dict, Series or DataFrame
        Query texts by query id (a frame as :func:`rankviz.read_topics` returns).
    documents : dict, Series or DataFrame
        Document texts by doc id (a frame with a doc id column and ``text``, and
        ``title`` put before the text when present).
    annotator : str, optional
        The annotator the grades go in as (default: the judge's name).
    progress : bool, default True
        Show a progress bar (tqdm's when installed: a widget in Jupyter).

    Returns
    -------
    JudgeReport
        Pairs, skipped, asked, grades, failures by kind, pairs not asked, HTTP
        requests and tokens (when the server reports usage).

    Raises
    ------
    rankviz.InputError
        Before anything is asked: when a pair's query or document has no text
        (naming the ids), when the store is a schema 1 store (call
        ``store.upgrade()``), or when the pairs or texts are not in a shape read.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankviz import labels
    >>> store = labels.LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
    >>> def overlap(pairs):
    ...     return [int(bool(set(q.split()) & set(d.split()))) for q, d in pairs]
    >>> judge = labels.callable_judge(overlap, scale=(0, 1))
    >>> queries = {"q1": "red fox"}
    >>> documents = {"d1": "a red fox", "d2": "the blue sky"}
    >>> labels.judge_pairs(judge, [("q1", "d1"), ("q1", "d2")], store, queries=queries, documents=documents,
    ...                    progress=False)
    JudgeReport('overlap', 2 pairs: 2 graded, 0 failed; 0 skipped (graded before); 0 requests)
    >>> store.to_qrels()[["doc_id", "relevance", "kind"]].to_dict("list")
    {'doc_id': ['d1', 'd2'], 'relevance': [1, 0], 'kind': ['model', 'model']}
    >>> labels.judge_pairs(judge, [("q1", "d1"), ("q1", "d2")], store, queries=queries, documents=documents,
    ...                    progress=False).skipped
    2
    """
    judge = _as_judge(judge)
    name, fingerprint = str(judge.name), str(judge.fingerprint)
    who = name if annotator is None else annotator
    if not isinstance(who, str) or not who.strip():
        raise InputError(f"judge_pairs: annotator must be a non-empty string. Got {annotator!r} instead.")
    listed = pair_list(pairs)
    query_text = query_texts(queries, "judge_pairs")
    doc_text = document_texts(documents)
    _missing([q for q, _ in listed], query_text, "queries", "queries")
    _missing([d for _, d in listed], doc_text, "documents", "documents")
    opened = not isinstance(store, LabelStore)
    if opened:
        if not isinstance(store, (str, os.PathLike)):
            raise InputError(
                f"judge_pairs: store must be a rankviz.labels.LabelStore or a path. Got {type(store).__name__} instead."
            )
        store = LabelStore(store)
    try:
        if store.version < 2:
            raise InputError(
                f"judge_pairs: {store.path} is a schema 1 label store (written by an earlier rankviz), which cannot "
                "record a model's judgements. Call store.upgrade() first, or judge into a new store; nothing was asked."
            )
        return _run(judge, listed, store, query_text, doc_text, name, fingerprint, who, progress)
    finally:
        if opened:
            store.close()


def _run(judge, listed, store, query_text, doc_text, name, fingerprint, who, progress) -> JudgeReport:
    started = time.monotonic()
    report = JudgeReport(judge=name, fingerprint=fingerprint, annotator=who, pairs=len(listed))
    done = store.graded_by(name, fingerprint)
    todo = [pair for pair in listed if pair not in done]
    report.skipped = len(listed) - len(todo)
    texts = [(query_text[q], doc_text[d]) for q, d in todo]
    stream = judge.stream(texts) if hasattr(judge, "stream") else enumerate(judge(texts))
    failures: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    bar = _Progress(len(todo), f"judging with {name}", progress)
    try:
        for index, result in stream:
            query_id, doc_id = todo[index]
            report.asked += 1
            report.requests += int(getattr(result, "requests", 0))
            tokens.update(dict(getattr(result, "usage", {}) or {}))
            if result.grade is not None:
                if result.grade not in judge.scale:  # a judge of another kind than ours
                    raise InputError(
                        f"judge_pairs: the judge {name!r} gave the grade {result.grade} for ({query_id!r}, {doc_id!r}), "
                        f"off its scale {tuple(judge.scale)}. Fix the judge; grades committed so far are kept."
                    )
                store.add_model(query_id, doc_id, int(result.grade), annotator=who, judge=name,
                                fingerprint=fingerprint, raw=result.raw)  # fmt: skip
                report.grades += 1
            else:
                reason = result.reason or "no grade"
                store.add_failure(query_id, doc_id, reason, annotator=who, judge=name, fingerprint=fingerprint,
                                  raw=result.raw)  # fmt: skip
                failures[reason.split(":", 1)[0].strip()] += 1
            bar.update(sum(failures.values()))
    finally:
        bar.close()
        report.failures = dict(failures)
        report.tokens = dict(tokens)
        report.not_asked = len(todo) - report.asked
        report.seconds = time.monotonic() - started
    if report.not_asked:
        warn(
            f"judge_pairs: {report.not_asked} of {len(todo)} pairs were not asked: the judge {name!r} stopped (its "
            "server could not be reached). The grades so far are committed; run judge_pairs again to ask the rest.",
            RankvizWarning,
        )
    return report
