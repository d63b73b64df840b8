"""The explorer's model: it evaluates the run (once per cutoff ``k``) and returns data, never widgets.

Worst-first tables, per-query measures, ranked lists (DataFrames, read through
:class:`~rankviz.widgets.ranked.RankedLists`) and a status dict; :mod:`rankviz.widgets.explorer` is the
ipywidgets view over it.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.checks import check_cutoff, check_int
from .._core.frames import as_pandas
from .._core.options import EVAL, EvalKeywords, EvalOptions, with_method_options
from .._errors import ClosedWorldWarning, IdTypeWarning, InputError
from ..evaluation.api import per_query_table
from ..evaluation.pipeline import with_rel
from ..io.per_query import query_texts
from ..measures import Measure, parse_measure
from .ranked import RankedLists, read_documents

__all__ = ["ExplorerModel", "model_of"]


#: pandas 3 always copies on write (pandas 2.2 when its option is on): a shallow copy is then a snapshot
_COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3 or bool(pd.get_option("mode.copy_on_write"))

FAILURE_NOTE = "next query with RR@k = 0 (in the order shown)"

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
    if stated_cutoff is not None and not isinstance(stated_cutoff, int):
        raise InputError(
            f"explore: measure={str(measure)!r} has a cutoff that is not a rank ({stated_cutoff}), and the ordering "
            "measure's cutoff follows the k slider. Order by a measure with a rank cutoff, e.g. measure='RR@10'."
        )
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
    run, qrels, queries, documents, measure, k, snippet_length
        As for :func:`explore` (the model has no ``system``: each method takes it); and the
        evaluation options (``rel``, ``depth``, ``ties``, ``judged_only``, ``columns``, ...), which
        every measure and ranked list it shows follows.

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

    @with_method_options(EVAL)
    def __init__(
        self,
        options: EvalOptions,
        run,
        qrels=None,
        *,
        queries=None,
        documents=None,
        measure="RR@k",
        k: int | None = None,
        snippet_length: int = 160,
        **_: Unpack[EvalKeywords],
    ):
        self._build(run, qrels, queries, documents, measure, k, snippet_length, options)

    def _build(self, run, qrels, queries, documents, measure, k, snippet_length, options: EvalOptions) -> None:
        run, qrels = as_pandas(run, "run"), as_pandas(qrels, "qrels")
        if isinstance(run, Mapping) and not isinstance(run, pd.DataFrame):
            run = pd.DataFrame({"query": [str(q) for q in run], "relevance": list(run.values())})
        if not isinstance(run, pd.DataFrame):
            raise InputError(
                f"explore: the run must be a pandas DataFrame (or a dict of relevance lists). Got {type(run).__name__} instead."
            )
        if len(run) == 0:
            raise InputError("explore: the run is empty (0 rows): there is no query to explore.")
        self.rel = 1 if options.rel is None else options.rel
        self.snippet_length = check_int(snippet_length, "snippet_length", "explore", low=1)
        order_measure, k = _order_and_k(measure, k)
        self.initial_k = k
        self.columns = options.columns
        # The model caches measures and row positions: it works on a snapshot, so that sorting or editing the
        # caller's frame in place afterwards cannot pair a query's cached measures with another query's rows.
        # Under copy-on-write (pandas 3) the snapshot is lazy and costs nothing until the caller writes.
        run = run.copy(deep=not _COPY_ON_WRITE)
        qrels = qrels.copy(deep=not _COPY_ON_WRITE) if isinstance(qrels, pd.DataFrame) else qrels
        self._run = run
        self._qrels = qrels
        #: the call's evaluation options (depth, ties, judged_only, ...); the measures shown name their own rel
        self._options = options.replace(rel=None)
        self.order_label = _label(order_measure)
        standard = [_label(m) for m in with_rel([Measure(f, cutoff=cutoff) for f, cutoff in _ORDER_CHOICES], self.rel)]
        #: the choices of the "worst by" menu: "@k" marks a cutoff that follows the k slider
        self.order_labels = list(dict.fromkeys([*standard, self.order_label]))
        self._cache: OrderedDict[int, pd.DataFrame] = OrderedDict()

        # The first evaluation lets rankviz's warnings (closed world, id types) reach the caller once.
        table = self._table(k, quiet=False)
        self._read_meta(table)
        self.systems: tuple[str, ...] | None = (
            tuple(pd.unique(table["system"]).tolist()) if "system" in table.columns else None
        )
        self._query_text = query_texts(queries, "explore")
        documents = read_documents(documents)
        self._lists = RankedLists(run, qrels, options.replace(rel=self.rel), documents=documents)
        self.max_k = max(self._lists.longest, k)

    def _read_meta(self, table: pd.DataFrame) -> None:
        meta = table.attrs.get("rankviz", {})
        self.closed_world = bool(meta.get("closed_world", False))
        self.unjudged = {key: len(value) for key, value in meta.get("unjudged_in_run", {}).items()}

    def replace_qrels(self, qrels: pd.DataFrame) -> None:
        """Evaluate against other judgements from now on (the explorer's judging row calls it after each grade).

        ``qrels`` is a frame the model keeps as it is (pass a new one, not the caller's);
        every cached evaluation and ranked list is dropped.
        """
        self._qrels = qrels
        self._cache.clear()
        documents = self._lists.documents
        self._lists = RankedLists(self._run, qrels, self._options.replace(rel=self.rel), documents=documents)
        self._read_meta(self._table(self.initial_k))

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
            table = per_query_table(self._run, names, self._qrels, self._options)
        self._cache[k] = table
        while len(self._cache) > 16:
            self._cache.popitem(last=False)
        return table

    def check_system(self, system) -> str | None:
        """The system a method is about: ``system`` checked, the first one for None (None without systems)."""
        if self.systems is None:
            if system is not None:
                raise InputError(
                    f"explore: the run has no system column, so system={system!r} cannot be chosen; leave it out."
                )
            return None
        if system is None:
            return self.systems[0]
        if str(system) not in self.systems:
            raise InputError(f"explore: unknown system {system!r}; the run has {', '.join(map(repr, self.systems))}.")
        return str(system)

    def per_query(self, system, k: int) -> pd.DataFrame:
        """Per-query measures of one system at cutoff ``k`` (a new frame: ``query_id`` and measures).

        Parameters
        ----------
        system : str or None
            A system of the run (None: the first, or the run without systems).
        k : int
            The cutoff.

        Returns
        -------
        DataFrame
            One row per evaluated query, a column per measure of :meth:`display_names`.

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> model = rankviz.widgets.ExplorerModel(run, qrels, queries=queries)
        >>> len(model.per_query("bm25", 10)), model.per_query("bm25", 10).columns[1]
        (600, 'RR@10')
        """
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
        """The measures of one query at cutoff ``k``, keyed by canonical name.

        Parameters
        ----------
        system : str or None
            A system of the run (None: the first, or the run without systems).
        query_id : str
            The query.
        k : int
            The cutoff.

        Returns
        -------
        dict
            ``{name: value}`` for each measure of :meth:`display_names`.

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> model = rankviz.widgets.ExplorerModel(run, qrels, queries=queries)
        >>> model.query_measures("bm25", "q0001", 10)["P@10"]
        0.1
        """
        table = self.per_query(system, k)
        row = table[table["query_id"] == str(query_id)]
        if row.empty:
            raise InputError(
                f"explore: query {query_id!r} is not evaluated for this run (unknown, or without judgements)."
            )
        return {name: float(row[name].iloc[0]) for name in self.display_names(k)}

    def system_means(self, system, k: int) -> dict[str, float]:
        """The system's mean of each measure of :meth:`display_names` at cutoff ``k``.

        Parameters
        ----------
        system : str or None
            A system of the run (None: the first, or the run without systems).
        k : int
            The cutoff.

        Returns
        -------
        dict
            ``{name: mean}`` for each measure of :meth:`display_names`.

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> model = rankviz.widgets.ExplorerModel(run, qrels, queries=queries)
        >>> round(model.system_means("bm25", 10)["RR@10"], 4)
        0.5557
        """
        names = self.display_names(k)
        return {str(name): float(value) for name, value in self.per_query(system, k)[names].mean().items()}

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
        """The whole ranked list of one query (see :func:`rankviz.ranked_list`) with document columns.

        Parameters
        ----------
        system : str or None
            A system of the run (None: the first, or the run without systems).
        query_id : str
            The query.

        Returns
        -------
        DataFrame
            ``rank``, ``doc_id``, ``score``, ``relevance``, ``relevant``, ``tied`` and the document columns.

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> model = rankviz.widgets.ExplorerModel(run, qrels, queries=queries)
        >>> len(model.ranked("bm25", "q0001"))
        100
        """
        return self._lists.get(self.check_system(system), query_id)

    def top(self, system, query_id, k: int) -> pd.DataFrame:
        """The first ``k`` rows of :meth:`ranked`: what the explorer's table shows.

        Parameters
        ----------
        system : str or None
            A system of the run (None: the first, or the run without systems).
        query_id : str
            The query.
        k : int
            How many rows.

        Returns
        -------
        DataFrame
            The first ``k`` rows of :meth:`ranked`.

        Examples
        --------
        >>> import rankviz
        >>> run, qrels, queries = rankviz.datasets.load_example()
        >>> model = rankviz.widgets.ExplorerModel(run, qrels, queries=queries)
        >>> model.top("bm25", "q0001", 2)["doc_id"].tolist()
        ['pickle.UnpicklingError', 'base64.b16decode']
        """
        return self.ranked(system, query_id).head(check_cutoff(k, "explore", allow_none=False))

    def first_relevant(self, system, query_id) -> int | None:
        """The rank of the first relevant result in the whole list (None when there is none)."""
        table = self.ranked(system, query_id)
        hits = table.loc[table["relevant"], "rank"]
        return int(hits.iloc[0]) if len(hits) else None

    def side_by_side(self, system, baseline, query_id, k: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The top ``k`` of ``system`` and of ``baseline`` for one query, each with a ``moved`` column.

        ``moved`` says, for a relevant document, where it is in the other list: in the
        system's table ``'▲ from 7'`` (the baseline had it at rank 7), ``'▼ from 1'`` or
        ``'new'`` (the baseline did not retrieve it); in the baseline's table ``'▲ to 2'``,
        ``'▼ to 12'`` or ``'gone'``. Empty when the rank is the same or the row is not relevant.
        """
        k = check_cutoff(k, "explore", allow_none=False)
        system, baseline = self.check_system(system), self.check_system(baseline)
        if system is None or system == baseline:
            raise InputError("explore: the side-by-side view needs two different systems (system= and baseline=).")
        mine, theirs = self.ranked(system, query_id), self.ranked(baseline, query_id)
        mine_rank = dict(zip(mine["doc_id"].tolist(), mine["rank"].tolist()))
        their_rank = dict(zip(theirs["doc_id"].tolist(), theirs["rank"].tolist()))

        def moved(table, other, words):
            out = []
            for doc, rank, relevant in zip(table["doc_id"], table["rank"], table["relevant"]):
                there = other.get(doc)
                if not relevant or there == rank:
                    out.append("")
                elif there is None:
                    out.append(words[2])
                else:
                    out.append(f"{words[0] if there > rank else words[1]} {int(there)}")
            return table.assign(moved=out)

        return (
            moved(mine.head(k), their_rank, ("\u25b2 from", "\u25bc from", "new")),
            moved(theirs.head(k), mine_rank, ("\u25bc to", "\u25b2 to", "gone")),
        )


def model_of(run, qrels, options: EvalOptions, *, queries, documents, measure, k, snippet_length) -> ExplorerModel:
    """The model with the options already validated (what :func:`explore` builds); the other arguments are
    the constructor's, each given."""
    model = ExplorerModel.__new__(ExplorerModel)
    model._build(run, qrels, queries, documents, measure, k, snippet_length, options)
    return model
