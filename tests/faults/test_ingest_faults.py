"""Ingest under faults: a source file swapped between its check and its copy, a full disk,
an unreadable source file, a read-only target.

Each fault is made to happen on purpose (the swap through ingest's own hook,
``analysis.core.dumpfiles.before_open``, called between the check and the one opening of
a file; the disk and permission errors by replacing the operating-system call), and each
test checks that nothing was lost or let in: ``data/raw/`` is as the previous run left it,
nothing from outside the dump was copied, no temporary folder is left, and the message is
one line naming the file, without a traceback.
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

import pytest

from analysis.core import dumpfiles
from analysis.core.errors import InputError
from analysis.ingest import __main__ as cli
from analysis.ingest import ingest as ing
from tests.support.faults import read_only

SECRET = b"root:x:0:0:root:/root:/bin/bash\n"  # what a file outside the dump holds
PREVIOUS = b"the previous run's data\n"
CODEBOOK = b"Participant,Role\nP1,engineer\n"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def dump(tmp_path) -> Path:
    """A small dump folder, and beside it a target that holds a previous run's data and a
    file outside the dump (``secret``)."""
    src = tmp_path / "dump"
    (src / "Issue Report" / "p").mkdir(parents=True)
    (src / "Issue Report" / "p" / "p.csv").write_bytes(b"Issue_URL,Label1,Final_Label\n")
    (src / "CodeBook.csv").write_bytes(CODEBOOK)
    (tmp_path / "out" / "raw").mkdir(parents=True)
    (tmp_path / "out" / "raw" / "keep.txt").write_bytes(PREVIOUS)
    (tmp_path / "secret").write_bytes(SECRET)
    return src


def assert_nothing_lost(out: Path) -> None:
    """The target holds the previous run's data only, and no temporary folder is left."""
    assert sorted(os.listdir(out)) == ["raw"]
    assert os.listdir(out / "raw") == ["keep.txt"]
    assert (out / "raw" / "keep.txt").read_bytes() == PREVIOUS


def run_cli(dump: Path, out: Path, capsys, manifest: Path | None = None) -> tuple[int, str]:
    """``python -m analysis.ingest`` in this process (so that the hook can be replaced):
    (exit status, stderr)."""
    params = dump.parent / "params.yaml"
    params.write_text(f"ingest:\n  source: {dump}\n  manifest: {manifest or 'null'}\n"
                      "  commit: null\n")
    code = cli.main(["--params", str(params), "--out", str(out / "raw"),
                     "--provenance", str(out.parent / "provenance.json")])
    return code, capsys.readouterr().err


def swap(kind: str, outside: Path):
    """A ``before_open`` hook that puts ``kind`` in the place of CodeBook.csv."""
    def hook(rel: str, item: dumpfiles.DumpFile) -> None:
        if rel != "CodeBook.csv":
            return
        item.path.rename(outside.with_name("checked-file"))
        if kind == "symbolic link":
            item.path.symlink_to(outside)
        elif kind == "hard link":
            os.link(outside, item.path)
        elif kind == "FIFO":
            os.mkfifo(item.path)
        else:  # another plain file with the same name and bytes (the checked one is kept
            # aside, so that the new file cannot reuse its inode number)
            item.path.write_bytes(CODEBOOK)
    return hook


@pytest.mark.parametrize("kind", ["symbolic link", "hard link", "FIFO", "other file"])
def test_a_file_swapped_between_the_check_and_the_copy_is_refused(
        dump, tmp_path, monkeypatch, capsys, kind):
    out = tmp_path / "out"
    monkeypatch.setattr(dumpfiles, "before_open", swap(kind, tmp_path / "secret"))
    code, err = run_cli(dump, out, capsys)
    assert code == 1
    assert err == ("ingest: CodeBook.csv: source file was replaced while ingest was reading "
                   "the dump -> run ingest again on a dump nobody is changing\n")
    assert_nothing_lost(out)
    assert not (tmp_path / "provenance.json").exists()
    copies = [p for p in (tmp_path / "out").rglob("*") if p.is_file()
              and p.read_bytes() == SECRET]
    assert copies == []  # nothing from outside the dump was copied


def test_the_hook_runs_between_the_check_and_the_opening(dump, tmp_path, monkeypatch):
    """Without a swap, ingest goes through: the hook sees every file, once, before it is
    opened (so the test above swaps at the right moment)."""
    seen: list[str] = []
    real_open = os.open

    def hook(rel, item):
        seen.append(rel)

    def opening(path, *args, **kwargs):
        if Path(path).name == "CodeBook.csv":
            assert seen[-1] == "CodeBook.csv"
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(dumpfiles, "before_open", hook)
    monkeypatch.setattr(os, "open", opening)
    ing.ingest(str(dump), tmp_path / "out" / "raw")
    assert sorted(seen) == ["CodeBook.csv", "Issue Report/p/p.csv"]


def rewrite_in_place(data: bytes):
    """A ``before_open`` hook that changes the bytes of CodeBook.csv (same file, same
    inode) after it was checked."""
    def hook(rel: str, item: dumpfiles.DumpFile) -> None:
        if rel == "CodeBook.csv":
            with open(item.path, "r+b") as fh:
                fh.write(data)
                fh.truncate()
    return hook


def test_the_manifest_is_checked_against_the_bytes_copied(dump, tmp_path, monkeypatch, capsys):
    manifest = tmp_path / "dump.sha256"
    manifest.write_text(f"{sha256(CODEBOOK)}  ./CodeBook.csv\n"
                        f"{sha256(b'Issue_URL,Label1,Final_Label' + bytes([10]))}  "
                        "./Issue Report/p/p.csv\n")
    changed = b"Tampered!,Role\nP1,engineer\n"
    monkeypatch.setattr(dumpfiles, "before_open", rewrite_in_place(changed))
    code, err = run_cli(dump, tmp_path / "out", capsys, manifest)
    assert code == 1
    assert err == (f"ingest: CodeBook.csv: SHA-256 mismatch: expected {sha256(CODEBOOK)}, "
                   f"found {sha256(changed)} -> the file differs from the released data; "
                   "restore it or update the manifest\n")
    assert_nothing_lost(tmp_path / "out")


def test_the_provenance_records_the_bytes_copied(dump, tmp_path, monkeypatch):
    changed = b"Changed!!,Role\nP1,engineer\n"
    monkeypatch.setattr(dumpfiles, "before_open", rewrite_in_place(changed))
    result = ing.ingest(str(dump), tmp_path / "out" / "raw")
    copied = (tmp_path / "out" / "raw" / "CodeBook.csv").read_bytes()
    assert copied == changed
    assert result.files["CodeBook.csv"] == {"sha256": sha256(changed), "bytes": len(changed),
                                            "in_manifest": None}


class FullDisk:
    """A file opened for writing on a full disk: every write fails with ENOSPC."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_names_the_source_file_and_the_target(dump, tmp_path, monkeypatch, capsys):
    real_open = Path.open

    def opening(self, mode="r", *args, **kwargs):
        if mode == "xb" and self.name == "CodeBook.csv":  # the copy of CodeBook.csv
            return FullDisk()
        return real_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", opening)
    out = tmp_path / "out"
    code, err = run_cli(dump, out, capsys)
    assert code == 1
    assert err == (f"ingest: {out / 'raw' / 'CodeBook.csv'}: no space left on the device "
                   f"while writing the copy of {dump / 'CodeBook.csv'} -> free disk space and "
                   "run `dvc repro` again\n")
    assert_nothing_lost(out)


def test_unreadable_source_file_is_one_line(dump, tmp_path, monkeypatch, capsys):
    real_open = os.open

    def opening(path, *args, **kwargs):
        if Path(path).name == "CodeBook.csv":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", opening)
    code, err = run_cli(dump, tmp_path / "out", capsys)
    assert code == 1
    assert err == (f"ingest: {dump / 'CodeBook.csv'}: cannot read file (Permission denied) -> "
                   "check that the file exists and is readable\n")
    assert_nothing_lost(tmp_path / "out")


def test_read_only_target_folder_is_one_line(dump, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    read_only(monkeypatch, out)
    code, err = run_cli(dump, out, capsys)
    assert code == 1
    assert err == (f"ingest: {out / 'raw'}: cannot write (Read-only file system) -> make the "
                   f"folder {out} writable (its permissions, or a read-only file system)\n")
    monkeypatch.undo()
    assert_nothing_lost(out)


def test_a_real_ingest_copies_every_file_with_its_hash(dump, tmp_path):
    """The fixture's dump goes through when nothing interferes (so the refusals above are
    the faults', not the dump's)."""
    result = ing.ingest(str(dump), tmp_path / "out" / "raw")
    assert result.files["CodeBook.csv"]["sha256"] == sha256(CODEBOOK)
    assert (tmp_path / "out" / "raw" / "CodeBook.csv").read_bytes() == CODEBOOK
    assert sorted(os.listdir(tmp_path / "out")) == ["raw"]
    with pytest.raises(InputError):  # and a swap is a refusal, not a crash, in the library
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(dumpfiles, "before_open", swap("symbolic link", tmp_path / "secret"))
            ing.ingest(str(dump), tmp_path / "out" / "raw")
