"""Check that every public function, class and method has a numpydoc docstring (``make lint``).

Walks ``rankviz.__all__``, the ``__all__`` of each public subpackage, the methods of the
``df.rank`` accessor and the public methods of every public class, and runs numpydoc's
validation on each with these checks:

* GL08 the object has a docstring (everything, properties included);
* PR01 every parameter is documented and PR02 no unknown one is (functions, methods,
  classes: a class documents its constructor's parameters, a dataclass its fields);
* RT01 a Returns section (functions and methods that return a value: numpydoc only
  asks it of code with a ``return <value>``);
* EX01 an Examples section (functions, methods and classes; not exceptions and
  warnings, which the user meets raised rather than builds).

A ``df.rank`` method is the module function bound to the frame, with that function's
docstring (``_core/methods.bound_method``): it is checked through the function.

Each failure prints as ``name: CODE message``. The script exits 1 when a failure is not
in the allowlist (``scripts/docstring_allowlist.txt``, one ``name CODE  # reason`` a
line, or ``name *  # reason`` for every code), and when an allowlist line matches no
failure any more (so the list only shrinks).

Run it with ``python scripts/check_docstrings.py``; ``--all`` also prints the allowed failures,
``--prune`` drops the allowlist lines that no longer match a failure.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import sys
import warnings
from pathlib import Path

from numpydoc.docscrape import get_doc_object
from numpydoc.validate import Validator, validate

ROOT = Path(__file__).resolve().parent.parent
ALLOWLIST = Path(__file__).resolve().parent / "docstring_allowlist.txt"

PACKAGES = [
    "rankviz",
    "rankviz.stats",
    "rankviz.io",
    "rankviz.plots",
    "rankviz.labels",
    "rankviz.fusion",
    "rankviz.widgets",
    "rankviz.report",
    "rankviz.measures",
    "rankviz.datasets",
    "rankviz.history",
]
FUNCTION_CHECKS = ("GL08", "PR01", "PR02", "RT01", "EX01")
CLASS_CHECKS = ("GL08", "PR01", "PR02", "EX01")
EXCEPTION_CHECKS = ("GL08", "PR01", "PR02")
PROPERTY_CHECKS = ("GL08",)


def _own_members(cls: type) -> dict[str, object]:
    """The public attributes ``cls`` and its rankviz base classes define (not object's, tuple's or pandas')."""
    members: dict[str, object] = {}
    for base in reversed(cls.__mro__):
        if base.__module__.split(".")[0] != "rankviz":
            continue
        for name, value in vars(base).items():
            if not name.startswith("_"):
                members[name] = value
    return members


def targets() -> list[tuple[str, tuple[str, ...]]]:
    """Every public object to check, as (importable dotted name, checks), each object once."""
    import rankviz  # noqa: F401 - registers df.rank

    found: list[tuple[str, tuple[str, ...]]] = []
    seen: set[int] = set()
    public_docs: set[str] = set()
    classes: list[tuple[str, type]] = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            if inspect.isclass(obj):
                seen.add(id(obj))
                checks = EXCEPTION_CHECKS if issubclass(obj, BaseException) else CLASS_CHECKS
                found.append((f"{package}.{name}", checks))
                classes.append((f"{package}.{name}", obj))
            elif inspect.isfunction(obj):
                seen.add(id(obj))
                found.append((f"{package}.{name}", FUNCTION_CHECKS))
                if obj.__doc__:
                    public_docs.add(obj.__doc__)
    from rankviz.accessor import RankAccessor

    if id(RankAccessor) not in seen:
        classes.append(("rankviz.accessor.RankAccessor", RankAccessor))
    for dotted, cls in classes:
        for name, value in sorted(_own_members(cls).items()):
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                found.append((f"{dotted}.{name}", PROPERTY_CHECKS))
            elif inspect.isfunction(value) or isinstance(value, functools.partialmethod):
                doc = getattr(value, "__doc__", None)
                if cls is RankAccessor and doc in public_docs:
                    continue  # a module function bound to the frame: checked as that function
                found.append((f"{dotted}.{name}", FUNCTION_CHECKS))
    return found


def failures() -> list[tuple[str, str, str]]:
    """(name, code, message) for each failed check."""
    result = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc's section-underline warnings; the checks below report what matters
        for name, checks in targets():
            try:
                report = validate(name)
            except Exception:  # a descriptor numpydoc cannot load by name: validate the object itself
                obj = Validator._load_obj(name)
                report = validate(get_doc_object(obj))
            for code, message in report["errors"]:
                if code in checks:
                    result.append((name, code, message))
    return result


def read_allowlist(path: Path | None = None) -> dict[tuple[str, str], str]:
    """``{(name, code): reason}`` from the allowlist; code ``*`` allows every code of the name."""
    path = ALLOWLIST if path is None else path
    allowed: dict[tuple[str, str], str] = {}
    if not path.exists():
        return allowed
    for number, line in enumerate(path.read_text().splitlines(), 1):
        entry, _, reason = line.partition("#")
        if not entry.strip():
            continue
        parts = entry.split()
        if len(parts) != 2 or not reason.strip():
            raise SystemExit(f"{path.name}:{number}: expected `name CODE  # reason`, got {line!r}")
        allowed[(parts[0], parts[1])] = reason.strip()
    return allowed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="also print the failures the allowlist allows")
    parser.add_argument(
        "--prune", action="store_true", help="remove the allowlist lines that no longer match a failure"
    )
    args = parser.parse_args(argv)
    allowed = read_allowlist()
    used: set[tuple[str, str]] = set()
    bad = 0
    for name, code, message in failures():
        key = (name, code) if (name, code) in allowed else (name, "*")
        if key in allowed:
            used.add(key)
            if args.all:
                print(f"{name}: {code} {message} (allowed: {allowed[key]})")
            continue
        bad += 1
        print(f"{name}: {code} {message}")
    stale = sorted(set(allowed) - used)
    if args.prune and stale:
        keep = [
            line for line in ALLOWLIST.read_text().splitlines() if tuple(line.partition("#")[0].split()) not in stale
        ]
        ALLOWLIST.write_text("\n".join(keep) + "\n")
        print(f"{ALLOWLIST.name}: removed {len(stale)} line(s) that no longer match a failure")
        stale = []
    for name, code in stale:
        print(f"{ALLOWLIST.name}: {name} {code} no longer fails; remove the line")
    print(f"docstrings: {bad} failure(s), {len(used)} allowed, {len(stale)} stale allowlist line(s)")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
