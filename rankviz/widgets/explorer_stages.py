"""The explorer's stage view as data: for one query, where each relevant document sat at each stage of a pipeline.

:class:`StageView` reads what :func:`rankviz.stages` returns (a :class:`~rankviz.evaluation.stages.Stages`) and
gives, per query, a DataFrame (one row per relevant document: its position in what each stage holds, where it
was lost and why) and the query's one-line explanation. :mod:`rankviz.widgets.render_stages` makes the HTML;
``explore(..., stages=result)`` shows it under the selected query's ranked list.
"""

from __future__ import annotations

import pandas as pd

from .._errors import InputError

__all__ = ["StageView"]


class StageView:
    """Per query, the relevant documents' positions at each stage (data, no HTML).

    Parameters
    ----------
    stages : Stages
        What :func:`rankviz.stages` returns.

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.widgets.explorer_stages import StageView
    >>> pipeline = {"retrieved": {"q1": ["a", "b", "c"]}, "context": {"q1": ["b"]}}
    >>> view = StageView(rankviz.stages(pipeline, {"q1": ["a", "b"]}, n_resamples=100, rng=0))
    >>> view.table("q1")[["doc_id", "retrieved", "context", "lost_at"]].values.tolist()
    [['a', 1, <NA>, 'context'], ['b', 2, 1, 'kept']]
    >>> view.best("q1")
    'a'
    """

    def __init__(self, stages):
        needed = ("names", "documents", "queries", "lists")
        if not all(hasattr(stages, name) for name in needed):
            raise InputError(
                f"explore: stages= must be what rankviz.stages(...) returns; got {type(stages).__name__}. "
                "Build it with rankviz.stages({'retrieved': ..., 'reranked': ..., 'context': ...}, qrels)."
            )
        self.names: tuple[str, ...] = tuple(stages.names)
        #: whether each stage is ranked (an unordered stage, the cited ids, has no positions)
        self.ordered: tuple[bool, ...] = tuple(stages.lists.ordered)
        documents = stages.documents
        self._documents = {str(q): part for q, part in documents.groupby("query_id", sort=False, observed=True)}
        self._queries = {str(row["query_id"]): row for row in stages.queries.to_dict("records")}

    def has(self, query_id) -> bool:
        """Whether the pipeline holds this query."""
        return str(query_id) in self._queries

    def table(self, query_id) -> pd.DataFrame:
        """One row per relevant document of the query, best-ranked in the first stage first.

        Returns
        -------
        DataFrame
            ``doc_id``, one column per stage (the 1-based position in what the stage holds; 0 in an unordered
            stage that holds it; missing where the stage does not hold it), ``lost_at`` (the stage that lost
            it, or ``"kept"``) and ``reason``. Empty for a query without a relevant document or not in the
            pipeline.
        """
        columns = ["doc_id", *self.names, "lost_at", "reason"]
        part = self._documents.get(str(query_id))
        if part is None or part.empty:
            return pd.DataFrame(columns=columns)
        table = pd.DataFrame({"doc_id": part["doc_id"].astype(str).to_numpy()})
        for name in self.names:
            table[name] = part[f"rank_{name}"].to_numpy()
            table[name] = table[name].astype("Int64")
        table["lost_at"] = part["lost_at"].astype(str).to_numpy()
        table["reason"] = part["reason"].astype(str).to_numpy()
        first = self.names[0]
        # best-ranked in the first stage first; documents it never held last, by id
        never = table[first].isna()
        order = table.assign(_never=never, _first=table[first].fillna(0)).sort_values(
            ["_never", "_first", "doc_id"], kind="stable"
        )
        return order[columns].reset_index(drop=True)

    def best(self, query_id) -> str | None:
        """The query's best-ranked relevant document in the first stage (the one it is attributed by), if any."""
        table = self.table(query_id)
        held = table[table[self.names[0]].notna()]
        return None if held.empty else str(held["doc_id"].iloc[0])

    def sentence(self, query_id) -> str:
        """The query's one-line explanation, or why there is none."""
        row = self._queries.get(str(query_id))
        if row is None:
            return f"{query_id}: not in the pipeline's stages."
        return str(row["explanation"])
