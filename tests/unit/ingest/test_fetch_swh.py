"""`ingest fetch`'s second source: Software Heritage's vault, tried after GitHub, verified
against the same manifest; each route served from a local HTTPS server."""

from __future__ import annotations

import io
import tarfile

import pytest

from analysis.ingest import swh
from analysis.ingest.download import DownloadError
from tests.unit.ingest.servers import https_server, unreachable_url, vault_server
from tests.unit.ingest.test_fetch import COMMIT, EXTRAS, FILES, Project, one_line, release_zip

DIRECTORY = "swh:1:dir:6459e0be8aa845554844105be3d115773c56d4d4"
SWH_PARAMS = """\
  swh_directory: {directory}
  swh_revision: swh:1:rev:{commit}
  swh_api: {api}
  swh_wait: 5
"""


def vault_tarball(files: dict[str, str], top: str = DIRECTORY) -> bytes:
    """A tarball as the vault cooks one: the directory's files under one folder."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for rel, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class SwhProject(Project):
    """A project whose params name Software Heritage's copy too."""

    api = unreachable_url("api/1/")

    def write_params(self, source: str = "data/release", mirror: str = "../nowhere",
                     url: str | None = None) -> None:
        super().write_params(source, mirror, url)
        self.params_text += SWH_PARAMS.format(directory=DIRECTORY, commit=COMMIT, api=self.api)
        self.paths.params.write_text(self.params_text, encoding="utf-8")


@pytest.fixture
def routes(tmp_path, monkeypatch):
    """GitHub's zip and the vault's tarball of the same files, each on a local HTTPS server
    (one CA trusted through SSL_CERT_FILE), and the vault's requests."""
    monkeypatch.setattr(swh, "POLL_SECONDS", 0.0)
    www = tmp_path / "www"
    www.mkdir()
    (www / f"{COMMIT}.zip").write_bytes(release_zip({**FILES, **EXTRAS}))
    cafile = tmp_path / "ca.pem"
    tarballs = {DIRECTORY: vault_tarball({**FILES, **EXTRAS})}
    with (https_server(www, cafile) as (base, _),
          vault_server(tarballs, tmp_path / "ca2.pem", ("pending", "done")) as (api, asked)):
        (tmp_path / "ca.pem").write_text((tmp_path / "ca.pem").read_text()
                                         + (tmp_path / "ca2.pem").read_text())
        monkeypatch.setenv("SSL_CERT_FILE", str(cafile))
        yield f"{base}/{COMMIT}.zip", api, asked, tarballs


@pytest.mark.parametrize("route", ["github", "software heritage"])
def test_each_route_gives_the_same_verified_release(tmp_path, routes, route, capsys):
    url, api, asked, _ = routes
    project = SwhProject(tmp_path)
    project.api = api
    github = url if route == "github" else url.replace(COMMIT, "gone")
    project.write_params(url=github)
    code, out, err = project.fetch(capsys)
    assert (code, err) == (0, "")
    assert project.release_files() == FILES
    if route == "github":
        assert f"downloaded from {url}" in one_line(out) and asked == []
        kept = f"{COMMIT}.zip"
    else:
        assert (f"downloaded from Software Heritage ({DIRECTORY}; kept in data/download/"
                f"swh_1_dir_6459e0be8aa845554844105be3d115773c56d4d4.tar.gz)") in one_line(out)
        flat = f"/api/1/vault/flat/{DIRECTORY}/"
        assert asked == [f"POST {flat}", f"GET {flat}", f"GET {flat}raw/"]
        kept = swh.tarball_name(DIRECTORY)
    assert [p.name for p in project.paths.downloads_cache.iterdir()] == [kept]
    assert project.data_entries() == ["download", "release", "release.sha256"]


def test_every_failure_is_listed_in_the_order_tried(tmp_path, routes, capsys):
    url, api, _, tarballs = routes
    tarballs[DIRECTORY] = vault_tarball({**FILES, "CodeBook.csv": "other\n"})
    project = SwhProject(tmp_path)
    project.api = api
    project.write_params(url=url.replace(COMMIT, "gone"))
    code, out, err = project.fetch(capsys)
    assert (code, out) == (1, "")
    line = one_line(err)
    assert line.startswith(
        "ingest fetch: params.yaml: no source gave the pinned release (no mirror folder at "
        f"../nowhere (ingest.mirror)): 1) {url.replace(COMMIT, 'gone')}: download failed "
        "(HTTP 404 File not found); 2) Software Heritage "
        f"{DIRECTORY}: CodeBook.csv: SHA-256 mismatch: expected ")
    assert line.endswith("-> without network, put the release (a folder in the upstream "
                         "layout) at data/release/ or one of its archives in data/download/, "
                         "or set ingest.mirror to such a folder, or set ingest.source to your "
                         "own folder or archive")
    assert project.data_entries() == ["release.sha256"]


def test_offline_a_kept_vault_tarball_is_used(tmp_path, capsys):
    project = SwhProject(tmp_path)
    project.write_params(url=unreachable_url(f"{COMMIT}.zip"))
    cached = project.paths.downloads_cache / swh.tarball_name(DIRECTORY)
    cached.parent.mkdir()
    cached.write_bytes(vault_tarball(FILES))
    code, out, err = project.fetch(capsys)
    assert (code, err) == (0, "")
    assert "from the archive already in data/download/swh_1_dir_" in one_line(out)
    assert project.release_files() == FILES


def test_offline_both_routes_fail_in_one_line(tmp_path, capsys):
    project = SwhProject(tmp_path)
    github = unreachable_url(f"{COMMIT}.zip")
    project.write_params(url=github)
    code, _, err = project.fetch(capsys)
    assert code == 1
    assert (f"1) {github}: download failed ([Errno 111] Connection refused); 2) Software "
            f"Heritage {DIRECTORY}: {swh.vault_url(project.api, DIRECTORY)}: Software "
            "Heritage's vault failed ([Errno 111] Connection refused) -> without network"
            ) in one_line(err)


def test_a_vault_that_fails_or_takes_too_long_is_one_error(tmp_path, monkeypatch):
    monkeypatch.setattr(swh, "POLL_SECONDS", 0.0)
    cafile = tmp_path / "ca.pem"
    with vault_server({DIRECTORY: b""}, cafile, ("failed",)) as (api, _):
        with pytest.raises(DownloadError, match=r"could not cook swh:1:dir:\w+ \(status "
                                                r"failed: cooking failed\)"):
            swh.cooked_tarball(api, DIRECTORY, cafile=str(cafile))
    with vault_server({DIRECTORY: b""}, cafile, ("pending",)) as (api, asked):
        ticks = iter(range(100))
        with pytest.raises(DownloadError, match=r"has not cooked .* after 3 s \(status "
                                                r"pending\)"):
            swh.cooked_tarball(api, DIRECTORY, cafile=str(cafile), wait=3,
                               clock=lambda: next(ticks))
        assert len(asked) == 3  # the request, then a question until the wait is over


def test_swhids_are_derived_from_the_git_objects():
    assert swh.swhid("rev", COMMIT.upper()) == f"swh:1:rev:{COMMIT}"
    assert swh.vault_url("https://a/api/1/", DIRECTORY) == f"https://a/api/1/vault/flat/{DIRECTORY}/"
    assert swh.tarball_name(DIRECTORY) == f"{DIRECTORY.replace(':', '_')}.tar.gz"
