# Two commands do everything on a fresh machine with Python 3.11:
#   make report   set up .venv, run the whole pipeline (DVC), build the site
#   make test     set up .venv, run the test suite
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
# PYTHONDONTWRITEBYTECODE cleared: the set-up compiles no bytecode (SETUP, below),
# Python writes it for each module on its first import, and every later process reuses it
RUN := PATH="$(BIN):$$PATH" PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=
PYTEST_ARGS ?=
# The set-up, `$(call SETUP,PYTHON,VENV)`: a virtual environment with the pins of
# requirements*.txt, every file checked against its hash, then the project itself, editable.
# pip installs the pinned uv wheel (requirements-uv.txt), uv installs the pins; when uv
# cannot be had or fails, pip installs the same files with the same hashes (INSTALLER=pip:
# pip only; INSTALLER=uv: no fallback). VENV/.installer and the last line say which ran.
INSTALLER ?= auto
PINNED := requirements.txt requirements-no-deps.txt requirements-uv.txt pyproject.toml

.PHONY: report pipeline serve test test-fast bench lint venv clean-venv pins
PIP_INSTALL = $(2)/bin/python -m pip install --quiet --disable-pip-version-check --no-compile
UV_INSTALL = $(2)/bin/uv pip install --quiet --python $(2)/bin/python
define SETUP
$(1) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "$(1) is older than Python 3.11: run make with PYTHON=python3.11" >&2; exit 1; }; \
[ -x $(2)/bin/python ] || $(1) -m venv $(2) \
  || { echo "$(2): python -m venv failed; on Debian or Ubuntu install python3-venv" >&2; exit 1; }; \
echo '*' > $(2)/.gitignore; rm -f $(2)/.installed; \
if [ "$(INSTALLER)" = pip ]; then why="INSTALLER=pip"; \
elif ! $(PIP_INSTALL) --only-binary :all: --require-hashes -r requirements-uv.txt \
    || [ ! -x $(2)/bin/uv ]; then \
  why="uv could not be installed from requirements-uv.txt"; \
elif $(UV_INSTALL) --require-hashes -r requirements.txt \
    && $(UV_INSTALL) --no-deps --require-hashes -r requirements-no-deps.txt \
    && $(UV_INSTALL) --no-deps --no-build-isolation -e .; then \
  why=; $(2)/bin/uv --version | cut -d' ' -f1,2 > $(2)/.installer; \
else why="uv failed"; fi; \
if [ -n "$$why" ]; then \
  [ "$(INSTALLER)" != uv ] || { echo "$(2): $$why and INSTALLER=uv allows no fallback" >&2; exit 1; }; \
  [ "$(INSTALLER)" = pip ] || echo "$(2): $$why; installing with pip instead" >&2; \
  $(PIP_INSTALL) --require-hashes -r requirements.txt \
    && $(PIP_INSTALL) --no-deps --require-hashes -r requirements-no-deps.txt \
    && $(PIP_INSTALL) --no-deps --no-build-isolation -e . \
    || { echo "$(2): pip failed (its message is above); fix that, then run make venv again" >&2; exit 1; }; \
  echo "$$($(2)/bin/python -m pip --version | cut -d' ' -f1,2) ($$why)" > $(2)/.installer; \
fi; \
touch $(2)/.installed; echo "$(2): installed with $$(cat $(2)/.installer)"
endef

venv: $(STAMP)

# (the set-up's time is recorded for the site's end-to-end run time: build/runs/setup.json)
$(STAMP): $(PINNED)
	$(eval SETUP_STARTED := $(shell date +%s.%N))
	@$(call SETUP,$(PYTHON),$(VENV))
	@$(BIN)/python -m analysis.core.runlog setup setup $(SETUP_STARTED)

## after adding or changing a pin in requirements*.txt: rewrite the files with the hashes of
## every pinned version (and the dependencies a new package needs), with uv and PyPI; each
## file keeps the comments it opens with
pins: $(STAMP)
	@for f in requirements.txt requirements-no-deps.txt requirements-uv.txt; do \
	  deps=; [ $$f = requirements.txt ] || deps=--no-deps; \
	  { sed '/^[^#]/,$$d' $$f && $(BIN)/uv pip compile --quiet --generate-hashes \
	      --no-strip-extras --no-header --no-annotate --python $(BIN)/python $$deps $$f; \
	  } > $$f.new && mv $$f.new $$f && echo "$$f: $$(grep -c '^[A-Za-z0-9].*==' $$f) pins" \
	  || { rm -f $$f.new; echo "$$f: uv could not pin these versions (above)" >&2; exit 1; }; \
	done

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

## the artifact as one archive for a repository such as Zenodo (docs/release.md), from the
## committed checkout whose site make report built: build/release/<name>-<version>.zip
.PHONY: release
## (refused when the evaluators' page measures another commit than HEAD: docs/release.md;
## RELEASE_ARGS=--unmeasured builds it anyway, its README saying so)
RELEASE_ARGS ?=
release: $(STAMP)
	$(RUN) python -m analysis.report.release $(RELEASE_ARGS)

## the unpacked archive checked offline as its readers will: the RO-Crate validator at
## REQUIRED and RECOMMENDED, every MD5 of the crate, Frictionless, cffconvert
.PHONY: validate-release
validate-release: $(STAMP)
	$(RUN) python -m analysis.report.checkrelease

## read the site through a local web server (Quarto's pages load their scripts as modules,
## which browsers refuse from file://): http://127.0.0.1:8000/
serve:
	python3 -m http.server --bind 127.0.0.1 --directory report/_site 8000

## the test suite (unit, notebook and pipeline tests; mirror tests when ../shared exists)
test: $(STAMP)
	$(RUN) python -m pytest -n 2 $(PYTEST_ARGS)

## the fast tier: every test that runs no notebook, no DVC stage and no render (a guard
## in tests/conftest.py fails any that does; those are marked slow)
test-fast: $(STAMP)
	$(RUN) python -m pytest -n 2 -m "not slow" $(PYTEST_ARGS)

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
	    ( $(call SETUP,"$$py",$$venv) ) || { \
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

## Label Studio for the annotators (docs/update-loop.md, "Label Studio"): its own
## environment (.venv-studio, from requirements-studio.txt, made the first time), a server
## on http://127.0.0.1:8080 with a SQLite database in .studio/ (its administrator's
## password and API token in .studio/admin.json, its output in .studio/label-studio.log),
## until Ctrl-C; another port: make studio PORT=8081
.PHONY: studio
studio: $(STAMP)
	$(RUN) python -m analysis.update.labels studio serve $(if $(PORT),--port $(PORT))

lint: $(STAMP)
	$(RUN) ruff check src tests notebooks benchmarks

clean-venv:
	rm -rf $(VENV)
