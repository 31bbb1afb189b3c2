"""Ingest on hostile dumps: hard links, special files, hidden or too long names, entries
landing on the same path, too many files. Each is refused with one line naming the file,
before anything is copied, leaving the target as it was and no temporary folder behind;
nothing hangs (every run has a time limit, so a regression fails instead of blocking)."""

from __future__ import annotations

import errno
import io
import os
import re
import socket
import stat
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.ingest import ingest as ing

TIME_LIMIT = 30  # seconds; a refusal takes well under one
PREVIOUS = "the previous run's data\n"
NAME_MAX = os.pathconf("/tmp", "PC_NAME_MAX")


def plain_dump(root: Path) -> Path:
    """A small valid dump folder."""
    (root / "Issue Report" / "p").mkdir(parents=True)
    (root / "Issue Report" / "p" / "p.csv").write_text("Issue_URL,Label1,Final_Label\n")
    (root / "CodeBook.csv").write_text("Participant\n")
    return root


@pytest.fixture
def out(tmp_path) -> Path:
    """The parent of the target ``raw/``, which holds the previous run's data."""
    folder = tmp_path / "out"
    (folder / "raw").mkdir(parents=True)
    (folder / "raw" / "keep.txt").write_text(PREVIOUS)
    return folder


def assert_untouched(out: Path) -> None:
    """The target is as the previous run left it, and no temporary folder is left."""
    assert sorted(os.listdir(out)) == ["raw"]
    assert os.listdir(out / "raw") == ["keep.txt"]
    assert (out / "raw" / "keep.txt").read_text() == PREVIOUS


def refusal(source: Path, out: Path, **kwargs) -> str:
    """The message of the InputError ``ingest`` raises, run in a thread with a time limit."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            ing.ingest(str(source), out / "raw", **kwargs)
            outcome.append(None)
        except BaseException as exc:  # handed to the test below
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIME_LIMIT)
    if thread.is_alive():
        pytest.fail(f"ingest did not finish within {TIME_LIMIT} s")
    assert outcome and isinstance(outcome[0], InputError), f"not refused: {outcome}"
    message = str(outcome[0])
    assert "\n" not in message
    return message


def run_cli(tmp_path: Path, source: Path, out: Path, extra: str = "") -> tuple[str, float]:
    """``python -m analysis.ingest`` from a scratch folder, with a time limit: (stderr, s)."""
    params = tmp_path / "params.yaml"
    params.write_text(f"ingest:\n  source: {source}\n  manifest: null\n  commit: null\n{extra}")
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "analysis.ingest", "--params", str(params),
             "--out", str(out / "raw"), "--provenance", str(out / "provenance.json")],
            cwd=scratch, capture_output=True, text=True, timeout=TIME_LIMIT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"ingest did not finish within {TIME_LIMIT} s (it hangs)")
    assert proc.returncode == 1 and proc.stdout == ""
    return proc.stderr, time.monotonic() - start


def watch_opens(monkeypatch) -> list[str]:
    """From now on, record the names of the files ingest opens (``os.open``, which ingest
    reads the dump with, and ``Path.open``) or copies."""
    names: list[str] = []
    real_open, real_os_open, real_copy = Path.open, os.open, ing.shutil.copyfile

    def recording_open(self, *args, **kwargs):
        names.append(self.name)
        return real_open(self, *args, **kwargs)

    def recording_os_open(path, *args, **kwargs):
        if "dir_fd" not in kwargs and not os.path.isdir(path):  # not shutil.rmtree's walk
            names.append(Path(path).name)
        return real_os_open(path, *args, **kwargs)

    def recording_copy(src, dst, *args, **kwargs):
        names.append(Path(src).name)
        return real_copy(src, dst, *args, **kwargs)

    monkeypatch.setattr(Path, "open", recording_open)
    monkeypatch.setattr(os, "open", recording_os_open)
    monkeypatch.setattr(ing.shutil, "copyfile", recording_copy)
    return names


def test_watch_opens_sees_the_files_ingest_reads(tmp_path, out, monkeypatch):
    opened = watch_opens(monkeypatch)
    ing.ingest(str(plain_dump(tmp_path / "src")), out / "raw")
    assert sorted(set(opened) & {"p.csv", "CodeBook.csv"}) == ["CodeBook.csv", "p.csv"]


def zip_dump(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name in names:
            zf.writestr(name, "x\n")
    return path


def tar_dump(path: Path, names: list[str]) -> Path:
    with tarfile.open(path, "w") as tf:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 2
            tf.addfile(info, io.BytesIO(b"x\n"))
    return path


# -- links and special files in a folder source -------------------------------------------


def test_hard_link_to_a_file_outside_the_dump_is_refused_unread(tmp_path, out, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    src = plain_dump(tmp_path / "src")
    os.link(secret, src / "Issue Report" / "leak.csv")
    opened = watch_opens(monkeypatch)
    assert refusal(src, out) == (
        "Issue Report/leak.csv: source file is a hard link (2 names for the same data, which "
        "may lie outside the dump) -> refusing to read it; replace it by a plain copy "
        "(e.g. copy the dump with `cp -r`)")
    assert "leak.csv" not in opened and opened == []
    assert_untouched(out)


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
    opened = watch_opens(monkeypatch)
    assert refusal(src, out) == (
        f"dev.csv: source file is {kind}, not a regular file -> refusing to open it; "
        "remove it from the dump")
    assert opened == []
    assert_untouched(out)


def test_socket_is_refused_without_opening_it(tmp_path, out, monkeypatch):
    src = plain_dump(tmp_path / "src")
    path = src / "sock.csv"
    if len(os.fsencode(str(path))) >= 100:
        pytest.skip("tmp path too long for a unix socket")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        opened = watch_opens(monkeypatch)
        assert refusal(src, out) == (
            "sock.csv: source file is a socket, not a regular file -> refusing to open it; "
            "remove it from the dump")
    assert opened == []
    assert_untouched(out)


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


# -- names -------------------------------------------------------------------------------

HIDDEN_NAMES = [
    ("new\nline.csv", "new⟨U+000A⟩line.csv"),
    ("tab\there.csv", "tab⟨U+0009⟩here.csv"),
    ("escape\x1b[31m.csv", "escape⟨U+001B⟩[31m.csv"),
    ("invoice\u202evsc.exe", "invoice⟨U+202E⟩vsc.exe"),
    ("zero\u200bwidth.csv", "zero⟨U+200B⟩width.csv"),
    ("line\u2028sep.csv", "line⟨U+2028⟩sep.csv"),
]


@pytest.mark.parametrize("name,shown", HIDDEN_NAMES)
def test_folder_names_with_control_or_formatting_characters_are_refused(
        tmp_path, out, monkeypatch, name, shown):
    src = plain_dump(tmp_path / "src")
    (src / "Issue Report" / name).write_text("x\n")
    opened = watch_opens(monkeypatch)
    assert refusal(src, out) == (
        f"Issue Report/{shown}: name holds control or formatting characters (shown as "
        "⟨U+...⟩) -> rename it in the dump with printable characters only")
    assert opened == []
    assert_untouched(out)


def test_folder_with_a_hidden_character_is_refused_before_its_files(tmp_path, out):
    src = plain_dump(tmp_path / "src")
    (src / "Issue Report" / "bad\ndir").mkdir()
    (src / "Issue Report" / "bad\ndir" / "x.csv").write_text("x\n")
    assert refusal(src, out).startswith(
        "Issue Report/bad⟨U+000A⟩dir: name holds control or formatting characters")
    assert_untouched(out)


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
    archive = make(tmp_path / f"dump.{'zip' if make is zip_dump else 'tar'}",
                   ["top/CodeBook.csv", f"top/{stem}.csv"])
    size = len(f"{stem}.csv".encode())
    assert refusal(archive, out) == (
        f"{archive}: archive entry 'top/{stem}.csv': name is {size} bytes long, more than the "
        f"file system's limit of {NAME_MAX} -> shorten the name in the dump")
    assert_untouched(out)


def test_archive_path_longer_than_the_file_system_allows_is_refused(tmp_path, out):
    deep = "top/" + "/".join(["d" * 200] * 25) + "/x.csv"  # every name fits, the path does not
    archive = tar_dump(tmp_path / "dump.tar", ["top/CodeBook.csv", deep])
    message = refusal(archive, out)
    assert re.fullmatch(
        re.escape(f"{archive}: archive entry '{deep}': path is {len(deep):,} bytes long, more "
                  "than the ") + r"[\d,]+" + re.escape(
            " that fit in the target folder -> shorten the path in the dump (fewer or "
            "shorter folder names)"), message), message
    assert_untouched(out)


# -- entries landing on the same path ------------------------------------------------------


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
    monkeypatch.setattr(ing, "_copy_limited", lambda *a: pytest.fail("extracted something"))
    assert refusal(archive, out) == (
        f"{archive}: {problem} -> refusing to extract either; rename one of them in the "
        "archive")
    assert_untouched(out)


def test_folder_entries_equal_but_for_letter_case_are_refused(tmp_path, out, monkeypatch):
    src = plain_dump(tmp_path / "src")
    (src / "codebook.csv").write_text("other\n")
    opened = watch_opens(monkeypatch)
    assert refusal(src, out) == (
        f"{src}: source entries 'CodeBook.csv' and 'codebook.csv' would land on the same path "
        "'CodeBook.csv' on a case-insensitive file system (macOS, Windows) -> rename one of "
        "them in the dump")
    assert opened == []
    assert_untouched(out)


# -- too many files -------------------------------------------------------------------------


def flat_dump(root: Path, count: int) -> Path:
    root.mkdir()
    for i in range(count):
        (root / f"f{i:03}.csv").write_text("x\n")
    return root


def test_folder_with_more_than_max_files_is_refused_before_copying(
        tmp_path, out, monkeypatch):
    src = flat_dump(tmp_path / "src", 40)
    listed = []
    real_list = ing.list_folder
    monkeypatch.setattr(ing, "list_folder",
                        lambda *a: listed.extend(real_list(*a)) or real_list(*a))
    opened = watch_opens(monkeypatch)
    assert refusal(src, out, max_files=5) == (
        f"{src}: source holds more than 5 files and folders (ingest.max_files) -> check the "
        "source, or raise ingest.max_files in params.yaml if it is genuine")
    assert len(listed) == 6  # the walk stops at max_files + 1
    assert opened == []
    assert_untouched(out)


def test_folder_with_exactly_max_files_is_accepted(tmp_path, out):
    src = flat_dump(tmp_path / "src", 5)
    result = ing.ingest(str(src), out / "raw", max_files=5)
    assert result.provenance["file_count"] == 5
    assert sorted(os.listdir(out)) == ["raw"]


@pytest.mark.parametrize("make", [zip_dump, tar_dump])
def test_archive_with_more_than_max_files_is_refused_before_extracting(
        tmp_path, out, monkeypatch, make):
    archive = make(tmp_path / f"dump.{'zip' if make is zip_dump else 'tar'}",
                   [f"top/f{i}.csv" for i in range(6)])
    monkeypatch.setattr(ing, "_copy_limited", lambda *a: pytest.fail("extracted something"))
    assert refusal(archive, out, max_files=5) == (
        f"{archive}: archive holds more than 5 files and folders (ingest.max_files) -> check "
        "the source, or raise ingest.max_files in params.yaml if it is genuine")
    assert_untouched(out)


def test_max_files_is_read_from_params_and_checked(tmp_path, out):
    src = flat_dump(tmp_path / "src", 3)
    err, _ = run_cli(tmp_path, src, out, extra="  max_files: 2\n")
    assert err == (f"ingest: {src}: source holds more than 2 files and folders "
                   "(ingest.max_files) -> check the source, or raise ingest.max_files in "
                   "params.yaml if it is genuine\n")
    err, _ = run_cli(tmp_path, src, out, extra="  max_files: 0\n")
    assert err == (f"ingest: {tmp_path / 'params.yaml'}: ingest.max_files must be a whole "
                   "number of at least 1, not 0 -> set ingest.max_files to a number such as "
                   "10000, or remove it for the default\n")
    assert_untouched(out)


# -- the target stays as it was --------------------------------------------------------------


def test_failed_swap_puts_the_previous_data_back(tmp_path, out, monkeypatch):
    src = plain_dump(tmp_path / "src")
    real_replace = os.replace

    def failing_replace(a, b):
        if Path(a).name == "raw" and Path(b) == out / "raw":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(a, b)

    monkeypatch.setattr(ing.os, "replace", failing_replace)
    with pytest.raises(InputError, match="no space left"):
        ing.ingest(str(src), out / "raw")
    assert_untouched(out)
