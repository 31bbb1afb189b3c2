"""Faults: a full disk, an unreadable file, a missing source, a run killed mid-stage."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from analysis.clean.issues import clean_dump
from analysis.core import artifacts
from analysis.core.errors import InputError
from analysis.ingest import __main__ as cli
from analysis.ingest import ingest
from tests.support.workspace import copy_run, dvc, pipeline_env


def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_full_disk_while_writing_is_one_message_and_leaves_nothing(tmp_path, monkeypatch):
    target = tmp_path / "out" / "table.csv"
    monkeypatch.setattr(Path, "write_text", enospc)
    with pytest.raises(InputError, match="no space left") as info:
        artifacts.write_text(target, "a,b\n")
    assert str(target) in str(info.value) and "free disk space" in str(info.value)
    assert list((tmp_path / "out").iterdir()) == []


def test_stale_temporary_files_of_a_killed_run_are_removed(tmp_path):
    stale = tmp_path / ".table.csv.abc123.tmp"
    stale.write_text("half")
    artifacts.write_text(tmp_path / "table.csv", "x\n")
    assert not stale.exists() and (tmp_path / "table.csv").read_text() == "x\n"


def test_full_disk_during_ingest(tmp_path, monkeypatch):
    src = tmp_path / "src" / "Issue Report"
    src.mkdir(parents=True)
    (src / "a.txt").write_text("x")
    monkeypatch.setattr(ingest.shutil, "copyfile", enospc)
    with pytest.raises(InputError, match="no space left"):
        ingest.ingest(str(tmp_path / "src"), tmp_path / "raw")
    assert not (tmp_path / "raw").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["src"]  # no temporary folder left


def test_unreadable_source_file_during_ingest(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    (src / "secret.csv").write_text("x")
    real_open = Path.open

    def guarded(self, *args, **kwargs):
        if self.name == "secret.csv":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", guarded)
    with pytest.raises(InputError, match="secret.csv.*cannot read file"):
        ingest.ingest(str(src), tmp_path / "raw")


def test_unreadable_label_file_during_clean(dump, taxonomy, projects_meta, monkeypatch):
    root, _ = dump
    real = Path.read_bytes

    def guarded(self):
        if self.name == "vllm.csv":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", guarded)
    with pytest.raises(InputError, match="vllm/vllm.csv: cannot read file"):
        clean_dump(root, taxonomy, projects_meta)


def test_missing_source_is_one_message_before_the_pipeline_runs(tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("ingest:\n  source: my/missing/dump\n")
    assert cli.main(["fetch", "--params", str(params)]) == 1
    err = capsys.readouterr().err
    assert "my/missing/dump: source not found" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_run_killed_mid_stage_is_recovered_by_the_next_repro(small_run, tmp_path):
    work = copy_run(small_run.project, tmp_path / "project")  # a finished run, up to date
    # The clean notebook changes, so the next repro runs that stage for real; its last cell
    # waits while a marker file exists, so that the kill lands inside the stage.
    notebook = work / "notebooks" / "01_clean.py"
    marker = work / "hold-the-stage"
    marker.touch()
    notebook.write_text(notebook.read_text(encoding="utf-8") + (
        "\n# %%\nimport os, time\nwhile os.path.exists('hold-the-stage'):\n"
        "    time.sleep(0.05)\n"), encoding="utf-8")
    proc = subprocess.Popen(["dvc", "repro"], cwd=work, env=pipeline_env(work),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    notebooks = work / "report" / "notebooks"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(notebooks.glob(".01_clean.*.ipynb")):
        time.sleep(0.05)
    assert list(notebooks.glob(".01_clean.*.ipynb")), "the clean stage never started"
    time.sleep(1.0)  # inside the notebook, in its last cell at the latest
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    marker.unlink()
    # Nothing half-written sits at an output path, and DVC does not take the stage as done.
    assert not (notebooks / "01_clean.ipynb").exists()
    status = dvc(work, "status").stdout
    assert "clean:" in status
    rerun = dvc(work, "repro").stdout
    assert "Running stage 'clean'" in rerun  # run again, not taken from the cache
    assert "up to date" in dvc(work, "status").stdout
    assert not list(notebooks.glob(".*.ipynb"))
    assert (work / "report/_site/index.html").is_file()
