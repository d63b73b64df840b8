"""The evaluation every entry point shares: the pipeline, the public evaluation functions, summaries, ties.

``pipeline`` reads judgements, judges a run and applies the missing-query policy; ``api`` holds the public
functions (``evaluate``, ``bootstrap``, ...); ``shortcuts`` the seven one-measure functions
(``mrr``, ``ndcg``, ...), declared once; ``run_summary`` the zero-share summary; ``tie_effects`` how far tied
scores can move each measure.
"""

from .api import bootstrap, compare, evaluate, first_relevant_rank, summary, table
from .api import (
    per_query_of as per_query_of,  # the per-query table of the statistics (both kinds of options already resolved)
)
from .changes import changes
from .ranked_lists import ranked_list
from .shortcuts import hit_rate, mean_average_precision, mrr, ndcg, precision, r_precision, recall
from .stages import Stages, stages

__all__ = [
    "evaluate",
    "mrr",
    "ndcg",
    "mean_average_precision",
    "recall",
    "precision",
    "hit_rate",
    "r_precision",
    "first_relevant_rank",
    "summary",
    "ranked_list",
    "bootstrap",
    "compare",
    "table",
    "changes",
    "stages",
    "Stages",
]
