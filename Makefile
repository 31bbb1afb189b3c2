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

.PHONY: report pipeline serve test test-fast bench lint venv clean-venv

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		--no-build-isolation -e .
	@touch $(STAMP)

## the whole study: ingest -> clean -> analyses -> scorecard -> site (Quarto if it can be
## had, else the pandoc preview; the site is rendered again if it is missing, or if Quarto
## has become available since the preview rendered it)
report: $(STAMP)
	$(RUN) python -m analysis.report quarto-setup
	$(RUN) python -m analysis.ingest --resolve-source
	$(RUN) dvc repro
	$(RUN) python -m analysis.report render --if-needed

pipeline: report

## read the site through a local web server (Quarto's pages load their scripts as modules,
## which browsers refuse from file://): http://127.0.0.1:8000/
serve:
	python3 -m http.server --bind 127.0.0.1 --directory report/_site 8000

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
