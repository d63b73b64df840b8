"""Documentation that runs: the README's Python blocks and the docstring examples."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import warnings

import matplotlib
import pytest

import rankviz
from tests.conftest import ROOT

matplotlib.use("Agg")

# Every module of the package, so that a new module's examples run without being listed here
# (the plots and widgets packages included; __main__ would run the command line).
MODULES = sorted(m.name for m in pkgutil.walk_packages(rankviz.__path__, "rankviz.") if m.name != "rankviz.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.RankvizWarning)
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_readme_python_blocks_run():
    blocks = _python_blocks((ROOT / "README.md").read_text())
    assert len(blocks) >= 2
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.RankvizWarning)
        for block in blocks:
            exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own documentation
    assert round(namespace["seed"].rank.mrr(), 4) == 0.55


def test_readme_gives_exactly_two_setup_commands():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up and run", 1)[1].split("##", 1)[0]
    commands = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)[0].strip().splitlines()
    assert [c.split("#")[0].strip() for c in commands] == ["make notebooks", "make test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci
