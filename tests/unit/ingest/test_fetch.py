"""`python -m analysis.ingest fetch`: data/release/ from itself, the mirror, the download
or the cached archive; refusals in one line; nothing half-written; params never rewritten."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import pytest

from analysis.core.artifacts import to_json_text
from analysis.core.paths import Paths
from analysis.ingest import __main__ as cli
from analysis.ingest import fetch as fe
from analysis.ingest import ingest as ing
from tests.unit.ingest.servers import https_server, unreachable_url

COMMIT = "2fba3163d6f143b6aa90128adde3d65ac8759c3e"
FILES = {
    "CodeBook.csv": "Participant\nU1\n",
    "filter_keywords": "pytorch_keywords = ['llm']\n",
    "Issue Report/bug_symptoms.csv": "rootcause,subcategory,symptoms\n",
    "Issue Report/p/p.csv": "Issue_URL,Label1,Final_Label\nhttps://x/1,A.1,A.1\n",
    "Issue Report/p/p_2024.txt": "https://x/1\n",
}
# What upstream's archive holds besides the release's files (the mirror leaves them out).
EXTRAS = {"README.md": "# upstream\n", "Issue Report/kappa.py": "print('kappa')\n"}
PARAMS = """\
ingest:
  # the comments stay as they are
  source: {source}
  manifest: data/release.sha256
  mirror: {mirror}
  release_url: {url}
  commit: {commit}
  archive_sha256: null
  max_bytes: 1073741824
  max_files: 10000
"""


def write_files(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def manifest_text(files: dict[str, str]) -> str:
    return "".join(f"{hashlib.sha256(text.encode()).hexdigest()}  ./{rel}\n"
                   for rel, text in sorted(files.items()))


def release_zip(files: dict[str, str], top: str = f"LLMChallengeEmpirical-{COMMIT}") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for rel, text in sorted(files.items()):
            zf.writestr(f"{top}/{rel}", text)
        zf.writestr(f"{top}/Issue Report/p/.DS_Store", b"\0junk")
    return buf.getvalue()


class Project:
    """A project root with params.yaml and the manifest, and a mirror beside it."""

    def __init__(self, tmp_path: Path):
        self.root = tmp_path / "project"
        self.paths = Paths(self.root)
        self.paths.release_manifest.parent.mkdir(parents=True)
        self.paths.release_manifest.write_text(manifest_text(FILES), encoding="utf-8")
        self.mirror = tmp_path / "mirror"
        self.write_params()

    def write_params(self, source: str = "data/release", mirror: str = "../mirror",
                     url: str | None = None) -> None:
        self.params_text = PARAMS.format(source=source, mirror=mirror, commit=COMMIT,
                                         url=url or unreachable_url())
        self.paths.params.write_text(self.params_text, encoding="utf-8")

    def make_mirror(self, files: dict[str, str] | None = None) -> Path:
        write_files(self.mirror, files or {**FILES, **EXTRAS})
        (self.mirror / ".DS_Store").write_bytes(b"\0junk")
        return self.mirror

    def fetch(self, capsys) -> tuple[int, str, str]:
        """Run the command line; (exit code, stdout, stderr). The params file is never
        rewritten, whatever happened."""
        code = cli.main(["fetch", "--params", str(self.paths.params)])
        out, err = capsys.readouterr()
        assert self.paths.params.read_text(encoding="utf-8") == self.params_text
        return code, out, err

    def release_files(self) -> dict[str, str]:
        release = self.paths.release
        return {p.relative_to(release).as_posix(): p.read_text(encoding="utf-8")
                for p in sorted(release.rglob("*")) if p.is_file()}

    def data_entries(self) -> list[str]:
        """What data/ holds: no temporary folder may be left there."""
        return sorted(os.listdir(self.root / "data"))


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


def one_line(text: str) -> str:
    assert text.endswith("\n") and text.count("\n") == 1, text
    assert "Traceback" not in text
    return text.rstrip("\n")


# -- (b) the mirror ------------------------------------------------------------------------


def test_mirror_is_copied_in_verified_without_the_unlisted_files(project, capsys):
    project.make_mirror()
    code, out, err = project.fetch(capsys)
    assert (code, err) == (0, "")
    assert one_line(out) == (
        "ingest fetch: data/release: the pinned release (commit 2fba316, 5 files verified "
        "against data/release.sha256), copied from the mirror ../mirror; 2 files not in "
        "the manifest left out: Issue Report/kappa.py, README.md")
    assert project.release_files() == FILES
    assert project.data_entries() == ["release", "release.sha256"]


def test_mirror_with_a_link_is_refused_as_ingest_refuses_it(project, capsys):
    project.make_mirror()
    (project.mirror / "Issue Report" / "p" / "evil.csv").symlink_to("/etc/hostname")
    code, out, err = project.fetch(capsys)
    assert (code, out) == (1, "")
    assert one_line(err) == (
        "ingest fetch: Issue Report/p/evil.csv: source contains a symbolic link (in the "
        "mirror ../mirror) -> replace the link by what it points to")
    assert project.data_entries() == ["release.sha256"]


# -- (a) already complete --------------------------------------------------------------------


def test_a_complete_release_is_left_alone_without_network(project, capsys):
    project.make_mirror()
    assert project.fetch(capsys)[0] == 0
    before = {p: p.stat() for p in project.paths.release.rglob("*")}
    project.write_params(mirror="../nowhere")  # and release_url unreachable: no source
    code, out, err = project.fetch(capsys)
    assert (code, err) == (0, "")
    assert one_line(out) == (
        "ingest fetch: data/release already holds the pinned release (commit 2fba316, 5 files "
        "verified against data/release.sha256); nothing to do")
    after = {p: p.stat() for p in project.paths.release.rglob("*")}
    assert {p: (s.st_ino, s.st_mtime_ns) for p, s in before.items()} == {
        p: (s.st_ino, s.st_mtime_ns) for p, s in after.items()}


def test_a_release_put_there_by_hand_with_upstream_extras_is_accepted(project, capsys):
    write_files(project.paths.release, {**FILES, **EXTRAS})
    (project.paths.release / ".DS_Store").write_bytes(b"\0junk")
    project.write_params(mirror="../nowhere")
    code, out, _ = project.fetch(capsys)
    assert code == 0
    assert one_line(out).endswith(
        "nothing to do; 2 files not in the manifest, left there: Issue Report/kappa.py, "
        "README.md")


def test_a_release_that_does_not_verify_is_replaced_once_a_good_copy_is_ready(
        project, capsys):
    write_files(project.paths.release, {**FILES, "CodeBook.csv": "edited\n"})
    project.make_mirror({**FILES, "filter_keywords": "tampered\n"})
    code, _, err = project.fetch(capsys)
    assert code == 1 and "filter_keywords: SHA-256 mismatch" in one_line(err)
    assert project.release_files()["CodeBook.csv"] == "edited\n"  # left as it was
    assert project.data_entries() == ["release", "release.sha256"]
    project.make_mirror()
    code, out, _ = project.fetch(capsys)
    assert code == 0 and project.release_files() == FILES
    assert one_line(out).endswith(
        "; it replaces a copy that did not verify (CodeBook.csv: SHA-256 mismatch: expected "
        f"{hashlib.sha256(FILES['CodeBook.csv'].encode()).hexdigest()}, found "
        f"{hashlib.sha256(b'edited' + bytes([10])).hexdigest()})")


# -- a hash mismatch ---------------------------------------------------------------------------


def test_a_hash_mismatch_in_the_mirror_is_refused_in_one_line_naming_the_file(project, capsys):
    project.make_mirror({**FILES, "Issue Report/p/p.csv": "tampered\n"})
    code, out, err = project.fetch(capsys)
    assert (code, out) == (1, "")
    expected = hashlib.sha256(FILES["Issue Report/p/p.csv"].encode()).hexdigest()
    found = hashlib.sha256(b"tampered\n").hexdigest()
    assert one_line(err) == (
        f"ingest fetch: Issue Report/p/p.csv: SHA-256 mismatch: expected {expected}, found "
        f"{found} (in the mirror ../mirror) -> the mirror is not the pinned release; repair "
        "it, or set ingest.mirror to a good copy (or to null to download the release)")
    assert project.data_entries() == ["release.sha256"]


def test_a_file_missing_from_the_mirror_is_refused(project, capsys):
    project.make_mirror({k: v for k, v in FILES.items() if k != "filter_keywords"})
    code, _, err = project.fetch(capsys)
    assert code == 1
    assert "missing from the source: 'filter_keywords' (in the mirror ../mirror)" in one_line(
        err)
    assert project.data_entries() == ["release.sha256"]


# -- (c) the download --------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path, monkeypatch):
    """The release archive on a local HTTPS server, its CA trusted through SSL_CERT_FILE."""
    www = tmp_path / "www"
    www.mkdir()
    (www / f"{COMMIT}.zip").write_bytes(release_zip({**FILES, **EXTRAS}))
    cafile = tmp_path / "ca.pem"
    with https_server(www, cafile) as (base, requested):
        monkeypatch.setenv("SSL_CERT_FILE", str(cafile))
        yield f"{base}/{COMMIT}.zip", www, requested


def test_the_release_is_downloaded_verified_and_kept(project, served, capsys):
    url, www, requested = served
    project.write_params(mirror="../nowhere", url=url)
    code, out, err = project.fetch(capsys)
    assert (code, err) == (0, "")
    assert one_line(out) == (
        "ingest fetch: data/release: the pinned release (commit 2fba316, 5 files verified "
        f"against data/release.sha256), downloaded from {url} (kept in data/download/"
        f"{COMMIT}.zip); 2 files not in the manifest left out: Issue Report/kappa.py, "
        "README.md")
    assert project.release_files() == FILES
    cached = project.paths.downloads_cache / f"{COMMIT}.zip"
    assert cached.read_bytes() == (www / f"{COMMIT}.zip").read_bytes()
    assert os.listdir(project.paths.downloads_cache) == [f"{COMMIT}.zip"]
    assert project.data_entries() == ["download", "release", "release.sha256"]
    assert requested == [f"/{COMMIT}.zip"]


def test_a_cached_archive_is_used_without_network(project, capsys):
    url = unreachable_url(f"{COMMIT}.zip")
    project.write_params(mirror="../nowhere", url=url)
    cached = project.paths.downloads_cache / f"{COMMIT}.zip"
    cached.parent.mkdir()
    cached.write_bytes(release_zip({**FILES, **EXTRAS}))
    code, out, err = project.fetch(capsys)
    assert (code, err) == (0, "")
    assert f"from the archive already in data/download/{COMMIT}.zip, without downloading" in (
        one_line(out))
    assert project.release_files() == FILES


def test_a_downloaded_archive_that_does_not_verify_is_refused_and_not_kept(
        project, served, capsys):
    url, www, _ = served
    (www / f"{COMMIT}.zip").write_bytes(release_zip({**FILES, "CodeBook.csv": "other\n"}))
    project.write_params(mirror="../nowhere", url=url)
    code, out, err = project.fetch(capsys)
    assert (code, out) == (1, "")
    assert one_line(err).startswith(
        "ingest fetch: CodeBook.csv: SHA-256 mismatch: expected ")
    assert f"(in the archive downloaded from {url}) -> the archive is not the release" in err
    assert project.data_entries() == ["release.sha256"]


def test_a_cached_archive_that_does_not_verify_says_how_to_download_again(project, capsys):
    project.write_params(mirror="../nowhere", url=unreachable_url(f"{COMMIT}.zip"))
    cached = project.paths.downloads_cache / f"{COMMIT}.zip"
    cached.parent.mkdir()
    cached.write_bytes(b"not a zip")
    code, _, err = project.fetch(capsys)
    assert code == 1
    assert one_line(err).endswith(
        f"-> the cached archive is not the pinned release; delete data/download/{COMMIT}.zip "
        "to download the release again")
    assert cached.read_bytes() == b"not a zip"
    assert project.data_entries() == ["download", "release.sha256"]


def test_offline_the_download_fails_in_one_line_leaving_nothing_behind(project, capsys):
    url = unreachable_url(f"{COMMIT}.zip")
    project.write_params(url=url)  # the mirror ../mirror does not exist
    code, out, err = project.fetch(capsys)
    assert (code, out) == (1, "")
    assert one_line(err) == (
        f"ingest fetch: {url}: download failed ([Errno 111] Connection refused); no mirror "
        "folder at ../mirror (ingest.mirror) -> without network, put the release (a folder in "
        f"the upstream layout) at data/release/ or its archive at data/download/{COMMIT}.zip, "
        "or set ingest.mirror to such a folder, or set ingest.source to your own folder or "
        "archive")
    assert project.data_entries() == ["release.sha256"]


def test_http_errors_and_plain_http_are_one_line_too(project, served, capsys):
    url, _, _ = served
    project.write_params(mirror="../nowhere", url=url.replace(COMMIT, "missing"))
    code, _, err = project.fetch(capsys)
    assert code == 1 and "download failed (HTTP 404 File not found)" in one_line(err)
    project.write_params(mirror="../nowhere", url="http://example.org/a.zip")
    code, _, err = project.fetch(capsys)
    assert code == 1
    assert "ingest.release_url must be the https:// URL of the release archive" in one_line(err)
    assert project.data_entries() == ["release.sha256"]


# -- a source of one's own ---------------------------------------------------------------------


def test_a_source_other_than_data_release_is_left_alone(project, tmp_path, capsys):
    project.make_mirror()
    dump = write_files(tmp_path / "dump", FILES)
    project.write_params(source=str(dump))
    code, out, err = project.fetch(capsys)
    assert (code, err) == (0, "")
    assert one_line(out) == (f"ingest fetch: ingest.source is {dump} (a folder), not "
                             "data/release: nothing to fetch, ingest reads that source as it is")
    assert project.data_entries() == ["release.sha256"]
    project.write_params(source="my/missing/dump")
    code, out, err = project.fetch(capsys)
    assert (code, out) == (1, "")
    assert one_line(err) == ("ingest fetch: my/missing/dump: source not found -> set "
                             "ingest.source in params.yaml to a folder, archive or https URL")


# -- the provenance does not depend on where the release came from -----------------------------


def test_provenance_is_the_same_from_the_mirror_and_from_the_download(
        tmp_path, served, monkeypatch, capsys):
    url, _, _ = served
    records = []
    for name, mirror in (("a", "../mirror"), ("b", "../nowhere")):
        project = Project(tmp_path / name)
        project.make_mirror()
        project.write_params(mirror=mirror, url=url)
        assert project.fetch(capsys)[0] == 0
        root = project.root
        # ingest reads data/release of this project (its own root is the package's)
        monkeypatch.setattr(ing, "project_path", lambda p, _root=None, root=root: root / p)
        result = ing.ingest("data/release", root / "data" / "raw",
                            manifest="data/release.sha256", commit=COMMIT)
        records.append(to_json_text(result.provenance))
    assert records[0] == records[1]
    assert str(tmp_path) not in records[0] and '"source": "data/release"' in records[0]


def test_help_documents_fetch(project, capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "fetch" in capsys.readouterr().out
    assert fe.SUMMARY.startswith("make data/release/ hold the pinned release")
