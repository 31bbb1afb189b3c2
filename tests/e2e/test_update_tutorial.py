"""The update tutorial (docs/update-tutorial.md), run as written: its ```bash blocks, taken
from the page, in a copy of a run on a small synthetic release, on a synthetic GH Archive
of 2026 (new toolkit and framework issues, issues the release already labels, a pull
request, another repository). What the page asks people to do by hand is done here in its
place: the download (the hours are written instead), the annotators' filling of the
sheets (unanimous, 2:1, no-majority, split-exclusion and all-excluded rows, and a project
whose only candidate all exclude) and the adjudicators' decisions. ``make report`` is run
as ``python -m analysis.tools.repro``, which is what it runs on a study (fetch leaves a
source other than data/release alone; the site is rendered by the report stage).

Checked: the commands exist and succeed; no candidate is a report the release holds;
Table I against the paper = the release's issues, and the study now = the release's + the
batch's, with a 2026 column and the all-excluded project's row; nothing removed on What
changed; the drift and per-batch agreement tables written and shown."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from analysis.core.paths import ROOT, Paths, SheetPaths
from analysis.report.pages import INCLUDES
from tests.support.docs import doc_block
from tests.support.gharchive import opened_issues, write_events
from tests.support.reads import undeclared_reads
from tests.support.sheets import fill, read_rows
from tests.support.studies import VLLM_CASES, VLLM_DECIDED, V, write_vllm_hour
from tests.support.table_checks import table_problems, written_csvs
from tests.support.workspace import copy_run, pipeline_env, set_params

pytestmark = pytest.mark.slow

PAGE = ROOT / "docs" / "update-tutorial.md"
P = "https://github.com/pytorch/pytorch/issues/"
T = "https://github.com/tensorflow/tensorflow/issues/"
# (label, excluded) of annotators 1..3 for each new candidate
FILLS = {
    **VLLM_CASES,
    f"{P}3": [("A.4", ""), ("A.4", ""), ("A.4", "")],
    f"{T}7": [("", "x"), ("", "x"), ("", "x")],            # the project's only candidate
}
DECIDED = VLLM_DECIDED
LABELLED = [f"{V}1", f"{V}2", f"{V}3", f"{P}3"]


# The page's blocks by the names their markers give (docs tests check each is run here);
# the first, the download, is marked not-run and stood in for by synthetic hours; the
# Label Studio route's are run against a real server by tests/e2e/test_label_studio.py.
BLOCK_NAMES = ("update-tutorial/select", "update-tutorial/sheets", "update-tutorial/merge",
               "update-tutorial/decide", "update-tutorial/extend", "update-tutorial/run",
               "update-tutorial/read")
STUDIO_BLOCKS = ("update-tutorial/studio-create", "update-tutorial/studio-merge")


def test_the_page_has_a_block_for_each_step():
    assert len(blocks()) == 1 + len(BLOCK_NAMES) + len(STUDIO_BLOCKS)


def blocks() -> list[str]:
    """The page's ```bash blocks, in order."""
    return re.findall(r"^```bash\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.S | re.M)


def named(name: str) -> str:
    """The block of the page marked ``doc-test: name``."""
    block = doc_block(name)
    assert block.page == PAGE
    return block.text


def archive(folder) -> None:
    """Hours of January 2026: the GH Archive the tutorial's first block downloads."""
    write_vllm_hour(folder / "2026-01-01-0.json.gz", 7)
    write_events(folder / "2026-01-01-1.json.gz", [
        *opened_issues("pytorch/pytorch", [(3, "2026-01-04T00:00:00Z", "LLM OOM", ""),
                                           (4, "2026-01-05T00:00:00Z", "conv2d", "")]),
        *opened_issues("tensorflow/tensorflow", [(7, "2026-01-06T00:00:00Z", "TPU", "")])])


def bash(work, script: str) -> str:
    """One block of the page, run by bash in the copy (``.venv/bin/python`` is this
    environment's interpreter; the copy's code comes first on PYTHONPATH)."""
    script = script.replace(".venv/bin/python", sys.executable)
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work,
                          env=pipeline_env(work), capture_output=True, text=True)
    assert proc.returncode == 0, f"{script}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_the_tutorial_runs_as_written(small_run, tmp_path):
    work = copy_run(small_run.project, tmp_path / "project")
    shutil.copytree(small_run.dump, work / "data" / "release")  # the base, as make report
    collect = blocks()[0]  # (make report fetches the release)
    select, sheets, merge, decide, extend, run, read = map(named, BLOCK_NAMES)
    # What changed compares with a snapshot of the release's run (the committed one is of
    # the paper's dump): the synthetic release's own, as README "Comparing with another
    # baseline" writes one
    bash(work, ".venv/bin/python -m analysis.compare snapshot --out "
               "data/baseline/release.json --label release")
    set_params(work, "compare", baseline="release")

    assert "data.gharchive.org" in collect  # 1. the download, done here by writing hours
    archive(work / "gharchive")
    # the release's keyword file has a list for every framework of data/projects.yaml;
    # the synthetic one only two (replaced, not edited: DVC's cache may link the file)
    for keywords in (work / "data/raw/filter_keywords", work / "data/release/filter_keywords"):
        text = keywords.read_text(encoding="utf-8") + "mindspore_keywords = ['llm']\n"
        keywords.unlink()
        keywords.write_text(text, encoding="utf-8")
    said = bash(work, select)  # 2.
    release = sum(len(rows) for rows in small_run.written.values())
    assert f"known issues: {release:,} in" in said
    record = json.loads((work / "update/selection/selection.json").read_text())
    assert record["known"]["left_out"] == 1  # vllm 1001, which the release labels
    candidates = pd.read_csv(work / "update/selection/candidates.csv", dtype=str,
                             keep_default_na=False)
    assert sorted(candidates["url"]) == sorted(FILLS)  # nothing the release holds

    bash(work, sheets)  # 3.
    for k, name in enumerate(("alice", "bob", "chen")):
        fill(SheetPaths(work / "update").sheet(name),
             {url: marks[k] for url, marks in FILLS.items()})
    said = bash(work, merge)  # 4.
    assert "2 undecided" in said
    rows = read_rows(work / "batch/labels/adjudication.csv")
    decision = rows[0].index("decision")
    for row in rows[1:]:
        row[decision] = DECIDED[row[0]]
    pd.DataFrame(rows[1:], columns=rows[0]).to_csv(work / "decisions.csv", index=False)
    first = bash(work, decide)
    assert "0 undecided" in first
    batch = {p.relative_to(work).as_posix(): p.read_bytes()
             for p in sorted((work / "batch").rglob("*")) if p.is_file()}
    assert bash(work, decide) == first  # decisions are an input: the same batch again
    assert batch == {p.relative_to(work).as_posix(): p.read_bytes()
                     for p in sorted((work / "batch").rglob("*")) if p.is_file()}

    bash(work, extend)  # 5.
    assert "make report" in run  # 6. as make report runs it on a study: the driver
    bash(work, run.replace("make report", "python -m analysis.tools.repro"))

    paths = Paths(work)
    # Table I against the paper is the release's; the study now counts both
    table = pd.read_csv(paths.table1.table("counts.csv")).set_index("project")
    assert table.loc["Sum", "Total"] == release and "2026" not in table.columns
    now = pd.read_csv(paths.table1.table("study.csv"), keep_default_na=False,
                      dtype={"column": str}).set_index(["project", "batch", "column"])
    assert now.loc[("Sum", "", "Total"), "issues"] == release + len(LABELLED)
    assert now.loc[("Sum", "2026-01", "2026"), "issues"] == len(LABELLED)
    assert now.loc[("tensorflow", "", "Total"), "issues"] == 0  # its one candidate excluded
    fp = pd.read_csv(paths.table1.table("false_positives_by_batch.csv")).set_index(
        ["batch", "project"])
    assert fp.loc[("2026-01", "tensorflow"), "false_positive_percent"] == pytest.approx(100.0)
    # vllm: 3 labelled + 2 excluded of the batch's candidates; the release's rows not counted
    assert (fp.loc[("2026-01", "vllm"), "excluded"],
            fp.loc[("2026-01", "vllm"), "candidates"]) == (2, 5)
    projects = pd.read_csv(paths.compare.table("projects.csv"))
    assert "removed" not in set(projects["status"])
    years = pd.read_csv(paths.compare.table("years.csv"))
    assert "removed" not in set(years["status"])
    additions = pd.read_csv(paths.compare.table("additions.csv"))
    assert set(additions["batch"]) == {"2026-01"} and additions["issues"].sum() == 4
    agreement = pd.read_csv(paths.agreement.table("batches.csv")).set_index("batch")
    assert list(agreement.index) == ["release", "2026-01", "all batches"]
    assert agreement.loc["2026-01", "annotators"] == 3
    assert agreement.loc["release", "annotators"] == 7
    # the paper is judged on the release: a batch's rate is the study's, not the paper's
    card = pd.read_csv(paths.findings.table("scorecard.csv")).set_index("claim_id")
    assert card.loc["table1.vllm.false_positive", "status"] == "not_reproducible"

    problems = [p for rel in written_csvs(work) for p in table_problems(work, rel)]
    assert not problems, "\n".join(problems)  # the study's tables validate, its own too

    said = bash(work, read)  # 7.
    assert said.startswith("batch,reports,themes,test,statistic")
    page = (work / "report/_site/changes.html").read_text(encoding="utf-8")
    assert "Drift since the paper" in page and "Agreement per batch" in page
    assert "downloads/tables/compare/drift_tests.csv" in page  # the drift's own source line
    # every include of the site reads only what it declares, the study's tables included
    assert undeclared_reads(INCLUDES, work) == {}
    assert json.loads(paths.compare.vars.read_text())["projects_removed_count"] == 0
