"""A stale site: ``report/_site/`` must always show the current outputs.

``report/_site/`` is not a DVC output, so when DVC restores the report stage's generated
sources from its run cache (a parameter changed, ``dvc repro``, changed back, ``dvc
repro``), nothing renders and the site would still show the other run.
``render --if-needed`` (the last step of ``make report``) compares the record the render
left in the site (``sources.json``) with the current sources, and renders again.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from analysis.core.paths import Paths
from analysis.report import site as site_module
from analysis.report.sources import (
    code_digest,
    hash_files,
    make_record,
    read_record,
    source_files,
)
from tests.support.faults import snapshot
from tests.support.sites import report_sources
from tests.support.workspace import RUN_RECORD, copy_run, dvc, pipeline_env, set_params

QUARTO = "Quarto 1.8.27"
PREVIEW = "pandoc preview (pandoc 3.9; Quarto not found)"


def rendered(tmp_path, renderer: str) -> Paths:
    """A project whose site ``renderer`` rendered from its current sources."""
    paths = report_sources(tmp_path)
    (paths.site / "index.html").write_text("<html/>")
    record = make_record(renderer, hash_files(paths.site_src, source_files(paths)),
                         code_digest())
    site_module.write_record(paths.site, record)
    return paths


@pytest.fixture
def quarto_here(monkeypatch):
    """Quarto 1.8.27 can be found."""
    monkeypatch.setattr(site_module, "find_quarto", lambda: "/opt/quarto/bin/quarto")
    monkeypatch.setattr(site_module, "quarto_version", lambda quarto: "1.8.27")


@pytest.fixture
def no_quarto(monkeypatch):
    monkeypatch.setattr(site_module, "find_quarto", lambda: None)


def test_a_site_of_the_current_sources_is_not_rendered_again(tmp_path, no_quarto):
    assert site_module.needs_render(rendered(tmp_path, PREVIEW)) is None


def test_a_changed_source_renders_again(tmp_path, no_quarto):
    paths = rendered(tmp_path, PREVIEW)
    (paths.site_src / "_variables.yml").write_text("agreement:\n  seed: 7\n")
    assert site_module.needs_render(paths) == (
        "1 of its source files changed since it was rendered (_variables.yml)")


def test_a_site_without_a_record_renders_again(tmp_path, no_quarto):
    paths = rendered(tmp_path, PREVIEW)
    (paths.site / "sources.json").unlink()
    assert site_module.needs_render(paths).startswith("it records no sources")
    (paths.site / "index.html").unlink()
    assert site_module.needs_render(paths) == "there is no site yet"


def test_the_renderer_counts_but_never_downgrades(tmp_path, monkeypatch, quarto_here):
    assert site_module.needs_render(rendered(tmp_path / "a", PREVIEW)) == (
        f"it was rendered by {PREVIEW}, and {QUARTO} is here now")
    assert site_module.needs_render(rendered(tmp_path / "b", QUARTO)) is None
    assert site_module.needs_render(rendered(tmp_path / "c", "Quarto 1.7.0")) == (
        f"it was rendered by Quarto 1.7.0, and {QUARTO} is here now")
    monkeypatch.setattr(site_module, "find_quarto", lambda: None)
    assert site_module.needs_render(rendered(tmp_path / "d", QUARTO)) is None
    assert site_module.needs_render(rendered(tmp_path / "e", QUARTO), "preview") == (
        f"it was rendered by {QUARTO}, and the preview is asked for")


def site_renderer(work) -> str:
    """The renderer (``quarto`` or ``preview``) that rendered the copy's site, as its record
    says: the shared run renders with Quarto where it can be found, as ``make report``
    does, and a test that renders that site again must use the same one to get the same
    bytes, on a machine with Quarto as on one without."""
    record = read_record(work / "report" / "_site")
    return "preview" if record["renderer"].startswith("pandoc preview") else "quarto"


def render_if_needed(work, renderer: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "analysis.report", "render", "--if-needed",
                           "--renderer", renderer], cwd=work, env=pipeline_env(work),
                          capture_output=True, text=True, check=True)
    assert proc.stderr == ""
    return proc.stdout


def site_pages(work) -> dict:
    """The site, without the run record (times and machine, which differ by design)."""
    return {rel: data for rel, data in snapshot(work / "report" / "_site").items()
            if f"report/_site/{rel}" not in RUN_RECORD}


@pytest.mark.slow
def test_a_parameter_changed_and_changed_back_leaves_no_stale_site(small_run, tmp_path):
    work = copy_run(small_run.project, tmp_path / "project")
    first = site_pages(work)
    renderer = site_renderer(work)
    params = (work / "params.yaml").read_text(encoding="utf-8")
    set_params(work, "agreement", seed=7, bootstrap_resamples=200)
    dvc(work, "repro")
    assert site_pages(work) != first  # the other run's seed and intervals are on the site
    (work / "params.yaml").write_text(params, encoding="utf-8")
    back = dvc(work, "repro").stdout
    assert "Stage 'report' is cached - skipping run, checking out outputs" in back
    assert site_pages(work) != first  # DVC restored the sources, and rendered nothing

    said = render_if_needed(work, renderer)
    assert said.startswith("report: rendering report/_site/ again: ")
    assert "of its source files changed since it was rendered" in said
    assert site_pages(work) == first
    assert render_if_needed(work, renderer) == (
        "report: report/_site/ shows the current sources; not rendered again\n")
