"""A model's answer read as a grade: the grade alone (``2``) or ``{"grade": 2}``, on the judge's scale.

:func:`parse_grade` is the public reader; :func:`parse_reply` is the same on a scale already checked, where a
reply's content that is not text counts as a failure (what :class:`~rankviz.labels.LLMJudge` records).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._core.checks import shown
from .._errors import InputError
from ..io.json_text import load_json
from .judges import check_scale

__all__ = ["parse_grade", "parse_reply"]

_INTEGER = re.compile(r"[+-]?\d{1,6}")


def parse_grade(text, scale: Sequence[int]) -> tuple[int | None, str | None]:
    """A model's answer read strictly: ``(grade, None)`` or ``(None, reason)``.

    The answer must be one integer on the scale (surrounding white space allowed),
    or the JSON object ``{"grade": n}``. Anything else (words around the number,
    two numbers, a fraction, an empty answer) is a failure, never a guess.

    Parameters
    ----------
    text : str
        The model's answer.
    scale : sequence of int
        The grades allowed.

    Returns
    -------
    (int or None, str or None)
        ``(grade, None)`` for a grade on the scale, else ``(None, reason)``.

    Examples
    --------
    >>> from rankviz.labels import parse_grade
    >>> parse_grade(" 2\\n", (0, 1, 2, 3)), parse_grade('{"grade": 3}', (0, 1, 2, 3))
    ((2, None), (3, None))
    >>> parse_grade("Grade: 2", (0, 1, 2, 3))
    (None, "unparsable answer: not a grade alone or {'grade': n}")
    >>> parse_grade("7", (0, 1, 2, 3))
    (None, 'off-scale grade: 7 is not on the scale (0, 1, 2, 3)')

    ``text`` must be a string (a model's answer; None reads as an empty answer) and ``scale``
    a list of distinct integer grades; anything else is refused with an :class:`~rankviz.InputError`.
    """
    if text is not None and not isinstance(text, str):
        raise InputError(
            f"parse_grade: 'text' must be the model's answer as a str (or None). Got {shown(text)} "
            f"({type(text).__name__}) instead; pass str(answer) if the number is meant as the answer."
        )
    return parse_reply(text, check_scale(scale, "parse_grade"))


def parse_reply(text, scale: tuple[int, ...]) -> tuple[int | None, str | None]:
    """:func:`parse_grade` on a checked scale; a reply's content that is not text (null, a number) is a failure."""
    if text is not None and not isinstance(text, str):
        return None, f"unparsable answer: the content is a {type(text).__name__}, not text"
    if text is None or not text.strip():
        return None, "unparsable answer: empty"
    answer = text.strip()
    if _INTEGER.fullmatch(answer):
        grade = int(answer)
    elif answer.startswith("{"):
        try:
            value = load_json(answer, "the answer", fix="not {'grade': n}")
        except InputError:  # nested too deeply
            return None, "unparsable answer: JSON nested too deeply"
        except ValueError:
            return None, "unparsable answer: broken JSON"
        if not isinstance(value, dict) or set(value) != {"grade"}:
            return None, "unparsable answer: JSON other than {'grade': n}"
        grade = value["grade"]
        if isinstance(grade, bool) or not isinstance(grade, int):
            return None, f"unparsable answer: the JSON grade {grade!r} is not an integer"
    else:
        return None, "unparsable answer: not a grade alone or {'grade': n}"
    if grade not in scale:
        return None, f"off-scale grade: {grade} is not on the scale {tuple(scale)}"
    return grade, None
