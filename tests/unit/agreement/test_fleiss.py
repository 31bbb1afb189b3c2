"""Fleiss' kappa step by step (analysis.agreement.fleiss), against the published worked
examples (Fleiss 1971; Wikipedia's) and the stage's own estimator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import fleiss
from analysis.agreement.estimators import fleiss_kappa
from tests.unit.agreement.synthetic import (
    FLEISS_1971,
    WIKIPEDIA_COUNTS,
    codes_from_counts,
    random_codes,
)


def labels(codes: np.ndarray, missing: int = -1) -> pd.DataFrame:
    """Integer codes as a rating matrix of labels ``c0``, ``c1``, ... (NaN: no rating)."""
    cells = np.where(codes == missing, None, np.char.add("c", codes.astype(str)))
    frame = pd.DataFrame(cells, columns=[f"annotator_{i + 1}" for i in range(codes.shape[1])])
    return frame.where(frame.notna(), np.nan)


def issues_of(codes: np.ndarray, types: list[str]) -> pd.DataFrame:
    return labels(codes).assign(type=types, project="p")


def test_wikipedia_worked_example_step_by_step():
    counts = fleiss.category_counts(labels(codes_from_counts(WIKIPEDIA_COUNTS)),
                                    [f"c{j}" for j in range(5)])
    assert counts.to_numpy().tolist() == WIKIPEDIA_COUNTS.tolist()
    p_i = fleiss.issue_agreement(counts)
    assert p_i.round(3).tolist() == [1.0, 0.253, 0.308, 0.440, 0.330, 0.462, 0.242, 0.176,
                                     0.286, 0.286]
    shares = fleiss.category_shares(counts)
    assert shares.round(3).tolist() == [0.143, 0.2, 0.279, 0.15, 0.229]
    chance = fleiss.chance_agreement(shares)
    assert round(p_i.mean(), 3) == 0.378 and round(chance, 3) == 0.213
    assert round(fleiss.kappa(p_i, chance), 3) == 0.210


def test_fleiss_1971_worked_example_step_by_step():
    steps = fleiss.fleiss_steps(labels(FLEISS_1971))
    # Fleiss (1971), Table 2: p_j of the five diagnoses; kappa 0.430
    assert steps.shares.round(3).tolist() == [0.144, 0.144, 0.167, 0.306, 0.239]
    assert steps.counts.shape == (30, 5) and (steps.counts.sum(axis=1) == 6).all()
    assert round(steps.kappa, 3) == 0.430


@pytest.mark.parametrize("seed", [0, 1])
def test_steps_give_the_stage_estimator_on_complete_rows(seed):
    codes = random_codes(300, 4, 6, seed, missing=0.1)
    steps = fleiss.fleiss_steps(labels(codes))
    est = fleiss_kappa(codes, 6)
    assert len(steps.complete) == est.n == int((codes >= 0).all(axis=1).sum())
    assert steps.kappa == pytest.approx(est.value, abs=1e-12)
    assert steps.observed == pytest.approx(est.observed, abs=1e-12)
    assert steps.chance == pytest.approx(est.chance, abs=1e-12)


def test_rating_matrix_is_one_type_and_every_annotator_column():
    issues = issues_of(np.array([[0, 1, 1], [2, 2, -1], [0, 0, 0]]), ["Bug", "Bug", "Question"])
    issues = issues[["type", "annotator_2", "project", "annotator_1", "annotator_3"]]
    matrix = fleiss.rating_matrix(issues, "Bug")
    assert matrix.columns.tolist() == ["annotator_1", "annotator_2", "annotator_3"]
    assert matrix.index.tolist() == [0, 1]
    assert matrix.iloc[0].tolist() == ["c0", "c1", "c1"] and pd.isna(matrix.iloc[1, 2])
    assert fleiss.complete_rows(matrix).index.tolist() == [0]
    assert fleiss.rating_matrix(issues, "Requirement").empty


def test_rating_matrix_of_categorical_labels_is_strings():
    issues = issues_of(np.array([[0, 1], [1, -1]]), ["Bug", "Bug"])
    issues["annotator_1"] = issues["annotator_1"].astype("category")
    matrix = fleiss.rating_matrix(issues, "Bug")
    assert matrix.iloc[:, 0].tolist() == ["c0", "c1"]


def test_category_counts_orders_known_categories_then_others_and_drops_unused():
    matrix = pd.DataFrame({"annotator_1": ["b", "z"], "annotator_2": ["a", "b"]})
    counts = fleiss.category_counts(matrix, ["b", "a", "unused"])
    assert counts.columns.tolist() == ["b", "a", "z"]
    assert counts.to_numpy().tolist() == [[1, 1, 0], [1, 0, 1]]


def test_unequal_ratings_per_issue_is_refused():
    counts = pd.DataFrame([[2, 1], [1, 1]])
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss.issue_agreement(counts)


def test_kappa_is_not_defined_without_chance_room_or_issues():
    one_label = fleiss.fleiss_steps(pd.DataFrame({"a": ["x", "x"], "b": ["x", "x"]}))
    assert one_label.chance == 1.0 and np.isnan(one_label.kappa)
    assert np.isnan(fleiss.kappa(pd.Series([1.0]), 0.5))  # one issue
    nothing = fleiss.fleiss_steps(pd.DataFrame({"a": ["x", None], "b": [None, "y"]}))
    assert nothing.complete.empty and np.isnan(nothing.kappa)


def test_kappa_table_has_one_row_per_type_with_issues():
    codes = np.array([[0, 0, 0], [1, 1, 0], [0, 1, -1], [2, 2, 2], [3, 3, 2], [2, 2, 2]])
    issues = issues_of(codes, ["Bug", "Bug", "Bug", "Question", "Question", "Question"])
    table = fleiss.kappa_table(issues, ["Question", "Requirement", "Bug"])
    assert table["type"].tolist() == ["Question", "Bug"]
    assert table["issues"].tolist() == [3, 3] and table["issues_complete"].tolist() == [3, 2]
    for name, rows in (("Question", [3, 4, 5]), ("Bug", [0, 1])):
        expected = fleiss_kappa(codes[rows], 4)
        row = table.set_index("type").loc[name]
        assert row["kappa"] == pytest.approx(expected.value, abs=1e-12)
        assert row["chance"] == pytest.approx(expected.chance, abs=1e-12)
