"""The suite's two tiers and its count of pipeline runs (tests/support/tiers.py, runs.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from analysis.core.paths import PATHS
from analysis.tools.nbrun import STAGE_LOG, note_stage_run
from tests.support.runs import clean_readers, pipeline_runs, stage_runs, summary
from tests.support.tiers import SlowWorkInFastTest, is_slow_command, run_order


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
    p, q = tmp_path / "p", tmp_path / "q"
    for stage, folder in [("clean", p), ("table1", p), ("clean", q), ("agreement", p),
                          ("table1", p), ("clean", p), ("agreement", p), ("clean", p),
                          ("table1", q), ("findings", p)]:
        note_stage_run(stage, folder)
    runs = stage_runs(log)
    assert runs[0] == ("clean", str(p)) and len(runs) == 10
    readers = frozenset({"table1", "agreement"})
    # p: one clean reached both readers, one reached agreement only, the last neither;
    # q: its clean reached table1 only
    assert pipeline_runs(runs, readers) == (1, 3)
    assert summary(runs, readers) == (
        "pipeline runs: 1 whole, 3 partial; 10 notebook stage runs "
        "(agreement 2, clean 4, findings 1, table1 3)")


def test_the_readers_of_clean_come_from_dvc_yaml():
    readers = clean_readers(PATHS.root / "dvc.yaml")
    assert {"table1", "agreement", "explorer"} <= readers
    assert not readers & {"clean", "ingest", "keywords", "interviews"}


def test_no_log_no_runs(tmp_path, monkeypatch):
    monkeypatch.delenv(STAGE_LOG, raising=False)
    note_stage_run("clean", tmp_path)  # nothing to write to: nothing written
    assert stage_runs(tmp_path / "absent.log") == []
    assert summary([], frozenset({"table1"})) == (
        "pipeline runs: 0 whole, 0 partial; 0 notebook stage runs (none)")


class Item:
    """What run_order reads of a collected test."""

    def __init__(self, nodeid: str, fixtures: tuple[str, ...] = (), slow: bool = False):
        self.nodeid, self.fixturenames, self.slow = nodeid, fixtures, slow


def test_shared_runs_start_first_then_slow_then_the_long_fast_tests():
    items = [Item("u::a"), Item("u::long_b"), Item("e::c", ("run", "tmp_path"), slow=True),
             Item("e::d", ("run",), slow=True), Item("e::e", slow=True), Item("u::long_f"),
             Item("e::g", ("site", "x", "y"), slow=True)]
    order = run_order(items, ("run", "site", "absent"), ("u::long",), lambda i: i.slow)
    # the user of each shared run with the fewest fixtures, in the order the runs are named
    assert [i.nodeid for i in order] == ["e::d", "e::g", "e::c", "e::e", "u::long_b",
                                         "u::long_f", "u::a"]
    assert sorted(order, key=id) == sorted(items, key=id)  # every test, once
