"""Evaluation options: one validated value, resolved once at the public boundary.

Every public evaluation function (and every ``df.rank`` method) takes the same
keyword-only options. :func:`with_options` (one decorator for every option group:
``EVAL`` here, ``rankviz.stats.options.STATS``) puts them into the function's
signature (so ``help()`` and Shift-Tab show each with its default), validates them
once into an :class:`EvalOptions` value, and rejects unknown keywords with the
closest known one. Below the boundary only the value travels: a decorated function
takes it first, by position, and internal code calls the undecorated helpers that
take it (``evaluation.api.per_query_table``), never a public function with keywords.
Static tools see the options through ``**_: Unpack[EvalKeywords]``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any, Concatenate, Literal, ParamSpec, Protocol, TypedDict, TypeVar, cast, overload

from .._errors import UnknownOptionError
from .checks import check_choice, check_cutoff, check_rel
from .columns import Columns
from .frames import as_pandas, is_foreign_frame, unpack_bundles

__all__ = [
    "EvalOptions",
    "EvalKeywords",
    "ListKeywords",
    "TieFreeKeywords",
    "OptionGroup",
    "EVAL",
    "with_options",
    "with_method_options",
    "TIES",
    "option_names",
    "unknown_keyword",
]

#: how items with equal scores are ordered (see rankviz.measures.dispatch)
TIES = ("trec_eval", "expected", "optimistic", "pessimistic")

_SAME = object()  # the keyword's default is the field's


def _keyword_default(f: dataclasses.Field) -> Any:
    """The default of an option's keyword: the field's, or its own (``columns=None``: no override)."""
    return f.default if f.metadata["keyword_default"] is _SAME else f.metadata["keyword_default"]


def _option(default, kind: str, doc: str, *, choices: tuple | None = None, check=None, keyword_default=_SAME):
    """One option's declaration, as the metadata of its :class:`EvalOptions` field: its default, its check
    (one of ``choices``, or ``check(value, caller, name)``), its numpydoc type and text, and the keyword's
    default where it is not the field's (``columns=None`` means no override)."""
    if check is None:

        def check(value, caller, name):
            return check_choice(value, name, caller, choices or ())

    metadata = {"kind": kind, "doc": doc, "check": check, "choices": choices, "keyword_default": keyword_default}
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True)
class EvalOptions:
    """The evaluation options of one call, validated (see :func:`with_options`). Each field declares its option
    once: default, check, type and text (its metadata; the signatures and docs are made from it)."""

    rel: int | None = _option(
        None,
        "int, optional",
        "Minimum grade that counts as relevant (trec_eval ``-l``), applied to every measure that takes "
        "``rel`` and was not given its own (``RR(rel=3)@10`` keeps 3); labels carry it (``RR(rel=2)@10``). "
        "nDCG uses every grade as its gain and ignores it. An int >= 0 (negative levels, whose meaning in "
        "trec_eval counts unjudged documents as relevant, are refused). Default: 1.",
        check=lambda value, caller, name: None if value is None else check_rel(value, caller),
    )
    depth: int | None = _option(
        None,
        "int, optional",
        "Cut every ranked list to its first ``depth`` items first (trec_eval ``-M``).",
        check=lambda value, caller, name: check_cutoff(value, caller, name=name),
    )
    missing: str = _option(
        "zero",
        "{'zero', 'drop', 'error'}, default 'zero'",
        "A query in the qrels that a system did not retrieve scores 0 and counts in the mean (``'zero'``, "
        "trec_eval ``-c``), is left out (``'drop'``), or is an error.",
        choices=("zero", "drop", "error"),
    )
    duplicates: str = _option(
        "error",
        "{'error', 'first'}, default 'error'",
        "A (query, doc) pair retrieved twice is an error, or only its best-ranked row is kept.",
        choices=("error", "first"),
    )
    ties: str = _option(
        "trec_eval",
        "{'trec_eval', 'expected', 'optimistic', 'pessimistic'}, default 'trec_eval'",
        "How items with equal scores are ordered: doc id descending (trec_eval), the exact expectation over "
        "all orderings, or the bounds; see :mod:`rankviz.measures.dispatch`.",
        choices=TIES,
    )
    order: str | None = _option(
        None,
        "{'score', 'rank'}, optional",
        "Rank by score (the default when there is one, as trec_eval does) or by the rank column.",
        choices=("score", "rank", None),
    )
    score_dtype: str = _option(
        "float64",
        "{'float64', 'float32'}, default 'float64'",
        "``'float32'`` rounds scores to 32-bit floats first, which reproduces trec_eval 9 and pytrec_eval.",
        choices=("float64", "float32"),
    )
    judged_only: bool = _option(
        False,
        "bool, default False",
        "Drop every retrieved item without a judgement (not in the qrels, or judged with a negative grade) "
        "before ranking, after the cut to ``depth`` (trec_eval ``-J``; condensed lists, Sakai, SIGIR 2007).",
        choices=(False, True),
    )
    unannotated: str = _option(
        "drop",
        "{'drop', 'zero'}, default 'drop'",
        "Input without qrels: a query with no gold at all (a missing or empty list of relevant ids, a missing "
        "relevance vector or one of missing entries) is unannotated. ``'drop'`` leaves "
        "it out (with a warning giving the count; it is listed as not evaluated), ``'zero'`` scores it 0 and "
        "counts it in the mean.",
        choices=("drop", "zero"),
    )
    columns: Columns = _option(
        Columns(),
        "dict, optional",
        "Column names by role when the defaults and aliases do not find them: ``{'query': 'qid', 'doc': "
        "'docno', 'score': 'sim', 'relevance': 'label', 'system': 'run', 'retrieved': ..., 'relevant': ..., "
        "'n_relevant': ...}``.",
        check=lambda value, caller, name: Columns.of(value, caller),
        keyword_default=None,
    )

    @classmethod
    def resolve(cls, caller: str, **values) -> EvalOptions:
        """Validate raw keyword values into an :class:`EvalOptions` (the one place options are checked): each
        field's check, in field order, on the value given or the keyword's default."""
        checked = {}
        for f in dataclasses.fields(cls):
            value = values.get(f.name, _keyword_default(f))
            checked[f.name] = f.metadata["check"](value, caller, f.name)
        return cls(**checked)

    def replace(self, **changes) -> EvalOptions:
        return dataclasses.replace(self, **changes)

    def as_record(self) -> dict:
        """The options as plain values, each by name (``columns``: the roles given, as a dict, or None), as a
        history record stores them. Code below the boundary hands on the value itself, never these."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["columns"] = {k: v for k, v in dataclasses.asdict(self.columns).items() if v is not None} or None
        return out


def option_names() -> tuple[str, ...]:
    """The names of the evaluation options, in signature order."""
    return tuple(f.name for f in dataclasses.fields(EvalOptions))


_COLUMN_ROLES = tuple(f.name for f in dataclasses.fields(Columns))


def _option_parameters() -> list[inspect.Parameter]:
    """The options as keyword-only parameters: the default each field declares, the type static tools see."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    types = typing.get_type_hints(EvalKeywords)
    return [
        inspect.Parameter(f.name, keyword, default=_keyword_default(f), annotation=types[f.name])
        for f in dataclasses.fields(EvalOptions)
    ]


def _options_doc(exclude=()) -> str:
    lines = ["", "    Evaluation options (keyword-only, the same for every evaluation call)", "    " + "-" * 68]
    for f in dataclasses.fields(EvalOptions):
        if f.name not in exclude:
            lines.append(f"    {f.name} : {f.metadata['kind']}")
            lines.append(f"        {f.metadata['doc']}")
    return "\n".join(lines) + "\n"


def unknown_keyword(caller: str, key: str, known) -> UnknownOptionError:
    if key == "per_query":
        return UnknownOptionError(
            f"{caller}() got an unexpected keyword argument 'per_query': it returns one mean per system. For one "
            "value per query use rankviz.evaluate(run, ['RR@10', ...], qrels, per_query=True) (df.rank.evaluate)."
        )
    if key in _COLUMN_ROLES:
        return UnknownOptionError(
            f"{caller}() got an unexpected keyword argument {key!r}. Column names go in one mapping: "
            f"columns={{{key!r}: 'your_column'}}."
        )
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return UnknownOptionError(f"{caller}() got an unexpected keyword argument {key!r}.{hint}")


def _column_hint(message: str) -> str:
    """For "multiple values for argument 'query'": say that query= is a value and columns= names the column."""
    for role in ("query", "system"):
        if f"multiple values for argument '{role}'" in message:
            return (
                f". Here {role}= is the {role} itself (a value); to name the {role} column use "
                f"columns={{{role!r}: 'your_column'}}"
            )
    return ""


def _positional_hint(message: str, caller: str, signature: inspect.Signature) -> str:
    """For too many positional arguments: data go by position, options by name (``mrr(run, qrels, k=10)``)."""
    if "positional argument" not in message:
        return ""
    data = [p.name for p in signature.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    data = [name for name in data if name != "self"]
    first_option = next((p for p in signature.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY), None)
    example = f", {first_option.name}=..." if first_option is not None else ""
    return (
        f". Only the data go by position ({', '.join(data)}); every option is keyword-only: "
        f"{caller}({', '.join(data)}{example})"
    )


# ----------------------------------------------------------------------------- typed option groups


class ListKeywords(TypedDict, total=False):
    """The options that read and judge a ranked list (what :func:`rankviz.stages` takes), as keywords."""

    rel: int | None
    duplicates: Literal["error", "first"]
    order: Literal["score", "rank"] | None
    score_dtype: Literal["float64", "float32"]
    columns: Mapping[str, str] | None


class TieFreeKeywords(ListKeywords, total=False):
    """The evaluation options but ``ties`` (:func:`rankviz.tie_report` computes every tie mode), as keywords."""

    depth: int | None
    missing: Literal["zero", "drop", "error"]
    judged_only: bool
    unannotated: Literal["drop", "zero"]


class EvalKeywords(TieFreeKeywords, total=False):
    """The evaluation options as keywords, for static tools: a public function declares ``**_: Unpack[EvalKeywords]``
    (mypy and pyright then see each option, its type, and refuse a misspelt one). Their defaults, checks and
    docs are those of :class:`EvalOptions` (``tests/test_typing_probe.py`` checks that the two agree)."""

    ties: Literal["trec_eval", "expected", "optimistic", "pessimistic"]


T_co = TypeVar("T_co", covariant=True)
A = TypeVar("A")
B = TypeVar("B")
P = ParamSpec("P")
R = TypeVar("R")


class OptionGroup(Protocol[T_co]):
    """A group of keyword-only options validated into one value (evaluation, statistics).

    ``parameters`` are the keyword-only parameters the group adds to a public signature (with their
    defaults); ``resolve`` validates the values given (the others take their defaults) into the value
    the function receives; ``doc`` is the numpydoc text of the parameters.
    """

    def parameters(self) -> list[inspect.Parameter]: ...

    def resolve(self, caller: str, values: dict[str, Any]) -> T_co: ...

    def doc(self) -> str: ...


@dataclasses.dataclass(frozen=True)
class EvalGroup:
    """The evaluation options as an :class:`OptionGroup` (``EVAL``; ``EVAL.without("ties")`` offers the others)."""

    exclude: tuple[str, ...] = ()

    def without(self, *names: str) -> EvalGroup:
        return EvalGroup(self.exclude + names)

    def parameters(self) -> list[inspect.Parameter]:
        return [p for p in _option_parameters() if p.name not in self.exclude]

    def resolve(self, caller: str, values: dict[str, Any]) -> EvalOptions:
        return EvalOptions.resolve(caller, **values)

    def doc(self) -> str:
        return _options_doc(self.exclude)


#: the evaluation options (every evaluation function takes them)
EVAL = EvalGroup()

#: every function made by :func:`with_options`, for the test that its explicit parameters agree with the groups
DECORATED: list[Callable[..., Any]] = []


@overload
def with_options(first: OptionGroup[A], /) -> Callable[[Callable[Concatenate[A, P], R]], Callable[P, R]]: ...


@overload
def with_options(
    first: OptionGroup[A], second: OptionGroup[B], /
) -> Callable[[Callable[Concatenate[A, B, P], R]], Callable[P, R]]: ...


def with_options(*groups: OptionGroup[Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a function the keyword-only options of ``groups`` (evaluation, statistics), validated once.

    The function takes each group's value first, by position (``def mrr(options: EvalOptions, run, qrels=None,
    *, k=None, **_: Unpack[EvalKeywords])``), and declares the groups' keywords for static tools with
    ``**_: Unpack[...]``. The function returned takes the other parameters, with the groups' options as
    keyword-only parameters in place of ``**_`` (what ``help()`` and Shift-Tab show, each with its default);
    its type is the function's without the leading values (mypy and pyright see every option and refuse an
    unknown one). Each call validates the options into the groups' values (messages name the function),
    refuses unknown keywords with the closest known one, opens a ``RetrievalLog``/``BeirData`` given as the
    run or qrels, and reads polars, pyarrow and ``datasets`` frames as pandas once. A ``**kwargs`` of the
    function that is not ``**_`` (the matplotlib keywords of a plot) receives the other keywords.
    """
    return functools.partial(_decorate, groups, 0)


S = TypeVar("S")


@overload
def with_method_options(
    first: OptionGroup[A], /
) -> Callable[[Callable[Concatenate[S, A, P], R]], Callable[Concatenate[S, P], R]]: ...


@overload
def with_method_options(
    first: OptionGroup[A], second: OptionGroup[B], /
) -> Callable[[Callable[Concatenate[S, A, B, P], R]], Callable[Concatenate[S, P], R]]: ...


def with_method_options(*groups: OptionGroup[Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """:func:`with_options` for a method: the groups' values come right after ``self``."""
    return functools.partial(_decorate, groups, 1)


def _decorate(groups: tuple[OptionGroup[Any], ...], leading: int, func: Callable[..., Any]) -> Callable[..., Any]:
    every = list(inspect.signature(func).parameters.values())
    own = every[:leading] + every[leading + len(groups) :]
    var_keyword = [p for p in own if p.kind is inspect.Parameter.VAR_KEYWORD and p.name != "_"]
    params = [p for p in own if p.kind is not inspect.Parameter.VAR_KEYWORD]
    positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    keyword_only = [p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    taken = {p.name for p in own}  # a parameter of the function's own (a plot's order=) shadows an option
    per_group = [[p for p in group.parameters() if p.name not in taken] for group in groups]
    extra = [p for ps in per_group for p in ps]
    signature = inspect.signature(func).replace(parameters=positional + keyword_only + extra + var_keyword)
    caller = func.__name__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for key in kwargs:
            if key not in signature.parameters and not var_keyword:
                raise unknown_keyword(caller, key, signature.parameters)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            hint = _column_hint(str(exc)) or _positional_hint(str(exc), caller, signature)
            raise UnknownOptionError(f"{caller}(): {exc}{hint}") from None
        values = []
        for group, ps in zip(groups, per_group):
            given = {p.name: bound.arguments.pop(p.name) for p in ps if p.name in bound.arguments}
            values.append(group.resolve(caller, {**{p.name: p.default for p in ps}, **given}))
        unpack_bundles(bound.arguments, signature.parameters, caller)  # read_jsonl's and read_beir's results
        for key, value in bound.arguments.items():  # polars, pyarrow, datasets: to pandas once, here
            if is_foreign_frame(value):
                bound.arguments[key] = as_pandas(value, key)
        args = bound.args
        return func(*args[:leading], *values, *args[leading:], **bound.kwargs)

    cast(Any, wrapper).__signature__ = signature  # read by inspect.signature (Shift-Tab)
    if func.__doc__:
        wrapper.__doc__ = func.__doc__.rstrip() + "\n" + "".join(group.doc() for group in groups)
    DECORATED.append(wrapper)
    return wrapper
