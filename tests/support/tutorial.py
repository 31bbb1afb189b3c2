"""The update tutorial (docs/update-tutorial.md) followed by a team, batch after batch: its
```bash blocks, taken from the page, run in a copy of a run on the small synthetic
release, on the synthetic GH Archive of :data:`tests.support.studies.BATCH_HOURS`. What
the page asks people to do by hand is done here in its place: the download (the hours
are written instead), the annotators' filling of the sheets (batch 2026-01 by alice, bob
and chen, 2026-02 by alice, bob and dana) and the adjudicators' decisions. ``make
report`` is run as ``python -m analysis.tools.repro``, which is what it runs (fetch
leaves a source other than data/release alone; the site is rendered by the report stage).

The project is a git repository committed before the first batch, as a team's is. The
run is built once (:func:`build_team_study`) and read by the tutorial's tests and the
study views' (tests/e2e/test_update_tutorial.py, test_study_views.py). Beside the project,
the folder keeps what the blocks printed (``said.json``), the release-only run's
paper-view files (``release-only/``: the same release, before any batch) and a few
tables as they were after the first batch (``batch-1/``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from analysis.core.paths import ROOT, SheetPaths
from tests.support.docs import bare_shell_env, doc_block
from tests.support.sheets import fill, read_rows
from tests.support.studies import batch_marks, decisions_of, hours
from tests.support.workspace import copy_run, pipeline_env, reproduce, run_in, set_params

PAGE = ROOT / "docs" / "update-tutorial.md"
TEAMS = {"2026-01": ("alice", "bob", "chen"), "2026-02": ("alice", "bob", "dana")}
# The paper, reproduced: what a batch must never change
PAPER_VIEW = ("report/tables/findings/scorecard.csv", "report/tables/agreement/headline.csv",
              "report/tables/table1/counts.csv", "report/tables/table1/claims.csv",
              "report/tables/table1/false_positives.csv",
              "report/tables/taxonomy/themes.csv", "report/tables/taxonomy/subthemes.csv",
              "report/tables/taxonomy/examples.csv", "report/tables/explorer/release_examples.csv",
              "data/reproduced/table1.json", "data/reproduced/taxonomy.json",
              "data/reproduced/agreement.json", "data/reproduced/keywords.json",
              "data/reproduced/interviews.json")
# The study after the first batch, kept before the second changes it
AFTER_FIRST = ("report/tables/table1/counts.csv", "report/tables/table1/study.csv",
               "report/tables/table1/false_positives_by_batch.csv",
               "report/tables/compare/projects.csv", "report/tables/compare/years.csv",
               "report/tables/compare/additions.csv", "report/tables/agreement/batches.csv",
               "report/tables/findings/scorecard.csv", "report/vars/compare.json",
               "report/_site/changes.html")
GIT_PERSON = {"GIT_AUTHOR_NAME": "alice", "GIT_AUTHOR_EMAIL": "alice@lab.org",
              "GIT_COMMITTER_NAME": "alice", "GIT_COMMITTER_EMAIL": "alice@lab.org"}


def named(name: str) -> str:
    """The block of the tutorial marked ``doc-test: name``."""
    block = doc_block(name)
    assert block.page == PAGE
    return block.text


def bash(work: Path, script: str) -> str:
    """One block of the page, run by bash in the copy from a shell where nothing is
    activated (:func:`bare_shell_env`: this environment's folder not on PATH), as a person
    types it (``.venv/bin/python`` is this environment's interpreter, ``make report`` the
    driver it runs; the copy's code comes first on PYTHONPATH); what it printed."""
    script = script.replace(".venv/bin/python", sys.executable).replace(
        "make report", f"{sys.executable} -m analysis.tools.repro")
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work,
                          env=bare_shell_env(PYTHONPATH=pipeline_env(work)["PYTHONPATH"],
                                             PYTHONHASHSEED="0", **GIT_PERSON),
                          capture_output=True,
                          text=True)
    assert proc.returncode == 0, f"{script}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def label(work: Path, batch: str) -> None:
    """The batch's annotators fill their sheets (:func:`batch_marks`)."""
    records = work / "labels" / batch
    candidates = list(pd.read_csv(records / "selection/candidates.csv", dtype=str)["url"])
    marks = batch_marks(batch, candidates)
    for k, name in enumerate(TEAMS[batch]):
        fill(SheetPaths(records).sheet(name), {url: m[k] for url, m in marks.items()})


def decide(work: Path, batch: str) -> None:
    """The adjudicators fill the decision column of the batch's ``decisions.csv``."""
    path = work / "labels" / batch / "decisions.csv"
    rows = read_rows(path)
    column = rows[0].index("decision")
    for row in rows[1:]:
        row[column] = decisions_of(batch)[row[0]]
    pd.DataFrame(rows[1:], columns=rows[0]).to_csv(path, index=False)


def keep(work: Path, rels: tuple[str, ...], target: Path) -> None:
    for rel in rels:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / rel, target / rel)


def build_team_study(folder: Path, run: Path, dump: Path) -> None:
    """The tutorial, both batches, in ``folder/project``, a copy of the release's ``run``
    on ``dump`` (see the module's docstring)."""
    work = copy_run(run, folder / "project")
    # the release: the synthetic one (a keyword list for every framework of
    # data/projects.yaml, which select needs), outside the project so that a clone reads
    # it too; the same files as the run's, so no analysis stage reruns
    release = shutil.copytree(dump, folder / "release")
    set_params(work, "ingest", source=release)
    reproduce(work)  # the release alone: the paper view a batch must not change
    keep(work, PAPER_VIEW, folder / "release-only")
    # What changed compares with a snapshot of the release's run (the committed one is of
    # the paper's dump), as README "Comparing with another baseline" writes one
    run_in(work, [sys.executable, "-m", "analysis.compare", "snapshot", "--out",
                  "data/baseline/release.json", "--label", "release"])
    set_params(work, "compare", baseline="release")
    for command in (["add", "-A"], ["commit", "-q", "-m", "The team's project"]):
        subprocess.run(["git", *command], cwd=work, check=True,
                       env={**os.environ, **GIT_PERSON})

    said = {}
    hours(work / "gharchive", "2026-01")  # 1. the download, done here by writing hours
    said["select"] = bash(work, named("update-tutorial/select"))  # 2.
    bash(work, named("update-tutorial/sheets"))  # 3.
    label(work, "2026-01")
    said["merge"] = bash(work, named("update-tutorial/merge"))  # 4.
    decide(work, "2026-01")
    said["run"] = bash(work, named("update-tutorial/run"))  # 5.
    said["read"] = bash(work, named("update-tutorial/read"))  # 6.
    keep(work, AFTER_FIRST, folder / "batch-1")
    said["commit"] = bash(work, named("update-tutorial/commit"))  # 7.

    hours(work / "gharchive", "2026-02")  # 8. the next batch
    said["next-select"] = bash(work, named("update-tutorial/next-select"))
    label(work, "2026-02")
    said["next-merge"] = bash(work, named("update-tutorial/next-merge"))
    decide(work, "2026-02")
    said["next-run"] = bash(work, named("update-tutorial/next-run"))
    said["status"] = subprocess.run(["git", "status", "--porcelain"], cwd=work, check=True,
                                    capture_output=True, text=True).stdout
    (folder / "said.json").write_text(json.dumps(said, indent=1), encoding="utf-8")
