"""The What changed page's includes (:mod:`analysis.report.pages.changes`)."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import changes
from analysis.report.pages.base import CP


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
