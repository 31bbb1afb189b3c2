"""What a study dump adds to the release: its new batches of labels, as additions, and
the drift of the challenges since the paper, said with how sure a batch's size lets us be.

A study dump (``python -m analysis.update.labels extend``) is the release plus batches of new
labels, every row naming its batch (the processed issues' ``batch`` column). Its change
against the baseline is an addition by construction (extend refuses a report the base
already holds and never drops one): :func:`additions` lists the new issues per batch,
project and year.

:func:`drift` compares the theme shares of each new batch with the release's
(:mod:`analysis.core.proportions` does the arithmetic). A new batch is small (tens of
reports against the release's tens of thousands), so every number says how sure it is:

- per theme: the batch's share with Wilson's interval; the difference from the release's
  share with Newcombe's hybrid score interval, simultaneous over the themes (Bonferroni:
  each at 1 - 0.05 / themes), and Fisher's exact test with Holm's correction. A theme is
  flagged *changed* only when that interval excludes 0, the corrected test agrees, and the
  theme is not too rare to judge (:data:`MIN_REPORTS`); with the shares the batch could
  tell from the release's at 80% power (what "no change found" is worth);
- over all themes: Pearson's chi-square test when Cochran's rule allows it (no expected
  count under 1, at most 20% under 5), else a Monte-Carlo permutation test of the same
  statistic (the resamples and seed of params.yaml's ``compare`` section); the table says
  which ran and why.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from analysis.core import proportions as pr
from analysis.core.batches import RELEASE, new_batches
from analysis.core.projects import Projects
from analysis.core.taxonomy import theme_sort_key

ALPHA = pr.ALPHA
# A theme is judged only when the batch holds, or at the release's share would be
# expected to hold, at least this many of its reports, and as many of the other themes'
# (the two cells of the batch's side of the theme's 2 x 2 table): below it one or two
# reports decide the difference (1 report against the release's 0 is 100% of one, and no
# evidence), and no interval of a small batch speaks for the theme. Five is Cochran's
# bound for an expected count, the same the overall test uses.
MIN_REPORTS = 5
CHI_SQUARE, MONTE_CARLO = "chi_square", "monte_carlo"
CHANGED, NO_EVIDENCE, TOO_FEW = "changed", "no_evidence", "too_few"
ADDITION_COLUMNS = ["batch", "project", "name", "year", "issues"]
DRIFT_COLUMNS = ["batch", "code", "theme", "type", "release", "release_share", "batch_issues",
                 "batch_share", "batch_share_low", "batch_share_high", "expected",
                 "difference", "difference_low", "difference_high", "p_value", "p_holm",
                 "detectable_low", "detectable_high", "verdict", "changed"]
TEST_COLUMNS = ["batch", "reports", "themes", "test", "statistic", "dof", "p_value",
                "resamples", "cells", "expected_under_1", "expected_under_5",
                "changed_themes", "too_few_themes", "min_reports"]


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


def theme_verdicts(batch: np.ndarray, expected: np.ndarray, low: np.ndarray,
                   high: np.ndarray, p_holm: np.ndarray) -> list[str]:
    """Each theme's verdict (see the module docstring): ``too_few`` below
    :data:`MIN_REPORTS` (the theme's reports in the batch, or the others', observed and
    expected), ``changed`` when the simultaneous interval excludes 0 and Holm's p is under
    :data:`ALPHA`, else ``no_evidence``."""
    out = []
    n = batch.sum()
    for b, e, lo, hi, p in zip(batch, expected, low, high, p_holm, strict=True):
        if min(max(b, e), max(n - b, n - e)) < MIN_REPORTS:
            out.append(TOO_FEW)
        elif (lo > 0 or hi < 0) and p < ALPHA:
            out.append(CHANGED)
        else:
            out.append(NO_EVIDENCE)
    return out


def theme_rows(r: np.ndarray, b: np.ndarray, themes: pd.DataFrame, name: str) -> pd.DataFrame:
    """Per theme (``themes``: code, theme, type) of one batch (counts ``b``) against the
    release (counts ``r``): shares in percent with the batch's Wilson interval, the
    expected count, the difference with its simultaneous Newcombe interval, Fisher's and
    Holm's p, the shares the batch could detect and the verdict."""
    nr, nb = int(r.sum()), int(b.sum())
    level = 1 - ALPHA / max(int(((r + b) > 0).sum()), 1)  # Bonferroni over the themes
    wilson = np.array([pr.wilson(bi, nb) for bi in b]).reshape(-1, 2)
    diff = np.array([pr.newcombe(bi, nb, ri, nr, level) for ri, bi in zip(r, b, strict=True)]
                    ).reshape(-1, 2)
    p = np.array([pr.fisher(bi, nb, ri, nr) for ri, bi in zip(r, b, strict=True)])
    holm = multipletests(p, method="holm")[1] if nr and nb and len(p) else p
    detectable = np.array([pr.detectable_shares(ri / nr if nr else np.nan, nb, nr)
                           for ri in r]).reshape(-1, 2)
    expected = r * nb / max(nr, 1)
    table = pd.DataFrame({
        "batch": name, "code": themes["code"].to_numpy(), "theme": themes["theme"].to_numpy(),
        "type": themes["type"].to_numpy(), "release": r,
        "release_share": 100.0 * r / max(nr, 1), "batch_issues": b,
        "batch_share": 100.0 * b / max(nb, 1), "batch_share_low": 100 * wilson[:, 0],
        "batch_share_high": 100 * wilson[:, 1], "expected": expected})
    table["difference"] = table["batch_share"] - table["release_share"]
    table["difference_low"], table["difference_high"] = 100 * diff[:, 0], 100 * diff[:, 1]
    table["p_value"], table["p_holm"] = p, holm
    table["detectable_low"] = 100 * detectable[:, 0]
    table["detectable_high"] = 100 * detectable[:, 1]
    table["verdict"] = theme_verdicts(b, expected, diff[:, 0], diff[:, 1], holm)
    table["changed"] = table["verdict"] == CHANGED
    floats = [c for c in DRIFT_COLUMNS if c not in ("batch", "code", "theme", "type",
                                                    "release", "batch_issues", "verdict",
                                                    "changed")]
    table[floats] = table[floats].astype("float64").round(6)
    return table[DRIFT_COLUMNS]


def overall_test(r: np.ndarray, b: np.ndarray, name: str, resamples: int,
                 seed: int) -> dict:
    """The test of the whole mix of themes, batch against release: Pearson's chi-square
    when Cochran's rule allows it, else a Monte-Carlo permutation test of the same
    statistic (``resamples`` draws from ``seed``); undefined with fewer than two themes."""
    used = (r + b) > 0
    test = {"batch": name, "reports": int(b.sum()), "themes": int(used.sum()), "test": "",
            "statistic": np.nan, "dof": 0, "p_value": np.nan, "resamples": 0,
            "cells": 2 * int(used.sum()), "expected_under_1": 0, "expected_under_5": 0,
            "min_reports": MIN_REPORTS}
    if not r.sum() or not b.sum() or used.sum() < 2:
        return test
    table = np.vstack([r[used], b[used]])
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
    test.update(statistic=float(pr.chi_square(table)), dof=int(used.sum()) - 1,
                expected_under_1=int((expected < 1).sum()),
                expected_under_5=int((expected < 5).sum()))
    if pr.cochran_allows(expected):
        test.update(test=CHI_SQUARE,
                    p_value=float(stats.chi2.sf(test["statistic"], test["dof"])))
    else:
        test.update(test=MONTE_CARLO, resamples=int(resamples),
                    p_value=pr.monte_carlo_p(r[used], b[used], resamples, seed))
    return test


def drift(issues: pd.DataFrame, resamples: int = 10_000,
          seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Every new batch's theme drift against the release (:func:`theme_rows`,
    :func:`overall_test`), the per-theme rows and the tests; None without batches or
    without release rows to compare with."""
    names = new_batches(issues)
    batch = issues["batch"].astype(str) if names else None
    if not names or not (batch == RELEASE).any():
        return None
    themes = (issues[["final_label", "theme", "type"]].astype(str).drop_duplicates("final_label")
              .sort_values("final_label", kind="mergesort", key=lambda codes: codes.map(
                  theme_sort_key))
              .rename(columns={"final_label": "code"}).reset_index(drop=True))
    counts = issues["final_label"].astype(str)

    def of(mask: pd.Series) -> np.ndarray:
        return (counts[mask].value_counts().reindex(themes["code"], fill_value=0)
                .to_numpy(dtype=np.int64))

    release = of(batch == RELEASE)
    rows, tests = [], []
    for name in names:
        mine = of(batch == name)
        table = theme_rows(release, mine, themes, name)
        test = overall_test(release, mine, name, resamples, seed)
        test["changed_themes"] = int(table["changed"].sum())
        test["too_few_themes"] = int((table["verdict"] == TOO_FEW).sum())
        rows.append(table)
        tests.append(test)
    tests_frame = pd.DataFrame(tests, columns=TEST_COLUMNS)
    tests_frame[["statistic", "p_value"]] = tests_frame[["statistic", "p_value"]].astype(
        "float64").round(6)
    return pd.concat(rows, ignore_index=True), tests_frame
