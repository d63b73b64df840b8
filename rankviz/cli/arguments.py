"""What every ``rankviz`` command shares: argparse types, one-line errors, and the API's keywords as flags.

A message raised by the library names the API's keywords (``pass duplicates='first'``);
on the command line the same message must name the flag that does it
(``pass --duplicates first``): :func:`as_flags` rewrites them for the flags a command has.
"""

from __future__ import annotations

import argparse
import math
import re

__all__ = [
    "UsageError",
    "markdown_escape",
    "int_at_least",
    "integer",
    "non_negative_number",
    "one_line",
    "as_flags",
    "EVAL_FLAGS",
    "REPORT_FLAGS",
]


class UsageError(Exception):
    """A usage error found after argparse: printed like argparse's own, one line, exit 2."""


def integer(text: str, low: int) -> int:
    """``text`` as an integer >= ``low``, or argparse's type error saying which."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
    return value


def int_at_least(low: int):
    """An argparse type: an integer >= ``low``."""
    return lambda text: integer(text, low)


def non_negative_number(text: str) -> float:
    """An argparse type: a finite number >= 0 (``rankviz diff``'s --max-drop and --margin)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def one_line(exc: BaseException | str) -> str:
    """An exception (or a warning's message) as one line: its message, or for an OS error 'file: reason'."""
    if isinstance(exc, OSError) and exc.strerror:
        where = exc.filename if exc.filename is not None else ""
        return f"{where}: {exc.strerror}" if where else exc.strerror
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


#: the API keyword -> the flag of ``rankviz eval`` that sets it (a value follows the flag, except for -J)
EVAL_FLAGS = {
    "duplicates": "--duplicates",
    "missing": "--missing",
    "ties": "--ties",
    "depth": "-M",
    "rel": "-l",
    "judged_only": "-J",
}
#: the same for ``rankviz report``
REPORT_FLAGS = {"depth": "-M", "rel": "-l", "rng": "--seed", "n_resamples": "--n-resamples"}

_KEYWORD = re.compile(r"\b(?P<name>[a-z_]+)=(?:'(?P<quoted>[^']*)'|(?P<bare>[A-Za-z0-9_.+-]+))")


def as_flags(message: str, flags: dict[str, str]) -> str:
    """``message`` with each API keyword the command has a flag for written as that flag.

    >>> as_flags("pass duplicates='first' to keep one, or missing='drop'", EVAL_FLAGS)
    'pass --duplicates first to keep one, or --missing drop'
    >>> as_flags("judged_only=True drops them; RR(rel=2) keeps its own", EVAL_FLAGS)
    '-J drops them; RR(rel=2) keeps its own'
    """

    def flag(match: re.Match) -> str:
        name = match.group("name")
        start = match.start()
        if name not in flags or (start > 0 and message[start - 1] in "(,"):  # RR(rel=2): a measure's parameter
            return match.group(0)
        value = match.group("quoted") if match.group("quoted") is not None else match.group("bare")
        if name == "judged_only":
            return flags[name] if value == "True" else f"no {flags[name]}"
        return f"{flags[name]} {value}"

    return _KEYWORD.sub(flag, message)


_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character CommonMark lets one escape


def markdown_escape(text) -> str:
    """User text made literal in a markdown table cell: whitespace collapsed, every ASCII punctuation backslashed.

    Examples
    --------
    >>> markdown_escape("a|b <script>*x*</script>")
    'a\\\\|b \\\\<script\\\\>\\\\*x\\\\*\\\\<\\\\/script\\\\>'
    """
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))
