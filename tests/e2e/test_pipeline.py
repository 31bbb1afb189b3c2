"""End to end: `dvc repro` in a throw-away copy of the project, on a synthetic dump (the
shared run of conftest.py) and on the offline mirror, fetched as `make report` fetches it,
which must reproduce the committed dvc.lock. (Byte-for-byte determinism:
test_update_tutorial.py's fresh clone; newer and defective dumps: test_dumps.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.core.config import load_params
from analysis.core.paths import ROOT, Paths
from tests.support.dumps import expected_counts
from tests.support.mirror import MIRROR, needs_mirror, paper
from tests.support.scoreboards import scoreboard_counts
from tests.support.workspace import (
    copy_project,
    copy_run,
    dvc,
    lock_difference,
    pipeline_env,
    reproduce,
)

pytestmark = pytest.mark.slow


def test_pipeline_on_a_synthetic_dump_is_complete_stable_and_incremental(small_run, tmp_path):
    work = small_run.project
    table = pd.read_csv(work / "report/tables/table1/counts.csv", dtype={"project": str})
    table = table.set_index("project")
    for name, exp in expected_counts(small_run.written).items():
        assert table.loc[name, "Total"] == exp["total"]
        for year, n in exp["years"].items():
            assert table.loc[name, str(year)] == n
    assert (work / "report/_site/index.html").is_file()  # the report stage ran
    taxonomy = json.loads((work / "report/vars/taxonomy.json").read_text())
    assert str(taxonomy["n_details_bug"]).replace(",", "") == str(45 * 2)  # 2 per sub-theme
    # Nothing to do again, in a copy of the run (the copies the other tests start from).
    again = copy_run(work, tmp_path / "again")
    assert "Data and pipelines are up to date" in dvc(again, "repro").stdout
    status = json.loads(dvc(again, "metrics", "show", "--json").stdout)
    assert "metrics/table1.json" in json.dumps(status)


def git(work, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=work, check=True, capture_output=True,
                          text=True).stdout


@needs_mirror
@pytest.mark.mirror
def test_pipeline_on_the_mirror_reproduces_table1_and_the_committed_lock(tmp_path):
    """`make report` in a fresh clone: fetch the release from the mirror into data/release
    (params.yaml as committed), `dvc repro`; Table I is the paper's, and dvc.lock is the
    committed one byte for byte (a lock left stale by a code change fails here)."""
    committed = git(ROOT, "show", "HEAD:dvc.lock")
    work = copy_project(tmp_path / "project")
    (work / "dvc.lock").write_text(committed, encoding="utf-8")
    # ingest.mirror as committed (../shared/upstream/...): the copy has the mirror there too
    mirror = Path(os.path.normpath(work / load_params(work / "params.yaml")["ingest"]["mirror"]))
    if not mirror.exists():
        mirror.parent.mkdir(parents=True, exist_ok=True)
        mirror.symlink_to(MIRROR, target_is_directory=True)
    git(work, "add", "-A")
    git(work, "-c", "user.name=test", "-c", "user.email=test@example.org", "-c",
        "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "the project as committed")

    fetched = subprocess.run([sys.executable, "-m", "analysis.ingest", "fetch"], cwd=work,
                             env=pipeline_env(work), capture_output=True, text=True,
                             timeout=300)
    assert fetched.returncode == 0, fetched.stderr
    assert "copied from the mirror" in fetched.stdout, fetched.stdout
    reproduce(work)  # as make report runs it

    fresh = (work / "dvc.lock").read_text(encoding="utf-8")
    assert fresh == committed, (
        "dvc.lock of a fresh run on the release differs from the committed one (git show "
        f"HEAD:dvc.lock) at {lock_difference(committed, fresh)}: commit the dvc.lock that "
        "`make report` writes with the code that changed it")
    changed = git(work, "status", "--porcelain", "--untracked-files=all")
    assert changed == "", f"fetch or the pipeline changed files git tracks:\n{changed}"

    card = pd.read_csv(Paths(work).findings.table("scorecard.csv"), dtype=str,
                       keep_default_na=False)
    t1 = card[card["claim_id"].str.startswith("table1.")]
    # the 11 rates and their average: the release cannot give them
    fp = t1["claim_id"].str.contains(r"\.false_positive(?:$|\.average$)")
    assert (t1.loc[~fp, "status"] == "exact").all(), t1.loc[~fp & (t1["status"] != "exact")]
    assert (t1.loc[fp, "status"] == "not_reproducible").all() and fp.sum() == 12
    assert t1.loc[fp, "note"].str.contains("never released").all()
    # the Overview's two scoreboards add up to the scorecard's rows, status by status
    boards = scoreboard_counts(
        (work / "report/_generated/scorecard_summary.md").read_text(encoding="utf-8"))
    assert set(boards) == {"printed", "examples"}
    assert sum(b["claims"] for b in boards.values()) == len(card)
    for status, n in card["status"].value_counts().items():
        assert sum(b[status] for b in boards.values()) == n, status
    prov = json.loads((work / "data/provenance.json").read_text())
    assert prov["verified"] and prov["file_count"] == prov["manifest"]["files_listed"]
    assert prov["source"] == "data/release"
    assert prov["commit"] == "2fba3163d6f143b6aa90128adde3d65ac8759c3e"
    metrics = json.loads(dvc(work, "metrics", "show", "--json").stdout)
    assert str(int(paper("table1.total_reports"))) in json.dumps(metrics)
