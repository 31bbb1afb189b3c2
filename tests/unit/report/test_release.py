"""The archive of ``make release`` (:mod:`analysis.report.release`), on a small project:
its files, its Zenodo metadata, its data package and its RO-Crate, which the published
validator accepts."""

from __future__ import annotations

import hashlib
import json
import re
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
    # dvc.lock as the pipeline would write it for this CITATION.cff (the MD5s of the
    # archive's files are checked against it)
    lock = (work / "dvc.lock").read_text(encoding="utf-8")
    md5 = hashlib.md5((work / "CITATION.cff").read_bytes()).hexdigest()
    (work / "dvc.lock").write_text(re.sub(r"(path: CITATION\.cff\n\s+hash: md5\n\s+md5: )\w+",
                                          rf"\g<1>{md5}", lock), encoding="utf-8")
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
    target = release.release(Paths(work), tmp_path / "out", measured=False)
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
    assert commit in zenodo["notes"] and "study authors' release" in zenodo["notes"]
    assert "<p>A reproduction package" in zenodo["description"]
    assert "If you use this" not in zenodo["description"]
    # a README and the code's licence at the top; the README says what to fill in
    readme = (unpacked / "README.md").read_text()
    assert (unpacked / "LICENSE").read_text() == (work / "LICENSE").read_text()
    for said in ("source/data/release/", "ORCID", "DOI", "MIT licence",
                 "authors' terms", "swh:1:dir:6459e0be8aa845554844105be3d115773c56d4d4"):
        assert said in readme, said
    # the source works without .git: DVC without an SCM, the commit in a file
    assert (unpacked / "source" / "COMMIT").read_text() == commit + "\n"
    assert "no_scm = true" in (unpacked / "source" / ".dvc" / "config.local").read_text()
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
    # the report stage's downloads as dvc.lock hashes them; the archive's folder, which
    # dates its data package, is based on them
    assert {"@id": "#dvc:report/downloads/"} in graph["#run-report"]["result"]
    assert graph["downloads/"]["isBasedOn"] == {"@id": "#dvc:report/downloads/"}
    # the code's licence and the data's terms apart
    assert graph["source/"]["license"] == {"@id": "https://spdx.org/licenses/MIT"}
    for part in ("site/", "downloads/"):
        assert graph[graph[part]["license"]["@id"]]["name"].startswith("The study authors'")
    assert graph["README.md"]["about"] == {"@id": "./"}
    assert graph["README.md"]["encodingFormat"] == "text/markdown"
    # no singleton arrays; every file has its format
    for entity in graph.values():
        assert not any(isinstance(v, list) and len(v) == 1 for v in entity.values()), entity
        if entity.get("@type") == "File":
            assert entity.get("encodingFormat"), entity
    # the published validator accepts the crate (offline: tests/support/crates.py), and at
    # the RECOMMENDED level asks only for what the depositors alone can give
    # (one run at RECOMMENDED runs the REQUIRED checks too, each issue naming its level)
    from analysis.report.checkrelease import DEPOSITORS_ONLY, md5_mismatches
    from tests.support.crates import CrateValidator, at_level

    validate = CrateValidator(severity="RECOMMENDED")
    _, issues, refused = validate(unpacked)
    assert at_level(issues, "REQUIRED") == [], issues
    assert not refused
    assert {i.split()[1] for i in issues} <= set(DEPOSITORS_ONLY), issues
    # every MD5 of a file of the archive is its own (CITATION.cff's as dvc.lock has it)
    assert md5_mismatches(unpacked) == (2, [])
    # ... and refuses one whose main workflow is not typed as one
    graph["source/dvc.yaml"]["@type"] = ["File", "SoftwareSourceCode"]
    (unpacked / "ro-crate-metadata.json").write_text(json.dumps(crate), encoding="utf-8")
    _, issues, _ = validate(unpacked)
    assert any("Main Workflow" in i for i in at_level(issues, "REQUIRED")), issues
    # the same commit gives the same archive
    again = release.release(Paths(work), tmp_path / "again", measured=False)
    assert again.read_bytes() == target.read_bytes()


def test_uncommitted_changes_are_refused(tmp_path):
    work = small_project(tmp_path / "project")
    (work / "params.yaml").write_text("changed: 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="uncommitted changes"):
        release.release(Paths(work), tmp_path / "out", measured=False)


def test_zenodo_metadata_from_the_citation():
    cff = {"title": "T", "version": "1.0", "license": "MIT", "message": " cite it ",
           "authors": [{"family-names": "Doe", "given-names": "Jo"}, {"name": "Lab"}],
           "keywords": ["k"], "preferred-citation": {"url": "https://arxiv.org/abs/1"},
           "references": [{"type": "data", "repository-code": "https://github.com/o/r",
                           "commit": "abc"}]}
    z = zenodo_metadata(cff, Commit("f" * 40, "2026-01-02T03:04:05+00:00"))
    assert z["creators"] == [{"name": "Doe, Jo"}, {"name": "Lab"}]
    assert z["publication_date"] == "2026-01-02" and "cite it" in z["notes"]
    assert z["description"].startswith("<p>A reproduction package")
    assert [(r["relation"], r["identifier"]) for r in z["related_identifiers"]] == [
        ("isSupplementTo", "https://arxiv.org/abs/1"),
        ("isDerivedFrom", "https://github.com/o/r/tree/abc")]
    cff["references"][0]["identifiers"] = [
        {"type": "swh", "value": f"swh:1:rev:{'a' * 40}"},
        {"type": "swh", "value": f"swh:1:dir:{'b' * 40}"}]
    z = zenodo_metadata(cff, Commit("f" * 40, "2026-01-02T03:04:05+00:00"))
    assert [(r["identifier"], r["scheme"]) for r in z["related_identifiers"][-2:]] == [
        (f"swh:1:rev:{'a' * 40}", "swh"), (f"swh:1:dir:{'b' * 40}", "swh")]
    assert f"swh:1:rev:{'a' * 40}" in z["description"]


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
    assert entity_id("report/tables", tracked, True) == "#dvc:report/tables"
    # an output is the pipeline's, not the archive's folder that holds a README in its place
    outputs = {"report/downloads", "data/processed/clean", "metrics/clean.json"}
    tracked |= {"data/processed/README.md", "metrics/clean.json"}
    assert entity_id("report/downloads", tracked, True, outputs) == "#dvc:report/downloads"
    assert entity_id("data/processed", tracked, True, outputs) == "#dvc:data/processed"
    assert entity_id("data/processed/clean", tracked, True, outputs) == (
        "#dvc:data/processed/clean")
    assert entity_id("metrics/clean.json", tracked, False, outputs) == (
        "source/metrics/clean.json")


def test_a_release_whose_page_measures_another_commit_is_refused(tmp_path):
    work = small_project(tmp_path / "project")
    with pytest.raises(InputError) as caught:
        release.release(Paths(work), tmp_path / "out")
    assert str(caught.value) == (
        "data/fresh_clone.json: the evaluators' page does not measure this commit: no "
        "readable measurement of a fresh clone -> measure this commit (python -m "
        "analysis.tools.fresh_clone --tests), commit data/fresh_clone.json, run make report "
        "and commit dvc.lock, then make release")
    assert not (tmp_path / "out").exists()
    # built anyway on request, the archive's README says so
    target = release.release(Paths(work), tmp_path / "out", measured=False)
    with zipfile.ZipFile(target) as zf:
        readme = zf.read(f"{target.stem}/README.md").decode()
    assert "## Not measured" in readme and "no readable measurement" in readme
