"""The per-query explorer: worst queries first, their ranked lists and their measures.

:class:`ExplorerModel` evaluates the run (once per cutoff ``k``) and returns data:
worst-first tables, per-query measures, ranked lists (DataFrames, read through
:class:`~rankviz.widgets.ranked.RankedLists`), a status dict. :class:`Explorer` is
the ipywidgets view over it; :mod:`rankviz.widgets.render` makes its HTML.
``df.rank.explore(qrels=qrels)`` calls :func:`explore`.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections import OrderedDict
from collections.abc import Mapping

import ipywidgets as w
import numpy as np
import pandas as pd

from .._columns import Columns
from .._errors import ClosedWorldWarning, IdTypeWarning, InputError
from .._tables import query_texts
from .._validation import check_cutoff, check_int
from .._pipeline import with_rel
from ..evaluation import evaluate
from ..measures import Measure, parse_measure
from . import render
from .ranked import RankedLists, read_documents

__all__ = ["ExplorerModel", "Explorer", "explore"]

#: pandas 3 always copies on write (pandas 2.2 when its option is on): a shallow copy is then a snapshot
_COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3 or bool(pd.get_option("mode.copy_on_write"))

_FAILURE_NOTE = "next query with RR@k = 0 (in the order shown)"

#: (family, cutoff) of the standard orderings; a cutoff (any) means "at the slider's k"
_ORDER_CHOICES = (("RR", 1), ("RR", None), ("AP", None), ("nDCG", 1), ("P", 1), ("R", 1), ("Success", 1))


def _label(measure: Measure) -> str:
    """A measure template's label: the name with ``@k`` where the cutoff follows the slider."""
    base = dataclasses.replace(measure, cutoff=None)
    has_cutoff = measure.cutoff is not None or measure.needs_cutoff
    return repr(base) + ("@k" if has_cutoff else "")


def _order_and_k(measure, k) -> tuple[Measure, int]:
    """The ordering measure and the initial cutoff, checked against each other."""
    template = isinstance(measure, str) and measure.strip().endswith("@k")  # "at the slider's k"
    order_measure = parse_measure(measure.strip()[:-2] + "@1" if template else measure)
    stated_cutoff = None if template else order_measure.cutoff
    k = check_cutoff(k, "explore", allow_none=True)
    if k is None:
        return order_measure, stated_cutoff or 10
    if stated_cutoff is not None and stated_cutoff != k:
        raise InputError(
            f"explore: measure={order_measure.name!r} and k={k} disagree. The cutoff of the ordering measure "
            f"follows the k slider: pass measure={_label(order_measure)!r} with k={k}, or k={stated_cutoff}."
        )
    return order_measure, k


class ExplorerModel:
    """The logic behind :func:`explore`: worst-first queries, their measures and ranked lists.

    The model evaluates the run once per cutoff ``k`` (cached, per model: there is no
    global state) with :func:`rankviz.evaluate` and reads ranked lists with
    :func:`rankviz.ranked_list`. It returns data (DataFrames, dicts, strings), never
    HTML: :mod:`rankviz.widgets.render` draws it. It keeps no selection of its own:
    every method takes the system, query and ``k`` it is about, so widgets and tests
    can drive it.

    Parameters
    ----------
    run, qrels, queries, documents, measure, k, rel, snippet_length, columns, order, score_dtype
        As for :func:`explore` (the model has no ``system``: each method takes it).

    Raises
    ------
    rankviz.InputError
        For an empty run, ``k`` and ``measure`` that disagree, or queries/documents
        without the needed columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.widgets import ExplorerModel
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 1]})
    >>> model = ExplorerModel(run, qrels, k=10)
    >>> model.worst_first(None, 10)["query_id"].tolist()
    ['q1', 'q2']
    >>> model.query_measures(None, "q1", 10)["RR@10"]
    0.5
    >>> model.top(None, "q1", 10)[["rank", "doc_id", "relevant"]].to_dict("list")
    {'rank': [1, 2], 'doc_id': ['a', 'b'], 'relevant': [False, True]}
    >>> model.next_failure(None, 10, after=None) is None
    True
    """

    def __init__(
        self,
        run,
        qrels=None,
        *,
        queries=None,
        documents=None,
        measure="RR@k",
        k: int | None = None,
        rel: int = 1,
        snippet_length: int = 160,
        columns: Mapping[str, str] | None = None,
        order: str | None = None,
        score_dtype: str | None = None,
    ):
        if isinstance(run, Mapping) and not isinstance(run, pd.DataFrame):
            run = pd.DataFrame({"query": [str(q) for q in run], "relevance": list(run.values())})
        if not isinstance(run, pd.DataFrame):
            raise InputError(
                f"explore: the run must be a pandas DataFrame (or a dict of relevance lists). Got {type(run).__name__} instead."
            )
        if len(run) == 0:
            raise InputError("explore: the run is empty (0 rows): there is no query to explore.")
        self.rel = check_int(rel, "rel", "explore", low=0)
        self.snippet_length = check_int(snippet_length, "snippet_length", "explore", low=1)
        order_measure, k = _order_and_k(measure, k)
        self.initial_k = k
        self.columns = Columns.of(columns, "explore")
        # The model caches measures and row positions: it works on a snapshot, so that sorting or editing the
        # caller's frame in place afterwards cannot pair a query's cached measures with another query's rows.
        # Under copy-on-write (pandas 3) the snapshot is lazy and costs nothing until the caller writes.
        run = run.copy(deep=not _COPY_ON_WRITE)
        qrels = qrels.copy(deep=not _COPY_ON_WRITE) if isinstance(qrels, pd.DataFrame) else qrels
        self._run = run
        self._qrels = qrels
        given = {"order": order, "score_dtype": score_dtype}
        self._options = {"columns": self.columns, **{key: v for key, v in given.items() if v is not None}}
        self.order_label = _label(order_measure)
        standard = [_label(m) for m in with_rel([Measure(f, cutoff=cutoff) for f, cutoff in _ORDER_CHOICES], self.rel)]
        #: the choices of the "worst by" menu: "@k" marks a cutoff that follows the k slider
        self.order_labels = list(dict.fromkeys([*standard, self.order_label]))
        self._cache: OrderedDict[int, pd.DataFrame] = OrderedDict()

        # The first evaluation lets rankviz's warnings (closed world, id types) reach the caller once.
        table = self._table(k, quiet=False)
        meta = table.attrs.get("rankviz", {})
        self.closed_world = bool(meta.get("closed_world", False))
        self.unjudged = {key: len(value) for key, value in meta.get("unjudged_in_run", {}).items()}
        self.systems: tuple[str, ...] | None = tuple(pd.unique(table["system"]).tolist()) if "system" in table.columns else None
        self._query_text = query_texts(queries, "explore")
        documents = read_documents(documents)
        self._lists = RankedLists(run, qrels, columns=self.columns, options=self._options, rel=self.rel, documents=documents)
        self.max_k = max(self._lists.longest, k)

    # -- evaluation ------------------------------------------------------------------------
    def measure_at(self, label: str, k: int) -> Measure:
        """The measure a label stands for at cutoff ``k`` (``'nDCG@k'`` -> ``nDCG@10``)."""
        return parse_measure(label.replace("@k", f"@{int(k)}"))

    def display_names(self, k: int) -> list[str]:
        """Canonical names of the measures shown for a query at cutoff ``k``."""
        r = "" if self.rel == 1 else f"(rel={self.rel})"
        return [f"RR{r}@{k}", f"RR{r}", f"AP{r}", f"nDCG@{k}", f"P{r}@{k}", f"R{r}@{k}", f"Success{r}@{k}"]

    def failure_name(self, k: int) -> str:
        """The measure whose 0 makes a query a failure: ``RR@k``."""
        return self.display_names(k)[0]

    def _table(self, k: int, *, quiet: bool = True) -> pd.DataFrame:
        k = check_cutoff(k, "explore", allow_none=False)
        if k in self._cache:
            self._cache.move_to_end(k)
            return self._cache[k]
        names = self.display_names(k) + [self.measure_at(label, k).name for label in self.order_labels]
        names = list(dict.fromkeys(names))
        with warnings.catch_warnings():
            if quiet:  # said once, when the model was built
                warnings.simplefilter("ignore", ClosedWorldWarning)
                warnings.simplefilter("ignore", IdTypeWarning)
            table = evaluate(self._run, names, self._qrels, per_query=True, **self._options)
        self._cache[k] = table
        while len(self._cache) > 16:
            self._cache.popitem(last=False)
        return table

    def check_system(self, system) -> str | None:
        """The system a method is about: ``system`` checked, the first one for None (None without systems)."""
        if self.systems is None:
            if system is not None:
                raise InputError(f"explore: the run has no system column, so system={system!r} cannot be chosen; leave it out.")
            return None
        if system is None:
            return self.systems[0]
        if str(system) not in self.systems:
            raise InputError(f"explore: unknown system {system!r}; the run has {', '.join(map(repr, self.systems))}.")
        return str(system)

    def per_query(self, system, k: int) -> pd.DataFrame:
        """Per-query measures of one system at cutoff ``k`` (a new frame: ``query_id`` and measures)."""
        system = self.check_system(system)
        table = self._table(k)
        if system is not None:
            table = table[table["system"] == system].drop(columns="system")
        return table.reset_index(drop=True)

    def query_text(self, query_id) -> str:
        """The text of a query ('' when unknown)."""
        return self._query_text.get(str(query_id), "")

    def worst_first(self, system, k: int, order: str | None = None, search: str = "") -> pd.DataFrame:
        """The queries of a system, worst first by ``order`` at cutoff ``k``, filtered by ``search``.

        Parameters
        ----------
        system : str or None
        k : int
        order : str, optional
            A label of :attr:`order_labels` (``'RR@k'``, ``'AP'``, ``'nDCG@k'`` ...);
            defaults to the model's ``measure``.
        search : str, default ''
            Keep the queries whose id or text contains every word of it (case-insensitive).

        Returns
        -------
        DataFrame
            ``query_id``, ``value`` (the ordering measure), ``failure`` (``RR@k = 0``)
            and ``text``, worst first; ties are broken by RR (whole list), then by id.
        """
        order = self.order_label if order is None else order
        table = self.per_query(system, k)
        name = self.measure_at(order, k).name
        rr_all = self.display_names(k)[1]
        result = pd.DataFrame(
            {
                "query_id": table["query_id"].astype("str").to_numpy(dtype=object),
                "value": table[name].to_numpy(dtype=float),
                "failure": (table[self.failure_name(k)].to_numpy(dtype=float) == 0),
                "tie": table[rr_all].to_numpy(dtype=float),
            }
        )
        result["text"] = [self.query_text(q) for q in result["query_id"]]
        terms = str(search or "").lower().split()
        if terms:
            haystack = (result["query_id"] + " " + result["text"]).str.lower()
            mask = np.ones(len(result), dtype=bool)
            for term in terms:
                mask &= haystack.str.contains(term, regex=False).to_numpy(dtype=bool)
            result = result[mask]
        result = result.sort_values(["value", "tie", "query_id"], kind="stable").drop(columns="tie")
        return result.reset_index(drop=True)

    def next_failure(self, system, k: int, *, after, order: str | None = None, search: str = "") -> str | None:
        """The next query with ``RR@k = 0`` after ``after`` in the worst-first order (wrapping around).

        Returns None when no listed query fails. When ``after`` is the only failure, it is returned.
        """
        table = self.worst_first(system, k, order, search)
        ids = table["query_id"].tolist()
        failures = table["failure"].to_numpy(dtype=bool)
        if not failures.any():
            return None
        start = ids.index(str(after)) + 1 if after is not None and str(after) in ids else 0
        for offset in range(len(ids)):
            i = (start + offset) % len(ids)
            if failures[i]:
                return ids[i]
        return None  # pragma: no cover - failures.any() guarantees a hit

    def query_measures(self, system, query_id, k: int) -> dict[str, float]:
        """The measures of one query at cutoff ``k``, keyed by canonical name."""
        table = self.per_query(system, k)
        row = table[table["query_id"] == str(query_id)]
        if row.empty:
            raise InputError(f"explore: query {query_id!r} is not evaluated for this run (unknown, or without judgements).")
        return {name: float(row[name].iloc[0]) for name in self.display_names(k)}

    def system_means(self, system, k: int) -> dict[str, float]:
        """The system's mean of each measure of :meth:`display_names` at cutoff ``k``."""
        names = self.display_names(k)
        return {name: float(value) for name, value in self.per_query(system, k)[names].mean().items()}

    def status(self, system, k: int, order: str | None = None, search: str = "") -> dict:
        """What the explorer lists at cutoff ``k`` and what its numbers cannot see.

        Returns
        -------
        dict
            ``listed`` and ``total`` (queries), ``failing`` (queries with
            ``failure_measure`` = 0), ``failure_measure`` (``RR@k``), ``unjudged``
            (queries of the run without judgements, not listed) and ``closed_world``.
        """
        system = self.check_system(system)
        table = self.per_query(system, k)
        return {
            "listed": len(self.worst_first(system, k, order, search)),
            "total": len(table),
            "failing": int((table[self.failure_name(k)] == 0).sum()),
            "failure_measure": self.failure_name(k),
            "unjudged": self.unjudged.get(system, 0),
            "closed_world": self.closed_world,
        }

    # -- ranked lists ----------------------------------------------------------------------
    def ranked(self, system, query_id) -> pd.DataFrame:
        """The whole ranked list of one query (see :func:`rankviz.ranked_list`) with document columns."""
        return self._lists.get(self.check_system(system), query_id)

    def top(self, system, query_id, k: int) -> pd.DataFrame:
        """The first ``k`` rows of :meth:`ranked`: what the explorer's table shows."""
        return self.ranked(system, query_id).head(check_cutoff(k, "explore", allow_none=False))

    def first_relevant(self, system, query_id) -> int | None:
        """The rank of the first relevant result in the whole list (None when there is none)."""
        table = self.ranked(system, query_id)
        hits = table.loc[table["relevant"], "rank"]
        return int(hits.iloc[0]) if len(hits) else None

class Explorer(w.VBox):
    """The widget returned by :func:`explore`; see there."""

    def __init__(self, model: ExplorerModel, *, system=None):
        self.model = model
        system = model.check_system(system)
        self._busy = False
        self.system = w.Dropdown(options=list(model.systems or ["run"]), value=system or "run", description="system")
        self.system.disabled = model.systems is None
        self.order = w.Dropdown(options=model.order_labels, value=model.order_label, description="worst by")
        self.k = w.IntSlider(value=model.initial_k, min=1, max=model.max_k, description="k", continuous_update=False)
        self.search = w.Text(placeholder="filter queries (id or words)", description="search", continuous_update=True)
        self.next_failure = w.Button(description="next failure \u25b6", tooltip=_FAILURE_NOTE)
        self.query = w.Select(options=[], rows=10, description="query", layout=w.Layout(width="34em"))
        self.header, self.measures, self.table, self.status = w.HTML(), w.HTML(), w.HTML(), w.HTML()
        classes = {
            "rankviz-system": self.system,
            "rankviz-order": self.order,
            "rankviz-k": self.k,
            "rankviz-search": self.search,
            "rankviz-next-failure": self.next_failure,
            "rankviz-queries": self.query,
            "rankviz-query": self.header,
            "rankviz-measures": self.measures,
            "rankviz-table": self.table,
            "rankviz-status": self.status,
        }
        for name, widget in classes.items():
            widget.add_class(name)
        super().__init__(
            children=[
                w.HBox([self.system, self.order, self.k]),
                w.HBox([self.search, self.next_failure]),
                w.HBox([self.query, w.VBox([self.header, self.measures])]),
                self.table,
                self.status,
            ]
        )
        self.add_class("rankviz-explorer")
        for widget in (self.system, self.order, self.k, self.search):
            widget.observe(self._on_list_change, names="value")
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
            table = render.ranked_list_table(m.top(system, qid, k), m.snippet_length)
            items.append({"label": render.query_option(value, qid, text), "failure": bool(failure), "panel": panel, "table": table})
        controls = {"system": system or "run", "order": self.order.value, "k": k, "search": self.search.value,
                    "listed": len(listed) - start}  # fmt: skip
        status = render.status_line(m.status(system, k, self.order.value, self.search.value))
        return render.explorer_snapshot(controls, items, status)

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
            self.measures.value = self.table.value = ""
        else:
            self.header.value = render.query_header(qid, system, m.query_text(qid))
            means = m.system_means(system, k)
            self.measures.value = render.measure_table(m.query_measures(system, qid, k), means, m.first_relevant(system, qid))
            self.table.value = render.ranked_list_table(m.top(system, qid, k), m.snippet_length)
        self.status.value = render.status_line(m.status(system, k, self.order.value, self.search.value), note)

    def _on_list_change(self, change):
        self._relist()

    def _on_query(self, change):
        if not self._busy:
            self._show()

    def _on_next_failure(self, _button=None):
        self.show_next_failure()

    def show_next_failure(self) -> str | None:
        """Select the next query with ``RR@k = 0`` in the listed order; return its id (None if none)."""
        m, k = self.model, self.k.value
        nxt = m.next_failure(self.selected_system, k, after=self.query.value, order=self.order.value, search=self.search.value)
        if nxt is None:
            self._show(f"No listed query has {m.failure_name(k)} = 0.")
        elif nxt == self.query.value:
            self._show(f"This is the only listed query with {m.failure_name(k)} = 0.")
        else:
            self.query.value = nxt
        return nxt

    def select(self, query_id) -> None:
        """Show a query (clearing the search filter if it hides it)."""
        ids = [qid for _, qid in self.query.options]
        if str(query_id) not in ids:
            self.search.value = ""
            ids = [qid for _, qid in self.query.options]
            if str(query_id) not in ids:
                raise InputError(f"explore: query {query_id!r} is not evaluated for this run (unknown, or without judgements).")
        self.query.value = str(query_id)


def explore(
    run,
    qrels=None,
    *,
    queries=None,
    documents=None,
    measure="RR@k",
    k: int | None = None,
    system=None,
    rel: int = 1,
    snippet_length: int = 160,
    columns: Mapping[str, str] | None = None,
    order: str | None = None,
    score_dtype: str | None = None,
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
    rel : int, default 1
        Minimum grade that counts as relevant (RR, AP, P, R, Success and the marked rows).
    snippet_length : int, default 160
        Characters of document text per row.
    columns : dict, optional
        Column names by role (``{'doc': 'docno', 'score': 'sim'}``), as for :func:`rankviz.evaluate`.
    order : {'score', 'rank'}, optional
        Rank by score (the default when there is one) or by the rank column.
    score_dtype : {'float64', 'float32'}, optional
        As for :func:`rankviz.evaluate`.

    Returns
    -------
    Explorer
        An ``ipywidgets.VBox`` with the attributes ``model`` (the
        :class:`ExplorerModel`), ``system``, ``order``, ``k``, ``search``,
        ``next_failure``, ``query`` (input widgets) and ``header``, ``measures``,
        ``table``, ``status`` (``HTML`` outputs), and the methods
        ``show_next_failure()`` and ``select(query_id)``.

    Raises
    ------
    rankviz.InputError
        For an empty run, an unknown ``system``, or ``k`` and ``measure`` that disagree.

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
    model = ExplorerModel(
        run, qrels, queries=queries, documents=documents, measure=measure, k=k, rel=rel,
        snippet_length=snippet_length, columns=columns, order=order, score_dtype=score_dtype,
    )  # fmt: skip
    return Explorer(model, system=system)
