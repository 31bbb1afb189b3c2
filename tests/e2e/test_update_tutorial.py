"""The update tutorial (docs/update-tutorial.md), run as written, batch after batch, by a
team whose project is a git repository (the run: :mod:`tests.support.tutorial`, shared
with the study views' tests).

Checked: the commands exist and succeed; no candidate is a report the study holds (the
second batch's select leaves out the first's); the merge of a batch alone lists what to
decide, and the run with the decisions leaves nothing undecided; Table I against the paper
= the release's issues, and the study now = the release's + each batch's, with a 2026
column and the all-excluded project's row; nothing removed on What changed; the drift and
per-batch agreement tables written and shown; annotators keep their columns from batch to
batch; after a batch, git shows only its records, its merge's record, params.yaml,
dvc.lock and metrics/; a
fresh clone of the project rebuilds the same study and the same site, byte for byte."""

from __future__ import annotations

import json
import re
import subprocess

import pandas as pd
import pytest

from analysis.core.paths import Paths
from analysis.report.pages import INCLUDES
from tests.support.reads import undeclared_reads
from tests.support.studies import BATCH_HOURS, EXCLUDED, SPLIT, UNDECIDED, P
from tests.support.table_checks import table_problems, written_csvs
from tests.support.tutorial import PAGE, named
from tests.support.workspace import compare_outputs, lock_difference, reproduce

pytestmark = pytest.mark.slow

# The page's blocks by the names their markers give (docs tests check each is run here);
# the first, the download, is marked not-run and stood in for by synthetic hours; the
# Label Studio route's are run against a real server by tests/e2e/test_label_studio.py.
BLOCK_NAMES = ("update-tutorial/select", "update-tutorial/sheets", "update-tutorial/merge",
               "update-tutorial/run", "update-tutorial/read", "update-tutorial/commit",
               "update-tutorial/next-select", "update-tutorial/next-merge",
               "update-tutorial/next-run")
STUDIO_BLOCKS = ("update-tutorial/studio-create", "update-tutorial/studio-export")
# batch 2026-01's label rows: its candidates less those excluded (by all, or decided)
LABELLED_1 = 4 + 1 + 10 - len(EXCLUDED["2026-01"]) - 1


def test_the_page_has_a_block_for_each_step():
    assert len(blocks()) == 1 + len(BLOCK_NAMES) + len(STUDIO_BLOCKS)
    for name in BLOCK_NAMES:
        assert named(name)
    assert "data.gharchive.org" in blocks()[0]  # 1. the download, done by writing hours


def blocks() -> list[str]:
    """The page's ```bash blocks, in order."""
    return re.findall(r"^```bash\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.S | re.M)


@pytest.fixture(scope="module")
def said(team_study) -> dict[str, str]:
    return json.loads((team_study / "said.json").read_text(encoding="utf-8"))


def candidates(team_study, batch: str) -> list[str]:
    path = team_study / "project/labels" / batch / "selection/candidates.csv"
    return list(pd.read_csv(path, dtype=str)["url"])


def test_select_leaves_out_what_the_study_holds(small_run, team_study, said):
    release = sum(len(rows) for rows in small_run.written.values())
    assert f"known issues: {release:,} in" in said["select"]
    first = candidates(team_study, "2026-01")
    assert sorted(first) == sorted(f"https://github.com/{repo}/issues/{n}"
                                   for hour in BATCH_HOURS["2026-01"].values()
                                   for repo, issues in hour.items() for n, _, t in issues
                                   if repo != "pytorch/pytorch" or "LLM" in t)
    # the second batch: the January hours are read again, and January's batch left out
    assert f"known issues: {release + LABELLED_1 + len(EXCLUDED['2026-01']) + 1:,} in" in \
        said["next-select"]
    second = candidates(team_study, "2026-02")
    assert not set(first) & set(second) and f"{P}9203" in second


def test_the_merge_of_a_batch_alone_says_what_to_decide(team_study, said):
    assert "2 undecided (left out of the batch)" in said["merge"]
    assert "copy build/merged/2026-01/labels/adjudication.csv to labels/2026-01/" \
           "decisions.csv" in said["merge"]
    decisions = pd.read_csv(team_study / "project/labels/2026-01/decisions.csv", dtype=str)
    assert dict(zip(decisions["url"], decisions["decision"], strict=True)) == {
        UNDECIDED["2026-01"][0]: "A.2", SPLIT["2026-01"]: "excluded"}
    # the run merges it again with the decisions: the same batch as a merge by hand gives
    assert "0 undecided" in said["run"] and "0 undecided" in said["next-run"]
    record = json.loads((team_study / "project/build/merged/2026-01/labels/merge.json")
                        .read_text())
    assert record["annotator_names"] == ["alice", "bob", "chen"]
    assert record["decisions"]["applied"] == 2


def test_the_study_after_the_first_batch(small_run, team_study, said):
    first = team_study / "batch-1"
    release = sum(len(rows) for rows in small_run.written.values())
    table = pd.read_csv(first / "report/tables/table1/counts.csv").set_index("project")
    assert table.loc["Sum", "Total"] == release and "2026" not in table.columns
    now = pd.read_csv(first / "report/tables/table1/study.csv", keep_default_na=False,
                      dtype={"column": str}).set_index(["project", "batch", "column"])
    assert now.loc[("Sum", "", "Total"), "issues"] == release + LABELLED_1
    assert now.loc[("Sum", "2026-01", "2025"), "issues"] == 3
    assert now.loc[("tensorflow", "", "Total"), "issues"] == 0  # its one candidate excluded
    fp = pd.read_csv(first / "report/tables/table1/false_positives_by_batch.csv").set_index(
        ["batch", "project"])
    assert fp.loc[("2026-01", "tensorflow"), "false_positive_percent"] == pytest.approx(100.0)
    # vllm: 10 candidates, 2 excluded (by all; by decision), the release's rows not counted
    assert (fp.loc[("2026-01", "vllm"), "excluded"],
            fp.loc[("2026-01", "vllm"), "candidates"]) == (2, 10)
    for name in ("projects.csv", "years.csv"):
        assert "removed" not in set(pd.read_csv(first / "report/tables/compare" / name)[
            "status"])
    additions = pd.read_csv(first / "report/tables/compare/additions.csv")
    assert set(additions["batch"]) == {"2026-01"} and additions["issues"].sum() == LABELLED_1
    # a batch adds issue reports only: the interviews stage, which reads the release's
    # interview files, is not run again
    assert "Running stage 'interviews'" not in said["run"]
    assert "Stage 'interviews' didn't change" in said["run"]
    agreement = pd.read_csv(first / "report/tables/agreement/batches.csv").set_index("batch")
    assert list(agreement.index) == ["release", "2026-01", "all batches"]
    assert agreement.loc["2026-01", "annotators"] == 3
    assert agreement.loc["release", "annotators"] == 7
    # the paper is judged on the release: a batch's rate is the study's, not the paper's
    card = pd.read_csv(first / "report/tables/findings/scorecard.csv").set_index("claim_id")
    assert card.loc["table1.vllm.false_positive", "status"] == "not_reproducible"
    assert said["read"].startswith("batch,reports,themes,test,statistic")
    page = (first / "report/_site/changes.html").read_text(encoding="utf-8")
    assert "Drift since the paper" in page and "Agreement per batch" in page
    assert "downloads/tables/compare/drift_tests.csv" in page  # the drift's own source line
    assert json.loads((first / "report/vars/compare.json").read_text())[
        "projects_removed_count"] == 0


def test_the_study_after_the_second_batch(team_study):
    work = team_study / "project"
    paths = Paths(work)
    record = json.loads((work / "data/raw/labels/batches.json").read_text())
    assert [b["name"] for b in record["batches"]] == ["release", "2026-01", "2026-02"]
    # alice and bob keep their columns; dana is new
    assert record["annotators"] == {"alice": "Label8", "bob": "Label9", "chen": "Label10",
                                    "dana": "Label11"}
    provenance = json.loads(paths.provenance.read_text())
    assert [b["name"] for b in provenance["study"]["batches"]] == ["2026-01", "2026-02"]
    assert provenance["source"] == str(team_study / "release")
    problems = [p for rel in written_csvs(work) for p in table_problems(work, rel)]
    assert not problems, "\n".join(problems)  # the study's tables validate, its own too
    # every include of the site reads only what it declares, the study's tables included
    assert undeclared_reads(INCLUDES, work) == {}


def test_a_batch_leaves_only_its_records_params_lock_and_metrics_to_commit(team_study,
                                                                          said):
    status = said["commit"].splitlines()  # git status --short, and nothing else said
    assert "?? labels/2026-01/" in status and " M params.yaml" in status
    assert {line[3:].split("/")[0] for line in status} == {
        "labels", "merges", "params.yaml", "dvc.lock", "metrics"}
    assert said["status"] == ""  # after the second batch's commit: nothing else left
    log = subprocess.run(["git", "log", "--format=%s", "--name-only"],
                         cwd=team_study / "project", capture_output=True, text=True,
                         check=True).stdout
    assert "Batch 2026-02" in log and "labels/2026-02/sheets/annotator_dana.csv" in log


# The commit a site was built from, in every page's footer and on the Reproducibility
# page (with the tracked files modified then): the team's site of the second batch was
# built before the batch was committed, the clone's from that commit; the site's list of
# its sources hashes those pages as rendered
COMMIT = re.compile(rb'<ul class="build">.*?</ul>|<details class="callout callout-note">'
                    rb'<summary class="callout-title">Modified files</summary>.*?</details>\n?'
                    rb'|\b[0-9a-f]{40}\b|(?<=commit )[0-9a-f]{7,}\b', re.S)
BUILD_RECORD = ("report/_site/sources.json",)


def same_but_the_build_commit(first, second, rel: str) -> bool:
    """Whether the site's file ``rel`` of two runs differs only in the commit it was built
    from."""
    a, b = first / rel, second / rel
    if not (rel.startswith("report/_site/") and a.is_file() and b.is_file()):
        return False
    if rel == SEARCH_INDEX:  # the build record's section, as text, is the index's entry
        return without_build_record(a) == without_build_record(b)
    return rel in BUILD_RECORD or COMMIT.sub(b"", a.read_bytes()) == COMMIT.sub(
        b"", b.read_bytes())


SEARCH_INDEX = "report/_site/search.json"
BUILD_RECORD_ENTRY = "reproducibility.html#environment"


def without_build_record(index) -> list:
    """Quarto's search index without the entry of the page section that shows the build
    record (commit, branch, the files modified when the site was built)."""
    return [entry for entry in json.loads(index.read_text(encoding="utf-8"))
            if entry.get("href") != BUILD_RECORD_ENTRY]


def test_a_fresh_clone_rebuilds_the_same_study_and_site(team_study, tmp_path):
    work = team_study / "project"
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(work), str(clone)], check=True)
    assert not (clone / "build").exists() and not (clone / "data/raw").exists()
    assert (clone / "labels/2026-01/sheets/annotator_alice.csv").read_bytes() == (
        work / "labels/2026-01/sheets/annotator_alice.csv").read_bytes()  # as saved: CRLF
    # Same input, same bytes: the team's run took two stages at a time, the clone's one
    # at a time, in another folder; every output and dvc.lock must come out the same.
    reproduce(clone, "--jobs", "1")
    differences = [d for d in compare_outputs(work, clone) if not d.startswith("gharchive/")
                   and not same_but_the_build_commit(work, clone, d.split(": ", 1)[0])]
    assert not differences, "\n".join(differences[:20])
    lock = lock_difference(*((w / "dvc.lock").read_text(encoding="utf-8")
                             for w in (work, clone)))
    assert not lock, f"dvc.lock differs between the two runs: {lock}"
    for rel in ("build/study/dump/Issue Report/vllm/vllm.csv", "data/provenance.json",
                "report/tables/table1/study.csv"):
        assert (clone / rel).read_bytes() == (work / rel).read_bytes()
    assert same_but_the_build_commit(work, clone, "report/_site/index.html")
