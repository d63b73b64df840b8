"""Interactive per-query debugging with ipywidgets.

Two tools, each a thin widget over a model object that holds the logic and returns
data, so that everything the widgets show can be computed and tested without a
browser. The package shows its layers:

:mod:`rankviz.widgets.playground`
    :class:`PlaygroundModel` (a relevance vector -> a dict of measures and the
    sentences that explain RR), the :class:`Playground` widget and
    :func:`playground`: toggle results 1..n relevant and watch RR, Hit@k, P@k,
    R@k, AP and nDCG@k move (MRR swings from 1 to 1/3 when the first relevant
    result moves from rank 1 to rank 3; recall hardly moves).
:mod:`rankviz.widgets.explorer`
    :class:`ExplorerModel` (worst-first queries, measures and ranked lists as
    DataFrames and dicts), the :class:`Explorer` widget and :func:`explore`, which
    ``df.rank.explore(qrels=qrels)`` calls.
:mod:`rankviz.widgets.explorer_judging`
    With ``explore(..., store=, annotator=)``: the unjudged documents of the list
    shown, graded in place into a :class:`~rankviz.labels.LabelStore`, the
    explorer re-evaluated with the store's labels over the qrels.
:mod:`rankviz.widgets.explorer_stages`
    With ``explore(..., stages=)``: the selected query's relevant documents, their
    position at each stage of a :func:`rankviz.stages` pipeline and where each was
    lost (:class:`~rankviz.widgets.explorer_stages.StageView`; its HTML is
    :mod:`rankviz.widgets.render_stages`).
:mod:`rankviz.widgets.ranked`
    One query's ranked list at a time, from that query's rows only, joined with
    document titles and texts (what the explorer's table shows).
:mod:`rankviz.widgets.judge`
    :class:`JudgeModel` (the queue of pairs to judge, filters, skip, undo,
    progress; every grade committed to a :class:`~rankviz.labels.LabelStore`), the
    :class:`Judge` widget and :func:`judge`.
:mod:`rankviz.widgets.render`
    The one module that turns what the models return into HTML; it escapes every
    user string (query ids and texts, document ids, titles and texts, system names).

Every number comes from :func:`rankviz.evaluate` and :func:`rankviz.ranked_list`;
nothing is re-implemented here. ``import rankviz`` does not import this package
(nor ipywidgets): ``df.rank.explore`` imports it on first use.
"""

from .explorer import Explorer, ExplorerModel, explore
from .judge import Judge, JudgeModel, judge
from .playground import Playground, PlaygroundModel, playground

__all__ = [
    "Explorer",
    "ExplorerModel",
    "Judge",
    "JudgeModel",
    "Playground",
    "PlaygroundModel",
    "explore",
    "judge",
    "playground",
]
