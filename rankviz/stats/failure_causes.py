"""Why queries fail: the attribute values, numeric bins and query-text terms over-represented among failures.

:func:`failure_slices` reads a per-query table (as ``rankviz.evaluate(..., per_query=True)``
returns it), calls a query a *failure* when its measure is at most ``threshold``
(default: ``RR@k = 0``, nothing relevant in the top k), and tests every candidate
slice of the queries (one value of an attribute, one quantile bin of a numeric
attribute, one word or two-word phrase of the query text) for holding more
failures than the queries outside it.

Each candidate is a 2 x 2 table (in the slice or not, failing or not) tested with
Fisher's exact test, one-sided (over-representation); the p-values of every
candidate tested are corrected together with Benjamini-Hochberg (false discovery
rate). Fisher's test already keeps a slice of two failing queries from looking
strong (its p-value is the failure share squared, not tiny), but its lift does not:
the ``log_odds_z`` column scores every candidate with the log-odds ratio under an
informative Dirichlet prior (Monroe, Colaresi & Quinn 2008), whose prior is the
candidate's share of all queries and whose strength is the number of queries, so a
rare term is pulled towards "no difference" and needs many failures to score high.
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np
import pandas as pd

from .._core.checks import check_int, shown
from .._core.columns import columns_text, find_column
from .._errors import ColumnError, DegenerateDataWarning, InputError, warn
from ..io.per_query import is_reciprocal_rank, per_query_table, query_texts
from ..measures import parse_measure
from .attribute_bins import MISSING, attribute_segments, check_bins
from .inference import benjamini_hochberg_kept_nan

__all__ = ["failure_slices", "FAILURE_COLUMNS", "STOPWORDS", "text_terms"]

#: the columns of :func:`failure_slices`' table, in order
FAILURE_COLUMNS = (
    "attribute",
    "value",
    "kind",
    "n",
    "n_failures",
    "failure_share",
    "failure_share_outside",
    "lift",
    "log_odds_z",
    "p_value",
    "q_value",
)


_WORD = re.compile(r"\w+", re.UNICODE)

#: English function words: a phrase that starts or ends with one is not tested (its other word is)
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other
    our ours out over own same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would
    you your yours""".split()
)


def text_terms(text: str, *, phrases: bool = True) -> set[str]:
    """The distinct lower-cased words of ``text`` and, with ``phrases``, its two-word phrases.

    Examples
    --------
    >>> sorted(text_terms("Refund policy, refund"))
    ['policy', 'policy refund', 'refund', 'refund policy']
    """
    words = _WORD.findall(str(text).lower())
    terms = set(words)
    if phrases:
        terms.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    return terms


def failure_slices(
    per_query,
    *,
    measure: str | None = None,
    system=None,
    queries=None,
    attributes=None,
    threshold: float = 0.0,
    bins: int = 4,
    min_count: int = 5,
    phrases: bool = True,
) -> pd.DataFrame:
    """The slices of queries where a system fails more often than elsewhere, strongest evidence first.

    Parameters
    ----------
    per_query : DataFrame
        A per-query table: ``query_id``, optionally ``system``, measure columns and
        any attribute columns (strings, categories, numbers, booleans).
    measure : str, optional
        The measure column whose value ``<= threshold`` is a failure. Default: the
        table's first ``RR@k`` column (``RR@k = 0``: nothing relevant in the top k).
    system : str, optional
        The system to explain; needed when the table holds several.
    queries : DataFrame, Series or dict, optional
        Query attributes and texts: a frame with a query id column, a text column
        (``text``, ``query_text``, ``question`` or ``title``) and any attribute columns,
        or ``{query_id: text}``. Queries of the table without a text have none of
        the terms.
    attributes : list of str, optional
        The attribute columns to test (of ``per_query`` or ``queries``). Default:
        every column of ``per_query`` but the ids and the measures (numeric columns
        whose names parse as measures, ``RR@10``, ``nDCG@10``, ...) and every column
        of ``queries`` but its id and text. The text is always tested when ``queries`` has one.
    threshold : float, default 0.0
        A query fails when its measure is at most this (a number; a string or None is refused).
    bins : int, default 4
        A numeric attribute with more than 10 distinct values is cut into this many
        quantile bins (2 to 1000; order-statistic edges, equal counts, repeated edges
        merged, integers compared exactly); with 10 or fewer every value is its own
        slice, and a string attribute is never numeric (``"01"`` is not ``"1"``).
        Missing values are the slice ``"(missing)"``. The rule is
        :mod:`rankviz.stats.attribute_bins`', shared with ``by=``.
    min_count : int, default 5
        Slices of fewer queries (and text terms in fewer queries) are not tested:
        they could not reach significance after the correction and would only
        lengthen it.
    phrases : bool, default True
        Test two-word phrases of the query text as well as words; a phrase that starts
        or ends with a function word (``STOPWORDS``: "the refund", "i endpoint") is not
        tested, its other word is.

    Returns
    -------
    DataFrame
        One row per over-represented slice (lift > 1), sorted by evidence: ``q_value``,
        then ``p_value``, then ``log_odds_z`` (descending): ``attribute`` (``"text"`` for a term), ``value``
        (a string: the value, the bin ``"[a, b]"`` or the term), ``kind`` (``"value"``,
        ``"bin"``, ``"word"``, ``"phrase"``), ``n`` (queries in the slice),
        ``n_failures``, ``failure_share`` (in the slice), ``failure_share_outside``,
        ``lift`` (their ratio; inf when nothing outside fails), ``log_odds_z``,
        ``p_value`` (Fisher, one-sided) and ``q_value`` (Benjamini-Hochberg over every
        candidate tested, under-represented ones included). ``attrs["rankviz"]``
        records the system, measure, threshold, numbers of queries, failures and
        candidates tested. Candidates holding the same queries are one candidate: an
        attribute value before a word before a phrase; ``attrs["rankviz"]["same_queries"]``
        maps each kept one (``"attribute=value"`` or ``"text:term"``) to the others.

    Raises
    ------
    rankviz.InputError
        For a table with several systems and no ``system=``, an unknown measure or
        attribute, or missing measure values.

    Notes
    -----
    For a slice with ``a`` of its ``n`` queries failing, out of ``N`` queries with
    ``F`` failures, the p-value is the hypergeometric tail ``P(X >= a)``,
    ``X ~ Hypergeom(N, F, n)``: Fisher's exact test with ``alternative='greater'``.
    ``log_odds_z`` is ``delta / sqrt(1 / (a + n) + 1 / (n - a + n))`` with
    ``delta = log((a + n) / (F + N - a - n)) - log((n - a + n) / (N - F + N - n + a - n))``
    (the prior count of the slice is ``n``: its share of the queries times the
    prior's strength ``N``), Monroe et al.'s equation 16 over queries.

    References
    ----------
    Fisher, R. A. (1922). On the interpretation of chi-square from contingency tables.
    Benjamini, Y., & Hochberg, Y. (1995). Controlling the false discovery rate. JRSS B 57(1).
    Monroe, B. L., Colaresi, M. P., & Quinn, K. M. (2008). Fightin' words: lexical feature
    selection and evaluation for identifying the content of political conflict. Political
    Analysis 16(4), 372-403.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"query_id": [f"q{i}" for i in range(40)],
    ...                       "RR@10": [0.0] * 10 + [1.0] * 30,
    ...                       "source": ["faq"] * 10 + ["docs"] * 30})
    >>> top = rankviz.failure_slices(table)
    >>> top["attribute"].iloc[0], top["value"].iloc[0], int(top["n"].iloc[0]), float(top["failure_share"].iloc[0])
    ('source', 'faq', 10, 1.0)
    """
    caller = "failure_slices"
    bins = check_bins(bins, caller)
    threshold = _threshold(threshold, caller)
    min_count = check_int(min_count, "min_count", caller, low=1)
    ids, failed, name, system = _failures(per_query, measure, system, threshold, caller)
    frame = per_query_table(per_query, caller).frame
    candidates = list(_attribute_slices(frame, ids, queries, attributes, system, name, bins, caller))
    texts = query_texts(queries, caller) if queries is not None and _has_text(queries) else {}
    if texts:
        candidates.extend(_term_slices(ids, texts, min_count, phrases))
    candidates, same = _distinct_slices([c for c in candidates if min_count <= c[3].sum() < len(ids)])
    n, f = len(ids), int(failed.sum())
    meta = {"system": system, "measure": name, "threshold": float(threshold), "n_queries": n, "n_failures": f,
            "same_queries": same}  # fmt: skip
    if f == 0 or f == n or not candidates:
        why = "no query fails" if f == 0 else "every query fails" if f == n else "no slice is large enough"
        warn(f"{caller}: {why} ({f} of {n} queries with {name} <= {threshold:g}); nothing to explain.",
             DegenerateDataWarning)  # fmt: skip
        empty = pd.DataFrame({c: [] for c in FAILURE_COLUMNS})
        empty.attrs["rankviz"] = {**meta, "n_candidates": len(candidates)}
        return empty
    table = _scored(candidates, failed)
    table.attrs["rankviz"] = {**meta, "n_candidates": len(candidates)}
    return table


def _threshold(value, caller: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or math.isnan(float(value)):
        raise InputError(
            f"The 'threshold' parameter of {caller} must be a number: a query fails when its measure is at most it "
            f"(0.0: nothing found). Got {shown(value)} instead."
        )
    return float(value)


def _failures(per_query, measure, system, threshold, caller):
    """(query ids, failure mask, measure name, system) of the one system explained."""
    resolved = per_query_table(per_query, caller)
    frame = resolved.frame
    if resolved.system is not None:
        systems = pd.unique(frame[resolved.system].astype("str")).tolist()
        if system is None and len(systems) > 1:
            raise InputError(
                f"{caller}: the table holds {len(systems)} systems ({columns_text(systems[:5])}); choose one with "
                f"system=, e.g. system={systems[0]!r}."
            )
        system = systems[0] if system is None else str(system)
        if system not in systems:
            raise InputError(f"{caller}: unknown system {system!r}; the table has {columns_text(systems)}.")
        frame = frame[frame[resolved.system].astype("str").to_numpy() == system]
    numeric = resolved.numeric_columns()
    if measure is None:
        rr = [c for c in numeric if is_reciprocal_rank(c)]
        if not rr:
            raise InputError(
                f"{caller}: choose the failure measure with measure=; the table has {columns_text(numeric)}."
            )
        measure = rr[0]
    if measure not in frame.columns or measure not in numeric:
        raise ColumnError(f"{caller}: no measure column {measure!r}; the measure columns are {columns_text(numeric)}.")
    values = frame[measure].to_numpy(dtype=np.float64)
    if np.isnan(values).any():
        row = int(np.flatnonzero(np.isnan(values))[0])
        raise InputError(
            f"{caller}: column {measure!r} has missing values (first at query {frame[resolved.query].iloc[row]!r}); "
            "evaluate with missing='zero' or drop those queries first."
        )
    ids = frame[resolved.query].astype("str").to_numpy(dtype=object)
    if len(set(ids)) != len(ids):
        raise InputError(f"{caller}: a query appears twice for system {system!r}; one row per query is needed.")
    return ids, values <= threshold, measure, system


def _has_text(queries) -> bool:
    if not isinstance(queries, pd.DataFrame):
        return True
    return any(c in queries.columns for c in ("text", "query_text", "question", "title"))


def _is_measure(name) -> bool:
    try:
        parse_measure(str(name))
    except (InputError, ValueError, TypeError):
        return False
    return True


def _attribute_table(frame, ids, queries, attributes, system, measure, caller) -> pd.DataFrame:
    """One row per query id (in ``ids`` order): the attribute columns of the per-query table and of ``queries``."""
    resolved = per_query_table(frame, caller)
    own = frame
    if resolved.system is not None:
        own = frame[frame[resolved.system].astype("str").to_numpy() == system]
    skip = resolved.id_columns | ({measure} if attributes is not None else set(resolved.numeric_columns()))
    if attributes is None:  # a numeric column named like a measure is a measure, any other an attribute
        skip = {c for c in skip if c in resolved.id_columns or c == measure or _is_measure(c)}
    mine = own.drop(columns=[c for c in own.columns if c in skip])
    mine.index = own[resolved.query].astype("str").to_numpy()
    if isinstance(queries, pd.DataFrame):
        qcol = find_column(queries, "query", required=False, what="queries")
        extra = queries.drop(columns=[c for c in (qcol, "text", "query_text", "question", "title") if c in queries])
        keys = queries[qcol] if qcol is not None else queries.index.to_series()
        extra.index = keys.astype("str").to_numpy()
        extra = extra[~extra.index.duplicated()]
        mine = mine.join(extra[[c for c in extra.columns if c not in mine.columns]], how="left")
    table = mine.reindex(ids)
    if attributes is None:
        return table
    attributes = [attributes] if isinstance(attributes, str) else list(attributes)
    absent = [a for a in attributes if a not in table.columns]
    if absent:
        raise ColumnError(
            f"{caller}: no attribute column {absent[0]!r}; the attribute columns are {columns_text(table.columns)}."
        )
    return table[attributes]


def _attribute_slices(frame, ids, queries, attributes, system, measure, bins, caller):
    """(attribute, value, kind, mask) for every value or quantile bin of every attribute."""
    table = _attribute_table(frame, ids, queries, attributes, system, measure, caller)
    for column in table.columns:
        cut = attribute_segments(table[column], bins=bins, name=str(column), caller=caller, ids=ids)
        labels = cut.labels
        for label in labels.categories:
            mask = np.asarray(labels == label)
            kind = "value" if label == MISSING or not cut.binned else "bin"
            yield str(column), str(label), kind, mask


def _distinct_slices(candidates: list) -> tuple[list, dict[str, list[str]]]:
    """One candidate per set of queries: an attribute before a word before a phrase (then the first);
    with, for each kept one that stood for others, their names (``"attribute=value"``, ``"text:term"``)."""
    rank = {"value": 0, "bin": 0, "word": 1, "phrase": 2}
    order = sorted(range(len(candidates)), key=lambda i: (rank[candidates[i][2]], i))
    kept: dict[bytes, int] = {}
    same: dict[str, list[str]] = {}
    for i in order:
        key = np.packbits(candidates[i][3]).tobytes()
        if key not in kept:
            kept[key] = i
        else:
            same.setdefault(_slice_name(candidates[kept[key]]), []).append(_slice_name(candidates[i]))
    return [candidates[i] for i in sorted(kept.values())], same


def _slice_name(candidate) -> str:
    attribute, value, kind, _ = candidate
    return f"text:{value}" if kind in ("word", "phrase") else f"{attribute}={value}"


def _term_slices(ids, texts, min_count, phrases):
    """(\"text\", term, \"word\"/\"phrase\", mask) for every term in at least ``min_count`` queries."""
    position = {q: i for i, q in enumerate(ids)}
    rows: dict[str, list[int]] = {}
    for q, text in texts.items():
        i = position.get(q)
        if i is None:
            continue
        for term in text_terms(text, phrases=phrases):
            words = term.split(" ")
            if len(words) > 1 and (words[0] in STOPWORDS or words[-1] in STOPWORDS):
                continue  # "i endpoint", "the refund", "refund for": the signal is the other word's
            rows.setdefault(term, []).append(i)
    for term in sorted(rows):
        where = rows[term]
        if len(where) >= min_count:
            mask = np.zeros(len(ids), dtype=bool)
            mask[where] = True
            yield "text", term, "phrase" if " " in term else "word", mask


def _scored(candidates, failed: np.ndarray) -> pd.DataFrame:
    """The table of :func:`failure_slices` from its candidates: shares, lift, Fisher p, BH q, log-odds z."""
    from scipy.stats import hypergeom

    n_all, f_all = len(failed), int(failed.sum())
    n = np.array([int(c[3].sum()) for c in candidates], dtype=np.int64)
    a = np.array([int(failed[c[3]].sum()) for c in candidates], dtype=np.int64)
    share_in = a / n
    share_out = (f_all - a) / (n_all - n)
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = np.where(share_out > 0, share_in / np.where(share_out > 0, share_out, 1), math.inf)
    p = np.minimum(hypergeom.sf(a - 1, n_all, f_all, n), 1.0)
    q = benjamini_hochberg_kept_nan(p)
    prior = n.astype(np.float64)  # the slice's share of the queries times the prior's strength (N)
    ok_in = n - a
    delta = np.log((a + prior) / (f_all + n_all - a - prior)) - np.log(
        (ok_in + prior) / ((n_all - f_all) + n_all - ok_in - prior)
    )
    z = delta / np.sqrt(1.0 / (a + prior) + 1.0 / (ok_in + prior))
    table = pd.DataFrame(
        {
            "attribute": [c[0] for c in candidates],
            "value": [c[1] for c in candidates],
            "kind": [c[2] for c in candidates],
            "n": n,
            "n_failures": a,
            "failure_share": share_in,
            "failure_share_outside": share_out,
            "lift": lift,
            "log_odds_z": z,
            "p_value": p,
            "q_value": q,
        }
    )
    table = table[table["failure_share"] > table["failure_share_outside"]]
    table = table.sort_values(
        ["q_value", "p_value", "log_odds_z", "attribute", "value"], ascending=[True, True, False, True, True]
    )
    return table.reset_index(drop=True)
