"""Run records (analysis.core.runlog): what a step took, on which machine, and the build's
time per phase, end to end."""

from __future__ import annotations

import json

import pytest

from analysis.core import runlog


def test_a_record_holds_the_step_its_phase_its_parts_and_the_machine(tmp_path):
    path = runlog.record("clean", 1.234, tmp_path, phase="stages", work=1.004)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["stage"], data["phase"], data["seconds"], data["work"]) == (
        "clean", "stages", 1.23, 1.0)
    assert set(data["machine"]) == {"cpu", "cores", "memory_gib", "os", "python"}
    assert not list(tmp_path.glob("*.tmp"))  # written aside, then moved


def test_an_unknown_phase_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown phase 'lunch'"):
        runlog.record("x", 1.0, tmp_path, phase="lunch")


def test_read_all_skips_unreadable_records(tmp_path):
    runlog.record("a", 2.0, tmp_path)
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    (tmp_path / "other.json").write_text('{"no": "seconds"}', encoding="utf-8")
    assert [r["stage"] for r in runlog.read_all(tmp_path)] == ["a"]
    assert runlog.read_all(tmp_path / "missing") == []


def test_phase_seconds_sums_each_phase_in_build_order():
    runs = [{"seconds": 2.0, "phase": "render"}, {"seconds": 1.25},
            {"seconds": 3.0, "phase": "setup"}, {"seconds": 0.75, "phase": "stages"}]
    assert list(runlog.phase_seconds(runs).items()) == [
        ("setup", 3.0), ("stages", 2.0), ("render", 2.0)]


def test_main_records_a_step_that_started_earlier(tmp_path):
    import time

    assert runlog.main(["setup", "setup", f"{time.time() - 5:.3f}"], tmp_path) == 0
    data = json.loads((tmp_path / "setup.json").read_text(encoding="utf-8"))
    assert data["phase"] == "setup" and 4.5 < data["seconds"] < 60


def test_main_with_wrong_arguments_says_how(tmp_path, capsys):
    assert runlog.main(["only-one"], tmp_path) == 2
    assert "usage: python -m analysis.core.runlog" in capsys.readouterr().err
