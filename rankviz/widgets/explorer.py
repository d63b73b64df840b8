"""The per-query explorer: worst queries first, their ranked lists and their measures.

:class:`ExplorerModel` evaluates the run (once per cutoff ``k``) and returns data:
worst-first tables, per-query measures, ranked lists (DataFrames, read through
:class:`~rankviz.widgets.ranked.RankedLists`), a status dict. :class:`Explorer` is
the ipywidgets view over it; :mod:`rankviz.widgets.render` makes its HTML.
``df.rank.explore(qrels=qrels)`` calls :func:`explore`.
"""

from __future__ import annotations

from typing import Unpack

import ipywidgets as w

from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from .._errors import InputError
from . import render, render_stages
from .explorer_judging import ExplorerJudging, JudgeRow
from .explorer_model import FAILURE_NOTE, ExplorerModel, model_of
from .explorer_stages import StageView

__all__ = ["ExplorerModel", "Explorer", "explore", "NO_BASELINE"]

#: the "beside" menu's choice for a single list
NO_BASELINE = "(none)"


class Explorer(w.VBox):
    """The widget returned by :func:`explore`; see there.

    Parameters
    ----------
    model : ExplorerModel
        The run, qrels, texts and measures the widget shows.
    system : str, optional
        The system shown first (required when the run has several).
    baseline : str, optional
        A system shown beside it.
    judging : ExplorerJudging, optional
        Grading from the table into a label store; None: the explorer does not judge.
    stages : StageView, optional
        A pipeline's stages for the selected query; None: no stage view.

    Examples
    --------
    >>> from rankviz.datasets import load_example
    >>> from rankviz.widgets import Explorer, ExplorerModel
    >>> run, qrels, queries = load_example()
    >>> ui = Explorer(ExplorerModel(run, qrels, queries=queries), system="bm25", baseline="rrf")
    >>> ui.system.value, ui.baseline.value
    ('bm25', 'rrf')
    """

    def __init__(
        self,
        model: ExplorerModel,
        *,
        system=None,
        baseline=None,
        judging: ExplorerJudging | None = None,
        stages: StageView | None = None,
    ):
        self.model = model
        #: the pipeline's stages (None: no stage view)
        self.stage_view = stages
        #: the judging logic (None: the explorer does not judge)
        self.judging = judging
        #: the judging row under the table (None without a store)
        self.judge_row = None if judging is None else JudgeRow(judging.grades, self._on_grade)
        system = model.check_system(system)
        baseline = model.check_system(baseline) if baseline is not None else None
        self._busy = False
        self.system = w.Dropdown(options=list(model.systems or ["run"]), value=system or "run", description="system")
        self.system.disabled = model.systems is None
        others = [NO_BASELINE] + list(model.systems or [])
        self.baseline = w.Dropdown(options=others, value=baseline or NO_BASELINE, description="beside")
        self.baseline.disabled = model.systems is None or len(model.systems) < 2
        self.order = w.Dropdown(options=model.order_labels, value=model.order_label, description="worst by")
        self.k = w.IntSlider(value=model.initial_k, min=1, max=model.max_k, description="k", continuous_update=False)
        self.search = w.Text(placeholder="filter queries (id or words)", description="search", continuous_update=True)
        self.next_failure = w.Button(description="next failure \u25b6", tooltip=FAILURE_NOTE)
        self.query = w.Select(options=[], rows=10, description="query", layout=w.Layout(width="34em"))
        self.header, self.measures, self.table, self.status = w.HTML(), w.HTML(), w.HTML(), w.HTML()
        #: the selected query's relevant documents at each stage (empty without stages=)
        self.stages = w.HTML()
        classes = {
            "rankviz-system": self.system,
            "rankviz-baseline": self.baseline,
            "rankviz-order": self.order,
            "rankviz-k": self.k,
            "rankviz-search": self.search,
            "rankviz-next-failure": self.next_failure,
            "rankviz-queries": self.query,
            "rankviz-query": self.header,
            "rankviz-measures": self.measures,
            "rankviz-table": self.table,
            "rankviz-status": self.status,
            "rankviz-stage-view": self.stages,
        }
        for name, widget in classes.items():
            widget.add_class(name)
        super().__init__(
            children=[
                w.HBox([self.system, self.baseline, self.order, self.k]),
                w.HBox([self.search, self.next_failure]),
                w.HBox([self.query, w.VBox([self.header, self.measures])]),
                self.table,
                *([] if self.stage_view is None else [self.stages]),
                *([] if self.judge_row is None else [self.judge_row]),
                self.status,
            ]
        )
        self.add_class("rankviz-explorer")
        for widget in (self.system, self.order, self.k, self.search):
            widget.observe(self._on_list_change, names="value")
        self.baseline.observe(self._on_list_change, names="value")
        self.query.observe(self._on_query, names="value")
        self.next_failure.on_click(self._on_next_failure)
        self._relist()

    def __repr__(self) -> str:
        # Also the text/plain fallback of a notebook rendered without a live kernel.
        return (
            f"Explorer(system={self.selected_system!r}, query={self.query.value!r}, k={self.k.value}, "
            f"worst by {self.order.value!r}, {len(self.query.options)} queries listed)"
        )

    def _repr_mimebundle_(self, **kwargs):
        # The widget view for a live kernel, plus a static HTML snapshot for pages without one
        # (rendered notebooks keep the snapshot; JupyterLab and Voilà show the widget).
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/html"] = self.snapshot_html()
        return bundle

    def snapshot_html(self, n_queries: int = 10) -> str:
        """The widget's current state as self-contained HTML, with the first ``n_queries`` listed queries readable.

        The selected query comes first, then the next ones of the list (worst first);
        clicking one in the page shows its measures and ranked list, *next failure*
        steps through those with RR@k = 0. Nothing is computed in the page.

        Parameters
        ----------
        n_queries : int, default 10
            Queries readable in the page, from the selected one on.

        Returns
        -------
        str
            An HTML fragment (no kernel needed to show it).

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> ui = rankviz.widgets.explore(run, qrels, queries=queries, system="bm25")
        >>> ui.snapshot_html(n_queries=2).startswith("<div")
        True
        """
        m, system, k = self.model, self.selected_system, self.k.value
        listed = m.worst_first(system, k, self.order.value, self.search.value)
        ids = listed["query_id"].tolist()
        start = ids.index(self.query.value) if self.query.value in ids else 0
        rows = listed.iloc[start : start + n_queries]
        means = m.system_means(system, k) if len(rows) else {}
        items = []
        for qid, value, failure, text in zip(rows["query_id"], rows["value"], rows["failure"], rows["text"]):
            panel = render.query_header(qid, system, text) + render.measure_table(
                m.query_measures(system, qid, k), means, m.first_relevant(system, qid)
            )
            table = self._table_html(qid) + self._stages_html(qid)
            items.append(
                {
                    "label": render.query_option(value, qid, text),
                    "failure": bool(failure),
                    "panel": panel,
                    "table": table,
                }
            )
        controls = {"system": system or "run", "order": self.order.value, "k": k, "search": self.search.value,
                    "listed": len(listed)}  # fmt: skip
        status = render.status_line(m.status(system, k, self.order.value, self.search.value))
        return render.explorer_snapshot(controls, items, status)

    @property
    def selected_baseline(self):
        """The system shown beside the selected one (None: a single list)."""
        value = self.baseline.value
        return None if value == NO_BASELINE or value == self.selected_system else value

    def _table_html(self, qid) -> str:
        m, system, k, baseline = self.model, self.selected_system, self.k.value, self.selected_baseline
        if baseline is None:
            return render.ranked_list_table(m.top(system, qid, k), m.snippet_length)
        mine, theirs = m.side_by_side(system, baseline, qid, k)
        return render.side_by_side(mine, theirs, system, baseline, m.snippet_length)

    def _stages_html(self, qid) -> str:
        view = self.stage_view
        if view is None or qid is None:
            return ""
        return render_stages.stage_table(view.table(qid), view.names, view.ordered, view.sentence(qid), view.best(qid))

    @property
    def selected_system(self):
        """The chosen system (None for a run without systems)."""
        return None if self.model.systems is None else self.system.value

    def _relist(self, note: str = "") -> None:
        """Rebuild the query list (system, order, k or search changed), keeping the selection if listed."""
        listed = self.model.worst_first(self.selected_system, self.k.value, self.order.value, self.search.value)
        options = [
            (render.query_option(value, qid, text), qid)
            for qid, value, text in zip(listed["query_id"], listed["value"], listed["text"])
        ]
        current = self.query.value
        self._busy = True
        try:
            self.query.options = options
            ids = [qid for _, qid in options]
            self.query.value = current if current in ids else (ids[0] if ids else None)
        finally:
            self._busy = False
        self._show(note)

    def _show(self, note: str = "") -> None:
        m, system, k, qid = self.model, self.selected_system, self.k.value, self.query.value
        if qid is None:
            self.header.value = render.query_header(None)
            self.measures.value = self.table.value = self.stages.value = ""
        else:
            self.header.value = render.query_header(qid, system, m.query_text(qid))
            means = m.system_means(system, k)
            self.measures.value = render.measure_table(
                m.query_measures(system, qid, k), means, m.first_relevant(system, qid)
            )
            self.table.value = self._table_html(qid)
            self.stages.value = self._stages_html(qid)
        if self.judge_row is not None and self.judging is not None:
            self.judge_row.show([] if qid is None else self.judging.unjudged(system, qid, k))
        self.status.value = render.status_line(m.status(system, k, self.order.value, self.search.value), note)

    def _on_list_change(self, change):
        self._relist()

    def _on_query(self, change):
        if not self._busy:
            self._show()

    def _on_next_failure(self, _button=None):
        self.show_next_failure()

    def show_next_failure(self) -> str | None:
        """Select the next query with ``RR@k = 0`` in the listed order; return its id (None if none).

        Returns
        -------
        str or None
            The query now selected.

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> ui = rankviz.widgets.explore(run, qrels, queries=queries, system="bm25")
        >>> qid = ui.show_next_failure()
        >>> qid == ui.query.value, ui.model.query_measures("bm25", qid, ui.k.value)[f"RR@{ui.k.value}"]
        (True, 0.0)
        """
        m, k = self.model, self.k.value
        nxt = m.next_failure(
            self.selected_system, k, after=self.query.value, order=self.order.value, search=self.search.value
        )
        if nxt is None:
            self._show(f"No listed query has {m.failure_name(k)} = 0.")
        elif nxt == self.query.value:
            self._show(f"This is the only listed query with {m.failure_name(k)} = 0.")
        else:
            self.query.value = nxt
        return nxt

    def judge(self, doc_id, grade) -> None:
        """Grade a document of the selected query's list (as a click on a grade button does): stored, then shown.

        Parameters
        ----------
        doc_id : str
            A document of the list shown.
        grade : int
            A grade on the store's scale.

        Raises
        ------
        rankviz.InputError
            Without ``store=``, with no query selected, for a grade off the scale or a
            document that is not in the list shown.

        Examples
        --------
        >>> import os, tempfile, rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> store = rankviz.labels.LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
        >>> ui = rankviz.widgets.explore(run, qrels, system="bm25", store=store, annotator="me")
        >>> ui.select("q0001")
        >>> doc = ui.model.ranked("bm25", "q0001")["doc_id"].iloc[0]
        >>> ui.judge(doc, 2)
        >>> store.grade("q0001", doc, annotator="me")
        2
        """
        if self.judging is None or self.judge_row is None:
            raise InputError("explore: this explorer has no label store; pass store= and annotator= to judge.")
        if self.query.value is None:
            raise InputError("explore: no query is selected; select one to judge its list.")
        said = self.judging.judge(self.selected_system, self.query.value, doc_id, grade, k=self.k.value)
        self._relist()  # the query's measures, and so its place in the worst-first list, may have changed
        self.judge_row.say(said)

    def _on_grade(self, doc_id: str, grade: int) -> None:
        try:
            self.judge(doc_id, grade)
        except InputError as error:  # a click shows the reason, never a traceback
            if self.judge_row is not None:
                self.judge_row.say(str(error), error=True)

    def select(self, query_id) -> None:
        """Show a query (clearing the search filter if it hides it).

        Parameters
        ----------
        query_id : str
            A query evaluated for the run.

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> ui = rankviz.widgets.explore(run, qrels, queries=queries, system="bm25")
        >>> ui.select("q0001")
        >>> ui.query.value
        'q0001'
        """
        ids = [qid for _, qid in self.query.options]
        if str(query_id) not in ids:
            self.search.value = ""
            ids = [qid for _, qid in self.query.options]
            if str(query_id) not in ids:
                raise InputError(
                    f"explore: query {query_id!r} is not evaluated for this run (unknown, or without judgements)."
                )
        self.query.value = str(query_id)


@with_options(EVAL)
def explore(
    options: EvalOptions,
    run,
    qrels=None,
    *,
    queries=None,
    documents=None,
    measure="RR@k",
    k: int | None = None,
    system=None,
    baseline=None,
    snippet_length: int = 160,
    store=None,
    annotator: str | None = None,
    stages=None,
    **_: Unpack[EvalKeywords],
) -> Explorer:
    """An ipywidgets per-query debugger: worst queries first, their ranked lists and measures.

    The widget lets you choose a system and a query (a search box filters the list,
    which is ordered worst first by a measure you choose), shows the query's ranked
    list (rank, doc id, score, relevance grade and a snippet when ``documents`` are
    given; relevant rows highlighted) and its RR@k, RR, AP, nDCG@k, P@k, R@k and
    Success@k next to the system's means. A ``k`` slider sets how many rows the
    table shows and the cutoff of the measures; *next failure* jumps to the next
    query with ``RR@k = 0``. ``df.rank.explore(qrels=qrels)`` calls this function.

    Parameters
    ----------
    run : DataFrame or dict
        Any input shape rankviz evaluates; usually a long run (``query_id``,
        ``doc_id``, ``score``, optional ``system``) with ``qrels``.
    qrels : DataFrame, path or dict, optional
    queries : DataFrame, Series or dict, optional
        Query texts, shown in the list and searchable: a frame with a query id
        column (``query_id``, ``qid``, ``query``, or such an index) and a text column
        (``text``, ``query_text``, ``question`` or ``title``), or ``{query_id: text}``.
    documents : DataFrame, optional
        A ``doc_id`` (``docid``, ``docno``) column, a ``text`` column and optionally
        ``title``; adds a snippet column to the table.
    measure : str or Measure, default 'RR@k'
        Orders the queries worst first. A cutoff in its name follows the ``k``
        slider: ``'RR@k'`` and ``'nDCG@k'`` are at the slider's ``k``; ``'nDCG@20'``
        also starts the slider at 20; ``'AP'`` or ``'RR'`` have no cutoff.
    k : int, optional
        Initial cutoff: the table shows the top ``k`` rows and the @k measures use
        it. Defaults to the cutoff of ``measure``, else 10; a number in both that
        disagrees is an error.
    system : str, optional
        The system shown first (default: the first one).
    baseline : str, optional
        Show this system's list beside the system's (side by side, the baseline on the
        left): each relevant document that moved is marked with its rank in the other
        list (``▲ from 7``, ``▼ from 1``, ``new``; ``gone`` in the baseline's list).
        The *beside* menu changes it (``(none)``: one list).
    snippet_length : int, default 160
        Characters of document text per row.
    store : LabelStore, str or path-like, optional
        Judge in place: a :class:`rankviz.labels.LabelStore` (or the path of one,
        created if absent). Under the table, a *judge* row lists the unjudged
        documents of the list shown (rank order) with a button per grade (0 to the
        highest grade in the qrels or the store, at least 0 and 1). A click commits
        the grade to the store (one transaction, as ``store.add`` does) and
        re-evaluates: the explorer's judgements are ``qrels`` with the store's
        labels (``store.to_qrels()``: every annotator, the latest judgement winning)
        merged over them, so its measures follow every grade given. Without
        ``store`` there is no judge row.
    annotator : str, optional
        Who judges (required with ``store``); each grade is stored under this name.
    stages : Stages, optional
        What :func:`rankviz.stages` returns for a pipeline over these queries: under the ranked list, a stage
        view shows the selected query's relevant documents, their position at each stage (``—`` where a stage
        does not hold one, ``in`` for an unordered stage that does), where each was lost and why, and the
        query's one-line explanation.

    Returns
    -------
    Explorer
        An ``ipywidgets.VBox`` with the attributes ``model`` (the
        :class:`ExplorerModel`), ``system``, ``order``, ``k``, ``search``,
        ``next_failure``, ``query`` (input widgets) and ``header``, ``measures``,
        ``table``, ``status`` (``HTML`` outputs), and the methods
        ``show_next_failure()`` and ``select(query_id)``; with ``store``, also
        ``judging`` (the :class:`~rankviz.widgets.explorer_judging.ExplorerJudging`),
        ``judge_row`` (its widgets: ``document``, ``buttons``, ``message``) and
        ``judge(doc_id, grade)``; with ``stages``, ``stages`` (the stage view's ``HTML``) and
        ``stage_view`` (the :class:`~rankviz.widgets.explorer_stages.StageView`).

    Raises
    ------
    rankviz.InputError
        For an empty run, an unknown ``system``, ``k`` and ``measure`` that disagree,
        ``store`` without ``annotator``, or ``stages`` that is not what :func:`rankviz.stages` returns.

    See Also
    --------
    ExplorerModel : the same logic without widgets.
    playground : how the measures react to the position of relevant results.
    rankviz.ranked_list : one query's list as a DataFrame.

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.datasets import load_example, load_example_documents
    >>> run, qrels, queries = load_example()
    >>> ui = run.rank.explore(qrels=qrels, queries=queries, documents=load_example_documents(), system="bm25")
    >>> ui.k.value = 5
    >>> ui.table.value.count("<tr class=")
    5
    >>> qid = ui.show_next_failure()
    >>> ui.model.query_measures("bm25", qid, 5)["RR@5"]
    0.0
    """
    view = None if stages is None else StageView(stages)  # refused before the run is evaluated
    model = model_of(
        run, qrels, options, queries=queries, documents=documents, measure=measure, k=k, snippet_length=snippet_length
    )
    judging = None if store is None else ExplorerJudging(model, qrels, store, annotator=annotator)
    return Explorer(model, system=system, baseline=baseline, judging=judging, stages=view)
