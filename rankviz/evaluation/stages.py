"""Stage-by-stage evaluation of a multi-stage (RAG) pipeline: the funnel and where the evidence got lost.

:func:`stages` reads ``{stage name: run}`` (see :mod:`rankviz.evaluation.stage_inputs`), attributes every
relevant document (see :mod:`rankviz.evaluation.stage_attribution`) and returns a :class:`Stages`: the
per-document and per-query attribution, and on demand the funnel (recall, first relevant document kept and
MRR per stage, with bootstrap intervals), the paired comparison of each pair of adjacent stages, and the
summary of how many queries each stage loses. The statistics are :func:`rankviz.stats.bootstrap` and
:func:`rankviz.stats.compare` over a per-query table whose "systems" are the stages.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Unpack

import numpy as np
import pandas as pd

from .. import stats
from .._core.checks import check_choice
from .._core.options import EVAL, EvalOptions, ListKeywords, with_options
from .._errors import DegenerateDataWarning, InputError
from .stage_attribution import KEPT, attribute_documents, attribute_queries
from .stage_inputs import StageLists, check_stage_rel, judgement_frame, relevant_sets, stage_lists

__all__ = ["stages", "Stages"]

#: the per-stage measures of the funnel, in the order shown
FUNNEL_MEASURES = ("recall", "first_kept", "MRR")


class Stages:
    """What :func:`rankviz.stages` found: the attribution, and the funnel on demand.

    Attributes
    ----------
    names : tuple of str
        The stages, in pipeline order.
    documents : DataFrame
        One row per (query, relevant document): ``rank_<stage>`` (position in what the stage holds; 0 in an
        unordered stage; missing: not held), ``last_stage``, ``lost_at`` (the stage blamed, or ``"kept"``),
        ``reason`` and ``explanation``.
    queries : DataFrame
        One row per query: ``n_relevant``, ``doc_id`` (its best-ranked relevant document in the first
        stage), ``lost_at`` (the stage that lost it, ``"kept"``, or missing for a query with no relevant
        document: said, not attributed), ``reason``, ``n_kept`` (relevant documents the last stage holds)
        and the one-line ``explanation``.
    lists : StageLists
        What each stage holds per query (``held``, cut to its depth), its whole lists (``full``), which
        stages are ranked (``ordered``) and the depths asked for.
    per_query : DataFrame
        ``system`` (the stage), ``query_id``, ``recall``, ``first_kept`` (1 when the query's best-ranked
        relevant document of the first stage is held) and ``MRR`` (RR; missing in an unordered stage), over
        the queries with a relevant document: the input of the statistics.
    """

    def __init__(self, lists: StageLists, relevant: dict, stats_options: dict):
        self.names = lists.names
        self.lists = lists
        self.documents = attribute_documents(lists, relevant)
        self.queries = attribute_queries(lists, relevant, self.documents)
        self._stats = stats_options
        self._relevant = relevant
        self._cache: dict[str, pd.DataFrame] = {}  # the statistics, computed once
        self.per_query = _per_query(lists, relevant)

    @property
    def lost_at(self) -> pd.Series:
        """The attribution column: query id -> the stage that lost its best-ranked relevant document.

        A Series named ``lost_at`` indexed by query id, for ``by=`` (``rankviz.evaluate(run, ..., by=
        result.lost_at)``) and :func:`rankviz.failure_slices` (``queries=result.queries``). Queries with no
        relevant document are left out (they are not attributed).
        """
        table = self.queries.dropna(subset=["lost_at"])
        return pd.Series(
            table["lost_at"].astype(str).to_numpy(), index=pd.Index(table["query_id"], name="query_id"), name="lost_at"
        )

    @property
    def unattributed(self) -> list[str]:
        """The queries with no relevant document (said, not attributed)."""
        return self.queries.loc[self.queries["lost_at"].isna(), "query_id"].tolist()

    def counts(self) -> pd.DataFrame:
        """Relevant documents lost at each stage (and kept), by reason: they add up to every relevant document.

        Returns
        -------
        DataFrame
            Index ``lost_at`` (each stage, then ``kept``); a column per reason and ``total``.

        Examples
        --------
        >>> import rankviz
        >>> pipeline = {"retrieved": {"q1": ["a", "b", "c"], "q2": ["e", "f", "g"]},
        ...             "reranked": {"q1": ["b", "c", "a"], "q2": ["g", "e", "f"]}, "context": {"q1": ["b", "c"], "q2": ["g", "e"]}}
        >>> result = rankviz.stages(pipeline, {"q1": ["a"], "q2": ["g"]}, n_resamples=100, rng=0)
        >>> result.counts()["total"].tolist()
        [0, 1, 0, 1]
        """
        table = pd.crosstab(self.documents["lost_at"], self.documents["reason"], dropna=False)
        table = table.reindex(index=[*self.names, KEPT], fill_value=0)
        table = table.loc[:, table.sum(axis=0) > 0]
        table["total"] = table.sum(axis=1)
        return table

    def funnel(self) -> pd.DataFrame:
        """Per stage: recall, share of queries keeping their first relevant document, MRR, with intervals.

        Returns
        -------
        DataFrame
            One row per stage x measure: ``stage``, ``measure``, ``estimate``, ``ci_low``, ``ci_high``,
            ``n_queries`` (an unordered stage has no MRR row).

        Examples
        --------
        >>> import rankviz
        >>> pipeline = {"retrieved": {"q1": ["a", "b", "c"], "q2": ["e", "f", "g"]},
        ...             "reranked": {"q1": ["b", "c", "a"], "q2": ["g", "e", "f"]}, "context": {"q1": ["b", "c"], "q2": ["g", "e"]}}
        >>> result = rankviz.stages(pipeline, {"q1": ["a"], "q2": ["g"]}, n_resamples=100, rng=0)
        >>> funnel = result.funnel()
        >>> funnel.loc[funnel["measure"] == "recall", ["stage", "estimate"]]
               stage  estimate
        0  retrieved       1.0
        1   reranked       1.0
        2    context       0.5
        """
        if "funnel" in self._cache:
            return self._cache["funnel"].copy()
        self._need_relevant("funnel")
        ranked = [n for n, ordered in zip(self.names, self.lists.ordered) if ordered]
        shares = self._bootstrap(
            self.per_query[["system", "query_id", "recall", "first_kept"]], ["recall", "first_kept"]
        )
        rr = self._bootstrap(
            self.per_query.loc[self.per_query["system"].isin(ranked), ["system", "query_id", "MRR"]], ["MRR"]
        )
        frame = pd.concat([shares.to_frame(), rr.to_frame()], ignore_index=True)
        frame = frame.rename(columns={"system": "stage"})
        frame = frame[["stage", "measure", "estimate", "ci_low", "ci_high", "n_queries"]]
        order = {n: i for i, n in enumerate(self.names)}
        frame = frame.dropna(subset=["estimate"])
        frame = frame.sort_values(
            ["measure", "stage"],
            key=lambda c: c.map(order) if c.name == "stage" else c.map({m: i for i, m in enumerate(FUNNEL_MEASURES)}),
        )
        self._cache["funnel"] = frame.reset_index(drop=True)
        return self._cache["funnel"].copy()

    def transitions(self) -> pd.DataFrame:
        """Per pair of adjacent stages: what was lost and gained, as a paired comparison.

        Returns
        -------
        DataFrame
            One row per pair and measure (``recall``, and ``MRR`` between ranked stages): ``before``,
            ``after``, ``docs_lost`` and ``docs_gained`` (relevant documents), ``queries_losing`` and
            ``queries_gaining`` (queries whose measure went down or up), ``before_mean``, ``after_mean``,
            ``difference`` (after - before), ``ci_low``, ``ci_high``, ``p_value`` (the paired test,
            randomization), ``significant`` (at the call's confidence level) and ``reading``.

        Examples
        --------
        >>> import rankviz
        >>> pipeline = {"retrieved": {"q1": ["a", "b", "c"], "q2": ["e", "f", "g"]},
        ...             "reranked": {"q1": ["b", "c", "a"], "q2": ["g", "e", "f"]}, "context": {"q1": ["b", "c"], "q2": ["g", "e"]}}
        >>> result = rankviz.stages(pipeline, {"q1": ["a"], "q2": ["g"]}, n_resamples=100, rng=0)
        >>> result.transitions()[["before", "after", "measure", "docs_lost"]].head(3)
              before     after measure  docs_lost
        0  retrieved  reranked  recall          0
        1  retrieved  reranked     MRR          0
        2   reranked   context  recall          1
        """
        if "transitions" in self._cache:
            return self._cache["transitions"].copy()
        self._need_relevant("transitions")
        rows = []
        for s in range(1, len(self.names)):
            before, after = self.names[s - 1], self.names[s]
            lost, gained = _moved_documents(self.lists, self._relevant, s)
            measures = ["recall"] + (["MRR"] if self.lists.ordered[s] else [])
            table = self.per_query[self.per_query["system"].isin([before, after])][["system", "query_id", *measures]]
            comparison = self._compare(table, before, measures)
            for record in comparison.table.to_dict("records"):
                wins, losses = int(record["wins"]), int(record["losses"])
                rows.append(
                    {
                        "before": before,
                        "after": after,
                        "measure": record["measure"],
                        "docs_lost": lost,
                        "docs_gained": gained,
                        "queries_losing": losses,
                        "queries_gaining": wins,
                        "before_mean": record["baseline_mean"],
                        "after_mean": record["system_mean"],
                        "difference": record["difference"],
                        "ci_low": record["ci_low"],
                        "ci_high": record["ci_high"],
                        "p_value": record["p_value"],
                    }
                )
        table = pd.DataFrame(rows)
        alpha = 1 - self._stats.get("confidence_level", 0.95)
        table["significant"] = table["p_value"] < alpha
        table["reading"] = [_reading(table, i) for i in range(len(table))]
        self._cache["transitions"] = table
        return table.copy()

    def _need_relevant(self, what: str) -> None:
        if self.per_query.empty:
            raise InputError(
                f"stages: no query has a relevant document (grade >= rel), so there is no {what} to compute; "
                "check the qrels and rel=."
            )

    def summary(self) -> pd.DataFrame:
        """How many queries each stage loses (their best-ranked relevant document), most first, with intervals.

        Returns
        -------
        DataFrame
            One row per stage (and ``"kept"``), sorted by queries lost (descending; ``"kept"`` last):
            ``stage``, ``queries_lost``, ``share`` (of the attributed queries), ``ci_low``, ``ci_high`` (its
            bootstrap interval). The first row is the stage to work on.

        Examples
        --------
        >>> import rankviz
        >>> pipeline = {"retrieved": {"q1": ["a", "b", "c"], "q2": ["e", "f", "g"]},
        ...             "reranked": {"q1": ["b", "c", "a"], "q2": ["g", "e", "f"]}, "context": {"q1": ["b", "c"], "q2": ["g", "e"]}}
        >>> result = rankviz.stages(pipeline, {"q1": ["a"], "q2": ["g"]}, n_resamples=100, rng=0)
        >>> result.summary()[["stage", "queries_lost", "share"]]
               stage  queries_lost  share
        0   reranked             1    0.5
        1  retrieved             0    0.0
        2    context             0    0.0
        3       kept             1    0.5
        """
        attributed = self.queries.dropna(subset=["lost_at"])
        outcomes = [*self.names, KEPT]
        table = pd.DataFrame({"query_id": attributed["query_id"].to_numpy()})
        for name in outcomes:
            table[f"lost at {name}"] = (attributed["lost_at"].astype(str) == name).to_numpy().astype(float)
        if len(table) == 0:
            return pd.DataFrame(columns=["stage", "queries_lost", "share", "ci_low", "ci_high"])
        frame = self._bootstrap(table, [f"lost at {n}" for n in outcomes]).to_frame()
        rows = pd.DataFrame(
            {
                "stage": outcomes,
                "queries_lost": [int(table[f"lost at {n}"].sum()) for n in outcomes],
                "share": frame["estimate"].to_numpy(),
                "ci_low": frame["ci_low"].to_numpy(),
                "ci_high": frame["ci_high"].to_numpy(),
            }
        )
        rows["_kept"] = rows["stage"] == KEPT
        rows = rows.sort_values(["_kept", "queries_lost"], ascending=[True, False], kind="stable")
        return rows.drop(columns="_kept").reset_index(drop=True)

    def reading(self) -> str:
        """One sentence from :meth:`summary`: the stage that loses most, and whether it clearly does.

        "Clearly" means its interval lies above the next stage's; otherwise the sentence says the two are
        not told apart.

        Returns
        -------
        str
            The sentence.

        Examples
        --------
        >>> import rankviz
        >>> pipeline = {"retrieved": {"q1": ["a", "b", "c"], "q2": ["e", "f", "g"]},
        ...             "reranked": {"q1": ["b", "c", "a"], "q2": ["g", "e", "f"]}, "context": {"q1": ["b", "c"], "q2": ["g", "e"]}}
        >>> result = rankviz.stages(pipeline, {"q1": ["a"], "q2": ["g"]}, n_resamples=100, rng=0)
        >>> result.reading()
        'reranked loses the most queries: 1 of 2 (50%, interval 0%-100%); not told apart from retrieved (0).'
        """
        table = self.summary()
        lost = table[table["stage"] != KEPT]
        if lost.empty or int(lost["queries_lost"].iloc[0]) == 0:
            return "No stage loses a query: every attributed query keeps its best-ranked relevant document."
        top = lost.iloc[0]
        n = int(table["queries_lost"].sum())
        head = (
            f"{top['stage']} loses the most queries: {int(top['queries_lost'])} of {n} ({top['share']:.0%}, "
            f"interval {top['ci_low']:.0%}-{top['ci_high']:.0%})"
        )
        if len(lost) > 1 and lost["ci_high"].iloc[1] >= top["ci_low"]:
            return head + f"; not told apart from {lost['stage'].iloc[1]} ({int(lost['queries_lost'].iloc[1])})."
        return head + ": the stage to work on."

    def _bootstrap(self, table, measures):
        with warnings.catch_warnings():  # a stage that keeps everything, or loses nothing, is not degenerate here
            warnings.simplefilter("ignore", DegenerateDataWarning)
            return stats.bootstrap(table, measures, **self._stats, method="percentile")

    def _compare(self, table, baseline, measures):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            return stats.compare(table, baseline=baseline, measures=measures, correction=None, **self._stats)

    def __repr__(self) -> str:
        attributed = self.queries["lost_at"].notna().sum()
        lost = self.queries["lost_at"].astype(str).value_counts()
        parts = ", ".join(f"{n}: {int(lost.get(n, 0))}" for n in [*self.names, KEPT])
        extra = f"; {len(self.unattributed)} without a relevant document (not attributed)" if self.unattributed else ""
        return f"<Stages {' → '.join(self.names)}: {attributed} queries lost at {parts}{extra}>"


def _per_query(lists: StageLists, relevant: dict) -> pd.DataFrame:
    rows = []
    for q in lists.queries:
        docs = relevant[q]
        if not docs:
            continue
        first = next((d for d in lists.held[0][q] if d in docs), None)
        for s, name in enumerate(lists.names):
            held = lists.held[s][q]
            hits = [i for i, d in enumerate(held, start=1) if d in docs]
            rr = (1.0 / hits[0] if hits else 0.0) if lists.ordered[s] else np.nan
            rows.append((name, q, len(hits) / len(docs), float(first is not None and first in held), rr))
    return pd.DataFrame(rows, columns=["system", "query_id", *FUNNEL_MEASURES])


def _moved_documents(lists: StageLists, relevant: dict, s: int) -> tuple[int, int]:
    """Relevant documents stage ``s - 1`` held and ``s`` does not (lost), and the other way (gained)."""
    lost = gained = 0
    for q in lists.queries:
        before, after = set(lists.held[s - 1][q]) & relevant[q], set(lists.held[s][q]) & relevant[q]
        lost += len(before - after)
        gained += len(after - before)
    return lost, gained


def _reading(table: pd.DataFrame, i: int) -> str:
    """The funnel's reading of one pair: a verdict only where the paired test behind it is significant."""
    row = table.iloc[i]
    if row["measure"] != "recall":
        if not row["significant"]:
            return "MRR: no clear difference"
        return "MRR up" if row["difference"] > 0 else "MRR down"
    mrr = table[(table["before"] == row["before"]) & (table["after"] == row["after"]) & (table["measure"] == "MRR")]
    if row["significant"]:
        return (
            "recall down: the stage loses evidence" if row["difference"] < 0 else "recall up: the stage adds evidence"
        )
    if len(mrr) and bool(mrr["significant"].iloc[0]) and float(mrr["difference"].iloc[0]) > 0:
        return "recall unchanged, MRR up: the stage does real work"
    return "recall: no clear difference"


@with_options(EVAL.without("depth", "missing", "ties", "judged_only", "unannotated"))
def stages(
    options: EvalOptions,
    runs,
    qrels=None,
    *,
    depths=None,
    unordered=None,
    missing: str = "error",
    n_resamples: int = 10000,
    confidence_level: float = 0.95,
    rng=None,
    **_: Unpack[ListKeywords],
) -> Stages:
    """Evaluate a multi-stage pipeline stage by stage: the funnel, and where each relevant document got lost.

    Parameters
    ----------
    runs : dict or RetrievalLog
        ``{stage name: run}`` in pipeline order (retrieved, reranked, context, cited), each run of the same
        queries in any shape rankviz reads: a long frame, per-query lists (a ``retrieved`` column), a TREC
        run path, ``{query: {doc: score}}``, or ``{query: [doc ids]}`` in rank order. The last stage may be
        unordered: ``{query: {doc ids}}`` (sets) or named in ``unordered``. A
        ``read_jsonl(path, stages=[...])`` log gives its stages, and its qrels by default.
    qrels : DataFrame, path or dict, optional
        Judgements (a qrels frame or path, ``{query: {doc: grade}}``) or gold ids ``{query: [doc ids]}``.
    depths : dict, optional
        ``{stage name: k}``: the ids a stage keeps (a context budget of 5 is ``{"context": 5}``). By
        default each stage keeps its whole list.
    unordered : str or list, optional
        The stage (only the last) whose ids are a set, not a ranking (the ids the generator cited).
    missing : {'error', 'empty'}, default 'error'
        A query absent from a stage is refused, or read as an empty list (the default for a log, whose
        empty lists leave no rows).
    n_resamples, confidence_level, rng
        The bootstrap of the funnel and summary, and the paired test of the transitions.

    Returns
    -------
    Stages
        ``.documents`` and ``.queries`` (the attribution), ``.lost_at`` (the column for ``by=``),
        ``.funnel()``, ``.transitions()``, ``.summary()``, ``.counts()``; plotted by
        :func:`rankviz.plots.funnel`.

    Raises
    ------
    InputError
        Stages over different query sets (with the counts), an unordered stage before the last, a depth
        for an unordered stage, no relevant documents given.
    DuplicateError
        A stage lists a document twice for a query (``duplicates="first"`` keeps the first).

    Warns
    -----
    RankvizWarning
        A stage deeper than the one before it, and a stage that adds documents no earlier stage held: both
        allowed, and said.

    Examples
    --------
    >>> import rankviz
    >>> pipeline = {
    ...     "retrieved": {"q1": ["a", "b", "c", "d"], "q2": ["e", "f", "g", "h"]},
    ...     "reranked": {"q1": ["b", "c", "a"], "q2": ["h", "g", "e"]},
    ...     "context": {"q1": ["b", "c"], "q2": ["h", "g"]},
    ... }
    >>> result = rankviz.stages(pipeline, {"q1": ["a"], "q2": ["g"]}, n_resamples=100, rng=0)
    >>> result.queries["explanation"].tolist()
    ['q1: a retrieved at 1 → reranked to 3 → context holds the top 2: demoted by reranked, lost at reranked.', \
'q2: g retrieved at 3 → reranked to 2 → context to 2: kept.']
    >>> result.lost_at.to_dict()
    {'q1': 'reranked', 'q2': 'kept'}
    """
    missing = check_choice(missing, "missing", "stages", ("error", "empty"))
    if hasattr(runs, "stages") and hasattr(runs, "qrels") and not isinstance(runs, Mapping):
        if runs.stages is None:
            raise InputError("stages: the log was read without stages=; read it with read_jsonl(path, stages=[...]).")
        qrels = runs.qrels if qrels is None else qrels
        runs, missing = runs.stages, "empty"
    judgements = judgement_frame(qrels)
    rel = check_stage_rel(options.rel)
    lists = stage_lists(runs, judgements, depths=depths, unordered=unordered, missing=missing, options=options)
    relevant = relevant_sets(judgements, lists.queries, rel)
    return Stages(lists, relevant, {"n_resamples": n_resamples, "confidence_level": confidence_level, "rng": rng})
