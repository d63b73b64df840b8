"""Statistics options: one validated value, resolved once at the public boundary.

Every function that resamples or tests (``rankviz.stats.bootstrap``, ``compare``, ``all_pairs``,
``significance_table``, their run-level twins ``rankviz.bootstrap``/``compare``/``table``,
``summary``, the interval plots) takes the same keyword-only options, ``n_resamples``,
``confidence_level``, ``method``, ``rng`` and ``batch``. :func:`rankviz._core.options.with_options`
with a :class:`StatsGroup` (``STATS``) puts them into the function's signature (``help()`` and Shift-Tab show each with its default and one
shared description), validates them once into a :class:`StatsOptions` value, and hands that
value on. The seed is turned into its entropy once, here: the functions below the boundary
pass the value itself, never a seed made again from it.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import typing
from typing import Any, TypedDict

import numpy as np

from .._core.checks import check_choice, check_int, check_probability
from .._core.options import EvalKeywords, with_options
from .._errors import InputError
from .resampling import call_entropy

__all__ = [
    "StatsOptions",
    "StatsKeywords",
    "EvalStatsKeywords",
    "StatsGroup",
    "STATS",
    "with_options",
    "BOOTSTRAP_METHODS",
    "OPTION_NAMES",
]

#: the intervals of one mean (stats.bootstrap); a difference also has the paired t-interval (stats.compare)
BOOTSTRAP_METHODS = ("bca", "percentile", "bootstrap-t")

OPTION_NAMES = ("n_resamples", "confidence_level", "method", "rng", "batch")

_DOCS = {
    "n_resamples": (
        "int, default 10000",
        "Bootstrap resamples, sign flips or permutations. An interval needs at least 2 / (1 - "
        "confidence_level) of them (40 at 95%), so that each tail holds one.",
    ),
    "confidence_level": ("float, default 0.95", "The intervals' confidence level, strictly between 0 and 1."),
    "method": (
        "{methods}, default {default!r}",
        "Which interval: BCa (Efron & Tibshirani 1993, ch. 14), percentile (as scipy.stats.bootstrap computes "
        "it), bootstrap-t (studentized){t}. See docs/statistics.md for the coverage of each on IR-shaped data.",
    ),
    "rng": (
        "None, int >= 0 or numpy.random.Generator",
        "The seed. A system's resamples depend only on it and the system's query ids, never on row order or on "
        "the other systems of the call; None draws fresh entropy.",
    ),
    "batch": (
        "int, optional",
        "Resamples drawn at once (bounds memory); by default about 4 M counts at a time.",
    ),
}


@dataclasses.dataclass(frozen=True)
class StatsOptions:
    """The statistics options of one call, validated (see :class:`StatsGroup` for their meaning).

    ``entropy`` is the seed material of the call (``rng`` turned into integers once); ``seed`` is
    ``rng`` when it was an int (what results record), else None.
    """

    n_resamples: int = 10_000
    confidence_level: float | None = 0.95
    method: str = "bca"
    batch: int | None = None
    seed: int | None = None
    entropy: tuple[int, ...] = ()

    @property
    def level(self) -> float:
        """``confidence_level`` where an interval is computed: only a call that computes none leaves it None."""
        if self.confidence_level is None:  # optional_level callers check it before asking for intervals
            raise TypeError("statistics options without a confidence level were asked for an interval (a rankviz bug)")
        return self.confidence_level

    @property
    def alpha(self) -> float:
        """Each tail's probability, ``(1 - confidence_level) / 2``."""
        return (1 - (self.confidence_level or 0.95)) / 2

    @classmethod
    def resolve(
        cls,
        caller: str,
        *,
        n_resamples=10_000,
        confidence_level=0.95,
        method="bca",
        rng=None,
        batch=None,
        methods=BOOTSTRAP_METHODS,
        optional_level: bool = False,
    ) -> StatsOptions:
        """Validate raw keyword values (the one place the statistics options are checked)."""
        level = None
        if confidence_level is not None or not optional_level:
            level = check_probability(confidence_level, "confidence_level", caller)
        n_resamples = check_int(n_resamples, "n_resamples", caller, low=1)
        if level is not None:
            least = math.ceil(2 / (1 - level) - 1e-9)
            if n_resamples < least:
                raise InputError(
                    f"The 'n_resamples' parameter of {caller} must be at least {least} for a {level:.0%} interval "
                    f"(each tail needs at least one resample; the default is 10000). Got {n_resamples} instead."
                )
        seed = int(rng) if isinstance(rng, int) and not isinstance(rng, bool) else None
        return cls(
            n_resamples=n_resamples,
            confidence_level=level,
            method=check_choice(str(method).lower(), "method", caller, methods),
            batch=None if batch is None else check_int(batch, "batch", caller, low=1),
            seed=seed,
            entropy=call_entropy(rng, caller),
        )

    def replace(self, **changes) -> StatsOptions:
        return dataclasses.replace(self, **changes)


def _options_doc(names, methods, default_method) -> str:
    lines = ["", "    Statistics options (keyword-only, the same for every statistics call)", "    " + "-" * 68]
    for name in names:
        kind, text = _DOCS[name]
        if name == "method":
            kind = kind.format(methods="{" + ", ".join(repr(m) for m in methods) + "}", default=default_method)
            text = text.format(t=", or the paired t-interval ('t')" if "t" in methods else "")
        lines.append(f"    {name} : {kind}")
        lines.append(f"        {text}")
    return "\n".join(lines) + "\n"


class LevelKeywords(TypedDict, total=False):
    """``confidence_level`` alone, as a keyword (:func:`rankviz.stats.meta_analysis`)."""

    confidence_level: float | None


class IntervalKeywords(LevelKeywords, total=False):
    """The statistics options but ``batch``, as keywords (the rank and suite intervals)."""

    n_resamples: int
    method: str
    rng: int | np.random.Generator | None


class StatsKeywords(IntervalKeywords, total=False):
    """The statistics options as keywords, for static tools (``**_: Unpack[StatsKeywords]``; see
    :class:`rankviz._core.options.EvalKeywords`). A function's own ``method`` choices are checked at run time."""

    batch: int | None


class ResampleKeywords(TypedDict, total=False):
    """``n_resamples``, ``rng`` and ``batch``, as keywords (:func:`rankviz.stats.all_pairs`: no interval)."""

    n_resamples: int
    rng: int | np.random.Generator | None
    batch: int | None


class SummaryKeywords(LevelKeywords, total=False):
    """``confidence_level``, ``n_resamples`` and ``rng``, as keywords (:func:`rankviz.summary`)."""

    n_resamples: int
    rng: int | np.random.Generator | None


class EvalStatsKeywords(EvalKeywords, StatsKeywords, total=False):
    """The evaluation and the statistics options together (``rankviz.bootstrap``, ``compare``, ``table``)."""


class EvalIntervalKeywords(EvalKeywords, IntervalKeywords, total=False):
    """The evaluation options and the statistics options but ``batch`` (``rankviz.ranks``)."""


class EvalSummaryKeywords(EvalKeywords, SummaryKeywords, total=False):
    """The evaluation options with ``confidence_level``, ``n_resamples`` and ``rng`` (``rankviz.summary``)."""


@dataclasses.dataclass(frozen=True)
class StatsGroup:
    """The statistics options as a :class:`rankviz._core.options.OptionGroup`: ``methods`` and ``method`` are
    the intervals a function offers and its default; ``optional_level``: ``confidence_level=None`` leaves the
    intervals out; ``exclude``: options it does not take."""

    methods: tuple[str, ...] = BOOTSTRAP_METHODS
    method: str = "bca"
    optional_level: bool = False
    exclude: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return tuple(n for n in OPTION_NAMES if n not in self.exclude)

    def parameters(self) -> list[inspect.Parameter]:
        defaults = {"n_resamples": 10_000, "confidence_level": 0.95, "method": self.method, "rng": None, "batch": None}
        types = typing.get_type_hints(StatsKeywords)  # the types static tools see
        keyword = inspect.Parameter.KEYWORD_ONLY
        return [inspect.Parameter(n, keyword, default=defaults[n], annotation=types[n]) for n in self.names()]

    def resolve(self, caller: str, values: dict[str, Any]) -> StatsOptions:
        return StatsOptions.resolve(caller, methods=self.methods, optional_level=self.optional_level, **values)

    def doc(self) -> str:
        return _options_doc(self.names(), self.methods, self.method)


#: the statistics options with their usual intervals (bootstrap: BCa by default)
STATS = StatsGroup()
