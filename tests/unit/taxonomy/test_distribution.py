"""Type/theme mix over projects and years: crosstabs, shares, chi-square, Cramér's V,
standardized residuals; and the stage's figures on synthetic data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.taxonomy import distribution as dist
from tests.support.taxonomy_fixtures import synthetic_issues


def table(values, rows=("Bug", "Question"), cols=("p", "q", "r")) -> pd.DataFrame:
    frame = pd.DataFrame(values, index=list(rows), columns=list(cols), dtype="int64")
    frame.index.name, frame.columns.name = "type", "project"
    return frame


def test_crosstab_keeps_order_and_zero_rows():
    issues = pd.DataFrame({"type": ["Bug", "Bug", "Requirement"],
                           "project": ["b", "a", "b"]})
    counts = dist.crosstab(issues, "type", "project", ["Question", "Requirement", "Bug"])
    assert counts.index.tolist() == ["Question", "Requirement", "Bug"]
    assert counts.columns.tolist() == ["a", "b"]
    assert counts.to_numpy().tolist() == [[0, 0], [0, 1], [1, 1]]
    shares = dist.column_shares(counts)
    assert shares.sum(axis=0).tolist() == [100.0, 100.0]


def test_chi_square_by_hand():
    counts = table([[10, 20, 30], [20, 10, 5]])
    obs = counts.to_numpy(dtype=float)
    exp = np.outer(obs.sum(1), obs.sum(0)) / obs.sum()
    chi2 = ((obs - exp) ** 2 / exp).sum()
    result = dist.chi_square(counts, "t")
    s = result.summary
    assert s["chi2"] == pytest.approx(chi2) and s["dof"] == 2 and s["n"] == 95
    assert s["cramers_v"] == pytest.approx(math.sqrt(chi2 / (95 * 1)))
    assert s["p_value"] < 0.001
    # adjusted residual of one cell, by hand
    r, c, n = obs.sum(1), obs.sum(0), obs.sum()
    adj = (obs[0, 0] - exp[0, 0]) / math.sqrt(exp[0, 0] * (1 - r[0] / n) * (1 - c[0] / n))
    assert result.residuals.iloc[0, 0] == pytest.approx(adj)
    assert result.residuals.iloc[0, 0] < 0 < result.residuals.iloc[0, 2]


def test_independent_table_has_no_effect_and_zero_margins_are_dropped():
    counts = table([[10, 20, 0], [20, 40, 0], [0, 0, 0]], rows=("Bug", "Question", "Req"))
    result = dist.chi_square(counts, "flat")
    assert result.summary["chi2"] == pytest.approx(0.0)
    assert result.summary["cramers_v"] == pytest.approx(0.0)
    assert result.summary["p_value"] == pytest.approx(1.0)
    assert result.summary["dropped"] == "Req, r"
    assert result.residuals.shape == (2, 2)


def test_degenerate_table_gives_no_test():
    result = dist.chi_square(table([[5, 6, 7], [0, 0, 0]]), "one-row")
    assert math.isnan(result.summary["chi2"]) and result.summary["dof"] == 0
    assert math.isnan(result.summary["p_value"])


def test_long_tables():
    counts = table([[1, 3, 0], [1, 1, 0]])
    test = dist.chi_square(counts, "t")
    records = dist.residual_records(test, counts)
    assert len(records) == 4 and set(records["column"]) == {"p", "q"}
    shares = dist.long_shares(counts)
    assert shares.loc[(shares["type"] == "Bug") & (shares["project"] == "q"),
                      "share_percent"].item() == pytest.approx(75.0)
    frame = dist.tests_frame([test])
    assert frame.columns.tolist() == dist.TEST_COLUMNS


def test_figures_render_on_synthetic_data(tmp_path, taxonomy):
    from analysis.core.figures import save_figure
    from analysis.taxonomy import figures as tf

    codes = {"Question": ["A.2", "A.3"], "Requirement": ["B.1", "B.2"], "Bug": ["C.1", "C.9"]}
    issues = synthetic_issues(codes, ["p1", "p2", "p3"], [2023, 2024], n=120)
    counts = dist.crosstab(issues, "final_label", "project", taxonomy.codes)
    labels = {c: f"{c} {n}" for c, n in taxonomy.theme_names.items()}
    save_figure(tf.share_heatmap(counts, labels, {}, taxonomy.type_by_code, "t"),
                tmp_path / "heat")
    years = dist.crosstab(issues, "final_label", "year", taxonomy.codes)
    save_figure(tf.year_shares_figure(years, labels, taxonomy.type_by_code, "t"),
                tmp_path / "years")
    types = dist.crosstab(issues, "type", "project", taxonomy.type_names)
    test = dist.chi_square(types, "t")
    save_figure(tf.residuals_figure([(test.residuals, {}, "a"), (test.residuals, {}, "b")],
                                    "t"), tmp_path / "resid")
    subs = taxonomy.subthemes.rename(columns={"theme_code": "theme_code"}).assign(
        theme=lambda d: d["theme_code"].map(taxonomy.theme_names), details=3, rows_in_file=1)
    subs = pd.concat([subs, pd.DataFrame([{"type": "Bug", "theme_code": "", "theme": "Odd",
                                           "code": "", "name": "Unmapped", "in_paper": False,
                                           "details": 2, "rows_in_file": 1}])])
    themes = pd.DataFrame({"code": taxonomy.codes, "issues": range(18)})
    save_figure(tf.tree_figure(subs, themes, taxonomy.type_names), tmp_path / "tree")
    for stem in ("heat", "years", "resid", "tree"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 10_000
        assert (tmp_path / f"{stem}.svg").read_text().startswith("<?xml")
