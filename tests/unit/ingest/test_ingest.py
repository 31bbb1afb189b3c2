"""Ingest: folders, archives and https URLs; manifests; hostile archives; provenance."""

from __future__ import annotations

import hashlib
import http.server
import io
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.ingest import __main__ as cli
from analysis.ingest import ingest as ing

COMMIT = "2fba3163d6f143b6aa90128adde3d65ac8759c3e"


def make_source(root: Path) -> Path:
    src = root / "src"
    (src / "Issue Report" / "p").mkdir(parents=True)
    (src / "Issue Report" / "p" / "p.csv").write_text("Issue_URL,Label1,Final_Label\n")
    (src / "Issue Report" / "p" / "p_2024.txt").write_text("")
    (src / "CodeBook.csv").write_text("Participant\n")
    (src / ".DS_Store").write_bytes(b"\0junk")
    (src / "Issue Report" / ".DS_Store").write_bytes(b"\0junk")
    return src


def manifest_for(src: Path, skip: tuple[str, ...] = (".DS_Store",)) -> str:
    lines = []
    for p in sorted(src.rglob("*")):
        if p.is_file() and p.name not in skip:
            rel = p.relative_to(src).as_posix()
            lines.append(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  ./{rel}")
    return "\n".join(lines) + "\n"


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


def test_bad_manifest_line(tmp_path):
    with pytest.raises(InputError, match="line 2"):
        ing.parse_manifest("a" * 64 + "  ./x\nnot a hash line\n", "m")


def zip_of(src: Path, top: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, f"{top}/{p.relative_to(src).as_posix()}")
    return buf.getvalue()


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


@pytest.mark.parametrize("name", ["../evil.txt", "/abs/evil.txt", "a/../../evil.txt"])
def test_zip_entries_escaping_the_target_are_refused(tmp_path, name):
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ok/Issue Report/x.txt", "x")
        zf.writestr(name, "evil")
    with pytest.raises(InputError, match="outside the target|absolute path"):
        ing.ingest(str(archive), tmp_path / "out" / "raw")
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "out" / "evil.txt").exists()
    assert not (tmp_path / "out" / "raw").exists()


def test_tar_symlink_is_refused(tmp_path):
    archive = tmp_path / "bad.tar"
    with tarfile.open(archive, "w") as tf:
        info = tarfile.TarInfo("top/link")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        tf.addfile(info)
    with pytest.raises(InputError, match="is a link"):
        ing.ingest(str(archive), tmp_path / "raw")


def test_decompression_bomb_is_refused(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("top/big.txt", b"\0" * (3 << 20))
    assert archive.stat().st_size < 100_000
    with pytest.raises(InputError, match="decompression bomb"):
        ing.ingest(str(archive), tmp_path / "raw", max_bytes=1 << 20)
    assert not (tmp_path / "raw").exists()


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


def test_symlink_in_folder_source_is_refused(tmp_path):
    src = make_source(tmp_path)
    (src / "link.csv").symlink_to("/etc/hostname")
    with pytest.raises(InputError, match="symbolic link"):
        ing.ingest(str(src), tmp_path / "raw")


@pytest.fixture
def https_server(tmp_path):
    """A local HTTPS server (trustme certificate) serving tmp_path/www."""
    trustme = pytest.importorskip("trustme")
    import ssl

    ca = trustme.CA()
    cert = ca.issue_cert("localhost")
    www = tmp_path / "www"
    www.mkdir()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(www), **kw)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("localhost", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(ctx)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    cafile = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(cafile))
    yield f"https://localhost:{server.server_address[1]}", www, str(cafile)
    server.shutdown()


def test_https_url_source(tmp_path, https_server):
    base, www, cafile = https_server
    src = make_source(tmp_path)
    data = zip_of(src, f"repo-{COMMIT}")
    (www / "a.zip").write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    result = ing.ingest(f"{base}/a.zip", tmp_path / "raw", archive_sha256=digest,
                        download_dir=tmp_path / "dl", cafile=cafile)
    assert result.provenance["source_kind"] == "url" and result.provenance["commit"] == COMMIT
    with pytest.raises(InputError, match="expected"):
        ing.download(f"{base}/a.zip", tmp_path / "dl2" / "a.zip", sha256="0" * 64,
                     cafile=cafile)
    assert not (tmp_path / "dl2" / "a.zip").exists()
    with pytest.raises(InputError, match="download failed"):
        ing.download(f"{base}/missing.zip", tmp_path / "dl3" / "m.zip", cafile=cafile)


def test_cli_reports_user_errors_without_traceback(tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("ingest:\n  source: http://example.org/x.zip\n")
    assert cli.main(["--params", str(params), "--out", str(tmp_path / "raw")]) == 1
    err = capsys.readouterr().err
    assert "only https" in err and "Traceback" not in err
