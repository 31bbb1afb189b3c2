"""Runs killed while they put a finished folder in place, and runs at the same time.

A replace (``extend --force``, ``merge --force``, ingest: all
:func:`analysis.core.artifacts.publish_folder`) is killed with SIGKILL before each of its
steps (the hook :func:`analysis.core.artifacts.publishing`, replaced in the killed
process), both where the file system exchanges the two folders in one step and where it
cannot (the two-step fallback): the output holds the previous folder or the new one,
whole, or (between the fallback's two renames) nothing, and the next run puts the previous
one back instead of removing it. What a dead run left is removed by the next run; the
working folder of a run still going, for another output or the same, never is.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.update.labels.__main__ import main as labels_main
from tests.support.children import Child
from tests.support.dumps import Project, write_batch, write_dump
from tests.support.faults import snapshot

T = "https://github.com/pytorch/pytorch/issues/"
TIME_LIMIT = 120  # seconds a held run may wait for the test

# Run in a child process: replace the publication's hook by one that kills the process
# (SIGKILL) before the step named (``open``: before a dump file is opened), or holds it
# there until the file ``hold`` is removed;
# ``two-step``: the file system cannot exchange two folders. Then run the command.
CHILD = '''
import os, signal, sys, time
from pathlib import Path
from analysis.core import artifacts

action, step, mode, signals = sys.argv[1:5]
if mode == "two-step":
    artifacts.exchange_paths = lambda a, b: False

def publishing(name, path):
    if name != step:
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    Path(signals, "held").touch()
    while Path(signals, "hold").exists():
        time.sleep(0.02)

artifacts.publishing = publishing
if step == "open":  # a dump file about to be opened (ingest's copy, extend's reading)
    from analysis.core import dumpfiles
    dumpfiles.before_open = lambda rel, item: publishing("open", item.path)
command = sys.argv[5]
if command == "labels":
    from analysis.update.labels.__main__ import main
else:
    from analysis.ingest.__main__ import main
sys.exit(main(sys.argv[6:]))
'''


def child(project: Path, action: str, step: str, mode: str, command: list[str],
          signals: Path | None = None) -> Child:
    """Start ``command`` (``labels ...`` or ``ingest ...``) in a child process of
    ``project`` that ``action``s (kill or hold) before the publication step ``step`` (forked
    with the commands imported: :mod:`tests.support.children`)."""
    return Child(CHILD, [action, step, mode, str(signals or project), *command], project)


@pytest.fixture
def project(tmp_path) -> Path:
    """A project folder (its working folders go to build/tmp/) with a base, two batches
    and an earlier study of the first batch (``study``); ``expected``: what extending
    with the second batch gives."""
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    write_dump(tmp_path / "base", [Project("pytorch", {2023: 2}, repo="pytorch/pytorch")])
    for name, n in (("b1", 7), ("b2", 8)):
        write_batch(tmp_path / name, {
            "pytorch": [(f"{T}{n}", "2025-01-02T00:00:00Z", ["C.1", "C.1", "C.2"], "C.1")]})
    assert labels_main(extend_args("b1", "study", tmp_path)) == 0
    assert labels_main(extend_args("b2", "expected", tmp_path)) == 0
    return tmp_path


def extend_args(batch: str, out: str, root: Path | None = None, force: bool = False
                ) -> list[str]:
    root = root or Path(".")
    return ["extend", "--base", str(root / "base"), "--batch", str(root / batch), "--out",
            str(root / out), *(["--force"] if force else [])]


def working_folders(project: Path) -> list[str]:
    """What runs left in the project's build/tmp/ (working folders, previous folders)."""
    scratch = project / "build" / "tmp"
    return sorted(p.name for p in scratch.iterdir()) if scratch.is_dir() else []


@pytest.mark.parametrize("mode,step", [
    ("exchange", "exchange"),     # before the swap: the previous study
    ("exchange", "remove old"),   # after it: the new one; the previous one left aside
    ("two-step", "aside"),        # before the first rename: the previous study
    ("two-step", "into place"),   # between the renames: no study, the previous one aside
    ("two-step", "remove old"),   # after both: the new one; the previous one left aside
])
def test_a_replace_killed_at_any_step_loses_nothing(project, capsys, monkeypatch, mode,
                                                    step):
    monkeypatch.chdir(project)
    study, previous, new = project / "study", snapshot(project / "study"), snapshot(
        project / "expected")
    run = child(project, "kill", step, mode, ["labels", *extend_args("b2", "study",
                                                                      force=True)])
    run.communicate(timeout=TIME_LIMIT)
    assert run.returncode == -9  # killed by SIGKILL, where the test said
    if (mode, step) == ("two-step", "into place"):
        assert not study.exists()
        assert [n.endswith(".previous") for n in working_folders(project)].count(True) == 1
    else:
        assert snapshot(study) == (previous if step in ("exchange", "aside") else new)
        assert working_folders(project)  # the kill left its working folder
    # the next run, without --force (nothing seems to be there after the worst kill):
    # the previous study is back, never removed, and it is not replaced without --force
    assert labels_main(extend_args("b2", "study")) == 1
    assert "the folder holds an earlier extend -> choose another --out, or pass --force" in \
        capsys.readouterr().err
    assert snapshot(study) == (previous if step in ("exchange", "aside", "into place")
                               else new)
    assert labels_main(extend_args("b2", "study", force=True)) == 0
    assert snapshot(study) == new
    assert working_folders(project) == []  # what the dead run left is gone


def test_a_killed_ingest_is_undone_by_the_next_one_even_when_that_fails(project, tmp_path):
    """Killed between the fallback's two renames, ingest leaves no data/raw; the next
    ingest puts the previous data back before anything else, so that a refused source
    still leaves the previous data (and the dead run's folders are removed)."""
    raw = project / "data" / "raw"
    params = project / "params.yaml"
    params.write_text(f"ingest:\n  source: {project / 'base'}\n  manifest: null\n"
                      "  commit: null\n")
    args = ["ingest", "--params", str(params), "--out", str(raw), "--provenance",
            str(project / "data" / "provenance.json")]
    done = child(project, "kill", "no such step", "exchange", args)
    assert done.communicate(timeout=TIME_LIMIT) and done.returncode == 0
    previous = snapshot(raw)
    run = child(project, "kill", "into place", "two-step", args)
    run.communicate(timeout=TIME_LIMIT)
    assert run.returncode == -9 and not raw.exists()
    (project / "base" / "evil").symlink_to("/etc/hostname")
    again = child(project, "kill", "no such step", "exchange", args)
    _, err = again.communicate(timeout=TIME_LIMIT)
    assert again.returncode == 1 and "evil: source contains a symbolic link" in err
    assert snapshot(raw) == previous
    assert working_folders(project) == ["data"] and os.listdir(project / "build/tmp/data") == []


def test_two_extends_at_once_keep_their_own_work(project, monkeypatch):
    """``extend --out study --force`` while ``extend --out study-2026`` is writing: neither
    removes the other's working folder (``.study-2026-...`` starts like ``.study-``)."""
    monkeypatch.chdir(project)
    signals = project / "signals"
    signals.mkdir()
    (signals / "hold").touch()
    other = child(project, "hold", "into place", "exchange",
                  ["labels", *extend_args("b2", "study-2026")], signals)
    deadline = time.monotonic() + TIME_LIMIT
    while not (signals / "held").exists():
        assert other.poll() is None, other.communicate()
        assert time.monotonic() < deadline, "the other extend never got to its last step"
        time.sleep(0.05)
    assert labels_main(extend_args("b2", "study", force=True)) == 0
    (signals / "hold").unlink()
    out, err = other.communicate(timeout=TIME_LIMIT)
    assert (other.returncode, err) == (0, "")
    expected = snapshot(project / "expected")
    assert snapshot(project / "study") == expected == snapshot(project / "study-2026")
    assert working_folders(project) == []


def test_a_run_removes_only_what_dead_runs_of_its_output_left(project, monkeypatch):
    """A killed extend's working folder is removed by the next run; a folder of a run
    still going (its process alive, or its lock held: a run in another container) is not,
    nor one of another output."""
    monkeypatch.chdir(project)
    run = child(project, "kill", "aside", "two-step",
                ["labels", *extend_args("b2", "study", force=True)])
    run.communicate(timeout=TIME_LIMIT)
    dead = working_folders(project)
    assert run.returncode == -9 and len(dead) == 1 and dead[0].startswith(".study-")
    scratch = project / "build" / "tmp"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        alive = scratch / f".study-{sleeper.pid}-0123abcd"
        locked = scratch / f".study-{run.pid}-4567cdef"  # a dead number, a held lock
        other = scratch / f".study-2026-{run.pid}-89abcdef"  # another output's
        for folder in (alive, locked, other):
            (folder / "Issue Report").mkdir(parents=True)
        lock = os.open(locked, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            assert labels_main(extend_args("b2", "study", force=True)) == 0
        finally:
            os.close(lock)
        assert working_folders(project) == sorted(p.name for p in (alive, locked, other))
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_killed_ingest_leaves_nothing_the_next_one_keeps(project):
    """Ingest of an archive killed while it copies leaves its working folders (the
    unpacked archive, ``.ingest-raw-``, and the new data/raw, ``.raw-``); the next ingest
    removes them, and leaves those of an ingest still going."""
    shutil.make_archive(str(project / "release"), "zip", project / "base")
    params = project / "params.yaml"
    params.write_text(f"ingest:\n  source: {project / 'release.zip'}\n  manifest: null\n"
                      "  commit: null\n")
    args = ["ingest", "--params", str(params), "--out", str(project / "data" / "raw"),
            "--provenance", str(project / "data" / "provenance.json")]
    run = child(project, "kill", "open", "exchange", args)
    run.communicate(timeout=TIME_LIMIT)
    scratch = project / "build" / "tmp" / "data"
    left = sorted(p.name for p in scratch.iterdir())
    assert run.returncode == -9
    assert [name.split("-")[0] for name in left] == [".ingest", ".raw"]
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        going = [scratch / f".{kind}-{sleeper.pid}-0123abcd" for kind in ("ingest-raw", "raw")]
        for folder in going:
            folder.mkdir()
        done = child(project, "kill", "no such step", "exchange", args)
        _, err = done.communicate(timeout=TIME_LIMIT)
        assert (done.returncode, err) == (0, "")
        assert sorted(scratch.iterdir()) == going
    finally:
        sleeper.kill()
        sleeper.wait()
    assert (project / "data" / "raw" / "CodeBook.csv").is_file()
