"""Same input, same bytes: a second run of the whole pipeline, in another copy of the
project, on the dump of the shared run (conftest.py's ``small_run``); every output compared
with the shared run's byte for byte (processed data, tables, metrics, figures, executed
notebooks, website variables and HTML), and dvc.lock. The shared run is ``make report``'s
driver, two stages at a time (analysis.tools.repro); the second is ``dvc repro``, one stage
at a time, so the test also shows that running stages side by side changes no byte."""

from __future__ import annotations

import pytest

from analysis.core.safeyaml import safe_load
from tests.support.workspace import (
    compare_outputs,
    copy_project,
    dvc,
    first_difference,
    lock_difference,
    set_params,
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


@pytest.mark.slow
def test_a_second_run_in_another_copy_gives_identical_outputs(shared_small_dump, tmp_path,
                                                             request):
    second = copy_project(tmp_path / "project")
    set_params(second, "ingest", source=shared_small_dump, manifest=None, commit=None)
    sequential = dvc(second, "repro")
    stages = safe_load((second / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    # every stage ran (a foreach stage is none: the release has no batch)
    assert sequential.stdout.count("Running stage '") == len(
        [s for s in stages.values() if "foreach" not in s])
    first = request.getfixturevalue("small_run").project  # built meanwhile, maybe elsewhere
    problems = compare_outputs(first, second)
    assert not problems, "outputs differ between two runs:\n" + "\n".join(problems[:20])
    lock = lock_difference(*((w / "dvc.lock").read_text(encoding="utf-8")
                             for w in (first, second)))
    assert not lock, f"dvc.lock differs between two runs: {lock}"
    assert (first / "report/_site/index.html").is_file()
