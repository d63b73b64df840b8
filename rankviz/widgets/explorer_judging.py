"""Judging in the explorer: the unjudged documents of the list shown, graded into a label store in place.

:class:`ExplorerJudging` holds the logic (which documents of a list are unjudged,
the grade scale, a grade committed to the :class:`~rankviz.labels.LabelStore` and
the explorer's model re-evaluated with it); :class:`JudgeRow` is the small widget row
the :class:`~rankviz.widgets.explorer.Explorer` shows under its table when
``explore(..., store=...)`` is given.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable
from html import escape

import ipywidgets as w
import numpy as np
import pandas as pd

from .._core.columns import is_missing
from .._core.long_run import resolve_qrels
from .._errors import InputError
from ..evaluation.pipeline import read_judgements
from ..labels import LabelStore
from .explorer_model import ExplorerModel

__all__ = ["ExplorerJudging", "JudgeRow"]


def _qrels_frame(qrels, columns) -> pd.DataFrame:
    """The judgements given to the explorer as a new ``query_id``, ``doc_id``, ``relevance`` frame of strings."""
    frame = read_judgements(qrels)
    if frame is None or len(frame) == 0:
        return pd.DataFrame({"query_id": [], "doc_id": [], "relevance": pd.Series([], dtype="int64")}).astype(
            {"query_id": object, "doc_id": object}
        )
    arrays = resolve_qrels(frame, columns)
    return pd.DataFrame(
        {
            "query_id": [str(q) for q in arrays.query_ids],
            "doc_id": [str(d) for d in arrays.doc_ids],
            "relevance": np.asarray(arrays.grades, dtype=np.int64),
        }
    )


def _judged(grade) -> bool:
    """Whether a ranked list's ``relevance`` cell is a judgement (trec_eval: a negative grade is unjudged)."""
    return not is_missing(grade) and int(grade) >= 0


class ExplorerJudging:
    """Grade the unjudged documents of the explorer's lists into a label store, and re-evaluate.

    The explorer's judgements are the qrels it was given with the store's current
    labels merged over them (:meth:`rankviz.labels.LabelStore.to_qrels`, every
    annotator, the latest judgement of a pair winning, also over the qrels given).

    Parameters
    ----------
    model : ExplorerModel
        The explorer's model; it is re-evaluated (:meth:`ExplorerModel.replace_qrels`) after each grade.
    qrels : DataFrame, path, dict or None
        The qrels the model was built with (never modified).
    store : LabelStore, str or path-like
        The store the grades go to (a path opens or creates one).
    annotator : str
        Who judges (the name each grade is stored under).

    Raises
    ------
    rankviz.InputError
        For a missing annotator or a ``store`` that is not a label store or a path to one.
    """

    def __init__(self, model: ExplorerModel, qrels, store, *, annotator):
        if not isinstance(store, (LabelStore, str, os.PathLike)):
            raise InputError(
                f"explore: store must be a rankviz.labels.LabelStore or the path of one. Got {type(store).__name__} instead."
            )
        if not isinstance(annotator, str) or not annotator.strip():
            raise InputError(
                f"explore: judging into store= needs annotator= (a non-empty name: who is judging). Got {annotator!r}."
            )
        self.model = model
        self.store = store if isinstance(store, LabelStore) else LabelStore(store)
        self.annotator = annotator
        self._given = _qrels_frame(qrels, model.columns)
        merged = self.merged()
        top = int(merged["relevance"].max()) if len(merged) else 1
        #: the grades offered: 0 to the highest grade in the qrels or the store (at least 0 and 1)
        self.grades = list(range(max(top, 1) + 1))
        if len(self.store):
            model.replace_qrels(merged)

    def merged(self) -> pd.DataFrame:
        """The qrels given with the store's labels over them (a new frame: ``query_id``, ``doc_id``, ``relevance``)."""
        stored = self.store.to_qrels()[["query_id", "doc_id", "relevance"]]
        stored = stored.astype({"query_id": str, "doc_id": str, "relevance": "int64"})
        both = pd.concat([self._given, stored], ignore_index=True)
        return both.drop_duplicates(["query_id", "doc_id"], keep="last").reset_index(drop=True)

    def unjudged(self, system, query_id, k: int) -> list[tuple[int, str]]:
        """``(rank, doc_id)`` of each document of the top ``k`` of a query's list without a judgement, in rank order."""
        top = self.model.top(system, query_id, k)
        return [(int(r), str(d)) for r, d, g in zip(top["rank"], top["doc_id"], top["relevance"]) if not _judged(g)]

    def judge(self, system, query_id, doc_id, grade, *, k: int) -> str:
        """Give ``doc_id`` of the query's list ``grade``: committed to the store, then the model re-evaluated.

        Returns
        -------
        str
            A sentence saying what was stored.

        Raises
        ------
        rankviz.InputError
            For a grade off the scale :attr:`grades`, or a document that is not in
            the top ``k`` of the system's list for that query.
        """
        if isinstance(grade, bool) or not isinstance(grade, numbers.Integral) or int(grade) not in self.grades:
            raise InputError(f"explore: grade {grade!r} is not on the scale {self.grades}; give one of these integers.")
        listed = [str(d) for d in self.model.top(system, query_id, k)["doc_id"]]
        if str(doc_id) not in listed:
            raise InputError(
                f"explore: document {doc_id!r} is not in the top {k} of the list of query {str(query_id)!r}; "
                "judge a document of the list shown (or raise k)."
            )
        self.store.add(str(query_id), str(doc_id), int(grade), annotator=self.annotator, source="explorer")
        self.model.replace_qrels(self.merged())
        return f"Stored grade {int(grade)} for {doc_id} (query {query_id}) as {self.annotator}."


class JudgeRow(w.VBox):
    """The explorer's judging row: the unjudged documents of the list shown, one button per grade, a status line.

    ``on_grade(doc_id, grade)`` is called when a grade button is clicked with a document chosen.
    """

    def __init__(self, grades: list[int], on_grade: Callable[[str, int], None]):
        self.document = w.Dropdown(options=[], description="judge")
        self.document.add_class("rankviz-judge-document")
        self.buttons = []
        for grade in grades:
            button = w.Button(description=str(grade), tooltip=f"store grade {grade}", layout=w.Layout(width="4em"))
            button.add_class("rankviz-grade")
            button.add_class(f"rankviz-grade-{grade}")
            button.on_click(lambda _b, grade=grade: self._clicked(grade))
            self.buttons.append(button)
        self.message = w.HTML()
        self.message.add_class("rankviz-judge-status")
        self._on_grade = on_grade
        super().__init__([w.HBox([self.document, *self.buttons]), self.message])
        self.add_class("rankviz-explorer-judge")

    def _clicked(self, grade: int) -> None:
        if self.document.value is None:
            self.say("No unjudged document in the list shown.")
        else:
            self._on_grade(str(self.document.value), grade)

    def show(self, unjudged: list[tuple[int, str]]) -> None:
        """List the unjudged documents ``(rank, doc_id)`` of the list shown; the buttons are off when there is none."""
        self.document.options = [(f"{rank}. {doc}", doc) for rank, doc in unjudged]
        self.document.value = unjudged[0][1] if unjudged else None
        for button in self.buttons:
            button.disabled = not unjudged

    def say(self, text: str, *, error: bool = False) -> None:
        """Show one sentence (escaped) under the row."""
        color = "#a00" if error else "#555"
        self.message.value = f'<div style="color:{color}">{escape(text)}</div>'
