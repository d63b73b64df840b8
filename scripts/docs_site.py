"""MkDocs hooks and griffe extensions of the documentation site (``mkdocs.yml``; ``make docs`` builds it).

What the site needs beyond the Markdown files of ``docs/`` (the hooks):

- ``cli.md``: the command-line reference, argparse's own help of ``rankviz`` and of each
  subcommand (what ``rankviz eval -h`` prints, through the public ``rankviz.cli.main``), so it
  cannot drift from the parser;
- ``api/index.md``: every name of ``rankviz.__all__`` by kind, with its summary line, linked to its entry;
- ``gallery/``: one entry per notebook (its title and question, read from the ``.ipynb``)
  linking to its rendered HTML, copied from ``build/`` (``make notebooks``) or from the
  folder named by ``$RANKVIZ_NOTEBOOKS_HTML``; a notebook without its HTML fails the build;
- ``benchmarks.md`` and ``changelog.md``: ``benchmarks/RESULTS.md`` and ``CHANGELOG.md`` (with a lower
  search weight, so that a search finds the API entry first),
  which live outside ``docs/``; links from ``docs/`` to them (``../benchmarks/RESULTS.md``,
  which work on a repository browser) are pointed at those pages;
- Sphinx roles in docstrings (``:func:`rankviz.evaluate```) become links where the target
  has an entry, code otherwise;
- the API pages follow ``__all__`` at build time, so a new public name never needs a list
  edited: a page of ``docs/api/`` lists names in the order a reader wants (``::: rankviz.mrr``)
  and holds a line ``<!-- public names: GROUP -->`` where every other name of
  ``rankviz.__all__`` of that group goes (:func:`api_group`: errors, warnings, io, measures,
  results, evaluation); a public submodule (a module of ``dir(rankviz)``) without its page
  ``docs/api/<name>.md`` gets a generated one, and a page of ``docs/`` missing from
  ``mkdocs.yml``'s nav is added to it (API pages under "API reference", others under "User guide");
- a public name (``rankviz.__all__``, the public submodules and their ``__all__``) without a
  docstring is a warning, so the strict build fails; after the build, every public name must
  have an entry in the API reference (``tests/test_docs_site.py`` also checks each entry's signature).

What griffe (mkdocstrings' reader of the source) would get wrong (the extensions, at the end):
``ModuleDocstrings`` (reStructuredText definition lists, special methods, re-exported classes),
``RuntimeSignatures`` (the options that ``@with_eval_options`` and ``@with_stats_options`` add;
NamedTuple signatures; the Default column from the signature) and
``ShadowedModules`` (``rankviz.widgets.playground``, a function named like its module).

Warnings go to a logger under ``mkdocs``, which the strict build counts.
"""

from __future__ import annotations

import contextlib
import html
import importlib
import inspect
import io
import json
import logging
import os
import re
import textwrap
import typing
from functools import reduce
from pathlib import Path

import griffe
from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.rankviz")

#: the nav sections that take a page of docs/ missing from mkdocs.yml's nav: API pages, then the others
NAV_SECTIONS = {"api/": "API reference", "": "User guide"}
#: the marker of an API page where the names of one group of ``rankviz.__all__`` not listed by hand go
_MARKER = re.compile(r"^<!-- public names: (?P<group>[\w-]+)(?: \| (?P<heading>#+ .+?))? -->$", re.MULTILINE)
#: an entry written by hand on an API page
_ENTRY = re.compile(r"^#* *::: *(?P<name>rankviz[\w.]*) *$", re.MULTILINE)


def public_submodules() -> list[str]:
    """The public submodules: the modules of ``dir(rankviz)`` (its ``__all__`` and the lazily loaded ones)."""
    rankviz = importlib.import_module("rankviz")
    return [name for name in dir(rankviz) if inspect.ismodule(getattr(rankviz, name))]


def api_group(value) -> str | None:
    """The group of the API reference a name of ``rankviz.__all__`` belongs to (None: a module, its own page)."""
    module = getattr(value, "__module__", "") or ""
    if inspect.ismodule(value):
        return None
    if isinstance(value, type) and issubclass(value, Warning):
        return "warnings"
    if isinstance(value, type) and issubclass(value, BaseException):
        return "errors"
    if module.startswith("rankviz.io"):
        return "io"
    if module.startswith("rankviz.measures"):
        return "measures"
    return "results" if isinstance(value, type) else "evaluation"


def documented_by_submodule(value) -> bool:
    """A function or value of ``rankviz.__all__`` that a public submodule exports is documented on that page.

    ``rankviz.fuse`` is ``rankviz.fusion.fuse``: one entry, under the submodule. A class is the
    other way round (``ModuleDocstrings``): documented under its top-level name.
    """
    if isinstance(value, type) or inspect.ismodule(value):
        return False
    rankviz = importlib.import_module("rankviz")
    for name in public_submodules():
        module = getattr(rankviz, name)
        if any(getattr(module, n, None) is value for n in getattr(module, "__all__", ())):
            return True
    return False


#: files outside docs/ that get a page of their own: repository path -> page
OUTSIDE_PAGES = {"benchmarks/RESULTS.md": "benchmarks.md", "CHANGELOG.md": "changelog.md"}

#: search weight of those pages (mkdocs-material's ``search: boost`` front matter; a page's default is 1):
#: the benchmark tables and the changelog name every function many times, and would otherwise rank above
#: the API entry a search for "bootstrap" is looking for
OUTSIDE_PAGES_SEARCH_BOOST = {"benchmarks.md": 0.1, "changelog.md": 0.5}


def outside_page(page: str, text: str) -> str:
    """The Markdown of a page built from a file outside ``docs/``: its text under front matter with its search weight."""
    boost = OUTSIDE_PAGES_SEARCH_BOOST.get(page)
    return text if boost is None else f"---\nsearch:\n  boost: {boost}\n---\n\n{text}"


def _repository(config) -> Path:
    """The repository's folder: the one holding ``docs/`` (so a copy of the tree builds the same way)."""
    return Path(config.docs_dir).resolve().parent


def _notebooks_html(repository: Path) -> Path:
    return Path(os.environ.get("RANKVIZ_NOTEBOOKS_HTML", repository / "build"))


# --- generated pages ---------------------------------------------------------------------------


def _help(argv: list[str]) -> str:
    """What ``rankviz ARGV`` prints (argparse's help), at a fixed width so the page does not depend on the terminal."""
    from rankviz.cli import main

    out = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        with contextlib.redirect_stdout(out):
            status = main(argv)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    if status != 0:
        log.warning(f"'rankviz {' '.join(argv)}' exited with status {status}")
    return out.getvalue().rstrip()


#: the fence of each help text: the class ``cli-help`` wraps its long lines (docs/assets/extra.css), so a
#: help line wider than the page is never cut at the right edge
CLI_FENCE = "```{.text .cli-help}"


def cli_page() -> str:
    top = _help(["-h"])
    found = re.search(r"\{([\w,-]+)\}", top)
    if not found:
        log.warning("no subcommands found in 'rankviz -h'")
        return "# Command line\n"
    commands = found.group(1).split(",")
    parts = [
        "# Command line",
        "",
        (
            "`pip install rankviz` installs the `rankviz` command (also `python -m rankviz`). This page is "
            "generated from the parser itself: each section is what `rankviz COMMAND -h` prints."
        ),
        "",
        (
            "A bad input never ends in a traceback: an error is one line on stderr, "
            "`rankviz COMMAND: error: ...`, with exit status 2; a notebook that fails while it runs is one "
            "line too, with status 1."
        ),
        "",
        "## rankviz",
        "",
        CLI_FENCE,
        top,
        "```",
    ]
    for command in commands:
        parts += ["", f"## rankviz {command}", "", CLI_FENCE, _help([command, "-h"]), "```"]
    return "\n".join(parts) + "\n"


def _notebook_intro(path: Path) -> tuple[str, str]:
    """The notebook's title (its first heading) and the paragraph that follows it."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = next(("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"), "")
    lines = text.strip().splitlines()
    title = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("#") else path.stem
    paragraphs = [p.strip() for p in "\n".join(lines[1:]).split("\n\n") if p.strip()]
    intro = paragraphs[:1]
    while intro and intro[-1].endswith(":") and len(intro) < len(paragraphs):  # "Two widgets:" and its list
        intro.append(paragraphs[len(intro)])
    return title, "\n\n".join(intro)


def gallery_page(notebooks: list[Path]) -> str:
    parts = [
        "# Notebook gallery",
        "",
        (
            "Each notebook answers one question on the built-in example (`rankviz.datasets.load_example()`), "
            "top to bottom, offline. These are the pages `make notebooks` renders: executed, self-contained, "
            "widgets in their executed state. The sources are in `notebooks/`; `make lab` opens them in "
            "JupyterLab."
        ),
        "",
    ]
    for path in notebooks:
        title, intro = _notebook_intro(path)
        parts += [f"## [{title}]({path.stem}.html)", "", intro, ""]
    return "\n".join(parts)


def _summary_line(value) -> str:
    doc = inspect.getdoc(value) or ""
    return " ".join(doc.split("\n\n", 1)[0].split()) or "(no docstring)"


def api_index_page() -> str:
    """A table of every name in ``rankviz.__all__`` by kind, each linked to its entry, then the public submodules."""
    rankviz = importlib.import_module("rankviz")
    groups: dict[str, list[str]] = {"Functions": [], "Classes": [], "Errors and warnings": [], "Modules": []}
    for name in sorted(rankviz.__all__, key=str.lower):
        value = getattr(rankviz, name)
        if inspect.ismodule(value):
            kind = "Modules"
        elif isinstance(value, type) and issubclass(value, (Exception, Warning)):
            kind = "Errors and warnings"
        elif isinstance(value, type):
            kind = "Classes"
        else:
            kind = "Functions"
        groups[kind].append(name)
    modules = set(groups["Modules"])
    groups["Modules"] += [m for m in public_submodules() if m not in modules]
    parts = [
        "# API reference",
        "",
        (
            "Every public name: `rankviz.__all__` and the "
            "public submodules. Data arguments are positional, options keyword-only; every evaluation function "
            "takes the same evaluation options. Import paths are the ones shown here."
        ),
    ]
    for kind, names in groups.items():
        parts += ["", f"## {kind}", "", "| name | summary |", "|---|---|"]
        for name in names:
            value = importlib.import_module(f"rankviz.{name}") if kind == "Modules" else getattr(rankviz, name)
            summary = _summary_line(value).replace("|", "\\|")
            parts.append(f"| [`rankviz.{name}`][rankviz.{name}] | {summary} |")
    return "\n".join(parts) + "\n"


def undocumented_names() -> list[str]:
    """Public names (functions, classes, modules) without a docstring of their own."""
    missing = []
    for name, value in public_names().items():
        if inspect.ismodule(value) or callable(value):
            doc = value.__doc__ if isinstance(value, type) or inspect.ismodule(value) else inspect.getdoc(value)
            own = (doc or "").strip()
            generated = isinstance(value, type) and re.fullmatch(rf"{re.escape(value.__name__)}\([^\n]*\)", own)
            if not own or generated:  # a dataclass or NamedTuple without one gets "Name(fields)" on one line
                missing.append(name)
    return missing


#: the state of one build: the groups of rankviz.__all__ that the API pages' markers fill
_PLACED: dict[str, list[str]] = {}


def _api_pages(files, config) -> None:
    """Generate the pages of public submodules that have none; fill ``_PLACED`` from ``__all__`` and the pages."""
    rankviz = importlib.import_module("rankviz")
    pages = {f.src_uri: f for f in files if f.src_uri.startswith("api/") and f.src_uri.endswith(".md")}
    for module in public_submodules():
        if f"api/{module}.md" not in pages:
            text = f"# rankviz.{module}\n\n::: rankviz.{module}\n"
            files.append(File.generated(config, f"api/{module}.md", content=text))
            log.info(f"docs/api/{module}.md does not exist: generated (rankviz.{module} is public)")
    written, markers = set(), set()
    for file in pages.values():
        text = file.content_string
        written |= {m.group("name") for m in _ENTRY.finditer(text)}
        markers |= {m.group("group") for m in _MARKER.finditer(text)}
    _PLACED.clear()
    for name in rankviz.__all__:
        value = getattr(rankviz, name)
        group = api_group(value)
        if group is None or f"rankviz.{name}" in written or documented_by_submodule(value):
            continue
        _PLACED.setdefault(group, []).append(name)
    for group in sorted(set(_PLACED) - markers):
        log.warning(
            f"no page of docs/api/ has the line '<!-- public names: {group} -->' where "
            f"{', '.join(_PLACED[group])} would go: add it to the page of that group"
        )


def _nav_pages(items) -> set[str]:
    found: set[str] = set()
    for item in items if isinstance(items, list) else [items]:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            found |= _nav_pages(value)
        elif isinstance(value, str):
            found.add(value)
    return found


def _complete_nav(files, config) -> None:
    """A page of docs/ missing from the nav goes at the end of its section (``NAV_SECTIONS``), titled by MkDocs."""
    if not config.nav:
        return
    listed = _nav_pages(config.nav)
    for file in files.documentation_pages():
        if file.src_uri in listed or not file.inclusion.is_in_nav():
            continue
        title = next(t for prefix, t in NAV_SECTIONS.items() if file.src_uri.startswith(prefix))
        section = next((i for i in config.nav if isinstance(i, dict) and title in i), None)
        if section is None:
            section = {title: []}
            config.nav.append(section)
        section[title].append(file.src_uri)
        log.info(f"{file.src_uri} is not in mkdocs.yml's nav: listed under '{title}'")


def on_files(files, config):
    missing = undocumented_names()
    if missing:
        log.warning(f"public names without a docstring: {', '.join(missing)} (write a numpydoc docstring)")
    files.append(File.generated(config, "cli.md", content=cli_page()))
    files.append(File.generated(config, "api/index.md", content=api_index_page()))
    _api_pages(files, config)

    repository = _repository(config)
    notebooks = sorted((repository / "notebooks").glob("*.ipynb"))
    rendered = _notebooks_html(repository)
    files.append(File.generated(config, "gallery/index.md", content=gallery_page(notebooks)))
    for path in notebooks:
        page = rendered / f"{path.stem}.html"
        if not page.is_file():
            log.warning(
                f"notebook {path.name} has no rendered HTML at {page}: run 'make notebooks' first "
                "(make docs does), or set RANKVIZ_NOTEBOOKS_HTML to the folder that holds it"
            )
            continue
        files.append(File.generated(config, f"gallery/{path.stem}.html", abs_src_path=str(page)))

    for source, page in OUTSIDE_PAGES.items():
        path = repository / source
        if not path.is_file():
            log.warning(f"{source} not found: the page {page} is built from it")
            continue
        files.append(File.generated(config, page, content=outside_page(page, path.read_text(encoding="utf-8"))))
    _complete_nav(files, config)
    return files


# --- links and roles ---------------------------------------------------------------------------

_LINK = re.compile(r"\]\((?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")


def _fill_markers(markdown: str) -> str:
    """``<!-- public names: GROUP | ## Heading -->``: an entry for each name of the group not listed by hand."""

    def entries(match: re.Match) -> str:
        names = _PLACED.get(match.group("group"), [])
        if not names:
            return ""
        lines = [match.group("heading"), ""] if match.group("heading") else []
        for name in names:
            lines += [f"::: rankviz.{name}", ""]
        return "\n".join(lines)

    return _MARKER.sub(entries, markdown)


def on_page_markdown(markdown, page, config, files):
    """Fill the API pages' markers; point links from docs/ to repository files that have a page at that page.

    (``../benchmarks/RESULTS.md``, which works on a repository browser, becomes ``benchmarks.md``.)
    """
    if page.file.src_uri.startswith("api/"):
        markdown = _fill_markers(markdown)
    repository = _repository(config)
    here = (Path(config.docs_dir).resolve() / page.file.src_uri).parent

    def relink(match: re.Match) -> str:
        target = match.group("target")
        if "://" in target:
            return match.group(0)
        try:
            in_repo = (here / target).resolve().relative_to(repository).as_posix()
        except ValueError:
            return match.group(0)
        if in_repo not in OUTSIDE_PAGES:
            return match.group(0)
        depth = page.file.src_uri.count("/")
        new = "../" * depth + OUTSIDE_PAGES[in_repo]
        return f"]({new}{match.group('anchor') or ''})"

    return _LINK.sub(relink, markdown)


# ``:func:`~rankviz.stats.bootstrap``` as rendered from a docstring: the role's text, then the code
_ROLE = re.compile(
    r":(?:func|class|mod|meth|attr|data|obj|exc):<code>(?P<tilde>~?)(?P<target>[\w.]+)(?P<call>\(\))?</code>"
)


def on_page_content(html_text, page, config, files):
    """Sphinx roles left in docstrings become optional cross-references: a link where the target has an entry."""

    def autoref(match: re.Match) -> str:
        target = match.group("target")
        shown = target.rsplit(".", 1)[-1] if match.group("tilde") else target
        identifier = target if target.startswith("rankviz") else f"rankviz.{target}"
        return f'<autoref identifier="{html.escape(identifier)}" optional><code>{html.escape(shown)}</code></autoref>'

    return _ROLE.sub(autoref, html_text)


# --- every public name has an entry ------------------------------------------------------------


def public_names() -> dict[str, object]:
    """Dotted names the API reference must document, with their objects: ``rankviz.__all__`` and the submodules'."""
    rankviz = importlib.import_module("rankviz")
    names = {f"rankviz.{name}": getattr(rankviz, name) for name in rankviz.__all__}
    for module_name in public_submodules():
        module = importlib.import_module(f"rankviz.{module_name}")
        names[f"rankviz.{module_name}"] = module
        names.update({f"rankviz.{module_name}.{name}": getattr(module, name) for name in module.__all__})
    return names


def undocumented(ids: set[str]) -> list[str]:
    """Public names without an entry: neither their own anchor nor one of another public name of the same object.

    ``rankviz.fuse`` is ``rankviz.fusion.fuse``: one entry serves both (no page shows it twice).
    """
    names = public_names()
    documented = [names[name] for name in ids if name in names]
    return [name for name, value in names.items() if name not in ids and not any(value is d for d in documented)]


def on_post_build(config):
    ids: set[str] = set()
    for page in (Path(config.site_dir) / "api").glob("*.html"):
        ids |= set(re.findall(r'id="(rankviz[\w.]*)"', page.read_text(encoding="utf-8")))
    missing = undocumented(ids)
    if missing:
        log.warning(f"public names without an entry in the API reference (docs/api/*.md): {', '.join(missing)}")


# --- griffe extensions (mkdocs.yml: plugins.mkdocstrings...extensions) ------------------------------

#: the sections an options decorator appends to a docstring ("Evaluation options (keyword-only, ...)"
#: then a dashed line): not numpydoc section names, so they are parsed as "Other Parameters"
_OPTIONS_SECTION = re.compile(r"^(?P<title>[A-Z][\w ]* options) \((?P<rest>[^)]*)\)\n-{4,}$", re.MULTILINE)


class ModuleDocstrings(griffe.Extension):
    """Module docstrings and class members as a reader of the site expects them.

    - A definition list (``Bootstrap`` then its indented paragraph) becomes a Markdown definition
      list (``def_list``), instead of one paragraph running the term into its text.
    - Special methods (``__repr__``, ``__len__``, ...) are left out: none has a docstring, and the
      class's own docstring says what indexing, calling or ``@`` does.
    - A class re-exported by a public submodule and also in ``rankviz.__all__``
      (``rankviz.stats.BootstrapResult`` is ``rankviz.BootstrapResult``) is documented once, under
      its top-level name: hidden from the submodule's page, still there for cross-references.
    """

    def on_package(self, *, pkg, loader, **kwargs):
        if pkg.name != "rankviz":
            return
        rankviz = importlib.import_module("rankviz")
        top = [getattr(rankviz, name) for name in rankviz.__all__]
        stack = [pkg]
        while stack:
            module = stack.pop()
            stack += [m for m in module.modules.values() if not m.is_alias]
            for cls in (c for c in module.classes.values() if not c.is_alias):
                # removed, not marked private: pages show classes through aliases, whose members don't see a mark
                for name in [n for n in cls.members if n.startswith("__") and n.endswith("__") and n != "__init__"]:
                    del cls.members[name]
            if module.docstring is not None:
                sections = module.docstring.parsed
                for section in sections:
                    if section.kind is griffe.DocstringSectionKind.text:
                        section.value = _definition_lists(section.value)
                    elif section.kind is griffe.DocstringSectionKind.admonition:  # "Plots\n-----" and the like
                        section.value.contents = _definition_lists(section.value.contents)
            if module is pkg:
                continue
            try:
                runtime = importlib.import_module(module.path)
            except ImportError:
                continue
            for name in getattr(runtime, "__all__", ()):
                value = getattr(runtime, name, None)
                if isinstance(value, type) and any(value is t for t in top) and name in module.members:
                    module.members[name].public = False


_TERM = re.compile(r"^(?P<term>\S.*)\n(?P<body>(?: {4}.*\n?)+)", re.MULTILINE)


def _definition_lists(text: str) -> str:
    """``Term\\n    text`` (reStructuredText) as ``Term\\n:   text`` (Markdown's def_list)."""

    def definition(match: re.Match) -> str:
        term = match.group("term")
        if term.rstrip().endswith("::") or term.startswith(">>>"):
            return match.group(0)
        body = match.group("body")
        return f"{term}\n:   {body[4:]}"

    return _TERM.sub(definition, text)


class RuntimeSignatures(griffe.Extension):
    """Signatures and docstrings as Python shows them (``help()``), for functions that a decorator rewrote.

    The evaluation functions declare ``*, options: EvalOptions``; ``@with_eval_options`` gives them
    one keyword-only parameter per option (``rel``, ``depth``, ...) through ``__signature__`` and
    appends the options to their docstring. Griffe reads the source (and its inspector unwraps the
    decorator), so it would show ``options: EvalOptions``; this extension takes the parameters and
    the docstring from the live object instead, and shows the options as their own parameter table
    (``@with_stats_options`` does the same with ``stats_options: StatsOptions`` and its
    "Statistics options" section).

    The Default column of a parameters table is the signature's default: griffe's numpydoc
    reader gives every name of ``test, correction, alpha`` the first one's default and type, and
    a parameter typed ``{'a', 'b'}`` the first choice.
    """

    def on_function(self, *, func, loader, **kwargs):
        if not func.path.startswith("rankviz"):
            return
        live = _live(func)
        if live is None:
            return
        signature = getattr(live, "__signature__", None)
        if isinstance(signature, inspect.Signature):
            known = {p.name: p for p in func.parameters}
            func.parameters = griffe.Parameters(
                *(known.get(p.name) or _parameter(p) for p in signature.parameters.values())
            )
        self._options_docstring(func, live)
        if func.docstring is not None:
            _signature_defaults(func)

    @staticmethod
    def _options_docstring(func, live) -> None:
        doc = _decorated_doc(live)
        if doc and func.docstring is not None and doc != func.docstring.value:
            old = func.docstring
            titles = [f"{m['title']} ({m['rest'].split(',')[0]}):" for m in _OPTIONS_SECTION.finditer(doc)]
            text = _OPTIONS_SECTION.sub("Other Parameters\n----------------", doc)
            func.docstring = griffe.Docstring(
                text,
                lineno=old.lineno,
                endlineno=old.endlineno,
                parent=func,
                parser=old.parser,
                parser_options=old.parser_options,
            )
            if titles:  # the parameters of each section, under its own title
                sections = _options_after_returns(func.docstring.parse(), titles)
                func.docstring.__dict__["parsed"] = sections  # Docstring.parsed is a cached property

    def on_class(self, *, cls, loader, **kwargs):
        """A class without ``__init__`` in its source (a ``NamedTuple``) gets the signature Python gives it."""
        if not cls.path.startswith("rankviz") or "__init__" in cls.members:
            return
        live = _live(cls)
        if not isinstance(live, type) or issubclass(live, BaseException):
            return  # an exception's signature is its base's (*args); its bases are shown instead
        try:
            signature = inspect.signature(live)
        except (TypeError, ValueError):
            return
        kinds = {p.kind for p in signature.parameters.values()}
        if not signature.parameters or kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
            return
        init = griffe.Function(
            "__init__",
            parent=cls,
            parameters=griffe.Parameters(
                griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword),
                *(_parameter(p, cls.members.get(p.name)) for p in signature.parameters.values()),
            ),
        )
        cls.set_member("__init__", init)


def _decorated_doc(live) -> str | None:
    """The live docstring, as ``inspect.getdoc`` cleans it, but with the appended options sections dedented apart.

    A decorator appends its options (indented by 4) to the function's own docstring (indented by 8
    in a class): cleaned together, the function's paragraphs would keep 4 spaces and read as code.
    """
    doc = inspect.getdoc(live)
    own = inspect.unwrap(live).__doc__
    raw = live.__doc__
    if not (doc and own and raw and raw.startswith(own.rstrip())) or raw == own:
        return doc
    appended = raw[len(own.rstrip()) :]
    return inspect.cleandoc(own) + "\n\n" + textwrap.dedent(appended).strip("\n") + "\n"


def _signature_defaults(func) -> None:
    """Defaults and types griffe's numpydoc reader guessed wrong, from the signature.

    Every name of a group (``test, correction, alpha``) gets the first one's default (and its type
    when the docstring gives none); ``{'a', 'b'}`` gets its first choice as default. An explicit
    ``default X`` of the docstring is kept (``default 64 MiB`` reads better than ``67108864``).
    """
    parameters = {p.name: p for p in func.parameters}
    annotations = {id(p.annotation) for p in func.parameters if p.annotation is not None}
    for section in func.docstring.parsed:
        if section.kind not in (griffe.DocstringSectionKind.parameters, griffe.DocstringSectionKind.other_parameters):
            continue
        items = section.value
        for i, item in enumerate(items):
            parameter = parameters.get(item.name)
            if parameter is None:
                continue
            grouped = any(
                0 <= j < len(items) and items[j].description is item.description and item.description
                for j in (i - 1, i + 1)
            )
            first_choice = item.value is not None and item.value == _first_choice(item.annotation)
            if grouped or (first_choice and parameter.default is not None):
                item.value = parameter.default
            if grouped and id(item.annotation) in annotations and item.annotation is not parameter.annotation:
                item.annotation = parameter.annotation


def _first_choice(annotation) -> str | None:
    """``'a'`` for the type ``{'a', 'b'}`` (griffe reads it as a tuple expression, or leaves a string)."""
    elements = getattr(annotation, "elements", None)
    if elements:
        return str(elements[0])
    return annotation.split(", ", 1)[0] if isinstance(annotation, str) else None


def _options_after_returns(sections: list, titles: list[str]) -> list:
    """The options sections under their own titles, after Parameters and Returns (not after the examples).

    Each is a parameters table (with the Default column, which an Other Parameters table lacks).
    """
    kinds = griffe.DocstringSectionKind
    options = [s for s in sections if s.kind is kinds.other_parameters]
    rest = [s for s in sections if s.kind is not kinds.other_parameters]
    if len(options) == len(titles):  # else a docstring of its own has an Other Parameters section: keep that name
        options = [griffe.DocstringSectionParameters(s.value, title=t) for s, t in zip(options, titles)]
    lead = [i for i, s in enumerate(rest) if s.kind in (kinds.text, kinds.parameters, kinds.returns)]
    at = 0
    for i in lead:  # the first run of text, parameters and returns
        if i != at:
            break
        at += 1
    return rest[:at] + options + rest[at:]


def _live(func):
    """The Python object griffe's ``func`` stands for, or None."""
    try:
        module = importlib.import_module(func.module.path)
    except ImportError:
        return None
    parts = func.path[len(func.module.path) + 1 :].split(".")
    try:
        return reduce(getattr, parts, module)
    except AttributeError:
        return None


def _parameter(p: inspect.Parameter, attribute=None) -> griffe.Parameter:
    """A griffe parameter from a live one; the annotation of the class attribute of that name when there is one."""
    annotation = getattr(attribute, "annotation", None)
    if annotation is None and p.annotation is not inspect.Parameter.empty:
        annotation = p.annotation
        if isinstance(annotation, typing.ForwardRef):  # a NamedTuple's field under `from __future__ import annotations`
            annotation = annotation.__forward_arg__
        elif not isinstance(annotation, str):
            annotation = inspect.formatannotation(annotation)
    default = None if p.default is inspect.Parameter.empty else repr(p.default)
    return griffe.Parameter(
        p.name, annotation=annotation, kind=griffe.ParameterKind(p.kind.description), default=default
    )


class ShadowedModules(griffe.Extension):
    """Document a public function under its public name when a submodule has the same name.

    ``rankviz.widgets.playground`` is a function (in ``rankviz.widgets.__all__``) defined in the
    submodule ``rankviz/widgets/playground.py``; at run time the function shadows the module, but
    griffe's tree keeps the module under that name, so ``::: rankviz.widgets`` would show no
    ``playground`` function. This puts the function where Python finds it.
    """

    def on_package(self, *, pkg, loader, **kwargs):
        if pkg.name != "rankviz":
            return
        stack = [pkg]
        while stack:
            module = stack.pop()
            stack += [m for m in module.modules.values() if not m.is_alias]
            try:
                runtime = importlib.import_module(module.path)
            except ImportError:
                continue
            for name in getattr(runtime, "__all__", ()):
                member = module.members.get(name)
                if member is None or member.is_alias or not member.is_module:
                    continue
                value = getattr(runtime, name, None)
                inner = member.members.get(name)
                if value is not None and not isinstance(value, type(runtime)) and inner is not None:
                    module.set_member(name, inner)
