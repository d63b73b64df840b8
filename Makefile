# Two entry points, each creating .venv and installing what it needs:
#   make notebooks   run every notebook on the built-in example, render HTML under build/
#   make test        run the test suite (what .ci/run calls); installs Chromium and pdflatex with apt-get if it can
# optionally, make lab: open the notebooks in JupyterLab (installs the [lab] extra into .venv);
# make lab LAB_ARGS="--no-browser --port 8899" passes flags to jupyter lab (--allow-root is added as root)
# make docs: the documentation site in site/ (installs the [docs] extra), make dist: the wheel and sdist in dist/
# and, for CI, make test-pandas22: the core, statistics and I/O tests on pandas 2.2 in .venv-pandas22
# make lint: ruff (lint and format check), mypy, as configured in pyproject.toml, and numpydoc's docstring checks
#   (scripts/check_docstrings.py; installs the [lint] extra)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: notebooks lab lint docs dist test test-fast test-pandas22 system-packages bench bench-coverage clean

# What the tests need outside pip: Debian's chromium (the browser test) and pdflatex (the LaTeX export test).
SYSTEM_PACKAGES := chromium texlive-latex-base texlive-latex-recommended
# make lab LAB_ARGS="--no-browser --port 8899": extra flags for jupyter lab
LAB_ARGS ?=
# JupyterLab refuses to start as root (the default user in Docker and dev containers) without --allow-root
LAB_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	@touch $@

# What the rendered notebooks depend on: the notebooks and everything rankviz ships (code, templates, the example).
NOTEBOOK_INPUTS := $(wildcard notebooks/*.ipynb) $(shell find rankviz -type f ! -path '*/__pycache__/*' ! -name '*.pyc') pyproject.toml
# Touched after every complete render: newer than NOTEBOOK_INPUTS means build/ shows what the current code computes.
NOTEBOOKS_STAMP := build/.notebooks-rendered

notebooks: $(VENV)/.installed-notebooks
	$(BIN)/python -m rankviz notebooks notebooks --output build
	@touch $(NOTEBOOKS_STAMP)

# Optional: the notebooks live in JupyterLab (widgets included), on the built-in example.
lab: $(VENV)/.installed-lab
	$(BIN)/jupyter lab $(LAB_ROOT) $(LAB_ARGS) notebooks

# The documentation site, offline, built strict (a warning fails it). The gallery embeds the notebooks
# as `make notebooks` renders them. They are rendered again only when build/ is older than a notebook or
# a file of rankviz (or absent, as in a fresh clone, which builds the whole site): right after
# `make notebooks` the site reuses build/, and the gallery always shows what the current code computes
# (a render takes about 40 s on the example).
$(NOTEBOOKS_STAMP): $(NOTEBOOK_INPUTS) | $(VENV)/.installed-docs
	$(BIN)/python -m rankviz notebooks notebooks --output build --quiet
	@touch $@

docs: $(VENV)/.installed-docs $(NOTEBOOKS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

# The wheel and the sdist, checked as PyPI would (tests/test_wheel.py installs the wheel in a fresh venv).
dist: $(VENV)/.installed-test
	rm -rf dist
	$(BIN)/python -m build
	$(BIN)/python -m twine check --strict dist/*

# Installs $(SYSTEM_PACKAGES) with apt-get when chromium or pdflatex is missing and apt-get can run
# (as root, or with sudo without a password); otherwise says what to install (those tests then skip, or fail under CI).
system-packages:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	command -v pdflatex >/dev/null 2>&1 || missing="$$missing texlive-latex-base texlive-latex-recommended"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi; \
		if [ "$$sudo" != none ] && command -v apt-get >/dev/null 2>&1; then \
			echo "make test: installing$$missing with apt-get"; \
			($$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null) \
				|| echo "make test: warning: could not install$$missing; the tests that need them skip (and fail under CI)" >&2; \
		else \
			echo "make test: warning:$$missing missing and apt-get cannot run here; install them (apt-get install$$missing) or the tests that need them skip (and fail under CI)" >&2; \
		fi; \
	fi

LINT_PATHS := rankviz tests benchmarks scripts

lint: $(VENV)/.installed-lint
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy
	$(BIN)/python scripts/check_docstrings.py

# -n auto: one pytest-xdist worker per core; --dist loadfile keeps a file's tests (and its module fixtures) on one worker
test: system-packages $(VENV)/.installed-test
	$(BIN)/python -m pytest -n auto --dist loadfile

# The quick loop while developing: everything but the slow tests (notebooks, browser, pandas' suite).
test-fast: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n auto --dist loadfile -m "not slow"

# pandas 2.2 is the oldest pandas rankviz supports (pyproject: pandas>=2.2); pandas 3 is what .venv gets.
VENV22 := .venv-pandas22
PANDAS22_TESTS := tests/io/test_trec_files.py tests/conformance/test_trec_eval_expected.py tests/stats/test_intervals_and_paired.py tests/core/test_input_shapes.py \
	tests/evaluation/test_errors.py tests/evaluation/test_api.py tests/evaluation/test_invariants.py tests/conformance/test_pytrec_eval.py tests/io/test_bad_files.py

$(VENV22)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV22)
	$(VENV22)/bin/python -m pip install --quiet --upgrade pip
	$(VENV22)/bin/python -m pip install --quiet -e ".[test]" "pandas==2.2.*"
	@touch $@

test-pandas22: $(VENV22)/.installed
	$(VENV22)/bin/python -c "import pandas; assert pandas.__version__.startswith('2.2.'), pandas.__version__"
	$(VENV22)/bin/python -m pytest -m "not slow" $(PANDAS22_TESTS)

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py

bench-coverage: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/coverage.py

clean:
	rm -rf build site dist .pytest_cache .hypothesis .mypy_cache .ruff_cache
