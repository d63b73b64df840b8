"""The package's layering, checked from its source with ``ast`` (see docs/architecture.md).

Every import in ``rankviz/`` (module-level or inside a function) must point to the
same layer or one below; there are no import cycles between modules; and no
private (underscore) name is imported from another module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rankviz

PACKAGE = Path(rankviz.__file__).parent

#: layer of each top-level module or subpackage, bottom (0) to top; the order docs/architecture.md states
LAYERS = {
    # foundation: errors, argument checks, column roles, options, hashing, memory
    "_errors": 0, "_validation": 0, "_columns": 0, "_options": 0, "_hashing": 0, "_memory": 0,
    # canonical data: input shapes -> flat arrays -> judged arrays; per-query tables
    "_codes": 1, "_frame": 1, "_ranks": 1, "_row_keys": 1, "_judged": 1, "_tables": 1,
    # measures: the registry of measure families and their kernels (numpy only)
    "measures": 2, "kernels": 2,
    # input: files and formats, the built-in example
    "io": 3, "_label_file": 3, "_trec_text": 3, "_trec_fast": 3, "_run_table": 3, "_topics": 3, "datasets": 3,
    # the evaluation pipeline every entry point shares
    "_pipeline": 4, "_resampling": 4,
    # analysis: evaluation tables, statistics and their result objects, ties
    "results": 5, "power": 5, "_inference": 5, "paired": 5, "stats": 5, "ties": 5, "summaries": 5, "evaluation": 5,
    # analysis: many systems at once (all-pairs tests, the significance table) and rank fusion
    "significance": 5, "multiple": 5, "fusion": 5,
    # analysis: labels (holes, bounds, the label store, agreement, stability)
    "labels": 5,
    # presentation: plots, widgets, reports, the command line
    "plots": 6, "widgets": 6, "report": 6, "report_sections": 6, "shared_html": 6, "cli": 6, "trec_output": 6,
    # presentation: the same evaluation on Dask DataFrames (optional extra; imported only as rankviz.dask)
    "dask": 6,
    # glue: the accessor and the package's public surface
    "accessor": 7, "__init__": 7, "__main__": 7,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _imports(name: str, path: Path, modules: dict[str, Path]):
    """(target module, imported names, line) for every import of a rankviz module in the file."""
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "rankviz":
                    yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "rankviz":
                continue
            names = [a.name for a in node.names]
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
            for sub in submodules:
                yield sub, [], node.lineno
            rest = [n for n in names if f"{target}.{n}" not in modules]
            if rest:
                yield target, rest, node.lineno


def _layer(module: str) -> int:
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    if key not in LAYERS:
        pytest.fail(f"rankviz.{key} has no layer: add it to LAYERS in {__file__} and to docs/architecture.md")
    return LAYERS[key]


def _graph():
    modules = _modules()
    edges = {}
    for name, path in modules.items():
        edges[name] = list(_imports(name, path, modules))
    return modules, edges


def test_no_import_goes_up_a_layer():
    _, edges = _graph()
    upward = [
        f"{src} (layer {_layer(src)}) imports {dst} (layer {_layer(dst)}) at line {line}"
        for src, targets in edges.items()
        for dst, _, line in targets
        if _layer(dst) > _layer(src)
    ]
    assert upward == [], upward


def test_no_private_name_crosses_a_module_boundary():
    _, edges = _graph()
    private = [
        f"{src} imports {name} from {dst} at line {line}"
        for src, targets in edges.items()
        for dst, names, line in targets
        for name in names
        if name.startswith("_") and dst != src
    ]
    assert private == [], private


def test_no_import_cycles():
    modules, edges = _graph()
    graph = {src: {dst for dst, _, _ in targets if dst in modules and dst != src} for src, targets in edges.items()}
    # A package's __init__ re-exporting its own submodules is not a cycle of the code's logic:
    # count edges from a submodule to its own package's __init__ as the violation they are, and
    # ignore the __init__ -> submodule direction for that check.
    cycles = []
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):
                continue  # a package importing its own submodules
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == [], cycles


def test_every_module_has_a_layer_and_the_checker_sees_imports():
    modules, edges = _graph()
    for name in modules:
        _layer(name)
    # the checker must see both module-level and function-level imports
    assert any(dst == "rankviz._pipeline" for dst, _, _ in edges["rankviz.evaluation"])
    assert any(dst == "rankviz.evaluation" for dst, _, _ in edges["rankviz.report"])


def test_module_and_function_sizes_stay_readable():
    """No module over 600 lines and no function over 80 lines of code (docstrings and comments aside)."""
    too_long = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 600:
            too_long.append(f"{name}: {len(text.splitlines())} lines")
        tree = ast.parse(text)
        lines = text.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                    body = body[1:]
                if not body:
                    continue
                code = [
                    ln for ln in lines[body[0].lineno - 1 : node.end_lineno]
                    if ln.strip() and not ln.strip().startswith("#")
                ]
                if len(code) > 80:
                    too_long.append(f"{name}.{node.name}: {len(code)} lines of code")
    assert too_long == [], too_long


def _print_graph(package: Path) -> None:
    """Print every module's rankviz imports (``python tests/test_architecture.py [path/to/rankviz]``)."""
    global PACKAGE
    PACKAGE = package
    modules, edges = _graph()
    for src in sorted(modules):
        targets = sorted({dst.removeprefix("rankviz.") for dst, _, _ in edges[src] if dst != src})
        lines = len(modules[src].read_text(encoding="utf-8").splitlines())
        print(f"{src.removeprefix('rankviz.') or '__init__'} ({lines} lines) -> {', '.join(targets) or '-'}")


if __name__ == "__main__":
    import sys

    _print_graph(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else PACKAGE)
