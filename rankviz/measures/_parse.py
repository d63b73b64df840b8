"""Measure names to :class:`Measure` values, read off the registry."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from .._errors import InputError, UnknownMeasureError
from ._measure import Measure
from ._registry import NAME_PATTERN, Family, example_names, families, find_cut_family, find_family, lower_names

__all__ = ["parse_measure", "parse_measures"]

# trec_eval names at a cutoff: ndcg_cut_10, P_5, recall_100 (output), ndcg_cut.10, P.5 (its -m option).
_TREC_CUT = re.compile(rf"^\s*(?P<prefix>{NAME_PATTERN}?)[_.](?P<k>\d+)\s*$")
_SYNTAX = re.compile(rf"^\s*(?P<name>{NAME_PATTERN})\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<k>[^\s]+))?\s*$")


def parse_measure(measure: str | Measure) -> Measure:
    """Turn a measure name (``"RR@10"``, ``"nDCG(gain='exp')@10"``, ``"ndcg_cut_10"``) into a :class:`Measure`.

    Parameters
    ----------
    measure : str or Measure
        ir_measures spelling (``RR(rel=2)@10``), a family's aliases (``MRR@10``,
        ``MAP``, ``Recall@100``, ``HitRate@10``) or trec_eval names (``recip_rank``,
        ``ndcg_cut_10``, ``P_5``, ``recall_100``, ``success_10``, ``map``), also in the
        dotted form of trec_eval's ``-m`` option (``ndcg_cut.10``, ``P.5``).

    Returns
    -------
    Measure

    Raises
    ------
    UnknownMeasureError
        For a name rankviz does not know, with the closest known name.
    InputError
        For a parameter or cutoff the family does not accept.

    Examples
    --------
    >>> parse_measure("MRR@10")
    RR@10
    >>> parse_measure("ndcg_cut_10"), parse_measure("ndcg_cut.10"), parse_measure("P.5")
    (nDCG@10, nDCG@10, P@5)
    >>> parse_measure("RR(rel=2)@10")
    RR(rel=2)@10
    >>> parse_measure("nDCG(gain=exponential)@10")
    nDCG(gain='exp')@10
    """
    if isinstance(measure, Measure):
        return measure
    if not isinstance(measure, str):
        raise InputError(f"A measure must be a name such as 'RR@10' or a Measure. Got {measure!r} instead.")
    trec = _TREC_CUT.match(measure)
    family = find_cut_family(trec.group("prefix")) if trec else None
    if family is not None:
        return Measure(family.name, cutoff=int(trec.group("k")))
    match = _SYNTAX.match(measure)
    family = find_family(match.group("name")) if match else None
    if family is None:
        raise _unknown(measure, match.group("name") if match else measure.strip())
    params = _params(match.group("params") or "", family, measure)
    cutoff = _cutoff(match.group("k"), family, measure)
    base = Measure(family.name, cutoff=cutoff)
    return base(**params) if params else base


def _unknown(measure: str, head: str) -> UnknownMeasureError:
    text = measure.strip()
    close = difflib.get_close_matches(text, example_names(), n=1, cutoff=0.5) or difflib.get_close_matches(
        head.lower(), lower_names(), n=1, cutoff=0.5
    )
    hint = f" Did you mean {close[0]!r}?" if close else ""
    examples = ", ".join(repr(f.examples[0]) for f in families())
    return UnknownMeasureError(
        f"Unknown measure {measure!r}.{hint} Known families: {', '.join(f.name for f in families())} "
        f"(for example {examples})."
    )


def _cutoff(text: str | None, family: Family, measure: str) -> int | None:
    cutoff = None
    if text is not None:
        try:
            cutoff = int(text)
        except ValueError:
            raise InputError(f"The cutoff after '@' must be an integer >= 1, as in 'RR@10'. Got {measure!r}.") from None
    if family.needs_cutoff and cutoff is None:
        name = family.name
        raise InputError(f"{name} needs a cutoff: write it as {name}@k, for example '{name}@10'. Got {measure!r}.")
    if cutoff is not None and cutoff < 1:
        raise InputError(f"The cutoff of {measure!r} must be an int in the range [1, inf). Got {cutoff} instead.")
    return cutoff


def _params(text: str, family: Family, measure: str) -> dict:
    """``key=value`` pairs, each value read as the type its family declares."""
    params = {}
    for item in text.split(","):
        if not item.strip():
            continue
        if "=" not in item:
            raise InputError(f"Measure parameters are written key=value, as in 'RR(rel=2)@10'. Got {measure!r}.")
        key, value = (part.strip() for part in item.split("=", 1))
        if key not in family.params:
            raise family.refuse(key)
        params[key] = family.params[key].read(value, measure)
    return params


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse one measure or a list of them, keeping order and dropping exact repeats.

    Examples
    --------
    >>> parse_measures(["RR@10", "MRR@10", "recall.100"])
    [RR@10, R@100]
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    out: list[Measure] = []
    for m in measures:
        parsed = parse_measure(m)
        if parsed not in out:
            out.append(parsed)
    if not out:
        raise InputError("At least one measure is needed, for example ['RR@10', 'nDCG@10'].")
    return out
