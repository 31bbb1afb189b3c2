"""The pipeline driver that runs independent stages side by side (analysis.tools.repro)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from analysis.tools import repro

# this project's shape: interviews and keywords need only ingest, findings waits for four
NEEDS = {
    "ingest": frozenset(),
    "clean": frozenset({"ingest"}),
    "table1": frozenset({"clean"}),
    "agreement": frozenset({"clean"}),
    "interviews": frozenset({"ingest"}),
    "compare": frozenset({"agreement", "clean"}),
    "findings": frozenset({"agreement", "interviews", "table1"}),
    "report": frozenset({"compare", "findings"}),
}
ORDER = list(NEEDS)


def test_downstream_and_upstream_follow_the_graph_both_ways():
    assert repro.downstream(NEEDS, ["interviews"]) == {"interviews", "findings", "report"}
    assert repro.downstream(NEEDS, ["ingest"]) == set(ORDER)
    assert repro.upstream(NEEDS, ["compare"]) == {"compare", "agreement", "clean", "ingest"}
    assert repro.upstream(NEEDS, ["ingest"]) == {"ingest"}


def test_stages_to_run_are_the_changed_ones_and_those_after_them_in_pipeline_order():
    assert repro.stages_to_run(NEEDS, ORDER, {"agreement"}) == [
        "agreement", "compare", "findings", "report"]
    assert repro.stages_to_run(NEEDS, ORDER, set()) == []
    # a target limits the run to itself and what it needs
    assert repro.stages_to_run(NEEDS, ORDER, {"agreement"}, ["compare"]) == [
        "agreement", "compare"]
    assert repro.stages_to_run(NEEDS, ORDER, {"interviews"}, ["compare"]) == []
    # forced: everything in scope, changed or not
    assert repro.stages_to_run(NEEDS, ORDER, set(), force=True) == ORDER
    assert repro.stages_to_run(NEEDS, ORDER, set(), ["table1"], force=True) == [
        "ingest", "clean", "table1"]


def test_a_stage_is_ready_when_its_planned_dependencies_have_run():
    plan = ["agreement", "compare", "findings", "report"]  # ingest, clean, ... not planned
    assert repro.ready(plan, NEEDS, done=set(), started=set()) == ["agreement"]
    assert repro.ready(plan, NEEDS, {"agreement"}, {"agreement"}) == ["compare", "findings"]
    assert repro.ready(plan, NEEDS, {"agreement", "compare"}, {"agreement", "compare",
                                                               "findings"}) == []


def test_lock_entries_go_back_to_pipeline_order():
    assert repro.in_pipeline_order({"ingest": 1, "clean": 2}, ORDER) is None
    assert repro.in_pipeline_order({"table1": 1, "ingest": 2, "clean": 3}, ORDER) == [
        "ingest", "clean", "table1"]
    # an entry of a stage no longer in dvc.yaml stays, at the end
    assert repro.in_pipeline_order({"old": 1, "ingest": 2}, ORDER) == ["ingest", "old"]


def test_each_stage_runs_through_dvc_waiting_for_the_lock():
    command = repro.repro_command("table1", force=False)
    assert command[1:] == ["-m", "dvc", "--wait-for-lock", "repro", "--single-item", "table1"]
    assert repro.repro_command("table1", force=True)[-2:] == ["-f", "table1"]


class Recorder:
    """A stand-in for running a stage: records what ran at once, fails the named stages.
    A stage of ``company`` waits (up to 5 s) until another stage is running beside it, so
    that two stages the schedule starts together are seen together however slow the
    machine."""

    def __init__(self, fail=(), seconds=0.02, company=()):
        self.fail, self.seconds, self.company = set(fail), seconds, set(company)
        self.lock = threading.Condition()
        self.running: set[str] = set()
        self.started: list[tuple[str, frozenset[str]]] = []  # stage, what was running
        self.reported: list[str] = []

    def run(self, stage):
        with self.lock:
            self.started.append((stage, frozenset(self.running)))
            self.running.add(stage)
            self.lock.notify_all()
            if stage in self.company:
                self.lock.wait_for(lambda: len(self.running) > 1, timeout=5)
        time.sleep(self.seconds)
        with self.lock:
            self.running.discard(stage)
        return (1 if stage in self.fail else 0), f"ran {stage}\n"

    def report(self, stage, code, output):
        assert output == f"ran {stage}\n"
        self.reported.append(stage)


def test_the_schedule_runs_every_stage_after_its_dependencies_and_side_by_side():
    rec = Recorder(company={"clean"})  # clean and interviews are both ready after ingest
    failed = repro.schedule(ORDER, NEEDS, 2, rec.run, rec.report)
    assert failed == []
    assert sorted(rec.reported) == sorted(ORDER)
    position = {stage: i for i, stage in enumerate(rec.reported)}
    for stage, ups in NEEDS.items():
        assert all(position[up] < position[stage] for up in ups), stage
    alongside = {stage: others for stage, others in rec.started}
    assert max(map(len, alongside.values())) == 1  # two at a time, never three
    assert "clean" in alongside["interviews"] or "interviews" in alongside["clean"]


def test_one_job_runs_the_stages_one_by_one():
    rec = Recorder()
    assert repro.schedule(ORDER, NEEDS, 1, rec.run, rec.report) == []
    assert all(not others for _, others in rec.started)
    assert len(rec.reported) == len(ORDER)


def test_a_failed_stage_stops_what_follows_and_lets_the_running_one_finish():
    rec = Recorder(fail={"clean"}, company={"clean"})
    failed = repro.schedule(ORDER, NEEDS, 2, rec.run, rec.report)
    assert failed == ["clean"]
    ran = {stage for stage, _ in rec.started}
    # interviews started beside clean (it needs only ingest) and was allowed to finish
    assert ran == {"ingest", "clean", "interviews"}
    assert set(rec.reported) == ran


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_the_schedule_reports_each_stage_once(jobs):
    rec = Recorder(seconds=0.0)
    repro.schedule(ORDER, NEEDS, jobs, rec.run, rec.report)
    assert sorted(rec.reported) == sorted(ORDER)


def test_a_stage_is_unchanged_when_it_was_and_everything_before_it_kept_its_outputs():
    kept = {"ingest", "clean"}
    assert repro.unchanged_inputs("table1", NEEDS, changed=set(), kept=kept)
    assert repro.unchanged_inputs("interviews", NEEDS, changed=set(), kept=kept)
    assert not repro.unchanged_inputs("table1", NEEDS, changed={"table1"}, kept=kept)
    # agreement has not ended, or wrote other outputs: compare must go to DVC
    assert not repro.unchanged_inputs("compare", NEEDS, changed=set(), kept=kept)
    assert repro.unchanged_inputs("compare", NEEDS, changed=set(), kept=kept | {"agreement"})
    assert repro.unchanged_inputs("ingest", NEEDS, changed=set(), kept=set())


def test_recorded_outputs_are_read_by_stage_and_a_lock_that_cannot_be_read_has_none(
        tmp_path):
    lock = tmp_path / "dvc.lock"
    lock.write_text("schema: '2.0'\nstages:\n  merge@2026-01:\n    cmd: x\n    outs:\n"
                    "    - path: out\n      md5: 0a\n  first:\n    cmd: y\n", encoding="utf-8")
    assert repro.recorded_outputs(lock) == {
        "merge@2026-01": [{"path": "out", "md5": "0a"}], "first": None}
    assert repro.recorded_outputs(tmp_path / "missing.lock") == {}
    lock.write_text("stages: [unclosed\n", encoding="utf-8")
    assert repro.recorded_outputs(lock) == {}
    lock.write_bytes(b"\xff\xfe")
    assert repro.recorded_outputs(lock) == {}
    lock.write_text("- a list\n", encoding="utf-8")
    assert repro.recorded_outputs(lock) == {}


TINY = """stages:
  first:
    cmd: python -c "open('a.txt', 'w').write('a')"
    outs: [a.txt]
  left:
    cmd: python -c "open('b.txt', 'w').write(open('a.txt').read() + 'b')"
    deps: [a.txt]
    outs: [b.txt]
  right:
    cmd: python -c "open('c.txt', 'w').write(open('a.txt').read() + 'c')"
    deps: [a.txt]
    outs: [c.txt]
"""


@pytest.fixture
def tiny_project(tmp_path, monkeypatch):
    """A DVC project (no git) of three stages: one, then two side by side."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "dvc", "init", "--no-scm", "-q"], cwd=tmp_path,
                   check=True)
    (tmp_path / "dvc.yaml").write_text(TINY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.slow
def test_the_driver_reproduces_a_dvc_project_as_dvc_repro_does(tiny_project, capsys):
    assert repro.main(["--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "Running stage 'left'" in out and "Running stage 'right'" in out
    assert (tiny_project / "b.txt").read_text() == "ab"
    assert (tiny_project / "c.txt").read_text() == "ac"
    lock = (tiny_project / "dvc.lock").read_text(encoding="utf-8")
    # new to dvc.lock, the stages went in as they ended; put back in dvc.yaml's order
    assert [line.strip(" :") for line in lock.splitlines() if line.startswith("  ") and
            not line.startswith("   ")] == ["first", "left", "right"]
    assert repro.main([]) == 0
    assert capsys.readouterr().out == "Data and pipelines are up to date.\n"
    (tiny_project / "c.txt").write_text("changed", encoding="utf-8")
    assert repro.main([]) == 0
    out = capsys.readouterr().out
    assert "'right'" in out and "'left'" not in out  # right restored from DVC's run cache
    assert "repro: 1 stage in " in out
    assert (tiny_project / "c.txt").read_text() == "ac"


@pytest.mark.slow
def test_dvc_in_a_project_a_test_made_starts_no_analytics_process(tiny_project):
    """dvc init leaves DVC's usage analytics on; the suite turns them off (tests/conftest.py),
    or each DVC command here would leave a detached ``dvc daemon analytics`` behind."""
    import subprocess
    import sys

    said = subprocess.run([sys.executable, "-m", "dvc", "status", "-v"], cwd=tiny_project,
                          capture_output=True, text=True, check=True)
    log = said.stdout + said.stderr
    assert "Analytics is disabled." in log and "Trying to spawn" not in log


@pytest.mark.slow
def test_stages_after_one_that_wrote_the_same_outputs_are_not_sent_to_dvc(tiny_project,
                                                                           capsys):
    """first's command changes but writes the same a.txt: left and right are said to be
    unchanged without a dvc repro of their own, and dvc.lock is what dvc repro writes;
    when a.txt changes, both run."""
    import subprocess
    import sys

    assert repro.main(["--jobs", "2"]) == 0
    capsys.readouterr()
    dvc_yaml = tiny_project / "dvc.yaml"
    dvc_yaml.write_text(TINY.replace("write('a')", "write('' + 'a')"), encoding="utf-8")
    assert repro.main(["--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "Running stage 'first'" in out and "repro: stage 'first' started" in out
    for stage in ("left", "right"):
        assert f"repro: stage '{stage}' started" not in out
        assert f"Stage '{stage}' didn't change, skipping (its inputs are as recorded)" in out
    lock = (tiny_project / "dvc.lock").read_text(encoding="utf-8")
    status = subprocess.run([sys.executable, "-m", "dvc", "status"], cwd=tiny_project,
                            capture_output=True, text=True, check=True).stdout
    assert "up to date" in status
    dvc_yaml.write_text(TINY.replace("write('a')", "write('A')"), encoding="utf-8")
    assert repro.main(["--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "Running stage 'left'" in out and "Running stage 'right'" in out
    assert (tiny_project / "b.txt").read_text() == "Ab"
    assert (tiny_project / "dvc.lock").read_text(encoding="utf-8") != lock


@pytest.mark.slow
def test_an_unknown_stage_is_named_with_the_stages_there_are(tiny_project, capsys):
    assert repro.main(["nope"]) == 2
    err = capsys.readouterr().err
    assert err == "repro: no stage named nope in dvc.yaml; the stages: first, left, right\n"


@pytest.mark.slow
def test_a_failing_stage_ends_the_run_with_its_output(tiny_project, capsys):
    (tiny_project / "dvc.yaml").write_text(
        TINY.replace("open('a.txt').read() + 'b'", "1/0"), encoding="utf-8")
    assert repro.main(["--jobs", "2"]) == 1
    captured = capsys.readouterr()
    assert "ZeroDivisionError" in captured.out
    assert "repro: stage left failed" in captured.err
    assert (tiny_project / "c.txt").read_text() == "ac"  # right, beside it, finished


def test_an_interrupt_stops_the_running_stages_and_is_raised():
    stopped = []

    def run_stage(stage):
        raise KeyboardInterrupt  # as Ctrl-C reaches the waiting loop

    with pytest.raises(KeyboardInterrupt):
        repro.schedule(ORDER, NEEDS, 2, run_stage, lambda *a: None, stop=lambda: stopped.append(1))
    assert stopped == [1]


@pytest.mark.parametrize("text", ["0", "-1", "two"])
def test_jobs_must_be_a_number_of_stages(text, capsys):
    with pytest.raises(SystemExit) as exc:
        repro.main(["--jobs", text])
    assert exc.value.code == 2
    assert "is not a number of stages (1 or more)" in capsys.readouterr().err


@pytest.mark.slow
def test_outside_a_dvc_project_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert repro.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"repro: {tmp_path}: ") and "where dvc.yaml is" in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_sigterm_stops_the_running_stages_and_leaves_them_to_run_again(tiny_project):
    import signal
    import subprocess
    import sys

    (tiny_project / "dvc.yaml").write_text(
        TINY.replace("open('a.txt', 'w')", "__import__('time').sleep(60) or open('a.txt', 'w')"),
        encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "analysis.tools.repro"], cwd=tiny_project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "repro: stage 'first' started\n"
    time.sleep(1.0)  # dvc has started the stage's command
    begun = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - begun < 10
    assert err == "repro: interrupted; the stages that did not finish run again next time\n"
    assert not (tiny_project / "a.txt").exists()


def test_a_lock_out_of_order_is_rewritten_and_one_in_order_is_left_alone(tmp_path):
    lock = tmp_path / "dvc.lock"
    entry = "    cmd: echo {0}\n    outs:\n    - path: {0}.txt\n      md5: 1a\n"
    lock.write_text("schema: '2.0'\nstages:\n  clean:\n" + entry.format("c")
                    + "  ingest:\n" + entry.format("i"), encoding="utf-8")
    repro.fix_lock_order(tmp_path, ["ingest", "clean"])
    text = lock.read_text(encoding="utf-8")
    assert text == ("schema: '2.0'\nstages:\n  ingest:\n" + entry.format("i")
                    + "  clean:\n" + entry.format("c"))
    os.utime(lock, ns=(10**9, 10**9))
    repro.fix_lock_order(tmp_path, ["ingest", "clean"])  # in order now: not written again
    assert lock.stat().st_mtime_ns == 10**9 and lock.read_text(encoding="utf-8") == text
    repro.fix_lock_order(tmp_path / "nothing", ["ingest"])  # no dvc.lock: nothing to do


def test_the_stages_find_this_python_first_on_path():
    env = repro.stage_env({"PATH": "/usr/bin:/work/.venv/bin", "HOME": "/h"},
                          "/work/.venv/bin/python")
    assert env == {"PATH": "/work/.venv/bin:/usr/bin", "HOME": "/h"}
    assert repro.stage_env({}, "/v/bin/python")["PATH"] == "/v/bin"


@pytest.mark.slow
def test_run_by_its_path_from_a_shell_where_nothing_is_activated(tiny_project):
    """``.venv/bin/python -m analysis.tools.repro`` as the pages show it: the stages'
    ``python`` is this environment's although its folder is not on PATH."""
    import subprocess
    import sys

    from tests.support.docs import bare_shell_env

    (tiny_project / "dvc.yaml").write_text(
        TINY.replace("open('a.txt', 'w').write('a')",
                     "import analysis; open('a.txt', 'w').write('a')"), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "analysis.tools.repro", "first"],
                          cwd=tiny_project, env=bare_shell_env(), capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tiny_project / "a.txt").read_text() == "a"
