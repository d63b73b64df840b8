"""Writing an entry's file inputs to disk, calling it, and checking what came out."""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .data import FileInput, render


def write_files(inputs: dict, tmp: Path, written: dict | None = None) -> dict:
    """``inputs`` with every :class:`FileInput` (also inside lists) replaced by the path of its rendering.

    ``written`` (when given) receives path -> bytes of every file written, to check that the call left them alone.
    """
    written = {} if written is None else written

    def write(spec: FileInput) -> str:
        rendered = render(spec)
        target = tmp / spec.name
        if isinstance(rendered, dict):
            target.mkdir(parents=True, exist_ok=True)
            for name, content in rendered.items():
                if spec.damage is not None and (spec.damage_file is None or spec.damage_file == name):
                    content = spec.damage(content)
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                (target / name).write_bytes(content)
                written[str(target / name)] = content
        else:
            if spec.damage is not None:
                rendered = spec.damage(rendered)
            target.write_bytes(rendered)
            written[str(target)] = rendered
        return str(target)

    def walk(value: Any) -> Any:
        if isinstance(value, FileInput):
            return write(value)
        if isinstance(value, list) and any(isinstance(v, FileInput) for v in value):
            return [walk(v) for v in value]
        return value

    return {key: walk(value) for key, value in inputs.items()}


# ---------------------------------------------------------------------------------------------- sameness


def same(a: Any, b: Any) -> bool:
    """Deep equality for the inputs' values (frames by values, dtypes and index; NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, pd.DataFrame):
        return a.shape == b.shape and list(a.columns) == list(b.columns) and a.dtypes.equals(b.dtypes) and a.equals(b)
    if isinstance(a, pd.Series):
        return a.dtype == b.dtype and a.index.equals(b.index) and a.equals(b)
    if isinstance(a, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype == object:
            return all(same(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
        return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, FileInput):
        return same(a.obj, b.obj)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    try:
        return bool(a == b)
    except Exception:  # pd.NA == pd.NA, objects without equality
        return a is b or repr(a) == repr(b)


def snapshot(inputs: dict) -> dict:
    return copy.deepcopy(inputs)


# ---------------------------------------------------------------------------------------------- fingerprints

_ID_NAMES = {
    "query_id",
    "doc_id",
    "system",
    "qid",
    "docid",
    "query",
    "doc",
    "baseline",
    "other",
    "n_queries_id",
    "dataset",
}


#: query attributes that the segment mutators rename (``kind`` of a queries frame, ``topic`` of a JSONL log): a
#: reader hands them back as given (numbers when renamed to numbers), so they are labels, not numbers computed
_ATTRIBUTE_NAMES = {"kind", "topic"}


def _numbers_of_frame(frame: pd.DataFrame) -> list:
    out = []
    for name in frame.columns:
        column = frame[name]
        if isinstance(column, pd.DataFrame):  # duplicated column names
            continue
        if str(name).lower() in _ID_NAMES | _ATTRIBUTE_NAMES or str(name).endswith("_id"):
            continue
        try:
            kind = column.dtype.kind
        except AttributeError:
            continue
        if kind in "fiub":
            out.extend(pd.to_numeric(column, errors="coerce").astype("float64").tolist())
    return out


def numbers(value: Any, depth: int = 0) -> list | None:
    """The numbers a result holds (not its labels), as a flat list; None for results without numbers to compare."""
    if depth > 6:
        return []
    type_name = type(value).__module__ + "." + type(value).__name__
    if type_name.startswith(("matplotlib.", "ipywidgets.")) or "widgets" in type_name:
        return None
    if value is None or isinstance(value, (str, bytes)):
        return []
    if isinstance(value, (bool, np.bool_)):
        return [float(value)]
    if isinstance(value, (int, float, np.integer, np.floating)):
        return [float(value)]
    if isinstance(value, pd.DataFrame):
        return _numbers_of_frame(value)
    if isinstance(value, pd.Series):
        if str(value.name).endswith("_id") or value.dtype.kind not in "fiub":
            return []
        return value.astype("float64").tolist()
    if isinstance(value, np.ndarray):
        return value.astype("float64").ravel().tolist() if value.dtype.kind in "fiub" else []
    if isinstance(value, dict):
        out: list = []
        for v in value.values():
            out.extend(numbers(v, depth + 1) or [])
        return out
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(numbers(v, depth + 1) or [])
        return out
    if hasattr(value, "to_frame") and callable(value.to_frame):
        try:
            return numbers(value.to_frame(), depth + 1)
        except Exception:
            pass
    if dataclasses.is_dataclass(value):
        return numbers([getattr(value, f.name) for f in dataclasses.fields(value)], depth + 1)
    if hasattr(value, "__dict__"):
        return numbers({k: v for k, v in vars(value).items() if not k.startswith("_")}, depth + 1)
    return []


def fingerprint(result: Any, *, cli_text: bool = False) -> Any:
    """What must not change under a value-equivalent mutation: the sorted numbers (rounded), or None."""
    if cli_text:  # (exit status, stdout, ...): the status and the numbers printed, as text
        code, out = result[0], result[1]
        # the measures as printed (4 decimals, as trec_eval); not ids such as '1.0' that a table may show
        # the sign of a printed zero follows float noise (the order of a sum): '+0.0000', '-0.0000' and '0.0000' agree
        printed = re.findall(r"(?<![\w.])[+-]?\d+\.\d{4}(?![\w.])", out)
        return code, sorted("0.0000" if p.lstrip("+-") == "0.0000" else p.lstrip("+") for p in printed)
    found = numbers(result)
    if found is None:
        return None
    return sorted(((1, 0.0) if math.isnan(x) else (0, round(x, 9) + 0.0)) for x in found)


def catch(call, *args):
    """(result, exception, rankviz warnings) of ``call(*args)``."""
    from rankviz import RankvizWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = call(*args), None
        except BaseException as exc:  # noqa: BLE001 - the harness classifies whatever comes out
            if isinstance(exc, KeyboardInterrupt):
                raise
            result, error = None, exc
    flagged = [w for w in caught if issubclass(w.category, RankvizWarning)]
    return result, error, flagged


def in_child(fn, *args, timeout: float = 120.0) -> None:
    """Run ``fn(*args)`` in a forked child: a crash (a signal), a hang or an OOM kill fails the test, not pytest.

    An AssertionError in the child is raised again here with its message; any other exception too,
    with its traceback as text.
    """
    import os
    import select
    import signal
    import time
    import traceback

    if not hasattr(os, "fork"):  # Windows: no isolation (a crash would end the session)
        fn(*args)
        return
    import gc

    read_end, write_end = os.pipe()
    gc.freeze()  # the child's collections then skip the parent's objects (no copy-on-write of the whole heap)
    pid = os.fork()
    if pid != 0:
        gc.unfreeze()
    if pid == 0:  # the child: run, report, leave without running the parent's exit handlers
        import faulthandler

        faulthandler.disable()  # a crash is reported by the parent, without the child's thread dump
        os.close(read_end)
        try:
            fn(*args)
            message = b"ok"
        except AssertionError as exc:
            message = b"F" + str(exc).encode("utf-8", "replace")
        except BaseException:  # noqa: BLE001 - reported to the parent
            message = b"E" + traceback.format_exc().encode("utf-8", "replace")
        try:
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(message)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([pipe], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise AssertionError(f"hung: no outcome after {timeout:.0f} s")
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    message = b"".join(chunks)
    if os.WIFSIGNALED(status):
        raise AssertionError(
            f"the process crashed with signal {os.WTERMSIG(status)} ({signal.Signals(os.WTERMSIG(status)).name})"
        )
    if message == b"ok":
        return
    if not message:
        raise AssertionError(f"the process died without an outcome (exit status {os.WEXITSTATUS(status)})")
    text = message[1:].decode("utf-8", "replace")
    raise AssertionError(text if message[:1] == b"F" else f"the harness itself failed:\n{text}")
