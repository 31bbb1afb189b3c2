"""A read-only ``report/``: the website build ends in one line naming the folder.

The tests run as root, for whom ``chmod`` stops no write; the folder is made read-only the
way a read-only file system would be, by making every call of the process that would
change something under it fail with EROFS (:func:`tests.support.faults.read_only`). The
command runs in this process (``main``), so the replaced calls are the ones it makes.
Nothing under ``report/`` may change, and nothing may be left in ``build/tmp/``.
"""

from __future__ import annotations

import pytest

from analysis.report.__main__ import main
from tests.support.faults import read_only, snapshot
from tests.support.workspace import copy_run


def left_in_scratch(work) -> list[str]:
    scratch = work / "build" / "tmp"
    return [p.relative_to(scratch).as_posix() for p in scratch.rglob("*") if p.is_file()]


@pytest.mark.slow
@pytest.mark.parametrize("step", [[], ["generate"], ["render"]])
def test_a_read_only_report_folder_is_one_line(small_run, tmp_path, monkeypatch, capsys, step):
    work = copy_run(small_run.project, tmp_path / "project")
    report = work / "report"
    before = snapshot(report)
    read_only(monkeypatch, report)
    code = main([*step, "--root", str(work), "--renderer", "preview"])
    monkeypatch.undo()
    out, err = capsys.readouterr()
    assert code == 1
    target = report / ("_site" if step == ["render"] else "_variables.yml")
    assert err == (f"report: {target}: cannot write (Read-only file system) -> make the folder "
                   f"{report} writable (its permissions, or a read-only file system)\n")
    assert "Traceback" not in out
    assert snapshot(report) == before
    assert left_in_scratch(work) == []
