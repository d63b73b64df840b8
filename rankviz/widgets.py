"""Interactive per-query debugging with ipywidgets.

Two tools, each a thin widget over a small model object that holds the logic, so
that everything the widgets show can be computed and tested without a browser:

:func:`explore` / :class:`ExplorerModel`
    Choose a system and a query (searchable, ordered worst-first by a measure),
    see that query's ranked list with its relevant rows marked, its measures, a
    ``k`` slider and a button that jumps to the next failure (``RR@k = 0``).
    ``df.rank.explore(qrels=qrels)`` calls it.
:func:`playground` / :class:`PlaygroundModel`
    A row of toggle buttons for the results at ranks 1..n: toggling relevance
    updates RR, Hit@k (``Success@k``), P@k, R@k, AP and nDCG@k live. It shows
    that MRR swings from 1 to 1/3 when the first relevant result moves from rank 1
    to rank 3, while recall hardly moves, and that relevant results after the
    first are invisible to MRR.

Every number comes from :func:`rankviz.evaluate` and :func:`rankviz.ranked_list`;
nothing is re-implemented here. Every user-provided string (query ids and texts,
document ids, titles and texts, system names) is HTML-escaped before it reaches an
HTML widget. ``import rankviz`` does not import this module (nor ipywidgets):
``df.rank.explore`` imports it on first use.
"""

from __future__ import annotations

import dataclasses
import html
import math
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Mapping

import ipywidgets as w
import numpy as np
import pandas as pd

from ._errors import ClosedWorldWarning, IdTypeWarning, InputError
from ._frame import ALIASES, COLUMN_KEYWORDS, _columns_text, _is_listlike
from ._validation import check_cutoff, check_int, check_kwargs
from .evaluation import evaluate, ranked_list
from .measures import Measure, parse_measure

__all__ = ["Explorer", "ExplorerModel", "Playground", "PlaygroundModel", "explore", "playground"]

#: Background of a relevant row in the ranked-list table (and of a relevant toggle).
RELEVANT_COLOR = "#d4edda"
_BAR_COLOR = "#4c72b0"

_FAILURE_NOTE = "next query with RR@k = 0 (in the order shown)"


# ----------------------------------------------------------------------------- helpers


def _esc(value) -> str:
    """HTML-escape any value shown in an HTML widget (quotes too: values end up in attributes)."""
    return html.escape(str(value), quote=True)


def _fmt(value) -> str:
    """A measure value as shown: four decimals, an en dash when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "\u2013"
    return f"{float(value):.4f}"


def _shorten(text: str, length: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= length else text[: max(length - 1, 0)].rstrip() + "\u2026"


# ============================================================================ playground


class PlaygroundModel:
    """The numbers behind :func:`playground`: one query whose ``n`` results you mark relevant.

    The model holds a relevance vector (``n`` booleans in rank order), the number of
    relevant items that are *not* among the ``n`` results (so that recall can be
    below 1 even when every relevant result shown is found), and a cutoff ``k``.
    Its measures come from :func:`rankviz.evaluate` on the per-query relevance
    vector (input shape 3) with an ``n_relevant`` column, so they are exactly the
    library's numbers.

    Parameters
    ----------
    n : int, default 10
        Number of results (ranks 1..n).
    relevant : iterable of int, default ()
        The ranks (1-based) that start out relevant.
    k : int, optional
        Cutoff of RR@k, Success@k, P@k, R@k and nDCG@k; defaults to ``n``.
    unretrieved : int, default 0
        Relevant items that exist but are not among the ``n`` results. The number
        of relevant items ``R`` (the denominator of recall and AP) is the number of
        relevant results among the ``n`` plus this.

    Raises
    ------
    rankviz.InputError
        For ``n < 1``, a rank outside 1..n, ``k`` outside 1..n or a negative
        ``unretrieved``.

    See Also
    --------
    playground : the widget built on this model.

    Notes
    -----
    ``RR@k = 1/r`` for the rank ``r`` of the first relevant result within the top
    ``k`` (0 if none); the relevant results after the first do not change it.
    ``R@k`` = relevant in the top ``k`` / ``R``; ``P@k`` = relevant in the top ``k``
    / ``k``; ``AP`` = sum of the precision at each relevant rank / ``R``;
    ``nDCG@k`` with binary gains and the ideal DCG of ``R`` relevant items.

    Examples
    --------
    >>> from rankviz.widgets import PlaygroundModel
    >>> model = PlaygroundModel(n=10, relevant=[1, 3])
    >>> model.measures()["RR@10"]
    1.0
    >>> model.set_relevant(1, False)
    >>> round(model.measures()["RR@10"], 4)
    0.3333
    >>> model.unretrieved = 1  # one more relevant item exists below rank 10
    >>> model.measures()["R@10"]
    0.5
    """

    def __init__(self, n: int = 10, *, relevant: Iterable[int] = (), k: int | None = None, unretrieved: int = 0):
        self.n = check_int(n, "n", "PlaygroundModel", low=1)
        self.relevance = [False] * self.n
        for rank in relevant:
            self.set_relevant(rank, True)
        self.k = k
        self.unretrieved = unretrieved

    # -- state ------------------------------------------------------------------------
    @property
    def k(self) -> int:
        """The cutoff of the @k measures (1..n)."""
        return self._k

    @k.setter
    def k(self, value: int | None) -> None:
        value = self.n if value is None else check_cutoff(value, "PlaygroundModel", allow_none=False)
        if value > self.n:
            raise InputError(
                f"The 'k' parameter of PlaygroundModel must be an int in the range [1, {self.n}]. Got {value!r} instead."
            )
        self._k = value

    @property
    def unretrieved(self) -> int:
        """Relevant items that are not among the ``n`` results."""
        return self._unretrieved

    @unretrieved.setter
    def unretrieved(self, value: int) -> None:
        self._unretrieved = check_int(value, "unretrieved", "PlaygroundModel", low=0)

    def _check_rank(self, rank: int) -> int:
        rank = check_int(rank, "rank", "PlaygroundModel", low=1)
        if rank > self.n:
            raise InputError(
                f"The 'rank' parameter of PlaygroundModel must be an int in the range [1, {self.n}]. Got {rank!r} instead."
            )
        return rank

    def set_relevant(self, rank: int, relevant: bool = True) -> None:
        """Mark the result at ``rank`` (1-based) relevant or not."""
        self.relevance[self._check_rank(rank) - 1] = bool(relevant)

    def toggle(self, rank: int) -> None:
        """Flip the relevance of the result at ``rank`` (1-based)."""
        rank = self._check_rank(rank)
        self.relevance[rank - 1] = not self.relevance[rank - 1]

    @property
    def relevant_ranks(self) -> list[int]:
        """The relevant ranks, ascending."""
        return [i + 1 for i, r in enumerate(self.relevance) if r]

    @property
    def n_relevant(self) -> int:
        """``R``: relevant results among the ``n`` plus :attr:`unretrieved`."""
        return sum(self.relevance) + self.unretrieved

    # -- numbers ---------------------------------------------------------------------
    def measure_names(self) -> list[str]:
        """Canonical names of the measures shown, in display order."""
        k = self.k
        return [f"RR@{k}", f"Success@{k}", f"P@{k}", f"R@{k}", "AP", f"nDCG@{k}"]

    def measures(self) -> dict[str, float]:
        """The measures of the current relevance vector, keyed by canonical name.

        Returns
        -------
        dict
            ``{"RR@k": ..., "Success@k": ..., "P@k": ..., "R@k": ..., "AP": ..., "nDCG@k": ...}``.
        """
        frame = pd.DataFrame({"query": ["playground"], "relevance": [list(self.relevance)], "n_relevant": [self.n_relevant]})
        names = self.measure_names()
        table = evaluate(frame, names, per_query=True)
        return {name: float(table[name].iloc[0]) for name in names}

    def explanation(self) -> str:
        """A sentence (HTML, escaped) that says why RR has the value it has."""
        k, ranks = self.k, self.relevant_ranks
        within = [r for r in ranks if r <= k]
        if not ranks:
            text = (
                f"No relevant result in the top {self.n}: every measure is 0, and in a mean over queries this "
                "query counts as a failure (RR = 0) that pulls MRR down as much as any other query."
            )
        elif not within:
            text = (
                f"The first relevant result is at rank {ranks[0]}, beyond k = {k}: RR@{k} = 0 although the "
                "result is in the list. Raise k to see RR jump."
            )
        else:
            first = within[0]
            text = f"The first relevant result is at rank {first}, so RR@{k} = 1/{first} = {_fmt(1 / first)}."
            later = [r for r in within[1:]]
            if later:
                shown = ", ".join(str(r) for r in later)
                text += (
                    f" The relevant result{'s' if len(later) > 1 else ''} at rank{'s' if len(later) > 1 else ''} "
                    f"{shown} raise{'' if len(later) > 1 else 's'} R@{k}, AP and nDCG@{k} but are invisible to RR."
                )
            if self.unretrieved:
                text += f" {self.unretrieved} relevant item(s) below rank {self.n} keep R@{k} below 1."
        return f'<div class="rankviz-explanation">{_esc(text)}</div>'


def _measure_card(label: str, value: float, *, note: str = "") -> str:
    width = 0.0 if value is None or math.isnan(value) else max(0.0, min(1.0, float(value))) * 100
    title = f' title="{_esc(note)}"' if note else ""
    return (
        f'<div{title} style="min-width:7.5em;padding:2px 6px;font-family:sans-serif">'
        f'<div style="font-size:85%;color:#555">{_esc(label)}</div>'
        f'<div class="rankviz-number" style="font-size:140%;font-weight:bold">{_fmt(value)}</div>'
        f'<div style="background:#e5e5e5;height:5px"><div style="background:{_BAR_COLOR};height:5px;width:{width:.1f}%"></div></div>'
        "</div>"
    )


_PLAYGROUND_LABELS = {
    "RR": ("RR@{k}", "reciprocal rank of the first relevant result in the top k; the mean over queries is MRR"),
    "Success": ("Hit@{k}", "Success@k: 1 if any relevant result is in the top k"),
    "P": ("P@{k}", "precision: relevant results in the top k / k"),
    "R": ("R@{k}", "recall: relevant results in the top k / R (all relevant items)"),
    "AP": ("AP", "average precision over the whole list, divided by R"),
    "nDCG": ("nDCG@{k}", "normalised discounted cumulative gain (binary gains)"),
}


class Playground(w.VBox):
    """The widget returned by :func:`playground`; see there."""

    def __init__(self, model: PlaygroundModel):
        self.model = model
        self.toggles = tuple(
            w.ToggleButton(
                value=model.relevance[i],
                description=str(i + 1),
                tooltip=f"result at rank {i + 1}: click to mark it relevant or not",
                layout=w.Layout(width="3.8em"),
            )
            for i in range(model.n)
        )
        for i, button in enumerate(self.toggles):
            button.add_class("rankviz-toggle")
            button.add_class(f"rankviz-toggle-{i + 1}")
            button.observe(self._on_toggle, names="value")
            self._style_toggle(button)
        self.k = w.IntSlider(value=model.k, min=1, max=model.n, description="k", continuous_update=False)
        self.k.add_class("rankviz-k")
        self.unretrieved = w.BoundedIntText(
            value=model.unretrieved,
            min=0,
            max=10_000,
            description="missed",
            tooltip="relevant items that are not among the results (raise it to see recall fall)",
            layout=w.Layout(width="11em"),
        )
        self.unretrieved.add_class("rankviz-n-relevant")
        self.values = {family: w.HTML() for family in _PLAYGROUND_LABELS}
        for family, widget in self.values.items():
            widget.add_class("rankviz-measure")
            widget.add_class(f"rankviz-measure-{family}")
        self.values["RR"].add_class("rankviz-mrr")
        self.relevant_count = w.HTML()
        self.relevant_count.add_class("rankviz-relevant-count")
        self.explanation = w.HTML()
        self.explanation.add_class("rankviz-lesson")
        self.k.observe(self._on_k, names="value")
        self.unretrieved.observe(self._on_unretrieved, names="value")
        super().__init__(
            children=[
                w.HTML("<b>Mark the relevant results</b> (rank 1 is the top of the list):"),
                w.HBox(list(self.toggles), layout=w.Layout(flex_flow="row wrap")),
                w.HBox([self.k, self.unretrieved, self.relevant_count]),
                w.HBox(list(self.values.values()), layout=w.Layout(flex_flow="row wrap")),
                self.explanation,
            ]
        )
        self.add_class("rankviz-playground")
        self.refresh()

    def __repr__(self) -> str:
        # Also the text/plain fallback of a notebook rendered without a live kernel.
        m = self.model
        return f"Playground(n={m.n}, relevant={m.relevant_ranks}, k={m.k}, unretrieved={m.unretrieved})"

    def _style_toggle(self, button):
        # A text check mark rather than an icon: icons need Font Awesome, which a page served offline may lack.
        rank = self.toggles.index(button) + 1
        button.button_style = "success" if button.value else ""
        button.description = f"{rank} \u2713" if button.value else str(rank)

    def _on_toggle(self, change):
        button = change["owner"]
        self.model.set_relevant(self.toggles.index(button) + 1, change["new"])
        self._style_toggle(button)
        self.refresh()

    def _on_k(self, change):
        self.model.k = change["new"]
        self.refresh()

    def _on_unretrieved(self, change):
        value = change["new"]
        self.model.unretrieved = max(int(value or 0), 0)
        self.refresh()

    def refresh(self) -> None:
        """Recompute the numbers and update every display widget."""
        values = self.model.measures()
        for (family, (label, note)), name in zip(_PLAYGROUND_LABELS.items(), self.model.measure_names()):
            self.values[family].value = _measure_card(label.format(k=self.model.k), values[name], note=note)
        m = self.model
        self.relevant_count.value = _esc(f"R = {m.n_relevant} relevant ({sum(m.relevance)} in the list, {m.unretrieved} missed)")
        self.explanation.value = m.explanation()


def playground(n: int = 10, *, relevant: Iterable[int] = (1,), k: int | None = None, unretrieved: int = 0):
    """An interactive lesson: toggle the relevance of results 1..n and watch the measures.

    A row of toggle buttons stands for one query's ranked results. Each toggle marks
    a result relevant or not, and RR@k, Hit@k (``Success@k``), P@k, R@k, AP and
    nDCG@k update live; a ``k`` slider sets the cutoff and a ``missed`` box the
    number of relevant items that are not in the list (so recall can be below 1).
    The numbers come from :func:`rankviz.evaluate` (see :class:`PlaygroundModel`).

    Things to try: with only rank 1 relevant, RR = 1; move the relevant result to
    rank 3 and RR drops to 0.3333 while R@10 does not move; mark ranks 4..10 relevant
    too and RR stays at 0.3333: results after the first are invisible to MRR.

    Parameters
    ----------
    n : int, default 10
        Number of results.
    relevant : iterable of int, default (1,)
        Ranks that start out relevant.
    k : int, optional
        Initial cutoff (defaults to ``n``).
    unretrieved : int, default 0
        Initial number of relevant items that are not among the ``n`` results.

    Returns
    -------
    Playground
        An ``ipywidgets.VBox`` with the attributes ``model`` (the
        :class:`PlaygroundModel`), ``toggles`` (one ``ToggleButton`` per rank),
        ``k`` (the slider), ``unretrieved`` (the ``missed`` box), ``values`` (one
        ``HTML`` widget per measure family: ``"RR"``, ``"Success"``, ``"P"``,
        ``"R"``, ``"AP"``, ``"nDCG"``) and ``explanation``. Its CSS classes
        (``rankviz-playground``, ``rankviz-toggle``, ``rankviz-mrr``, ...) make it
        findable in a page.

    See Also
    --------
    PlaygroundModel : the same numbers without widgets.
    explore : debug real queries.

    Examples
    --------
    >>> from rankviz.widgets import playground
    >>> ui = playground(n=10, relevant=[1, 3])
    >>> ui.toggles[0].value = False  # rank 1 is no longer relevant
    >>> ui.model.relevant_ranks
    [3]
    >>> "0.3333" in ui.values["RR"].value
    True
    """
    model = PlaygroundModel(n, relevant=relevant, k=k, unretrieved=unretrieved)
    return Playground(model)


# ============================================================================= explorer

#: (family, cutoff) of the standard orderings; a cutoff (any) means "at the slider's k"
_ORDER_CHOICES = (("RR", 1), ("RR", None), ("AP", None), ("nDCG", 1), ("P", 1), ("R", 1), ("Success", 1))


def _label(measure: Measure) -> str:
    """A measure template's label: the name with ``@k`` where the cutoff follows the slider."""
    base = dataclasses.replace(measure, cutoff=None)
    has_cutoff = measure.cutoff is not None or measure.needs_cutoff
    return repr(base) + ("@k" if has_cutoff else "")


def _alias(frame: pd.DataFrame, role: str, given=None) -> str | None:
    if given is not None:
        return given if given in frame.columns else None
    found = [name for name in ALIASES[role] if name in frame.columns]
    return found[0] if found else None


def _empty_ranked_list() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rank": pd.Series([], dtype="int64"),
            "doc_id": pd.Series([], dtype="str"),
            "relevance": pd.array([], dtype="Int64"),
            "relevant": pd.Series([], dtype=bool),
        }
    )


class ExplorerModel:
    """The logic behind :func:`explore`: worst-first queries, measures and ranked-list tables.

    The model evaluates the run once per cutoff ``k`` (cached, per model: there is no
    global state) and builds the HTML of each display from :func:`rankviz.evaluate`
    and :func:`rankviz.ranked_list`. It keeps no selection of its own: every method
    takes the system, query and ``k`` it is about, so widgets and tests can drive it.

    Parameters
    ----------
    run : DataFrame or dict
        Any input shape rankviz evaluates (a long run with ``qrels``, per-query
        lists, per-query relevance vectors); usually a long run with several systems.
    qrels : DataFrame, path or dict, optional
    queries : DataFrame, Series or dict, optional
        Query texts: a frame with a query id column (``query_id``, ``qid``,
        ``query``) and a ``text`` column, or a mapping ``{query_id: text}``.
    documents : DataFrame, optional
        Document texts: a ``doc_id`` (``docid``, ``docno``) column, a ``text``
        column and optionally ``title``; adds a snippet column to the table.
    measure : str or Measure, default 'RR@k'
        The measure that orders the queries worst first. A cutoff in its name
        follows the ``k`` slider: ``'RR@k'`` and ``'nDCG@k'`` are at the slider's
        ``k``; ``'RR@10'`` also starts the slider at 10; ``'AP'`` or ``'RR'`` have no
        cutoff.
    k : int, optional
        Initial cutoff: the table shows the top ``k`` rows and the @k measures use
        it. Defaults to the cutoff of ``measure``, else 10; a number in both that
        disagrees is an error.
    rel : int, default 1
        Minimum grade that counts as relevant (RR, AP, P, R, Success and the marked rows).
    snippet_length : int, default 160
        Characters of document text shown per row.
    **columns
        Column-name overrides (``query=``, ``doc=``, ``score=``, ``system=`` ...),
        ``order`` and ``score_dtype``, as for :func:`rankviz.evaluate`.

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
        **columns,
    ):
        check_kwargs(columns, COLUMN_KEYWORDS, "explore")
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
        template = isinstance(measure, str) and measure.strip().endswith("@k")  # "at the slider's k"
        order_measure = parse_measure(measure.strip()[:-2] + "@1" if template else measure)
        stated_cutoff = None if template else order_measure.cutoff
        k = check_cutoff(k, "explore", allow_none=True)
        if k is None:
            k = stated_cutoff or 10
        elif stated_cutoff is not None and stated_cutoff != k:
            raise InputError(
                f"explore: measure={order_measure.name!r} and k={k} disagree. The cutoff of the ordering measure "
                f"follows the k slider: pass measure={_label(order_measure)!r} with k={k}, or k={stated_cutoff}."
            )
        self.initial_k = k
        self._run = run
        self._qrels = qrels
        self._columns = dict(columns)
        self.order_label = _label(order_measure)
        standard = [_label(Measure(f, cutoff=cutoff, rel=1 if f == "nDCG" else self.rel)) for f, cutoff in _ORDER_CHOICES]
        #: the choices of the "worst by" menu: "@k" marks a cutoff that follows the k slider
        self.order_labels = list(dict.fromkeys([*standard, self.order_label]))
        self._cache: OrderedDict[int, pd.DataFrame] = OrderedDict()
        self._last_ranked: tuple | None = None  # the list shown last: header, measures and table all read it

        # The first evaluation lets rankviz's warnings (closed world, id types) reach the caller once.
        self._table(k, quiet=False)
        meta = self._cache[k].attrs.get("rankviz", {})
        self.closed_world = bool(meta.get("closed_world", False))
        self.unjudged = {key: len(value) for key, value in meta.get("unjudged_in_run", {}).items()}
        table = self._cache[k]
        self.systems: tuple[str, ...] | None = tuple(pd.unique(table["system"]).tolist()) if "system" in table.columns else None
        self._query_text = self._read_queries(queries)
        self._documents = self._read_documents(documents)
        self._rows = self._rows_by_query(run)
        self.max_k = max(self._longest_list(run), k)

    # -- inputs --------------------------------------------------------------------------
    @staticmethod
    def _read_queries(queries) -> dict[str, str]:
        if queries is None:
            return {}
        if isinstance(queries, pd.Series):
            return {str(q): str(t) for q, t in queries.items()}
        if isinstance(queries, Mapping):
            return {str(q): str(t) for q, t in queries.items()}
        if not isinstance(queries, pd.DataFrame):
            raise InputError(
                f"explore: queries must be a DataFrame, a Series or a dict of query texts. Got {type(queries).__name__} instead."
            )
        qcol = _alias(queries, "query")
        text = "text" if "text" in queries.columns else None
        if qcol is None or text is None or qcol == text:
            raise InputError(
                "explore: queries needs a query id column ('query_id', 'qid' or 'query') and a 'text' column; "
                f"its columns are {_columns_text(queries)}."
            )
        ids = queries[qcol].astype("str").tolist()
        return dict(zip(ids, queries[text].fillna("").astype("str").tolist()))

    @staticmethod
    def _read_documents(documents) -> pd.DataFrame | None:
        if documents is None:
            return None
        if not isinstance(documents, pd.DataFrame):
            raise InputError(f"explore: documents must be a DataFrame. Got {type(documents).__name__} instead.")
        dcol = _alias(documents, "doc")
        if dcol is None or "text" not in documents.columns:
            raise InputError(
                "explore: documents needs a document id column ('doc_id', 'docid' or 'docno') and a 'text' column "
                f"(optionally 'title'); its columns are {_columns_text(documents)}."
            )
        keep = ["title", "text"] if "title" in documents.columns else ["text"]
        # Index once by id (first row wins), so that each table looks its documents up without a merge.
        frame = pd.DataFrame({c: documents[c].fillna("").astype("str").to_numpy() for c in keep})
        frame.index = pd.Index(documents[dcol].astype("str").to_numpy(), name="doc_id")
        return frame[~frame.index.duplicated()]

    def _rows_by_query(self, run: pd.DataFrame) -> dict[str, np.ndarray] | None:
        """Row positions of each query in a long run, so that a ranked list reads only its own rows."""
        if _alias(run, "retrieved", self._columns.get("retrieved")) is not None:
            return None
        relevance = _alias(run, "relevance", self._columns.get("relevance"))
        if relevance is not None and len(run) and _is_listlike(run[relevance].iloc[0]):
            return None
        qcol = _alias(run, "query", self._columns.get("query"))
        if qcol is None:
            return None
        ids = pd.Series(run[qcol].astype("str").to_numpy(), name="query")
        scol = _alias(run, "system", self._columns.get("system"))
        if scol is None:
            return {(None, q): rows for q, rows in ids.groupby(ids, sort=False).indices.items()}
        systems = pd.Series(run[scol].astype("str").to_numpy(), name="system")
        return dict(pd.DataFrame({"system": systems, "query": ids}).groupby(["system", "query"], sort=False).indices)

    def _longest_list(self, run: pd.DataFrame) -> int:
        if self._rows is not None:
            return max(len(rows) for rows in self._rows.values())
        longest = 0
        for role in ("retrieved", "relevance"):
            name = _alias(run, role, self._columns.get(role))
            if name is not None:
                longest = max([longest] + [len(v) for v in run[name] if _is_listlike(v)])
        return longest or 10

    # -- evaluation ------------------------------------------------------------------------
    def measure_at(self, label: str, k: int) -> Measure:
        """The measure a label stands for at cutoff ``k`` (``'nDCG@k'`` -> ``nDCG@10``)."""
        return parse_measure(label.replace("@k", f"@{int(k)}"))

    def display_names(self, k: int) -> list[str]:
        """Canonical names of the measures shown for a query at cutoff ``k``."""
        r = "" if self.rel == 1 else f"(rel={self.rel})"
        return [f"RR{r}@{k}", f"RR{r}", f"AP{r}", f"nDCG@{k}", f"P{r}@{k}", f"R{r}@{k}", f"Success{r}@{k}"]

    def _failure_name(self, k: int) -> str:
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
            table = evaluate(self._run, names, self._qrels, per_query=True, **self._columns)
        self._cache[k] = table
        while len(self._cache) > 16:
            self._cache.popitem(last=False)
        return table

    def _check_system(self, system) -> str | None:
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
        system = self._check_system(system)
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
                "failure": (table[self._failure_name(k)].to_numpy(dtype=float) == 0),
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

    def ranked(self, system, query_id) -> pd.DataFrame:
        """The whole ranked list of one query (see :func:`rankviz.ranked_list`) with document columns."""
        system = self._check_system(system)
        key = (system, str(query_id))
        if self._last_ranked is not None and self._last_ranked[0] == key:
            return self._last_ranked[1].copy()
        table = self._ranked(system, query_id)
        self._last_ranked = (key, table)
        return table.copy()

    def _ranked(self, system, query_id) -> pd.DataFrame:
        run = self._run
        if self._rows is not None:
            rows = self._rows.get((system, str(query_id)))
            if rows is None:  # judged, but this system retrieved nothing for it
                return self._documents_joined(_empty_ranked_list())
            run = run.iloc[rows]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IdTypeWarning)  # said once, when the model was built
            table = ranked_list(run, query_id, self._qrels, system=system, rel=self.rel, **self._columns)
        return self._documents_joined(table)

    def _documents_joined(self, table: pd.DataFrame) -> pd.DataFrame:
        if self._documents is not None:
            looked_up = self._documents.reindex(table["doc_id"].astype("str").to_numpy())
            for column in looked_up.columns:
                table[column] = looked_up[column].fillna("").to_numpy(dtype=object)
        return table

    # -- HTML ----------------------------------------------------------------------------------
    def header_html(self, system, query_id) -> str:
        """The query's id, system and text (escaped)."""
        if query_id is None:
            return '<div class="rankviz-query-header"><i>No query matches.</i></div>'
        parts = [f"<b>{_esc(query_id)}</b>"]
        if system is not None:
            parts.append(f'<span style="color:#555">({_esc(system)})</span>')
        text = self.query_text(query_id)
        if text:
            parts.append(f"&mdash; {_esc(text)}")
        return '<div class="rankviz-query-header" style="font-size:110%">' + " ".join(parts) + "</div>"

    def measures_html(self, system, query_id, k: int) -> str:
        """A small table of the query's measures next to the system's means."""
        if query_id is None:
            return ""
        values = self.query_measures(system, query_id, k)
        means = self.per_query(system, k)[list(values)].mean()
        ranked = self.ranked(system, query_id)
        hits = ranked.loc[ranked["relevant"], "rank"]
        first = f"rank {int(hits.iloc[0])}" if len(hits) else "none in the ranked list"
        rows = "".join(
            f'<tr class="rankviz-measure-row" data-measure="{_esc(name)}"><th style="text-align:left;padding-right:1em">{_esc(name)}</th>'
            f'<td class="rankviz-value" style="text-align:right;padding-right:1em">{_fmt(value)}</td>'
            f'<td style="text-align:right;color:#777">{_fmt(means[name])}</td></tr>'
            for name, value in values.items()
        )
        return (
            '<table class="rankviz-measure-table" style="border-collapse:collapse;font-family:sans-serif">'
            '<thead><tr><th></th><th style="text-align:right;padding-right:1em">this query</th>'
            '<th style="text-align:right;color:#777">mean</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>"
            f'<div style="margin-top:4px">first relevant result: {_esc(first)}</div>'
        )

    def table_html(self, system, query_id, k: int) -> str:
        """The top ``k`` of the query's ranked list as an HTML table; relevant rows are highlighted.

        Rows carry the class ``rankviz-relevant`` (and a green background) when
        relevant, ``rankviz-unjudged`` when the item has no judgement.
        """
        if query_id is None:
            return ""
        k = check_cutoff(k, "explore", allow_none=False)
        table = self.ranked(system, query_id).head(k)
        has_score = "score" in table.columns
        has_docs = self._documents is not None
        head = ["rank", "doc id"] + (["score"] if has_score else []) + ["relevance"] + (["snippet"] if has_docs else [])
        cells_style = "padding:2px 8px;border-bottom:1px solid #ddd;vertical-align:top;text-align:left"
        out = [
            '<table class="rankviz-ranked-list" style="border-collapse:collapse;font-family:sans-serif;font-size:90%">',
            "<thead><tr>" + "".join(f'<th style="{cells_style}">{h}</th>' for h in head) + "</tr></thead><tbody>",
        ]
        for row in table.itertuples(index=False):
            grade = row.relevance
            judged = not pd.isna(grade)
            classes = ["rankviz-relevant" if row.relevant else "rankviz-nonrelevant"] + ([] if judged else ["rankviz-unjudged"])
            style = f' style="background:{RELEVANT_COLOR}"' if row.relevant else ""
            cells = [str(int(row.rank)), f"<code>{_esc(row.doc_id)}</code>"]
            if has_score:
                cells.append(f"{float(row.score):.6g}")
            cells.append(str(int(grade)) if judged else '<span title="not judged" style="color:#999">unjudged</span>')
            if has_docs:
                title = getattr(row, "title", "") if "title" in table.columns else ""
                text = str(row.text)
                snippet = _esc(_shorten(text, self.snippet_length))
                shown = (f"<b>{_esc(title)}</b> " if title else "") + snippet
                cells.append(f'<span title="{_esc(_shorten(text, 1000))}">{shown}</span>')
            out.append(
                f'<tr class="{" ".join(classes)}"{style}>'
                + "".join(f'<td style="{cells_style}">{c}</td>' for c in cells)
                + "</tr>"
            )
        out.append("</tbody></table>")
        if table.empty:
            out.append("<div><i>This system retrieved nothing for this query.</i></div>")
        return "".join(out)

    def status_html(self, system, k: int, order: str | None = None, search: str = "", note: str = "") -> str:
        """One line: how many queries are listed and how many fail at ``k``."""
        system = self._check_system(system)
        table = self.per_query(system, k)
        listed = self.worst_first(system, k, order, search)
        failing = int((table[self._failure_name(k)] == 0).sum())
        parts = [f"{len(listed)} of {len(table)} queries listed; {failing} with {self._failure_name(k)} = 0."]
        unjudged = self.unjudged.get(system, 0)
        if unjudged:
            parts.append(f"{unjudged} queries of the run have no judgements and are not listed.")
        if self.closed_world:
            parts.append("Judgements come from the rows given (closed world): unretrieved relevant items are invisible.")
        if note:
            parts.append(note)
        return '<div class="rankviz-status" style="color:#555">' + _esc(" ".join(parts)) + "</div>"


class Explorer(w.VBox):
    """The widget returned by :func:`explore`; see there."""

    def __init__(self, model: ExplorerModel, *, system=None):
        self.model = model
        system = model._check_system(system)
        self._busy = False
        self.system = w.Dropdown(options=list(model.systems or ["run"]), value=system or "run", description="system")
        self.system.disabled = model.systems is None
        self.system.add_class("rankviz-system")
        self.order = w.Dropdown(options=model.order_labels, value=model.order_label, description="worst by")
        self.order.add_class("rankviz-order")
        self.k = w.IntSlider(value=model.initial_k, min=1, max=model.max_k, description="k", continuous_update=False)
        self.k.add_class("rankviz-k")
        self.search = w.Text(placeholder="filter queries (id or words)", description="search", continuous_update=True)
        self.search.add_class("rankviz-search")
        self.next_failure = w.Button(description="next failure \u25b6", tooltip=_FAILURE_NOTE)
        self.next_failure.add_class("rankviz-next-failure")
        self.query = w.Select(options=[], rows=10, description="query", layout=w.Layout(width="34em"))
        self.query.add_class("rankviz-queries")
        self.header = w.HTML()
        self.header.add_class("rankviz-query")
        self.measures = w.HTML()
        self.measures.add_class("rankviz-measures")
        self.table = w.HTML()
        self.table.add_class("rankviz-table")
        self.status = w.HTML()
        self.status.add_class("rankviz-status")
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

    @property
    def selected_system(self):
        """The chosen system (None for a run without systems)."""
        return None if self.model.systems is None else self.system.value

    def _relist(self, note: str = "") -> None:
        """Rebuild the query list (system, order, k or search changed), keeping the selection if listed."""
        m = self.model
        listed = m.worst_first(self.selected_system, self.k.value, self.order.value, self.search.value)
        options = [
            (_shorten(f"{value:.3f}  {qid}  {text}", 90), qid)
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
        self.header.value = m.header_html(system, qid)
        self.measures.value = m.measures_html(system, qid, k)
        self.table.value = m.table_html(system, qid, k)
        self.status.value = m.status_html(system, k, self.order.value, self.search.value, note)

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
            self._show(f"No listed query has {m._failure_name(k)} = 0.")
        elif nxt == self.query.value:
            self._show(f"This is the only listed query with {m._failure_name(k)} = 0.")
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
    **columns,
):
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
        Query texts (``query_id`` and ``text`` columns, or ``{query_id: text}``);
        shown in the list and searchable.
    documents : DataFrame, optional
        ``doc_id``, ``text`` and optionally ``title`` columns; adds snippets.
    measure : str or Measure, default 'RR@k'
        Orders the queries worst first (``'RR@k'``, ``'AP'``, ``'nDCG@k'``,
        ``'R@k'`` ...); a cutoff in its name follows the ``k`` slider, and a number
        (``'nDCG@20'``) also sets the initial ``k``.
    k : int, optional
        Initial cutoff; defaults to the number in ``measure``, else 10.
    system : str, optional
        The system shown first (default: the first one).
    rel : int, default 1
        Minimum grade that counts as relevant.
    snippet_length : int, default 160
        Characters of document text per row.
    **columns
        Column-name overrides, ``order`` and ``score_dtype``, as for :func:`rankviz.evaluate`.

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
        run,
        qrels,
        queries=queries,
        documents=documents,
        measure=measure,
        k=k,
        rel=rel,
        snippet_length=snippet_length,
        **columns,
    )
    return Explorer(model, system=system)
