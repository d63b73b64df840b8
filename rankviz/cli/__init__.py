"""Command line: ``rankviz eval``, ``rankviz report`` and ``rankviz notebooks`` (also ``python -m rankviz``).

A bad input never ends in a traceback: every option is checked when the command
line is parsed, files when they are read, and any error is one line on stderr,
``rankviz <command>: error: ...``, with exit status 2. A notebook that fails while
it runs is one line too, with exit status 1. Warnings (comment lines skipped, ...)
are one line each, ``rankviz <command>: warning: ...``.
"""

from .commands import main, trec_name

__all__ = ["main", "trec_name"]
