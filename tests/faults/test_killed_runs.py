"""Runs killed in the middle of a stage (SIGKILL: nothing of the run can clean up).

The kill lands where the test says: just before the stage moves its executed notebook into
place (:func:`tests.support.faults.held_run`), so every other output of the stage is
written and the notebook's temporary file is complete. Then, as a user would, a plain
``dvc repro``: it must recover, with the same ``dvc.lock`` as before, whether DVC runs the
stage again or restores its outputs from its cache without running it; nothing the kill
left may sit in a folder DVC tracks, where it would change that folder's hash or be read
as an output. Outside the project, the kill leaves one private folder of the stage's kernel
(its sockets and the connection file with their key), not loose files in the machine's
temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis.core import artifacts
from analysis.core.paths import Paths
from analysis.tools.nbrun import CONNECTION_FILE
from tests.support.faults import Held, held_run
from tests.support.workspace import copy_run, dvc

# The folders DVC tracks (outputs and dependencies of the stages) that stages write.
TRACKED = ("data/raw", "data/processed", "data/reproduced", "metrics", "report/tables",
           "report/figures", "report/vars", "report/notebooks", "report/_generated",
           "report/downloads")


def hidden_files(work: Path) -> list[str]:
    """Files with a hidden name (temporary files) in the folders DVC tracks, and folders
    with one beside them."""
    found = []
    for rel in TRACKED:
        folder = work / rel
        for path in folder.rglob(".*") if folder.is_dir() else []:
            found.append(path.relative_to(work).as_posix())
    found += [p.relative_to(work).as_posix() for p in (work / "report").glob(".*")]
    found += [p.relative_to(work).as_posix() for p in (work / "data").glob(".*")]
    return sorted(found)


def the_kernels_one_folder_is_left(held: Held) -> None:
    """What the killed run left in its temporary folder is one folder, the kernel's, which
    holds its connection file (:data:`analysis.tools.nbrun.CONNECTION_FILE`)."""
    (folder,) = {path.split("/")[0] for path in held.temporary_left}
    assert folder.startswith("kernel-"), held.temporary_left
    assert f"{folder}/{CONNECTION_FILE}" in held.temporary_left, held.temporary_left


def test_stale_temporary_files_of_a_killed_run_are_removed(tmp_path):
    stale = tmp_path / ".table.csv.abc123.tmp"
    stale.write_text("half")
    artifacts.write_text(tmp_path / "table.csv", "x\n")
    assert not stale.exists() and (tmp_path / "table.csv").read_text() == "x\n"


def test_a_notebook_that_is_not_json_is_one_message(tmp_path):
    from analysis.core.errors import InputError
    from analysis.report.notebooks import notebook_includes

    notebook = Paths(tmp_path).clean.notebook
    notebook.parent.mkdir(parents=True)
    notebook.write_text("")
    with pytest.raises(InputError) as info:
        notebook_includes([notebook])
    assert str(info.value) == (f"{notebook}: cannot read the executed notebook (not a "
                               "notebook) -> run `dvc repro` again (its stage writes it)")


@pytest.mark.slow
@pytest.mark.parametrize("options", [[], ["--no-run-cache"]])
def test_a_stage_killed_then_restored_from_the_cache_recovers(small_run, tmp_path, options):
    """A forced rerun of the findings stage is killed; the next ``dvc repro`` restores that
    stage's outputs from DVC's cache (its inputs still match ``dvc.lock``; so even with
    ``--no-run-cache``, as docs/guarantees.md says), so nothing of the stage runs to clean up
    after the kill. Nothing may be left where DVC or the report would see it: the report stage
    does not even run, and the lock is the one of before the kill, byte for byte."""
    work = copy_run(small_run.project, tmp_path / "project")
    lock = (work / "dvc.lock").read_bytes()
    findings = Paths(work).findings
    held = held_run(work, ["dvc", "repro", "--force", "--single-item", "findings"],
                    findings.notebook.name, tmp_path / "signals")
    assert "Running stage 'findings'" in held.output
    the_kernels_one_folder_is_left(held)
    # killed with every output but the notebook written, and its temporary file complete
    assert findings.table("scorecard.csv").is_file() and not findings.notebook.exists()
    assert hidden_files(work) == []
    assert "findings:" in dvc(work, "status").stdout

    rerun = dvc(work, "repro", *options).stdout
    assert "Stage 'findings' is cached - skipping run, checking out outputs" in rerun
    assert "Stage 'report' didn't change, skipping" in rerun
    assert (work / "dvc.lock").read_bytes() == lock
    assert "up to date" in dvc(work, "status").stdout
    assert hidden_files(work) == []


@pytest.mark.slow
def test_a_run_killed_mid_stage_is_recovered_by_the_next_repro(small_run, tmp_path):
    """A stage whose inputs changed is killed: DVC does not take it as done, nothing
    half-written sits at an output path, and the next ``dvc repro`` runs it again."""
    work = copy_run(small_run.project, tmp_path / "project")
    clean = Paths(work).clean
    source = clean.notebook_source
    source.write_text(source.read_text(encoding="utf-8") + "\n# %%\n1\n", encoding="utf-8")
    held = held_run(work, ["dvc", "repro"], clean.notebook.name, tmp_path / "signals")
    the_kernels_one_folder_is_left(held)
    assert not clean.notebook.exists()
    assert hidden_files(work) == []
    assert "clean:" in dvc(work, "status").stdout

    rerun = dvc(work, "repro").stdout
    assert "Running stage 'clean'" in rerun  # run again, not taken from the cache
    assert "up to date" in dvc(work, "status").stdout
    assert hidden_files(work) == []
    assert (work / "report/_site/index.html").is_file()
    outputs = {Paths(work).merged.name, Paths(work).study.name}  # the study's stages' own
    assert not [p for p in os.listdir(work / "build") if p not in ("runs", "tmp", *outputs)]
