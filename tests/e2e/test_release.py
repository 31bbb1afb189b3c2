"""End to end: ``make release``'s archive of a pipeline run, unpacked as a reader of the
repository would: its data package and its crate validate, and its site opens in a
browser from a local server."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.browser import Browser, find_chromium, serve
from tests.support.workspace import copy_run, pipeline_env, set_params

pytestmark = pytest.mark.slow


def test_the_unpacked_archive_validates_and_its_site_opens(small_run, tmp_path):
    work = copy_run(small_run.project, tmp_path / "project")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c",
           "commit.gpgsign=false"]
    subprocess.run([*git, "add", "-A"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-q", "--no-verify", "-m", "run"], cwd=work, check=True)
    made = subprocess.run(["make", "release", f"BIN={sys.prefix}/bin", "STAMP=",
                           "RELEASE_ARGS=--unmeasured"], cwd=work,
                          env=pipeline_env(work), capture_output=True, text=True,
                          timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    (archive,) = (work / "build" / "release").glob("*.zip")
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(tmp_path / "unpacked")
    (unpacked,) = (tmp_path / "unpacked").iterdir()

    from tests.support.crates import validate_crate

    passed, issues, refused = validate_crate(unpacked)
    assert passed and not refused, issues
    exe = [sys.executable, "-m", "frictionless", "validate", "--json", "datapackage.json"]
    checked = subprocess.run(exe, cwd=unpacked / "downloads", capture_output=True, text=True,
                             timeout=300)
    report = json.loads(checked.stdout)
    assert report["valid"], [e.get("message") for t in report["tasks"]
                             for e in t.get("errors", [])][:10]

    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no Chromium here (Debian's chromium package)")
    with serve(unpacked / "site") as base, Browser(chromium) as browser:
        for page in ("index.html", "reproducibility.html"):
            facts = browser.open(base + page)
            assert not facts["problems"], (page, facts["problems"])
            assert browser.evaluate("document.querySelectorAll('main, #quarto-content, "
                                    "body > *').length") > 0
            assert all(u.startswith(base) or u.startswith("data:")
                       for u in facts["requests"]), facts["requests"]


def offline_env(source: Path) -> dict[str, str]:
    """The environment of a machine without network, running the archived source's code:
    every HTTP(S) request goes to a proxy nothing answers, pip may not use an index."""
    refused = "http://127.0.0.1:9"
    env = {**pipeline_env(source), "https_proxy": refused, "http_proxy": refused,
           "HTTPS_PROXY": refused, "HTTP_PROXY": refused, "PIP_NO_INDEX": "1"}
    env.pop("no_proxy", None)
    env.pop("NO_PROXY", None)
    return env


def test_the_archive_rebuilds_its_site_from_source_offline(small_run, tmp_path):
    """The archive's README steps, in a new folder with no network and no .git: the data
    placed at source/data/release/, then make report in source/ rebuilds the site."""
    work = copy_run(small_run.project, tmp_path / "project")
    dump = small_run.dump
    files = sorted(p for p in dump.rglob("*") if p.is_file())
    (work / "data" / "release.sha256").write_text("".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  ./{p.relative_to(dump).as_posix()}\n"
        for p in files))
    set_params(work, "ingest", source="data/release", manifest="data/release.sha256",
               mirror=None, release_url="https://127.0.0.1:9/release.zip",
               swh_directory=None)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c",
           "commit.gpgsign=false"]
    subprocess.run([*git, "add", "-A"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-q", "--no-verify", "-m", "run"], cwd=work, check=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=work, check=True,
                            capture_output=True, text=True).stdout.strip()
    made = subprocess.run(["make", "release", f"BIN={sys.prefix}/bin", "STAMP=",
                           "RELEASE_ARGS=--unmeasured"], cwd=work, env=pipeline_env(work),
                          capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    (archive,) = (work / "build" / "release").glob("*.zip")
    elsewhere = tmp_path / "elsewhere"
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(elsewhere)
    (unpacked,) = elsewhere.iterdir()
    source = unpacked / "source"
    assert not (source / ".git").exists() and (source / "COMMIT").read_text().strip() == commit
    readme = (unpacked / "README.md").read_text()
    assert "`source/data/release/`" in readme and "make report" in readme
    shutil.copytree(dump, source / "data" / "release")  # where the README says
    rebuilt = subprocess.run(["make", "report", f"BIN={sys.prefix}/bin", "STAMP="],
                             cwd=source, env=offline_env(source), capture_output=True,
                             text=True, timeout=3600)
    assert rebuilt.returncode == 0, rebuilt.stdout[-3000:] + rebuilt.stderr[-3000:]
    assert "data/release already holds the pinned release" in rebuilt.stdout
    site = source / "report" / "_site"
    assert (site / "index.html").is_file() and (site / "evaluate.html").is_file()
    assert json.loads((site / "build.json").read_text())["commit"] == commit
    assert not (source / ".git").exists()
