"""rankviz: rank-aware evaluation for search, recommendation and RAG.

``import rankviz`` adds evaluation methods to pandas DataFrames, under ``df.rank``
(which stays callable as pandas' own ``DataFrame.rank``) and ``df.rankviz``::

    import rankviz
    run = rankviz.read_run("run.txt")
    qrels = rankviz.read_qrels("qrels.txt")
    run.rank.mrr(k=10, qrels=qrels)
    run.rank.evaluate(["RR@10", "nDCG@10", "AP", "R@100"], qrels=qrels, per_query=True)

Every number follows trec_eval 10 (see ``rankviz.measures`` for the semantics).
Importing rankviz changes nothing else: no matplotlib style, no logging handlers.
"""

from __future__ import annotations

from . import accessor as _accessor
from . import fusion, stats
from ._errors import (
    ClosedWorldWarning,
    ColumnError,
    DegenerateDataWarning,
    DuplicateError,
    DuplicateTextWarning,
    IdTypeWarning,
    InputError,
    ModelLabelsWarning,
    QueryIdWarning,
    RankvizError,
    RankvizWarning,
    TiesWarning,
    TrecFormatError,
    UnannotatedWarning,
    UnknownMeasureError,
    UnknownOptionError,
    UnmatchedIdsWarning,
)
from .evaluation import (
    bootstrap,
    changes,
    compare,
    evaluate,
    first_relevant_rank,
    hit_rate,
    mean_average_precision,
    mrr,
    ndcg,
    precision,
    r_precision,
    ranked_list,
    recall,
    stages,
    summary,
    table,
)
from .evaluation.leaderboard import ranks
from .evaluation.stages import Stages
from .evaluation.tie_effects import TieReport, tie_report
from .fusion import fuse
from .history import History
from .io import (
    BeirData,
    RetrievalLog,
    qrels_from_dict,
    qrels_to_dict,
    read_beir,
    read_jsonl,
    read_qrels,
    read_run,
    read_runs,
    read_topics,
    run_from_dict,
    run_to_dict,
    write_jsonl,
    write_qrels,
    write_run,
)
from .measures import Measure, parse_measure
from .stats.failure_causes import failure_slices
from .stats.rank_intervals import RankIntervals
from .stats.results import BootstrapResult, BootstrapResults, Comparison, ConfidenceInterval
from .stats.table_exports import SignificanceTable

__version__ = "0.1.0"

__all__ = [
    "BeirData",
    "BootstrapResult",
    "BootstrapResults",
    "ClosedWorldWarning",
    "Comparison",
    "ConfidenceInterval",
    "ColumnError",
    "DegenerateDataWarning",
    "DuplicateError",
    "DuplicateTextWarning",
    "History",
    "IdTypeWarning",
    "InputError",
    "Measure",
    "ModelLabelsWarning",
    "QueryIdWarning",
    "RankIntervals",
    "RankvizError",
    "RankvizWarning",
    "RetrievalLog",
    "SignificanceTable",
    "Stages",
    "TieReport",
    "TiesWarning",
    "TrecFormatError",
    "UnannotatedWarning",
    "UnknownMeasureError",
    "UnknownOptionError",
    "UnmatchedIdsWarning",
    "bootstrap",
    "changes",
    "compare",
    "evaluate",
    "failure_slices",
    "first_relevant_rank",
    "fuse",
    "fusion",
    "hit_rate",
    "mean_average_precision",
    "mrr",
    "ndcg",
    "parse_measure",
    "precision",
    "qrels_from_dict",
    "qrels_to_dict",
    "r_precision",
    "ranked_list",
    "ranks",
    "read_beir",
    "read_jsonl",
    "read_qrels",
    "read_run",
    "read_runs",
    "read_topics",
    "recall",
    "run_from_dict",
    "run_to_dict",
    "stages",
    "stats",
    "summary",
    "table",
    "tie_report",
    "write_jsonl",
    "write_qrels",
    "write_run",
]

_LAZY_SUBMODULES = ("plots", "widgets", "datasets", "report", "labels")


def __getattr__(name: str):
    # rankviz.plots / .widgets / .datasets / .report / .labels load on first use, so that
    # ``import rankviz`` does not import matplotlib, seaborn or ipywidgets.
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    # exactly the public surface: __all__ and the submodules loaded on first use (attrs does the same)
    return sorted(set(__all__) | set(_LAZY_SUBMODULES))


_accessor.register()
