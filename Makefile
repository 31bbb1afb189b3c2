# Two commands do everything on a fresh machine with Python 3.11:
#   make report   set up .venv, run the whole pipeline (DVC), build the site
#   make test     set up .venv, run the test suite
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
# PYTHONDONTWRITEBYTECODE cleared: the set-up compiles no bytecode (analysis.tools.install),
# Python writes it for each module on its first import, and every later process reuses it
RUN := PATH="$(BIN):$$PATH" PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=
PYTEST_ARGS ?=
# the set-up: uv installs the hashed pins when it can be had, else pip; INSTALLER=pip uses
# pip only, INSTALLER=uv allows no fallback. The line printed and .venv/.installer say which
# one ran.
INSTALLER ?= auto
SETUP = PYTHONPATH=src $(1) -m analysis.tools.install
PINNED := requirements.txt requirements-no-deps.txt requirements-uv.txt pyproject.toml

.PHONY: report pipeline serve test test-fast bench lint venv clean-venv pins

venv: $(STAMP)

# (the set-up's time is recorded for the site's end-to-end run time: build/runs/setup.json)
$(STAMP): $(PINNED)
	$(eval SETUP_STARTED := $(shell date +%s.%N))
	@$(call SETUP,$(PYTHON)) $(VENV) --installer $(INSTALLER)
	@$(BIN)/python -m analysis.core.runlog setup setup $(SETUP_STARTED)

## after adding or changing a pin in requirements*.txt: rewrite the files with the hashes of
## every pinned version (and the dependencies a new package needs), with uv and PyPI
pins:
	@$(call SETUP,$(PYTHON)) $(VENV) --pins

## the whole study: ingest -> clean -> analyses -> scorecard -> site (Quarto if it can be
## had, else the pandoc preview; the site is rendered again if it does not show the current
## sources, e.g. after DVC restored them from its run cache, if it is missing, or if Quarto
## has become available since the preview rendered it)
report: $(STAMP)
	$(RUN) python -m analysis.report quarto-setup
	$(RUN) python -m analysis.ingest fetch
	$(RUN) python -m analysis.tools.repro
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

## the test suite with line coverage of src/analysis (pipeline subprocesses included; settings
## in tests/coverage.cfg), per module in the terminal
.PHONY: coverage
coverage: $(STAMP)
	$(RUN) python -m pytest -n 2 --cov=analysis --cov-config=tests/coverage.cfg \
		--cov-report=term $(PYTEST_ARGS)

## the unit tests under each of Python 3.11, 3.12 and 3.13 that this machine has (on PATH,
## else under pyenv), each in its own .venv-3.X made like .venv, by the same installer
## (never touching .venv);
## ends with one line per version: passed, failed or absent
PYENV_ROOT ?= $(HOME)/.pyenv
TEST_PYTHONS ?= 3.11 3.12 3.13
.PHONY: test-pythons
test-pythons:
	@summary=(); failed=0; \
	for v in $(TEST_PYTHONS); do \
	  want="import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$$v'.split('.'))))"; \
	  py=""; \
	  for c in "$$(command -v python$$v)" $$(ls -d $(PYENV_ROOT)/versions/$$v.*/bin/python3 \
	      2>/dev/null | sort -V -r); do \
	    if [ -n "$$c" ] && "$$c" -c "$$want" >/dev/null 2>&1; then py=$$c; break; fi; \
	  done; \
	  if [ -z "$$py" ]; then \
	    echo "test-pythons: python$$v not found, skipped"; \
	    summary+=("Python $$v: absent"); continue; \
	  fi; \
	  venv=.venv-$$v; stale=; \
	  for f in $(PINNED); do [ $$f -nt $$venv/.installed ] && stale=1; done; \
	  if [ ! -f $$venv/.installed ] || [ -n "$$stale" ]; then \
	    echo "test-pythons: setting up $$venv with $$py"; \
	    $(call SETUP,"$$py") $$venv --installer $(INSTALLER) || { \
	      summary+=("Python $$v: failed (could not set up $$venv)"); failed=1; continue; }; \
	  fi; \
	  echo "test-pythons: Python $$v ($$py) in $$venv"; \
	  if PATH="$(CURDIR)/$$venv/bin:$$PATH" PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE= \
	      python -m pytest -m "not slow" -q $(PYTEST_ARGS); then \
	    summary+=("Python $$v: passed"); \
	  else summary+=("Python $$v: failed (tests)"); failed=1; fi; \
	done; \
	echo "test-pythons summary:"; printf '  %s\n' "$${summary[@]}"; exit $$failed

## benchmarks; results go to bench/results/ (one JSON per benchmark, and summary.md);
## BENCH_ARGS="--only pipeline" runs one of them
BENCH_ARGS ?=
bench: $(STAMP)
	$(RUN) python -m analysis.tools.bench --out bench/results $(BENCH_ARGS)

lint: $(STAMP)
	$(RUN) ruff check src tests notebooks benchmarks

clean-venv:
	rm -rf $(VENV)
