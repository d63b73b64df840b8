"""Judging in the notebook: one document at a time, every grade committed to a label store as it is given.

:class:`JudgeModel` holds the queue (the pairs to judge, in the order given, e.g.
:func:`rankviz.labels.holes`), the filters, skip and undo, and writes every
judgement into a :class:`~rankviz.labels.LabelStore` at once (one committed
transaction each, so what the progress line counts is on disk). :class:`Judge` is
the ipywidgets view; :mod:`rankviz.widgets.render_judge` makes its HTML.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import ipywidgets as w
import pandas as pd

from .._core.columns import check_key_cells
from .._errors import InputError
from ..io.per_query import query_texts
from ..labels import LabelStore
from . import render_judge
from .ranked import read_documents

__all__ = ["JudgeModel", "Judge", "judge"]

_DEFAULT_GRADES = {0: "not relevant", 1: "relevant", 2: "highly relevant"}


def _grade_scale(grades) -> dict[int, str]:
    if grades is None:
        return dict(_DEFAULT_GRADES)
    if isinstance(grades, Mapping):
        scale = {int(g): str(label) for g, label in grades.items()}
    elif isinstance(grades, Sequence) and not isinstance(grades, str):
        scale = {int(g): str(g) for g in grades}
    else:
        scale = {}
    if not scale:
        raise InputError(
            f"judge: grades must be a list of grades ([0, 1, 2]) or {{grade: label}}. Got {grades!r} instead."
        )
    return dict(sorted(scale.items()))


def _todo_frame(todo) -> pd.DataFrame:
    if not isinstance(todo, pd.DataFrame) or not {"query_id", "doc_id"} <= set(todo.columns):
        found = ", ".join(map(repr, todo.columns)) if isinstance(todo, pd.DataFrame) else type(todo).__name__
        raise InputError(
            "judge: todo must be a DataFrame with 'query_id' and 'doc_id' columns, e.g. rankviz.labels.holes(run, qrels). "
            f"Got {found} instead."
        )
    for column, role in (("query_id", "query"), ("doc_id", "doc")):
        check_key_cells(todo, column, role, "judge todo")
    frame = pd.DataFrame(
        {"query_id": todo["query_id"].astype(str).to_numpy(), "doc_id": todo["doc_id"].astype(str).to_numpy()}
    )
    frame["systems"] = todo["systems"].astype(str).to_numpy() if "systems" in todo.columns else ""
    if len(frame) == 0:
        raise InputError("judge: todo is empty: there is nothing to judge (no holes left?).")
    return frame.drop_duplicates(["query_id", "doc_id"]).reset_index(drop=True)


class JudgeModel:
    """The logic of :func:`judge`: the queue, the filters, skip, undo and progress; writes into the store.

    Parameters
    ----------
    todo, store, annotator, grades, queries, documents
        As for :func:`judge`.

    Examples
    --------
    >>> import os, tempfile, pandas as pd
    >>> from rankviz.labels import LabelStore
    >>> from rankviz.widgets import JudgeModel
    >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"]})
    >>> model = JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
    >>> model.current()["doc_id"], model.judge(2), model.current()["doc_id"]
    ('a', None, 'b')
    >>> model.skip(); model.current()["doc_id"]
    'c'
    >>> model.progress()
    {'judged': 1, 'total': 3, 'queries_done': 0, 'queries': 2}
    >>> model.undo()
    'undid the skip of b for q1'
    >>> model.undo()
    'undid the judgement of a for q1'
    >>> model.current()["doc_id"], model.progress()["judged"], len(model.store.history())
    ('a', 0, 2)
    """

    def __init__(self, todo, store, *, annotator: str, grades=None, queries=None, documents=None):
        self.items = _todo_frame(todo)
        self.store = store if isinstance(store, LabelStore) else LabelStore(store)
        if not isinstance(annotator, str) or not annotator.strip():
            raise InputError(f"judge: annotator must be a non-empty name (who is judging). Got {annotator!r} instead.")
        self.annotator = annotator
        self.grades = _grade_scale(grades)
        self._query_text = query_texts(queries, "judge")
        self._docs = read_documents(documents)
        self._judged: dict[tuple[str, str], int] = {}
        if annotator in self.store.annotators():  # resume: what this annotator judged before counts as done
            done = self.store.to_qrels(annotator=annotator)
            self._judged = dict(zip(zip(done["query_id"], done["doc_id"]), done["relevance"].astype(int)))
        self._skipped: list[tuple[str, str]] = []
        self._undo: list[tuple[str, tuple[str, str], int | None]] = []
        self._front: tuple[str, str] | None = None
        self.query: str | None = None
        self.system: str | None = None

    # -- the queue -------------------------------------------------------------------------
    def systems(self) -> list[str]:
        """The systems named in the todo's ``systems`` column.

        Returns
        -------
        list of str
            Sorted; empty without a ``systems`` column.

        Examples
        --------
        >>> import os, tempfile, pandas as pd, rankviz
        >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "systems": ["bm25", "bm25, dense", "dense"]})
        >>> model = rankviz.widgets.JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
        >>> model.systems()
        ['bm25', 'dense']
        """
        return sorted({s.strip() for cell in self.items["systems"] for s in cell.split(",") if s.strip()})

    def query_ids(self) -> list[str]:
        """The todo's query ids, in first-seen order."""
        return list(dict.fromkeys(self.items["query_id"]))

    def set_filter(self, *, query=None, system=None) -> None:
        """Judge only one query's pairs, or only those a system retrieved (None: all).

        Parameters
        ----------
        query : str, optional
            Only this query's pairs.
        system : str, optional
            Only the pairs this system retrieved.

        Examples
        --------
        >>> import os, tempfile, pandas as pd, rankviz
        >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "systems": ["bm25", "bm25, dense", "dense"]})
        >>> model = rankviz.widgets.JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
        >>> model.set_filter(system="dense"); model.current()["doc_id"], model.progress()["total"]
        ('b', 2)
        """
        if query is not None and str(query) not in set(self.items["query_id"]):
            raise InputError(f"judge: query {query!r} has nothing to judge; it is not in the todo list.")
        if system is not None and str(system) not in self.systems():
            raise InputError(
                f"judge: no pair retrieved by system {system!r}; the systems are {', '.join(map(repr, self.systems()))}."
            )
        self.query, self.system = (None if query is None else str(query)), (None if system is None else str(system))

    def _in_scope(self) -> pd.DataFrame:
        items = self.items
        if self.query is not None:
            items = items[items["query_id"] == self.query]
        if self.system is not None:
            items = items[items["systems"].map(lambda cell: self.system in [s.strip() for s in cell.split(",")])]
        return items

    def _pending(self) -> list[tuple[str, str]]:
        pairs = [
            pair for pair in zip(*(self._in_scope()[c] for c in ("query_id", "doc_id"))) if pair not in self._judged
        ]
        skipped = [pair for pair in self._skipped if pair in set(pairs)]
        order = [pair for pair in pairs if pair not in set(skipped)] + skipped  # skipped pairs come back last
        if self._front in set(pairs):
            order.remove(self._front)
            order.insert(0, self._front)
        return order

    def current(self) -> dict | None:
        """The pair to judge now: ``query_id``, ``doc_id``, ``query_text``, ``title``, ``text``, ``systems`` (None when done).

        Returns
        -------
        dict or None
            The pair and its texts, or None when every pair in scope is judged.

        Examples
        --------
        >>> import os, tempfile, pandas as pd, rankviz
        >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "systems": ["bm25", "bm25, dense", "dense"]})
        >>> model = rankviz.widgets.JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
        >>> model.current()["doc_id"]
        'a'
        """
        pending = self._pending()
        if not pending:
            return None
        query_id, doc_id = pending[0]
        doc = self._docs.loc[doc_id].to_dict() if self._docs is not None and doc_id in self._docs.index else {}
        systems = self.items.loc[
            (self.items["query_id"] == query_id) & (self.items["doc_id"] == doc_id), "systems"
        ].iloc[0]
        return {
            "query_id": query_id, "doc_id": doc_id, "query_text": self._query_text.get(query_id, ""),
            "title": str(doc.get("title", "") or ""), "text": str(doc.get("text", "") or ""), "systems": systems,
        }  # fmt: skip

    # -- actions ---------------------------------------------------------------------------
    def judge(self, grade) -> None:
        """Give the current pair ``grade``: committed to the store before this returns, then the next pair.

        Parameters
        ----------
        grade : int
            A grade on the scale.

        Examples
        --------
        >>> import os, tempfile, pandas as pd, rankviz
        >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "systems": ["bm25", "bm25, dense", "dense"]})
        >>> model = rankviz.widgets.JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
        >>> model.judge(2)
        >>> model.store.grade("q1", "a", annotator="me"), model.current()["doc_id"]
        (2, 'b')
        """
        item = self.current()
        if item is None:
            raise InputError("judge: nothing left to judge with these filters.")
        if int(grade) not in self.grades:
            raise InputError(f"judge: grade {grade!r} is not on the scale {list(self.grades)}.")
        pair = (item["query_id"], item["doc_id"])
        before = self.store.grade(*pair, annotator=self.annotator)
        self.store.add(*pair, int(grade), annotator=self.annotator, source="widget")
        self._judged[pair] = int(grade)
        self._undo.append(("judge", pair, before))
        self._front = None

    def skip(self) -> None:
        """Put the current pair at the end of the queue (nothing is written)."""
        item = self.current()
        if item is not None:
            pair = (item["query_id"], item["doc_id"])
            self._skipped = [p for p in self._skipped if p != pair] + [pair]
            self._undo.append(("skip", pair, None))
            self._front = None

    def undo(self) -> str | None:
        """Take back the last judgement (the store gets the grade before it, or the withdrawal) or skip; it becomes current.

        Returns
        -------
        str or None
            What was undone, in words (None when there was nothing to undo).

        Examples
        --------
        >>> import os, tempfile, pandas as pd, rankviz
        >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "systems": ["bm25", "bm25, dense", "dense"]})
        >>> model = rankviz.widgets.JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
        >>> model.judge(2); model.undo()
        'undid the judgement of a for q1'
        """
        if not self._undo:
            return None
        action, pair, before = self._undo.pop()
        if action == "judge":
            if before is None:
                self.store.remove(*pair, annotator=self.annotator, source="widget")
                self._judged.pop(pair, None)
            else:
                self.store.add(*pair, int(before), annotator=self.annotator, source="widget")
                self._judged[pair] = int(before)
            # a pair the annotator had judged before stays judged; it is shown again only if it is pending
        else:
            self._skipped = [p for p in self._skipped if p != pair]
        self._front = pair
        return f"undid the {'judgement' if action == 'judge' else 'skip'} of {pair[1]} for {pair[0]}"

    # -- progress --------------------------------------------------------------------------
    def per_query(self) -> list[dict]:
        """Per query in scope: ``query_id``, ``judged``, ``total``.

        Returns
        -------
        list of dict
            One dict per query, in the todo's order.

        Examples
        --------
        >>> import os, tempfile, pandas as pd, rankviz
        >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "systems": ["bm25", "bm25, dense", "dense"]})
        >>> model = rankviz.widgets.JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
        >>> model.per_query()
        [{'query_id': 'q1', 'judged': 0, 'total': 2}, {'query_id': 'q2', 'judged': 0, 'total': 1}]
        """
        scope = self._in_scope()
        done = [(q, d) in self._judged for q, d in zip(scope["query_id"], scope["doc_id"])]
        table = pd.DataFrame({"query_id": scope["query_id"].to_numpy(), "judged": done})
        grouped = table.groupby("query_id", sort=False)["judged"].agg(["sum", "size"])
        return [{"query_id": q, "judged": int(r["sum"]), "total": int(r["size"])} for q, r in grouped.iterrows()]

    def progress(self) -> dict:
        """``judged`` and ``total`` pairs, and ``queries_done`` of ``queries``, within the filters.

        Returns
        -------
        dict
            ``judged``, ``total``, ``queries_done`` and ``queries``.

        Examples
        --------
        >>> import os, tempfile, pandas as pd, rankviz
        >>> todo = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "systems": ["bm25", "bm25, dense", "dense"]})
        >>> model = rankviz.widgets.JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me")
        >>> model.progress()
        {'judged': 0, 'total': 3, 'queries_done': 0, 'queries': 2}
        """
        rows = self.per_query()
        return {
            "judged": sum(r["judged"] for r in rows), "total": sum(r["total"] for r in rows),
            "queries_done": sum(r["judged"] == r["total"] for r in rows), "queries": len(rows),
        }  # fmt: skip


class Judge(w.VBox):
    """The judging widget over a :class:`JudgeModel` (see :func:`judge`).

    Parameters
    ----------
    model : JudgeModel
        The pairs to grade and the store the grades go to.

    Examples
    --------
    >>> import os, tempfile, pandas as pd
    >>> from rankviz.widgets import Judge, JudgeModel
    >>> todo = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"]})
    >>> ui = Judge(JudgeModel(todo, os.path.join(tempfile.mkdtemp(), "labels.sqlite"), annotator="me"))
    >>> ui.grade_buttons[1].click()
    >>> ui.model.current()["doc_id"]
    'b'
    """

    def __init__(self, model: JudgeModel):
        self.model = model
        self.query_filter = w.Dropdown(
            options=[("all queries", None)] + [(q, q) for q in model.query_ids()], description="query"
        )
        self.system_filter = w.Dropdown(
            options=[("all systems", None)] + [(s, s) for s in model.systems()], description="system"
        )
        self.header, self.document, self.progress = w.HTML(), w.HTML(), w.HTML()
        keys = "/".join(self._key_of(g) for g in model.grades)
        self.grade_buttons = {
            g: w.Button(description=f"{self._key_of(g)}: {label}", tooltip=f"grade {g}")
            for g, label in model.grades.items()
        }
        self.skip_button = w.Button(description="s: skip", tooltip="judge it later")
        self.undo_button = w.Button(description="u: undo", tooltip="take back the last grade or skip")
        self.key_box = w.Text(placeholder=f"click here, then type {keys} to grade, s to skip, u to undo", continuous_update=True,
                           layout=w.Layout(width="32em"))  # fmt: skip
        for g, button in self.grade_buttons.items():
            button.add_class("rankviz-grade")
            button.add_class(render_judge.grade_class(g))
            button.on_click(lambda _b, g=g: self._act(lambda: self.model.judge(g), f"saved grade {g}"))
        for widget, name in ((self.skip_button, "rankviz-skip"), (self.undo_button, "rankviz-undo"), (self.key_box, "rankviz-keys"),
                             (self.query_filter, "rankviz-query-filter"), (self.system_filter, "rankviz-system-filter"),
                             (self.progress, "rankviz-progress-box")):  # fmt: skip
            widget.add_class(name)
        self.skip_button.on_click(lambda _b: self._act(self.model.skip, "skipped"))
        self.undo_button.on_click(lambda _b: self._act(self.model.undo, None))
        self.key_box.observe(self._on_key, names="value")
        self.query_filter.observe(self._on_filter, names="value")
        self.system_filter.observe(self._on_filter, names="value")
        super().__init__(children=[
            w.HBox([self.query_filter, self.system_filter]), self.header, self.document,
            w.HBox(list(self.grade_buttons.values()) + [self.skip_button, self.undo_button]), self.key_box, self.progress,
        ])  # fmt: skip
        self.add_class("rankviz-judge")
        self._show()

    def _key_of(self, grade: int) -> str:
        digits = all(0 <= g <= 9 for g in self.model.grades)
        return str(grade) if digits else str(list(self.model.grades).index(grade) + 1)

    def _act(self, action, note) -> None:
        try:
            said = action()
        except InputError as error:
            self._show(str(error))
            return
        self._show(note or said or "")

    def _on_key(self, change) -> None:
        typed = change["new"]
        if not typed:
            return
        self.key_box.value = ""  # ready for the next key
        key = typed[-1].lower()
        by_key = {self._key_of(g): g for g in self.model.grades}
        if key in by_key:
            grade = by_key[key]
            self._act(lambda: self.model.judge(grade), f"saved grade {grade}")
        elif key == "s":
            self._act(self.model.skip, "skipped")
        elif key == "u":
            self._act(self.model.undo, None)
        else:
            self._show(f"key {key!r} does nothing: {', '.join(by_key)} grade, s skips, u undoes")

    def _on_filter(self, change) -> None:
        self._act(lambda: self.model.set_filter(query=self.query_filter.value, system=self.system_filter.value), "")

    def _show(self, note: str = "") -> None:
        item = self.model.current()
        before = (
            None
            if item is None
            else self.model.store.grade(item["query_id"], item["doc_id"], annotator=self.model.annotator)
        )
        self.header.value = render_judge.judge_header(item)
        self.document.value = render_judge.document_panel(item, before)
        self.progress.value = render_judge.progress_line(self.model.progress(), note)
        for button in self.grade_buttons.values():
            button.disabled = item is None

    def __repr__(self) -> str:
        p = self.model.progress()
        return f"Judge({p['judged']} of {p['total']} judged, {p['queries_done']} of {p['queries']} queries done, store={os.path.basename(self.model.store.path)!r})"

    def _repr_mimebundle_(self, **kwargs):
        # the live widget, plus a static snapshot for pages without a kernel (as the explorer does)
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/html"] = self.snapshot_html()
        return bundle

    def snapshot_html(self, n_queries: int = 10) -> str:
        """The widget's state as self-contained HTML: the current pair, the scale, the progress, the first ``n_queries`` queries."""
        m = self.model
        grades = [(g, f"{self._key_of(g)}: {label}") for g, label in m.grades.items()]
        rows = m.per_query()
        return render_judge.judge_snapshot(
            m.current(), grades, m.progress(), rows[:n_queries], more=len(rows) - n_queries
        )


def judge(todo, store, *, annotator: str, grades=None, queries=None, documents=None) -> Judge:
    """A widget to judge (query, document) pairs one at a time, straight into a label store.

    It shows the query (its text when ``queries`` are given), one document with its
    text (the query's words marked), a button per grade, *skip* and *undo*, and the
    progress ("37 of 120 judged, 4 of 30 queries done"); two menus keep one query or
    one system's pairs. Typing in the key box works as the buttons: the grade's digit,
    ``s`` to skip, ``u`` to undo. Every grade is committed to the store before the
    next document shows, so nothing shown as saved can be lost; reopening the same
    store (after a kernel restart) resumes where it stopped.

    Parameters
    ----------
    todo : DataFrame
        The pairs to judge, in order: ``query_id`` and ``doc_id`` columns, and
        optionally ``systems`` (comma-separated names, for the system menu), as
        :func:`rankviz.labels.holes` returns them.
    store : LabelStore, str or path-like
        Where the judgements go (a path opens or creates a store).
    annotator : str
        Who is judging; pairs this annotator judged before count as done.
    grades : list of int or dict, default {0: 'not relevant', 1: 'relevant', 2: 'highly relevant'}
        The grade scale: ``[0, 1]`` or ``{grade: label}``.
    queries : DataFrame, Series or dict, optional
        Query texts, as for :func:`rankviz.widgets.explore`.
    documents : DataFrame, optional
        ``doc_id``, ``text`` and optionally ``title`` columns.

    Returns
    -------
    Judge
        An ``ipywidgets.VBox`` with ``model`` (the :class:`JudgeModel`),
        ``grade_buttons`` (grade -> button), ``skip_button``, ``undo_button``, ``key_box``,
        ``query_filter``, ``system_filter``, ``header``, ``document``, ``progress``.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankviz import labels, widgets
    >>> from rankviz.datasets import load_example, load_example_documents
    >>> run, qrels, queries = load_example()
    >>> todo = labels.holes(run, qrels, k=10).head(20)
    >>> store = labels.LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
    >>> ui = widgets.judge(todo, store, annotator="me", queries=queries, documents=load_example_documents())
    >>> ui.grade_buttons[1].click()
    >>> ui.key_box.value = "0"
    >>> ui.model.progress()["judged"], len(store.to_qrels(annotator="me"))
    (2, 2)
    """
    model = JudgeModel(todo, store, annotator=annotator, grades=grades, queries=queries, documents=documents)
    return Judge(model)
