"""An extended study read two ways, never mixed: the paper, reproduced (on the release's
rows) and the study now (the release beside each batch).

The study is the update tutorial's, built as its page says, by the pipeline from the
team's records (tests/support/tutorial.py, the run shared with the tutorial's tests): the
small synthetic release + batch 2026-01 (reports of 2025, a year the release covers, and
of 2026) + batch 2026-02 (2026 only), three annotators each, two of them the same people
(tests/support/studies.py), beside the run of the same release alone.

Checked: the scorecard, the headline kappas, Table I against the paper, the examples
the Taxonomy page calls the release's and every
reproduced value are the same bytes as the release-only run's; the study's Table I has
the release, each batch and the total, the totals equal the label rows, and the batch's
2025 is its own column, marked; no theme is flagged from a count of one; every
false-positive rate has its n and interval; the Overview names each batch's annotators
and the data as "the release + 2 batches"."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core.paths import Paths
from tests.support.studies import BATCH_HOURS
from tests.support.tutorial import PAPER_VIEW, TEAMS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def study_run(team_study):
    """The pipeline on the two-batch study of the small release."""
    return team_study / "project"


def test_the_papers_verdicts_are_the_release_alones_byte_for_byte(team_study, study_run):
    for rel in PAPER_VIEW:
        assert (study_run / rel).read_bytes() == (team_study / "release-only" / rel
                                                  ).read_bytes(), rel


def test_table1_now_has_the_release_each_batch_and_the_total(small_run, study_run):
    paths = Paths(study_run)
    issues = pd.read_parquet(paths.clean.issues_parquet)
    counts = pd.read_csv(paths.table1.table("study.csv"), keep_default_na=False,
                         dtype={"column": str})
    cell = counts.set_index(["project", "batch", "column"])["issues"]
    assert list(dict.fromkeys(counts["batch"])) == ["release", *BATCH_HOURS, ""]
    assert cell[("Sum", "", "Total")] == len(issues)  # the totals are the label rows
    for batch in ("release", *BATCH_HOURS):
        assert cell[("Sum", batch, "Total")] == (issues["batch"] == batch).sum()
    release = sum(len(rows) for rows in small_run.written.values())
    assert cell[("Sum", "release", "Total")] == release
    # 2026-01's reports of 2025 are its own column, marked; never the release's
    marked = counts[counts["release_year"].astype(str) == "True"]
    assert set(zip(marked["batch"], marked["column"], strict=True)) == {("2026-01", "2025")}
    assert cell[("Sum", "2026-01", "2025")] == 3  # pytorch 9001, 9002; vllm 9101
    assert "2025" not in set(counts.loc[counts["batch"] == "2026-02", "column"])
    page = (study_run / "report/_site/table1.html").read_text(encoding="utf-8")
    assert "The study now" in page and "Batch 2026-01" in page and "†" in page


def test_every_false_positive_rate_has_its_n_and_interval(study_run):
    rates = pd.read_csv(Paths(study_run).table1.table("false_positives_by_batch.csv"))
    assert set(rates["batch"]) == set(BATCH_HOURS)  # the release records none
    assert rates["candidates"].gt(0).all()
    projects = rates[rates["project"] != "Sum"]
    assert projects[["ci_low", "ci_high"]].notna().all().all()
    by = rates.set_index(["batch", "project"])
    assert (by.loc[("2026-01", "pytorch"), "excluded"],
            by.loc[("2026-01", "pytorch"), "candidates"]) == (1, 4)
    # a batch's average is of its own projects' rates
    mine = projects[projects["batch"] == "2026-01"]["false_positive_percent"]
    assert by.loc[("2026-01", "Sum"), "false_positive_percent"] == pytest.approx(mine.mean())
    page = (study_run / "report/_site/table1.html").read_text(encoding="utf-8")
    assert "candidates (n)" in page and "Wilson" in page


def test_no_theme_is_flagged_from_a_count_below_the_minimum(study_run):
    paths = Paths(study_run)
    drift = pd.read_csv(paths.compare.table("drift.csv"))
    tests = pd.read_csv(paths.compare.table("drift_tests.csv"), keep_default_na=False)
    changed = drift[drift["changed"]]
    assert (changed[["batch_issues", "expected"]].max(axis=1) >= 5).all()
    one = drift[(drift["batch_issues"] == 1) & (drift["release"] == 0)]
    assert not one["changed"].any()
    # batches of a dozen reports: Cochran's rule fails, so the Monte-Carlo test ran
    assert set(tests["test"]) == {"monte_carlo"} and (tests["resamples"] == 10_000).all()
    page = (study_run / "report/_site/changes.html").read_text(encoding="utf-8")
    assert "Monte-Carlo permutation test" in page and "Cochran" in page
    assert "downloads/tables/agreement/batches.csv" in page  # per-batch agreement's source


def test_the_overview_names_the_batches_and_their_annotators(study_run):
    now = (study_run / "report/_generated/overview/study_now.md").read_text(encoding="utf-8")
    assert "the release + 2 batches" in now
    batches = pd.read_csv(Paths(study_run).agreement.table("batches.csv")).set_index("batch")
    assert list(batches.loc[["release", *BATCH_HOURS], "annotators"]) == [7, 3, 3]
    for batch in BATCH_HOURS:
        assert f"batch {batch}" in now
    links = (study_run / "report/_generated/links.md").read_text(encoding="utf-8")
    assert "This build's data: the release + 2 batches" in links
    page = (study_run / "report/_site/index.html").read_text(encoding="utf-8")
    assert "The paper, reproduced" in page and "The study now" in page
    assert page.index("The paper, reproduced") < page.index("The study now")


def test_the_agreement_page_follows_each_named_annotator_batch_by_batch(study_run):
    """Each person as the study names them, per batch, with n and intervals; a person keeps
    their column from batch to batch; the adjudication list names them too."""
    paths = Paths(study_run)
    persons = pd.read_csv(paths.agreement.table("annotators_by_batch.csv"),
                          keep_default_na=False)
    assert list(dict.fromkeys(persons["batch"])) == ["release", *TEAMS]
    for batch, team in TEAMS.items():
        mine = persons[persons["batch"] == batch]
        assert list(mine["person"]) == list(team)
        assert (mine["others_issues"] <= mine["rated"]).all() and mine["rated"].gt(0).all()
    by = persons.set_index(["batch", "person"])
    assert by.loc[("2026-01", "alice"), "label_column"] == "Label8"
    assert by.loc[("2026-02", "alice"), "label_column"] == "Label8"  # followed
    pairs = pd.read_csv(paths.agreement.table("pairs_by_batch.csv"), keep_default_na=False)
    assert list(pairs.groupby("batch", sort=False).size()) == [21, 3, 3]  # 7 and 3 people
    page = (study_run / "report/_site/agreement.html").read_text(encoding="utf-8")
    section = page[page.index('id="each-annotator-batch-by-batch"'):]
    for batch, team in TEAMS.items():
        part = section[section.index(f"<strong>Batch {batch}</strong>"):]
        part = part[:part.index("</table>")]
        assert "reports rated" in part and "κ with the others" in part and ">n<" in part
        for name in team:
            assert f">{name}<" in part, (batch, name)
    followed = section[:section.index("<strong>The release</strong>")]
    assert ">Label1<" not in followed and ">Label8<" in followed  # the batches' people
    # the adjudication list names each annotator as the study does, not Label1..3
    for batch, team in TEAMS.items():
        listed = (study_run / "build/merged" / batch / "labels/adjudication.csv").read_text(
            encoding="utf-8-sig").splitlines()[0].split(",")
        assert [f"{name} label" for name in team] == [c for c in listed if
                                                       c.endswith(" label")]
        assert not [c for c in listed if c.startswith("Label")]


def test_the_release_alone_has_no_study_section(small_run):
    generated = small_run.project / "report/_generated"
    assert (generated / "overview/study_now.md").read_text(encoding="utf-8").strip() == ""
    assert "This build's data" not in (generated / "links.md").read_text(encoding="utf-8")
    assert not (small_run.project / "report/tables/table1/study.csv").exists()
    assert not (small_run.project / "report/tables/agreement/annotators_by_batch.csv").exists()
    assert not (small_run.project / "data/processed/clean/people.csv").exists()
    page = (small_run.project / "report/_site/agreement.html").read_text(encoding="utf-8")
    assert "Each annotator, batch by batch" not in page
