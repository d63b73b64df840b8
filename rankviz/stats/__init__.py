"""Statistics over per-query tables: bootstrap intervals, paired comparisons, the zero problem.

The query is the sampling unit. Everything here works on a *per-query table*: the
output of :func:`rankviz.evaluate` with ``per_query=True`` (columns ``system``
(optional), ``query_id`` and one column per measure), or any table of that shape,
so notebooks can bootstrap anything computed per query.

Bootstrap
    Queries are resampled with replacement; systems with the same queries get the
    same resamples (paired), drawn from a stream that depends only on the seed and
    the sorted query ids. A resample is drawn as a vector of counts, so each
    resampled mean is one matrix-vector product. Intervals are BCa (default; Efron &
    Tibshirani 1993, ch. 14), percentile (as :func:`scipy.stats.bootstrap` computes
    them) or bootstrap-t (studentized). Where BCa is undefined (constant
    data, a jackknife with no spread) the percentile interval is used and a
    :class:`DegenerateDataWarning` says so.
Paired comparisons
    For each system x measure against a baseline, paired by query id
    (:mod:`rankviz.stats.paired`): the mean difference with its paired t-interval (or a
    bootstrap interval by name), a p-value from a
    Fisher randomization (sign-flip) test with the +1 correction of Phipson &
    Smyth (2010) (exact enumeration when 2**n <= n_resamples), a paired t-test or a
    Wilcoxon signed-rank test; Holm or Benjamini-Hochberg correction over every
    comparison of the call; the effect size d_z = mean(d) / sd(d); and
    win/tie/loss counts.
Failure causes
    :func:`failure_slices`: attribute values, numeric bins and query-text terms over-represented among a
    system's failures (Fisher's exact test, Benjamini-Hochberg across every candidate).
Suites and leaderboards
    :func:`suite_intervals` (stratified or two-level bootstrap of per-dataset means and the macro
    average), :func:`meta_analysis` (random effects across datasets) and :func:`ranks` (simultaneous
    rank intervals and tiers), on per-query tables with a ``dataset`` column.
The zero problem
    MRR mixes two things: how often the first relevant item is found at all, and
    how high it is when found. For RR measures every bootstrap result also reports
    the share of queries with RR = 0 with a Wilson interval, and the MRR over the
    non-zero queries with its own bootstrap CI (the ratio is recomputed inside
    every resample). ``MRR = (1 - zero share) x MRR over non-zero queries``.

Coverage (measured by ``benchmarks/coverage.py``; ``docs/statistics.md`` explains it)
    The paired t-interval of a difference covers 0.940-0.954 at 95% on tied IR data
    (n = 25-100), the bootstrap intervals 0.83-0.95: hence compare's default. One
    system's BCa interval holds except with very few non-zero queries (0.79 at 90%
    zeros and n = 25); there a calibrated note says so (fewer than 15 non-zero
    queries and at least 80% zeros).
"""

from .failure_causes import failure_slices
from .inference import benjamini_hochberg, holm, wilson_interval
from .intervals import bootstrap
from .many_systems import CORRECTIONS, TESTS, all_pairs, significance_table, tukey_hsd_p
from .paired import DIFFERENCE_INTERVALS, compare, paired_differences, power
from .power_analysis import PowerResult
from .rank_intervals import RankIntervals, ranks
from .results import BootstrapResult, BootstrapResults, Comparison, ConfidenceInterval
from .suite_compare import suite_compare
from .suites import MetaAnalysis, SuiteIntervals, meta_analysis, suite_intervals
from .table_exports import SignificanceTable

__all__ = [
    "ConfidenceInterval",
    "BootstrapResult",
    "BootstrapResults",
    "Comparison",
    "SignificanceTable",
    "bootstrap",
    "compare",
    "paired_differences",
    "wilson_interval",
    "holm",
    "benjamini_hochberg",
    "power",
    "PowerResult",
    "DIFFERENCE_INTERVALS",
    "all_pairs",
    "significance_table",
    "tukey_hsd_p",
    "TESTS",
    "CORRECTIONS",
    "failure_slices",
    "suite_intervals",
    "suite_compare",
    "SuiteIntervals",
    "meta_analysis",
    "MetaAnalysis",
    "ranks",
    "RankIntervals",
]
