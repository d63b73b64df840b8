"""GMAP and GMBpref: AP and bpref with trec_eval's geometric mean over queries.

Per query ``GMAP`` is AP and ``GMBpref`` is bpref; over queries they are
``exp(mean(log(max(x, 1e-5))))``, the floor keeping a query that scores 0 from
making the mean 0 (Robertson, "On GMAP", CIKM 2006; trec_eval ``gm_map`` and
``gm_bpref``, which print only the summary). The geometric mean rewards systems
that do not fail on any query.

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [1, 0], "q2": [0, 1]}, ["GMAP", "AP"]).round(4).to_dict("records")
[{'GMAP': 0.7071, 'AP': 0.75}]
"""

from __future__ import annotations

from . import ap, bpref
from ._registry import REL, Family

GMAP = Family(
    name="GMAP",
    kernel=ap.kernel,
    expected=ap.expected,
    params={"rel": REL},
    aliases=("gm_ap",),
    trec_name="gm_map",
    judgement_denominator=True,
    aggregate="gmean",
    trec_per_query=False,
    doc="GMAP: AP per query, geometric mean exp(mean(log(max(AP, 1e-5)))) over queries (trec_eval gm_map; Robertson, CIKM 2006).",
)

GMBPREF = Family(
    name="GMBpref",
    kernel=bpref.kernel,
    expected=None,
    params={"rel": REL},
    trec_name="gm_bpref",
    cutoff_type=None,
    judgement_denominator=True,
    rows="judged",
    aggregate="gmean",
    trec_per_query=False,
    doc=(
        "GMBpref: bpref per query, geometric mean exp(mean(log(max(bpref, 1e-5)))) over queries (trec_eval gm_bpref; "
        "Buckley & Voorhees, SIGIR 2004; Robertson, CIKM 2006)."
    ),
)

FAMILIES = (GMAP, GMBPREF)
