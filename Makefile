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

# (the set-up's time is recorded for the site's end-to-end run time: build/runs/setup.json)
$(STAMP): requirements.txt requirements-no-deps.txt pyproject.toml
	$(eval SETUP_STARTED := $(shell date +%s.%N))
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		-r requirements-no-deps.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		--no-build-isolation -e .
	@$(BIN)/python -m analysis.core.runlog setup setup $(SETUP_STARTED)
	@touch $(STAMP)

## the whole study: ingest -> clean -> analyses -> scorecard -> site (Quarto if it can be
## had, else the pandoc preview; the site is rendered again if it does not show the current
## sources, e.g. after DVC restored them from its run cache, if it is missing, or if Quarto
## has become available since the preview rendered it)
report: $(STAMP)
	$(RUN) python -m analysis.report quarto-setup
	$(RUN) python -m analysis.ingest fetch
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

## the test suite with line coverage of src/analysis (pipeline subprocesses included; settings
## in tests/coverage.cfg), per module in the terminal
.PHONY: coverage
coverage: $(STAMP)
	$(RUN) python -m pytest -n 2 --cov=analysis --cov-config=tests/coverage.cfg \
		--cov-report=term $(PYTEST_ARGS)

## the unit tests under each of Python 3.11, 3.12 and 3.13 that this machine has (on PATH,
## else under pyenv), each in its own .venv-3.X made like .venv (never touching .venv);
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
	  venv=.venv-$$v; \
	  if [ ! -f $$venv/.installed ] || [ requirements.txt -nt $$venv/.installed ] || \
	      [ requirements-no-deps.txt -nt $$venv/.installed ] || \
	      [ pyproject.toml -nt $$venv/.installed ]; then \
	    echo "test-pythons: setting up $$venv with $$py"; \
	    rm -f $$venv/.installed; { test -x $$venv/bin/python || "$$py" -m venv $$venv; } && \
	    echo '*' > $$venv/.gitignore && \
	    $$venv/bin/python -m pip install --quiet --disable-pip-version-check \
	      -r requirements.txt && \
	    $$venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
	      -r requirements-no-deps.txt && \
	    $$venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
	      --no-build-isolation -e . && \
	    touch $$venv/.installed || { \
	      summary+=("Python $$v: failed (could not set up $$venv)"); failed=1; continue; }; \
	  fi; \
	  echo "test-pythons: Python $$v ($$py) in $$venv"; \
	  if PATH="$(CURDIR)/$$venv/bin:$$PATH" PYTHONHASHSEED=0 \
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
