"""End to end: ``make release``'s archive of a pipeline run, unpacked as a reader of the
repository would: its data package and its crate validate, and its site opens in a
browser from a local server."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest

from tests.support.browser import Browser, find_chromium, serve
from tests.support.workspace import copy_run, pipeline_env

pytestmark = pytest.mark.slow


def test_the_unpacked_archive_validates_and_its_site_opens(small_run, tmp_path):
    work = copy_run(small_run.project, tmp_path / "project")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c",
           "commit.gpgsign=false"]
    subprocess.run([*git, "add", "-A"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-q", "--no-verify", "-m", "run"], cwd=work, check=True)
    made = subprocess.run(["make", "release", f"BIN={sys.prefix}/bin", "STAMP="], cwd=work,
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
