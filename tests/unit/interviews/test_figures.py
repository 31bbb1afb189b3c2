"""The interview figures draw from the stage's result."""

from __future__ import annotations

import matplotlib.pyplot as plt

from analysis.interviews.figures import heatmap_figure, theme_counts_figure


def texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(match=lambda a: hasattr(a, "get_text"))]


def test_heatmap_marks_unknown_nodes_and_groups(result):
    fig = heatmap_figure(result.matrix, result.data.codebook, result.taxonomy)
    shown = texts(fig)
    assert "Users (4)" in shown and "Developers (1)" in shown
    assert any(t.startswith("C.11 (not in taxonomy) *") for t in shown)
    assert any("not in data/taxonomy.yaml" in t for t in shown)
    assert any(t.endswith("(CodeBook.csv)") for t in shown)
    plt.close(fig)


def test_theme_counts_figure(result):
    fig = theme_counts_figure(result.theme_counts, result.taxonomy)
    ax = fig.axes[0]
    assert len(ax.get_yticklabels()) == len(result.theme_counts)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Users", "Developers"]
    assert any("not in data/taxonomy.yaml" in t for t in texts(fig))
    plt.close(fig)
