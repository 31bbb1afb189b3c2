"""Baseline comparison: kappa maths, the agreement-metrics reader, the change tables, the
stage's outputs and the snapshot command."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.clean.compute import clean_dump
from analysis.compare import compute as compare
from analysis.compare import outputs
from analysis.compare.snapshot import load_baseline, main, snapshot
from analysis.core import artifacts
from analysis.core.errors import InputError
from analysis.core.paths import ROOT, Paths
from analysis.core.projects import Project, Projects
from tests.support.mirror import needs_mirror, paper
from tests.support.stages import compare_result

BASELINE = ROOT / "data/baseline/upstream-2fba316.json"
PROJECTS = Projects({"pytorch": Project("pytorch", "PyTorch", "framework", 1)})


def test_agreement_metrics_give_the_kappa_per_type():
    metrics = {"annotators": 7, "fleiss_kappa": {
        "Bug": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8, "boot_low": 0.61},
        "Question": {"value": None, "ci_low": None, "ci_high": None},
        "all": {"value": 0.75, "ci_low": 0.7, "ci_high": 0.8}}}
    got = compare.kappas_from_agreement(metrics)
    assert list(got) == ["Bug", "Question"]
    assert got["Bug"] == {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8}
    assert all(math.isnan(v) for v in got["Question"].values())


def test_agreement_metrics_without_kappas_are_one_clear_error():
    with pytest.raises(InputError, match="m.json: no fleiss_kappa entry .* -> run the agreement"):
        compare.kappas_from_agreement({"alpha": {}}, "m.json")


def issues_of(projects: dict[str, dict[str, int]], annotators: int = 7) -> pd.DataFrame:
    rows = []
    for p, years in projects.items():
        for y, n in years.items():
            rows += [{"project": p, "year": y, "type": "Bug"}] * n
    frame = pd.DataFrame(rows)
    for i in range(1, annotators + 1):
        frame[f"annotator_{i}"] = "C.1"
    return frame


def summary(projects: dict[str, dict[str, int]], annotators: int = 7) -> dict:
    return compare.count_summary(issues_of(projects, annotators))


def test_change_tables_name_new_removed_and_changed():
    base = summary({"pytorch": {2023: 3, 2024: 2}, "vllm": {2024: 4}}) | {"label": "b"}
    cur = summary({"pytorch": {2024: 2, 2026: 5}, "sglang": {2026: 1}}, annotators=5)
    projects = compare.compare_projects(base, cur, PROJECTS)
    assert projects.set_index("project")["status"].to_dict() == {
        "pytorch": "changed", "sglang": "new", "vllm": "removed"}
    assert projects["project"].tolist() == ["pytorch", "sglang", "vllm"]
    assert projects["name"].tolist() == ["PyTorch", "sglang", "vllm"]
    years = compare.compare_years(base, cur).set_index("year")
    assert years.loc["2026", "status"] == "new" and years.loc["2023", "status"] == "removed"
    cells = compare.compare_cells(base, cur)
    row = cells[(cells["project"] == "pytorch") & (cells["key"] == "2026")].iloc[0]
    assert (row["baseline"], row["current"], row["change"]) == (0, 5, 5)
    kappa = compare.compare_kappas({"Bug": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8}},
                                   {"Bug": {"value": 0.75, "ci_low": 0.7, "ci_high": 0.9}},
                                   "test")
    assert kappa.loc[0, "change"] == 0.05 and kappa.loc[0, "intervals_overlap"]
    result = compare.Comparison(base, cur, projects, compare.compare_years(base, cur),
                                compare.compare_types(base, cur), cells, kappa, "test")
    metrics, variables = outputs.metrics(result), outputs.website_vars(result)
    assert metrics["projects"] == {"new": 1, "removed": 1, "changed": 1, "unchanged": 0}
    assert metrics["issues"] == {"baseline": 9, "current": 8, "change": -1}
    assert variables["projects_new_count"] == 1
    assert variables["projects_text"].startswith("New projects: sglang;")
    assert variables["years_new"] == "2026"
    assert variables["summary"].startswith("The current dump has 8 issues (-1 against")
    assert variables["kappa_bug_change"] == "+0.050"
    assert variables["annotators_current"] == 5


def test_compute_sets_the_run_beside_the_baseline_and_builds_every_output():
    base = summary({"pytorch": {2023: 3}}) | {"label": "b", "kappa": {
        "Bug": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8}}}
    agreement = {"fleiss_kappa": {"Bug": {"value": 0.5, "ci_low": 0.4, "ci_high": 0.55},
                                  "all": {"value": 0.5}}}
    result = compare_result(issues_of({"pytorch": {2023: 3}}), PROJECTS, base, agreement,
                             "metrics/agreement.json")
    assert result.kappa_source == "the agreement stage (metrics/agreement.json)"
    assert result.kappa.loc[0, "current_source"] == result.kappa_source
    assert not result.kappa.loc[0, "intervals_overlap"]
    built = outputs.build(result)
    stage = Paths(ROOT).compare
    assert set(built.tables) == set(stage.TABLES) - set(stage.STUDY_TABLES)
    assert set(built.figures) == set(Paths(ROOT).compare.FIGURES)
    assert built.claim_values is None
    variables = built.website_vars
    assert variables["summary"] == ("The current dump has the same projects, years and "
                                    "counts as the baseline.")
    assert variables["kappa_source_text"] == ("Kappas of this build come from the agreement "
                                              "stage (metrics/agreement.json).")
    for name in Paths(ROOT).compare.FIGURES:
        assert variables[f"fig_{name}_caption"] and variables[f"fig_{name}_alt"]
    assert "Bug: baseline 0.700, current 0.500" in variables["fig_kappa_alt"]
    assert built.metrics == {"baseline": "b", "issues": {"baseline": 3, "current": 3,
                                                         "change": 0},
                             "projects": {"new": 0, "removed": 0, "changed": 0,
                                          "unchanged": 1},
                             "kappa_change": {"Bug": -0.2}}


def test_committed_baseline_is_aggregates_only():
    base = load_baseline(BASELINE)
    assert base["issues"] == paper("table1.total_reports")
    assert len(base["projects"]) == paper("table1.projects")
    assert {k: round(v["value"], 3) for k, v in base["kappa"].items()} == {
        t: paper(f"agreement.kappa.{t.lower()}") for t in ("Bug", "Question", "Requirement")}
    text = BASELINE.read_text()
    assert "https://" not in text.replace(str(base.get("source")), "")


def test_a_missing_or_incomplete_baseline_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="baseline snapshot not found"):
        load_baseline(tmp_path / "none.json")
    artifacts.write_json(tmp_path / "b.json", {"label": "x", "issues": 1})
    with pytest.raises(InputError, match="lacks projects, years, types"):
        load_baseline(tmp_path / "b.json")


def test_snapshot_command_writes_a_snapshot_the_stage_reads(tmp_path, capsys):
    issues = issues_of({"pytorch": {2023: 3}, "vllm": {2024: 2}})
    artifacts.write_parquet(tmp_path / "issues.parquet", issues)
    artifacts.write_json(tmp_path / "prov.json", {"commit": "abcdef0123", "source": "mirror"})
    artifacts.write_json(tmp_path / "agreement.json", {"fleiss_kappa": {
        "Bug": {"value": 0.1234567, "ci_low": 0.1, "ci_high": 0.2}}})
    out = tmp_path / "snap.json"
    assert main(["snapshot", "--issues", str(tmp_path / "issues.parquet"),
                 "--provenance", str(tmp_path / "prov.json"),
                 "--agreement", str(tmp_path / "agreement.json"), "--out", str(out)]) == 0
    assert "baseline upstream-abcdef0 written" in capsys.readouterr().out
    base = load_baseline(out)
    assert base == snapshot(issues, {"commit": "abcdef0123", "source": "mirror"},
                            {"Bug": {"value": 0.1234567, "ci_low": 0.1, "ci_high": 0.2}},
                            "upstream-abcdef0")
    assert base["kappa"]["Bug"]["value"] == 0.123457 and base["annotators"] == 7
    assert main(["snapshot", "--issues", str(tmp_path / "issues.parquet"),
                 "--agreement", str(tmp_path / "none.json"), "--out", str(out)]) == 1
    assert "agreement metrics not found" in capsys.readouterr().err


@needs_mirror
def test_baseline_matches_a_fresh_run_on_the_mirror(taxonomy):
    from tests.support.mirror import MIRROR

    issues = clean_dump(MIRROR, taxonomy, Projects.load(Paths(ROOT).projects_file)).issues
    base = load_baseline(BASELINE)
    cur = compare.count_summary(issues)
    assert {k: cur[k] for k in ("issues", "projects", "years", "types", "annotators")} == {
        k: base[k] for k in ("issues", "projects", "years", "types", "annotators")}


def test_figures_draw_a_type_missing_from_one_run_and_vars_mark_it_missing():
    import matplotlib.pyplot as plt

    base = summary({"pytorch": {2023: 3}}) | {"label": "b", "kappa": {
        "Bug": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8}}}
    agreement = {"fleiss_kappa": {"Question": {"value": 0.5, "ci_low": None,
                                               "ci_high": None}}}
    result = compare_result(issues_of({"pytorch": {2023: 2}, "vllm": {2024: 1}}), PROJECTS,
                            base, agreement, "a.json")
    assert result.kappa["type"].tolist() == ["Bug", "Question"]
    variables = outputs.website_vars(result)
    assert variables["kappa_bug_current"] == "–" and variables["kappa_bug_change"] == "–"
    assert variables["kappa_question_current"] == "0.500"
    assert variables["kappa_question_baseline"] == variables["kappa_requirement_current"] == "–"
    assert result.kappa.loc[0, "current_source"] == ""  # Bug: not in this run
    for name, draw in outputs.figures(result).items():
        fig = draw()
        assert fig.axes, name
        plt.close(fig)


def test_a_comparison_without_project_changes_says_so_in_one_sentence():
    assert outputs.projects_sentence([], [], []) == (
        "No project was added or removed, and every project has the baseline's counts.")
    assert outputs.projects_sentence(["sglang"], [], ["PyTorch"]) == (
        "New projects: sglang; removed projects: none; projects whose counts changed: "
        "PyTorch.")
