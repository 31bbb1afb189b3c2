"""Pipeline runs shared by the end-to-end tests.

Each is made once per test session, and once across pytest-xdist's workers too: the first
worker that asks for it builds it in the folder the workers share (under a file lock); a
worker that asks while it is being built waits for it, and every later one reuses it.

- ``small_run``: the pipeline in a copy of the project on :func:`small_dump`, as
  ``make report`` runs it (:mod:`analysis.tools.repro`, two stages at a time: the tests
  that need the run wait for it, and the worker that would wait idle meanwhile gets a
  core's worth of its work), on a small synthetic dump;
- ``site_project``: every stage on the hostile dump of :mod:`tests.support.sites`;
- ``team_study``: the update tutorial followed by a team, batch after batch, in a copy of
  ``small_run`` (:mod:`tests.support.tutorial`), which the tutorial's and the study views'
  tests read.

Tests only read them. A test that changes a run (reruns, kills, other params) works in its
own copy: :func:`tests.support.workspace.copy_run` copies the run with its DVC cache and
lock, so DVC takes the copy as up to date and reruns only what the test changes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

from tests.support.declarations import audit_env
from tests.support.dumps import small_dump
from tests.support.workspace import copy_project, reproduce, set_params


def shared_folder(factory: pytest.TempPathFactory, name: str,
                  build: Callable[[Path], None]) -> Path:
    """``<the session's temporary folder>/<name>``, made by ``build(folder)`` once for all
    the workers of the session. A build that fails leaves nothing, and the next test that
    asks builds it again (and fails with its own message)."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # pytest-N/, shared by the workers' popen-gwN/
    folder, done = base / name, base / f"{name}.done"
    with FileLock(str(base / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            try:
                build(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            done.touch()
    return folder


@dataclass(frozen=True)
class Run:
    """A finished ``dvc repro`` in a copy of the project."""

    project: Path   # the copy: outputs, dvc.lock, .dvc/cache
    dump: Path      # the dump its params.yaml names (ingest.source)
    written: dict   # what small_dump wrote: project -> [(year, row)]
    output: str     # what the run printed
    declarations: Path  # the stage declarations each stage opened (support.declarations)


@pytest.fixture(scope="session")
def shared_small_dump(tmp_path_factory) -> Path:
    """The small synthetic dump that ``small_run`` ran on (ready before the run is)."""
    return shared_folder(tmp_path_factory, "small-dump",
                         lambda folder: small_dump(folder / "dump")) / "dump"


def point_at(work: Path, dump: Path) -> None:
    """Make a copy's pipeline read ``dump`` (no manifest, no declared commit)."""
    set_params(work, "ingest", source=dump, manifest=None, commit=None)


@pytest.fixture(scope="session")
def small_run(shared_small_dump, tmp_path_factory) -> Run:
    """The pipeline once, in a copy of the project, on the shared small dump; the
    declarations each stage opens are logged as it runs (an audit hook that only writes
    its log)."""
    def build(folder: Path) -> None:
        work = copy_project(folder / "project")
        point_at(work, shared_small_dump)
        said = reproduce(work, "--jobs", "2", env=audit_env(folder, work)).stdout
        (folder / "repro.out").write_text(said)

    folder = shared_folder(tmp_path_factory, "small-run", build)
    written = small_dump(tmp_path_factory.mktemp("small-dump-rows"))  # the same rows again
    return Run(folder / "project", shared_small_dump, written,
               (folder / "repro.out").read_text(), folder / "declarations.log")


@pytest.fixture(scope="session")
def site_project(tmp_path_factory) -> Path:
    """Every stage run once on the hostile dump of :mod:`tests.support.sites` (the site
    tests render it; the table-schema tests validate its CSVs)."""
    from tests.support.sites import build_project

    return shared_folder(tmp_path_factory, "site",
                         lambda folder: build_project(folder / "project")) / "project"


@pytest.fixture(scope="session")
def team_study(small_run, tmp_path_factory) -> Path:
    """The update tutorial, two batches, on the small release (the folder of
    :func:`tests.support.tutorial.build_team_study`)."""
    from tests.support.tutorial import build_team_study

    return shared_folder(tmp_path_factory, "team-study", lambda folder: build_team_study(
        folder, small_run.project, small_run.dump))


@pytest.fixture(scope="session")
def rendered_site(site_project, tmp_path_factory) -> Callable[[str], Path]:
    """``rendered_site(renderer)``: the project of ``site_project`` rendered in a copy by
    ``renderer`` ("preview" or "quarto"), once a session across the workers (the site
    tests only read it; one that renders again works in its own copy)."""
    from tests.support.sites import render_copy

    def rendered(renderer: str) -> Path:
        return shared_folder(tmp_path_factory, f"site-{renderer}", lambda folder: render_copy(
            site_project, folder / "project", renderer)) / "project"
    return rendered
