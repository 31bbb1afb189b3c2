"""The suite's two tiers and its count of pipeline runs (tests/support/tiers.py, runs.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from analysis.tools.nbrun import STAGE_LOG, note_stage_run
from tests.support.runs import stage_runs, summary, whole_runs
from tests.support.tiers import SlowWorkInFastTest, is_slow_command


@pytest.mark.parametrize("command", [
    ["dvc", "repro"], [sys.executable, "-m", "dvc", "dag"], "cd x && dvc repro table1",
    [sys.executable, "-m", "analysis.tools.nbrun", "clean"], "/opt/bin/quarto render",
    [sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"], ["papermill", "a", "b"],
    [sys.executable, "-m", "analysis.tools.repro"], [sys.executable, "-m", "analysis.report"],
])
def test_notebooks_dvc_the_driver_and_renders_are_slow_commands(command):
    assert is_slow_command(command)


@pytest.mark.parametrize("command", [
    ["git", "status"], [sys.executable, "-c", "import papermill; print(1)"],
    [sys.executable, "-c", "from analysis.tools.nbrun import run"],
    [sys.executable, "-m", "analysis.update.select", "--help"], "ls dvc.yaml", ["frictionless"],
])
def test_other_commands_are_not(command):
    assert not is_slow_command(command)


def test_a_fast_test_that_starts_dvc_fails_with_one_line():
    with pytest.raises(SlowWorkInFastTest, match="mark it @pytest.mark.slow"):
        subprocess.run([sys.executable, "-m", "dvc", "--version"], capture_output=True)
    assert subprocess.run(["git", "--version"], capture_output=True).returncode == 0


def test_a_fast_test_that_runs_a_notebook_fails():
    import papermill

    with pytest.raises(SlowWorkInFastTest):
        papermill.execute_notebook("in.ipynb", "out.ipynb")


def test_each_finished_stage_is_logged_and_whole_runs_counted(tmp_path, monkeypatch):
    log = tmp_path / "stages.log"
    monkeypatch.setenv(STAGE_LOG, str(log))
    for stage in ("clean", "table1", "agreement", "table1", "clean", "findings"):
        note_stage_run(stage, tmp_path / "p")
    runs = stage_runs(log)
    assert runs[0] == ("clean", str(tmp_path / "p")) and len(runs) == 6
    assert whole_runs(runs) == 2
    assert summary(runs) == ("pipeline runs: 2 whole; 6 notebook stage runs "
                             "(agreement 1, clean 2, findings 1, table1 2)")


def test_no_log_no_runs(tmp_path, monkeypatch):
    monkeypatch.delenv(STAGE_LOG, raising=False)
    note_stage_run("clean", tmp_path)  # nothing to write to: nothing written
    assert stage_runs(tmp_path / "absent.log") == []
    assert summary([]) == "pipeline runs: 0 whole; 0 notebook stage runs (none)"
