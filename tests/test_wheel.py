"""The package people install: the wheel and the sdist build, pass ``twine check``, and the wheel
installed in a fresh virtual environment (not editable, no system site-packages) runs the README's
quickstart and ``rankviz eval`` on the built-in example.

The build and the install reach PyPI through pip (its cache is reused). Without ``build``, ``twine``
or ``venv`` the tests skip saying why, and under CI (``CI=true``) they fail.
"""

from __future__ import annotations

import email.parser
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import rankviz
from tests.conftest import IN_CI, ROOT

pytestmark = pytest.mark.slow

# What the sdist is built from: the working tree without environments, outputs and caches.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "build",
    "dist",
    "site",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".ipynb_checkpoints",
    "_data",
)


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason}; CI=true requires it", pytrace=False)
    pytest.skip(reason)


def _run(args, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, check=False, **kwargs)
    assert proc.returncode == 0, (
        f"{' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    return proc


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """``python -m build`` (an sdist, then the wheel built from that sdist) on a copy of the source tree."""
    for module, package in (("build", "build"), ("twine", "twine"), ("venv", "the venv module")):
        if importlib.util.find_spec(module) is None:
            _unavailable(f"{package} is not importable: pip install -e '.[test]' installs it")
    source = tmp_path_factory.mktemp("source") / "rankviz"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)  # the build writes rankviz.egg-info beside its input
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", out, source])
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def test_twine_check_passes(dist):
    proc = _run([sys.executable, "-m", "twine", "check", "--strict", dist["wheel"], dist["sdist"]])
    assert proc.stdout.count("PASSED") == 2, proc.stdout


def test_one_version_string(dist):
    """The wheel's metadata, the file names and ``rankviz.__version__`` agree (pyproject reads the latter)."""
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(wheel.read(name).decode())
    assert metadata["Name"] == "rankviz"
    assert metadata["Version"] == rankviz.__version__
    assert dist["wheel"].name.startswith(f"rankviz-{rankviz.__version__}-")
    assert dist["sdist"].name == f"rankviz-{rankviz.__version__}.tar.gz"
    assert re.search(r'^dynamic = \["version"\]', (ROOT / "pyproject.toml").read_text(), re.MULTILINE), (
        "one version: no version = ... in pyproject"
    )


def test_wheel_and_sdist_hold_the_example_data_and_the_changelog(dist):
    shipped = sorted(p.name for p in (ROOT / "rankviz" / "datasets" / "data").iterdir() if p.is_file())
    assert {"run.tsv.gz", "qrels.tsv.gz", "queries.tsv.gz", "documents.jsonl.gz"} <= set(shipped)
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = set(wheel.namelist())
    assert {f"rankviz/datasets/data/{n}" for n in shipped} <= names
    assert {"rankviz/report/templates/report.ipynb", "rankviz/py.typed"} <= names  # the report's template; typed
    with tarfile.open(dist["sdist"]) as sdist:
        members = {m.split("/", 1)[1] for m in sdist.getnames() if "/" in m}
    assert {f"rankviz/datasets/data/{n}" for n in shipped} <= members
    assert {"README.md", "CHANGELOG.md", "pyproject.toml"} <= members


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> Path:
    """A fresh venv (no system site-packages) with the wheel pip-installed (not editable); its bin folder."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    _run([sys.executable, "-m", "venv", venv])
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    _run([bin_dir / "python", "-m", "pip", "install", "--quiet", dist["wheel"]])
    return bin_dir


def _clean_env() -> dict[str, str]:
    """The environment without anything that would import the source tree or another environment's packages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["MPLBACKEND"] = "Agg"  # the quickstart draws a plot
    return env


def test_installed_wheel_runs_the_readme_quickstart(installed, tmp_path):
    quickstart = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.DOTALL)[0]
    assert "load_example()" in quickstart
    check = (
        "import importlib.metadata, pathlib, sys, rankviz\n"
        "assert pathlib.Path(sys.prefix) in pathlib.Path(rankviz.__file__).parents, rankviz.__file__\n"
        "assert importlib.metadata.version('rankviz') == rankviz.__version__\n"
        "print('mrr', run.rank.mrr(k=10, qrels=qrels).round(6).to_dict())\n"
    )
    proc = _run([installed / "python", "-c", quickstart + "\n" + check], cwd=tmp_path, env=_clean_env())
    from rankviz.datasets import load_example

    run, qrels, _ = load_example()
    expected = rankviz.mrr(run, k=10, qrels=qrels).round(6).to_dict()
    assert f"mrr {expected}" in proc.stdout


def test_installed_rankviz_eval_on_the_example(installed, tmp_path, capsys):
    """``rankviz eval`` of the installed console script on the example written as TREC files: the source tree's lines."""
    write = (
        "import rankviz\n"
        "from rankviz.datasets import load_example\n"
        "run, qrels, _ = load_example()\n"
        "rankviz.write_run(run[run['system'] == 'bm25'], 'bm25.run')\n"
        "rankviz.write_qrels(qrels, 'qrels.txt')\n"
    )
    _run([installed / "python", "-c", write], cwd=tmp_path, env=_clean_env())
    proc = _run(
        [installed / "rankviz", "eval", "-m", "RR@10", "nDCG@10", "AP", "--", "qrels.txt", "bm25.run"],
        cwd=tmp_path,
        env=_clean_env(),
    )
    from rankviz import cli

    assert (
        cli.main(
            ["eval", "-m", "RR@10", "nDCG@10", "AP", "--", str(tmp_path / "qrels.txt"), str(tmp_path / "bm25.run")]
        )
        == 0
    )
    assert proc.stdout == capsys.readouterr().out
    assert re.search(r"^ndcg_cut_10\s+all\s+0\.\d{4}$", proc.stdout, re.MULTILINE), proc.stdout
