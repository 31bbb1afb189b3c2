"""What a dump may not hold, each check on its own: names (hidden characters, lengths),
entries landing on the same path, links and special files, the budgets."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from analysis.core import dumpsafety as safety
from analysis.core.dumpsafety import NameLimits, PathClash

LIMITS = NameLimits(name_bytes=10, path_bytes=20)


@pytest.mark.parametrize("rel,junk", [
    (".DS_Store", True), ("a/Thumbs.db", True), ("__MACOSX/a/x.csv", True),
    ("a/._x.csv", True), (".git/config", True), ("a/x.csv", False), ("._", True),
    ("git/x.csv", False), (".gitignore", False),
])
def test_operating_system_and_vcs_litter_is_junk(rel, junk):
    assert safety.is_junk(rel) is junk


@pytest.mark.parametrize("rel,problem", [
    ("a/b.csv", None),
    ("a\nb.csv", "name holds control or formatting characters (shown as ⟨U+...⟩)"),
    ("a/b\u202ec", "name holds control or formatting characters (shown as ⟨U+...⟩)"),
    ("a/" + "x" * 11, "name is 11 bytes long, more than the file system's limit of 10"),
    ("a/" + "é" * 6, "name is 12 bytes long, more than the file system's limit of 10"),
    ("abcdefgh/abcdefgh/abc", "path is 21 bytes long, more than the 20 that fit in the "
                              "target folder"),
    ("abcdefgh/abcdefgh/ab", None),
])
def test_name_problem_says_why_a_name_cannot_be_written(rel, problem):
    found = safety.name_problem(rel, LIMITS)
    assert (found[0] if found else None) == problem


def test_name_limits_leave_room_for_the_longest_folder(tmp_path):
    limits = safety.name_limits(tmp_path, tmp_path / "a", tmp_path / "abc")
    path_max = os.pathconf(tmp_path, "PC_PATH_MAX")
    assert limits.path_bytes == path_max - len(os.fsencode(str(tmp_path / "abc"))) - 2
    assert limits.name_bytes == os.pathconf(tmp_path, "PC_NAME_MAX")
    assert safety.path_conf(tmp_path / "missing", "PC_NAME_MAX", 7) == 7


@pytest.mark.parametrize("entries,clash", [
    ([("a", "a", False), ("b", "b", False)], None),
    ([("a", "a", True), ("a/", "a", True)], None),  # two folders merge
    ([("a", "a", False), ("a/b", "a/b", False)],
     PathClash("a", "a/b", "a", False, True, True, "a")),
    ([("X.csv", "X.csv", False), ("x.csv", "x.csv", False)],
     PathClash("X.csv", "x.csv", "X.csv", False, False, False, "x.csv")),
    ([("caf\u00e9", "caf\u00e9", False), ("cafe\u0301", "cafe\u0301", False)],
     PathClash("caf\u00e9", "cafe\u0301", "caf\u00e9", False, False, False, "cafe\u0301")),
])
def test_find_path_clash_finds_entries_landing_on_one_path(entries, clash):
    assert safety.find_path_clash(entries) == clash


def test_clash_problem_names_both_entries():
    assert safety.clash_problem(PathClash("a", "a/b", "a", False, True, True), "entries") == (
        "entries 'a' and 'a/b' would land on the same path 'a', one as a file and one as a "
        "folder")
    assert safety.clash_problem(PathClash("A\n", "a\n", "A\n", False, False, False), "x") == (
        "x 'A⟨U+000A⟩' and 'a⟨U+000A⟩' would land on the same path 'A⟨U+000A⟩' on a "
        "case-insensitive file system (macOS, Windows)")


@pytest.mark.parametrize("first, second, said", [
    ("caf\u00e9.csv", "cafe\u0301.csv", ": they differ only in Unicode normalisation "
     "(NFC/NFD), `\\u00e9` vs `e\\u0301`, which a file system that normalises names "
     "(macOS) takes as one"),
    ("Issue Report/Cafe\u0301/x.csv", "Issue Report/Caf\u00e9", ": they differ only in "
     "Unicode normalisation (NFC/NFD), `e\\u0301` vs `\\u00e9`, which a file system that "
     "normalises names (macOS) takes as one"),
    ("caf\u00e9.csv", "CAF\u00c9.csv", " on a case-insensitive file system (macOS, Windows)"),
    ("Caf\u00e9.csv", "cafe\u0301.csv", ": they differ in letter case and in Unicode "
     "normalisation (NFC/NFD), `Caf\\u00e9` vs `cafe\\u0301`, which a case-insensitive "
     "file system that normalises names (macOS) takes as one"),
])
def test_a_clash_of_two_spellings_says_how_they_differ(first, second, said):
    """Names that differ only in Unicode normalisation look the same: the message says so
    and shows the differing code points; a clash in letter case alone stays a clash on a
    case-insensitive file system."""
    clash = safety.find_path_clash([(first, first, False), (second, second, False)])
    assert clash is not None
    landing = first if "/" not in first else first.split("/x")[0]
    assert safety.clash_problem(clash, "source entries") == (
        f"source entries '{first}' and '{second}' would land on the same path '{landing}'"
        + (", one as a file and one as a folder" if "/" in first else "") + said)


def test_the_differing_part_keeps_combining_marks_with_their_letter():
    assert safety.differing_part("e\u0301x", "\u00e9x") == ("e\u0301", "\u00e9")
    assert safety.differing_part("ae\u0301\u0323", "ae\u0323\u0301") == (
        "e\u0301\u0323", "e\u0323\u0301")
    assert safety.code_points("a\u00e9\n\U0001f600") == "a\\u00e9\\u000a\\U0001f600"


def test_entry_problem_refuses_links_special_files_and_hard_links(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("x")
    assert safety.entry_problem(os.lstat(plain)) is None
    (tmp_path / "link").symlink_to(plain)
    assert safety.entry_problem(os.lstat(tmp_path / "link"))[0] == (
        "source contains a symbolic link")
    os.mkfifo(tmp_path / "fifo")
    assert safety.entry_problem(os.lstat(tmp_path / "fifo"))[0] == (
        "source file is a FIFO (named pipe), not a regular file")
    os.link(plain, tmp_path / "second")
    assert safety.entry_problem(os.lstat(plain))[0].startswith(
        "source file is a hard link (2 names for the same data")


def test_special_kind_names_each_kind(tmp_path):
    path = tmp_path / "s"
    if len(os.fsencode(str(path))) >= 100:
        pytest.skip("tmp path too long for a unix socket")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert safety.special_kind(os.lstat(path).st_mode) == "a socket"
    assert safety.special_kind(0) == "a special file"


def test_too_many_entries_names_the_setting_that_sets_the_limit_where_one_does():
    assert str(safety.too_many_entries("src", 1000, "source", "ingest.max_files")) == (
        "src: source holds more than 1,000 files and folders (ingest.max_files) -> check the "
        "source, or raise ingest.max_files in params.yaml if it is genuine")
    assert str(safety.too_many_entries("base", 1000, "source")) == (
        "base: source holds more than 1,000 files and folders -> check that this is a dump: "
        "one holds a few dozen files (a label file and year files a project)")


def test_landing_key_folds_case_and_normalisation():
    assert safety.landing_key("Caf\u00e9/X") == safety.landing_key("cafe\u0301/x")
    assert safety.landing_key(str(Path("a/b"))) != safety.landing_key("a/c")
