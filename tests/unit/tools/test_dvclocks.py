"""Recovery from what a killed DVC run leaves (analysis.tools.dvclocks), on synthetic
project folders: no DVC runs here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.tools import dvclocks
from analysis.tools.dvclocks import Process

TEMP = ".AbCdEfGhIjKlMnOpQrStUv.tmp"  # 22 characters, as dvc_objects names them


def project(tmp_path: Path, rwlock: str | None) -> Path:
    (tmp_path / ".dvc" / "tmp").mkdir(parents=True)
    if rwlock is not None:
        (tmp_path / dvclocks.RWLOCK).write_text(rwlock, encoding="utf-8")
    return tmp_path


def nobody() -> list[Process]:
    return []


def dead(pid: int) -> bool:
    return False


def test_rwlock_problem_tells_empty_cut_and_wrong_shapes_from_dvc_s_own():
    good = {"read": {"labels": [{"pid": 1, "cmd": "dvc repro"}]},
            "write": {"build/merged": {"pid": 2, "cmd": "dvc repro"}}}
    assert dvclocks.rwlock_problem(json.dumps(good)) is None
    assert dvclocks.rwlock_problem("{}") is None
    assert dvclocks.rwlock_problem("") == "is empty"
    assert dvclocks.rwlock_problem(json.dumps(good)[:30]) == "is not JSON (cut short)"
    assert dvclocks.rwlock_problem("[]") == "is not of DVC's form"
    assert dvclocks.rwlock_problem('{"write": {"x": {"pid": "1"}}}') == "is not of DVC's form"


def test_listed_pids_are_found_in_a_file_cut_short():
    assert dvclocks.listed_pids('{"read": {"a": [{"pid": 41, "cmd": "x"}, {"pid": 4') == {
        41, 4}


def test_dvc_commands_are_told_from_others():
    assert dvclocks.is_dvc_command(["/p/.venv/bin/python", "-m", "dvc", "repro"])
    assert dvclocks.is_dvc_command(["/usr/bin/dvc", "status"])
    assert dvclocks.is_dvc_command(["python3", "/p/.venv/bin/dvc", "repro"])
    assert not dvclocks.is_dvc_command(["python", "-m", "analysis.tools.repro"])
    assert not dvclocks.is_dvc_command([])


def test_an_empty_rwlock_of_a_dead_run_is_removed_with_one_line(tmp_path):
    root = project(tmp_path, "")
    said = dvclocks.recover(root, nobody, dead)
    assert not (root / dvclocks.RWLOCK).exists()
    assert len(said) == 1 and "is empty" in said[0] and "removed" in said[0]


def test_a_cut_rwlock_whose_owner_is_dead_is_removed(tmp_path):
    root = project(tmp_path, '{"write": {"build/merged": {"pid": 999999, "cmd": "dvc')
    assert "cut short" in dvclocks.recover(root, nobody, dead)[0]
    assert not (root / dvclocks.RWLOCK).exists()


def test_a_readable_rwlock_is_left_to_dvc(tmp_path):
    text = '{"write": {"build": {"pid": 999999, "cmd": "dvc repro"}}}'
    root = project(tmp_path, text)
    assert dvclocks.recover(root, nobody, dead) == []
    assert (root / dvclocks.RWLOCK).read_text(encoding="utf-8") == text


def test_an_unreadable_rwlock_is_kept_while_a_dvc_process_runs_in_the_project(tmp_path):
    root = project(tmp_path, "")
    running = [Process(4242, ("python", "-m", "dvc", "repro"), str(root / "src"))]
    with pytest.raises(InputError, match="a DVC process runs .pid 4242"):
        dvclocks.recover(root, lambda: running, dead)
    assert (root / dvclocks.RWLOCK).exists()
    # one in another project does not count
    elsewhere = [Process(4242, ("dvc", "repro"), str(tmp_path.parent))]
    assert dvclocks.recover(root, lambda: elsewhere, dead)
    assert not (root / dvclocks.RWLOCK).exists()


def test_an_unreadable_rwlock_is_kept_while_a_process_it_names_runs(tmp_path):
    root = project(tmp_path, '{"read": {"labels": [{"pid": 77, "cmd": "dvc re')
    with pytest.raises(InputError, match="a process it names still runs .pid 77"):
        dvclocks.recover(root, nobody, lambda pid: pid == 77)


def test_dvc_temporary_files_in_the_outputs_folders_are_removed(tmp_path):
    root = project(tmp_path, None)
    (root / "dvc.lock").write_text(
        "schema: '2.0'\nstages:\n  batches:\n    outs:\n    - path: build/merged/batches.json\n"
        "  merge@b:\n    outs:\n    - path: build/merged/b\n", encoding="utf-8")
    merged = root / "build" / "merged"
    (merged / "b" / "sub").mkdir(parents=True)
    left = [merged / TEMP, merged / "b" / "sub" / TEMP, merged / f"batches.json{TEMP}"]
    for path in left:
        path.write_text("x", encoding="utf-8")
    kept = [merged / "batches.json", merged / ".batches.json.0a1b2c3d.tmp",
            root / "labels" / TEMP]
    for path in kept:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
    said = dvclocks.recover(root, nobody, dead)
    assert len(said) == 1 and "3 temporary file(s)" in said[0]
    assert not any(p.exists() for p in left) and all(p.exists() for p in kept)
    # while DVC runs, its temporary files are its own
    (merged / TEMP).write_text("x", encoding="utf-8")
    running = [Process(5, ("dvc", "repro"), str(root))]
    assert dvclocks.recover(root, lambda: running, dead) == []
    assert (merged / TEMP).exists()


def test_dvcignore_hides_dvc_s_and_the_package_s_temporary_names():
    from pathspec import PathSpec

    lines = (Path(__file__).parents[3] / ".dvcignore").read_text(encoding="utf-8")
    spec = PathSpec.from_lines("gitwildmatch", lines.splitlines())
    for name in (f"build/merged/{TEMP}", f"build/merged/b/x.csv{TEMP}",
                 "build/merged/.batches.json.0a1b2c3d.tmp"):
        assert spec.match_file(name), name
    assert not spec.match_file("build/merged/b/labels/merge.json")
