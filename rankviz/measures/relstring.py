"""trec_eval's ``relstring``: the grades of the first ``n`` retrieved items as a string.

Not a measure (it is not a number) but a per-query line of trec_eval's ``all_trec``
output: one character per retrieved item, the grade when it is 0-9, ``>`` above 9,
``-`` for an item outside the qrels and ``.`` for one judged with a negative grade
(trec_eval 10, ``m_relstring.c``). Read from the hits of a
:class:`rankviz._core.judged.Judged` that holds every judged row (``rel_min=-inf``).

Examples
--------
>>> import numpy as np
>>> from types import SimpleNamespace
>>> j = SimpleNamespace(n_cells=2, num_ret=np.array([4, 0]), depth=None, hit_cell=np.array([0, 0, 0]),
...                     hit_rank=np.array([1, 3, 4]), hit_grade=np.array([2.0, -np.inf, 12.0]))
>>> relstrings(j, 10)
['2-.>', '']
"""

from __future__ import annotations

import numpy as np

__all__ = ["relstrings"]


def relstrings(j, n: int = 10) -> list[str]:
    """Per cell: one character per item of its first ``min(n, retrieved)`` items (trec_eval order)."""
    length = np.minimum(j.num_ret, n if j.depth is None else min(n, j.depth))
    chars = [["-"] * int(k) for k in length]
    top = j.hit_rank <= length[j.hit_cell]
    for cell, rank, grade in zip(j.hit_cell[top].tolist(), j.hit_rank[top].tolist(), j.hit_grade[top].tolist()):
        chars[cell][rank - 1] = "." if grade < 0 else (">" if grade > 9 else str(int(grade)))
    return ["".join(c) for c in chars]
