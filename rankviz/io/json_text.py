"""JSON text users hand in, parsed in one place: nesting too deep for Python's parser is a rankviz error.

Python's ``json`` recurses once per level of nesting, so ten thousand ``[`` raise a
``RecursionError`` (not a ``ValueError``) from deep inside the parser. Every reader of
user JSON (JSON-lines logs, BEIR files, Label Studio exports, a model's grade) parses
through :func:`load_json`, which turns it into the reader's error naming the file (and
line) and what the file should hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .._errors import InputError, TrecFormatError

__all__ = ["load_json"]


def load_json(
    text: str | bytes,
    where: str,
    *,
    fix: str,
    object_pairs_hook: Callable[[list], Any] | None = None,
    error: type[InputError] = TrecFormatError,
) -> Any:
    """``json.loads(text)``; JSON nested too deeply to parse is ``error`` naming ``where`` and the ``fix``.

    Other problems (not JSON, a repeated key refused by ``object_pairs_hook``) raise the
    ``ValueError`` they raise, for the caller to word.

    Examples
    --------
    >>> load_json('{"a": [1]}', "x.json, line 1", fix="one flat object per line")
    {'a': [1]}
    >>> try:
    ...     load_json("[" * 100_000 + "]" * 100_000, "x.json, line 1", fix="one flat object per line")
    ... except TrecFormatError as exc:
    ...     print(exc)
    x.json, line 1: the JSON is nested too deeply to read (thousands of levels); one flat object per line.
    """
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        raise error(f"{where}: the JSON is nested too deeply to read (thousands of levels); {fix}.") from None
