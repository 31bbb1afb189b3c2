"""End to end: ``make release``'s archive of a pipeline run, unpacked as a reader of the
repository would: its data package and its crate validate, its site opens in a browser
from a local server, and its source rebuilds the study offline (on the offline mirror of
the paper's release, the committed ``dvc.lock`` byte for byte)."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from analysis.core.claims import load_claims
from analysis.core.config import load_params
from analysis.core.paths import ROOT, Paths
from tests.support.browser import Browser, find_chromium, serve
from tests.support.mirror import MIRROR, paper
from tests.support.scoreboards import scoreboard_counts
from tests.support.workspace import (
    copy_run,
    lock_difference,
    pipeline_env,
    run_in,
    set_params,
)

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


def test_the_archive_rebuilds_the_study_from_source_offline(small_run, tmp_path):
    """The archive's README steps, in a new folder with no network and no .git: the release
    placed at source/data/release/, then make report in source/ rebuilds the study and its
    site.

    With the offline mirror (../shared), the archive's source is the project as committed
    (its params.yaml, the release's manifest and dvc.lock) and the release placed there is
    the paper's: make report finds it verified against the committed manifest, Table I is
    the paper's, and the rebuilt dvc.lock is the committed one byte for byte (a lock left
    stale by a code change fails here). Without the mirror, the small dump, with a manifest
    of its own."""
    work = copy_run(small_run.project, tmp_path / "project")
    if MIRROR.is_dir():
        release = MIRROR
        # every file as this repository's HEAD has it (params.yaml, the release's manifest,
        # dvc.lock, the metrics), over the small run's
        committed = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT,
                                   check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(committed)) as tar:
            tar.extractall(work, filter="data")
        committed_lock = (work / "dvc.lock").read_text(encoding="utf-8")
    else:
        release = small_run.dump
        files = sorted(p for p in release.rglob("*") if p.is_file())
        (work / "data" / "release.sha256").write_text("".join(
            f"{hashlib.sha256(p.read_bytes()).hexdigest()}  "
            f"./{p.relative_to(release).as_posix()}\n" for p in files))
        set_params(work, "ingest", source="data/release", manifest="data/release.sha256",
                   mirror=None, release_url="https://127.0.0.1:9/release.zip",
                   swh_directory=None)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c",
           "commit.gpgsign=false"]
    run_in(work, [*git, "add", "-A"])
    run_in(work, [*git, "commit", "-q", "--no-verify", "-m", "run"])
    commit = run_in(work, ["git", "rev-parse", "HEAD"]).stdout.strip()
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
    shutil.copytree(release, source / "data" / "release")  # where the README says
    # what the archive holds, in a git repository kept outside source/ (the rebuild sees no
    # .git): afterwards, no file of it has changed and none is new but what .gitignore
    # leaves out, as `git status` would say of a clone
    held = [*git, f"--git-dir={tmp_path / 'held.git'}", f"--work-tree={source}"]
    run_in(source, [*held, "init", "-q"])
    run_in(source, [*held, "add", "-A"])
    run_in(source, [*held, "commit", "-q", "--no-verify", "-m", "the archive's source"])
    rebuilt = subprocess.run(["make", "report", f"BIN={sys.prefix}/bin", "STAMP="],
                             cwd=source, env=offline_env(source), capture_output=True,
                             text=True, timeout=3600)
    assert rebuilt.returncode == 0, rebuilt.stdout[-3000:] + rebuilt.stderr[-3000:]
    assert "data/release already holds the pinned release" in rebuilt.stdout
    site = source / "report" / "_site"
    assert (site / "index.html").is_file() and (site / "evaluate.html").is_file()
    assert json.loads((site / "build.json").read_text())["commit"] == commit
    assert not (source / ".git").exists()
    changed = run_in(source, [*held, "status", "--porcelain", "--untracked-files=all"]).stdout
    # on the small dump the archived dvc.lock is the small run's, from before its params
    # named data/release: the rebuild writes the lock of those params
    expected = "" if MIRROR.is_dir() else " M dvc.lock\n"
    assert changed == expected, f"the rebuild changed files the archive holds:\n{changed}"
    if MIRROR.is_dir():
        the_release_reproduces_the_paper(source, committed_lock)


FALSE_POSITIVE = r"\.false_positive(?:$|\.average$)"


def the_release_reproduces_the_paper(source: Path, committed_lock: str) -> None:
    """The rebuild of the project as committed on the paper's release: dvc.lock is the
    committed one, Table I the paper's, the release verified file by file."""
    fresh = (source / "dvc.lock").read_text(encoding="utf-8")
    assert fresh == committed_lock, (
        "dvc.lock of a fresh run on the release differs from the committed one (git show "
        f"HEAD:dvc.lock) at {lock_difference(committed_lock, fresh)}: commit the dvc.lock "
        "that `make report` writes with the code that changed it")
    card = pd.read_csv(Paths(source).findings.table("scorecard.csv"), dtype=str,
                       keep_default_na=False)
    t1 = card[card["claim_id"].str.startswith("table1.")]
    # the projects' false-positive rates and their average: the release cannot give them
    fp = t1["claim_id"].str.contains(FALSE_POSITIVE)
    claims = load_claims()["claim_id"]
    rates = claims[claims.str.startswith("table1.") & claims.str.contains(FALSE_POSITIVE)]
    assert sorted(t1.loc[fp, "claim_id"]) == sorted(rates) and len(rates) > 1
    assert (t1.loc[~fp, "status"] == "exact").all(), t1.loc[~fp & (t1["status"] != "exact")]
    assert (t1.loc[fp, "status"] == "not_reproducible").all()
    assert t1.loc[fp, "note"].str.contains("never released").all()
    # the Overview's two scoreboards add up to the scorecard's rows, status by status
    boards = scoreboard_counts(
        (source / "report/_generated/scorecard_summary.md").read_text(encoding="utf-8"))
    assert set(boards) == {"printed", "examples"}
    assert sum(b["claims"] for b in boards.values()) == len(card)
    for status, n in card["status"].value_counts().items():
        assert sum(b[status] for b in boards.values()) == n, status
    prov = json.loads((source / "data/provenance.json").read_text())
    assert prov["verified"] and prov["file_count"] == prov["manifest"]["files_listed"]
    assert prov["source"] == "data/release"
    assert prov["commit"] == load_params(source / "params.yaml")["ingest"]["commit"]
    metrics = json.loads(subprocess.run(
        ["dvc", "metrics", "show", "--json"], cwd=source, env=offline_env(source),
        check=True, capture_output=True, text=True).stdout)
    assert str(int(paper("table1.total_reports"))) in json.dumps(metrics)
