"""The views of the cleaned files, and compute, the stage's entry point."""

from __future__ import annotations

from analysis.interviews.compute import (
    Interviews,
    guideline_questions,
    node_labels,
    node_matrix,
    participants_table,
    quotes_by_theme,
    theme_counts,
)


def test_views(data, taxonomy):
    matrix = node_matrix(data.codebook, data.nodes, taxonomy)
    assert list(matrix.index[:4]) == ["A.1", "A.2", "A.3", "A.4"]
    assert list(matrix.index).index("B.5") == list(matrix.index).index("B.4") + 1
    assert matrix.index[-1] == "X.9"
    assert set(matrix.to_numpy().ravel()) <= {0, 1}
    assert int(matrix.to_numpy().sum()) == len(data.nodes)
    assert list(matrix.columns) == ["U1", "U2", "U3", "D2", "D1"]  # D2 is typed User
    counts = theme_counts(data.codebook, data.nodes, taxonomy).set_index("node")
    assert counts.loc["C.11", "users"] == 1 and counts.loc["C.11", "developers"] == 1
    assert counts.loc["A.4", "total"] == 0
    assert counts.loc["B.5", "users"] == 1  # D2 is typed User in the codebook
    quotes = quotes_by_theme(data.codebook, data.nodes, taxonomy)
    assert len(quotes) == len(data.nodes)
    labels = node_labels(["A.1", "C.11"], taxonomy)
    assert labels["A.1"].startswith("A.1 ") and labels["C.11"] == "C.11 (not in taxonomy)"


def test_participant_table_publishes_no_gender(data):
    table = participants_table(data.background)
    assert not any("gender" in c for c in table.columns)
    text = " ".join(table["responsibilities"].dropna())
    assert " He " not in f" {text} " and "She" not in text
    assert "The participant builds test generators." in text
    assert list(table["type"])[:4] == ["User"] * 4


def test_groups(result):
    groups = result.groups.set_index("role_category")
    assert list(result.groups["type"]) == sorted(result.groups["type"], key=[
        "User", "Developer", "Unknown"].index)
    assert groups.loc["student", "participants"] == 3
    assert groups.loc["student", "years_mean"] == round((8 / 12 + 3 + 1.5) / 3, 4)
    assert groups.loc["manager", "years_max"] == 9.0


def test_guideline_questions(result):
    q = result.questions
    assert list(q["part"].unique()) == ["I", "II"]
    assert list(q["audience"]) == ["All", "All", "LLM Users", "Framework Developers",
                                   "Framework Developers"]
    assert q.iloc[1]["question"] == "Which frameworks do you use? _(e.g., PyTorch)_"
    assert list(q["number"]) == [1, 2, 1, 1, 2]
    assert guideline_questions("").empty


def test_compute_builds_every_view_from_the_cleaned_data(result, data, taxonomy):
    assert isinstance(result, Interviews) and result.taxonomy is taxonomy
    assert result.participants.equals(participants_table(data.background))
    assert result.matrix.equals(node_matrix(data.codebook, data.nodes, taxonomy))
    assert result.theme_counts.equals(theme_counts(data.codebook, data.nodes, taxonomy))
    assert result.quotes.equals(quotes_by_theme(data.codebook, data.nodes, taxonomy))
