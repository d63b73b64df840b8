# Two entry points, each creating .venv and installing what it needs:
#   make notebooks   run every notebook on the built-in example, render HTML under build/
#   make test        run the test suite (what .ci/run calls)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: notebooks test test-fast bench bench-coverage clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	@touch $@

notebooks: $(VENV)/.installed-notebooks
	$(BIN)/python -m rankviz notebooks notebooks --output build

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

# The quick loop while developing: everything but the slow tests (notebooks, browser, pandas' suite).
test-fast: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m "not slow"

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py

bench-coverage: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/coverage.py

clean:
	rm -rf build .pytest_cache .hypothesis
