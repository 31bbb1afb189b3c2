"""Baseline comparison: kappa maths, the agreement-metrics reader, the change tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.clean.issues import clean_dump
from analysis.compare import changes as compare
from analysis.core import artifacts
from analysis.core.config import ROOT
from analysis.core.errors import InputError
from tests.support.dumps import Project, write_dump
from tests.support.mirror import needs_mirror, paper

BASELINE = ROOT / "data/baseline/upstream-2fba316.json"


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


def summary(projects: dict[str, dict[str, int]], annotators: int = 7) -> dict:
    rows = []
    for p, years in projects.items():
        for y, n in years.items():
            rows += [{"project": p, "year": y, "type": "Bug"}] * n
    frame = pd.DataFrame(rows)
    for i in range(1, annotators + 1):
        frame[f"annotator_{i}"] = "C.1"
    return compare.count_summary(frame)


def test_change_tables_name_new_removed_and_changed():
    base = summary({"pytorch": {2023: 3, 2024: 2}, "vllm": {2024: 4}}) | {"label": "b"}
    cur = summary({"pytorch": {2024: 2, 2026: 5}, "sglang": {2026: 1}}, annotators=5)
    projects = compare.compare_projects(base, cur, {"pytorch": {"name": "PyTorch",
                                                                "order": 1}})
    assert projects.set_index("project")["status"].to_dict() == {
        "pytorch": "changed", "sglang": "new", "vllm": "removed"}
    assert projects["project"].tolist()[0] == "pytorch"
    years = compare.compare_years(base, cur).set_index("year")
    assert years.loc["2026", "status"] == "new" and years.loc["2023", "status"] == "removed"
    cells = compare.compare_cells(base, cur)
    row = cells[(cells["project"] == "pytorch") & (cells["key"] == "2026")].iloc[0]
    assert (row["baseline"], row["current"], row["change"]) == (0, 5, 5)
    kappa = compare.compare_kappas({"Bug": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8}},
                                   {"Bug": {"value": 0.75, "ci_low": 0.7, "ci_high": 0.9}},
                                   "test")
    assert kappa.loc[0, "change"] == 0.05 and kappa.loc[0, "intervals_overlap"]
    metrics, variables = compare.summarise(base, cur, projects, compare.compare_years(
        base, cur), compare.compare_types(base, cur), kappa, "test")
    assert metrics["projects"] == {"new": 1, "removed": 1, "changed": 1, "unchanged": 0}
    assert metrics["issues"] == {"baseline": 9, "current": 8, "change": -1}
    assert variables["projects_new_count"] == 1
    assert variables["projects_text"].startswith("New projects: sglang;")
    assert variables["years_new"] == "2026"
    assert variables["identical"] == "no"
    assert variables["kappa_bug_change"] == "+0.050"
    assert variables["annotators_current"] == 5


def test_committed_baseline_is_aggregates_only():
    base = compare.load_baseline(BASELINE)
    assert base["issues"] == paper("table1.total_reports")
    assert len(base["projects"]) == paper("table1.projects")
    assert {k: round(v["value"], 3) for k, v in base["kappa"].items()} == {
        t: paper(f"agreement.kappa.{t.lower()}") for t in ("Bug", "Question", "Requirement")}
    text = BASELINE.read_text()
    assert "https://" not in text.replace(str(base.get("source")), "")


@needs_mirror
def test_baseline_matches_a_fresh_run_on_the_mirror(taxonomy, projects_meta):
    from tests.support.mirror import MIRROR

    issues = clean_dump(MIRROR, taxonomy, projects_meta).issues
    base = compare.load_baseline(BASELINE)
    cur = compare.count_summary(issues)
    assert {k: cur[k] for k in ("issues", "projects", "years", "types", "annotators")} == {
        k: base[k] for k in ("issues", "projects", "years", "types", "annotators")}


@pytest.mark.slow
def test_compare_notebook_on_a_synthetic_run(tmp_path, taxonomy, projects_meta):
    from analysis.tools.nbrun import run

    write_dump(tmp_path / "d", [Project("pytorch", {2025: 20, 2026: 10}, annotators=5),
                                Project("sglang", {2026: 15}, annotators=5)])
    issues = clean_dump(tmp_path / "d", taxonomy, projects_meta).issues
    artifacts.write_parquet(tmp_path / "issues.parquet", issues)
    agreement = tmp_path / "agreement.json"
    artifacts.write_json(agreement, {"fleiss_kappa": {
        "Bug": {"value": 0.5, "ci_low": 0.4, "ci_high": 0.6}}})
    out = tmp_path / "out"
    params = {"issues_parquet": str(tmp_path / "issues.parquet"), "baseline": str(BASELINE),
              "agreement_metrics": str(agreement),
              "tables_prefix": f"{out}/compare_", "figures_prefix": f"{out}/fig_",
              "vars_json": str(out / "vars.json"), "metrics_json": str(out / "metrics.json")}
    assert run(ROOT / "notebooks/06_compare.py", out / "nb.ipynb", params) == 0
    variables = artifacts.read_json(out / "vars.json")
    assert variables["projects_text"].startswith("New projects: sglang;")
    assert variables["years_new"] == "2026"
    assert variables["annotators_current"] == 5
    kappa = pd.read_csv(out / "compare_kappa.csv").set_index("type")
    assert kappa.loc["Bug", "current"] == 0.5 and "agreement" in variables["kappa_source_text"]
    assert kappa.loc["Bug", "baseline"] == pytest.approx(
        compare.load_baseline(BASELINE)["kappa"]["Bug"]["value"])
    assert (out / "fig_counts.png").stat().st_size and (out / "fig_kappa.svg").stat().st_size
