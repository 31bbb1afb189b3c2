"""Archives of a dump: escaping paths, links, hidden or too long names, entries landing on
the same path, too many entries, decompression bombs, tar headers declaring more than a
header can need, sparse files and encrypted entries are refused before anything is
extracted, in one line naming the archive, the target left as it was."""

from __future__ import annotations

import io
import re
import tarfile
import time
import zipfile

import pytest

from analysis.core.errors import InputError
from analysis.core.sizes import GiB, MiB
from analysis.ingest import archives
from analysis.ingest import ingest as ing
from tests.support.bombs import (
    TAR_END,
    chained_headers_tar,
    declared_header_tar,
    encrypted_zip,
    sparse_map_tar,
    tar_file,
    tar_header,
)
from tests.unit.ingest.sources import (
    HIDDEN_NAMES,
    NAME_MAX,
    assert_untouched,
    refusal,
    tar_dump,
    zip_dump,
)


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


# -- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [zip_dump, tar_dump])
@pytest.mark.parametrize("name,shown", HIDDEN_NAMES[:4])
def test_archive_names_with_control_or_formatting_characters_are_refused(
        tmp_path, out, make, name, shown):
    archive = make(tmp_path / f"dump.{'zip' if make is zip_dump else 'tar'}",
                   ["top/CodeBook.csv", f"top/Issue Report/{name}"])
    assert refusal(archive, out) == (
        f"{archive}: archive entry 'top/Issue Report/{shown}': name holds control or "
        "formatting characters (shown as ⟨U+...⟩) -> rename it in the dump with printable "
        "characters only")
    assert_untouched(out)


@pytest.mark.parametrize("make", [zip_dump, tar_dump])
@pytest.mark.parametrize("stem", ["a" * 300, "é" * 130])  # 300 bytes; 130 letters, 260 bytes
def test_archive_name_longer_than_the_file_system_allows_is_refused(tmp_path, out, make, stem):
    name = f"top/{stem}.csv"
    archive = make(tmp_path / f"dump.{'zip' if make is zip_dump else 'tar'}",
                   ["top/CodeBook.csv", name])
    size = len(f"{stem}.csv".encode())
    # a name of more than 120 characters is shown by its start and its length
    shown = f"'{name[:120]}…' ({len(name.encode()):,} bytes)"
    assert refusal(archive, out) == (
        f"{archive}: archive entry {shown}: name is {size} bytes long, more than the "
        f"file system's limit of {NAME_MAX} -> shorten the name in the dump")
    assert_untouched(out)


def test_archive_path_longer_than_the_file_system_allows_is_refused(tmp_path, out):
    deep = "top/" + "/".join(["d" * 200] * 25) + "/x.csv"  # every name fits, the path does not
    archive = tar_dump(tmp_path / "dump.tar", ["top/CodeBook.csv", deep])
    message = refusal(archive, out)
    assert re.fullmatch(
        re.escape(f"{archive}: archive entry '{deep[:120]}…' ({len(deep):,} bytes): path is "
                  f"{len(deep):,} bytes long, more than the ") + r"[\d,]+" + re.escape(
            " that fit in the target folder -> shorten the path in the dump (fewer or "
            "shorter folder names)"), message), message
    assert_untouched(out)


@pytest.mark.parametrize("make", [zip_dump, tar_dump])
@pytest.mark.parametrize("names,problem", [
    (["top/a", "top/a/b"],
     "archive entries 'top/a' and 'top/a/b' would land on the same path 'top/a', one as a "
     "file and one as a folder"),
    (["top/a/b", "top/a"],
     "archive entries 'top/a/b' and 'top/a' would land on the same path 'top/a', one as a "
     "file and one as a folder"),
    (["top/x.csv", "top/./x.csv"],
     "archive entries 'top/x.csv' and 'top/./x.csv' would land on the same path 'top/x.csv'"),
    (["top/Data.csv", "top/data.csv"],
     "archive entries 'top/Data.csv' and 'top/data.csv' would land on the same path "
     "'top/Data.csv' on a case-insensitive file system (macOS, Windows)"),
])
def test_archive_entries_landing_on_the_same_path_are_refused(
        tmp_path, out, monkeypatch, make, names, problem):
    archive = make(tmp_path / f"dump.{'zip' if make is zip_dump else 'tar'}",
                   ["top/CodeBook.csv", *names])
    monkeypatch.setattr(archives, "_copy_limited", lambda *a: pytest.fail("extracted something"))
    assert refusal(archive, out) == (
        f"{archive}: {problem} -> refusing to extract either; rename one of them in the "
        "archive")
    assert_untouched(out)


@pytest.mark.parametrize("make", [zip_dump, tar_dump])
def test_archive_with_more_than_max_files_is_refused_before_extracting(
        tmp_path, out, monkeypatch, make):
    archive = make(tmp_path / f"dump.{'zip' if make is zip_dump else 'tar'}",
                   [f"top/f{i}.csv" for i in range(6)])
    monkeypatch.setattr(archives, "_copy_limited", lambda *a: pytest.fail("extracted something"))
    assert refusal(archive, out, max_files=5) == (
        f"{archive}: archive holds more than 5 files and folders (ingest.max_files) -> check "
        "the source, or raise ingest.max_files in params.yaml if it is genuine")
    assert_untouched(out)


# -- entries, roots, unpacking ---------------------------------------------------------------


@pytest.mark.parametrize("name,rel", [
    ("top/a.csv", "top/a.csv"), ("./top//a.csv", "top/a.csv"), ("top\\a.csv", "top/a.csv"),
    ("top/", "top"), ("./", ""),
])
def test_safe_relpath_normalises_member_names(name, rel):
    assert archives.safe_relpath(name) == rel


@pytest.mark.parametrize("name,problem", [
    ("/etc/passwd", "has an absolute path"), ("C:/x.csv", "has an absolute path"),
    ("a/../../x", "points outside the target folder"), ("..", "points outside"),
])
def test_safe_relpath_refuses_escapes(name, problem):
    with pytest.raises(InputError, match=problem):
        archives.safe_relpath(name)


def test_dump_root_unwraps_one_top_folder_but_not_the_dump_itself(tmp_path):
    (tmp_path / "a" / "repo-abc" / "Issue Report").mkdir(parents=True)
    (tmp_path / "a" / "__MACOSX").mkdir()
    (tmp_path / "a" / ".DS_Store").write_text("")
    assert archives.dump_root(tmp_path / "a") == tmp_path / "a" / "repo-abc"
    (tmp_path / "b" / "Issue Report").mkdir(parents=True)
    assert archives.dump_root(tmp_path / "b") == tmp_path / "b"
    (tmp_path / "c" / "x").mkdir(parents=True)
    (tmp_path / "c" / "y.csv").write_text("")
    assert archives.dump_root(tmp_path / "c") == tmp_path / "c"


@pytest.mark.parametrize("make", [zip_dump, tar_dump])
def test_unpack_extracts_an_archive_and_returns_the_dump_folder(tmp_path, make):
    archive = make(tmp_path / f"dump.{'zip' if make is zip_dump else 'tar'}",
                   ["repo-abc/CodeBook.csv", "repo-abc/Issue Report/p/p.csv"])
    root = archives.unpack(archive, tmp_path / "unpacked")
    assert root == tmp_path / "unpacked" / "repo-abc"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        "CodeBook.csv", "Issue Report/p/p.csv"]
    assert (root / "CodeBook.csv").read_text() == "x\n"


def test_tar_members_stop_reading_past_the_limit(tmp_path):
    archive = tar_dump(tmp_path / "dump.tar", [f"top/f{i}.csv" for i in range(10)])
    with tarfile.open(archive) as tf, pytest.raises(InputError, match="more than 3 files"):
        archives.tar_members(tf, str(archive), max_files=3, max_bytes=1 << 20)
    with tarfile.open(archive) as tf, pytest.raises(InputError, match="more than 6 bytes"):
        archives.tar_members(tf, str(archive), max_files=100, max_bytes=6)


def test_a_damaged_archive_is_one_line(tmp_path):
    archive = zip_dump(tmp_path / "dump.zip", ["top/CodeBook.csv"])
    archive.write_bytes(archive.read_bytes()[:-30])
    with pytest.raises(InputError) as info:
        archives.extract_archive(archive, tmp_path / "out")
    assert str(info.value).startswith(f"{archive}: ")
    assert "\n" not in str(info.value)


# -- hostile headers: refused before tarfile reads what they declare --------------------------

HOSTILE = ("refusing to read it; use the dump's original archive (this one is damaged or "
           "crafted)")


@pytest.mark.parametrize("kind,what,limit", [
    (tarfile.GNUTYPE_LONGNAME, "a GNU long-name", "4 KiB"),
    (tarfile.GNUTYPE_LONGLINK, "a GNU long-link", "4 KiB"),
    (tarfile.XHDTYPE, "a pax extended", "1 MiB"),
    (tarfile.XGLTYPE, "a pax global", "1 MiB"),
])
def test_a_header_declaring_gigabytes_is_refused_before_it_is_read(tmp_path, out, kind, what,
                                                                   limit):
    archive = declared_header_tar(tmp_path / "dump.tar.gz", kind, 3 * GiB // 2)
    assert archive.stat().st_size < 2 * MiB  # 1.5 GiB of header in 1.6 MB
    started = time.perf_counter()
    assert refusal(archive, out) == (
        f"{archive}: {what} header at byte 0 of the unpacked archive declares 1,536 MiB, more "
        f"than such a header can need ({limit}) -> {HOSTILE}")
    assert time.perf_counter() - started < 5
    assert_untouched(out)


def test_the_headers_limits_are_the_documented_ones():
    assert archives.MAX_LONG_NAME_BYTES == 4096
    assert archives.MAX_PAX_HEADER_BYTES == MiB
    doc = " ".join(archives.__doc__.split())
    assert ":data:`MAX_LONG_NAME_BYTES`" in doc and ":data:`MAX_PAX_HEADER_BYTES`" in doc


def test_a_long_name_is_shown_by_its_start_and_its_length(tmp_path, out):
    name = "top/" + "a" * 3990 + "\u202e.csv"  # a GNU long name within the header's limit
    archive = tmp_path / "dump.tar"
    archive.write_bytes(tar_header("././@LongLink", len(name.encode()) + 1,
                                   tarfile.GNUTYPE_LONGNAME)
                        + name.encode() + bytes(-(len(name.encode()) + 1) % 512 + 1)
                        + tar_file("top/x.csv", b"x\n") + TAR_END)
    assert refusal(archive, out) == (
        f"{archive}: archive entry 'top/{'a' * 116}…' ({len(name.encode()):,} bytes): name "
        "holds control or formatting characters (shown as ⟨U+...⟩) -> rename it in the dump "
        "with printable characters only")


def test_pax_headers_count_against_max_bytes(tmp_path, out):
    archive = tmp_path / "dump.tar"
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tf:
        for i in range(3):  # 2 bytes of data each, behind 600 KB of pax records
            info = tarfile.TarInfo(f"top/f{i}.csv")
            info.size, info.pax_headers = 2, {"comment": "a" * 600_000}
            tf.addfile(info, io.BytesIO(b"x\n"))
    assert refusal(archive, out, max_bytes=MiB) == (
        f"{archive}: archive unpacks to more than 1,048,576 bytes (decompression bomb?) -> "
        "check the archive, or raise ingest.max_bytes if it is genuine")
    assert_untouched(out)


def test_a_chain_of_extended_headers_is_one_line(tmp_path, out):
    archive = chained_headers_tar(tmp_path / "dump.tar", 400)  # tarfile would recurse 400 deep
    assert refusal(archive, out) == (
        f"{archive}: more than 8 extended headers (pax, GNU long names) in a row at byte "
        f"4,096 of the unpacked archive -> {HOSTILE}")
    assert_untouched(out)


def test_a_pax_record_of_thousands_of_digits_is_one_line(tmp_path, out):
    record = b"9" * 5000 + b" comment=x\n"
    archive = tmp_path / "dump.tar"
    archive.write_bytes(tar_header("././@PaxHeader", len(record), tarfile.XHDTYPE) + record
                        + bytes(-len(record) % 512) + tar_file("top/x.csv", b"x\n") + TAR_END)
    message = refusal(archive, out)
    assert message.startswith(f"{archive}: cannot read the archive's headers (")
    assert message.endswith(f" -> {HOSTILE}")
    assert_untouched(out)


def pax_sparse_tar(path, headers: dict[str, str]):
    info = tarfile.TarInfo("top/x.csv")
    info.size, info.pax_headers = 2, headers
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        tf.addfile(info, io.BytesIO(b"x\n"))
    return path


def old_sparse_tar(path):
    """A tar of one sparse file in GNU's old format (type S), with no regions."""
    path.write_bytes(tar_header("top/CodeBook.csv", 0, tarfile.GNUTYPE_SPARSE) + TAR_END)
    return path


@pytest.mark.parametrize("make", [
    lambda path: sparse_map_tar(path, 4 * MiB),  # GNU sparse 1.0: a map read without end
    lambda path: pax_sparse_tar(path, {"GNU.sparse.map": "0,2", "GNU.sparse.size": "2",
                                       "GNU.sparse.name": "top/CodeBook.csv"}),  # 0.1
    lambda path: old_sparse_tar(path),
], ids=["gnu-1.0", "gnu-0.1", "old-gnu"])
def test_sparse_files_are_refused(tmp_path, out, make):
    archive = make(tmp_path / "dump.tar.gz")
    assert refusal(archive, out) == (
        f"{archive}: archive entry 'top/CodeBook.csv' is a sparse file -> refusing to extract "
        "sparse files; use an archive of plain files")
    assert_untouched(out)


@pytest.mark.parametrize("make,suffix", [
    (lambda path: pax_path_tar(path, "../x.csv"), "tar"),
    (lambda path: zip_dump(path, ["top/CodeBook.csv", "../x.csv"]), "zip"),
], ids=["tar-pax-path", "zip"])
def test_an_escaping_path_names_the_archive(tmp_path, out, make, suffix):
    archive = make(tmp_path / f"dump.{suffix}")
    assert refusal(archive, out) == (
        f"{archive}: archive entry '../x.csv' points outside the target folder -> refusing "
        "to extract it; use an archive without '..' in its paths")
    assert_untouched(out)


def pax_path_tar(path, name: str):
    """A tar whose entry is named by a pax header (``path=...``), its own header naming
    another."""
    info = tarfile.TarInfo("top/x.csv")
    info.size, info.pax_headers = 2, {"path": name}
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        tf.addfile(info, io.BytesIO(b"x\n"))
    return path


def test_an_encrypted_zip_entry_is_refused_before_anything_is_extracted(tmp_path, out,
                                                                         monkeypatch):
    archive = encrypted_zip(tmp_path / "dump.zip", ["top/CodeBook.csv", "top/x.csv"])
    monkeypatch.setattr(archives, "_copy_limited", lambda *a: pytest.fail("extracted something"))
    assert refusal(archive, out) == (
        f"{archive}: archive entry 'top/CodeBook.csv' is encrypted (password-protected) -> "
        "extract the archive with its password and give the folder as the source, or make an "
        "archive without a password")
    assert_untouched(out)


def test_the_unpacked_budget_is_one_line():
    archives.check_budget(10, 10, "a.zip")
    with pytest.raises(InputError) as info:
        archives.check_budget(11, 10, "a.zip")
    assert str(info.value) == ("a.zip: archive unpacks to more than 10 bytes (decompression "
                               "bomb?) -> check the archive, or raise ingest.max_bytes if it "
                               "is genuine")
