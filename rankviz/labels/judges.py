"""Judges: anything that grades (query text, document text) pairs, with a name and a configuration fingerprint.

A judge maps a batch of ``(query text, document text)`` pairs to one
:class:`Judgement` each: a grade on its scale, or no grade with the reason (an
unparsable answer, a timeout, an HTTP error). A failure is never turned into a
grade. Every judge carries

``name``
    What the store records as the judge (and, by default, the annotator).
``fingerprint``
    A hash of the configuration that decides the grades (the model, the prompt,
    the scale, the sampling settings; never an API key, a URL, a timeout or a
    concurrency): :func:`rankviz.labels.judge_pairs` skips the pairs a judge of the
    same name and fingerprint already graded, and a changed prompt is a new judge.
``scale``
    The grades it may give, sorted.

:func:`callable_judge` wraps a Python function (a cross-encoder's ``predict`` with
thresholds, a rule); :func:`rankviz.labels.llm_judge` speaks the
OpenAI-compatible chat-completions API.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .._errors import InputError

__all__ = ["Judgement", "Judge", "CallableJudge", "callable_judge", "check_scale", "config_fingerprint"]


@dataclass(frozen=True)
class Judgement:
    """A judge's answer for one pair: a grade, or no grade and the reason.

    Parameters
    ----------
    grade : int or None
        The grade on the judge's scale; None when the judge could not grade the pair.
    reason : str or None
        Why there is no grade (``"unparsable answer: ..."``, ``"timeout: ..."``,
        ``"HTTP 503: ..."``); the part before the first ``':'`` is its kind.
    raw : str or None
        The answer as it came (a model's text), kept with the grade or the failure.
    usage : dict
        Tokens the server reported (``prompt_tokens``, ``completion_tokens``,
        ``total_tokens``); empty when it reported none.
    requests : int
        HTTP requests this judgement took (retries included; 0 for a local function).

    Examples
    --------
    >>> from rankviz.labels import Judgement
    >>> Judgement(2).ok, Judgement(None, "timeout: after 60 s").failure_kind
    (True, 'timeout')
    """

    grade: int | None
    reason: str | None = None
    raw: str | None = None
    usage: Mapping[str, int] = field(default_factory=dict)
    requests: int = 0

    @property
    def ok(self) -> bool:
        """Whether the judgement is a grade."""
        return self.grade is not None

    @property
    def failure_kind(self) -> str | None:
        """The kind of failure (the reason up to its first ``':'``), None for a grade."""
        return None if self.reason is None else self.reason.split(":", 1)[0].strip()


def check_scale(scale, caller: str) -> tuple[int, ...]:
    """The grades of ``scale`` (a sequence of integers, or a mapping grade -> definition), sorted and distinct."""
    grades = list(scale.keys()) if isinstance(scale, Mapping) else scale
    if isinstance(grades, (str, bytes)) or not isinstance(grades, (Sequence, np.ndarray, set, frozenset, range)):
        raise InputError(
            f"{caller}: scale must be a list of integer grades, e.g. (0, 1, 2, 3), or {{grade: definition}}. "
            f"Got {scale!r} instead."
        )
    out = []
    for grade in grades:
        if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, numbers.Integral):
            raise InputError(
                f"{caller}: every grade of scale must be an integer, e.g. (0, 1, 2, 3). Got {grade!r} in {scale!r}."
            )
        out.append(int(grade))
    if len(out) < 2 or len(set(out)) != len(out):
        raise InputError(f"{caller}: scale must list at least two distinct grades, e.g. (0, 1, 2, 3). Got {scale!r}.")
    return tuple(sorted(out))


def config_fingerprint(config: Mapping) -> str:
    """A short hash (16 hex digits of SHA-256) of a JSON-serialisable configuration, independent of key order."""
    text = json.dumps(config, sort_keys=True, default=repr, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Judge:
    """The base of rankviz's judges: a name, a fingerprint, a scale, and a call on a batch of pairs.

    Subclasses implement ``__call__(pairs) -> list[Judgement]``. :meth:`stream`
    yields ``(index, Judgement)`` as each is ready (by default, batch by batch);
    :func:`rankviz.labels.judge_pairs` commits each as it arrives.

    Any object with ``name``, ``fingerprint``, ``scale`` and that call is a judge
    for :func:`~rankviz.labels.judge_pairs`; deriving from this class is not needed.

    Parameters
    ----------
    name : str
        The judge's name in the store.
    fingerprint : str
        A hash of the configuration that decides its grades
        (:func:`config_fingerprint` of a dict makes one).
    scale : sequence of int, default (0, 1, 2, 3)
        The grades it may give.

    Examples
    --------
    >>> from rankviz.labels import Judge, Judgement
    >>> class Always(Judge):
    ...     def __call__(self, pairs):
    ...         return [Judgement(1) for _ in pairs]
    >>> judge = Always("always-1", fingerprint="v1", scale=(0, 1))
    >>> [j.grade for j in judge([("red fox", "The fox ran.")])], judge.scale
    ([1], (0, 1))
    """

    name: str
    fingerprint: str
    scale: tuple[int, ...]
    #: pairs handed to one call by :meth:`stream`
    batch_size: int = 32

    def __init__(self, name: str, fingerprint: str, scale=(0, 1, 2, 3)):
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{type(self).__name__}: name must be a non-empty string. Got {name!r} instead.")
        self.name = name
        self.fingerprint = str(fingerprint)
        self.scale = check_scale(scale, type(self).__name__)

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:  # pragma: no cover - abstract
        raise NotImplementedError

    def stream(self, pairs: Sequence[tuple[str, str]]) -> Iterator[tuple[int, Judgement]]:
        """``(index into pairs, Judgement)`` for every pair, as the judgements are ready.

        Parameters
        ----------
        pairs : sequence of (str, str)
            ``(query text, document text)`` pairs.

        Yields
        ------
        (int, Judgement)
            The index of a pair in ``pairs`` and its judgement, in the order they are ready.

        Examples
        --------
        >>> from rankviz import labels
        >>> judge = labels.callable_judge(lambda pairs: [int(len(d) > 5) for q, d in pairs], name="long", scale=(0, 1))
        >>> [(i, j.grade) for i, j in judge.stream([("q", "short"), ("q", "a longer one")])]
        [(0, 0), (1, 1)]
        """
        for start in range(0, len(pairs), self.batch_size):
            batch = list(pairs[start : start + self.batch_size])
            results = self(batch)
            for offset, result in enumerate(results):
                yield start + offset, result


def _as_judgement(value, scale: tuple[int, ...], name: str, index: int) -> Judgement:
    if isinstance(value, Judgement):
        if value.grade is None:
            return value if value.reason else Judgement(None, "no grade: the function gave none", value.raw)
        grade = value.grade
    elif value is None or (isinstance(value, float) and np.isnan(value)):
        return Judgement(None, "no grade: the function gave none")
    else:
        grade = value
    if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, (numbers.Integral, float, np.floating)):
        raise InputError(
            f"callable_judge {name!r}: the function must give an integer grade on the scale {scale}, None or a "
            f"rankviz.labels.Judgement for each pair. Got {grade!r} for pair {index}."
        )
    if isinstance(grade, (float, np.floating)) and not float(grade).is_integer():
        raise InputError(
            f"callable_judge {name!r}: the function gave {grade!r} for pair {index}, which is not a grade on the scale "
            f"{scale}; map scores to grades with thresholds first (e.g. np.digitize(scores, [0.2, 0.5, 0.8]))."
        )
    if int(grade) not in scale:
        raise InputError(
            f"callable_judge {name!r}: the function gave the grade {int(grade)} for pair {index}, which is off the "
            f"scale {scale}. Fix the function (or its thresholds), or pass the scale it uses: scale=..."
        )
    raw = value.raw if isinstance(value, Judgement) else None
    return Judgement(int(grade), raw=raw)


class CallableJudge(Judge):
    """A Python function as a judge (see :func:`callable_judge`).

    Parameters
    ----------
    fn : callable
        Grades a list of ``(query text, document text)`` pairs: one grade, None or
        :class:`Judgement` per pair, in order.
    name : str
        The judge's name in the store.
    scale : sequence of int
        The grades the function may give.
    config : dict or None
        What decides the grades besides the function; part of the fingerprint.
    batch_size : int
        Pairs handed to one call of ``fn``.

    Examples
    --------
    >>> from rankviz import labels
    >>> judge = labels.callable_judge(lambda pairs: [1 for _ in pairs], name="yes", scale=(0, 1))
    >>> type(judge).__name__, judge.name, judge.scale
    ('CallableJudge', 'yes', (0, 1))
    """

    def __init__(self, fn: Callable, *, name: str, scale, config: Mapping | None, batch_size: int):
        self.fn = fn
        self.config = dict(config or {})
        self.batch_size = batch_size
        grades = check_scale(scale, "callable_judge")
        target = getattr(fn, "__func__", fn)
        described = f"{getattr(target, '__module__', '')}.{getattr(target, '__qualname__', type(fn).__qualname__)}"
        fingerprint = config_fingerprint(
            {"kind": "callable", "name": name, "function": described, "scale": grades, "config": self.config}
        )
        super().__init__(name, fingerprint, grades)

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        pairs = [(str(q), str(d)) for q, d in pairs]
        if not pairs:
            return []
        values = self.fn(pairs)
        if isinstance(values, np.ndarray):
            values = values.tolist()
        try:
            values = list(values)
        except TypeError:
            raise InputError(
                f"callable_judge {self.name!r}: the function must return one grade per pair (a list or array). "
                f"Got {type(values).__name__} instead."
            ) from None
        if len(values) != len(pairs):
            raise InputError(
                f"callable_judge {self.name!r}: the function returned {len(values)} grades for {len(pairs)} pairs; "
                "it must return one per pair, in order."
            )
        return [_as_judgement(value, self.scale, self.name, i) for i, value in enumerate(values)]

    def __repr__(self) -> str:
        return f"CallableJudge(name={self.name!r}, scale={self.scale}, fingerprint={self.fingerprint!r})"


def callable_judge(
    fn: Callable, *, name: str | None = None, scale=(0, 1, 2, 3), config: Mapping | None = None, batch_size: int = 32
) -> CallableJudge:
    """A judge from a Python function that grades a batch of (query text, document text) pairs.

    Parameters
    ----------
    fn : callable
        Called with a list of ``(query text, document text)`` tuples; returns one
        item per pair, in order: an integer grade on ``scale``, ``None`` (no grade:
        recorded as a failure) or a :class:`Judgement`. A cross-encoder's
        ``predict`` followed by thresholds (``np.digitize``) is the typical one.
    name : str, optional
        The judge's name in the store (default: the function's name).
    scale : sequence of int, default (0, 1, 2, 3)
        The grades the function may give.
    config : dict, optional
        Whatever decides the grades besides the function's name (a model name,
        the thresholds): it goes into the fingerprint, so changing it makes a new
        judge whose grades are asked for again.
    batch_size : int, default 32
        Pairs handed to one call of ``fn``.

    Returns
    -------
    CallableJudge
        With ``name``, ``fingerprint`` and ``scale``; calling it on pairs gives
        :class:`Judgement` objects.

    Raises
    ------
    rankviz.InputError
        When the function gives a grade off the scale, a fractional grade, or a
        number of grades other than the number of pairs: a broken function or
        threshold is a bug to fix, not a failure to record. Exceptions the function
        raises propagate (grades committed before stay in the store).

    Examples
    --------
    >>> from rankviz import labels
    >>> def overlap(pairs):  # a toy rule: 1 when the passage shares a word with the query
    ...     return [int(bool(set(q.lower().split()) & set(d.lower().split()))) for q, d in pairs]
    >>> judge = labels.callable_judge(overlap, scale=(0, 1), config={"rule": "word overlap"})
    >>> [j.grade for j in judge([("red fox", "The fox ran."), ("red fox", "Blue sky.")])]
    [1, 0]
    >>> judge.name, len(judge.fingerprint)
    ('overlap', 16)
    """
    if not callable(fn):
        raise InputError(f"callable_judge: fn must be a function of a list of (query, document) pairs. Got {fn!r}.")
    if name is None:
        name = getattr(fn, "__name__", None) or type(fn).__name__
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"callable_judge: name must be a non-empty string. Got {name!r} instead.")
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
        raise InputError(f"callable_judge: batch_size must be a positive integer. Got {batch_size!r} instead.")
    if config is not None and not isinstance(config, Mapping):
        raise InputError(f"callable_judge: config must be a dict. Got {type(config).__name__} instead.")
    return CallableJudge(fn, name=name, scale=scale, config=config, batch_size=int(batch_size))
