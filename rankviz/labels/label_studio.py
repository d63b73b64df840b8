"""Judgements from a Label Studio JSON export (the format of its "JSON" export: a list of tasks).

Each task is ``{"id": ..., "data": {...}, "annotations": [...]}``; each annotation
has ``result`` (a list of ``{"type": ..., "value": {...}}``), ``completed_by``
(a user id, or an object with an ``email``), ``was_cancelled`` and
``created_at``/``updated_at``. A grade comes from the first result holding
``choices`` (mapped through ``grades``, or a choice that is an integer itself),
``rating`` or ``number``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._errors import InputError

__all__ = ["label_studio_rows"]

_CALLER = "LabelStore.import_label_studio"


def _annotator(annotation: Mapping) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, Mapping):
        who = who.get("email") or who.get("id")
    return "label-studio" if who is None else (str(who) if "@" in str(who) else f"label-studio:{who}")


def _choice_grade(choice, grades: Mapping | None, where: str) -> int:
    if grades is not None and choice in grades:
        return int(grades[choice])
    try:
        return int(str(choice).strip())
    except ValueError:
        known = f" (grades= maps {', '.join(map(repr, grades))})" if grades else ""
        raise InputError(
            f"{_CALLER}: {where} chose {choice!r}, which is not a grade{known}. Pass grades={{{choice!r}: 1, ...}} "
            "mapping every choice label to a grade."
        ) from None


def _grade(annotation: Mapping, grades: Mapping | None, where: str) -> int | None:
    """The grade an annotation gives (None when it holds no choice, rating or number)."""
    for result in annotation.get("result") or []:
        value = result.get("value") if isinstance(result, Mapping) else None
        if not isinstance(value, Mapping):
            continue
        if value.get("choices"):
            return _choice_grade(value["choices"][0], grades, where)
        for key in ("rating", "number"):
            if isinstance(value.get(key), (int, float)) and float(value[key]).is_integer():
                return int(value[key])
    return None


def _ids(task: Mapping, query_key: str, doc_key: str, where: str) -> tuple[str, str]:
    data = task.get("data")
    if not isinstance(data, Mapping) or query_key not in data or doc_key not in data:
        found = sorted(data) if isinstance(data, Mapping) else []
        raise InputError(
            f"{_CALLER}: {where} has no {query_key!r} and {doc_key!r} in its data (it has {', '.join(map(repr, found)) or 'none'}). "
            "Name the keys that hold the query and document ids with query_key= and doc_key=."
        )
    return str(data[query_key]), str(data[doc_key])


def label_studio_rows(export, *, query_key: str, doc_key: str, grades: Mapping | None):
    """(query id, doc id, grade, annotator, time) for every completed annotation, in the order of their times.

    Raises
    ------
    rankviz.InputError
        For an export that is not a list of tasks, a task without the id keys, or a
        choice that is no grade.
    """
    if isinstance(export, Mapping):
        export = [export]
    if not isinstance(export, list) or not all(isinstance(task, Mapping) for task in export):
        raise InputError(
            f"{_CALLER}: expected Label Studio's JSON export, a list of tasks. Got {type(export).__name__} instead."
        )
    rows = []
    for number, task in enumerate(export):
        where = f"task {task.get('id', number)!r}"
        annotations = [a for a in task.get("annotations") or task.get("completions") or [] if isinstance(a, Mapping)]
        for annotation in annotations:
            if annotation.get("was_cancelled"):
                continue
            grade = _grade(annotation, grades, where)
            if grade is None:
                continue
            query_id, doc_id = _ids(task, query_key, doc_key, where)
            when = annotation.get("updated_at") or annotation.get("created_at") or ""
            rows.append((query_id, doc_id, grade, _annotator(annotation), str(when)))
    return sorted(rows, key=lambda row: row[4])
