"""A clone without ../shared: `python -m analysis.ingest fetch` downloads the release (from a
local HTTPS server here), `dvc repro ingest` reads data/release, and no tracked file
changes; offline, fetch ends in one line and leaves nothing behind."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from analysis.core.config import load_params
from tests.support.dumps import small_dump
from tests.support.workspace import copy_project, dvc, pipeline_env, project_files, set_params
from tests.unit.ingest.servers import https_server, unreachable_url

pytestmark = pytest.mark.slow


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def snapshot(work: Path) -> dict[str, str]:
    """SHA-256 of every file git would list in the copy (tracked or not ignored)."""
    return {rel: hashlib.sha256((work / rel).read_bytes()).hexdigest()
            for rel in project_files(work)}


def fetch(work: Path, cafile: Path | None = None) -> subprocess.CompletedProcess:
    env = pipeline_env(work)
    if cafile:
        env["SSL_CERT_FILE"] = str(cafile)
    return subprocess.run([sys.executable, "-m", "analysis.ingest", "fetch"], cwd=work,
                          env=env, capture_output=True, text=True, timeout=300)


def test_a_clone_without_the_mirror_fetches_the_release_and_ingests_it(tmp_path):
    dump = tmp_path / "dump"
    small_dump(dump)
    files = files_of(dump)
    commit = "2fba3163d6f143b6aa90128adde3d65ac8759c3e"
    www = tmp_path / "www"
    www.mkdir()
    with zipfile.ZipFile(www / f"{commit}.zip", "w") as zf:
        for rel, data in files.items():
            zf.writestr(f"LLMChallengeEmpirical-{commit}/{rel}", data)
        zf.writestr(f"LLMChallengeEmpirical-{commit}/README.md", "# upstream\n")

    work = copy_project(tmp_path / "project")
    assert not (work.parent / "shared").exists()  # the copy has no ../shared
    (work / "data" / "small.sha256").write_text(
        "".join(f"{hashlib.sha256(data).hexdigest()}  ./{rel}\n" for rel, data in files.items()),
        encoding="utf-8")
    cafile = tmp_path / "ca.pem"
    with https_server(www, cafile) as (base, requested):
        url = f"{base}/{commit}.zip"
        set_params(work, "ingest", mirror="../no-mirror-here", release_url=url,
                   manifest="data/small.sha256")
        params = (work / "params.yaml").read_bytes()
        dvc_yaml = (work / "dvc.yaml").read_bytes()
        before = snapshot(work)

        proc = fetch(work, cafile)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        assert proc.stdout == (
            f"ingest fetch: data/release: the pinned release (commit 2fba316, {len(files)} "
            f"files verified against data/small.sha256), downloaded from {url} (kept in "
            f"data/download/{commit}.zip); 1 file not in the manifest left out: README.md\n")
        assert requested == [f"/{commit}.zip"]
        dvc(work, "repro", "ingest")
        again = fetch(work)  # no CA, no download: the release is there
        assert again.returncode == 0 and again.stdout.endswith("; nothing to do\n")

    assert files_of(work / "data" / "raw") == files
    assert files_of(work / "data" / "release") == files
    assert (work / "params.yaml").read_bytes() == params
    assert (work / "dvc.yaml").read_bytes() == dvc_yaml
    after = snapshot(work)
    assert sorted(set(after) - set(before)) == ["dvc.lock"]
    assert {rel: h for rel, h in after.items() if rel != "dvc.lock"} == before

    text = (work / "data" / "provenance.json").read_text(encoding="utf-8")
    assert str(tmp_path) not in text and str(Path.home()) not in text
    prov = json.loads(text)
    assert prov["source"] == "data/release" and prov["source_kind"] == "dir"
    assert prov["commit"] == load_params(work / "params.yaml")["ingest"]["commit"]
    assert prov["manifest"]["path"] == "data/small.sha256" and prov["verified"]
    assert prov["not_in_manifest"] == [] and prov["file_count"] == len(files)
    lock = (work / "dvc.lock").read_text(encoding="utf-8")
    assert "path: data/release\n" in lock and str(tmp_path) not in lock

    # Offline, a clone with neither the mirror nor the release: one line, nothing left.
    for folder in ("release", "download"):
        shutil.rmtree(work / "data" / folder)
    offline_url = unreachable_url(f"{commit}.zip")
    set_params(work, "ingest", release_url=offline_url, swh_api=unreachable_url("api/1"))
    params = (work / "params.yaml").read_bytes()
    before = snapshot(work)
    data_before = sorted(p.name for p in (work / "data").iterdir())
    proc = fetch(work)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("ingest fetch: ")
    # every source it tried, in order: GitHub's archive, then Software Heritage's vault
    assert f"{offline_url}: download failed (" in proc.stderr
    assert proc.stderr.index(offline_url) < proc.stderr.index("Software Heritage")
    assert "data/release/" in proc.stderr and "ingest.mirror" in proc.stderr
    assert "ingest.source" in proc.stderr
    assert (work / "params.yaml").read_bytes() == params and snapshot(work) == before
    assert sorted(p.name for p in (work / "data").iterdir()) == data_before
