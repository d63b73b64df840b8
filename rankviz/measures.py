"""Measures as small immutable values.

A measure is a family (``RR``, ``nDCG``, ``AP``, ``P``, ``R``, ``Success``, ``Rprec``)
plus parameters (a cutoff ``k``, a relevance threshold ``rel``, a ``gain``). Its repr
is the canonical name in ir_measures' spelling, so names round-trip and serve as
dict keys and column labels::

    >>> from rankviz.measures import RR, nDCG, parse_measure
    >>> RR @ 10
    RR@10
    >>> RR(rel=2) @ 10
    RR(rel=2)@10
    >>> nDCG(gain="exp") @ 10
    nDCG(gain='exp')@10
    >>> parse_measure("MRR@10") == RR @ 10
    True

The semantics follow trec_eval 10 (see ``Notes`` of each family below and the
project's DESIGN, section 4). All denominators come from the judgements (qrels),
not from the retrieved list.

Families
--------
RR
    Reciprocal rank: ``1 / rank`` of the first item with relevance >= ``rel`` within
    the top ``k``, else 0. Without a cutoff it equals trec_eval's ``recip_rank``
    (which has no cutoff). The mean over queries is MRR.
nDCG
    Normalised discounted cumulative gain (Järvelin & Kekäläinen, TOIS 2002):
    ``sum_{i<=k} gain_i / log2(i + 1)`` divided by the same sum over the ideal
    ordering of *all* judged grades of the query. ``gain='linear'`` uses the grade
    (trec_eval ``ndcg``/``ndcg_cut``), ``gain='exp'`` uses ``2**grade - 1``
    (Burges et al., ICML 2005). Negative grades gain 0; ``rel`` does not apply.
AP
    Average precision: the sum of precision at the rank of each relevant item in
    the top ``k``, divided by the number ``R`` of relevant items in the qrels
    (trec_eval ``map``; with a cutoff, ``map_cut``).
P
    Precision at ``k``: relevant items in the top ``k`` divided by ``k``, even when
    fewer than ``k`` items were retrieved (trec_eval ``P``).
R
    Recall at ``k``: relevant items in the top ``k`` divided by ``R`` (trec_eval
    ``recall``).
Success
    Hit rate at ``k``: 1 if any relevant item is in the top ``k`` (trec_eval
    ``success``).
Rprec
    R-precision: relevant items in the top ``R`` divided by ``R`` (trec_eval
    ``Rprec``).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable

from ._errors import InputError, UnknownMeasureError
from ._validation import check_choice, check_cutoff, check_int

__all__ = [
    "Measure",
    "RR",
    "nDCG",
    "AP",
    "P",
    "R",
    "Success",
    "Rprec",
    "parse_measure",
    "parse_measures",
]

#: family -> (parameters it accepts, whether it needs a cutoff, uses judgement denominators)
_FAMILIES: dict[str, tuple[frozenset, bool, bool]] = {
    "RR": (frozenset({"rel"}), False, False),
    "nDCG": (frozenset({"gain"}), False, True),
    "AP": (frozenset({"rel"}), False, True),
    "P": (frozenset({"rel"}), True, False),
    "R": (frozenset({"rel"}), True, True),
    "Success": (frozenset({"rel"}), True, False),
    "Rprec": (frozenset({"rel"}), False, True),
}

_GAINS = {"linear": "linear", "exp": "exp", "exponential": "exp"}

# Other spellings people type, mapped to a family (matched case-insensitively).
_ALIASES = {
    "rr": "RR",
    "mrr": "RR",
    "recip_rank": "RR",
    "reciprank": "RR",
    "reciprocal_rank": "RR",
    "ndcg": "nDCG",
    "ap": "AP",
    "map": "AP",
    "average_precision": "AP",
    "p": "P",
    "precision": "P",
    "r": "R",
    "recall": "R",
    "success": "Success",
    "hit": "Success",
    "hits": "Success",
    "hitrate": "Success",
    "hit_rate": "Success",
    "rprec": "Rprec",
    "r-prec": "Rprec",
    "r_prec": "Rprec",
    "r_precision": "Rprec",
}

# trec_eval output names with a cutoff suffix: ndcg_cut_10, P_10, recall_100, success_10, map_cut_100.
_TREC_CUT = re.compile(r"^(ndcg_cut|P|recall|success|map_cut)_(\d+)$")
_TREC_FAMILY = {"ndcg_cut": "nDCG", "P": "P", "recall": "R", "success": "Success", "map_cut": "AP"}

_SYNTAX = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z_\-]*)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<k>[^\s]+))?\s*$")


@dataclasses.dataclass(frozen=True)
class Measure:
    """One evaluation measure with its parameters.

    Build measures from the module-level families (``RR @ 10``,
    ``nDCG(gain="exp") @ 10``) or from names (:func:`parse_measure`). Instances are
    immutable and hashable; ``repr`` gives the canonical name.

    Parameters
    ----------
    family : {'RR', 'nDCG', 'AP', 'P', 'R', 'Success', 'Rprec'}
    cutoff : int >= 1 or None
        Rank cutoff ``k``; None means the whole ranked list.
    rel : int, default 1
        Minimum grade that counts as relevant (trec_eval ``-l``). Not used by nDCG.
    gain : {'linear', 'exp'}, default 'linear'
        nDCG gain of a grade ``g``: ``g`` or ``2**g - 1``.
    """

    family: str
    cutoff: int | None = None
    rel: int = 1
    gain: str = "linear"

    def __post_init__(self):
        if self.family not in _FAMILIES:
            raise UnknownMeasureError(f"Unknown measure family {self.family!r}; known: {', '.join(_FAMILIES)}.")
        params = _FAMILIES[self.family][0]
        # P, R and Success without a cutoff exist only as templates (``P @ 5``); evaluating one is refused.
        check_cutoff(self.cutoff, self.family, name="cutoff")
        check_int(self.rel, "rel", self.family)
        check_choice(self.gain, "gain", self.family, ("linear", "exp"))
        if "rel" not in params and self.rel != 1:
            raise InputError(
                f"{self.family} takes no 'rel' parameter: nDCG uses every grade as its gain "
                "(as trec_eval does); change the grades in the qrels instead."
            )
        if "gain" not in params and self.gain != "linear":
            raise InputError(f"{self.family} takes no 'gain' parameter; only nDCG has gains.")
        object.__setattr__(self, "cutoff", None if self.cutoff is None else int(self.cutoff))
        object.__setattr__(self, "rel", int(self.rel))

    # ir_measures-style construction: RR @ 10, RR(rel=2) @ 10
    def __matmul__(self, k) -> Measure:
        return dataclasses.replace(self, cutoff=k)

    def __call__(self, **params) -> Measure:
        allowed = _FAMILIES[self.family][0]
        for key in params:
            if key not in allowed:
                known = ", ".join(sorted(allowed)) or "none"
                raise InputError(f"{self.family} takes no {key!r} parameter (it takes: {known}).")
        if "gain" in params:
            params["gain"] = _GAINS.get(params["gain"], params["gain"])
        return dataclasses.replace(self, **params)

    def __repr__(self) -> str:
        params = []
        if self.rel != 1:
            params.append(f"rel={self.rel}")
        if self.gain != "linear":
            params.append(f"gain={self.gain!r}")
        text = self.family + (f"({','.join(params)})" if params else "")
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    __str__ = __repr__

    @property
    def name(self) -> str:
        """The canonical name, as used for column labels."""
        return repr(self)

    @property
    def needs_cutoff(self) -> bool:
        """True for P, R and Success, which are only defined at a cutoff."""
        return _FAMILIES[self.family][1]

    def check_complete(self) -> Measure:
        """Raise if this is a template that cannot be evaluated (``P`` without a cutoff)."""
        if self.needs_cutoff and self.cutoff is None:
            raise InputError(f"{self.family} needs a cutoff: write it as {self.family}@k, for example '{self.family}@10'.")
        return self

    @property
    def uses_judgement_denominator(self) -> bool:
        """True for measures whose denominator comes from the judgements (R or the ideal DCG)."""
        return _FAMILIES[self.family][2]


RR = Measure("RR")
nDCG = Measure("nDCG")
AP = Measure("AP")
P = Measure("P")  # a template: write P @ 5
R = Measure("R")
Success = Measure("Success")
Rprec = Measure("Rprec")


def _parse_value(text: str, measure: str):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        raise InputError(f"Cannot read the parameter value {text!r} in measure {measure!r}.") from None


def _known_names() -> list[str]:
    examples = ["RR", "RR@10", "nDCG", "nDCG@10", "AP", "AP@100", "P@5", "P@10", "R@100", "R@1000", "Success@10", "Rprec"]
    return examples + list(_ALIASES)


def parse_measure(measure: str | Measure) -> Measure:
    """Turn a measure name (``"RR@10"``, ``"nDCG(gain='exp')@10"``, ``"ndcg_cut_10"``) into a :class:`Measure`.

    Parameters
    ----------
    measure : str or Measure
        ir_measures spelling (``RR(rel=2)@10``), common aliases (``MRR@10``,
        ``MAP``, ``Recall@100``, ``HitRate@10``) or trec_eval names (``recip_rank``,
        ``ndcg_cut_10``, ``P_5``, ``recall_100``, ``success_10``, ``map``).

    Returns
    -------
    Measure

    Raises
    ------
    UnknownMeasureError
        For a name rankviz does not know, with the closest known name.

    Examples
    --------
    >>> parse_measure("MRR@10")
    RR@10
    >>> parse_measure("ndcg_cut_10")
    nDCG@10
    >>> parse_measure("RR(rel=2)@10")
    RR(rel=2)@10
    """
    if isinstance(measure, Measure):
        return measure
    if not isinstance(measure, str):
        raise InputError(f"A measure must be a name such as 'RR@10' or a Measure. Got {measure!r} instead.")
    text = measure.strip()
    trec = _TREC_CUT.match(text)
    if trec:
        return Measure(_TREC_FAMILY[trec.group(1)], cutoff=int(trec.group(2)))
    match = _SYNTAX.match(text)
    family = None
    if match:
        name = match.group("name")
        family = name if name in _FAMILIES else _ALIASES.get(name.lower())
    if family is None:
        head = match.group("name") if match else text
        close = difflib.get_close_matches(text, _known_names(), n=1, cutoff=0.5) or difflib.get_close_matches(
            head.lower(), list(_ALIASES), n=1, cutoff=0.5
        )
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownMeasureError(
            f"Unknown measure {measure!r}.{hint} Known families: {', '.join(_FAMILIES)} "
            "(for example 'RR@10', 'nDCG@10', 'AP', 'P@5', 'R@100', 'Success@10', 'Rprec')."
        )
    params = {}
    if match.group("params"):
        for item in match.group("params").split(","):
            if not item.strip():
                continue
            if "=" not in item:
                raise InputError(f"Measure parameters are written key=value, as in 'RR(rel=2)@10'. Got {measure!r}.")
            key, value = item.split("=", 1)
            params[key.strip()] = _parse_value(value, measure)
    cutoff = None
    if match.group("k") is not None:
        try:
            cutoff = int(match.group("k"))
        except ValueError:
            raise InputError(f"The cutoff after '@' must be an integer >= 1, as in 'RR@10'. Got {measure!r}.") from None
    _, needs_cutoff, _ = _FAMILIES[family]
    if needs_cutoff and cutoff is None:
        raise InputError(f"{family} needs a cutoff: write it as {family}@k, for example '{family}@10'. Got {measure!r}.")
    if cutoff is not None and cutoff < 1:
        raise InputError(f"The cutoff of {measure!r} must be an int in the range [1, inf). Got {cutoff} instead.")
    base = Measure(family, cutoff=cutoff)
    return base(**params) if params else base


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse one measure or a list of them, keeping order and dropping exact repeats."""
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
