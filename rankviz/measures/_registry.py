"""The measure registry: one :class:`Family` declaration per measure family.

A declaration says everything rankviz needs to know about a family: its parameters
(:class:`Param`), the names people type for it, its trec_eval output names, whether
it needs a cutoff, whether its denominator comes from the judgements, and its two
kernels. The parser (:func:`rankviz.measures.parse_measure`), :class:`Measure`,
:func:`rankviz.measures.dispatch.compute` and the trec_eval naming of ``rankviz eval`` all read
the registry, so a family registered at runtime works everywhere at once.

Examples
--------
>>> from rankviz.measures import get_family
>>> ndcg = get_family("nDCG")
>>> ndcg.trec_name, ndcg.trec_cut_name, ndcg.judgement_denominator
('ndcg', 'ndcg_cut_{k}', True)
>>> ndcg.params["gain"].choices
('linear', 'exp')
"""

from __future__ import annotations

import ast
import dataclasses
import numbers
import re
import types
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._core.checks import check_choice, check_int, check_rel
from .._errors import InputError, UnknownMeasureError

__all__ = [
    "Param",
    "Family",
    "register_family",
    "unregister_family",
    "get_family",
    "families",
    "find_family",
    "REL",
    "find_cut_family",
    "lower_names",
    "example_names",
    "FrozenMap",
    "aggregate",
    "GEO_MEAN_FLOOR",
    "AGGREGATES",
    "ROWS",
]

#: what a family name, an alias or a trec_eval name (without cutoff) may look like
NAME_PATTERN = r"[A-Za-z_0-9][A-Za-z_0-9\-]*"
_NAME = re.compile(rf"^{NAME_PATTERN}$")
#: Measure's own fields: no family parameter may take these names
_RESERVED = frozenset({"family", "cutoff", "params"})
#: how a measure's per-query values become one number per system (see :func:`aggregate`)
AGGREGATES = ("mean", "gmean", "sum")
#: which retrieved rows a family's kernel reads as hits (see :class:`Family`)
ROWS = ("relevant", "judged", "pooled")


class FrozenMap(Mapping):
    """An immutable, hashable mapping (a measure parameter such as nDCG's ``gains``); its repr is a dict's.

    Integral float values are stored as ints, so ``{2: 3.0}`` and ``{2: 3}`` are the same value.

    Examples
    --------
    >>> FrozenMap({2: 3.0, 0: 0, 1: 1.5})
    {0: 0, 1: 1.5, 2: 3}
    """

    __slots__ = ("_items",)
    _items: tuple[tuple[Any, Any], ...]

    def __init__(self, items=()):
        pairs = dict(items).items()
        tidy = ((k, int(v) if isinstance(v, float) and v.is_integer() else v) for k, v in pairs)
        object.__setattr__(self, "_items", tuple(sorted(tidy)))

    def __getitem__(self, key):
        for k, v in self._items:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self):
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self._items) + "}"


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter a measure family accepts (as ir_measures' ``ParamInfo``).

    Parameters
    ----------
    type : {int, float, str, dict}
        Type of the value; in a measure name, ``key=value`` is read as this type. A
        ``dict`` maps int grades to numbers (``gains={0: 0, 1: 1, 2: 3}``) and is kept
        as a :class:`FrozenMap`.
    default : object
        The value when the parameter is not given. Defaults are left out of a
        measure's canonical name.
    desc : str
        One line saying what the parameter does.
    choices : tuple, optional
        The allowed values (after ``aliases`` are applied); any value of ``type`` if None.
    aliases : mapping, optional
        Other spellings of a choice, e.g. ``{"exponential": "exp"}``.

    Examples
    --------
    >>> gain = Param(str, "linear", "gain of a grade g", choices=("linear", "exp"), aliases={"exponential": "exp"})
    >>> gain.check("exponential", "gain", "nDCG")
    'exp'
    >>> Param(int, 1, "minimum relevant grade").check("2", "rel", "RR")
    Traceback (most recent call last):
    ...
    rankviz._errors.InputError: The 'rel' parameter of RR must be an int. Got '2' instead.
    """

    type: type
    default: Any
    desc: str
    choices: tuple | None = None
    aliases: Mapping[str, Any] | tuple = ()

    def __post_init__(self):
        if self.type not in (int, float, str, dict):
            raise TypeError(f"Param type must be int, float, str or dict. Got {self.type!r}.")
        pairs = tuple(sorted(dict(self.aliases).items()))
        object.__setattr__(self, "aliases", pairs)
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))

    def check(self, value, name: str, caller: str):
        """Return ``value`` in canonical form, or raise an :class:`InputError` naming the parameter and ``caller``."""
        if value is None and self.default is None:
            return None
        if isinstance(value, str):
            value = dict(self.aliases).get(value, value)
        if self.choices is not None:
            return check_choice(value, name, caller, self.choices)
        if self.type is int:
            return check_rel(value, caller, name=name) if name == "rel" else check_int(value, name, caller)
        if self.type is float and isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
        if self.type is str and isinstance(value, str):
            return value
        if self.type is dict:
            return None if value is None else _grade_map(value, name, caller)
        raise InputError(f"The {name!r} parameter of {caller} must be a {self.type.__name__}. Got {value!r} instead.")

    def read(self, text: str, measure: str):
        """The value written as ``text`` inside a measure name, typed by the declaration (not yet checked)."""
        text = text.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            return text[1:-1]
        if self.type is str and _NAME.match(text):
            return text
        if self.type is dict:
            try:
                return ast.literal_eval(text)
            except (ValueError, SyntaxError):
                raise InputError(
                    f"Cannot read the parameter value {text!r} in measure {measure!r}: write a mapping of grades "
                    "to numbers, as in 'nDCG(gains={0: 0, 1: 1, 2: 3})@10'."
                ) from None
        try:
            return int(text) if self.type is int else float(text)
        except ValueError:
            raise InputError(f"Cannot read the parameter value {text!r} in measure {measure!r}.") from None


def _grade_map(value, name: str, caller: str) -> FrozenMap:
    """A mapping of int grades to real numbers, as a :class:`FrozenMap`, or an error saying what to pass."""
    ok = isinstance(value, Mapping) and all(
        isinstance(k, numbers.Integral)
        and not isinstance(k, bool)
        and isinstance(v, numbers.Real)
        and not isinstance(v, bool)
        for k, v in value.items()
    )
    if not ok:
        raise InputError(
            f"The {name!r} parameter of {caller} must map int grades to numbers, e.g. {{0: 0, 1: 1, 2: 3}}. "
            f"Got {value!r} instead."
        )
    return FrozenMap({int(k): (int(v) if isinstance(v, numbers.Integral) else float(v)) for k, v in value.items()})


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Family:
    """The declaration of one measure family.

    Parameters
    ----------
    name : str
        Canonical name, as in ``name(param=value)@k`` (``"RR"``, ``"nDCG"``).
    kernel : callable
        ``kernel(j, hits, measure) -> ndarray``: the value per cell (float64, length
        ``j.n_cells``) from a :class:`rankviz._core.judged.Judged` ``j`` and its
        :class:`~rankviz.measures._tools.Hits` under the requested tie order.
    expected : callable or None
        ``expected(j, groups, measure) -> ndarray``: the exact expectation over all
        orderings of every tie group, from the
        :class:`~rankviz.measures._tools.TieGroups`. None: ``ties='expected'`` is refused.
    params : dict of str to Param
        The parameters the family accepts, besides the cutoff.
    aliases : tuple of str
        Other names people type (matched case-insensitively).
    trec_name : str or None
        trec_eval's name of the measure without a cutoff (``"recip_rank"``, ``"map"``);
        it is also accepted as a name.
    trec_cut_name : str or None
        trec_eval's name at a cutoff, ending in ``_{k}`` (``"ndcg_cut_{k}"``, ``"P_{k}"``);
        ``ndcg_cut_10`` and ``ndcg_cut.10`` are then accepted as names.
    needs_cutoff : bool
        True when the measure is only defined at a cutoff (``P@5``, not ``P``).
    judgement_denominator : bool
        True when the denominator comes from the judgements (R, the ideal DCG): such
        measures are biased without qrels (closed world).
    examples : tuple of str
        Names shown in error messages and did-you-mean hints; default ``name@10``
        or ``name``.
    refusals : dict of str to str
        Why the family takes no such parameter, for parameters that other families
        take (``{"rel": "nDCG uses every grade as its gain"}``).
    aggregate : {'mean', 'gmean', 'sum'}
        How per-query values become one number per system: the arithmetic mean, the
        geometric mean as trec_eval takes it (``exp(mean(log(max(x, 1e-5))))``, for
        ``gm_map``), or the sum (counts such as ``num_ret``).
    rows : {'relevant', 'judged', 'pooled'} or callable
        Which retrieved rows the kernel reads as hits: the relevant ones (grade > 0 or
        >= ``rel``, the default and the fastest), every judged row (grade >= 0, for
        measures that count judged non-relevant or unjudged items such as bpref), or
        also the rows judged with a negative grade (trec_eval's "in the pool but
        unjudged", hit grade ``-inf``; infAP). A callable takes the measure.
    cutoff_type : {int, float} or None
        The type of the value after ``@``: a rank (int >= 1), a real number such as a
        recall level (``IPrec@0.1``), or None for a family that takes no cutoff.
    cutoff_range : (low, high)
        The closed range a cutoff must lie in; default ``(1, inf)``.
    trec_per_query : bool
        False for measures trec_eval prints only in its summary (``gm_map``, ``num_q``).
    doc : str
        The definition: the formula and a citation.
    """

    name: str
    kernel: Callable
    expected: Callable | None = None
    params: Mapping[str, Param] = dataclasses.field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    trec_name: str | None = None
    trec_cut_name: str | None = None
    needs_cutoff: bool = False
    judgement_denominator: bool = False
    examples: tuple[str, ...] = ()
    refusals: Mapping[str, str] = dataclasses.field(default_factory=dict)
    aggregate: str = "mean"
    rows: str | Callable = "relevant"
    cutoff_type: type | None = int
    cutoff_range: tuple = (1, float("inf"))
    trec_per_query: bool = True
    doc: str = dataclasses.field(default="", repr=False)

    def __post_init__(self):
        # aliases="MRR" means one alias, not three letters
        object.__setattr__(self, "aliases", (self.aliases,) if isinstance(self.aliases, str) else tuple(self.aliases))
        for label, text in [("name", self.name), *(("alias", a) for a in self.aliases), ("trec_name", self.trec_name)]:
            if text is not None and not _NAME.match(text):
                raise InputError(f"The {label} {text!r} of a measure family must match {NAME_PATTERN}.")
        if self.trec_cut_name is not None and not re.fullmatch(rf"{NAME_PATTERN}_\{{k\}}", self.trec_cut_name):
            raise InputError(
                f"trec_cut_name must look like 'ndcg_cut_{{k}}'. Got {self.trec_cut_name!r} for {self.name}."
            )
        clash = _RESERVED & set(self.params)
        if clash:
            raise InputError(f"{self.name}: a parameter cannot be named {min(clash)!r} (a field of every Measure).")
        for key, param in self.params.items():
            if not isinstance(param, Param):
                raise InputError(f"{self.name}: parameter {key!r} must be declared as a Param. Got {param!r}.")
            param.check(param.default, key, self.name)
        check_choice(self.aggregate, "aggregate", self.name, AGGREGATES)
        if not callable(self.rows):
            check_choice(self.rows, "rows", self.name, ROWS)
        check_choice(self.cutoff_type, "cutoff_type", self.name, (int, float, None))
        if self.needs_cutoff and self.cutoff_type is None:
            raise InputError(f"{self.name}: a family that needs a cutoff must take one (cutoff_type int or float).")
        if not callable(self.kernel) or not (self.expected is None or callable(self.expected)):
            raise InputError(f"{self.name}: kernel and expected must be callables (expected may be None).")
        object.__setattr__(self, "params", types.MappingProxyType(dict(self.params)))
        object.__setattr__(self, "refusals", types.MappingProxyType(dict(self.refusals)))
        if not self.examples:
            object.__setattr__(self, "examples", (f"{self.name}@10" if self.needs_cutoff else self.name,))

    @property
    def trec_cut_prefix(self) -> str | None:
        """``trec_cut_name`` without its ``_{k}`` suffix (``"ndcg_cut"``), or None."""
        return None if self.trec_cut_name is None else self.trec_cut_name[: -len("_{k}")]

    def check_cutoff(self, k, measure: str | None = None):
        """``k`` as this family's cutoff (None for the whole list), or an error naming the fix."""
        what = measure or self.name
        if k is None:
            return None
        if self.cutoff_type is None:
            raise InputError(f"{what}: {self.name} takes no cutoff; write it as {self.name!r}.")
        low, high = self.cutoff_range
        real = isinstance(k, numbers.Real) and not isinstance(k, bool)
        integral = isinstance(k, numbers.Integral) or (real and float(k).is_integer())
        if not real or (self.cutoff_type is int and not integral) or not low <= k <= high:
            kind = "an int" if self.cutoff_type is int else "a number"
            raise InputError(
                f"The cutoff of {what} must be {kind} in the range [{low:g}, {high:g}], as in "
                f"{self.examples[0]!r}. Got {k!r} instead."
            )
        return int(k) if self.cutoff_type is int else float(k)

    def format_cutoff(self, k) -> str:
        """The cutoff as trec_eval prints it in a name: ``10``, or ``0.10`` for a real cutoff."""
        return f"{k:3.2f}" if self.cutoff_type is float else str(k)

    def rows_of(self, measure) -> str:
        """Which rows the kernel of ``measure`` reads as hits (see ``rows``)."""
        return self.rows(measure) if callable(self.rows) else self.rows

    def names(self) -> list[str]:
        """Every spelling that names this family: name, aliases and trec_eval name."""
        return [n for n in (self.name, *self.aliases, self.trec_name) if n is not None]

    def refuse(self, key: str) -> InputError:
        """The error for a parameter this family does not take."""
        why = self.refusals.get(key)
        if why:
            return InputError(f"{self.name} takes no {key!r} parameter: {why}.")
        known = ", ".join(self.params) or "none"
        return InputError(f"{self.name} takes no {key!r} parameter (it takes: {known}).")


#: The relevance threshold most families take.
REL = Param(int, 1, "minimum grade that counts as relevant (trec_eval -l)")

_FAMILIES: dict[str, Family] = {}
_BY_NAME: dict[str, Family] = {}  # lower-cased name, alias or trec_eval name -> family
_BY_CUT: dict[str, Family] = {}  # lower-cased trec_eval cutoff prefix ("ndcg_cut") -> family


def _keys(family: Family) -> tuple[set[str], set[str]]:
    names = {n.lower() for n in family.names()}
    cuts = {family.trec_cut_prefix.lower()} if family.trec_cut_prefix else set()
    return names, cuts


def register_family(family: Family) -> Family:
    """Add a family to the registry; its names then parse, evaluate and print everywhere.

    Raises
    ------
    InputError
        If its name, an alias or a trec_eval name is already taken by another family.

    Examples
    --------
    >>> import numpy as np, rankviz
    >>> def count(j, hits, m):  # relevant items in the top k, not divided
    ...     use = (hits.grade >= m.rel) & (hits.pos <= m.cutoff)
    ...     return np.bincount(hits.cell[use], minlength=j.n_cells).astype(float)
    >>> fam = register_family(Family(name="RelCount", kernel=count, needs_cutoff=True,
    ...                              params={"rel": Param(int, 1, "minimum relevant grade")},
    ...                              trec_cut_name="rel_count_{k}"))
    >>> m = rankviz.parse_measure("rel_count.5")
    >>> m, m.trec_name
    (RelCount@5, 'rel_count_5')
    >>> rankviz.evaluate({"q1": [0, 1, 1]}, [m])["RelCount@5"].item()
    2.0
    >>> unregister_family("RelCount")
    """
    if not isinstance(family, Family):
        raise InputError(f"register_family takes a Family declaration. Got {type(family).__name__} instead.")
    names, cuts = _keys(family)
    for other in _FAMILIES.values():
        other_names, other_cuts = _keys(other)
        taken = sorted((names & other_names) | (cuts & other_cuts))
        if taken:
            raise InputError(
                f"Cannot register measure family {family.name!r}: the name {taken[0]!r} already belongs to "
                f"{other.name!r} (names and aliases are matched case-insensitively)."
            )
    _FAMILIES[family.name] = family
    _BY_NAME.update(dict.fromkeys(names, family))
    _BY_CUT.update(dict.fromkeys(cuts, family))
    return family


def unregister_family(name: str) -> None:
    """Remove a family from the registry (for tests and plugins that clean up after themselves)."""
    family = get_family(name)
    del _FAMILIES[family.name]
    for table in (_BY_NAME, _BY_CUT):
        for key in [k for k, v in table.items() if v is family]:
            del table[key]


def get_family(name: str) -> Family:
    """The declaration of the family called ``name`` exactly (``"RR"``, not ``"MRR"``).

    Raises
    ------
    UnknownMeasureError
        For a name that is not a registered family.
    """
    family = _FAMILIES.get(name) if isinstance(name, str) else None
    if family is None:
        raise UnknownMeasureError(f"Unknown measure family {name!r}; known: {', '.join(_FAMILIES)}.")
    return family


def families() -> tuple[Family, ...]:
    """The registered families, in registration order."""
    return tuple(_FAMILIES.values())


def find_family(name: str) -> Family | None:
    """The family a name, alias or trec_eval name stands for (exact name first, then case-insensitive)."""
    return _FAMILIES.get(name) or _BY_NAME.get(name.lower()) if isinstance(name, str) else None


def find_cut_family(prefix: str) -> Family | None:
    """The family whose trec_eval cutoff name starts with ``prefix`` (``"ndcg_cut"``, ``"P"``), any case."""
    return _BY_CUT.get(prefix.lower())


def lower_names() -> list[str]:
    """Every lower-cased family name, alias and trec_eval name (without cutoff)."""
    return list(_BY_NAME)


#: trec_eval's floor for a geometric mean (``MIN_GEO_MEAN``): a query scoring 0 counts as 1e-5
GEO_MEAN_FLOOR = 1e-5


def aggregate(values, how: str = "mean") -> float:
    """One number from per-query values: their mean, trec_eval's geometric mean, or their sum.

    ``'gmean'`` is ``exp(mean(log(max(x, 1e-5))))``, as trec_eval averages ``gm_map``
    and ``gm_bpref`` (its ``MIN_GEO_MEAN``; Robertson, "On GMAP", CIKM 2006). NaN for
    no values.

    Examples
    --------
    >>> round(aggregate([0.5, 0.0], "gmean"), 6) == round((0.5 * 1e-5) ** 0.5, 6)
    True
    >>> aggregate([1, 2, 3], "sum"), aggregate([1, 2, 3])
    (6.0, 2.0)
    """
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return float("nan")
    if how == "sum":
        return float(values.sum())
    if how == "gmean":
        return float(np.exp(np.log(np.maximum(values, GEO_MEAN_FLOOR)).mean()))
    return float(values.mean())


def example_names() -> list[str]:
    """Names to suggest when a measure name is unknown: every family's examples and lower-cased names."""
    return [name for family in _FAMILIES.values() for name in family.examples] + lower_names()
