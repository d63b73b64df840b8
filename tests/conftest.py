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
