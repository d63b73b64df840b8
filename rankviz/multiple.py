"""``rankviz.multiple``: many systems at once (all-pairs tests, randomized Tukey HSD, the significance table).

The implementation lives in :mod:`rankviz.stats.many_systems`; this public path is kept for the code and
notebooks that import it. ``rankviz.stats`` exports the same names.
"""

from .stats.many_systems import CORRECTIONS, TESTS, all_pairs, significance_table, tukey_hsd_p
from .stats.table_exports import SignificanceTable

__all__ = ["TESTS", "CORRECTIONS", "tukey_hsd_p", "all_pairs", "significance_table", "SignificanceTable"]
