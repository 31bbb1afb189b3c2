"""The agreement figures show what they claim: plain, visible names, full theme names,
one x-range for projects and years, a log dissent axis whose labels never overlap, a
percent colour bar, the same bytes on every run. All on small synthetic tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from analysis.agreement import figures as af
from analysis.core.figures import save_figure
from tests.support.figure_checks import HOSTILE, assert_plain_visible, texts

# -- synthetic inputs --------------------------------------------------------------------

def statistics(project: str = "pytorch") -> pd.DataFrame:
    rows = []
    for grouping, group, value in (("all", "all issues", 0.76), ("type", "Bug", 0.8),
                                   ("type", "Question", 0.9), ("project", project, 0.55),
                                   ("project", "vllm", 0.8), ("year", "2023", 0.74),
                                   ("year", "2024", 0.76), ("year", "2025", 0.80)):
        for stat in af.STAT_STYLE:
            rows.append({"grouping": grouping, "group": group, "statistic": stat,
                         "value": value, "boot_low": value - 0.01, "boot_high": value + 0.01,
                         "issues": 100})
    return pd.DataFrame(rows)


def categories(name: str = "Interface Design and Configuration Management") -> pd.DataFrame:
    return pd.DataFrame({
        "code": ["A.1", "C.7", "C.10"], "type": ["Question", "Bug", "Bug"],
        "name": ["Unclear Installation Guidance", name, "Documentation and Maintainability"],
        "ratings": [10, 20, 30], "kappa": [0.1, 0.7, 0.6], "boot_low": [0.0, 0.65, 0.55],
        "boot_high": [0.2, 0.75, 0.65]})


def dissent() -> pd.DataFrame:
    return pd.DataFrame({
        "dissenters": range(8),
        "observed": [16755, 14190, 6656, 1141, 0, 0, 0, 0],
        "expected_pooled": [16489.3, 15104.5, 5790.9, 1201.5, 145.3, 10.2, 0.38, 0.006],
        "expected_by_project": [17038.3, 14442.1, 5609.9, 1378.0, 241.5, 29.8, 2.28, 0.08],
        "expected_by_project_majority": [17116.2, 14546.2, 5676.2, 1403.4, 0, 0, 0, 0]})


def targets(codes=("A.1", "A.2", "B.1")) -> pd.DataFrame:
    m = pd.DataFrame([[0, 3, 1], [5, 0, 0], [2, 2, 0]], columns=list(codes))
    m.insert(0, "final_label", list(codes))
    return m


# -- plain, visible text ---------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: af.groups_figure(statistics("p"), {"p": HOSTILE}),
    lambda: af.categories_figure(categories(HOSTILE)),
    lambda: af.kappas_figure(statistics().replace({"Bug": HOSTILE}), {}),
    lambda: af.audit_final_figure(pd.DataFrame({
        "stratum": ["all", "all", "p", "p"], "annotator": [HOSTILE, "annotator_2"] * 2,
        "share": [0.9, 0.8, 0.95, 0.85]}), {"p": "Project"}),
    lambda: af.pairwise_figure(
        pd.DataFrame({"annotator_a": [HOSTILE], "annotator_b": ["annotator_2"],
                      "kappa": [0.8]}),
        pd.DataFrame({"annotator": [HOSTILE, "annotator_2"], "kappa": [0.9, 0.85]}),
        [HOSTILE, "annotator_2"]),
    lambda: af.audit_targets_figure(targets(("A.1", HOSTILE, "B.1")), {}),
], ids=["groups", "categories", "kappas", "audit_final", "pairwise", "targets"])
def test_agreement_figures_draw_hostile_names_plainly(make, tmp_path):
    assert_plain_visible(make(), tmp_path)


def test_pairwise_annotators_are_numbered_not_named_like_theme_codes():
    """"A1" beside the taxonomy's "A.1" reads like a theme: the heatmap numbers the
    annotators on axes titled "annotator"."""
    names = ["annotator_1", "annotator_2", "annotator_3"]
    fig = af.pairwise_figure(
        pd.DataFrame({"annotator_a": ["annotator_1"], "annotator_b": ["annotator_2"],
                      "kappa": [0.8]}),
        pd.DataFrame({"annotator": names, "kappa": [0.9, 0.85, 0.7]}), names)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3", "final"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2", "3"]
    assert ax.get_xlabel() == ax.get_ylabel() == "annotator"
    assert "A1" not in ax.get_title(loc="left")
    plt.close(fig)


# -- theme names in full ----------------------------------------------------------------

def test_categories_figure_shows_full_theme_names():
    c = categories("A Very Long Theme Name That Would Not Fit On One Line At All Here")
    fig = af.categories_figure(c)
    shown = [" ".join(t.get_text().split()) for t in fig.axes[0].get_yticklabels()]
    assert shown == [f"{r.code} {r.name}" for r in c.itertuples()]
    assert not any("…" in t for t in texts(fig))
    plt.close(fig)


# -- one x-range for projects and years -----------------------------------------------

def test_groups_panels_share_the_x_range_and_scale():
    fig = af.groups_figure(statistics(), {})
    project, year = fig.axes
    assert project.get_xlim() == year.get_xlim()
    lo, hi = project.get_xlim()
    assert lo <= 0.54 and hi >= 0.81  # covers the projects' and the years' intervals
    fig.canvas.draw()
    assert project.bbox.width == pytest.approx(year.bbox.width)
    plt.close(fig)


# -- dissent: log axis, labels apart -------------------------------------------------

def test_count_label_and_log_range():
    assert [af.count_label(v) for v in (0, 2.2762, 29.79, 16755.0)] == \
        ["0", "2.3", "30", "16,755"]
    low, high = af.log_range([0, 2.28, 17116.2])
    assert low == 1.0 and high > 17116.2 * 10


def test_dissent_axis_is_log_and_shows_the_small_bars():
    fig = af.audit_dissent_figure(dissent())
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    low, _ = ax.get_ylim()
    heights = [p.get_height() for p in ax.patches if p.get_height() > 0]
    assert min(heights) < 10 and min(heights) > low  # 2.3 expected issues: a visible bar
    assert not any("$" in t.get_text() for t in ax.get_yticklabels())  # no mathtext ticks
    plt.close(fig)


def test_dissent_labels_overlap_nothing():
    fig = af.audit_dissent_figure(dissent())
    ax = fig.axes[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = [t for t in ax.texts if t.get_text()]
    assert "16,755" in [t.get_text() for t in labels]
    boxes = [t.get_window_extent(renderer) for t in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
        for bar in ax.patches:
            assert not a.overlaps(bar.get_window_extent(renderer).shrunk(1, 0.999))
        assert not a.overlaps(ax.get_legend().get_window_extent(renderer))
        assert ax.bbox.contains(a.x0, a.y1) and ax.bbox.contains(a.x1, a.y1)
    plt.close(fig)


# -- targets heatmap in percent ----------------------------------------------------------

def test_targets_colour_bar_is_in_percent():
    fig = af.audit_targets_figure(targets(), {"A.1": "Question", "A.2": "Question",
                                              "B.1": "Requirement"})
    image = fig.axes[0].images[0]
    assert np.nanmax(image.get_array()) == pytest.approx(100.0)  # row A.2: all to A.1
    assert image.get_clim() == (0, 100.0)
    colour_bar = fig.axes[1]
    assert "%" in colour_bar.get_ylabel()
    fig.canvas.draw()
    ticks = [t.get_text() for t in colour_bar.get_yticklabels() if t.get_text()]
    assert "100" in ticks and not any("." in t for t in ticks)
    cells = sorted(t.get_text() for t in fig.axes[0].texts)
    assert cells == ["100", "25", "50", "50", "75"]  # one label per non-zero cell
    plt.close(fig)


# -- determinism -----------------------------------------------------------------------

def test_changed_figures_are_byte_stable(tmp_path):
    for name, make in (("dissent", lambda: af.audit_dissent_figure(dissent())),
                       ("categories", lambda: af.categories_figure(categories())),
                       ("groups", lambda: af.groups_figure(statistics(), {}))):
        a = save_figure(make(), tmp_path / f"{name}_a")
        b = save_figure(make(), tmp_path / f"{name}_b")
        assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
