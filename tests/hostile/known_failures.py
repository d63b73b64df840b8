"""Harness cases that fail today, as (entry, mutator) -> the reason and repro (marked ``xfail(strict=True)``).

When a fix lands the case passes, the strict xfail fails, and its line here must go. The
deterministic repros of the same classes are in ``test_known_failures.py``. The cases are
derandomized (the same examples every run), so a listed case fails the same way each time.
"""

from __future__ import annotations

KNOWN_FAILURES: dict[tuple[str, str], str] = {}
