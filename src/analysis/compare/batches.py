"""What a study dump adds to the release: its new batches of labels, as additions, and
the drift of the challenges since the paper.

A study dump (``python -m analysis.labels extend``) is the release plus batches of new
labels, every row naming its batch (the processed issues' ``batch`` column). Its change
against the baseline is an addition by construction (extend refuses a report the base
already holds and never drops one): :func:`additions` lists the new issues per batch,
project and year.

:func:`drift` compares the theme shares of each new batch with the release's. The test:

- over all themes, Pearson's chi-square test of homogeneity on the themes x {release,
  batch} table (scipy's ``chi2_contingency``), which says whether the batch's mix of
  themes differs at all; with many themes and a small batch, expected counts under 5 make
  its p-value approximate, so the table says how many cells are that sparse;
- per theme, Fisher's exact test on the 2 x 2 table (this theme or another, release or
  batch), exact for any batch size (the z-test of two proportions is not, for the small
  counts a new batch has), with Holm's correction over the themes: it controls the chance
  of any false "changed" among the many themes tested, without assuming the tests are
  independent (they are not: the shares sum to 100%).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from analysis.core.projects import Projects

RELEASE = "release"
ALPHA = 0.05
ADDITION_COLUMNS = ["batch", "project", "name", "year", "issues"]
DRIFT_COLUMNS = ["batch", "code", "theme", "type", "release", "release_share", "batch_issues",
                 "batch_share", "difference", "p_value", "p_holm", "changed"]
TEST_COLUMNS = ["batch", "themes", "chi2", "dof", "p_value", "sparse_cells", "changed_themes"]


def new_batches(issues: pd.DataFrame) -> list[str]:
    """The batches other than the release, in the issues' order; none without batches."""
    if "batch" not in issues.columns:
        return []
    return [b for b in dict.fromkeys(issues["batch"].astype(str)) if b != RELEASE]


def additions(issues: pd.DataFrame, projects: Projects) -> pd.DataFrame | None:
    """New issues per batch, project (Table I's order) and year; None without batches."""
    names = new_batches(issues)
    if not names:
        return None
    new = issues[issues["batch"].astype(str).isin(names)]
    counts = (new.groupby(["batch", "project", "year"], observed=True).size()
              .rename("issues").reset_index())
    rank = {p: i for i, p in enumerate(projects.order(counts["project"].unique()))}
    counts["_b"] = counts["batch"].map({b: i for i, b in enumerate(names)})
    counts["_p"] = counts["project"].map(rank)
    counts = counts.sort_values(["_b", "_p", "year"], kind="mergesort")
    counts.insert(2, "name", [projects.name(p) for p in counts["project"]])
    counts["year"] = counts["year"].astype("int64")
    counts["issues"] = counts["issues"].astype("int64")
    return counts[ADDITION_COLUMNS].reset_index(drop=True)


def theme_drift(release: pd.Series, batch: pd.Series, themes: pd.DataFrame,
                name: str) -> tuple[pd.DataFrame, dict]:
    """One batch against the release: per theme (``themes``: code, theme, type) both
    counts and shares (percent), the difference in points, Fisher's p and Holm's; and the
    chi-square test over all themes (see the module docstring)."""
    r = release.reindex(themes["code"], fill_value=0).to_numpy(dtype=np.int64)
    b = batch.reindex(themes["code"], fill_value=0).to_numpy(dtype=np.int64)
    nr, nb = int(r.sum()), int(b.sum())
    p = np.array([stats.fisher_exact([[bi, nb - bi], [ri, nr - ri]])[1]
                  for ri, bi in zip(r, b, strict=True)]) if nr and nb else np.full(len(r),
                                                                                     np.nan)
    holm = multipletests(p, method="holm")[1] if nr and nb and len(p) else p
    table = pd.DataFrame({
        "batch": name, "code": themes["code"].to_numpy(), "theme": themes["theme"].to_numpy(),
        "type": themes["type"].to_numpy(), "release": r,
        "release_share": 100.0 * r / max(nr, 1), "batch_issues": b,
        "batch_share": 100.0 * b / max(nb, 1)})
    table["difference"] = table["batch_share"] - table["release_share"]
    table["p_value"], table["p_holm"] = p, holm
    table["changed"] = table["p_holm"] < ALPHA
    used = (r + b) > 0
    test = {"batch": name, "themes": int(used.sum()), "chi2": np.nan, "dof": 0,
            "p_value": np.nan, "sparse_cells": 0, "changed_themes": int(table["changed"].sum())}
    if nr and nb and used.sum() >= 2:
        chi2, pv, dof, expected = stats.chi2_contingency(np.vstack([r[used], b[used]]),
                                                         correction=False)
        test.update(chi2=float(chi2), dof=int(dof), p_value=float(pv),
                    sparse_cells=int((expected < 5).sum()))
    for col in ("release_share", "batch_share", "difference", "p_value", "p_holm"):
        table[col] = table[col].astype("float64").round(6)
    return table[DRIFT_COLUMNS], test


def drift(issues: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Every new batch's theme drift against the release (:func:`theme_drift`), the
    per-theme rows and the chi-square tests; None without batches or without release
    rows to compare with."""
    names = new_batches(issues)
    batch = issues["batch"].astype(str) if names else None
    if not names or not (batch == RELEASE).any():
        return None
    themes = (issues[["final_label", "theme", "type"]].astype(str).drop_duplicates("final_label")
              .sort_values("final_label", kind="mergesort")
              .rename(columns={"final_label": "code"}).reset_index(drop=True))
    counts = issues["final_label"].astype(str)
    release = counts[batch == RELEASE].value_counts()
    rows, tests = [], []
    for name in names:
        table, test = theme_drift(release, counts[batch == name].value_counts(), themes, name)
        rows.append(table)
        tests.append(test)
    tests_frame = pd.DataFrame(tests, columns=TEST_COLUMNS)
    tests_frame[["chi2", "p_value"]] = tests_frame[["chi2", "p_value"]].astype(
        "float64").round(6)
    return pd.concat(rows, ignore_index=True), tests_frame
