"""The set-up a newcomer runs: `make test` brings what pip cannot, `make lab` starts as root and takes flags."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(*targets: str) -> str:
    return subprocess.run(["make", "-n", "-C", str(ROOT), *targets], capture_output=True, text=True, check=True).stdout


def test_make_lab_passes_lab_args_and_allows_root_only_as_root():
    command = [
        line for line in _dry_run("lab", "LAB_ARGS=--no-browser --port 8899").splitlines() if "jupyter lab" in line
    ]
    assert len(command) == 1 and command[0].endswith("--no-browser --port 8899 notebooks")
    assert ("--allow-root" in command[0]) == (os.getuid() == 0)


def test_make_test_installs_chromium_and_pdflatex_first_and_ci_only_calls_make():
    steps = _dry_run("test")
    assert steps.index("apt-get install") < steps.index("-m pytest")
    for package in ("chromium", "texlive-latex-base", "texlive-latex-recommended"):
        assert package in (ROOT / "Makefile").read_text() and package in (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "apt-get install" not in ci and "make test\n" in ci and "make test-pandas22" in ci
