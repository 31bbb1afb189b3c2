"""What the taxonomy stage tells the website (numbers for prose, captions, alt texts) and
``dvc metrics``: small pure functions over the stage's tables.

Every value in the vars mapping is a string ready for prose (``"1,586"``, ``"54.6%"``,
``"< 0.001"``), so pages never format numbers themselves.
"""

from __future__ import annotations

import pandas as pd

from analysis.taxonomy.distribution import format_p


def _n(value: float) -> str:
    return f"{int(value):,}"


def _pct(value: float) -> str:
    return f"{float(value):.1f}%"


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def stage_vars(types: pd.DataFrame, themes: pd.DataFrame, subthemes: pd.DataFrame,
               rows: pd.DataFrame, tests: pd.DataFrame, item_split: str) -> dict[str, str]:
    """The flat key -> text mapping of ``report/vars/taxonomy.json`` (without the figure
    texts, see :func:`figure_texts`). Text that quotes the detail files (sub-theme names,
    file names) is under keys ending in ``_text``: the report shows it as escaped HTML."""
    out: dict[str, str] = {"source": "notebooks/03_taxonomy.py (stage taxonomy)",
                           "item_split": item_split}
    per_type = types[types["type"] != "Total"].set_index("type")
    total = types.set_index("type").loc["Total"]
    out["n_types"] = _n((per_type["themes_released"] > 0).sum())
    for col in ("themes", "subthemes_paper", "subthemes_released", "details",
                "details_parentheses", "issues"):
        out[f"n_{col}"] = _n(total[col])
        for name, row in per_type.iterrows():
            out[f"n_{col}_{name.lower()}"] = _n(row[col])
    known = themes[themes["code"] != ""]
    silent = known[known["issues"] == 0]
    out["n_themes_with_issues"] = _n((known["issues"] > 0).sum())
    # lists that may be empty read "none", so that a sentence around them still reads
    out["themes_without_issues"] = _join([f"{r.code} {r.name}"
                                          for r in silent.itertuples()]) or "none"
    extra = subthemes[(subthemes["rows_in_file"] > 0) & ~subthemes["in_paper"]]
    out["n_subthemes_not_in_paper"] = _n(len(extra))
    out["subthemes_not_in_paper_text"] = (
        "Sub-themes of the detail files that the paper does not number: " + _join([
            f"{r.name} ({r.code or 'unmapped'}, under {r.theme_code or 'an unknown theme'})"
            for r in extra.itertuples()]) + "." if len(extra) else
        "Every sub-theme of the detail files is one the paper numbers.")
    fixed = rows[rows["recovery"] != ""]
    out["n_rows_recovered"] = _n(len(fixed))
    out["rows_recovered_text"] = (
        "Rows recovered: " + _join([
            f"{r.file.rsplit('/', 1)[-1]} line {r.line} ({r.recovery.replace('_', ' ')}; "
            f"{r.items_comma} items)" for r in fixed.itertuples()]) + "." if len(fixed) else
        "No row needed recovering.")
    out["n_details_split_in_parentheses"] = _n(total["details"] - total["details_parentheses"])
    for name in per_type.index:
        t = known[known["type"] == name].sort_values(["issues", "code"],
                                                    ascending=[False, True])
        if len(t):
            top = t.iloc[0]
            out[f"top_theme_{name.lower()}"] = (f"{top['code']} {top['name']} "
                                                f"({_n(top['issues'])} issues, "
                                                f"{_pct(top['issue_share_of_type'])} of "
                                                f"{name.lower()}s)")
    largest = subthemes.sort_values(["details", "code"], ascending=[False, True]).iloc[0]
    out["largest_subtheme_text"] = (f"The largest sub-theme is {largest['code']} "
                                    f"{largest['name']} ({_n(largest['details'])} details).")
    for t in tests.itertuples(index=False):
        key = f"chi2_{t.test}"
        out[f"{key}_chi2"] = f"{t.chi2:,.1f}"
        out[f"{key}_dof"] = _n(t.dof)
        out[f"{key}_p"] = format_p(t.p_value)
        out[f"{key}_v"] = f"{t.cramers_v:.3f}"
        out[f"{key}_n"] = _n(t.n)
        p = format_p(t.p_value)
        out[f"{key}_summary"] = (f"χ²({int(t.dof)}, N = {_n(t.n)}) = {t.chi2:,.1f}, "
                              f"p {p if p.startswith('<') else '= ' + p}, "
                              f"Cramér's V = {t.cramers_v:.3f}")
    return out


def top_share_per_column(counts: pd.DataFrame, labels: dict) -> str:
    """'<column>: <row> (<share>)' for every column's largest row share, for alt texts."""
    parts = []
    for col in counts.columns:
        total = counts[col].sum()
        if not total:
            continue
        row = counts[col].idxmax()  # first of equal maxima, in the table's row order
        share = 100.0 * counts.loc[row, col] / total
        parts.append(f"{labels.get(col, col)}: {row} ({_pct(share)})")
    return "; ".join(parts)


def figure_texts(types: pd.DataFrame, themes: pd.DataFrame, subthemes: pd.DataFrame,
                 tests: pd.DataFrame, theme_by_project: pd.DataFrame,
                 theme_by_year: pd.DataFrame, type_by_project: pd.DataFrame,
                 project_labels: dict) -> dict[str, str]:
    """Captions and alt texts of the stage's figures, with the numbers they show."""
    total = types.set_index("type").loc["Total"]
    per_type = types[types["type"] != "Total"]
    known = themes[themes["code"] != ""]
    by_issues = known.sort_values(["issues", "code"], ascending=[False, True])
    top3 = _join([f"{r.code} ({_n(r.issues)})" for r in by_issues.head(3).itertuples()])
    silent = _join(known.loc[known["issues"] == 0, "code"].tolist())
    extra = subthemes[(subthemes["rows_in_file"] > 0) & ~subthemes["in_paper"]]
    type_parts = "; ".join([f"{r.type}: {r.themes} themes, {r.subthemes_released} sub-themes, "
                        f"{_n(r.details)} details, {_n(r.issues)} issues"
                        for r in per_type.itertuples()])
    largest = subthemes.sort_values(["details", "code"], ascending=[False, True]).iloc[0]
    out = {
        "fig_tree_caption": (
            f"The three-level taxonomy rebuilt from the released detail files: "
            f"{_n(len(per_type))} issue types, {_n(total['themes'])} themes and "
            f"{_n(total['subthemes_released'])} sub-themes (the paper numbers "
            f"{_n(total['subthemes_paper'])}). Bars show the issues whose final label is "
            "the theme and the details (symptoms, intents, expectations) of each sub-theme."
            + (" Hatched: in the released files but not in the paper's numbering."
               if len(extra) else "")),
        "fig_tree_alt": (
            f"Tree diagram, one row per sub-theme, grouped by issue type and theme. "
            f"{type_parts}. Themes with most issues: {top3}."
            + (f" Themes without any issue in the final labels: {silent}." if silent else "")
            + f" Sub-theme with most details: {largest['code']} {largest['name']} "
              f"({_n(largest['details'])})."
            + (" Not in the paper's numbering: "
               + _join([f"{r.code} {r.name}" for r in extra.itertuples()]) + "."
               if len(extra) else "")),
    }
    tests_by = tests.set_index("test")

    def stat(name: str) -> str:
        if name not in tests_by.index:
            return ""
        t = tests_by.loc[name]
        return f"Cramér's V = {t['cramers_v']:.3f}"

    out["fig_project_shares_caption"] = (
        "Share of each theme among a project's issues (each column sums to 100%); "
        f"theme mix by project: {stat('theme_by_project')}.")
    out["fig_project_shares_alt"] = (
        "Heatmap with themes as rows and projects as columns; darker cells are larger "
        "shares of the project's issues. Largest theme per project: "
        f"{top_share_per_column(theme_by_project, project_labels)}. "
        f"{stat('theme_by_project')}.")
    out["fig_year_shares_caption"] = (
        "Share of each theme among the issues of each year (dots; a line joins a theme's "
        f"years); theme mix by year: {stat('theme_by_year')}.")
    out["fig_year_shares_alt"] = (
        "Dot plot with one row per theme and one dot per year giving the theme's share of "
        f"that year's issues. Largest theme per year: {top_share_per_column(theme_by_year, {})}"
        f". {stat('theme_by_year')}.")
    out["fig_type_residuals_caption"] = (
        "Standardized residuals of the chi-square tests of the type mix by project and by "
        "year: red cells have more issues of the type than independence predicts, blue "
        f"fewer (|r| > 2 is far from independence). By project: {stat('type_by_project')}; "
        f"by year: {stat('type_by_year')}.")
    out["fig_type_residuals_alt"] = (
        "Two heatmaps of standardized residuals, issue types as rows; left projects, right "
        f"years. By project: {stat('type_by_project')}; by year: {stat('type_by_year')}. "
        "Largest type per project: "
        f"{top_share_per_column(type_by_project, project_labels)}.")
    return out


def stage_metrics(types: pd.DataFrame, themes: pd.DataFrame, quality: dict,
                  tests: pd.DataFrame) -> dict:
    """Headline numbers for ``dvc metrics show``/``diff``."""
    per_type = types[types["type"] != "Total"].set_index("type")
    total = types.set_index("type").loc["Total"]
    known = themes[themes["code"] != ""]
    return {
        "themes": int(total["themes"]),
        "subthemes_paper": int(total["subthemes_paper"]),
        "subthemes_released": int(total["subthemes_released"]),
        "details": {t: int(v) for t, v in per_type["details"].items()},
        "details_parentheses": {t: int(v) for t, v in per_type["details_parentheses"].items()},
        "issues_by_theme": {r.code: int(r.issues) for r in known.itertuples()},
        "themes_without_issues": int((known["issues"] == 0).sum()),
        "rows_recovered": int(quality["summary"]["rows_recovered"]),
        "unmapped_subthemes": len(quality["summary"]["unmapped_subthemes"]),
        "unmapped_themes": len(quality["summary"]["unmapped_themes"]),
        "anomalies": sum(quality["anomaly_counts"].values()),
        "cramers_v": {t.test: round(float(t.cramers_v), 6) for t in tests.itertuples()},
    }
