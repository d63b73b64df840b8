# Two entry points, each creating .venv and installing what it needs:
#   make notebooks   run every notebook on the built-in example, render HTML under build/
#   make test        run the test suite (what .ci/run calls)
# optionally, make lab: open the notebooks in JupyterLab (installs the [lab] extra into .venv)
# and, for CI, make test-pandas22: the core, statistics and I/O tests on pandas 2.2 in .venv-pandas22
# make lint: ruff (lint and format check) and mypy, as configured in pyproject.toml (installs the [lint] extra)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: notebooks lab lint test test-fast test-pandas22 bench bench-coverage clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	@touch $@

notebooks: $(VENV)/.installed-notebooks
	$(BIN)/python -m rankviz notebooks notebooks --output build

# Optional: the notebooks live in JupyterLab (widgets included), on the built-in example.
lab: $(VENV)/.installed-lab
	$(BIN)/jupyter lab notebooks

LINT_PATHS := rankviz tests benchmarks scripts

lint: $(VENV)/.installed-lint
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

# The quick loop while developing: everything but the slow tests (notebooks, browser, pandas' suite).
test-fast: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m "not slow"

# pandas 2.2 is the oldest pandas rankviz supports (pyproject: pandas>=2.2); pandas 3 is what .venv gets.
VENV22 := .venv-pandas22
PANDAS22_TESTS := tests/test_io.py tests/test_conformance_trec_eval.py tests/test_stats.py tests/test_shapes.py \
	tests/test_errors.py tests/test_api.py tests/test_invariants.py tests/test_pytrec_eval_agreement.py tests/test_bad_files.py

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
	rm -rf build .pytest_cache .hypothesis .mypy_cache .ruff_cache
