"""Roles to categories, the other readings of the roles, the session length."""

from __future__ import annotations

import pandas as pd

from analysis.interviews.roles import (
    compositions,
    matching_categories,
    role_mappings,
    role_table,
    session_minutes,
)

CATEGORIES = [{"key": "training", "type": "Developer", "pattern": "training"},
              {"key": "inference", "type": "Developer", "pattern": "inference"},
              {"key": "deployment", "type": "Developer", "pattern": "deployment"}]


def test_every_matching_category_in_params_order():
    assert matching_categories("Inference and Deployment Engineer", "Developer",
                               CATEGORIES) == ["inference", "deployment"]
    assert matching_categories("Inference", "User", CATEGORIES) == []


def test_compositions_put_everyone_in_the_first_category_first():
    assert list(compositions(2, 2)) == [(2, 0), (1, 1), (0, 2)]
    assert len(list(compositions(3, 3))) == 10


def test_role_mappings_list_every_reading_and_its_counts():
    bg = pd.DataFrame({"type": ["Developer"] * 3,
                       "role_raw": ["D-Inference and Deployment Engineer"] * 2 + ["D-Training"],
                       "role_title": ["Inference and Deployment Engineer"] * 2 + ["Training"],
                       "role_category": ["inference", "inference", "training"]})
    roles = role_table(bg, CATEGORIES)
    assert roles["participants"].tolist() == [2, 1]
    assert roles["matching"].tolist() == ["inference, deployment", "training"]
    m = role_mappings(roles, ["training", "inference", "deployment"])
    wide = m.pivot(index="mapping", columns="category", values="participants")
    assert wide[["training", "inference", "deployment"]].values.tolist() == [
        [1, 2, 0], [1, 1, 1], [1, 0, 2]]
    assert m.loc[m["mapping"] == 0, "description"].eq("").all()
    assert m.loc[m["mapping"] == 1, "description"].iloc[0] == (
        "Inference and Deployment Engineer: 1 inference, 1 deployment")
    assert role_mappings(roles, ["training"], limit=2)["mapping"].nunique() == 2


def test_session_minutes_from_the_guideline():
    text = "# Guide\n\nSemi-structured, 30–40 minutes per session.\n"
    assert session_minutes(text) == (30, 40, 3)
    assert session_minutes("about an hour") is None
