"""The archive of ``make release`` (:mod:`analysis.report.release`), on a small project:
its files, its Zenodo metadata, its data package and its RO-Crate, which the published
validator accepts."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import ROOT, Paths
from analysis.report import release
from analysis.report.datapackage import datapackage, resource
from analysis.report.release import Commit, entity_id, stage_runs, zenodo_metadata

pytest.importorskip("rocrate")


def git(work: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org",
                           "-c", "commit.gpgsign=false", *args], cwd=work, check=True,
                          capture_output=True, text=True).stdout


def small_project(work: Path) -> Path:
    """A committed project with the real dvc.yaml, dvc.lock, params and CITATION.cff, a
    site and downloads with their data package (neither in git, as after make report)."""
    work.mkdir(parents=True)
    for name in ("dvc.yaml", "dvc.lock", "params.yaml", "CITATION.cff", "LICENSE"):
        shutil.copyfile(ROOT / name, work / name)
    (work / "src" / "analysis").mkdir(parents=True)
    (work / "src" / "analysis" / "core.py").write_text("x = 1\n", encoding="utf-8")
    (work / ".gitignore").write_text("report/_site/\nreport/downloads/\nbuild/\n")
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the project")
    site, downloads = work / "report" / "_site", work / "report" / "downloads"
    (site / "downloads").mkdir(parents=True)
    (site / "index.html").write_text("<!doctype html><title>Overview</title><p>hi</p>\n")
    downloads.mkdir(parents=True)
    (downloads / "scorecard.csv").write_text("claim_id,status\na.b,exact\n")
    package = datapackage([resource("scorecard.csv", downloads / "scorecard.csv", "card")],
                          "T", "D", {"version": "0.1.0", "license": "MIT"}, {})
    for folder in (downloads, site / "downloads"):
        (folder / "datapackage.json").write_text(json.dumps(package), encoding="utf-8")
    shutil.copyfile(downloads / "scorecard.csv", site / "downloads" / "scorecard.csv")
    return work


def test_the_archive_holds_what_a_repository_needs_and_validates(tmp_path):
    work = small_project(tmp_path / "project")
    commit = git(work, "rev-parse", "HEAD").strip()
    date = git(work, "log", "-1", "--format=%cI").strip()
    target = release.release(Paths(work), tmp_path / "out")
    assert target.name == "llm-framework-challenges-reproduction-0.1.0.zip"
    with zipfile.ZipFile(target) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "unpacked")
    top = "llm-framework-challenges-reproduction-0.1.0/"
    assert {top + n for n in ("ro-crate-metadata.json", ".zenodo.json", "CITATION.cff",
                              "site/index.html", "downloads/datapackage.json",
                              "source/dvc.yaml", "source/src/analysis/core.py")} <= names
    unpacked = tmp_path / "unpacked" / top
    # the data package and the site's copy carry the commit's date, not the day it ran
    for copy in ("downloads", "site/downloads"):
        assert json.loads((unpacked / copy / "datapackage.json").read_text())[
            "created"] == date
    zenodo = json.loads((unpacked / ".zenodo.json").read_text())
    assert zenodo["publication_date"] == date[:10] and zenodo["license"] == {"id": "mit"}
    assert commit in zenodo["notes"]
    crate = json.loads((unpacked / "ro-crate-metadata.json").read_text())
    graph = {e["@id"]: e for e in crate["@graph"]}
    assert graph["./"]["mainEntity"] == {"@id": "source/dvc.yaml"}
    assert graph["./"]["datePublished"] == date
    # every stage of dvc.lock is a run with its code, inputs and outputs, hashed
    lock_stages = set(release.safe_load((work / "dvc.lock").read_text())["stages"])
    runs = {i[len("#run-"):] for i in graph if i.startswith("#run-")} - {"pipeline"}
    assert runs == lock_stages
    findings = graph["#run-findings"]
    assert graph[findings["instrument"]["@id"]]["@type"] == "SoftwareApplication"
    assert {"@id": "source/data/claims.yaml"} in findings["object"] or any(
        o["@id"].endswith("data/claims.yaml") for o in findings["object"])
    out = graph[findings["result"][0]["@id"]]
    assert graph[out["identifier"]["@id"]]["propertyID"] == "md5"
    assert graph["#run-report"]["result"][-1] == {"@id": "downloads/"} or any(
        r["@id"] == "downloads/" for r in graph["#run-report"]["result"])
    # the published validator accepts the crate (offline: tests/support/crates.py)
    from tests.support.crates import validate_crate

    passed, issues, refused = validate_crate(unpacked)
    assert passed, issues
    assert not refused
    # ... and refuses one whose main workflow is not typed as one
    graph["source/dvc.yaml"]["@type"] = ["File", "SoftwareSourceCode"]
    (unpacked / "ro-crate-metadata.json").write_text(json.dumps(crate), encoding="utf-8")
    passed, issues, _ = validate_crate(unpacked)
    assert not passed and any("Main Workflow" in i for i in issues), issues
    # the same commit gives the same archive
    again = release.release(Paths(work), tmp_path / "again")
    assert again.read_bytes() == target.read_bytes()


def test_uncommitted_changes_are_refused(tmp_path):
    work = small_project(tmp_path / "project")
    (work / "params.yaml").write_text("changed: 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="uncommitted changes"):
        release.release(Paths(work), tmp_path / "out")


def test_zenodo_metadata_from_the_citation():
    cff = {"title": "T", "version": "1.0", "license": "MIT", "message": " cite it ",
           "authors": [{"family-names": "Doe", "given-names": "Jo"}, {"name": "Lab"}],
           "keywords": ["k"], "preferred-citation": {"url": "https://arxiv.org/abs/1"},
           "references": [{"type": "data", "repository-code": "https://github.com/o/r",
                           "commit": "abc"}]}
    z = zenodo_metadata(cff, Commit("f" * 40, "2026-01-02T03:04:05+00:00"))
    assert z["creators"] == [{"name": "Doe, Jo"}, {"name": "Lab"}]
    assert z["publication_date"] == "2026-01-02" and z["description"] == "cite it"
    assert [(r["relation"], r["identifier"]) for r in z["related_identifiers"]] == [
        ("isSupplementTo", "https://arxiv.org/abs/1"),
        ("isDerivedFrom", "https://github.com/o/r/tree/abc")]


def test_a_stage_s_code_inputs_and_outputs_and_where_the_archive_has_them():
    lock = {"stages": {"s": {"cmd": "python  -m x", "params": {"params.yaml": {}},
                             "deps": [{"path": "src/analysis/s", "md5": "1.dir"},
                                      {"path": "data/claims.yaml", "md5": "2"}],
                             "outs": [{"path": "report/downloads", "md5": "3.dir"},
                                      {"path": "report/tables", "md5": "4.dir"}]}}}
    (run,) = stage_runs(lock, set())
    assert run["cmd"] == "python -m x" and run["params"] == ["params.yaml"]
    assert [c["path"] for c in run["code"]] == ["src/analysis/s"]
    assert [i["path"] for i in run["inputs"]] == ["data/claims.yaml"]
    tracked = {"data/claims.yaml", "src/analysis/s/a.py"}
    assert entity_id("data/claims.yaml", tracked, False) == "source/data/claims.yaml"
    assert entity_id("src/analysis/s", tracked, True) == "source/src/analysis/s/"
    assert entity_id("report/downloads", tracked, True) == "downloads/"
    assert entity_id("report/tables", tracked, True) == "#dvc:report/tables"
