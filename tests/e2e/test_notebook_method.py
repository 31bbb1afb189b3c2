"""The executed notebooks show the method: each headline number of the paper (Table I's
total, the three Fleiss' kappas, the number of sub-themes) is computed in a cell of its
stage's notebook, and the cell shows the value the stage's outputs hold. Read in the small
shared pipeline run, in the notebooks the site serves."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis.core.paths import Paths
from tests.support.notebooks import cells_computing, numbers_on_line

pytestmark = pytest.mark.slow


def executed(work, stem: str):
    """The site's copy of an executed notebook (the report stage puts it there)."""
    path = work / "report" / "_site" / "notebooks" / f"{stem}.ipynb"
    assert path.is_file(), f"{path} is missing: the site does not serve the notebook"
    return path


def reproduced(work, stage: str, claim: str):
    return json.loads(Paths(work).stage(stage).reproduced.read_text())[claim]["value"]


def the_cell(work, stem: str, call: str) -> str:
    cells = cells_computing(executed(work, stem), call)
    assert len(cells) == 1, f"{stem}: {len(cells)} cells compute {call!r}, expected one"
    return cells[0][1]


def test_table1_total_is_computed_in_a_cell(small_run):
    work = small_run.project
    total = reproduced(work, "table1", "table1.total_reports")
    assert total == sum(len(rows) for rows in small_run.written.values())
    assert the_cell(work, "02_table1", "total_reports = ").strip() == str(total)


def test_the_three_kappas_are_computed_in_a_cell(small_run):
    work = small_run.project
    shown = the_cell(work, "04_agreement", "fleiss.kappa_table(")
    headline = pd.read_csv(Paths(work).agreement.table("headline.csv")).set_index("group")
    types = [t for t in ("Question", "Requirement", "Bug") if t in headline.index]
    assert len(types) == 3
    for name in types:
        assert any(abs(n - headline.loc[name, "kappa"]) < 5e-5
                   for n in numbers_on_line(shown, name)), (name, shown)


def test_one_kappa_is_taken_step_by_step(small_run):
    work = small_run.project
    stem = "04_agreement"
    for call in ("fleiss.rating_matrix(", "fleiss.category_counts(",
                 "fleiss.issue_agreement(", "fleiss.category_shares(",
                 "fleiss.kappa(agreement_per_issue, chance)"):
        assert the_cell(work, stem, call).strip(), f"{call} shows nothing"


def test_subtheme_count_is_computed_in_a_cell(small_run):
    work = small_run.project
    count = reproduced(work, "taxonomy", "taxonomy.subthemes")
    assert the_cell(work, "03_taxonomy", "compute.subtheme_count(").strip() == str(count)
