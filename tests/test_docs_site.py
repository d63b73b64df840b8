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

SUBMODULES = ("stats", "multiple", "fusion", "plots", "widgets", "datasets")


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
def notebooks_html(tmp_path_factory) -> Path:
    """The notebooks rendered as ``make notebooks`` renders them (the gallery embeds these pages)."""
    _require_mkdocs()
    from rankviz.report import render_notebooks

    out = tmp_path_factory.mktemp("notebooks_html")
    render_notebooks(ROOT / "notebooks", out, timeout=300, quiet=True)
    return out


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
    assert all(f"rankviz.{n}" in entries for n in rankviz.__all__ if n != "fuse"), (
        "top-level names have their own anchors"
    )


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


@pytest.mark.slow
def test_broken_reference_or_undocumented_name_fails_the_build(notebooks_html, tmp_path):
    """The strictness is real: a copy of the docs with a broken link and one API entry removed does not build."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    repository = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", repository / "docs")
    for name in ("CHANGELOG.md", "README.md"):
        shutil.copy(ROOT / name, repository / name)
    shutil.copytree(ROOT / "benchmarks", repository / "benchmarks", ignore=shutil.ignore_patterns("_data"))
    shutil.copytree(ROOT / "notebooks", repository / "notebooks")
    api = repository / "docs" / "api" / "evaluation.md"
    api.write_text(api.read_text().replace("::: rankviz.mrr\n", ""))
    guide = repository / "docs" / "guide" / "long-runs.md"
    guide.write_text(guide.read_text() + "\nSee [nowhere](no-such-page.md).\n")
    config = load_config(str(ROOT / "mkdocs.yml"), docs_dir=str(repository / "docs"), site_dir=str(tmp_path / "site"))
    os.environ["RANKVIZ_NOTEBOOKS_HTML"] = str(notebooks_html)
    messages = []
    handler = _ListHandler(messages)
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        with pytest.raises(Abort, match="strict mode"):
            build(config)
    finally:
        logger.removeHandler(handler)
        del os.environ["RANKVIZ_NOTEBOOKS_HTML"]
    text = "\n".join(messages)
    assert "no-such-page.md" in text
    assert "rankviz.mrr" in text and "without an entry" in text


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
