"""The :class:`Measure` value: a registered family, a cutoff and the family's parameters."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._errors import InputError
from ._registry import Family, get_family

__all__ = ["Measure", "READABLE_DEFAULTS"]

#: Parameters every measure answers, with the value read where its family does not take
#: them: callers read them across families (``min(m.rel for m in measures)``).
READABLE_DEFAULTS: Mapping[str, Any] = types.MappingProxyType({"rel": 1, "gain": "linear"})


_UNSET = object()  # rel or gain not given


def _is_readable_default(key: str, value) -> bool:
    default = READABLE_DEFAULTS.get(key, dataclasses.MISSING)
    return type(value) is type(default) and value == default


@dataclasses.dataclass(frozen=True, init=False, repr=False)
class Measure:
    """One evaluation measure: a family, an optional cutoff and the family's parameters.

    Build measures from the family builders (``RR @ 10``, ``nDCG(gain="exp") @ 10``)
    or from names (:func:`rankviz.measures.parse_measure`). Instances are immutable
    and hashable; ``repr`` gives the canonical name, in ir_measures' spelling.

    Parameters
    ----------
    family : str
        A registered family (:func:`rankviz.measures.families`): ``'RR'``, ``'nDCG'``,
        ``'AP'``, ``'P'``, ``'R'``, ``'Success'``, ``'Rprec'`` or one added with
        :func:`rankviz.measures.register_family`.
    cutoff : int >= 1, float or None
        Rank cutoff ``k``; None means the whole ranked list. Families with a real
        cutoff read it as their own (``IPrec@0.1``: the recall level).
    rel : int, optional
        Minimum grade that counts as relevant (trec_eval ``-l``), for families that
        take it (all but nDCG).
    gain : {'linear', 'exp'}, optional
        nDCG's gain of a grade ``g``: ``g`` or ``2**g - 1``.
    params : mapping or pairs, optional
        The family's parameters (keyword only); the other arguments are merged into them.
    **kwargs
        Any other parameter the family declares. ``rel=1`` and ``gain='linear'`` are
        accepted by every family, as the values it reads.

    Attributes
    ----------
    family : str
        The family's name.
    cutoff : int, float or None
    params : tuple of (str, object)
        Every declared parameter with its value (defaults included), in declaration order.

    Examples
    --------
    >>> m = Measure("RR", cutoff=10, rel=2)
    >>> m, m.rel, m.gain, m.trec_name
    (RR(rel=2)@10, 2, 'linear', 'RR(rel=2)@10')
    >>> Measure("nDCG", 10).trec_name
    'ndcg_cut_10'
    >>> Measure("P")(rel=3) @ 5
    P(rel=3)@5
    """

    family: str
    cutoff: int | float | None
    params: tuple[tuple[str, Any], ...]

    def __init__(
        self,
        family: str,
        cutoff: int | float | None = None,
        rel=_UNSET,
        gain=_UNSET,
        *,
        params: Mapping | tuple = (),
        **kwargs,
    ):
        declaration = get_family(family)
        # P, R and Success without a cutoff exist only as templates (``P @ 5``); evaluating one is refused.
        cutoff = declaration.check_cutoff(cutoff)
        given = {**dict(params), **{k: v for k, v in (("rel", rel), ("gain", gain)) if v is not _UNSET}, **kwargs}
        for key, value in given.items():
            if key not in declaration.params and not _is_readable_default(key, value):
                raise declaration.refuse(key)
        values = tuple(
            (key, param.check(given.get(key, param.default), key, family)) for key, param in declaration.params.items()
        )
        object.__setattr__(self, "family", declaration.name)
        object.__setattr__(self, "cutoff", cutoff)
        object.__setattr__(self, "params", values)

    # ir_measures-style construction: RR @ 10, RR(rel=2) @ 10
    def __matmul__(self, k) -> Measure:
        return Measure(self.family, k, params=self.params)

    def __call__(self, **params) -> Measure:
        declaration = self.declaration
        for key in params:
            if key not in declaration.params:
                raise declaration.refuse(key)
        return Measure(self.family, self.cutoff, params={**dict(self.params), **params})

    def __repr__(self) -> str:
        defaults = self.declaration.params
        shown = [f"{key}={value!r}" for key, value in self.params if value != defaults[key].default]
        text = self.family + (f"({','.join(shown)})" if shown else "")
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    __str__ = __repr__

    @property
    def declaration(self) -> Family:
        """The family's registry entry (:class:`rankviz.measures.Family`)."""
        return get_family(self.family)

    @property
    def name(self) -> str:
        """The canonical name, as used for column labels."""
        return repr(self)

    @property
    def rel(self) -> int:
        """Minimum grade that counts as relevant; 1 for families without a ``rel`` parameter (nDCG).

        Also 1 for a family whose ``rel`` defaults to None (``NumRet``: every retrieved item).
        """
        value = dict(self.params).get("rel")
        return READABLE_DEFAULTS["rel"] if value is None else value

    @property
    def gain(self) -> str:
        """nDCG's gain, ``'linear'`` or ``'exp'``; ``'linear'`` for families without a ``gain`` parameter."""
        return dict(self.params).get("gain", READABLE_DEFAULTS["gain"])

    @property
    def is_default(self) -> bool:
        """True when every parameter has its default value (the cutoff aside)."""
        defaults = self.declaration.params
        return all(value == defaults[key].default for key, value in self.params)

    @property
    def trec_name(self) -> str:
        """trec_eval's output name (``RR`` -> ``recip_rank``, ``nDCG@10`` -> ``ndcg_cut_10``).

        The canonical name when trec_eval has none: for non-default parameters
        (``RR(rel=2)``, ``nDCG(gain='exp')@10``) or a cutoff trec_eval does not take (``RR@10``).
        """
        family = self.declaration
        template = family.trec_name if self.cutoff is None else family.trec_cut_name
        if template is None or not self.is_default:
            return self.name
        if family.cutoff_type is float and float(family.format_cutoff(self.cutoff)) != self.cutoff:
            return self.name  # trec_eval prints two decimals: iprec_at_recall_0.10
        return template.format(k=family.format_cutoff(self.cutoff))

    @property
    def needs_cutoff(self) -> bool:
        """True for families only defined at a cutoff (P, R and Success)."""
        return self.declaration.needs_cutoff

    def check_complete(self) -> Measure:
        """Raise if this is a template that cannot be evaluated (``P`` without a cutoff).

        Returns
        -------
        Measure
            This measure, unchanged, when it can be evaluated.

        Raises
        ------
        InputError
            For a family only defined at a cutoff, given without one.

        Examples
        --------
        >>> from rankviz.measures import P
        >>> (P @ 5).check_complete()
        P@5
        """
        if self.needs_cutoff and self.cutoff is None:
            example = f"{self.family}@10" if self.declaration.cutoff_type is int else self.declaration.examples[0]
            raise InputError(f"{self.family} needs a cutoff: write it as {self.family}@k, for example {example!r}.")
        return self

    @property
    def aggregate(self) -> str:
        """How the family turns per-query values into one number: ``'mean'``, ``'gmean'`` or ``'sum'``."""
        return self.declaration.aggregate

    @property
    def hit_min(self) -> float:
        """The lowest grade the kernel needs among the hits: ``rel``, 0 (every judged row) or -inf (negative grades too)."""
        rows = self.declaration.rows_of(self)
        return {"relevant": float(self.rel), "judged": 0.0}.get(rows, -np.inf)

    @property
    def uses_judgement_denominator(self) -> bool:
        """True for measures whose denominator comes from the judgements (R or the ideal DCG)."""
        return self.declaration.judgement_denominator
