"""The merge stage killed (SIGKILL) at any step of writing a batch: ``build/merged/`` (an
output, and the study stage's dependency) holds the previous batch or the new one, whole,
and nothing else; the working folder is under build/tmp/, and the next run removes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.update.study import batch
from tests.support.children import run_code
from tests.support.faults import snapshot
from tests.unit.study.test_study import write_records

# Run in a child process: kill it (SIGKILL) before the publication step named, or before
# the first file of the records is opened ("open"), then run the merge stage.
CHILD = '''
import os, signal, sys
from analysis.core import artifacts, dumpfiles

step = sys.argv[1]

def kill(name, path):
    if name == step:
        os.kill(os.getpid(), signal.SIGKILL)

artifacts.publishing = kill
dumpfiles.before_open = lambda rel, item: kill("open", item.path)
from analysis.update.study.batch import main
sys.exit(main(sys.argv[2:]))
'''
ARGS = ["labels/2026-01", "--out", "build/merged/2026-01"]


@pytest.fixture
def project(tmp_path, taxonomy) -> Path:
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    write_records(tmp_path, "2026-01", 2025, taxonomy)
    (tmp_path / "build" / "merged").mkdir(parents=True)
    return tmp_path


@pytest.mark.parametrize("step, previous", [
    ("open", True),           # reading the records: nothing written yet
    ("into place", False),    # the new batch built, not yet in place
    ("remove old", True),     # the new batch in place, the previous one not yet removed
])
def test_a_merge_killed_at_any_step_leaves_build_merged_whole(project, monkeypatch,
                                                              previous, step):
    monkeypatch.chdir(project)
    merged = project / "build" / "merged"
    if previous:
        assert batch.main(ARGS) == 0
    before = snapshot(merged)
    run = run_code(CHILD, [step, *ARGS], project, timeout=120)  # a process of its own
    assert run.returncode == -9, run.stderr  # killed by SIGKILL, where the test said
    assert sorted(p.name for p in merged.iterdir()) == ([] if not previous else ["2026-01"])
    if step != "remove old":
        assert snapshot(merged) == before
    assert batch.main(ARGS) == 0
    assert sorted(p.name for p in merged.iterdir()) == ["2026-01"]
    scratch = project / "build" / "tmp" / "build" / "merged"
    assert not scratch.is_dir() or list(scratch.iterdir()) == []
