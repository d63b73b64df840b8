"""The relevance playground: toggle which of ranks 1..n are relevant and watch the measures.

:class:`PlaygroundModel` holds the state (a relevance vector, a cutoff ``k``, the
relevant items missing from the list) and returns data: the measures as a dict from
:func:`rankviz.evaluate`, and the sentences that explain RR. :class:`Playground` is
the ipywidgets view over it; :mod:`rankviz.widgets.render` makes its HTML.
"""

from __future__ import annotations

from collections.abc import Iterable

import ipywidgets as w
import pandas as pd

from .._core.checks import check_cutoff, check_int
from .._errors import InputError
from ..evaluation import evaluate
from . import render

__all__ = ["PlaygroundModel", "Playground", "playground"]


class PlaygroundModel:
    """The numbers behind :func:`playground`: one query whose ``n`` results you mark relevant.

    The model holds a relevance vector (``n`` booleans in rank order), the number of
    relevant items that are *not* among the ``n`` results (so that recall can be
    below 1 even when every relevant result shown is found), and a cutoff ``k``.
    Its measures come from :func:`rankviz.evaluate` on the per-query relevance
    vector (input shape 3) with an ``n_relevant`` column, so they are exactly the
    library's numbers. It returns data only (a dict of measures, a list of
    sentences); :mod:`rankviz.widgets.render` turns them into HTML.

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
    >>> model.explanation()[0]
    'The first relevant result is at rank 3, so RR@10 = 1/3 = 0.3333.'
    >>> model.unretrieved = 1  # one more relevant item exists below rank 10
    >>> model.measures()["R@10"]
    0.5
    """

    #: the measure families shown, in the order of :meth:`measure_names`
    FAMILIES = ("RR", "Success", "P", "R", "AP", "nDCG")

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
        self._k = self._check_at_most_n(value, "k")

    @property
    def unretrieved(self) -> int:
        """Relevant items that are not among the ``n`` results."""
        return self._unretrieved

    @unretrieved.setter
    def unretrieved(self, value: int) -> None:
        self._unretrieved = check_int(value, "unretrieved", "PlaygroundModel", low=0)

    def _check_at_most_n(self, value: int, name: str) -> int:
        if value > self.n:
            raise InputError(
                f"The {name!r} parameter of PlaygroundModel must be an int in the range [1, {self.n}]. Got {value!r} instead."
            )
        return value

    def _check_rank(self, rank: int) -> int:
        return self._check_at_most_n(check_int(rank, "rank", "PlaygroundModel", low=1), "rank")

    def set_relevant(self, rank: int, relevant: bool = True) -> None:
        """Mark the result at ``rank`` (1-based) relevant or not.

        Parameters
        ----------
        rank : int
            The rank, from 1 to ``n``.
        relevant : bool, default True
            Relevant or not.

        Examples
        --------
        >>> from rankviz.widgets import PlaygroundModel
        >>> model = PlaygroundModel(n=4, relevant=[2], k=3)
        >>> model.set_relevant(1)
        >>> model.relevant_ranks
        [1, 2]
        """
        self.relevance[self._check_rank(rank) - 1] = bool(relevant)

    def toggle(self, rank: int) -> None:
        """Flip the relevance of the result at ``rank`` (1-based).

        Parameters
        ----------
        rank : int
            The rank, from 1 to ``n``.

        Examples
        --------
        >>> from rankviz.widgets import PlaygroundModel
        >>> model = PlaygroundModel(n=4, relevant=[2], k=3)
        >>> model.toggle(2)
        >>> model.relevant_ranks
        []
        """
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
        """Canonical names of the measures shown, in display order (one per family of :attr:`FAMILIES`).

        Returns
        -------
        list of str
            RR, Success, P and R at ``k``, AP, and nDCG at ``k``.

        Examples
        --------
        >>> from rankviz.widgets import PlaygroundModel
        >>> model = PlaygroundModel(n=4, relevant=[2], k=3)
        >>> model.measure_names()
        ['RR@3', 'Success@3', 'P@3', 'R@3', 'AP', 'nDCG@3']
        """
        k = self.k
        return [f"RR@{k}", f"Success@{k}", f"P@{k}", f"R@{k}", "AP", f"nDCG@{k}"]

    def measures(self) -> dict[str, float]:
        """The measures of the current relevance vector, keyed by canonical name.

        Returns
        -------
        dict
            ``{"RR@k": ..., "Success@k": ..., "P@k": ..., "R@k": ..., "AP": ..., "nDCG@k": ...}``.

        Examples
        --------
        >>> from rankviz.widgets import PlaygroundModel
        >>> model = PlaygroundModel(n=4, relevant=[2], k=3)
        >>> model.measures()["RR@3"], model.measures()["P@3"] == 1 / 3
        (0.5, True)
        """
        frame = pd.DataFrame(
            {"query": ["playground"], "relevance": [list(self.relevance)], "n_relevant": [self.n_relevant]}
        )
        names = self.measure_names()
        table = evaluate(frame, names, per_query=True)
        return {name: float(table[name].iloc[0]) for name in names}

    #: the largest ``n`` whose every toggle state (2**n) :meth:`toggle_states` computes
    MAX_STATES_N = 10

    def toggle_states(self) -> dict | None:
        """The measures and sentences of every relevance vector at the current ``k`` and ``unretrieved``.

        What a page without a kernel replays when a toggle is clicked (all 2**n states
        in one :func:`rankviz.evaluate` call); None when ``n`` > :attr:`MAX_STATES_N`.

        Returns
        -------
        dict or None
            ``mask`` (the current state: bit ``i`` set when rank ``i + 1`` is
            relevant), ``values`` (per state, the measures in :meth:`measure_names`
            order), ``counts`` (per state: R, relevant in the list, missed) and
            ``sentences`` (per state, :meth:`explanation`).

        Examples
        --------
        >>> from rankviz.widgets import PlaygroundModel
        >>> sorted(PlaygroundModel(n=4, relevant=[2]).toggle_states())
        ['counts', 'mask', 'sentences', 'values']
        """
        if self.n > self.MAX_STATES_N:
            return None
        masks = range(2**self.n)
        vectors = [[bool((mask >> i) & 1) for i in range(self.n)] for mask in masks]
        frame = pd.DataFrame(
            {
                "query": [f"s{m}" for m in masks],
                "relevance": vectors,
                "n_relevant": [sum(v) + self.unretrieved for v in vectors],
            }
        )
        names = self.measure_names()
        table = evaluate(frame, names, per_query=True)[names].to_numpy(dtype=float)
        probe = PlaygroundModel(self.n, k=self.k, unretrieved=self.unretrieved)
        sentences = []
        for vector in vectors:
            probe.relevance = list(vector)
            sentences.append(probe.explanation())
        return {
            "mask": sum(1 << i for i, r in enumerate(self.relevance) if r),
            "values": table.tolist(),
            "counts": [(sum(v) + self.unretrieved, sum(v), self.unretrieved) for v in vectors],
            "sentences": sentences,
        }

    def explanation(self) -> list[str]:
        """Sentences (plain text) that say why RR has the value it has.

        Returns
        -------
        list of str
            The sentences, in reading order.

        Examples
        --------
        >>> from rankviz.widgets import PlaygroundModel
        >>> model = PlaygroundModel(n=4, relevant=[2], k=3)
        >>> model.explanation()
        ['The first relevant result is at rank 2, so RR@3 = 1/2 = 0.5000.']
        """
        k, ranks = self.k, self.relevant_ranks
        within = [r for r in ranks if r <= k]
        if not ranks:
            return [
                f"No relevant result in the top {self.n}: every measure is 0, and in a mean over queries this "
                "query counts as a failure (RR = 0) that pulls MRR down as much as any other query."
            ]
        if not within:
            return [
                f"The first relevant result is at rank {ranks[0]}, beyond k = {k}: RR@{k} = 0 although the "
                "result is in the list. Raise k to see RR jump."
            ]
        first, later = within[0], within[1:]
        sentences = [f"The first relevant result is at rank {first}, so RR@{k} = 1/{first} = {1 / first:.4f}."]
        if later:
            many = len(later) > 1
            sentences.append(
                f"The relevant result{'s' if many else ''} at rank{'s' if many else ''} "
                f"{', '.join(map(str, later))} raise{'' if many else 's'} R@{k}, AP and nDCG@{k} but are invisible to RR."
            )
        if self.unretrieved:
            sentences.append(f"{self.unretrieved} relevant item(s) below rank {self.n} keep R@{k} below 1.")
        return sentences


class Playground(w.VBox):
    """The widget returned by :func:`playground`; see there.

    Parameters
    ----------
    model : PlaygroundModel
        The ranked list of relevant and non-relevant results and the measures shown.

    Examples
    --------
    >>> from rankviz.widgets import Playground, PlaygroundModel
    >>> ui = Playground(PlaygroundModel(n=10, relevant=[1, 3]))
    >>> ui.toggles[0].value = False
    >>> ui.model.relevant_ranks
    [3]
    """

    def __init__(self, model: PlaygroundModel):
        self.model = model
        self.toggles = tuple(self._toggle(rank) for rank in range(1, model.n + 1))
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
        self.values = {family: w.HTML() for family in model.FAMILIES}
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

    def _repr_mimebundle_(self, **kwargs):
        # The widget view for a live kernel, plus a static HTML snapshot for pages without one
        # (rendered notebooks keep the snapshot; JupyterLab and Voilà show the widget).
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/html"] = self.snapshot_html()
        return bundle

    def snapshot_html(self) -> str:
        """The widget's current state as self-contained HTML; its toggles replay precomputed states (n <= 10).

        Returns
        -------
        str
            An HTML fragment (no kernel needed to show it).

        Examples
        --------
        >>> from rankviz.widgets import playground
        >>> playground(n=4, relevant=[2]).snapshot_html().startswith("<div")
        True
        """
        m = self.model
        values = m.measures()
        state = {
            "n": m.n, "relevant_ranks": m.relevant_ranks, "k": m.k, "unretrieved": m.unretrieved,
            "values": {family: values[name] for family, name in zip(m.FAMILIES, m.measure_names())},
            "n_relevant": m.n_relevant, "sentences": m.explanation(),
        }  # fmt: skip
        table = m.toggle_states()
        states = None if table is None else render.playground_states(m.FAMILIES, table)
        return render.playground_snapshot(state, states)

    def _toggle(self, rank: int) -> w.ToggleButton:
        button = w.ToggleButton(
            value=self.model.relevance[rank - 1],
            description=str(rank),
            tooltip=f"result at rank {rank}: click to mark it relevant or not",
            layout=w.Layout(width="3.8em"),
        )
        button.add_class("rankviz-toggle")
        button.add_class(f"rankviz-toggle-{rank}")
        button.observe(self._on_toggle, names="value")
        self._style_toggle(button, rank)
        return button

    @staticmethod
    def _style_toggle(button: w.ToggleButton, rank: int) -> None:
        # A text check mark rather than an icon: icons need Font Awesome, which a page served offline may lack.
        button.button_style = "success" if button.value else ""
        button.description = f"{rank} \u2713" if button.value else str(rank)

    def _on_toggle(self, change):
        button = change["owner"]
        rank = self.toggles.index(button) + 1
        self.model.set_relevant(rank, change["new"])
        self._style_toggle(button, rank)
        self.refresh()

    def _on_k(self, change):
        self.model.k = change["new"]
        self.refresh()

    def _on_unretrieved(self, change):
        self.model.unretrieved = max(int(change["new"] or 0), 0)
        self.refresh()

    def refresh(self) -> None:
        """Recompute the numbers and update every display widget.

        Examples
        --------
        >>> from rankviz.widgets import playground
        >>> ui = playground(n=4, relevant=[2])
        >>> ui.model.set_relevant(1)  # the model changed behind the widget's back
        >>> ui.refresh()
        >>> "1.0000" in ui.values["RR"].value
        True
        """
        m = self.model
        values = m.measures()
        for family, name in zip(m.FAMILIES, m.measure_names()):
            self.values[family].value = render.playground_card(family, values[name], m.k)
        self.relevant_count.value = render.relevant_count(m.n_relevant, sum(m.relevance), m.unretrieved)
        self.explanation.value = render.explanation(m.explanation())


def playground(
    n: int = 10, *, relevant: Iterable[int] = (1,), k: int | None = None, unretrieved: int = 0
) -> Playground:
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
