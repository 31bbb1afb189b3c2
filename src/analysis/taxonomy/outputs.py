"""What the taxonomy stage writes (the stage contract of :mod:`analysis.core.stage`): the
quality report of the detail files, the tables of the tree and of the mix tests, the
figures, the website's numbers and texts, the reproduced claim values and the metrics.

Every value in the website's vars is a string ready for prose (``"1,586"``, ``"54.6%"``,
``"< 0.001"``, by :mod:`analysis.core.formatting`), so pages never format numbers
themselves.
"""

from __future__ import annotations

import pandas as pd

from analysis.core.examples import example_claim_id
from analysis.core.formatting import MISSING, count, dec, decimal, pct, pval
from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas
from analysis.taxonomy.compute import TaxonomyResult, details_html
from analysis.taxonomy.examples import IN_RELEASE, example_summary
from analysis.taxonomy.figures import (
    residuals_figure,
    share_heatmap,
    tree_figure,
    year_shares_figure,
)


def tables(result: TaxonomyResult) -> dict[str, pd.DataFrame | str]:
    """The tree's tables, the details as browsable HTML, the spellings, the mix tests'
    tables, and the cited examples (each with the scorecard claim it is)."""
    mix = result.mix
    return {
        "types.csv": result.types,
        "themes.csv": result.themes,
        "subthemes.csv": result.subthemes,
        "details.csv": result.details,
        "details.html": details_html(result.details, result.themes),
        "spellings.csv": result.spellings,
        "tests.csv": mix.table,
        "residuals.csv": mix.residuals,
        "shares.csv": mix.shares,
        "examples.csv": result.examples.assign(
            claim_id=[example_claim_id(r) for r in result.examples["ref"]]),
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


def _join(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
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
    rows, tests = result.parsed.rows, result.mix.table.set_index("test")
    per_type = types[types["type"] != "Total"].set_index("type")
    total = types.set_index("type").loc["Total"]

    def n(col: str, of: str | None = None) -> str:
        """A column of the types table: the total, or one type's (0 without that type)."""
        if of is None:
            return count(total[col])
        return count(per_type.loc[of, col]) if of in per_type.index else "0"

    known = themes[themes["code"] != ""]
    silent = known[known["issues"] == 0]
    extra = subthemes[(subthemes["rows_in_file"] > 0) & ~subthemes["in_paper"]]
    fixed = rows[rows["recovery"] != ""]
    empty = result.empty_themes
    examples = example_summary(result.examples)
    largest = subthemes.sort_values(["details", "code"], ascending=[False, True]).iloc[0]
    out: dict[str, str] = {
        "item_split": result.item_split,
        "n_types": count((per_type["themes_released"] > 0).sum()),
        "n_themes": n("themes"), "n_themes_bug": n("themes", "Bug"),
        "n_subthemes_paper": n("subthemes_paper"),
        "n_subthemes_paper_requirement": n("subthemes_paper", "Requirement"),
        "n_subthemes_released": n("subthemes_released"),
        "n_subthemes_released_bug": n("subthemes_released", "Bug"),
        "n_subthemes_released_requirement": n("subthemes_released", "Requirement"),
        "n_details": n("details"), "n_details_bug": n("details", "Bug"),
        "n_details_requirement": n("details", "Requirement"),
        "n_details_question": n("details", "Question"),
        "n_details_parentheses": n("details_parentheses"),
        "n_details_parentheses_bug": n("details_parentheses", "Bug"),
        "n_details_split_in_parentheses": count(total["details"]
                                                - total["details_parentheses"]),
        "n_issues": n("issues"),
        "n_themes_with_issues": count((known["issues"] > 0).sum()),
        # lists that may be empty read "none", so that a sentence around them still reads
        "themes_without_issues": _join([f"{r.code} {r.name}"
                                        for r in silent.itertuples()]) or "none",
        "n_themes_without_issues": count(len(empty)),
        "themes_without_issues_chosen": _join([
            f"{r.code} (chosen {count(r.label_choices)} times on {count(r.issues_chosen)} "
            "reports)" for r in empty.itertuples()]) or "none",
        "n_subthemes_not_in_paper": count(len(extra)),
        "subthemes_not_in_paper_text": (
            "Sub-themes of the detail files that the paper does not number: " + _join([
                f"{r.name} ({r.code or 'unmapped'}, under {r.theme_code or 'an unknown theme'})"
                for r in extra.itertuples()]) + "." if len(extra) else
            "Every sub-theme of the detail files is one the paper numbers."),
        "n_rows_recovered": count(len(fixed)),
        "rows_recovered_text": (
            "Rows recovered: " + _join([
                f"{r.file.rsplit('/', 1)[-1]} line {r.line} ({r.recovery.replace('_', ' ')}; "
                f"{r.items_comma} items)" for r in fixed.itertuples()]) + "."
            if len(fixed) else "No row needed recovering."),
        "examples_cited": count(examples["cited"]),
        "examples_in_release": count(examples["in_release"]),
        "examples_matched_with_note": count(examples["matched_with_note"]),
        "examples_theme_matches": count(examples["theme_matches"]),
        "examples_theme_differs": count(examples["theme_differs"]),
        "examples_repository_not_in_release": count(examples["repository_not_in_release"]),
        "examples_issue_not_in_release": count(examples["issue_not_in_release"]),
        "top_theme_bug": top_theme(known, "Bug"),
        "top_theme_requirement": top_theme(known, "Requirement"),
        "top_theme_question": top_theme(known, "Question"),
        "largest_subtheme_text": (f"The largest sub-theme is {largest['code']} "
                                  f"{largest['name']} ({count(largest['details'])} details)."),
        "chi2_type_by_project_summary": chi2_summary(tests, "type_by_project"),
        "chi2_theme_by_project_summary": chi2_summary(tests, "theme_by_project"),
        "chi2_theme_by_year_summary": chi2_summary(tests, "theme_by_year"),
    }
    return out


def top_theme(known: pd.DataFrame, kind: str) -> str:
    """The theme of type ``kind`` with the most issues (by code on a tie), with its issues
    and their share of the type; the missing mark without such a theme."""
    t = known[known["type"] == kind].sort_values(["issues", "code"], ascending=[False, True])
    if t.empty:
        return MISSING
    top = t.iloc[0]
    return (f"{top['code']} {top['name']} ({count(top['issues'])} issues, "
            f"{pct(top['issue_share_of_type'])} of {kind.lower()}s)")


def chi2_summary(tests: pd.DataFrame, name: str) -> str:
    """One test of the tests table (indexed by test) as prose: ``χ²(df, N = n) = x, p < 0.001,
    Cramér's V = v``; the missing mark without that test."""
    if name not in tests.index:
        return MISSING
    t = tests.loc[name]
    p = pval(t["p_value"])
    return (f"χ²({int(t['dof'])}, N = {count(t['n'])}) = {decimal(t['chi2'])}, "
            f"p {p if p.startswith('<') else '= ' + p}, Cramér's V = {dec(t['cramers_v'])}")


def top_share_per_column(counts: pd.DataFrame, labels: dict) -> str:
    """'<column>: <row> (<share>)' for every column's largest row share, for alt texts."""
    parts = []
    for col in counts.columns:
        total = counts[col].sum()
        if not total:
            continue
        row = counts[col].idxmax()  # first of equal maxima, in the table's row order
        share = 100.0 * counts.loc[row, col] / total
        parts.append(f"{labels.get(col, col)}: {row} ({pct(share)})")
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
    top3 = _join([f"{r.code} ({count(r.issues)})" for r in by_issues.head(3).itertuples()])
    silent = _join(known.loc[known["issues"] == 0, "code"].tolist())
    extra = subthemes[(subthemes["rows_in_file"] > 0) & ~subthemes["in_paper"]]
    type_parts = "; ".join([f"{r.type}: {r.themes} themes, {r.subthemes_released} sub-themes, "
                        f"{count(r.details)} details, {count(r.issues)} issues"
                        for r in per_type.itertuples()])
    largest = subthemes.sort_values(["details", "code"], ascending=[False, True]).iloc[0]
    out = {
        "fig_tree_caption": (
            f"The three-level taxonomy rebuilt from the released detail files: "
            f"{count(len(per_type))} issue types, {count(total['themes'])} themes and "
            f"{count(total['subthemes_released'])} sub-themes (the paper numbers "
            f"{count(total['subthemes_paper'])}). Bars show the issues whose final label is "
            "the theme and the details (symptoms, intents, expectations) of each sub-theme."
            + (" Hatched: in the released files but not in the paper's numbering."
               if len(extra) else "")),
        "fig_tree_alt": (
            f"Tree diagram, one row per sub-theme, grouped by issue type and theme. "
            f"{type_parts}. Themes with most issues: {top3}."
            + (f" Themes without any issue in the final labels: {silent}." if silent else "")
            + f" Sub-theme with most details: {largest['code']} {largest['name']} "
              f"({count(largest['details'])})."
            + (" Not in the paper's numbering: "
               + _join([f"{r.code} {r.name}" for r in extra.itertuples()]) + "."
               if len(extra) else "")),
    }
    tests_by = tests.set_index("test")

    def stat(name: str) -> str:
        if name not in tests_by.index:
            return ""
        t = tests_by.loc[name]
        return f"Cramér's V = {dec(t['cramers_v'])}"

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
    out["taxonomy.subthemes"] = _subtheme_entry(int(total["subthemes_released"]), subthemes,
                                                "sub-theme rows of the released detail "
                                                "files")
    for name, row in per_type.iterrows():
        key = name.lower()
        out[f"taxonomy.themes.{key}"] = {"value": int(row["themes_released"]),
                                         "note": f"themes in the {name} detail file"}
        out[f"taxonomy.subthemes.{key}"] = _subtheme_entry(
            int(row["subthemes_released"]), subthemes[subthemes["type"] == name],
            f"sub-theme rows of the {name} detail file")
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
        out[f"taxonomy.subthemes.{theme.code}"] = _subtheme_entry(
            int(theme.subthemes_released), subs,
            f"sub-theme rows of {theme.code} in the released detail file")
    out.update(example_values(result))
    out.update(window_values(result))
    if missing_types:
        gone = set(missing_types)
        note = f"no detail file for {_join(sorted(gone))} issues in the dump"
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
            out[example_claim_id(r.ref)] = {
                "value": None, "note": f"not in the release: {r.match_note}"}
            continue
        note = (f"{r.release_url} ({r.year}); annotators: {r.annotator_labels} "
                f"({r.annotators_citing_theme} of {r.annotators} chose {r.theme})")
        if r.match_note:
            note += f"; matched: {r.match_note}"
        out[example_claim_id(r.ref)] = {"value": r.final_label, "note": note}
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


def _subtheme_entry(value: int, subs: pd.DataFrame, lead: str) -> dict:
    """A sub-theme count's reproduced value and note; where the released sub-themes are
    not the paper's numbering, the root cause of the difference
    (``cause: subtheme_numbering``, which the findings stage groups differences by)."""
    entry: dict = {"value": value, "note": _subtheme_note(subs, lead)}
    if ((subs["rows_in_file"] > 0) != subs["in_paper"]).any():
        entry["cause"] = "subtheme_numbering"
    return entry


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
    """The headline numbers for ``dvc metrics show``/``diff``: the taxonomy's size, the
    themes no report carries, the examples, the rows recovered and the anomalies (the
    details per type and theme are in the tables)."""
    total = result.types.set_index("type").loc["Total"]
    known = result.themes[result.themes["code"] != ""]
    quality = result.parsed.quality
    return {
        "themes": int(total["themes"]),
        "subthemes_paper": int(total["subthemes_paper"]),
        "subthemes_released": int(total["subthemes_released"]),
        "details": int(total["details"]),
        "themes_without_issues": int((known["issues"] == 0).sum()),
        "examples_theme_matches": example_summary(result.examples)["theme_matches"],
        "rows_recovered": int(quality["summary"]["rows_recovered"]),
        "anomalies": sum(quality["anomaly_counts"].values()),
    }


def build(result: TaxonomyResult) -> StageOutputs:
    return StageOutputs(quality=result.parsed.quality, tables=tables(result),
                        figures=figures(result), website_vars=website_vars(result),
                        claim_values=claim_values(result), metrics=metrics(result),
                        schemas=stage_schemas("taxonomy"))
