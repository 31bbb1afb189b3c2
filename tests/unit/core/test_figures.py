"""Figures draw data text as plain, visible text (the house style turns mathtext off), and
long labels wrap in full. All on small synthetic tables; the agreement figures are tested
with their stage (tests/unit/agreement/test_figures.py)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from analysis.core.figures import STYLE, apply_style, wrap_label
from analysis.table1.figures import counts_figure
from analysis.taxonomy import figures as tf
from tests.support.figure_checks import HOSTILE, assert_plain_visible, svg_text

# -- plain, visible text ---------------------------------------------------------------

def test_style_turns_mathtext_off():
    assert STYLE["text.parse_math"] is False


def test_dollar_label_draws_without_mathtext_error():
    apply_style()  # before the figure: a text keeps the setting it was made with
    fig, ax = plt.subplots()
    ax.set_title("$$ and $m$")
    fig.canvas.draw()  # mathtext would raise ValueError on "$$"
    assert "$$ and $m$" in svg_text(fig)


def test_table1_figure_draws_a_hostile_project_name(tmp_path):
    table = pd.DataFrame({"name": [HOSTILE, "vLLM", "All projects"],
                          "kind": ["framework", "toolkit", ""], "2023": [5, 7, 12],
                          "2024": [3, 1, 4], "Question": [1, 1, 2], "Bug": [7, 7, 14],
                          "Total": [8, 8, 16]}, index=["p", "vllm", "Sum"])
    assert_plain_visible(counts_figure(table), tmp_path)


def test_taxonomy_figures_draw_hostile_names_plainly(tmp_path):
    counts = pd.DataFrame([[5, 1], [2, 7]], index=["A.1", "C.7"], columns=["p", "2024"])
    labels = {"A.1": "A.1 Unclear", "C.7": f"C.7 {HOSTILE}"}
    types = {"A.1": "Question", "C.7": "Bug"}
    assert_plain_visible(tf.share_heatmap(counts, labels, {"p": HOSTILE}, types, "t"),
                         tmp_path)
    assert_plain_visible(tf.year_shares_figure(counts, labels, types, "t"), tmp_path)
    resid = pd.DataFrame([[1.0, -2.0]], index=[HOSTILE], columns=["p", "q"])
    assert_plain_visible(tf.residuals_figure([(resid, {}, "a")], "t"), tmp_path)


def test_compare_figures_draw_hostile_names_plainly(tmp_path):
    from analysis.compare.figures import counts_figure, kappa_figure

    projects = pd.DataFrame({"name": [HOSTILE, "vLLM"], "baseline": [5, 7],
                             "current": [6, 7], "status": ["changed", "same"],
                             "change": [1, 0]})
    assert_plain_visible(counts_figure(projects, "v1"), tmp_path)
    kappa = pd.DataFrame({"type": [HOSTILE], "baseline": [0.8], "baseline_ci_low": [0.7],
                          "baseline_ci_high": [0.9], "current": [0.82],
                          "current_ci_low": [0.75], "current_ci_high": [0.88]})
    assert_plain_visible(kappa_figure(kappa, "$base$"), tmp_path)


@pytest.mark.filterwarnings("ignore:Tight layout not applied")  # a 2-row heatmap
def test_interview_figures_draw_hostile_names_plainly(taxonomy, tmp_path):
    from analysis.interviews.figures import heatmap_figure, theme_counts_figure

    matrix = pd.DataFrame([[1, 0], [0, 1]], index=["A.1", HOSTILE], columns=[HOSTILE, "D1"])
    codebook = pd.DataFrame({"participant": [HOSTILE, "D1"], "type": ["User", "Developer"]})
    assert_plain_visible(heatmap_figure(matrix, codebook, taxonomy), tmp_path)
    counts = pd.DataFrame({"node": ["A.1", HOSTILE], "users": [1, 0], "developers": [0, 1],
                           "users_percent": [50.0, 0.0], "developers_percent": [0.0, 50.0],
                           "in_taxonomy": [True, False]})
    assert_plain_visible(theme_counts_figure(counts, taxonomy), tmp_path)


# -- labels in full ---------------------------------------------------------------------

@pytest.mark.parametrize("text", ["short", "C.7  Interface Design and Configuration Management",
                                  "A.3  Unexpected Behavior and Weird Design",
                                  "x " + "y" * 60 + " z", "one two three four five six " * 4])
def test_wrap_label_keeps_every_word_in_few_even_lines(text):
    wrapped = wrap_label(text, 40)
    lines = wrapped.split("\n")
    assert " ".join(wrapped.split()) == " ".join(text.split())
    assert all(len(line) <= 40 or " " not in line for line in lines)
    assert len(lines) == max(1, -(-len(text) // 40)) or "y" * 60 in text
    if len(lines) == 2:
        assert min(map(len, lines)) >= len(text) // 4  # no lone last word
