"""Table I on synthetic issues: counts, Sum row, shares, reproduced values, figure."""

from __future__ import annotations

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from analysis.core.figures import save_figure
from analysis.core.paths import Paths
from analysis.core.projects import Project, Projects
from analysis.core.stage import write_outputs
from analysis.table1 import compute as tables
from analysis.table1 import outputs
from analysis.table1.figures import counts_figure
from tests.support.stages import table1_result

TYPES = ["Question", "Requirement", "Bug"]
META = Projects({"pytorch": Project("pytorch", "PyTorch", "framework", 1),
                 "vllm": Project("vllm", "vLLM", "toolkit", 6)})


@pytest.fixture
def issues():
    rows = [("vllm", 2024, "Bug")] * 3 + [("vllm", 2026, "Question")] + \
        [("pytorch", 2023, "Requirement")] * 2 + [("pytorch", 2024, "Bug"),
                                                   ("zeta", 2023, "Bug")]
    return pd.DataFrame(rows, columns=["project", "year", "type"])


def test_table1_counts_sum_and_order(issues):
    t = tables.table1(issues, META, TYPES)
    assert list(t.index) == ["pytorch", "vllm", "zeta", "Sum"]
    assert list(t.columns) == ["name", "kind", "2023", "2024", "2026", "Question", "Bug",
                               "Requirement", "Total"]
    assert t.loc["vllm", "2024"] == 3 and t.loc["vllm", "2023"] == 0
    assert t.loc["Sum", "Total"] == 8 and t.loc["Sum", "Bug"] == 5
    assert t.loc["zeta", "name"] == "zeta" and t.loc["zeta", "kind"] == "unknown"
    years = t[["2023", "2024", "2026"]].sum(axis=1)
    assert (years == t["Total"]).all()


def test_the_steps_of_table1(issues):
    rows = tables.project_rows(issues, META, ["gone"])
    assert rows == ["pytorch", "vllm", "gone", "zeta"]  # described first, in the paper's order
    by_year = tables.counts_by_year(issues, rows)
    assert by_year.columns.tolist() == ["2023", "2024", "2026"]
    assert by_year.loc["vllm"].tolist() == [0, 3, 1] and by_year.loc["gone"].sum() == 0
    by_type = tables.counts_by_type(issues, rows, ["Requirement", "Other"])
    assert by_type.columns.tolist() == ["Question", "Bug", "Requirement", "Other"]
    assert by_type.loc["pytorch"].tolist() == [0, 1, 2, 0]
    table = tables.with_totals(by_year, by_type, META)
    assert table.index.tolist() == [*rows, "Sum"]
    assert table["Total"].tolist() == [3, 4, 0, 1, 8]
    assert table.loc["Sum", "2024"] == 4 and table.loc["Sum", "name"] == "All projects"
    assert table.loc["vllm", ["name", "kind"]].tolist() == ["vLLM", "toolkit"]
    pd.testing.assert_frame_equal(table.drop(columns="Other"),
                                  tables.table1(issues, META, TYPES, ["gone"]))


def test_type_without_issues_gets_zero_column():
    issues = pd.DataFrame([("vllm", 2024, "Bug")], columns=["project", "year", "type"])
    t = tables.table1(issues, META, TYPES)
    assert t.loc["Sum", "Question"] == 0 and t.loc["Sum", "Requirement"] == 0


def test_shares(issues):
    s = tables.type_shares(issues, TYPES)
    assert list(s.index) == ["Question", "Bug", "Requirement"]
    assert s.sum() == pytest.approx(100)
    assert s["Bug"] == pytest.approx(62.5)


def reported_only(t, fp: dict) -> pd.DataFrame:
    """The false-positive table of a dump without recorded exclusions."""
    return tables.false_positive_table(t, None, pd.Series(fp, dtype="float64"))


def test_reproduced_values_and_false_positives(issues):
    t = tables.table1(issues, META, TYPES)
    claims = pd.DataFrame({"claim_id": ["table1.pytorch.false_positive",
                                        "table1.vllm.false_positive", "table1.sum.2023"],
                           "paper_value": ["10.00%", "20.50%", "3"]})
    fp = tables.reported_false_positives(claims)
    assert fp.to_dict() == {"pytorch": 10.0, "vllm": 20.5}
    rates = tables.false_positive_table(t, None, fp)
    rep = outputs.claim_values(tables.Table1(t, tables.type_shares(issues, TYPES), rates, META))
    assert rep["table1.vllm.2026"] == {"value": 1}
    assert rep["table1.sum.bug"] == {"value": 5}
    assert rep["table1.total_reports"] == {"value": 8}
    # the mean of the paper's own rates is no reproduction: no value to judge, the mean
    # in the note
    assert rep["table1.false_positive.average"] == {"value": None, "note": (
        "the paper's own 2 per-project rates do average 15.25% (an arithmetic check of "
        "the paper, not a reproduction)")}
    assert rep["table1.projects"] == {"value": 3}
    assert rep["table1.frameworks"] == {"value": 1} and rep["table1.toolkits"] == {"value": 1}
    assert "table1.pytorch.false_positive" not in rep


def exclusions(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["project", "recorded", "label_rows", "excluded",
                                        "candidates"])
    return frame.astype({"label_rows": "Int64", "excluded": "Int64", "candidates": "Int64"})


def test_false_positives_computed_where_the_dump_records_them(issues):
    t = tables.table1(issues, META, TYPES)
    ex = exclusions([("pytorch", True, 3, 1, 4), ("vllm", False, 4, None, None),
                     ("zeta", True, 1, 0, 1)])
    fp = tables.false_positive_table(t, ex, pd.Series({"pytorch": 10.0, "vllm": 20.5}))
    rows = fp.set_index("project")
    assert rows.loc["pytorch", "false_positive_percent"] == pytest.approx(25.0)
    assert rows.loc["pytorch", "source"] == "computed"
    assert rows.loc["pytorch", "excluded"] == 1 and rows.loc["pytorch", "candidates"] == 4
    assert rows.loc["vllm", "source"] == "reported"  # not recorded: the paper's rate
    assert rows.loc["vllm", "false_positive_percent"] == pytest.approx(20.5)
    assert rows.loc["zeta", "false_positive_percent"] == 0.0
    # the average is of the computed rates only; totals over the computed projects
    assert rows.loc["Sum", "false_positive_percent"] == pytest.approx(12.5)
    assert rows.loc["Sum", "source"] == "computed" and rows.loc["Sum", "candidates"] == 5
    assert list(fp["name"]) == ["PyTorch", "vLLM", "zeta", "All projects"]
    shown = tables.table1_display(t, fp)["False Positive"].tolist()
    assert shown == ["25.00%", "20.50% (reported)", "0.00%", "Average: 12.50%"]
    result = tables.Table1(t, tables.type_shares(issues, TYPES), fp, META)
    rep = outputs.claim_values(result)
    assert rep["table1.false_positive.average"]["value"] == pytest.approx(12.5)
    assert rep["table1.false_positive.average"]["computed"] is True
    assert rep["table1.false_positive.average"]["note"] == (
        "mean of 2 per-project rates computed from the dump's excluded candidates "
        "(excluded / candidates)")
    v = outputs.website_vars(result)
    assert v["false_positive_computed_projects"] == 2
    # the computed per-project rates are claim values the scorecard judges
    assert rep["table1.pytorch.false_positive"]["value"] == pytest.approx(25.0)
    assert rep["table1.pytorch.false_positive"]["computed"] is True
    assert "table1.vllm.false_positive" not in rep  # reported: the paper's own


def test_a_project_whose_candidates_were_all_excluded_has_its_row(issues):
    """No issue, so no year file; its row of zeros carries its 100% rate."""
    ex = exclusions([("pytorch", True, 3, 1, 4), ("mindspore", True, 0, 2, 2)])
    claims = pd.DataFrame({"claim_id": ["a.b"], "paper_value": ["1"]})
    result = table1_result(issues, META, TYPES, claims, ex)
    assert result.table.loc["mindspore", "Total"] == 0
    assert result.table.loc["Sum", "Total"] == len(issues)
    fp = result.false_positives.set_index("project")
    assert fp.loc["mindspore", "false_positive_percent"] == pytest.approx(100.0)
    assert tables.excluded_only(issues, None) == []


def test_no_rate_without_exclusions_or_a_reported_value(issues):
    t = tables.table1(issues, META, TYPES)
    fp = tables.false_positive_table(t, exclusions([("vllm", True, 0, 0, 0)]),
                                     pd.Series(dtype="float64"))
    assert set(fp["source"]) == {"none"}  # no candidates at all: no rate, not 0%
    assert tables.table1_display(t, fp)["False Positive"].tolist() == ["–"] * 4
    v = outputs.website_vars(tables.Table1(t, tables.type_shares(issues, TYPES), fp, META))
    assert v["false_positive_computed_projects"] == 0


def test_display_and_metrics(issues):
    t = tables.table1(issues, META, TYPES)
    fp = reported_only(t, {"pytorch": 10.0, "vllm": 20.5})
    shown = tables.table1_display(t, fp)
    assert shown.iloc[-1]["False Positive"] == "Average: 15.25% (reported)"
    assert shown.iloc[0]["False Positive"] == "10.00% (reported)"
    assert shown.iloc[2]["False Positive"] == "–"
    m = outputs.metrics(tables.Table1(t, tables.type_shares(issues, TYPES), fp, META))
    assert m == {"total": 8, "projects": 3,
                 "by_type": {"Question": 1, "Bug": 5, "Requirement": 2}}


def test_figure_is_byte_stable(issues, tmp_path):
    t = tables.table1(issues, META, TYPES)
    a = save_figure(counts_figure(t), tmp_path / "a")
    b = save_figure(counts_figure(t), tmp_path / "b")
    for x, y in zip(a, b, strict=True):
        assert x.read_bytes() == y.read_bytes() and x.stat().st_size > 1000
    assert b"<dc:date>" not in a[0].read_bytes()


def test_website_vars(issues):
    t = tables.table1(issues, META, TYPES)
    v = outputs.website_vars(tables.Table1(t, tables.type_shares(issues, TYPES),
                                           reported_only(t, {}), META))
    assert v["total"] == 8 and v["projects"] == 3 and v["bug"] == 5
    assert v["bug_share"] == "62.50%" and v["years"] == "2023–2026"
    assert v["projects_by_kind"] == ("1 framework, 1 LLM toolkit and 1 project not in "
                                     "data/projects.yaml")
    assert v["question"] == 1 and v["requirement"] == 2 and v["question_share"] == "12.50%"
    assert v["projects_mostly_bug"] == 2 and v["projects_mostly_requirement"] == 1
    assert not [k for k in v if k.startswith("year_")]  # one per year: in the table
    assert "vLLM has the most reports (4)" in v["fig_counts_alt"] and v["fig_counts_caption"]
    assert all(isinstance(x, int | str) for x in v.values())


def test_the_stage_and_every_output_lands_where_the_paths_say(issues, tmp_path):
    claims = pd.DataFrame({"claim_id": ["table1.pytorch.false_positive"],
                           "paper_value": ["10.00%"]})
    result = table1_result(issues, META, TYPES, claims)
    rates = result.false_positives.set_index("project")
    assert rates.loc["pytorch", "false_positive_percent"] == 10.0
    assert rates.loc["pytorch", "source"] == "reported"
    paths = Paths(tmp_path)
    written = write_outputs(paths.table1, outputs.build(result))
    assert written == sorted([
        "data/reproduced/table1.json", "metrics/table1.json", "report/vars/table1.json",
        "report/tables/table1/counts.csv", "report/tables/table1/type_shares.csv",
        "report/tables/table1/claims.csv", "report/tables/table1/false_positives.csv",
        "report/figures/table1/counts.svg",
        "report/figures/table1/counts.png"])
    assert pd.read_csv(paths.table1.table("counts.csv"))["Total"].iloc[-1] == 8


def test_type_shares_of_every_row(issues):
    t = tables.table1(issues, META, TYPES)
    shares = outputs.type_shares_by_project(t).set_index("project")
    assert list(shares.columns) == ["Question", "Bug", "Requirement"]
    assert shares.loc["vllm"].tolist() == [25.0, 75.0, 0.0]
    assert shares.loc["Sum", "Bug"] == pytest.approx(62.5)
    empty = t.copy()
    empty.loc["zeta", ["Question", "Bug", "Requirement", "Total"]] = 0
    assert outputs.type_shares_by_project(empty).set_index("project").loc["zeta"].sum() == 0


def test_every_cell_names_its_claim_and_the_claims_use_them(issues):
    t = tables.table1(issues, META, TYPES)
    ids = outputs.cell_claims(t)
    cell = ids.set_index(["project", "column"])["claim_id"]
    assert cell[("pytorch", "2023")] == "table1.pytorch.2023"
    assert cell[("Sum", "Bug")] == "table1.sum.bug"
    assert cell[("Sum", "Total")] == "table1.total_reports"
    assert cell[("vllm", "false_positive")] == "table1.vllm.false_positive"
    assert cell[("Sum", "false_positive")] == "table1.false_positive.average"
    assert ("pytorch", "Total") not in cell.index  # the paper prints no project total claim
    result = tables.Table1(t, tables.type_shares(issues, TYPES), reported_only(t, {}), META)
    counted = {c for c in ids["claim_id"] if "false_positive" not in c}
    assert counted <= set(outputs.claim_values(result))
    assert outputs.claim_values(result)["table1.vllm.2024"] == {"value": 3}


# --------------------------------------------------------------------------- a study


def study_issues(issues) -> pd.DataFrame:
    """``issues`` as the release, plus batch a (2025 and 2026 reports: the release covers
    2023-2026 here, so both years are marked) and batch b (2027)."""
    release = issues.assign(batch="release")
    new = pd.DataFrame([("vllm", 2024, "Bug", "a"), ("pytorch", 2026, "Bug", "a"),
                        ("pytorch", 2027, "Question", "b"), ("mindspore", 2027, "Bug", "b")],
                       columns=["project", "year", "type", "batch"])
    return pd.concat([release, new], ignore_index=True)


def study_exclusions() -> pd.DataFrame:
    frame = pd.DataFrame([
        ("pytorch", False, 3, None, None, "release"), ("pytorch", True, 1, 3, 4, "a"),
        ("vllm", False, 4, None, None, "release"), ("vllm", True, 1, 0, 1, "a"),
        ("pytorch", True, 1, 1, 2, "b"), ("mindspore", True, 1, 1, 2, "b"),
        ("tensorflow", True, 0, 2, 2, "b")],
        columns=["project", "recorded", "label_rows", "excluded", "candidates", "batch"])
    return frame.astype({"label_rows": "Int64", "excluded": "Int64", "candidates": "Int64"})


CLAIMS = pd.DataFrame({"claim_id": ["table1.pytorch.false_positive",
                                    "table1.vllm.false_positive"],
                       "paper_value": ["10.00%", "20.50%"]})


def test_on_a_study_table1_against_the_paper_is_the_releases(issues):
    """The paper, reproduced: the same Table, rates and claim values as a run on the
    release alone, whatever the batches add."""
    alone = table1_result(issues, META, TYPES, CLAIMS, study_exclusions().iloc[[0, 2]]
                           .drop(columns="batch").reset_index(drop=True))
    study = table1_result(study_issues(issues), META, TYPES, CLAIMS, study_exclusions())
    assert study.table.equals(alone.table) and study.shares.equals(alone.shares)
    assert study.false_positives.equals(alone.false_positives)
    assert "computed" not in set(study.false_positives["source"])  # the release records none
    assert outputs.claim_values(study) == outputs.claim_values(alone)
    built, once = outputs.build(study), outputs.build(alone)
    assert {k: v for k, v in built.tables.items() if k in once.tables}.keys() == \
        once.tables.keys()
    assert all(built.tables[k].equals(once.tables[k]) for k in once.tables)
    assert set(built.tables) - set(once.tables) == {"study.csv",
                                                    "false_positives_by_batch.csv"}
    assert alone.study is None


def test_the_study_now_sets_the_release_each_batch_and_the_total_side_by_side(issues):
    study = table1_result(study_issues(issues), META, TYPES, CLAIMS, study_exclusions())
    c = study.study.counts
    cell = c.set_index(["project", "batch", "column"])["issues"]
    assert list(dict.fromkeys(c["batch"])) == ["release", "a", "b", ""]
    assert cell[("Sum", "", "Total")] == len(study_issues(issues))  # every label row
    assert cell[("Sum", "release", "Total")] == len(issues)
    assert cell[("Sum", "a", "Total")] == 2 and cell[("Sum", "b", "Total")] == 2
    assert cell[("vllm", "a", "2024")] == 1 and cell[("vllm", "release", "2024")] == 3
    assert cell[("vllm", "", "2024")] == 4
    # a batch's years are its own columns; one the release covers too is marked
    marked = c[c["release_year"]]
    assert set(zip(marked["batch"], marked["column"], strict=True)) == {("a", "2024"),
                                                                        ("a", "2026")}
    assert "2024" not in set(c.loc[c["batch"] == "b", "column"])
    assert cell[("pytorch", "b", "2027")] == 1
    # every project of any part has a line in every part (tensorflow: all excluded in b)
    assert list(dict.fromkeys(c["project"])) == [*META.order(
        ["pytorch", "vllm", "zeta", "mindspore", "tensorflow"]), "Sum"]
    assert cell[("tensorflow", "", "Total")] == 0
    totals = c[(c["batch"] == "") & (c["column"] == "Total") & (c["project"] != "Sum")]
    assert totals["issues"].sum() == cell[("Sum", "", "Total")]


def test_each_batch_has_its_own_false_positive_rates_with_n_and_interval(issues):
    study = table1_result(study_issues(issues), META, TYPES, CLAIMS, study_exclusions())
    fp = study.study.false_positives.set_index(["batch", "project"])
    assert list(dict.fromkeys(study.study.false_positives["batch"])) == ["a", "b"]
    assert fp.loc[("a", "pytorch"), "false_positive_percent"] == pytest.approx(75.0)
    assert fp.loc[("a", "pytorch"), "candidates"] == 4  # its n
    low, high = proportion_confint(3, 4, method="wilson")
    assert fp.loc[("a", "pytorch"), "ci_low"] == pytest.approx(100 * low, abs=1e-5)
    assert fp.loc[("a", "pytorch"), "ci_high"] == pytest.approx(100 * high, abs=1e-5)
    # the average is of the batch's own projects: a (75%, 0%), b (50%, 50%, 100%)
    assert fp.loc[("a", "Sum"), "false_positive_percent"] == pytest.approx(37.5)
    assert fp.loc[("b", "Sum"), "false_positive_percent"] == pytest.approx(200 / 3, abs=1e-5)
    assert fp.loc[("a", "Sum"), "candidates"] == 5 and pd.isna(fp.loc[("a", "Sum"), "ci_low"])
    assert ("release", "pytorch") not in fp.index  # the release records none
