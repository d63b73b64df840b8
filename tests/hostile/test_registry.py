"""The registry is complete: every public name and CLI command is registered, and nothing registered is stale.

The public names are read from ``__all__`` at test time, so a name another branch adds
fails here until it is registered in ``registry.py`` (with a valid example, or as not
an entry point with the reason).
"""

from __future__ import annotations

import importlib
import re

import pytest

from .registry import NOT_ENTRY, PUBLIC_MODULES, REGISTRY, cli, entry_points, resolve


def public_names() -> set[str]:
    names = set()
    for module in PUBLIC_MODULES:
        mod = importlib.import_module(module)
        assert hasattr(mod, "__all__"), f"{module} has no __all__"
        names.update(f"{module}.{name}" for name in mod.__all__)
    return names


def cli_commands() -> set[str]:
    """The subcommands ``python -m rankviz --help`` lists (``{eval,report,...}``)."""
    code, out, err = cli(["--help"])
    assert code == 0, err
    found = re.search(r"\{([a-z,_-]+)\}", out)
    assert found, f"no subcommand list in the help:\n{out}"
    return {f"cli:{name}" for name in found.group(1).split(",")}


def _base(name: str) -> str:
    """``rankviz.evaluate[per_query]`` (a second example of one function) -> ``rankviz.evaluate``."""
    return name.split("[", 1)[0]


def _public_base(name: str) -> str:
    """The public name a registered name belongs to (a method ``...LabelStore.add`` -> ``...LabelStore``)."""
    base = _base(name)
    if base.startswith("cli:"):
        return base
    for module in sorted(PUBLIC_MODULES, key=len, reverse=True):
        if base.startswith(module + "."):
            return module + "." + base[len(module) + 1 :].split(".")[0]
    return base


def test_every_public_name_is_registered():
    registered = {_base(name) for name in REGISTRY}
    missing = sorted((public_names() | cli_commands()) - registered)
    assert not missing, (
        f"public names without a registry entry: {missing}. Register each in tests/hostile/registry.py "
        "with a valid example and its roles (or as not an entry point, with the reason)."
    )


def test_no_stale_registry_names():
    public = public_names() | cli_commands()
    stale = sorted({name for name in REGISTRY if _public_base(name) not in public})
    assert not stale, f"registered names that are no longer public: {stale}; remove them from the registry"
    for name in REGISTRY:
        if not name.startswith("cli:"):
            resolve(_base(name))  # a method or attribute that no longer exists raises here


def test_aliases_are_the_same_object():
    for entry in {id(e): e for e in REGISTRY.values()}.values():
        names = [_base(n) for n in (entry.name, *entry.aliases) if not n.startswith("cli:")]
        objects = {id(resolve(n)) for n in names}
        assert len(objects) <= 1, f"{names} are registered as one entry but are different objects"


def test_not_entry_points_say_why():
    for name, entry in REGISTRY.items():
        if not entry.is_entry_point:
            assert entry.roles == (NOT_ENTRY,) and entry.reason, name
            obj = resolve(name)
            callable_function = callable(obj) and not isinstance(obj, type)
            assert not callable_function, f"{name} is a function: register it with an example, not as {NOT_ENTRY}"


@pytest.mark.parametrize("entry", entry_points(), ids=lambda e: e.name)
def test_entries_have_roles_and_an_example(entry):
    assert entry.roles and entry.build is not None
    assert isinstance(entry.build(), dict)
