"""Ingest: folders, archives and https URLs as sources; manifests; provenance; the target
replaced whole or left as it was."""

from __future__ import annotations

import errno
import hashlib
import os
import tarfile
from pathlib import Path

import pytest

from analysis.core import artifacts
from analysis.core.errors import InputError
from analysis.ingest import ingest as ing
from tests.unit.ingest.servers import https_server
from tests.unit.ingest.sources import (
    COMMIT,
    assert_untouched,
    make_source,
    manifest_for,
    plain_dump,
    zip_of,
)


def test_folder_source_is_copied_verified_and_recorded(tmp_path):
    src = make_source(tmp_path)
    (tmp_path / "m.sha256").write_text(manifest_for(src))
    dest = tmp_path / "raw"
    result = ing.ingest(str(src), dest, manifest=str(tmp_path / "m.sha256"), commit=COMMIT)
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "CodeBook.csv", "Issue Report/p/p.csv", "Issue Report/p/p_2024.txt"]
    prov = result.provenance
    assert prov["verified"] and prov["commit"] == COMMIT and prov["commit_from"] == "params"
    assert prov["ignored"] == [".DS_Store", "Issue Report/.DS_Store"]
    assert prov["files"]["CodeBook.csv"]["sha256"] == hashlib.sha256(b"Participant\n").hexdigest()
    assert "time" not in str(sorted(prov)).lower()


def test_manifest_mismatch_names_the_file(tmp_path):
    src = make_source(tmp_path)
    (tmp_path / "m.sha256").write_text(manifest_for(src))
    (src / "CodeBook.csv").write_text("tampered\n")
    with pytest.raises(InputError, match="CodeBook.csv.*SHA-256 mismatch"):
        ing.ingest(str(src), tmp_path / "raw", manifest=str(tmp_path / "m.sha256"))
    assert not (tmp_path / "raw").exists()


def test_missing_listed_file_and_unlisted_file(tmp_path):
    src = make_source(tmp_path)
    (tmp_path / "m.sha256").write_text(manifest_for(src))
    (src / "README.md").write_text("extra")
    result = ing.ingest(str(src), tmp_path / "raw", manifest=str(tmp_path / "m.sha256"))
    assert result.provenance["not_in_manifest"] == ["README.md"]
    (src / "CodeBook.csv").unlink()
    with pytest.raises(InputError, match="missing from the source: 'CodeBook.csv'"):
        ing.ingest(str(src), tmp_path / "raw2", manifest=str(tmp_path / "m.sha256"))


def test_zip_archive_with_top_folder(tmp_path):
    src = make_source(tmp_path)
    archive = tmp_path / "dump.zip"
    archive.write_bytes(zip_of(src, f"LLMChallengeEmpirical-{COMMIT}"))
    result = ing.ingest(str(archive), tmp_path / "raw")
    assert (tmp_path / "raw" / "Issue Report" / "p" / "p.csv").is_file()
    assert result.provenance["commit"] == COMMIT
    assert result.provenance["commit_from"] == "source"
    assert result.provenance["archive_sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()


def test_tar_gz_archive(tmp_path):
    src = make_source(tmp_path)
    archive = tmp_path / "dump.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(src, arcname="dump")
    ing.ingest(str(archive), tmp_path / "raw")
    assert (tmp_path / "raw" / "CodeBook.csv").read_text() == "Participant\n"


def test_archive_checksum_is_checked(tmp_path):
    src = make_source(tmp_path)
    archive = tmp_path / "dump.zip"
    archive.write_bytes(zip_of(src, "top"))
    with pytest.raises(InputError, match="SHA-256"):
        ing.ingest(str(archive), tmp_path / "raw", archive_sha256="0" * 64)


@pytest.mark.parametrize("source,match", [
    ("http://example.org/x.zip", "only https"),
    ("ftp://example.org/x.zip", "only https"),
    ("does/not/exist", "source not found"),
])
def test_bad_sources(source, match):
    with pytest.raises(InputError, match=match):
        ing.source_kind(source)


def test_plain_file_is_not_an_archive(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("x")
    with pytest.raises(InputError, match="not a .zip"):
        ing.source_kind(str(f))


def test_https_url_source(tmp_path):
    src = make_source(tmp_path)
    data = zip_of(src, f"repo-{COMMIT}")
    www = tmp_path / "www"
    www.mkdir()
    (www / "a.zip").write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    with https_server(www, tmp_path / "ca.pem") as (base, _):
        result = ing.ingest(f"{base}/a.zip", tmp_path / "raw", archive_sha256=digest,
                            download_dir=tmp_path / "dl", cafile=str(tmp_path / "ca.pem"))
    assert result.provenance["source_kind"] == "url" and result.provenance["commit"] == COMMIT
    assert (tmp_path / "raw" / "CodeBook.csv").read_text() == "Participant\n"
    assert os.listdir(tmp_path / "dl") == ["a.zip"]  # kept in the downloads cache


def test_failed_swap_puts_the_previous_data_back(tmp_path, out, monkeypatch):
    """(Where the file system cannot exchange two folders, the previous one is renamed
    aside, then the new one into place.)"""
    src = plain_dump(tmp_path / "src")
    real_replace = os.replace
    monkeypatch.setattr(artifacts, "exchange_paths", lambda a, b: False)

    def failing_replace(a, b):
        if Path(b) == out / "raw" and not Path(a).name.endswith(".previous"):  # not undoing
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(a, b)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(InputError, match="no space left"):
        ing.ingest(str(src), out / "raw")
    assert_untouched(out)


# -- the steps -------------------------------------------------------------------------------


def test_detect_commit_takes_the_first_40_hex_id():
    assert ing.detect_commit(None, f"https://x/archive/{COMMIT}.zip", "repo-" + "a" * 40) == (
        COMMIT)
    assert ing.detect_commit("repo-" + "a" * 41, None) is None
    assert ing.detect_commit() is None


def test_source_folder_of_an_archive_is_removed_on_leaving(tmp_path):
    src = make_source(tmp_path)
    archive = tmp_path / "dump.zip"
    archive.write_bytes(zip_of(src, f"repo-{COMMIT}"))
    dest = tmp_path / "out" / "raw"
    with ing.source_folder(str(archive), "archive", dest) as found:
        assert found.top_name == f"repo-{COMMIT}"
        assert found.archive_sha256 == hashlib.sha256(archive.read_bytes()).hexdigest()
        assert (found.root / "CodeBook.csv").is_file()
        assert found.root.is_relative_to(tmp_path / "out")
    assert not found.root.exists() and list((tmp_path / "out").iterdir()) == []
    with ing.source_folder(str(src), "dir", dest) as found:
        assert found == ing.Source(src)


def test_a_local_archive_with_another_checksum_is_refused(tmp_path):
    archive = tmp_path / "dump.zip"
    archive.write_bytes(b"PK")
    assert ing.local_archive(str(archive), "archive", None, None, None, 10) == archive
    with pytest.raises(InputError, match="does not match ingest.archive_sha256"):
        ing.local_archive(str(archive), "archive", "0" * 64, None, None, 10)


def test_check_manifest_records_the_manifest_and_the_unlisted_files(tmp_path):
    src = make_source(tmp_path)
    manifest = tmp_path / "m.sha256"
    manifest.write_text(manifest_for(src, skip=(".DS_Store", "p_2024.txt")))
    hashes = {rel: hashlib.sha256((src / rel).read_bytes()).hexdigest()
              for rel in ("CodeBook.csv", "Issue Report/p/p.csv", "Issue Report/p/p_2024.txt")}
    info, unlisted = ing.check_manifest(str(manifest), hashes)
    assert info == {"path": str(manifest), "files_listed": 2,
                    "sha256": hashlib.sha256(manifest.read_bytes()).hexdigest()}
    assert unlisted == ["Issue Report/p/p_2024.txt"]
    with pytest.raises(InputError, match="manifest not found"):
        ing.check_manifest(str(tmp_path / "none.sha256"), hashes)
