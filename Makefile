# Two commands do everything on a fresh machine with Python 3.11:
#   make report   set up .venv, run the whole pipeline (dvc repro), build the site
#   make test     set up .venv, run the test suite
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
RUN := PATH="$(BIN):$$PATH" PYTHONHASHSEED=0
PYTEST_ARGS ?=

.PHONY: report pipeline test test-fast bench lint venv clean-venv

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		--no-build-isolation -e .
	@touch $(STAMP)

## the whole study: ingest -> clean -> analyses -> scorecard (-> site)
report: $(STAMP)
	$(RUN) python -m analysis.ingest --resolve-source
	$(RUN) dvc repro

pipeline: report

## the test suite (unit, notebook and pipeline tests; mirror tests when ../shared exists)
test: $(STAMP)
	$(RUN) python -m pytest -n 2 $(PYTEST_ARGS)

## unit tests only (seconds)
test-fast: $(STAMP)
	$(RUN) python -m pytest -m "not slow" $(PYTEST_ARGS)

## benchmarks; results go to bench/results/
bench: $(STAMP)
	$(RUN) python -m analysis.bench --out bench/results

lint: $(STAMP)
	$(RUN) ruff check src tests notebooks benchmarks

clean-venv:
	rm -rf $(VENV)
