"""The files of a dump folder: links, special files, hidden names, clashing names and too
many entries refused before anything is opened (each in one line naming the file, the
target left as it was, nothing hanging); each file copied and hashed once; manifests."""

from __future__ import annotations

import hashlib
import os
import socket
import stat

import pytest

from analysis.core import dumpfiles
from analysis.core.errors import InputError
from analysis.ingest import files
from analysis.ingest import ingest as ing
from tests.unit.ingest.sources import (
    HIDDEN_NAMES,
    TIME_LIMIT,
    assert_untouched,
    flat_dump,
    make_source,
    manifest_for,
    plain_dump,
    refusal,
    refused_unopened,
    run_cli,
    watch_opens,
)


def test_watch_opens_sees_the_files_ingest_reads(tmp_path, out, monkeypatch):
    opened = watch_opens(monkeypatch)
    ing.ingest(str(plain_dump(tmp_path / "src")), out / "raw")
    assert sorted(set(opened) & {"p.csv", "CodeBook.csv"}) == ["CodeBook.csv", "p.csv"]


# -- links and special files in a folder source -------------------------------------------


def test_symlink_in_folder_source_is_refused(tmp_path):
    src = make_source(tmp_path)
    (src / "link.csv").symlink_to("/etc/hostname")
    with pytest.raises(InputError, match="symbolic link"):
        ing.ingest(str(src), tmp_path / "raw")


def test_hard_link_to_a_file_outside_the_dump_is_refused_unread(tmp_path, out, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    src = plain_dump(tmp_path / "src")
    os.link(secret, src / "Issue Report" / "leak.csv")
    assert refused_unopened(src, out, monkeypatch) == (
        "Issue Report/leak.csv: source file is a hard link (2 names for the same data, which "
        "may lie outside the dump) -> refusing to read it; replace it by a plain copy "
        "(e.g. copy the dump with `cp -r`)")


def test_fifo_is_refused_without_opening_it_or_hanging(tmp_path, out):
    src = plain_dump(tmp_path / "src")
    os.mkfifo(src / "Issue Report" / "pipe.csv")
    err, seconds = run_cli(tmp_path, src, out)
    assert err == ("ingest: Issue Report/pipe.csv: source file is a FIFO (named pipe), not a "
                   "regular file -> refusing to open it; remove it from the dump\n")
    assert seconds < TIME_LIMIT
    assert_untouched(out)


@pytest.mark.parametrize("kind,mode,device", [
    ("a character device", stat.S_IFCHR, (1, 3)),  # /dev/null's numbers: harmless if read
    ("a block device", stat.S_IFBLK, (7, 0)),
])
def test_device_file_is_refused_without_opening_it(
        tmp_path, out, monkeypatch, kind, mode, device):
    src = plain_dump(tmp_path / "src")
    try:
        os.mknod(src / "dev.csv", mode | 0o600, os.makedev(*device))
    except OSError as exc:
        pytest.skip(f"cannot create a device file here ({exc.strerror})")
    assert refused_unopened(src, out, monkeypatch) == (
        f"dev.csv: source file is {kind}, not a regular file -> refusing to open it; "
        "remove it from the dump")


def test_socket_is_refused_without_opening_it(tmp_path, out, monkeypatch):
    src = plain_dump(tmp_path / "src")
    path = src / "sock.csv"
    if len(os.fsencode(str(path))) >= 100:
        pytest.skip("tmp path too long for a unix socket")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert refused_unopened(src, out, monkeypatch) == (
            "sock.csv: source file is a socket, not a regular file -> refusing to open it; "
            "remove it from the dump")


def test_symlinked_folder_pointing_outside_is_still_refused(tmp_path, out):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "private.csv").write_text("secret\n")
    src = plain_dump(tmp_path / "src")
    (src / "Issue Report" / "q").symlink_to(outside)
    assert refusal(src, out) == (
        "Issue Report/q: source contains a symbolic link -> replace the link by what it "
        "points to")
    assert_untouched(out)


# -- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name,shown", HIDDEN_NAMES)
def test_folder_names_with_control_or_formatting_characters_are_refused(
        tmp_path, out, monkeypatch, name, shown):
    src = plain_dump(tmp_path / "src")
    (src / "Issue Report" / name).write_text("x\n")
    assert refused_unopened(src, out, monkeypatch) == (
        f"Issue Report/{shown}: name holds control or formatting characters (shown as "
        "⟨U+...⟩) -> rename it in the dump with printable characters only")


def test_folder_with_a_hidden_character_is_refused_before_its_files(tmp_path, out):
    src = plain_dump(tmp_path / "src")
    (src / "Issue Report" / "bad\ndir").mkdir()
    (src / "Issue Report" / "bad\ndir" / "x.csv").write_text("x\n")
    assert refusal(src, out).startswith(
        "Issue Report/bad⟨U+000A⟩dir: name holds control or formatting characters")
    assert_untouched(out)


def test_folder_entries_equal_but_for_letter_case_are_refused(tmp_path, out, monkeypatch):
    src = plain_dump(tmp_path / "src")
    (src / "codebook.csv").write_text("other\n")
    assert refused_unopened(src, out, monkeypatch) == (
        f"{src}: source entries 'CodeBook.csv' and 'codebook.csv' would land on the same path "
        "'CodeBook.csv' on a case-insensitive file system (macOS, Windows) -> rename one of "
        "them in the dump")


# -- too many files ------------------------------------------------------------------------


def test_folder_with_more_than_max_files_is_refused_before_copying(
        tmp_path, out, monkeypatch):
    src = flat_dump(tmp_path / "src", 40)
    listed = []
    real_list = dumpfiles.list_folder
    monkeypatch.setattr(dumpfiles, "list_folder",
                        lambda *a: listed.extend(real_list(*a)) or real_list(*a))
    assert refused_unopened(src, out, monkeypatch, max_files=5) == (
        f"{src}: source holds more than 5 files and folders (ingest.max_files) -> check the "
        "source, or raise ingest.max_files in params.yaml if it is genuine")
    assert len(listed) == 6  # the walk stops at max_files + 1


def test_folder_with_exactly_max_files_is_accepted(tmp_path, out):
    src = flat_dump(tmp_path / "src", 5)
    result = ing.ingest(str(src), out / "raw", max_files=5)
    assert result.provenance["file_count"] == 5
    assert sorted(os.listdir(out)) == ["raw"]


# -- manifests -----------------------------------------------------------------------------


def test_bad_manifest_line(tmp_path):
    with pytest.raises(InputError, match="line 2"):
        files.parse_manifest("a" * 64 + "  ./x\nnot a hash line\n", "m")


# -- copying and verifying -------------------------------------------------------------------


def test_copy_dump_copies_the_files_asked_for_and_says_what_the_dump_holds(tmp_path):
    src = make_source(tmp_path)
    staged = tmp_path / "staged"
    staged.mkdir()
    copied = files.copy_dump(src, staged, tmp_path / "raw", only={"CodeBook.csv", "absent"})
    assert copied.hashes == {"CodeBook.csv": hashlib.sha256(b"Participant\n").hexdigest()}
    assert copied.found == ["CodeBook.csv", "Issue Report/p/p.csv", "Issue Report/p/p_2024.txt"]
    assert copied.ignored == [".DS_Store", "Issue Report/.DS_Store"]
    assert [p.name for p in staged.rglob("*")] == ["CodeBook.csv"]


def test_a_copy_that_cannot_be_written_names_its_final_place(tmp_path):
    src = make_source(tmp_path)
    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "CodeBook.csv").write_text("already there")  # the copy is made with "x"
    with pytest.raises(FileExistsError):
        files.copy_dump(src, staged, tmp_path / "raw")
    error = dumpfiles.copy_error(OSError(28, "No space left on device"), src / "a.csv",
                             tmp_path / "raw" / "a.csv")
    assert str(error) == (f"{tmp_path / 'raw' / 'a.csv'}: no space left on the device while "
                          f"writing the copy of {src / 'a.csv'} -> free disk space and run "
                          "`dvc repro` again")


def test_verify_folder_checks_the_listed_files_and_returns_the_others(tmp_path):
    src = make_source(tmp_path)
    listed = files.parse_manifest(manifest_for(src))
    del listed["Issue Report/p/p_2024.txt"]
    assert files.verify_folder(src, listed, "m.sha256") == ["Issue Report/p/p_2024.txt"]
    (src / "CodeBook.csv").write_text("changed\n")
    with pytest.raises(InputError, match="CodeBook.csv: SHA-256 mismatch"):
        files.verify_folder(src, listed, "m.sha256")


def test_verify_against_manifest_names_a_missing_file_and_returns_the_unlisted():
    listed = {"a": "1" * 64}
    assert files.verify_against_manifest({"a": "1" * 64, "b": "2" * 64}, listed, "m") == ["b"]
    with pytest.raises(InputError) as info:
        files.verify_against_manifest({"b": "2" * 64}, listed, "m")
    assert str(info.value).startswith("m: file listed in the manifest is missing from the "
                                      "source: 'a'")


def test_parse_manifest_reads_sha256sum_output():
    text = ("# made by sha256sum\n\n" + "A" * 64 + "  ./Issue Report/x.csv\n"
            + "b" * 64 + " *CodeBook.csv\n")
    assert files.parse_manifest(text) == {"Issue Report/x.csv": "a" * 64,
                                          "CodeBook.csv": "b" * 64}


@pytest.mark.parametrize("year", ["9999", "2262", "1677", "0001"])
def test_a_year_file_of_a_year_a_study_cannot_hold_is_refused(tmp_path, out, monkeypatch,
                                                              year):
    """The year of a year file is an issue's year in the processed data: one the clean
    stage's schema refuses is refused here, in one line, before a file is opened (the
    same check as select's, merge's and extend's: analysis.core.dates)."""
    src = plain_dump(tmp_path / "src")
    (src / "Issue Report" / "p" / f"p_{year}.txt").write_text("https://x.org/a/b/1\n")
    assert refused_unopened(src, out, monkeypatch) == (
        f"Issue Report/p/p_{year}.txt: a year file of the year {int(year)} is outside the "
        "years an issue may have (2008-2100) -> name the file for the year its issues were "
        "created in (their creation dates), or remove it")


def test_year_files_of_the_studys_years_are_copied(tmp_path, out):
    src = plain_dump(tmp_path / "src")
    (src / "Issue Report" / "p" / "p_2024.txt").write_text("https://x.org/a/b/1\n")
    (src / "Issue Report" / "p" / "notes_9999.md").write_text("x\n")  # not a year file
    result = ing.ingest(str(src), out / "raw")
    assert "Issue Report/p/p_2024.txt" in result.files
