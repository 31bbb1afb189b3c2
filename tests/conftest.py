"""Shared fixtures: synthetic dumps, the taxonomy and the projects' descriptions."""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest

from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.taxonomy import Taxonomy, load_taxonomy
from analysis.tools.nbrun import STAGE_LOG
from tests.support.dumps import small_dump
from tests.support.runs import clean_readers, stage_runs, summary
from tests.support.tiers import forbid_slow_work, run_order

STAGE_LOG_KEY = pytest.StashKey[Path]()
DVC_NO_ANALYTICS = "DVC_NO_ANALYTICS"  # dvc.env.DVC_NO_ANALYTICS


@pytest.fixture(autouse=True)
def _fast_tier_guard(request, monkeypatch):
    """Tests outside the slow tier may not start notebooks, DVC or renders
    (tests/support/tiers.py)."""
    if request.node.get_closest_marker("slow"):
        yield
        return
    with forbid_slow_work(monkeypatch):
        yield


@cache
def project_taxonomy() -> Taxonomy:
    """data/taxonomy.yaml read once for the session; each test gets its own copy of it."""
    return load_taxonomy()


@pytest.fixture
def taxonomy() -> Taxonomy:
    """The project's taxonomy (data/taxonomy.yaml), the test's own copy (its tables may be
    changed without touching another test's)."""
    return copy.deepcopy(project_taxonomy())


@pytest.fixture
def projects() -> Projects:
    """The projects as data/projects.yaml describes them."""
    return Projects.load(PATHS.projects_file)


@pytest.fixture
def projects_meta(projects) -> Projects:
    """The same, under the name older tests use."""
    return projects


@pytest.fixture
def dump(tmp_path):
    """A small synthetic dump; returns (root, written rows)."""
    root = tmp_path / "dump"
    written = small_dump(root)
    return root, written


# --------------------------------------------------------------------------- order of the run

# The session-wide pipeline runs of tests/e2e/conftest.py, built by the first test that asks.
SHARED_RUNS = ("small_run", "site_project", "team_study")


def pytest_configure(config):
    """The stage log that counts the session's pipeline runs is set once, by the process
    that starts the workers (they inherit it); see tests/support/runs.py.

    Under pytest-xdist (`make test`: -n 2), hand the workers one test at a time instead of
    long slices of the collection (unless --maxschedchunk says otherwise), so that the long
    pipeline tests that come first (below) spread over the workers and the short ones fill
    in at the end.

    DVC's usage analytics are turned off for every DVC command the tests run
    (``DVC_NO_ANALYTICS``, inherited by the workers and their subprocesses): the project's
    .dvc/config turns them off for its copies, but a project a test makes with ``dvc init``
    would otherwise have each command start a detached ``dvc daemon analytics`` process,
    which outlives the test session and whose CPU no test is charged for."""
    os.environ[DVC_NO_ANALYTICS] = "1"
    if not os.environ.get(STAGE_LOG):
        log = Path(tempfile.mkdtemp(prefix="stage-log-")) / "stages.log"
        os.environ[STAGE_LOG] = str(log)
        config.stash[STAGE_LOG_KEY] = log
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = 1


# Fast-tier tests that take seconds each (pytest --durations), by node id or its start:
# they run first in their tier, so that neither worker is left running one of them alone
# at the end while the other waits. A name that no longer matches only loses its place.
LONG_FAST_TESTS = (
    "tests/unit/report/test_release.py::test_the_archive_holds",
    "tests/unit/tools/test_validate.py::test_validate_and_clean_agree_on_mutated_files",
    "tests/unit/taxonomy/test_distribution.py::test_figures_render_on_synthetic_data",
    "tests/unit/test_doc_commands.py::test_the_update_loop",
    "tests/unit/agreement/test_outputs.py::test_build_writes_every_listed_output",
    "tests/unit/test_properties.py::test_label_file",
    "tests/unit/test_properties.py::test_year_file",
    "tests/unit/compare/test_compute.py::test_baseline_matches_a_fresh_run_on_the_mirror",
    "tests/unit/agreement/test_figures.py::test_changed_figures_are_byte_stable",
    "tests/unit/interviews/test_outputs.py::test_build_writes_every_listed_file",
)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Slow tests first, and first of all one test that needs each shared pipeline run, so
    that the workers build the runs side by side at the start; then the fast tier, its
    longest tests (:data:`LONG_FAST_TESTS`) first; each group keeps pytest's order (and so
    its fixtures' grouping)."""
    for item in items:  # end-to-end tests and users of a shared pipeline run are slow
        if (item.path.parent.name == "e2e"
                or any(name in getattr(item, "fixturenames", ()) for name in SHARED_RUNS)):
            item.add_marker(pytest.mark.slow)
    items[:] = run_order(items, SHARED_RUNS, LONG_FAST_TESTS,
                         lambda item: item.get_closest_marker("slow") is not None)


def pytest_terminal_summary(terminalreporter, config):
    """The number of pipeline runs the session made, at the end of its report."""
    log = config.stash.get(STAGE_LOG_KEY, None)
    if log is not None:
        terminalreporter.write_line(summary(stage_runs(log),
                                            clean_readers(PATHS.root / "dvc.yaml")))


def pytest_unconfigure(config):
    """Remove the stage log's temporary folder, made by this process for the session."""
    log = config.stash.get(STAGE_LOG_KEY, None)
    if log is not None:
        shutil.rmtree(log.parent, ignore_errors=True)
        os.environ.pop(STAGE_LOG, None)
