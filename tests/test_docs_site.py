"""The documentation site: built strict and warning-free, an API entry with its signature for every
public name, the CLI reference from the parser, the notebooks in the gallery, nothing fetched from the
network, and the guides' code runs.

The build is what ``make docs`` runs (``mkdocs build --strict``), on the notebooks rendered into a
temporary folder. Without MkDocs the build tests skip saying why, and under CI (``CI=true``) they fail.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import inspect
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import rankviz
from tests.conftest import IN_CI, ROOT

#: the public submodules: every module of dir(rankviz) (__all__ and the ones loaded on first use)
SUBMODULES = tuple(n for n in dir(rankviz) if inspect.ismodule(getattr(rankviz, n)))


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason}; CI=true requires it", pytrace=False)
    pytest.skip(reason)


def _require_mkdocs() -> None:
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            _unavailable(f"{module} is not importable: pip install -e '.[docs]' (the test extra includes it)")


def _build_env(notebooks_html: Path) -> dict[str, str]:
    return {**os.environ, "RANKVIZ_NOTEBOOKS_HTML": str(notebooks_html), "NO_MKDOCS_2_WARNING": "1"}


@pytest.fixture(scope="module")
def notebooks_html(rendered_notebooks) -> Path:
    """The notebooks rendered as ``make notebooks`` renders them (the gallery embeds these pages)."""
    _require_mkdocs()
    return rendered_notebooks[0]


@pytest.fixture(scope="module")
def site(notebooks_html, tmp_path_factory):
    """``mkdocs build --strict`` as ``make docs`` runs it; the site folder and the build's log."""
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=_build_env(notebooks_html),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return out, proc.stdout + proc.stderr


def _public_names() -> dict[str, object]:
    names = {f"rankviz.{n}": getattr(rankviz, n) for n in rankviz.__all__}
    for sub in SUBMODULES:
        module = importlib.import_module(f"rankviz.{sub}")
        names[f"rankviz.{sub}"] = module
        names.update({f"rankviz.{sub}.{n}": getattr(module, n) for n in module.__all__})
    return names


def _entries(site_dir: Path) -> dict[str, str]:
    """Each API entry's anchor and its HTML (from its heading to the next entry's heading)."""
    entries = {}
    for page in sorted((site_dir / "api").glob("*.html")):
        text = page.read_text(encoding="utf-8")
        headings = list(re.finditer(r'<h\d id="(rankviz[\w.]*)" class="doc doc-heading"', text))
        for here, after in zip(headings, headings[1:] + [None]):
            entries[here.group(1)] = text[here.start() : after.start() if after else len(text)]
    return entries


@pytest.mark.slow
def test_build_is_strict_and_warning_free(site):
    _, log = site
    config = (ROOT / "mkdocs.yml").read_text()
    assert re.search(r"^strict: true$", config, re.MULTILINE), "mkdocs.yml must build strict"
    assert "mkdocs build --strict" in (ROOT / "Makefile").read_text()
    problems = [line for line in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_every_public_name_has_an_entry_with_its_signature(site):
    """``rankviz.__all__`` and the public submodules' ``__all__``: an entry each, a signature for every callable.

    A name that is another public name's object (``rankviz.fuse`` is ``rankviz.fusion.fuse``) may share
    that entry: one page shows it, and links to either name lead there.
    """
    entries = _entries(site[0])
    names = _public_names()
    missing, unsigned = [], []
    for name, value in names.items():
        anchors = [a for a in entries if a == name or (a in names and names[a] is value)]
        if not anchors:
            missing.append(name)
            continue
        text = html.unescape(re.sub(r"<[^>]+>", "", entries[anchors[0]]))
        if isinstance(value, type) and issubclass(value, BaseException):
            if not re.search(r"Bases:\s+\w", text):  # an exception's signature is its base's: its bases instead
                unsigned.append(name)
        elif callable(value) and not inspect.ismodule(value):
            short = name.rsplit(".", 1)[1]
            if "doc-signature" not in entries[anchors[0]] or not re.search(rf"\b{re.escape(short)}\(", text):
                unsigned.append(name)
    assert not missing, f"public names without an API entry: {missing}"
    assert not unsigned, f"API entries without a signature: {unsigned}"
    assert {"labels", "report", "plots", "stats"} <= set(SUBMODULES)
    shared = {n for n in rankviz.__all__ if _submodule_function(getattr(rankviz, n))}
    assert {"fuse", "failure_slices"} <= shared
    own = [n for n in rankviz.__all__ if n not in shared and f"rankviz.{n}" not in entries]
    assert not own, f"top-level names without their own anchor: {own}"
    assert "rankviz.fuse" not in entries and "rankviz.fusion.fuse" in entries  # one entry, not two


def _submodule_function(value) -> bool:
    """A function (not a class) of rankviz.__all__ that a public submodule exports: documented there."""
    if isinstance(value, type) or inspect.ismodule(value):
        return False
    return any(
        getattr(getattr(rankviz, sub), n, None) is value for sub in SUBMODULES for n in getattr(rankviz, sub).__all__
    )


@pytest.mark.slow
def test_options_sections_are_parameter_tables_with_the_signatures_defaults(site):
    """Both decorators' options render as parameter tables; a grouped ``test, correction, alpha`` keeps each default.

    griffe's numpydoc reader gives every name of a group the first one's default and type; the
    hook takes them from the signature. A method's own paragraphs stay text, not code blocks.
    """
    entries = _entries(site[0])

    def rows(name: str, title: str) -> dict[str, list[str]]:
        text = entries[name]
        start = text.index(f'<span class="doc-section-title">{title}</span>')
        table = text[start : text.index("</table>", start)]
        found = {}
        for row in re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table, flags=re.DOTALL):
            cells = [
                " ".join(html.unescape(re.sub(r"<[^>]+>", "", c)).split())
                for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.DOTALL)
            ]
            found[cells[0]] = cells
        return found

    for name in ("rankviz.stats.bootstrap", "rankviz.bootstrap", "rankviz.stats.significance_table"):
        stats_rows = rows(name, "Statistics options (keyword-only):")
        assert {"n_resamples", "rng", "batch"} <= set(stats_rows), name
    assert {"rel", "depth"} <= set(rows("rankviz.bootstrap", "Evaluation options (keyword-only):"))
    table = rows("rankviz.table", "Parameters:")
    assert (table["correction"][-1], table["alpha"][-1]) == ("'auto'", "0.05")
    assert table["alpha"][1] == "float"
    significance = rows("rankviz.stats.significance_table", "Parameters:")
    assert (significance["correction"][-1], significance["alpha"][-1]) == ("'auto'", "0.05")
    method = entries["rankviz.plots.RunPlots.bootstrap_distribution"]
    outside_code = re.sub(r"<pre>.*?</pre>", "", method, flags=re.DOTALL)  # the signature, code blocks
    assert "resamples depend only on" in outside_code, "the method's own paragraph became a code block"
    assert "``rng``" not in html.unescape(method)
    compare = rows("rankviz.compare", "Evaluation options (keyword-only):")
    assert compare["order"][-1] == "None"  # {'score', 'rank'}, optional: not its first choice
    assert rows("rankviz.compare", "Statistics options (keyword-only):")["method"][-1] == "'t'"


@pytest.mark.slow
def test_evaluation_entries_show_the_options_python_shows(site):
    """The decorator's keyword-only options are in the signature and the docstring, as help() shows them."""
    entry = html.unescape(re.sub(r"<[^>]+>", "", _entries(site[0])["rankviz.mrr"]))
    for option in inspect.signature(rankviz.mrr).parameters:
        assert re.search(rf"\b{option}\b", entry), option
    assert "options: EvalOptions" not in entry
    assert "Evaluation options" in entry


@pytest.mark.slow
def test_cli_reference_is_the_parsers_help(site):
    from rankviz import cli

    page = html.unescape(re.sub(r"<[^>]+>", "", (site[0] / "cli.html").read_text(encoding="utf-8")))
    for command in ("eval", "report", "notebooks"):
        assert f"usage: rankviz {command}" in page
    out = subprocess.run(
        [sys.executable, "-m", "rankviz", "eval", "-h"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
        check=True,
    ).stdout
    assert " ".join(out.split()) in " ".join(page.split())
    assert cli.main(["-h"]) == 0  # the page is built from the public entry point
    raw = (site[0] / "cli.html").read_text(encoding="utf-8")
    assert raw.count('class="cli-help') >= 3  # the blocks extra.css wraps
    index = json.loads((site[0] / "search" / "search_index.json").read_text(encoding="utf-8"))
    boosts = {doc["location"].split("#")[0]: doc.get("boost", 1) for doc in index["docs"]}
    assert boosts["benchmarks.html"] < 1 and boosts["changelog.html"] < 1 and boosts.get("api/stats.html", 1) == 1


def _docs_site_module():
    _require_mkdocs()
    spec = importlib.util.spec_from_file_location("docs_site_hooks", ROOT / "scripts" / "docs_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_help_wraps_instead_of_running_past_the_page():
    """Every help block of the CLI page carries the class whose CSS wraps long lines (argparse's are ~100 wide)."""
    hooks = _docs_site_module()
    page = hooks.cli_page()
    fences = re.findall(r"^```.+", page, flags=re.M)
    assert fences and set(fences) == {hooks.CLI_FENCE}, set(fences)
    assert page.count(hooks.CLI_FENCE) == page.count("## rankviz")
    css = (ROOT / "docs" / "assets" / "extra.css").read_text(encoding="utf-8")
    rule = re.search(r"\.cli-help pre > code \{([^}]*)\}", css)
    assert rule and "white-space: pre-wrap" in rule.group(1)


def test_benchmark_and_changelog_pages_weigh_less_in_search():
    import yaml

    hooks = _docs_site_module()
    for page in ("benchmarks.md", "changelog.md"):
        text = hooks.outside_page(page, "# Title\n\nbootstrap bootstrap\n")
        front, body = re.fullmatch(r"---\n(.*?)\n---\n\n(.*)", text, flags=re.S).groups()
        assert 0 < yaml.safe_load(front)["search"]["boost"] < 1 and body.startswith("# Title")
    assert hooks.outside_page("other.md", "# x\n") == "# x\n"


@pytest.mark.slow
def test_gallery_holds_every_rendered_notebook(site):
    gallery = (site[0] / "gallery" / "index.html").read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f'href="{path.stem}.html"' in gallery
        assert (site[0] / "gallery" / f"{path.stem}.html").stat().st_size > 10_000


@pytest.mark.slow
def test_site_works_from_disk_and_fetches_nothing(site):
    """No web fonts, no CDN script or stylesheet, links to files (not folders), search index inlined."""
    site_dir = site[0]
    for page in site_dir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        remote = re.findall(r"<(?:script|link|img|iframe)\b[^>]*(?:src|href)=[\"'](?:https?:)?//[^\"']+", text)
        assert not remote, f"{page.relative_to(site_dir)} loads {remote[:3]}"
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page
    index = (site_dir / "index.html").read_text(encoding="utf-8")
    assert 'href="getting-started.html"' in index
    assert (site_dir / "search" / "search_index.js").exists()  # the offline plugin's search from file://
    for css in site_dir.rglob("*.css"):
        assert "@import url(http" not in css.read_text(encoding="utf-8"), css


def _docs_copy(tmp_path: Path) -> Path:
    """A copy of what the site is built from (docs/, the pages from outside it, the notebooks)."""
    repository = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", repository / "docs")
    for name in ("CHANGELOG.md", "README.md"):
        shutil.copy(ROOT / name, repository / name)
    shutil.copytree(ROOT / "benchmarks", repository / "benchmarks", ignore=shutil.ignore_patterns("_data"))
    shutil.copytree(ROOT / "notebooks", repository / "notebooks")
    return repository


def _edit(path: Path, old: str, new: str = "") -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def _build_copy(repository: Path, site_dir: Path, notebooks_html: Path, monkeypatch, messages: list, nav_without=()):
    """Build the copy in this process (so monkeypatched objects are what the hooks see), logging into ``messages``."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"), docs_dir=str(repository / "docs"), site_dir=str(site_dir))
    for page in nav_without:  # as if mkdocs.yml's nav had forgotten it
        config.nav = _without(config.nav, page)
    monkeypatch.setenv("RANKVIZ_NOTEBOOKS_HTML", str(notebooks_html))
    handler = _ListHandler(messages)
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        build(config)
    finally:
        logger.removeHandler(handler)


def _without(items, page):
    kept = []
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            kept.append({next(iter(item)): _without(value, page)})
        elif value != page:
            kept.append(item)
    return kept


@pytest.mark.slow
def test_broken_reference_or_undocumented_name_fails_the_build(notebooks_html, tmp_path, monkeypatch):
    """The strictness is real: a broken link, a public name without a docstring and a page that
    shows no entry (``::: rankviz.stats`` removed) each make the strict build fail, named."""
    from mkdocs.exceptions import Abort

    repository = _docs_copy(tmp_path)
    guide = repository / "docs" / "guide" / "long-runs.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\nSee [nowhere](no-such-page.md).\n", encoding="utf-8")
    _edit(repository / "docs" / "api" / "stats.md", "::: rankviz.stats\n")
    monkeypatch.setattr(rankviz.ranked_list, "__doc__", None)
    messages: list[str] = []
    with pytest.raises(Abort, match="strict mode"):
        _build_copy(repository, tmp_path / "site", notebooks_html, monkeypatch, messages)
    text = "\n".join(messages)
    assert "no-such-page.md" in text
    assert re.search(r"without a docstring: rankviz\.ranked_list\b", text), text
    assert re.search(r"without an entry.*rankviz\.stats\.bootstrap\b", text), text


@pytest.mark.slow
def test_names_and_pages_nobody_listed_still_get_an_entry(notebooks_html, tmp_path, monkeypatch):
    """The API pages follow ``__all__``: names left out of docs/api/*.md, a public submodule without
    its page and a page left out of the nav are all in the site, and the strict build passes."""
    repository = _docs_copy(tmp_path)
    api = repository / "docs" / "api"
    _edit(api / "evaluation.md", "::: rankviz.mrr\n")
    _edit(api / "io.md", "::: rankviz.read_beir\n")
    _edit(api / "errors.md", "::: rankviz.QueryIdWarning\n")
    _edit(api / "errors.md", "::: rankviz.TrecFormatError\n")
    (api / "labels.md").unlink()
    site_dir = tmp_path / "site"
    messages: list[str] = []
    _build_copy(repository, site_dir, notebooks_html, monkeypatch, messages, nav_without=("formats.md",))
    assert not messages, messages  # the handler keeps warnings: none, or build() would have aborted
    entries = _entries(site_dir)
    for name in (
        "rankviz.mrr",
        "rankviz.read_beir",
        "rankviz.QueryIdWarning",
        "rankviz.TrecFormatError",
        "rankviz.labels",
        "rankviz.labels.holes",
    ):
        assert name in entries, name
    errors = (site_dir / "api" / "errors.html").read_text(encoding="utf-8")
    assert (
        errors.index('id="rankviz.TrecFormatError"')
        < errors.index('<h2 id="warnings"')
        < errors.index('id="rankviz.QueryIdWarning"')
    )
    evaluation = (site_dir / "api" / "evaluation.html").read_text(encoding="utf-8")
    assert "More evaluation functions" in evaluation
    assert (site_dir / "formats.html").is_file()
    assert 'href="formats.html"' in (site_dir / "index.html").read_text(encoding="utf-8")  # in the nav again


class _ListHandler(logging.Handler):
    def __init__(self, messages: list[str]):
        super().__init__(level=logging.WARNING)
        self.messages = messages

    def emit(self, record):
        self.messages.append(record.getMessage())


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL)


GUIDES = sorted(
    [
        ROOT / "docs" / "index.md",
        ROOT / "docs" / "getting-started.md",
        *(ROOT / "docs" / "guide").glob("*.md"),
        ROOT / "docs" / "api" / "accessor.md",
    ]
)


@pytest.mark.parametrize("path", GUIDES, ids=[p.stem for p in GUIDES])
def test_guide_code_runs(path):
    """Every Python block of the hand-written pages runs, top to bottom, on the built-in example."""
    import matplotlib

    matplotlib.use("Agg")
    blocks = _python_blocks(path)
    assert blocks, f"{path.name} has no Python example"
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.RankvizWarning)
        for block in blocks:
            exec(compile(block, str(path), "exec"), namespace)  # noqa: S102 - our own documentation
