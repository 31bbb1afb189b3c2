"""The What changed page's includes (:mod:`analysis.report.pages.changes`)."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import changes
from analysis.report.pages.base import CP, write_includes
from tests.support.reads import undeclared_reads


def test_counts_with_status_and_signed_changes(project):
    project.write(CP("projects.csv"), pd.DataFrame({
        "project": ["vllm", "jax"], "name": ["vLLM", None], "status": ["changed", "new"],
        "baseline": [10, None], "current": [1234, 3], "change": [1224, None],
        "change_percent": [12240.0, None]}))
    out = changes.compare_projects(project.inputs())
    assert ">vLLM<" in out and ">jax<" in out
    assert '<span class="status-badge st-rounding">changed</span>' in out
    assert '<span class="status-badge st-exact">new</span>' in out
    assert ">+1,224<" in out and ">+12240.0%<" in out and ">1,234<" in out
    assert out.count(">–<") == 3  # baseline, change and change % of the new project


def test_kappas_with_intervals_and_overlap(project):
    project.write(CP("kappa.csv"), pd.DataFrame({
        "type": ["Bug", "Question"], "baseline": [0.7175, 0.75], "baseline_ci_low": [0.71, 0.7],
        "baseline_ci_high": [0.72, 0.8], "current": [0.7175, None],
        "current_ci_low": [0.71, None], "current_ci_high": [0.72, None], "change": [0.0, None],
        "intervals_overlap": [True, None]}))
    out = changes.compare_kappa(project.inputs())
    assert ">0.718<" in out and ">0.710–0.720<" in out and ">+0.000<" in out
    assert ">yes<" in out and out.count(">–<") == 4


def test_cells_list_only_what_changed(project):
    cells = pd.DataFrame({"project": ["p", "p"], "dimension": ["year", "type"],
                          "key": ["2023", "Bug"], "status": ["unchanged", "changed"],
                          "baseline": [1, 2], "current": [1, 3], "change": [0, 1],
                          "change_percent": [0.0, 50.0]})
    project.write(CP("cells.csv"), cells)
    out = changes.compare_cells(project.inputs())
    assert "The 1 of 2 counts that changed" in out and ">+50.0%<" in out and ">2023<" not in out
    project.write(CP("cells.csv"), cells.iloc[:1])
    assert changes.compare_cells(project.inputs()).startswith("None of the 1 project")


def test_years_and_types(project):
    project.write(CP("years.csv"), pd.DataFrame({
        "year": [2025], "status": ["removed"], "baseline": [5], "current": [None],
        "change": [None], "change_percent": [None]}))
    assert '<span class="status-badge st-differs">removed</span>' in changes.compare_years(
        project.inputs())
    project.write(CP("types.csv"), pd.DataFrame({
        "type": ["Bug"], "status": ["unchanged"], "baseline": [5], "current": [5],
        "change": [0], "change_percent": [0.0], "baseline_share": [54.62],
        "current_share": [54.62]}))
    types = changes.compare_types(project.inputs())
    assert '<span class="status-badge st-none">unchanged</span>' in types
    assert types.count(">54.6%<") == 2 and ">+0<" in types and ">+0.0%<" in types


def test_a_study_adds_its_batches_drift_and_agreement_to_the_includes(project):
    """On a study the includes carry the additions, the drift and the agreement per batch;
    without the study tables (the release) they are as before."""
    from analysis.report.pages.base import AG
    project.write(CP("cells.csv"), pd.DataFrame({
        "project": ["vllm"], "dimension": ["year"], "key": ["2026"], "status": ["new"],
        "baseline": [0], "current": [3], "change": [3], "change_percent": [None]}))
    project.write(CP("types.csv"), pd.DataFrame({
        "type": ["Bug"], "status": ["changed"], "baseline": [5], "current": [8],
        "change": [3], "change_percent": [60.0], "baseline_share": [50.0],
        "current_share": [60.0]}))
    project.write(CP("kappa.csv"), pd.DataFrame({
        "type": ["Bug"], "baseline": [0.7], "baseline_ci_low": [0.6], "baseline_ci_high": [0.8],
        "current": [0.7], "current_ci_low": [0.6], "current_ci_high": [0.8], "change": [0.0],
        "intervals_overlap": [True]}))
    before = [changes.compare_cells(project.inputs()), changes.compare_types(project.inputs()),
              changes.compare_kappa(project.inputs())]
    assert not any("batch" in part.lower() for part in before)
    assert changes.compare_drift(project.inputs()) == ""
    assert changes.study_additions(project.inputs()) == ""
    assert changes.study_agreement(project.inputs()) == ""
    project.write(CP("additions.csv"), pd.DataFrame({
        "batch": ["2026-01", "2026-01"], "project": ["vllm", "pytorch"],
        "name": ["vLLM", "PyTorch"], "year": [2026, 2026], "issues": [2, 1]}))
    project.write(CP("drift.csv"), pd.DataFrame({
        "batch": ["2026-01"] * 2, "code": ["C.1", "A.1"], "theme": ["<Crash>", "Q"],
        "type": ["Bug", "Question"], "release": [5, 0], "release_share": [100.0, 0.0],
        "batch_issues": [2, 1], "batch_share": [66.7, 33.3],
        "batch_share_low": [20.8, 6.1], "batch_share_high": [93.9, 79.2],
        "expected": [3.0, 0.0], "difference": [-33.3, 33.3],
        "difference_low": [-80.1, -2.0], "difference_high": [5.0, 80.1],
        "p_value": [0.00001, 0.3], "p_holm": [0.03, 0.3],
        "detectable_low": [None, None], "detectable_high": [None, 55.0],
        "verdict": ["too_few", "too_few"], "changed": [False, False]}))
    project.write(CP("drift_tests.csv"), pd.DataFrame({
        "batch": ["2026-01"], "reports": [3], "themes": [2], "test": ["monte_carlo"],
        "statistic": [4.5], "dof": [1], "p_value": [0.034], "resamples": [10000],
        "cells": [4], "expected_under_1": [1], "expected_under_5": [4],
        "changed_themes": [0], "too_few_themes": [2], "min_reports": [5]}))
    project.write(AG("batches.csv"), pd.DataFrame({
        "batch": ["release", "2026-01", "all batches"], "issues": [10, 3, 13],
        "annotators": [7, 3, 10], "label_columns": ["Label1", "Label8", "Label1"],
        "issues_complete": [10, 3, 0], "fleiss_kappa": [0.7, 0.5, None],
        "fleiss_kappa_ci_low": [0.6, 0.1, None], "fleiss_kappa_ci_high": [0.8, 0.9, None],
        "fleiss_kappa_generalised": [0.7, 0.5, 0.69],
        "fleiss_kappa_generalised_ci_low": [0.6, 0.1, 0.6],
        "fleiss_kappa_generalised_ci_high": [0.8, 0.9, 0.78],
        "krippendorff_alpha": [0.7, 0.5, 0.69], "krippendorff_alpha_ci_low": [None] * 3,
        "krippendorff_alpha_ci_high": [None] * 3, "gwet_ac1": [0.7, 0.5, 0.7],
        "gwet_ac1_ci_low": [None] * 3, "gwet_ac1_ci_high": [None] * 3, "note": ["", "", "x"]}))
    assert changes.compare_cells(project.inputs()) == before[0]  # the additions apart
    added = changes.study_additions(project.inputs())
    assert added.startswith("The new batches (2026-01) add 3 labelled issues")
    assert ">vLLM<" in added and ">PyTorch<" in added and ">2026<" in added
    assert added.rstrip().endswith(
        "([tables/compare/additions.csv](downloads/tables/compare/additions.csv))")
    assert "Drift" not in changes.compare_types(project.inputs())
    drift = changes.compare_drift(project.inputs())
    assert "Drift since the paper" in drift and "&lt;Crash&gt;" in drift
    assert "Monte-Carlo permutation test" in drift and "10,000 resamples" in drift
    assert "1 of 4 expected counts are under 1 and 4 under 5" in drift
    assert "fewer than 5 of its" in drift  # the minimum, on the page
    assert ">too few<" in drift and "[-80.0" not in drift and "[-80.1, +5.0]" in drift
    assert "66.7% (20.8–93.9)" in drift and "&gt; 55.0%" in drift
    assert drift.rstrip().endswith(
        "[Source: notebooks/06_compare](notebooks/06_compare.qmd){.source-link}\n"
        "([tables/compare/drift.csv](downloads/tables/compare/drift.csv), "
        "[tables/compare/drift_tests.csv](downloads/tables/compare/drift_tests.csv))")
    assert "Agreement per batch" not in changes.compare_kappa(project.inputs())
    agreement = changes.study_agreement(project.inputs())
    assert "Agreement per batch" in agreement and ">all batches<" in agreement
    assert "(agreement.qmd#each-annotator-batch-by-batch)" in agreement  # each person's
    assert ">0.690<" in agreement and ">0.100–0.900<" in agreement
    assert agreement.rstrip().endswith(
        "[Source: notebooks/04_agreement](notebooks/04_agreement.qmd){.source-link}\n"
        "([tables/agreement/batches.csv](downloads/tables/agreement/batches.csv))")
    # every study table is an input the include declares, and written through its Inputs
    assert undeclared_reads(changes.INCLUDES, project.root) == {}
    made = write_includes(changes.INCLUDES, project.root)
    assert made["compare/drift.md"] == changes.compare_drift(project.inputs())


def test_the_shares_a_batch_could_detect_stay_within_0_and_100_percent():
    assert changes.detectable(2.14, 31.0) == "< 2.1% or > 31.0%"
    assert changes.detectable(0.0, 12.0) == "> 12.0%"  # no share lies below 0%
    assert changes.detectable(0.04, 99.97) == changes.MISSING  # shown as 0.0% and 100.0%
    assert changes.detectable(None, 100.0) == changes.MISSING


def test_a_monte_carlo_p_at_its_floor_is_an_upper_bound():
    floor = round(1 / 10_001, 6)  # as the drift tests' table stores it
    assert changes.monte_carlo_p_text(floor, 10_000) == "≤ 0.0001"
    assert changes.monte_carlo_p_text(1 / 501, 500) == "≤ 0.0020"
    assert changes.monte_carlo_p_text(0.0315, 10_000) == "= 0.0315"
    assert changes.monte_carlo_p_text(None, 10_000) == changes.MISSING
