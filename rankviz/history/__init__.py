"""Evaluations over time: :class:`History`, one SQLite file of records, compared by query across time.

``rankviz.History(path)`` records evaluations (the per-query table, means, options,
fingerprints of qrels, queries, run and options, git and CI metadata), reads them
back, compares two of them paired by query (refusing when the judgements or the
query set changed, unless asked to use what both share), plots the trend and gates
a new run against the accepted record (:meth:`History.gate`).
"""

from __future__ import annotations

from .gate import GateDecision
from .records import Record
from .store import History

__all__ = ["History", "Record", "GateDecision"]
