"""Measure names to :class:`Measure` values, read off the registry."""

from __future__ import annotations

import ast
import difflib
import numbers
import re
from collections.abc import Iterable, Mapping
from typing import cast

from .._errors import InputError, UnknownMeasureError
from ._measure import Measure
from ._registry import (
    NAME_PATTERN,
    Family,
    example_names,
    families,
    find_cut_family,
    find_family,
    lower_names,
)

__all__ = ["parse_measure", "parse_measures", "labelled_measures", "measure_label"]

# trec_eval names at a cutoff: ndcg_cut_10, P_5, iprec_at_recall_0.10 (output), ndcg_cut.10, P.5 (its -m option).
_TREC_CUT = re.compile(r"[_.](?P<k>\d+(?:\.\d+)?)$")
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
    >>> import ir_measures
    >>> parse_measure(ir_measures.RR(rel=2)), parse_measure(ir_measures.NumRet(rel=1))
    (RR(rel=2), NumRet(rel=1))
    """
    if isinstance(measure, Measure):
        return measure
    foreign = _ir_measures_name(measure)
    if foreign is not None:
        return _parse_foreign(foreign)
    if not isinstance(measure, str):
        raise InputError(
            "A measure must be a name such as 'RR@10', a rankviz Measure or an ir_measures measure object. "
            f"Got {type(measure).__name__} {measure!r} instead."
        )
    trec = _trec_cut(measure.strip())
    if trec is not None:
        return trec
    match = _SYNTAX.match(measure)
    family = find_family(match.group("name")) if match else None
    if match is None or family is None:
        raise _unknown(measure, match.group("name") if match else measure.strip())
    family, params_text = _ir_measures_spelling(family, match.group("params") or "", measure)
    params = _params(params_text, family, measure)
    cutoff = _cutoff(match.group("k"), family, measure)
    base = Measure(family.name, cutoff=cutoff)
    return base(**params) if params else base


def _ir_measures_name(measure) -> str | None:
    """The name of an ir_measures measure object (``ir_measures.nDCG@10``), or None for anything else.

    ir_measures writes its measures as rankviz does (``RR(rel=2)@10``, ``IPrec@0.25``), so the
    name is parsed like any other; its own parameter spellings (``nDCG(dcg='exp-log2')``,
    ``SetP(relative=True)``) are read by :func:`_ir_measures_spelling`.
    """
    module = type(measure).__module__ or ""
    if module.split(".")[0] != "ir_measures" or not hasattr(measure, "NAME"):
        return None
    return str(measure)


def _ir_measures_spelling(family: Family, text: str, measure: str) -> tuple[Family, str]:
    """``family(text)`` with ir_measures' parameter spellings turned into rankviz's.

    ir_measures' ``nDCG(dcg='log2')`` is rankviz's linear gain and ``dcg='exp-log2'`` its
    ``gain='exp'``; its ``SetP(relative=True)`` (the object ``ir_measures.SetRelP``) is
    rankviz's ``SetRelP``. Both spellings appear in rankviz's column labels (an
    ir_measures object keeps its own name), so they must parse back.
    """
    items = [item for item in _split_params(text) if item.strip()]
    pairs: list[tuple[str, str]] = []
    for item in items:
        if "=" in item:
            key, value = item.split("=", 1)
            pairs.append((key.strip(), value.strip()))
    keys = {pair[0] for pair in pairs}
    if family.name == "nDCG" and "dcg" in keys and "dcg" not in family.params:
        return family, ",".join(_translate_dcg(pair, pairs, measure) for pair in pairs)
    if family.name == "SetP" and "relative" in keys and "relative" not in family.params:
        relative = _literal(dict(pairs)["relative"], measure)
        if relative not in (True, False):
            raise InputError(f"SetP's 'relative' parameter (ir_measures' spelling) is True or False. Got {measure!r}.")
        rest = ",".join(f"{k}={v}" for k, v in pairs if k != "relative")
        target = find_family("SetRelP") if relative else family
        if target is None:  # SetRelP unregistered: say so rather than drop the parameter
            raise family.refuse("relative")
        return target, rest
    return family, text


def _translate_dcg(pair, pairs, measure: str) -> str:
    key, value = pair
    if key != "dcg":
        return f"{key}={value}"
    dcg = _literal(value, measure)
    if dcg not in ("log2", "exp-log2"):
        raise InputError(f"nDCG's 'dcg' parameter (ir_measures' spelling) is 'log2' or 'exp-log2'. Got {measure!r}.")
    if dcg == "exp-log2" and any(k == "gains" for k, _ in pairs):
        raise InputError(
            f"{measure!r}: ir_measures' dcg='exp-log2' with gains= has no rankviz equivalent; "
            "write the gains themselves, as in 'nDCG(gains={0: 0, 1: 1, 2: 3})@10'."
        )
    return "gain='exp'" if dcg == "exp-log2" else "gain='linear'"


def _literal(text: str, measure: str):
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        raise InputError(f"Cannot read the parameter value {text!r} in measure {measure!r}.") from None


def _parse_foreign(name: str) -> Measure:
    try:
        return parse_measure(name)
    except InputError as error:
        raise type(error)(f"The ir_measures measure {name} has no rankviz equivalent: {error}") from None


def measure_label(measure: str | Measure) -> str:
    """The label of a result column for a measure as given.

    The name as written, an ir_measures object's own name, or a Measure's canonical name.

    Parameters
    ----------
    measure : str or Measure
        A measure name (any spelling the parser reads), a :class:`Measure`, or an
        ir_measures measure object.

    Returns
    -------
    str
        The name stripped of surrounding spaces, ir_measures' ``str(measure)``, or the
        canonical name of a :class:`Measure`.

    Examples
    --------
    >>> measure_label(" MRR@10 "), measure_label(Measure("RR", 10))
    ('MRR@10', 'RR@10')
    """
    if isinstance(measure, str):
        return measure.strip()
    if _ir_measures_name(measure) is not None:
        return str(measure)  # ir_measures' own spelling, as its users wrote it
    return parse_measure(measure).name


def labelled_measures(measures) -> list[tuple[str, Measure]]:
    """Each measure given, with its label (:func:`measure_label`), keeping order and dropping repeated labels.

    Two names of one measure keep both labels (``MRR@10`` and ``RR@10``): results are labelled
    with the names the caller passed.

    Parameters
    ----------
    measures : str, Measure or iterable of them
        One measure or several, by name, as :class:`Measure` values or ir_measures objects.

    Returns
    -------
    list of (str, Measure)
        ``(label, measure)`` pairs in the order given, one per distinct label.

    Examples
    --------
    >>> labelled_measures(["MRR@10", "RR@10", "MRR@10", "Recall@5"])
    [('MRR@10', RR@10), ('RR@10', RR@10), ('Recall@5', R@5)]
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    elif _ir_measures_name(measures) is not None:
        measures = [cast("str | Measure", measures)]  # one ir_measures object: parse_measure reads its name
    _check_measures_argument(measures)
    try:
        items = list(measures)
    except TypeError:
        items = [measures]  # parse_measure says what a measure must be
    out: dict[str, Measure] = {}
    for m in items:
        label = measure_label(m) if isinstance(m, str) or _ir_measures_name(m) else None
        parsed = parse_measure(m)
        out.setdefault(label or parsed.name, parsed)
    if not out:
        raise InputError("At least one measure is needed, for example ['RR@10', 'nDCG@10'].")
    return list(out.items())


def _trec_cut(text: str) -> Measure | None:
    """A trec_eval name at a cutoff (``P_5``, ``ndcg_cut.10``, ``iprec_at_recall_0.10``), or None.

    Every split of ``prefix[_.]number`` is tried, so real cutoffs (``0.10``) and prefixes
    that end in a digit are both read.
    """
    for sep in (i for i, c in enumerate(text) if c in "_."):
        tail = _TREC_CUT.fullmatch(text, sep)
        family = find_cut_family(text[:sep]) if tail else None
        if tail is not None and family is not None:
            k = tail.group("k")
            if family.cutoff_type is int and "." in k:
                continue
            return Measure(family.name, cutoff=int(k) if family.cutoff_type is int else float(k))
    return None


#: names that mean two measures in the libraries people come from: refused with both meanings
_AMBIGUOUS = {
    "hit": (
        "write 'HitRate@{k}' (Success@{k}: the share of queries with a relevant item in the top {k}) or "
        "'Hits@{k}' (ranx's hits: the number of relevant items in the top {k}, averaged over queries)"
    ),
}


def _unknown(measure: str, head: str) -> UnknownMeasureError:
    text = measure.strip()
    if head.lower() in _AMBIGUOUS:
        k = text.rpartition("@")[2] if "@" in text else "k"
        return UnknownMeasureError(f"The measure {measure!r} is ambiguous: {_AMBIGUOUS[head.lower()].format(k=k)}.")
    close = difflib.get_close_matches(text, example_names(), n=1, cutoff=0.5) or difflib.get_close_matches(
        head.lower(), lower_names(), n=1, cutoff=0.5
    )
    hint = f" Did you mean {close[0]!r}?" if close else ""
    examples = ", ".join(repr(f.examples[0]) for f in families())
    return UnknownMeasureError(
        f"Unknown measure {measure!r}.{hint} Known families: {', '.join(f.name for f in families())} "
        f"(for example {examples})."
    )


def _cutoff(text: str | None, family: Family, measure: str):
    cutoff = None
    if text is not None:
        try:
            cutoff = float(text) if family.cutoff_type is float else int(text)
        except ValueError:
            kind = "a number" if family.cutoff_type is float else "an integer >= 1"
            raise InputError(
                f"The cutoff after '@' must be {kind}, as in {family.examples[0]!r}. Got {measure!r}."
            ) from None
    if family.needs_cutoff and cutoff is None:
        name = family.name
        example = f"{name}@10" if family.cutoff_type is int else family.examples[0]
        raise InputError(f"{name} needs a cutoff: write it as {name}@k, for example {example!r}. Got {measure!r}.")
    return family.check_cutoff(cutoff, repr(measure))


def _params(text: str, family: Family, measure: str) -> dict:
    """``key=value`` pairs, each value read as the type its family declares."""
    params = {}
    for item in _split_params(text):
        if not item.strip():
            continue
        if "=" not in item:
            raise InputError(f"Measure parameters are written key=value, as in 'RR(rel=2)@10'. Got {measure!r}.")
        key, value = (part.strip() for part in item.split("=", 1))
        if key not in family.params:
            raise family.refuse(key)
        params[key] = family.params[key].read(value, measure)
    return params


def _split_params(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, braces and quotes (``gains={0: 0, 1: 1}, rel=2``)."""
    items, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    return items + [text[start:]]


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse one measure or a list of them, keeping order and dropping exact repeats.

    Parameters
    ----------
    measures : str, Measure or iterable of them
        One measure or several, by name (``"MRR@10"``, ``"ndcg_cut.10"``), as
        :class:`Measure` values or ir_measures objects.

    Returns
    -------
    list of Measure
        The parsed measures in the order given, each once (two names of one measure
        give it once).

    Examples
    --------
    >>> parse_measures(["RR@10", "MRR@10", "recall.100"])
    [RR@10, R@100]
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    elif _ir_measures_name(measures) is not None:
        measures = [cast("str | Measure", measures)]  # one ir_measures object: parse_measure reads its name
    _check_measures_argument(measures)
    if not isinstance(measures, Iterable):
        measures = [measures]  # one measure object of another library: parse_measure says whether it is known
    out: list[Measure] = []
    for m in measures:
        parsed = parse_measure(m)
        if parsed not in out:
            out.append(parsed)
    if not out:
        raise InputError("At least one measure is needed, for example ['RR@10', 'nDCG@10'].")
    return out


def _check_measures_argument(measures) -> None:
    """Refuse what cannot be a list of measures (None, a number, a table, a dict), saying what is expected."""
    if measures is None:
        got = "None"
    elif isinstance(measures, numbers.Number):
        got = f"the number {measures!r}"
    elif isinstance(measures, Mapping) or hasattr(measures, "columns"):
        got = f"a {type(measures).__name__}"
    else:
        return
    hint = " (a cutoff belongs in the name: 'RR@10')" if isinstance(measures, numbers.Number) else ""
    raise InputError(
        f"measures must be a measure name such as 'RR@10', a Measure, or a list of them, e.g. "
        f"['RR@10', 'nDCG@10', 'AP']; got {got}{hint}. They come after the run: evaluate(run, ['RR@10'], qrels)."
    )
