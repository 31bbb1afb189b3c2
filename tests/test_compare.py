"""Baseline comparison: kappa maths, the agreement-metrics reader, the change tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import needs_mirror
from dumps import Project, write_dump
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from analysis import artifacts, compare
from analysis.clean import clean_dump
from analysis.config import ROOT

BASELINE = ROOT / "data/baseline/upstream-2fba316.json"


def test_fleiss_kappa_matches_statsmodels_and_fleiss_1971():
    rng = np.random.default_rng(1)
    counts = rng.multinomial(6, [0.5, 0.3, 0.2], size=40)
    assert compare.fleiss_kappa(counts) == pytest.approx(sm_fleiss(counts), abs=1e-12)
    # Fleiss (1971), Table 1 example as given in the Wikipedia article: kappa = 0.210
    table = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
                      [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
                      [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    assert round(compare.fleiss_kappa(table), 3) == 0.210
    assert math.isnan(compare.fleiss_kappa(np.array([[3, 0], [3, 0]])))  # one category
    assert math.isnan(compare.fleiss_kappa(np.array([[2, 1], [1, 1]])))  # unequal raters


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    counts = np.random.default_rng(2).multinomial(5, [0.7, 0.2, 0.1], size=300)
    a = compare.bootstrap_kappa(counts, 400, seed=3)
    assert a == compare.bootstrap_kappa(counts, 400, seed=3)
    assert a != compare.bootstrap_kappa(counts, 400, seed=4)
    assert a[0] < compare.fleiss_kappa(counts) < a[1]


def test_headline_kappas_use_complete_rows_per_type(tmp_path, taxonomy, projects_meta):
    write_dump(tmp_path / "d", [Project("pytorch", {2024: 60}, annotators=5)])
    issues = clean_dump(tmp_path / "d", taxonomy, projects_meta).issues
    issues.loc[0, "annotator_1"] = None
    k = compare.headline_kappas(issues, n_boot=50, seed=1)
    assert set(k) == set(issues["type"])
    bug = issues[(issues["type"] == "Bug")]
    assert k["Bug"]["n_issues"] == len(bug) - int(issues.loc[0, "type"] == "Bug")
    assert k["Bug"]["n_raters"] == 5 and -1 <= k["Bug"]["value"] <= 1


@pytest.mark.parametrize("metrics", [
    {"fleiss_kappa": {"Bug": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8}}},
    {"fleiss_kappa": {"bug": {"kappa": 0.7, "ci": [0.6, 0.8]}}},
    {"fleiss_kappa.bug": 0.7, "fleiss_kappa.bug.lower": 0.6, "fleiss_kappa.bug.upper": 0.8},
    {"headline": {"kappa": {"Bug": {"estimate": 0.7, "ci_low": 0.6, "ci_high": 0.8}}},
     "alpha": {"Bug": 0.1}},
    {"kappa": {"Bug": 0.7, "Bug_ci": 1}, "fleiss_kappa": {"Bug": {"value": 0.7, "lo": 0.6,
                                                                  "hi": 0.8}}},
])
def test_agreement_metrics_are_read_in_their_usual_layouts(metrics):
    got = compare.kappas_from_agreement(metrics, ["Bug", "Question"])
    assert set(got) == {"Bug"}
    assert (got["Bug"]["value"], got["Bug"]["ci_low"], got["Bug"]["ci_high"]) == (0.7, 0.6,
                                                                                   0.8)


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
    assert variables["projects_new"] == "sglang"
    assert variables["years_new"] == "2026"
    assert variables["identical"] == "no"
    assert variables["kappa_bug_change"] == "+0.050"
    assert variables["annotators_current"] == 5


def test_committed_baseline_is_aggregates_only():
    base = compare.load_baseline(BASELINE)
    assert base["issues"] == 38742 and len(base["projects"]) == 11
    assert {k: round(v["value"], 3) for k, v in base["kappa"].items()} == {
        "Bug": 0.717, "Question": 0.757, "Requirement": 0.755}
    text = BASELINE.read_text()
    assert "https://" not in text.replace(str(base.get("source")), "")


@needs_mirror
def test_baseline_matches_a_fresh_run_on_the_mirror(taxonomy, projects_meta):
    from conftest import MIRROR

    issues = clean_dump(MIRROR, taxonomy, projects_meta).issues
    base = compare.load_baseline(BASELINE)
    cur = compare.count_summary(issues)
    assert {k: cur[k] for k in ("issues", "projects", "years", "types", "annotators")} == {
        k: base[k] for k in ("issues", "projects", "years", "types", "annotators")}


@pytest.mark.slow
@pytest.mark.parametrize("with_agreement", [False, True])
def test_compare_notebook_on_a_synthetic_run(tmp_path, taxonomy, projects_meta,
                                             with_agreement):
    from analysis.nbrun import run

    write_dump(tmp_path / "d", [Project("pytorch", {2025: 20, 2026: 10}, annotators=5),
                                Project("sglang", {2026: 15}, annotators=5)])
    issues = clean_dump(tmp_path / "d", taxonomy, projects_meta).issues
    artifacts.write_parquet(tmp_path / "issues.parquet", issues)
    agreement = tmp_path / "agreement.json"
    if with_agreement:
        artifacts.write_json(agreement, {"fleiss_kappa": {
            "Bug": {"value": 0.5, "ci_low": 0.4, "ci_high": 0.6}}})
    out = tmp_path / "out"
    params = {"issues_parquet": str(tmp_path / "issues.parquet"), "baseline": str(BASELINE),
              "agreement_metrics": str(agreement), "bootstrap": 100,
              "tables_prefix": f"{out}/compare_", "figures_prefix": f"{out}/fig_",
              "vars_json": str(out / "vars.json"), "metrics_json": str(out / "metrics.json")}
    assert run(ROOT / "notebooks/06_compare.py", out / "nb.ipynb", params) == 0
    variables = artifacts.read_json(out / "vars.json")
    assert variables["projects_new"] == "sglang"
    assert variables["years_new"] == "2026"
    assert variables["annotators_current"] == 5
    kappa = pd.read_csv(out / "compare_kappa.csv").set_index("type")
    if with_agreement:
        assert kappa.loc["Bug", "current"] == 0.5 and "agreement" in variables[
            "kappa_source"]
    else:
        assert kappa["current"].notna().all()
    assert (out / "fig_counts.png").stat().st_size and (out / "fig_kappa.svg").stat().st_size
