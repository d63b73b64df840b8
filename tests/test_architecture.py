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

#: the layers, bottom to top: each is a list of the top-level folders (or modules) of ``rankviz/`` in it.
#: A module's layer is the layer of its top-level folder; docs/architecture.md's table lists the same.
LAYER_FOLDERS = [
    ["_errors"],  # foundation: the error and warning types
    ["_core"],  # canonical data: columns, options, checks; input shapes -> flat arrays -> judged arrays
    ["measures"],  # the registry of measure families, their kernels and the dispatcher (numpy only)
    ["io", "datasets"],  # files and formats in and out; the built-in example
    ["stats"],  # statistics over per-query tables and their result objects
    ["evaluation"],  # the pipeline every entry point shares, the public evaluation functions, ties
    ["fusion", "labels"],  # what works on evaluations: rank fusion and its tuning; the labels (holes, store, agreement)
    ["plots", "widgets", "report"],  # presentation
    ["history"],  # evaluations over time: the history file, comparisons across records, the trend, the gate
    ["cli", "dask"],  # the command line; the evaluation on Dask DataFrames (optional extra)
    ["accessor", "__init__", "__main__"],  # glue: df.rank, the package surface
]
LAYERS = {folder: level for level, folders in enumerate(LAYER_FOLDERS) for folder in folders}
#: top-level modules that are not a layer's package, beside __init__, __main__, accessor and cli/evaluation
LOOSE_MODULES = {"_errors"}


def _top_level_entries() -> set[str]:
    entries = {p.stem for p in PACKAGE.glob("*.py")}
    entries |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    return entries


def test_every_top_level_entry_is_a_layer_folder():
    assert _top_level_entries() == set(LAYERS), "every top-level folder or module is in LAYER_FOLDERS, and only those"
    loose = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__", "accessor"}
    assert loose == LOOSE_MODULES, f"top-level modules outside a layer folder: {sorted(loose)}"


def test_the_architecture_page_lists_the_layer_folders_in_order():
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = [line for line in doc.splitlines() if line.startswith("| ") and "`" in line.split("|")[2]]
    listed = [[name.strip("`/ ") for name in row.split("|")[2].split(",")] for row in rows]
    assert listed[::-1] == LAYER_FOLDERS


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
        pytest.fail(
            f"rankviz.{key} has no layer: add its folder to LAYER_FOLDERS in {__file__} and to docs/architecture.md"
        )
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
                cycles.append(" -> ".join(stack[stack.index(nxt) :] + [nxt]))
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
    assert any(dst == "rankviz.evaluation.pipeline" for dst, _, _ in edges["rankviz.evaluation.api"])
    assert any(dst == "rankviz.evaluation" for dst, _, _ in edges["rankviz.report.build"])


def test_module_and_function_sizes_stay_readable():
    """No module over 500 lines and no function over 80 lines of code (docstrings and comments aside)."""
    too_long = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 500:
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
                    ln
                    for ln in lines[body[0].lineno - 1 : node.end_lineno]
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
