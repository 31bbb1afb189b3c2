"""What the taxonomy stage writes (the stage contract of :mod:`analysis.core.stage`): the
quality report of the detail files, the tables of the tree and of the mix tests, the
figures, the website's numbers and texts, the reproduced claim values and the metrics.

Every value in the website's vars is a string ready for prose (``"1,586"``, ``"54.6%"``,
``"< 0.001"``), so pages never format numbers themselves.
"""

from __future__ import annotations

import pandas as pd

from analysis.core.paths import PATHS
from analysis.core.stage import StageOutputs
from analysis.taxonomy.distribution import format_p
from analysis.taxonomy.examples import IN_RELEASE, example_summary
from analysis.taxonomy.figures import (
    residuals_figure,
    share_heatmap,
    tree_figure,
    year_shares_figure,
)
from analysis.taxonomy.tree import TaxonomyResult, details_html

# Where the website says its numbers come from: the stage's notebook.
SOURCE = (f"{PATHS.taxonomy.notebook_source.relative_to(PATHS.root).as_posix()} "
          "(stage taxonomy)")


def quality(result: TaxonomyResult) -> dict:
    """The quality report of the detail files (row accounting, anomalies)."""
    return result.parsed.quality


def tables(result: TaxonomyResult) -> dict[str, pd.DataFrame | str]:
    """The tree's tables (types and themes also as Markdown for the pages), the details as
    browsable HTML, the spellings, and the mix tests' tables."""
    mix = result.mix
    return {
        "types.csv": result.types,
        "types.md": result.types.round(2).to_markdown(index=False),
        "themes.csv": result.themes,
        "themes.md": result.themes.round(2).to_markdown(index=False),
        "subthemes.csv": result.subthemes,
        "details.csv": result.details,
        "details.html": details_html(result.details, result.themes),
        "spellings.csv": result.spellings,
        "tests.csv": mix.table,
        "residuals.csv": mix.residuals,
        "shares.csv": mix.shares,
        "examples.csv": result.examples,
        "empty_themes.csv": result.empty_themes,
    }


def figures(result: TaxonomyResult) -> dict:
    """The stage's figures by name: the tree (Fig. 2), theme shares per project and per
    year, and the residuals of the type-mix tests."""
    taxonomy, mix, names = result.taxonomy, result.mix, result.project_names
    labels = {c: f"{c} {n}" for c, n in taxonomy.theme_names.items()}
    types = taxonomy.type_by_code
    v = {n: f"V = {t.summary['cramers_v']:.2f}" for n, t in mix.tests.items()}
    return {
        "tree": lambda: tree_figure(result.subthemes, result.themes, taxonomy.type_names),
        "project_shares": lambda: share_heatmap(
            mix.counts["theme_by_project"], labels, names, types,
            "Theme shares per project (% of the project's issues)",
            xlabel="Project (number of issues)"),
        "year_shares": lambda: year_shares_figure(
            mix.counts["theme_by_year"], labels, types,
            "Theme shares per year (% of the year's issues)"),
        "type_residuals": lambda: residuals_figure(
            [(mix.tests["type_by_project"].residuals, names,
              f"Type × project ({v['type_by_project']})"),
             (mix.tests["type_by_year"].residuals, {}, f"Type × year ({v['type_by_year']})")],
            "Does the type mix differ? Standardized residuals of the chi-square tests"),
    }


def _n(value: float) -> str:
    return f"{int(value):,}"


def _pct(value: float) -> str:
    return f"{float(value):.1f}%"


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def website_vars(result: TaxonomyResult) -> dict[str, str]:
    """The flat key -> text mapping of the website's vars: the numbers for prose
    (:func:`prose_vars`) and the figures' captions and alt texts (:func:`figure_texts`)."""
    return {**prose_vars(result), **figure_texts(result)}


def prose_vars(result: TaxonomyResult) -> dict[str, str]:
    """Numbers and lists for the pages' prose. Text that quotes the detail files
    (sub-theme names, file names) is under keys ending in ``_text``: the report shows it as
    escaped HTML."""
    types, themes, subthemes = result.types, result.themes, result.subthemes
    rows, tests = result.parsed.rows, result.mix.table
    out: dict[str, str] = {"source": SOURCE, "item_split": result.item_split}
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
    for key, value in example_summary(result.examples).items():
        out[f"examples_{key}"] = _n(value)
    empty = result.empty_themes
    out["n_themes_without_issues"] = _n(len(empty))
    out["themes_without_issues_chosen"] = _join([
        f"{r.code} (chosen {_n(r.label_choices)} times on {_n(r.issues_chosen)} reports)"
        for r in empty.itertuples()]) or "none"
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


def figure_texts(result: TaxonomyResult) -> dict[str, str]:
    """Captions and alt texts of the stage's figures (``fig_<name>_caption`` and
    ``fig_<name>_alt``), with the numbers they show."""
    types, themes, subthemes = result.types, result.themes, result.subthemes
    tests, counts, project_labels = result.mix.table, result.mix.counts, result.project_names
    theme_by_project, theme_by_year = counts["theme_by_project"], counts["theme_by_year"]
    type_by_project = counts["type_by_project"]
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


def claim_values(result: TaxonomyResult) -> dict[str, dict]:
    """Reproduced values keyed by claim id (``taxonomy.themes.bug``, ``taxonomy.details.bug``,
    ``taxonomy.subthemes.B.2`` ...), each with a note saying where it comes from and, where
    the released files differ from the paper's numbering, why.

    ``result.item_split`` picks the detail count: ``comma`` (every comma, as the paper
    counts) or ``parentheses`` (commas inside parentheses do not split an item). The notes
    name the rows recovered from malformed CSV. A type without a detail file in the dump
    (the quality report's ``missing_types``) has its values (and the totals) ``None``, i.e.
    not reproducible, with a note saying so.
    """
    types, themes, subthemes = result.types, result.themes, result.subthemes
    rows, item_split = result.parsed.rows, result.item_split
    missing_types = result.parsed.quality["summary"]["missing_types"]
    detail_col = "details" if item_split == "comma" else "details_parentheses"
    other_col = "details_parentheses" if item_split == "comma" else "details"
    out: dict[str, dict] = {}
    per_type = types[types["type"] != "Total"].set_index("type")
    total = types.set_index("type").loc["Total"]
    no_issues = themes[(themes["code"] != "") & (themes["issues"] == 0)]["code"].tolist()
    theme_note = "distinct themes in the released detail files"
    if no_issues:
        theme_note += (f"; {len(no_issues)} of them ({', '.join(no_issues)}) label no issue "
                       "in the final labels")
    out["taxonomy.types"] = {"value": int((per_type["themes_released"] > 0).sum()),
                             "note": "issue types with themes in the released detail files"}
    out["taxonomy.themes"] = {"value": int(total["themes_released"]), "note": theme_note}
    out["taxonomy.subthemes"] = {"value": int(total["subthemes_released"]),
                                 "note": _subtheme_note(subthemes, "sub-theme rows of the "
                                                        "released detail files")}
    for name, row in per_type.iterrows():
        key = name.lower()
        out[f"taxonomy.themes.{key}"] = {"value": int(row["themes_released"]),
                                         "note": f"themes in the {name} detail file"}
        out[f"taxonomy.subthemes.{key}"] = {
            "value": int(row["subthemes_released"]),
            "note": _subtheme_note(subthemes[subthemes["type"] == name],
                                   f"sub-theme rows of the {name} detail file")}
        note = (f"items of the {name} detail file split on "
                + ("every comma, as the paper counts" if item_split == "comma" else
                   "commas outside parentheses"))
        if int(row[detail_col]) != int(row[other_col]):
            other = ("a parenthesis-aware split" if item_split == "comma"
                     else "splitting on every comma")
            note += (f"; {other} gives {int(row[other_col]):,} (commas inside "
                     "'(e.g., ...)' split some items)")
        fixed = rows[(rows["type"] == name) & (rows["recovery"] != "")]
        for r in fixed.itertuples(index=False):
            note += (f"; line {r.line} of {r.file} is not valid CSV "
                     f"({r.recovery.replace('_', ' ')}) and was recovered from the raw "
                     f"line ({r.items_comma} items)")
        out[f"taxonomy.details.{key}"] = {"value": int(row[detail_col]), "note": note}
    for theme in themes[themes["code"] != ""].itertuples(index=False):
        subs = subthemes[subthemes["theme_code"] == theme.code]
        out[f"taxonomy.subthemes.{theme.code}"] = {
            "value": int(theme.subthemes_released),
            "note": _subtheme_note(subs, f"sub-theme rows of {theme.code} in the "
                                         "released detail file")}
    out.update(example_values(result))
    out.update(window_values(result))
    if missing_types:
        gone = set(missing_types)
        note = f"no detail file for {_and(sorted(gone))} issues in the dump"
        keys = ["taxonomy.types", "taxonomy.themes", "taxonomy.subthemes"]
        keys += [f"taxonomy.{k}.{t.lower()}" for t in gone
                 for k in ("themes", "subthemes", "details")]
        keys += [f"taxonomy.subthemes.{c}" for c in themes.loc[themes["type"].isin(gone),
                                                                "code"] if c]
        for key in keys:
            out[key] = {"value": None, "note": note}
    return out


def example_values(result: TaxonomyResult) -> dict[str, dict]:
    """``examples.ref<N>``: the release's final label of each cited example (None when the
    release does not hold it), with a note on how it matched and what the annotators chose
    (the scorecard compares the label's theme with the cited one)."""
    out: dict[str, dict] = {}
    for r in result.examples.itertuples(index=False):
        if r.status != IN_RELEASE:
            out[f"examples.ref{r.ref}"] = {
                "value": None, "note": f"not in the release: {r.match_note}"}
            continue
        note = (f"{r.release_url} ({r.year}); annotators: {r.annotator_labels} "
                f"({r.annotators_citing_theme} of {r.annotators} chose {r.theme})")
        if r.match_note:
            note += f"; matched: {r.match_note}"
        out[f"examples.ref{r.ref}"] = {"value": r.final_label, "note": note}
    return out


def window_values(result: TaxonomyResult) -> dict[str, dict]:
    """``collection.window.first_year``/``last_year``: the earliest and latest year of the
    labelled reports (the release gives years, not dates)."""
    if not result.years:
        return {}
    note = (f"years of the labelled reports: {', '.join(str(y) for y in result.years)} (the "
            "release gives each report's year, not its date)")
    return {"collection.window.first_year": {"value": min(result.years), "note": note},
            "collection.window.last_year": {"value": max(result.years), "note": note}}


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _subtheme_note(subs: pd.DataFrame, lead: str) -> str:
    """``lead``, then which sub-themes make the released count differ from the paper's."""
    extra = subs[(subs["rows_in_file"] > 0) & ~subs["in_paper"]]
    missing = subs[(subs["rows_in_file"] == 0) & subs["in_paper"]]
    parts = [lead]
    for r in extra.itertuples(index=False):
        where = f"under {r.theme_code}" if r.theme_code else "under an unknown theme"
        parts.append(f"'{r.name}' ({r.code or 'unmapped'}, {where}) is not in the paper's "
                     "numbering")
    for r in missing.itertuples(index=False):
        parts.append(f"{r.code} '{r.name}' has no row")
    return "; ".join(parts)


def metrics(result: TaxonomyResult) -> dict:
    """Headline numbers for ``dvc metrics show``/``diff``."""
    types, themes = result.types, result.themes
    quality, tests = result.parsed.quality, result.mix.table
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
        "examples": example_summary(result.examples),
        "rows_recovered": int(quality["summary"]["rows_recovered"]),
        "unmapped_subthemes": len(quality["summary"]["unmapped_subthemes"]),
        "unmapped_themes": len(quality["summary"]["unmapped_themes"]),
        "anomalies": sum(quality["anomaly_counts"].values()),
        "cramers_v": {t.test: round(float(t.cramers_v), 6) for t in tests.itertuples()},
    }


def build(result: TaxonomyResult) -> StageOutputs:
    return StageOutputs(quality=quality(result), tables=tables(result),
                        figures=figures(result), website_vars=website_vars(result),
                        claim_values=claim_values(result), metrics=metrics(result))
