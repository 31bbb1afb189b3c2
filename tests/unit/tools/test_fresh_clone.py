"""The measurement of a fresh clone (:mod:`analysis.tools.fresh_clone`): its parts, on
small folders and a short process."""

from __future__ import annotations

import json
import sys

from analysis.tools.fresh_clone import MIB, renderer_of, run_step, size_mib


def test_a_step_is_timed_and_its_memory_measured(tmp_path):
    step = run_step([sys.executable, "-c", "x = bytearray(64 * 1024 * 1024); "
                     "import time; time.sleep(0.5)"], tmp_path, {}, tmp_path / "log")
    assert step["exit_status"] == 0 and step["seconds"] >= 0.5
    assert step["peak_memory_mib"] >= 64  # the 64 MiB it held, seen by the sampling
    failed = run_step([sys.executable, "-c", "raise SystemExit(3)"], tmp_path, {},
                      tmp_path / "log")
    assert failed["exit_status"] == 3


def test_sizes_and_the_renderer_of_a_clone(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x" * MIB)
    (tmp_path / "a" / "link").symlink_to(tmp_path / "a" / "f")  # not counted twice
    assert size_mib(tmp_path / "a") == 1.0 and size_mib(tmp_path / "none") == 0.0
    assert renderer_of(tmp_path) == "unknown"
    site = tmp_path / "report" / "_site"
    site.mkdir(parents=True)
    (site / "build.json").write_text(json.dumps({"renderer": "Quarto 1.8.27"}))
    assert renderer_of(tmp_path) == "Quarto 1.8.27"


def test_with_tests_the_suite_is_timed_after_the_report(tmp_path, monkeypatch):
    from analysis.tools import fresh_clone as fc

    ran = []

    def fake_step(argv, cwd, env, log):
        ran.append(argv)
        return {"seconds": 2.0, "cpu_seconds": 1.0, "peak_memory_mib": 5, "exit_status": 0}

    monkeypatch.setattr(fc, "run_step", fake_step)
    monkeypatch.setattr(fc.subprocess, "run", lambda *a, **k: None)
    (tmp_path / "clone").mkdir()
    plain = fc.measure("c" * 40, tmp_path / "clone", tmp_path / "c1", tmp_path / "log")
    assert "tests" not in plain and plain["ok"] and len(ran) == len(fc.STEPS) + 1
    ran.clear()
    timed = fc.measure("c" * 40, tmp_path / "clone", tmp_path / "c2", tmp_path / "log",
                       tests=True)
    assert ran[-2:] == [["make", "test-fast"], ["make", "test"]]
    assert set(timed["tests"]) == {"test_fast", "test"} and timed["ok"]
    assert timed["total_seconds"] == plain["total_seconds"]  # the report's cost alone


def test_the_page_gives_the_test_times_or_says_they_are_not_measured():
    from analysis.report.variables import fresh_clone_vars

    record = {"commit": "c" * 40, "total_seconds": 10,
              "tests": {"test_fast": {"seconds": 75.2, "exit_status": 0},
                        "test": {"seconds": 900, "exit_status": 1}}}
    got = fresh_clone_vars(record)
    assert (got["test_fast"], got["test"]) == ("1 min 15 s", "not measured yet")
    got = fresh_clone_vars({"commit": "c" * 40})
    assert (got["test_fast"], got["test"]) == ("not measured yet", "not measured yet")


def test_the_pipeline_runs_the_suite_counted_are_read_from_its_last_line():
    from analysis.report.variables import fresh_clone_vars
    from analysis.tools.fresh_clone import pipeline_runs_said

    said = ("... 2800 passed\npipeline runs: 9 whole, 1 partial; 90 notebook stage runs (a 1)\n"
            "pipeline runs: 6 whole, 4 partial; 70 notebook stage runs (clean 10)\n")
    runs = pipeline_runs_said(said)
    assert runs == {"whole": 6, "partial": 4, "notebook_stage_runs": 70}
    assert pipeline_runs_said("2800 passed\n") is None
    record = {"commit": "c" * 40, "tests": {"test": {"seconds": 300, "exit_status": 0,
                                                     "pipeline_runs": runs}}}
    assert fresh_clone_vars(record)["test_pipeline_runs"] == (
        "6 whole pipeline runs and 4 partial ones (70 notebook stage runs in all)")
    assert fresh_clone_vars({"commit": "c"})["test_pipeline_runs"] == "not measured yet"
