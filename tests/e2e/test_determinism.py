"""Same input, same bytes: the whole pipeline twice, in two separate copies of the project,
on one synthetic dump; every output compared byte for byte (processed data, tables,
metrics, figures, executed notebooks, website variables and HTML, dvc.lock)."""

from __future__ import annotations

import pytest

from tests.support.dumps import small_dump
from tests.support.workspace import compare_outputs, copy_project, dvc, first_difference, set_params


def test_first_difference_names_the_line():
    assert first_difference(b"a\nb\nc\n", b"a\nx\nc\n") == "line 2: 'b' != 'x'"
    assert first_difference(b"a\n", b"a\nb\n").startswith("line 2: one file ends")
    assert first_difference(b"\xff\x00", b"\xff\x01").startswith("byte 1")


@pytest.mark.slow
def test_two_runs_in_two_copies_give_identical_outputs(tmp_path):
    small_dump(tmp_path / "dump")
    runs = []
    for name in ("first", "second"):
        work = copy_project(tmp_path / name / "project")
        set_params(work, "ingest", source=tmp_path / "dump", manifest=None, commit=None)
        dvc(work, "repro")
        runs.append(work)
    problems = compare_outputs(*runs)
    assert not problems, "outputs differ between two runs:\n" + "\n".join(problems[:20])
    assert (runs[0] / "report/_site/index.html").is_file()
