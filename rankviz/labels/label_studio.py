"""Judgements from a Label Studio JSON export (the format of its "JSON" export: a list of tasks).

Each task is ``{"id": ..., "data": {...}, "annotations": [...]}``; each annotation
has ``result`` (a list of ``{"type": ..., "value": {...}}``), ``completed_by``
(a user id, or an object with an ``email``), ``was_cancelled`` and
``created_at``/``updated_at``. A grade comes from the first result holding
``choices`` (one choice, mapped through ``grades``, or a choice that is an integer
itself), ``rating`` or ``number``.

Every row passes the checks of :meth:`rankviz.labels.LabelStore.add` (through
:func:`rankviz.io.label_file.check_text` and :func:`~rankviz.io.label_file.check_grade`):
ids are non-empty strings (or ints), grades integers of magnitude at most 2**53, so
a grade mapping of 1.7, a null or list id or a rating of 2**60 is refused, naming the
task. Times are read as ISO 8601 instants (a time without an offset is UTC) and
compared as instants, so the latest annotation wins whatever offsets the export uses.
"""

from __future__ import annotations

import bz2
import datetime
import gzip
import json
import lzma
import os
from collections.abc import Mapping

from .._core.checks import shown
from .._errors import InputError, RankvizWarning, warn
from ..io.json_text import load_json
from ..io.label_file import check_grade, check_text

__all__ = ["label_studio_rows", "read_label_studio"]

_CALLER = "LabelStore.import_label_studio"
_COMPRESSED = ((b"\x1f\x8b", "gzip", gzip.decompress), (b"BZh", "bzip2", bz2.decompress),
               (b"\xfd7zXZ\x00", "xz", lzma.decompress))  # fmt: skip
_FIX = "export the project from Label Studio as 'JSON' (Export > JSON) and pass that file"


class _RepeatedKey(ValueError):
    def __init__(self, key: str, near: str):
        super().__init__(key)
        self.key, self.near = key, near


def _no_repeated_keys(pairs: list) -> dict:
    """``json.loads``' object hook: a dict, or _RepeatedKey when a key appears twice in one object."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            near = ", ".join(f"{k}={shown(v)}" for k, v in pairs if k in ("id", "data") or k == key)[:120]
            raise _RepeatedKey(key, near)
        out[key] = value
    return out


def read_label_studio(path) -> list:
    """The parsed tasks of an export file (UTF-8 JSON), or an InputError saying what the file is instead."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InputError(
            f"{_CALLER}: cannot read {name!r} ({error.strerror or error}); give the export's path."
        ) from None
    for magic, kind, decompress in _COMPRESSED:  # a compressed export is read as its content (as the run readers do)
        if data.startswith(magic):
            try:
                data = decompress(data)
            except (OSError, EOFError, ValueError) as error:
                raise InputError(f"{_CALLER}: {name!r} is damaged {kind} data ({error}); {_FIX}.") from None
            break
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) > 1 and (data[0] == 0 or data[1] == 0)):
        raise InputError(f"{_CALLER}: {name!r} is UTF-16 text, not UTF-8 JSON; {_FIX}, or convert it to UTF-8.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{_CALLER}: {name!r} is not UTF-8 text (byte {error.start} is {data[error.start]:#04x}): a binary or "
            f"differently encoded file; {_FIX}."
        ) from None
    try:
        where, fix = f"{_CALLER}: {name!r}", f"it is no Label Studio export: {_FIX}"
        return load_json(text, where, fix=fix, object_pairs_hook=_no_repeated_keys, error=InputError)
    except _RepeatedKey as repeated:
        raise InputError(
            f"{_CALLER}: {name!r} repeats the key {repeated.key!r} in one object (near {repeated.near}); JSON "
            f"readers keep one of the two in silence, so which annotation counts would be a guess. {_FIX}."
        ) from None
    except json.JSONDecodeError as error:
        raise InputError(f"{_CALLER}: {name!r} is not JSON ({error}); {_FIX}.") from None


def _annotator(annotation: Mapping, where: str) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, Mapping):
        who = who.get("email") or who.get("id")
    if who is None:
        return "label-studio"
    who = check_text(who, "completed_by", f"{_CALLER} ({where})")  # a user id or an email, never a list's repr
    return who if "@" in who else f"label-studio:{who}"


def _choice_grade(choice, grades: Mapping | None, where: str) -> int:
    if isinstance(choice, (Mapping, list, tuple, set)):
        raise InputError(
            f"{_CALLER}: {where} chose {shown(choice)}, a {type(choice).__name__}, not a choice label; each choice is a "
            "string (Label Studio's Choices tag), mapped to a grade with grades=."
        )
    if grades is not None and choice in grades:
        return check_grade(grades[choice], _CALLER, name=f"grades[{choice!r}]")
    try:
        number = int(str(choice).strip())
    except ValueError:
        known = f" (grades= maps {', '.join(map(repr, grades))})" if grades else ""
        raise InputError(
            f"{_CALLER}: {where} chose {choice!r}, which is not a grade{known}. Pass grades={{{choice!r}: 1, ...}} "
            "mapping every choice label to a grade."
        ) from None
    return check_grade(number, f"{_CALLER} ({where})", name="choice")


def _choices(value, where: str) -> list:
    choices = value["choices"]
    if isinstance(choices, (str, int)) and not isinstance(choices, bool):
        return [choices]  # one choice given bare
    if not isinstance(choices, list):
        raise InputError(
            f"{_CALLER}: {where} has 'choices' {shown(choices)}, a {type(choices).__name__}; Label Studio writes a "
            "list of choice labels (['Relevant']). Correct the export, or re-export it as 'JSON'."
        )
    if len(choices) > 1:
        raise InputError(
            f"{_CALLER}: {where} chose several labels {shown(choices)}; a grade is one choice. Make the Choices tag "
            'single-choice (choice="single") and re-export, or keep one choice per annotation.'
        )
    return choices


def _wrong_type(where: str, field: str, value, wanted: str) -> InputError:
    return InputError(
        f"{_CALLER}: {where} has {field!r} = {shown(value)} (type {type(value).__name__}); Label Studio writes "
        f"{wanted} there. Correct that task, or re-export the project as 'JSON' (Export > JSON)."
    )


def _annotations(task: Mapping, number: int, where: str) -> list:
    """The task's annotations (``completions`` in old exports); a field of the wrong type is refused, not skipped."""
    where = f"{where} (index {number} of the export)"
    found = []
    for field in ("annotations", "completions"):
        if field not in task:
            continue
        annotations = task[field]
        if not isinstance(annotations, list):
            raise _wrong_type(where, field, annotations, "a list of annotation objects")
        for i, annotation in enumerate(annotations):
            if not isinstance(annotation, Mapping):
                raise _wrong_type(where, f"{field}[{i}]", annotation, "an annotation object")
        found.append(annotations)
    return next((annotations for annotations in found if annotations), [])


def _cancelled(annotation: Mapping, where: str) -> bool:
    cancelled = annotation.get("was_cancelled")
    if cancelled is not None and not isinstance(cancelled, bool):
        raise _wrong_type(where, "was_cancelled", cancelled, "true or false")
    return bool(cancelled)


def _grade(annotation: Mapping, grades: Mapping | None, where: str) -> int | None:
    """The grade an annotation gives (None when it holds no choice, rating or number)."""
    results = annotation.get("result")
    if results is None:
        return None
    if not isinstance(results, list):
        raise _wrong_type(where, "result", results, "a list of results")
    for result in results:
        if not isinstance(result, Mapping):
            raise _wrong_type(where, "result item", result, "a result object ({'type': ..., 'value': {...}})")
        value = result.get("value")
        if value is None:
            continue  # a result without a value (a relation): no grade
        if not isinstance(value, Mapping):
            raise _wrong_type(where, "value", value, "an object ({'choices': [...]})")
        if value.get("choices") not in (None, [], ""):
            choices = _choices(value, where)
            return _choice_grade(choices[0], grades, where)
        for key in ("rating", "number"):
            if value.get(key) is not None:
                return check_grade(value[key], f"{_CALLER} ({where})", name=key)
    return None


def _ids(task: Mapping, query_key: str, doc_key: str, where: str) -> tuple[str, str]:
    data = task.get("data")
    if not isinstance(data, Mapping) or query_key not in data or doc_key not in data:
        found = sorted(map(str, data)) if isinstance(data, Mapping) else []
        raise InputError(
            f"{_CALLER}: {where} has no {query_key!r} and {doc_key!r} in its data (it has {', '.join(map(repr, found)) or 'none'}). "
            "Name the keys that hold the query and document ids with query_key= and doc_key=."
        )
    caller = f"{_CALLER} ({where}, data)"
    return check_text(data[query_key], query_key, caller), check_text(data[doc_key], doc_key, caller)


def _instant(annotation: Mapping, where: str) -> datetime.datetime | None:
    """The annotation's time as a UTC instant (``updated_at``, else ``created_at``; a time without offset is UTC)."""
    when = annotation.get("updated_at") or annotation.get("created_at")
    if when is None or when == "":
        return None
    try:
        instant = datetime.datetime.fromisoformat(str(when).strip())
    except ValueError:
        raise InputError(
            f"{_CALLER}: {where} has the time {shown(when)}, which is not an ISO 8601 time "
            "('2024-01-31T10:00:00Z'); correct it or remove updated_at/created_at from that annotation."
        ) from None
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=datetime.UTC)
    return instant.astimezone(datetime.UTC)


def label_studio_rows(export, *, query_key: str, doc_key: str, grades: Mapping | None):
    """(query id, doc id, grade, annotator, time) for every completed annotation, oldest first.

    ``time`` is the annotation's UTC instant in ISO 8601 (``...+00:00``), or ``""``
    when it has none (such annotations come first, in the export's order).

    Raises
    ------
    rankviz.InputError
        For an export that is not a list of tasks, a task without the id keys, an id or
        a grade that :meth:`rankviz.labels.LabelStore.add` would refuse, a choice that
        is no grade, a time that is not ISO 8601, or a field of the wrong JSON type
        (``annotations`` or ``result`` not a list, an annotation not an object,
        ``was_cancelled`` not a boolean), naming the task and the field.

    Warns
    -----
    RankvizWarning
        Once, with their counts, for tasks that give no judgement (no annotation, only
        cancelled ones, or none with a grade) and annotations without a grade.
    """
    if isinstance(export, Mapping):
        export = [export]
    if not isinstance(export, list) or not all(isinstance(task, Mapping) for task in export):
        raise InputError(
            f"{_CALLER}: expected Label Studio's JSON export, a list of tasks. Got {type(export).__name__} instead."
        )
    if grades is not None and not isinstance(grades, Mapping):
        raise InputError(
            f"The 'grades' parameter of {_CALLER} must be a dict from choice label to grade "
            f"({{'Relevant': 1, 'Not relevant': 0}}). Got {shown(grades)} instead."
        )
    rows: list[tuple] = []
    unlabelled: list[str] = []  # tasks that give no row, and annotations without a grade
    ungraded: list[str] = []
    for number, task in enumerate(export):
        where = f"task {shown(task.get('id', number))}"
        before = len(rows)
        for annotation in _annotations(task, number, where):
            if _cancelled(annotation, where):
                continue
            grade = _grade(annotation, grades, where)
            if grade is None:
                ungraded.append(where)
                continue
            query_id, doc_id = _ids(task, query_key, doc_key, where)
            rows.append((query_id, doc_id, grade, _annotator(annotation, where), _instant(annotation, where)))
        if len(rows) == before:
            unlabelled.append(where)
    if unlabelled or ungraded:  # not imported: fewer judgements than tasks, said once
        parts = [f"{len(unlabelled)} task(s) have no graded annotation that is not cancelled (the first: "
                 f"{unlabelled[0]})"] if unlabelled else []  # fmt: skip
        if ungraded:
            parts.append(f"{len(ungraded)} annotation(s) hold no grade (no choices, rating or number; the first in "
                         f"{ungraded[0]})")  # fmt: skip
        warn(f"{_CALLER}: {' and '.join(parts)}; they are not imported. Label those tasks, or pass an export of "
             "the labelled tasks only to silence this.", RankvizWarning)  # fmt: skip
    minimum = datetime.datetime.min.replace(tzinfo=datetime.UTC)
    rows.sort(key=lambda row: minimum if row[4] is None else row[4])
    return [(*row[:4], "" if row[4] is None else row[4].isoformat(timespec="microseconds")) for row in rows]
