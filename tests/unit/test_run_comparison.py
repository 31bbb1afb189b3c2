"""How two runs are compared byte for byte: the first difference of two files, and of two
``dvc.lock`` files. The comparison itself (same input, same bytes, in another folder and
one stage at a time) is made on the team's study: its fresh clone is rebuilt and every
output and ``dvc.lock`` compared with the team's run
(tests/e2e/test_update_tutorial.py::test_a_fresh_clone_rebuilds_the_same_study_and_site)."""

from __future__ import annotations

from tests.support.workspace import (
    first_difference,
    lock_difference,
)


def test_first_difference_names_the_line():
    assert first_difference(b"a\nb\nc\n", b"a\nx\nc\n") == "line 2: 'b' != 'x'"
    assert first_difference(b"a\n", b"a\nb\n").startswith("line 2: one file ends")
    assert first_difference(b"\xff\x00", b"\xff\x01").startswith("byte 1")


LOCK = """schema: '2.0'
stages:
  ingest:
    cmd: python -m analysis.ingest
    deps:
    - path: data/release
      md5: 1a.dir
    - path: src/analysis/core
      md5: 2b.dir
  clean:
    cmd: python -m analysis.tools.nbrun clean
"""


def test_lock_difference_names_the_stage_and_the_path():
    assert lock_difference(LOCK, LOCK) == ""
    assert lock_difference(LOCK, LOCK.replace("2b.dir", "3c.dir")) == (
        "stage ingest: deps src/analysis/core: md5 2b.dir != 3c.dir")
    assert lock_difference(LOCK, LOCK.replace("nbrun clean", "nbrun clean2")).startswith(
        "stage clean: cmd: ")
    assert lock_difference(LOCK, LOCK.split("  clean:")[0]) == "stage clean: only in the first"
    assert lock_difference(LOCK, LOCK.replace("'2.0'", "'2.0'  ")).startswith(
        "the same stages, written differently: line 1")
