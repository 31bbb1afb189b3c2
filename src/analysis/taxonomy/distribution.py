"""How issue types and themes are distributed over projects and years, and whether the mix
differs between them.

Shares are percentages within a project (or year), so projects of very different size can
be compared. The test is Pearson's chi-square test of independence on the count table
(:func:`scipy.stats.chi2_contingency`, no continuity correction), with Cramér's V as the
effect size (:func:`scipy.stats.contingency.association`) and the standardized (adjusted)
residuals of :class:`statsmodels.stats.contingency_tables.Table`, which say which cells
drive a difference (|r| > 2 is a cell far from independence). With ~39,000 issues almost
any difference is "significant", so V and the residuals carry the meaning, not p.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association
from statsmodels.stats.contingency_tables import Table

TEST_COLUMNS = ["test", "variable", "factor", "n", "rows", "columns", "dropped", "chi2",
                "dof", "p_value", "cramers_v", "min_expected", "share_expected_below_5"]


def crosstab(issues: pd.DataFrame, variable: str, factor: str, variable_order: list[str],
             factor_order: list | None = None) -> pd.DataFrame:
    """Counts of ``variable`` (rows, in ``variable_order``, zeros kept) by ``factor``
    (columns: ``factor_order`` or sorted values), as int64."""
    cols = factor_order if factor_order is not None else sorted(issues[factor].unique())
    table = (issues.groupby([variable, factor]).size().unstack(fill_value=0)
             .reindex(index=variable_order, columns=cols, fill_value=0))
    table.index.name, table.columns.name = variable, factor
    return table.astype("int64")


def column_shares(counts: pd.DataFrame) -> pd.DataFrame:
    """Each column as percentages of its total (an empty column stays 0)."""
    totals = counts.sum(axis=0).replace(0, np.nan)
    return (100.0 * counts / totals).fillna(0.0)


@dataclass
class ChiSquare:
    """One chi-square test of independence, its effect size and residuals."""

    summary: dict
    expected: pd.DataFrame
    residuals: pd.DataFrame  # standardized (adjusted) residuals


def chi_square(counts: pd.DataFrame, name: str = "") -> ChiSquare:
    """Chi-square test of independence of rows and columns of ``counts``.

    All-zero rows and columns carry no information and make expected counts zero, so they
    are dropped first (and listed in ``dropped``). Fewer than two rows or columns left: no
    test (NaN statistics).
    """
    keep_rows = counts.index[counts.sum(axis=1) > 0]
    keep_cols = counts.columns[counts.sum(axis=0) > 0]
    dropped = [str(x) for x in counts.index.difference(keep_rows, sort=False)] + [
        str(x) for x in counts.columns.difference(keep_cols, sort=False)]
    table = counts.loc[keep_rows, keep_cols]
    summary = {"test": name, "variable": counts.index.name, "factor": counts.columns.name,
               "n": int(table.to_numpy().sum()), "rows": int(table.shape[0]),
               "columns": int(table.shape[1]), "dropped": ", ".join(dropped)}
    if min(table.shape) < 2:
        empty = pd.DataFrame(np.nan, index=table.index, columns=table.columns)
        summary.update(chi2=np.nan, dof=0, p_value=np.nan, cramers_v=np.nan,
                       min_expected=np.nan, share_expected_below_5=np.nan)
        return ChiSquare(summary, empty, empty)
    observed = table.to_numpy(dtype="float64")
    chi2, p, dof, expected = chi2_contingency(observed, correction=False)
    summary.update(
        chi2=float(chi2), dof=int(dof), p_value=float(p),
        cramers_v=float(association(table.to_numpy(), method="cramer", correction=False)),
        min_expected=float(expected.min()),
        share_expected_below_5=float((expected < 5).mean()),
    )
    resid = Table(observed).standardized_resids
    return ChiSquare(summary,
                     pd.DataFrame(expected, index=table.index, columns=table.columns),
                     pd.DataFrame(np.asarray(resid), index=table.index, columns=table.columns))


def residual_records(test: ChiSquare, counts: pd.DataFrame) -> pd.DataFrame:
    """Long table of one test: observed, expected and standardized residual per cell."""
    rows = []
    for r in test.residuals.index:
        for c in test.residuals.columns:
            rows.append({"test": test.summary["test"], "row": str(r), "column": str(c),
                         "observed": int(counts.loc[r, c]),
                         "expected": float(test.expected.loc[r, c]),
                         "std_residual": float(test.residuals.loc[r, c])})
    return pd.DataFrame(rows, columns=["test", "row", "column", "observed", "expected",
                                       "std_residual"])


def tests_frame(tests: list[ChiSquare]) -> pd.DataFrame:
    """The summaries of several tests as one table (TEST_COLUMNS)."""
    return pd.DataFrame([t.summary for t in tests], columns=TEST_COLUMNS)


def long_shares(counts: pd.DataFrame) -> pd.DataFrame:
    """Counts and within-column shares in long form (one row per cell), for tables/plots."""
    shares = column_shares(counts)
    out = counts.stack().rename("issues").to_frame()
    out["share_percent"] = shares.stack()
    return out.reset_index()


@dataclass
class MixTests:
    """The stage's four count tables (type/theme by project/year) and their tests."""

    counts: dict[str, pd.DataFrame]
    tests: dict[str, ChiSquare]
    table: pd.DataFrame  # tests_frame of the four tests
    residuals: pd.DataFrame  # residual_records of all four, long form
    shares: pd.DataFrame  # counts and within-column shares, long form (table,row,column)


def mix_tests(issues: pd.DataFrame, type_names: list[str], theme_codes: list[str],
              projects: list[str]) -> MixTests:
    """Type and theme (``final_label``) by project and by year, each with its chi-square
    test. Rows keep the taxonomy's order (zero rows included); projects keep ``projects``'
    order; years are sorted."""
    counts = {
        "type_by_project": crosstab(issues, "type", "project", type_names, projects),
        "type_by_year": crosstab(issues, "type", "year", type_names),
        "theme_by_project": crosstab(issues, "final_label", "project", theme_codes, projects),
        "theme_by_year": crosstab(issues, "final_label", "year", theme_codes),
    }
    tests = {name: chi_square(table, name) for name, table in counts.items()}
    residuals = pd.concat([residual_records(tests[n], counts[n]) for n in counts],
                          ignore_index=True)
    shares = pd.concat([long_shares(c).rename(columns={c.index.name: "row",
                                                       c.columns.name: "column"})
                        .assign(table=n) for n, c in counts.items()], ignore_index=True)
    return MixTests(counts, tests, tests_frame(list(tests.values())), residuals,
                    shares[["table", "row", "column", "issues", "share_percent"]])
