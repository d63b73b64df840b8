"""Shared fixtures.

Tests that read ``../shared/data`` skip with a clear reason on a fresh clone without
it, and FAIL under CI (``CI=true``), where the data must be present.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = (ROOT / ".." / "shared" / "data").resolve()
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def shared_path(*parts: str) -> Path:
    """Path of a file or folder under ../shared/data; skip (fail in CI) when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        message = f"shared evaluation data not found at {path} (the tests read ../shared/data beside the repo)"
        if IN_CI:
            pytest.fail(message + "; CI=true requires it", pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture
def trec_eval_dir() -> Path:
    return shared_path("trec_eval")


@pytest.fixture
def covid_dir() -> Path:
    return shared_path("trec_covid_round1")


@pytest.fixture(autouse=True)
def _close_figures():
    """No figure leaks between tests (plots never call plt.show())."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def _shared_temp(tmp_path_factory) -> Path:
    """A temporary folder every pytest-xdist worker of this run sees (the run's base temp without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def rendered_notebooks(tmp_path_factory) -> tuple[Path, list[Path]]:
    """Every notebook executed and rendered to HTML once per test run, as ``make notebooks`` does.

    The report test, the docs-site build and the browser test read the same pages; under
    pytest-xdist the first worker to ask renders them (behind a file lock) and the others reuse them.
    Returns the folder and the HTML files written (``index.html`` last).
    """
    from filelock import FileLock

    from rankviz.report import render_notebooks

    out = _shared_temp(tmp_path_factory) / "rendered_notebooks"
    listing = out / ".written"
    with FileLock(str(out) + ".lock"):
        if not listing.exists():
            written = render_notebooks(ROOT / "notebooks", out, timeout=600, quiet=True)
            listing.write_text("\n".join(p.name for p in written))
    return out, [out / name for name in listing.read_text().splitlines()]


TREC_EVAL_SOURCE = (ROOT / ".." / "shared" / "tools" / "trec_eval").resolve()


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory) -> Path:
    """The C trec_eval 10: ``$TREC_EVAL`` if set, else built with ``make`` from ../shared/tools/trec_eval.

    The build goes to a temporary folder outside the repository, once per test session.
    Without a compiler or the source the tests that need it skip, saying why; under CI
    (``CI=true``) they fail.
    """
    import shutil
    import subprocess

    def unavailable(message: str):
        if IN_CI:
            pytest.fail(message + "; CI=true requires the C trec_eval", pytrace=False)
        pytest.skip(message)

    given = os.environ.get("TREC_EVAL")
    if given:
        if not os.access(given, os.X_OK):
            unavailable(f"TREC_EVAL={given} is not an executable file")
        return Path(given)
    if not (TREC_EVAL_SOURCE / "Makefile").exists():
        unavailable(f"trec_eval source not found at {TREC_EVAL_SOURCE} (set TREC_EVAL to a built binary instead)")
    if shutil.which("make") is None or shutil.which("gcc") is None and shutil.which("cc") is None:
        unavailable("cannot build trec_eval: make or a C compiler is missing (set TREC_EVAL to a built binary)")
    from filelock import FileLock

    build = _shared_temp(tmp_path_factory) / "trec_eval_build"  # built once, whatever the number of xdist workers
    binary = build / "trec_eval"
    with FileLock(str(build) + ".lock"):
        if not binary.exists():
            shutil.copytree(TREC_EVAL_SOURCE, build, dirs_exist_ok=True)
            proc = subprocess.run(["make", "trec_eval"], cwd=build, capture_output=True, text=True, check=False)
            if proc.returncode != 0 or not binary.exists():
                unavailable(f"building trec_eval with make failed: {proc.stderr[-500:]}")
    return binary
