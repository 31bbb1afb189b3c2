"""Every reader of a dump treats it as ingest does: ``labels extend`` (its base and its
batch), ``select --known``, ``analysis.tools.validate``, the clean stage, and ``labels
merge`` reading a selection's candidates.

A symbolic link anywhere (to a file or a folder: a plain file, a label file, the ``Issue
Report`` folder, a project folder, a file in ``labels/``), a hard link or a FIFO is
refused in one line naming it, and a file swapped for a link between the check and the
one opening (through :func:`analysis.core.dumpfiles.before_open`, the hook ingest's fault
tests use) is refused too. Each test checks that nothing was written and that the secret
outside the dump appears nowhere.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from analysis.core import dumpfiles
from analysis.core.dumpfiles import DumpFiles
from analysis.tools.validate import main as validate_main
from analysis.update.labels.__main__ import main as labels_main
from analysis.update.select.__main__ import main as select_main
from analysis.update.select.known import dump_issues
from tests.support.dumps import Project, write_batch, write_dump

SECRET = b"root:x:0:0:root:/root:/bin/bash\n"  # what a file outside the dumps holds
T = "https://github.com/pytorch/pytorch/issues/"


@pytest.fixture
def loop(tmp_path) -> Path:
    """A base (the release's shape, with a notes file), a batch, and beside them a secret
    file and a secret folder (a project's files, holding the secret) outside both."""
    base = tmp_path / "base"
    write_dump(base, [Project("pytorch", {2023: 2, 2024: 1}, repo="pytorch/pytorch")])
    (base / "notes.txt").write_text("notes\n")
    (base / "Issue Report" / "pytorch" / "notes.txt").write_text("notes\n")
    write_batch(tmp_path / "batch", {
        "pytorch": [(f"{T}7", "2024-12-30T00:00:00Z", ["C.1", "C.1", "C.2"], "C.1")]})
    (tmp_path / "secret").write_bytes(SECRET)
    outside = tmp_path / "outside"
    shutil.copytree(base / "Issue Report", outside / "Issue Report")
    for path in (outside / "Issue Report").rglob("*.txt"):
        path.write_bytes(SECRET)
    shutil.copytree(tmp_path / "batch" / "labels", outside / "labels")
    (outside / "labels" / "comments.csv").write_bytes(SECRET)
    return tmp_path


def extend(tmp: Path, capsys, force: bool = False) -> tuple[int, str]:
    """``labels extend --base base --batch batch --out study``: (status, stderr)."""
    code = labels_main(["extend", "--base", str(tmp / "base"), "--batch", str(tmp / "batch"),
                        "--out", str(tmp / "study"), *(["--force"] if force else [])])
    return code, capsys.readouterr().err


def leaked(tmp: Path) -> list[str]:
    """Files outside the inputs (the study, build folders) that hold the secret."""
    inputs = (tmp / "secret", tmp / "outside", tmp / "base", tmp / "batch")
    return [p.relative_to(tmp).as_posix() for p in tmp.rglob("*")
            if p.is_file() and not p.is_symlink() and SECRET in p.read_bytes()
            and not any(p == i or i in p.parents for i in inputs)]


def replace_by_link(path: Path, target: Path) -> None:
    """``path`` (a file or a folder) becomes a symbolic link to ``target``."""
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(target)


# Where a link goes, in the base or in the batch: (the entry, what it points to outside).
LINKS = {
    "a plain file of the base": ("base/notes.txt", "secret"),
    "a plain file of a project folder": ("base/Issue Report/pytorch/notes.txt", "secret"),
    "a label file of the base": ("base/Issue Report/pytorch/pytorch.csv",
                                 "outside/Issue Report/pytorch/pytorch.csv"),
    "a year file of the base": ("base/Issue Report/pytorch/pytorch_2023.txt", "secret"),
    "the Issue Report folder of the base": ("base/Issue Report", "outside/Issue Report"),
    "a project folder of the base": ("base/Issue Report/pytorch",
                                     "outside/Issue Report/pytorch"),
    "a folder of the base": ("base/labels", "outside/labels"),
    "a file in the batch's labels/": ("batch/labels/comments.csv", "secret"),
    "the batch's labels/ folder": ("batch/labels", "outside/labels"),
    "the batch's merge record": ("batch/labels/merge.json", "secret"),
    "a year file of the batch": ("batch/Issue Report/pytorch/pytorch_2024.txt", "secret"),
    "the Issue Report folder of the batch": ("batch/Issue Report", "outside/Issue Report"),
}


@pytest.mark.parametrize("where", LINKS)
def test_extend_refuses_a_link_anywhere_in_the_base_or_the_batch(loop, capsys, where):
    entry, target = LINKS[where]
    if where == "a folder of the base":
        (loop / "base" / "labels").mkdir()
    replace_by_link(loop / entry, loop / target)
    code, err = extend(loop, capsys)
    assert code == 1
    assert err == (f"extend: {loop / entry}: source contains a symbolic link -> replace the "
                   "link by what it points to\n")
    assert not (loop / "study").exists()
    assert leaked(loop) == []


@pytest.mark.parametrize("kind", ["hard link", "FIFO"])
def test_extend_refuses_hard_links_and_special_files(loop, capsys, kind):
    entry = loop / "base" / "Issue Report" / "pytorch" / "notes.txt"
    entry.unlink()
    if kind == "hard link":
        os.link(loop / "secret", entry)
    else:
        os.mkfifo(entry)  # never opened: the run cannot hang on it
    code, err = extend(loop, capsys)
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"extend: {entry}: source file is a ")
    assert not (loop / "study").exists()
    assert leaked(loop) == []


def swap_for_link(name: str, target: Path):
    """A ``before_open`` hook that replaces the checked file (or the folder above it,
    when ``name`` ends in ``/``) by a link to ``target`` just before it is opened."""
    def hook(rel: str, item: dumpfiles.DumpFile) -> None:
        if name.endswith("/") and rel.startswith(name):
            folder = item.path.parents[rel.count("/") - name.count("/")]
            if not folder.is_symlink():
                folder.rename(folder.with_name(folder.name + ".checked"))
                folder.symlink_to(target)
        elif rel == name and not item.path.is_symlink():
            item.path.rename(item.path.with_name(item.path.name + ".checked"))
            item.path.symlink_to(target)
    return hook


@pytest.mark.parametrize("dump,name,target", [
    ("base", "notes.txt", "secret"),                             # a carried file
    ("base", "Issue Report/pytorch/pytorch.csv",                 # a label file
     "outside/Issue Report/pytorch/pytorch.csv"),
    ("base", "Issue Report/pytorch/pytorch_2023.txt", "secret"),  # a year file
    ("base", "Issue Report/pytorch/", "outside/Issue Report/pytorch"),  # the folder above
    ("batch", "labels/comments.csv", "secret"),
    ("batch", "labels/merge.json", "secret"),
    ("batch", "Issue Report/pytorch/pytorch_2024.txt", "secret"),
])
def test_extend_refuses_a_file_swapped_for_a_link_after_the_check(
        loop, capsys, monkeypatch, dump, name, target):
    hook = swap_for_link(name, loop / target)
    monkeypatch.setattr(dumpfiles, "before_open",
                        lambda rel, item: hook(rel, item) if item.path.is_relative_to(
                            loop / dump) else None)
    code, err = extend(loop, capsys)
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"extend: {loop / dump}/")
    assert err.endswith(": source file was replaced while labels extend was reading the "
                        "dump -> run labels extend again on a dump nobody is changing\n")
    assert not (loop / "study").exists()
    assert leaked(loop) == []


def test_the_hook_sees_every_file_extend_reads_before_it_is_opened(loop, monkeypatch):
    """Without a swap, extend goes through, and every file of the base and the batch it
    reads passes the hook first (so the swaps above land where the test says)."""
    seen: set[Path] = set()
    monkeypatch.setattr(dumpfiles, "before_open", lambda rel, item: seen.add(item.path))
    assert labels_main(["extend", "--base", str(loop / "base"), "--batch",
                        str(loop / "batch"), "--out", str(loop / "study")]) == 0
    inputs = {p for d in ("base", "batch") for p in (loop / d).rglob("*") if p.is_file()}
    assert inputs <= seen


def test_select_known_refuses_a_link_in_the_dump(loop, capsys, tmp_path):
    replace_by_link(loop / "base/Issue Report/pytorch", loop / "outside/Issue Report/pytorch")
    with pytest.raises(Exception, match="source contains a symbolic link"):
        dump_issues(loop / "base")
    export = tmp_path / "issues.csv"
    export.write_text("url,title,body,created_at\n")
    code = select_main([str(export), "--out", str(tmp_path / "update"), "--known",
                        str(loop / "base"), "--keywords", str(loop / "base/filter_keywords"),
                        "--project", "pytorch"])
    err = capsys.readouterr().err
    assert code == 1
    assert err == (f"select: {loop / 'base/Issue Report/pytorch'}: source contains a symbolic "
                   "link -> replace the link by what it points to\n")


def test_validate_refuses_a_link_in_the_dump(loop, capsys):
    replace_by_link(loop / "base/Issue Report/pytorch/pytorch_2023.txt", loop / "secret")
    assert validate_main([str(loop / "base")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"validate: {loop / 'base/Issue Report/pytorch/pytorch_2023.txt'}:"
                            " source contains a symbolic link -> replace the link by what it "
                            "points to\n")


def test_validate_refuses_a_file_swapped_after_the_check(loop, capsys, monkeypatch):
    monkeypatch.setattr(dumpfiles, "before_open", swap_for_link(
        "Issue Report/pytorch/pytorch_2023.txt", loop / "secret"))
    assert validate_main([str(loop / "base")]) == 1
    err = capsys.readouterr().err
    assert err == (f"validate: {loop / 'base/Issue Report/pytorch/pytorch_2023.txt'}: source "
                   "file was replaced while validate was reading the dump -> run validate "
                   "again on a dump nobody is changing\n")
    assert SECRET.decode() not in err


def test_the_clean_stage_reads_its_dump_as_ingest_does(loop):
    from analysis.clean.scan import scan_dump
    from analysis.core.errors import InputError
    from analysis.core.paths import PATHS
    from analysis.core.projects import Projects
    from analysis.core.taxonomy import load_taxonomy

    replace_by_link(loop / "base/Issue Report/pytorch/pytorch.csv",
                    loop / "outside/Issue Report/pytorch/pytorch.csv")
    with pytest.raises(InputError, match="pytorch.csv: source contains a symbolic link"):
        scan_dump(loop / "base", Projects.load(PATHS.projects_file),
                  load_taxonomy(PATHS.taxonomy_file), "keep", [])


def test_merge_refuses_a_selection_whose_candidates_are_a_link(tmp_path, capsys):
    """The candidates the sheets are checked against lie in the selection's folder."""
    from tests.support.sheets import blank_sheets, issues_of

    update = tmp_path / "update"
    _, candidates = issues_of("pytorch/pytorch", 2)
    sheets = blank_sheets(update, candidates, 2)
    listed = update / "selection" / "candidates.csv"
    listed.rename(tmp_path / "elsewhere.csv")
    listed.symlink_to(tmp_path / "elsewhere.csv")
    assert labels_main(["merge", *map(str, sheets), "--out", str(tmp_path / "batch")]) == 1
    assert capsys.readouterr().err == (
        f"merge: {listed}: source contains a symbolic link -> replace the link by what it "
        "points to\n")
    assert not (tmp_path / "batch").exists()


def test_a_walked_dump_names_its_files_under_its_folder(loop):
    dump = DumpFiles.walk(loop / "base", "a reader")
    assert dump.listing("Issue Report/pytorch") == (
        [], ["notes.txt", "pytorch.csv", "pytorch_2023.txt", "pytorch_2024.txt"])
    assert dump.is_dir("Issue Report") and not dump.is_file("Issue Report")
    assert dump.read_bytes(loop / "base" / "notes.txt") == b"notes\n"
    with pytest.raises(Exception, match=r"base/absent.txt: no such plain file in the dump"):
        dump.read_bytes("absent.txt")
