"""Unit tests of ``analysis.core.artifacts``: the folder written whole or not at all."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.core import artifacts
from analysis.core.artifacts import (
    atomic_folder,
    atomic_path,
    disk_error,
    mount_point,
    project_root_of,
    publish_folder,
    scratch_folder,
    temporary_folder,
    write_text,
)
from analysis.core.errors import InputError


def test_a_finished_folder_replaces_the_old_one_readable_by_all(tmp_path):
    dest = tmp_path / "site"
    (dest / "old").mkdir(parents=True)
    with atomic_folder(dest) as tmp:
        (tmp / "sub").mkdir()
        (tmp / "sub" / "page.html").write_text("new", encoding="utf-8")
    assert sorted(p.name for p in dest.rglob("*")) == ["page.html", "sub"]
    assert stat.S_IMODE((dest / "sub" / "page.html").stat().st_mode) == 0o644
    assert stat.S_IMODE(dest.stat().st_mode) == 0o755
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_a_failed_build_leaves_the_old_folder_and_no_temporary_one(tmp_path):
    dest = tmp_path / "site"
    dest.mkdir()
    (dest / "kept.html").write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_folder(dest) as tmp:
        (tmp / "half.html").write_text("half", encoding="utf-8")
        raise RuntimeError("stop")
    assert [p.name for p in dest.iterdir()] == ["kept.html"]
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_a_failed_swap_puts_the_old_folder_back_and_names_the_target(tmp_path, monkeypatch):
    """(Where the file system cannot exchange two folders: renamed in two steps.)"""
    dest = tmp_path / "raw"
    dest.mkdir()
    (dest / "kept.csv").write_text("old", encoding="utf-8")
    real_replace = os.replace
    monkeypatch.setattr(artifacts, "exchange_paths", lambda a, b: False)

    def full_disk(src, dst):
        if Path(dst) == dest and not Path(src).name.endswith(".previous"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(InputError) as info, atomic_folder(dest, public=False) as tmp:
        (tmp / "new.csv").write_text("new", encoding="utf-8")
    assert str(info.value) == (f"{dest}: no space left on the device while writing -> free "
                               "disk space and run `dvc repro` again")
    assert [p.name for p in dest.iterdir()] == ["kept.csv"]
    assert [p.name for p in tmp_path.iterdir()] == ["raw"]


def test_a_temporary_folder_follows_the_umask_and_is_removed_whatever_happens(tmp_path):
    old = os.umask(0o027)
    try:
        with temporary_folder(tmp_path / "raw", ".work-") as work:
            assert work.parent == tmp_path and work.name.startswith(".work-")
            assert stat.S_IMODE(work.stat().st_mode) == 0o750
            (work / "unpacked").mkdir()
    finally:
        os.umask(old)
    with pytest.raises(RuntimeError), temporary_folder(tmp_path / "raw", ".work-") as work:
        raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []


# -- where temporary files go -------------------------------------------------------------


@pytest.fixture
def dead_pid() -> int:
    """The number of a process that has ended (the runs that left working folders)."""
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


@pytest.fixture
def project(tmp_path) -> Path:
    """A project folder (it holds a dvc.yaml) with an output folder."""
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    (tmp_path / "report" / "tables" / "x").mkdir(parents=True)
    return tmp_path


def test_scratch_folder_of_a_project_folder_is_under_build(project):
    assert scratch_folder(project / "report" / "tables" / "x") == (
        project / "build" / "tmp" / "report" / "tables" / "x")
    # build/merged is a stage's output and another's dependency: nothing is built in it
    (project / "build" / "merged").mkdir(parents=True)
    (project / "build" / "tmp" / "x").mkdir(parents=True)
    assert scratch_folder(project / "build" / "merged") == (
        project / "build" / "tmp" / "build" / "merged")
    assert scratch_folder(project / "build" / "tmp" / "x") == project / "build" / "tmp" / "x"
    assert project_root_of(project / "report" / "tables" / "x") == project


def test_scratch_folder_outside_a_project_is_the_folder_itself(tmp_path):
    assert project_root_of(tmp_path) is None
    assert scratch_folder(tmp_path) == tmp_path


def test_atomic_path_in_a_project_writes_nothing_beside_the_target(project):
    folder = project / "report" / "tables" / "x"
    scratch = project / "build" / "tmp" / "report" / "tables" / "x"
    with atomic_path(folder / "t.csv") as tmp:
        assert tmp.parent == scratch
        assert list(folder.iterdir()) == []  # nothing in the output folder meanwhile
        tmp.write_text("a\n")
    assert [p.name for p in folder.iterdir()] == ["t.csv"]
    assert list(scratch.iterdir()) == []


def test_atomic_path_removes_what_a_killed_run_left_in_both_places(project):
    folder = project / "report" / "tables" / "x"
    scratch = project / "build" / "tmp" / "report" / "tables" / "x"
    scratch.mkdir(parents=True)
    old = folder / ".t.csv.abc.tmp"  # left by an older version
    left = scratch / ".t.csv.def.tmp"
    other = scratch / ".u.csv.ghi.tmp"  # another file's: not this write's business
    for path in (old, left, other):
        path.write_text("half")
    write_text(folder / "t.csv", "a\n")
    assert not old.exists() and not left.exists() and other.exists()


def test_atomic_folder_in_a_project_builds_under_build(project, dead_pid):
    dest = project / "report" / "_generated"
    stale = project / "build" / "tmp" / "report" / f"._generated-{dead_pid}-0123abcd"
    stale.mkdir(parents=True)
    with atomic_folder(dest) as tmp:
        assert tmp.parent == project / "build" / "tmp" / "report"
        (tmp / "a.md").write_text("a\n")
    assert [p.name for p in dest.iterdir()] == ["a.md"]
    assert not stale.exists()
    assert sorted(p.name for p in (project / "report").iterdir()) == ["_generated", "tables"]


def test_a_temporary_folder_in_a_project_removes_what_a_killed_run_left(project, dead_pid):
    scratch = project / "build" / "tmp" / "data"
    (scratch / f".work-{dead_pid}-0123abcd" / "unpacked").mkdir(parents=True)
    (scratch / f".raw-{dead_pid}-0123abcd").mkdir()  # another output's
    with temporary_folder(project / "data" / "raw", ".work-") as work:
        assert work.parent == scratch
        assert work.name.startswith(f".work-{os.getpid()}-")
        assert sorted(p.name for p in scratch.iterdir()) == [
            f".raw-{dead_pid}-0123abcd", work.name]
    assert [p.name for p in scratch.iterdir()] == [f".raw-{dead_pid}-0123abcd"]


def test_a_temporary_file_that_cannot_be_made_is_one_message(project, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied",
                              str(project / "build" / "tmp" / "report" / ".t.csv.x.tmp"))

    monkeypatch.setattr(artifacts, "make_temporary", refuse)
    with pytest.raises(InputError) as info:
        write_text(project / "report" / "t.csv", "a\n")
    assert str(info.value) == (
        f"{project / 'report' / 't.csv'}: cannot write (Permission denied) -> make the folder "
        f"{project / 'build' / 'tmp' / 'report'} writable (its permissions, or a read-only "
        "file system)")


def test_disk_error_names_the_folder_to_fix():
    target = Path("/p/report/_variables.yml")
    rename = OSError(errno.EROFS, "Read-only file system", "/p/build/tmp/report/.x.tmp",
                     None, str(target))
    assert "make the folder /p/report writable" in str(disk_error(rename, target))
    mkdir = OSError(errno.EACCES, "Permission denied", "/p/report/tables")
    assert "make the folder /p/report writable" in str(
        disk_error(mkdir, Path("/p/report/tables/x/t.csv")))
    other = OSError(errno.EIO, "Input/output error")
    assert disk_error(other, target) is other


def test_mount_point_is_the_longest_mount_above_a_path(tmp_path):
    info = tmp_path / "mountinfo"
    info.write_text("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                    "23 22 8:1 /srv/data /work/my\\040project/report rw - ext4 /dev/sda1 rw\n")
    assert mount_point(Path("/work/my project/report/tables"), info) == (
        "/work/my project/report")
    assert mount_point(Path("/work/my project/build"), info) == "/"
    assert mount_point(Path("/x"), tmp_path / "none") is None


def test_scratch_folder_of_a_folder_mounted_apart_is_the_folder_itself(project, monkeypatch):
    """A bind mount (a folder of the same file system mounted at report/, as a container
    does) has the same device number, but a rename out of build/ into it fails."""
    report = (project / "report").absolute()
    monkeypatch.setattr(artifacts, "mount_point",
                        lambda path: str(report) if Path(path).is_relative_to(report) else "/")
    assert scratch_folder(report / "tables" / "x") == report / "tables" / "x"


def test_atomic_path_moves_across_file_systems(project, monkeypatch):
    real_replace = os.replace
    moves = []

    def replace(src, dst):
        moves.append(Path(src).name)
        if Path(src).parent != Path(dst).parent:
            raise OSError(errno.EXDEV, "Invalid cross-device link", str(src), None, str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    folder = project / "report" / "tables" / "x"
    write_text(folder / "t.csv", "a\n")
    assert (folder / "t.csv").read_text() == "a\n"
    assert [p.name for p in folder.iterdir()] == ["t.csv"]
    assert moves[-1] == "t.csv.part"
    assert list((project / "build" / "tmp" / "report" / "tables" / "x").iterdir()) == []


def test_a_folder_is_published_across_mount_points(project, monkeypatch):
    """A site built under build/ reaches a report/ mounted apart: copied beside it first,
    then renamed into place, the old one removed."""
    report = (project / "report").absolute()
    monkeypatch.setattr(artifacts, "mount_point",
                        lambda path: str(report) if Path(path).is_relative_to(report) else "/")
    real_replace = os.replace

    def replace(src, dst):
        if Path(src).is_relative_to(report) != Path(dst).is_relative_to(report):
            raise OSError(errno.EXDEV, "Invalid cross-device link", str(src), None, str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    (report / "_site").mkdir()
    (report / "_site" / "old.html").write_text("old")
    new = project / "build" / "site-render" / "_site"
    new.mkdir(parents=True)
    (new / "index.html").write_text("new")
    publish_folder(new, report / "_site")
    assert [p.name for p in (report / "_site").iterdir()] == ["index.html"]
    assert sorted(p.name for p in report.iterdir()) == ["_site", "tables"]
    assert not new.exists()
