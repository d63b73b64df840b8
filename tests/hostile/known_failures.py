"""Harness cases that fail today, as (entry, mutator) -> the reason and repro (marked ``xfail(strict=True)``).

When a fix lands the case passes, the strict xfail fails, and its line here must go. The
deterministic repros of the same classes are in ``test_known_failures.py``. The cases are
derandomized (the same examples every run), so a listed case fails the same way each time.
"""

from __future__ import annotations

_LABEL_STUDIO_FILE = (
    "a gzip/UTF-16/binary Label Studio export raises a raw UnicodeDecodeError; repro: "
    "test_known_failures.py::test_label_studio_foreign_file_is_a_rankviz_error"
)

KNOWN_FAILURES: dict[tuple[str, str], str] = {
    ("rankviz.labels.LabelStore.import_label_studio", "file_gzip"): _LABEL_STUDIO_FILE,
    ("rankviz.labels.LabelStore.import_label_studio", "json_duplicate_keys"): (
        "a repeated 'annotations' key in a task keeps the last in silence; repro: "
        "test_known_failures.py::test_label_studio_repeated_key_is_refused"
    ),
}
