"""Pandera schemas of the CSVs the taxonomy stage writes: the tree's tables, the details,
the mix tests, the cited examples and the empty themes (:data:`SCHEMAS`, checked as they
are written; see :mod:`analysis.core.columns`).
"""

from __future__ import annotations

from analysis.core.columns import (
    P,
    TableSchemas,
    count,
    decimal,
    percent,
    share,
    table,
    text,
    yes_no,
)

MIX_TABLE = ("the count table: `type_by_project`, `type_by_year`, `theme_by_project` or "
             "`theme_by_year` (issue type or theme of the final label, by project or year)")


# --------------------------------------------------------------------------- taxonomy

DETAILS_COMMA = ("details (symptoms, intents or expectations) of the released detail files, "
                 "counted by splitting on every comma as the paper counts")
DETAILS_PARENS = ("the same details counted without splitting at commas inside parentheses "
                  "(\"(e.g., a, b)\" stays one item)")


TYPES = table(
    P.taxonomy.table("types.csv"),
    "Per issue type (and a Total row): "
    "themes, sub-themes, details and issues, from data/taxonomy.yaml, the "
    "released detail files and the final labels (Fig. 2).", {
        "type": text("the issue type (Question, Requirement, Bug); `Total` on "
                     "the last row, which adds up the others"),
        "themes": count("themes of this type in data/taxonomy.yaml"),
        "themes_released": count("themes of this type with at least one row in "
                                 "the released detail file (a theme name that "
                                 "matches no taxonomy theme counts too)"),
        "themes_with_issues": count("taxonomy themes of this type that are the "
                                    "final label of at least one issue"),
        "subthemes_paper": count("sub-themes of this type that the paper "
                                 "numbers (in_paper in data/taxonomy.yaml)"),
        "subthemes_released": count("sub-themes of this type with a row in the "
                                    "released detail file (a row whose name "
                                    "maps to no sub-theme counts on its own)"),
        "details": count(f"{DETAILS_COMMA}, for this type"),
        "details_parentheses": count(DETAILS_PARENS),
        "issues": count("issues whose final label is a theme of this type"),
    })


THEMES = table(
    P.taxonomy.table("themes.csv"),
    "One row per theme of data/taxonomy.yaml "
    "(then every theme name of the detail files that matches none): sub-themes, "
    "details, issues and their shares.", {
        "type": text("the theme's issue type"),
        "code": text("the theme code (e.g. C.3); empty for a theme name of a "
                     "detail file that matches no taxonomy theme", nullable=True),
        "name": text("the theme's name in data/taxonomy.yaml (the detail file's "
                     "spelling for an unmatched theme)"),
        "spelling": text("how the released detail file spells the theme (its "
                         "first row); empty when the file has no row for it",
                         nullable=True),
        "subthemes_paper": count("sub-themes of this theme that the paper "
                                 "numbers"),
        "subthemes_released": count("sub-themes of this theme with a row in the "
                                    "released detail file (a row whose name "
                                    "maps to no sub-theme counts on its own)"),
        "subthemes_not_in_paper": text("the released sub-themes the paper does "
                                       "not number, as `code name`, separated "
                                       "by `; `; empty when none", nullable=True),
        "details": count(f"{DETAILS_COMMA}, for this theme"),
        "details_parentheses": count(DETAILS_PARENS),
        "issues": count("issues whose final label is this theme"),
        "issue_share_of_type": percent("the theme's issues as a percentage of "
                                       "all issues of its type (0-100; 0 when "
                                       "the type has none)"),
        "issue_share_of_all": percent("the theme's issues as a percentage of all "
                                      "issues (0-100)"),
    })


SUBTHEMES = table(
    P.taxonomy.table("subthemes.csv"),
    "One row per sub-theme of "
    "data/taxonomy.yaml, with or without a row in the released detail file, then "
    "every detail-file row whose sub-theme maps to none.", {
        "type": text("the issue type"),
        "theme_code": text("code of the sub-theme's theme (e.g. C.3); empty "
                           "when the row's theme matches no taxonomy theme",
                           nullable=True),
        "theme": text("the theme's name (as the detail file spells it when it "
                      "matches no taxonomy theme)", nullable=True),
        "code": text("the sub-theme code: the theme code and the paper's roman "
                     "numeral (C.3.ii), or `<theme>.x<n>` for a released "
                     "sub-theme the paper does not number; empty for a row that "
                     "maps to no sub-theme", nullable=True),
        "name": text("the sub-theme's full name as the released files spell it "
                     "(cleaned); for an unmapped row, as written", nullable=True),
        "in_paper": yes_no("whether the paper numbers this sub-theme (no for "
                           "`x<n>` codes and unmapped rows)"),
        "paper": text("the paper's own wording for the sub-theme "
                      "(data/taxonomy.yaml); empty when it has none",
                      nullable=True),
        "basis": text("how the code was tied to the paper's wording: `name` "
                      "(the paper prints this name), `description` (the paper's "
                      "words describe this one row) or `order` (assigned in the "
                      "detail file's row order); empty when not tied",
                      nullable=True),
        "note": text("a remark from data/taxonomy.yaml, or why a row is "
                     "unmapped; empty otherwise", nullable=True),
        "spelling": text("how the released detail file spells the sub-theme "
                         "(its first row); empty when the file has no row",
                         nullable=True),
        "file": text("the detail file of that row, relative to data/raw; empty "
                     "when there is no row", nullable=True),
        "line": count("the line of that row in the detail file; 0 when there "
                      "is no row"),
        "rows_in_file": count("rows of the detail file for this sub-theme (more "
                              "than 1 when it is listed twice)"),
        "details": count(f"{DETAILS_COMMA}, for this sub-theme"),
        "details_parentheses": count(DETAILS_PARENS),
    })


DETAILS = table(
    P.taxonomy.table("details.csv"),
    "Every detail (symptom, intent or "
    "expectation) of the released detail files with its type, theme and "
    "sub-theme; one row per item, commas inside parentheses not splitting.", {
        "type": text("the issue type whose detail file lists the item"),
        "theme_code": text("code of the item's theme (e.g. C.3); empty when the "
                           "theme name matches no taxonomy theme", nullable=True),
        "theme": text("the theme's name in data/taxonomy.yaml; empty when "
                      "unmapped", nullable=True),
        "subtheme_code": text("code of the item's sub-theme (e.g. C.3.ii, or "
                              "B.2.x1 for one the paper does not number); empty "
                              "when the sub-theme name maps to none",
                              nullable=True),
        "subtheme": text("the sub-theme's name (as the detail file writes it "
                         "when unmapped)", nullable=True),
        "in_paper": yes_no("whether the paper numbers the sub-theme"),
        "item_no": count("the item's position within its detail-file row "
                         "(1 = first)", low=1),
        "detail": text("the detail's text, trimmed"),
        "pieces": count("how many comma-separated pieces the item counts as in "
                        "the paper's count (more than 1 when it has commas "
                        "inside parentheses)"),
        "source": text("where the item is written: the detail file (relative to "
                       "data/raw) and its line, as `file:line`"),
    })


SPELLINGS = table(
    P.taxonomy.table("spellings.csv"),
    "Every theme and sub-theme spelling "
    "of the released detail files and the taxonomy code it maps to.", {
        "level": text("`theme` or `subtheme`", words=("theme", "subtheme")),
        "file": text("the detail file where the spelling first appears, "
                     "relative to data/raw"),
        "line": count("its line in that file", low=1),
        "spelling": text("the name exactly as the file writes it",
                         nullable=True),
        "code": text("the theme or sub-theme code it maps to; empty when it "
                     "maps to none", nullable=True),
        "canonical": text("the name data/taxonomy.yaml gives that code; empty "
                          "when it maps to none", nullable=True),
        "match": text("`canonical` (spelled as data/taxonomy.yaml names it), "
                      "`alias` (another known spelling), `unknown` (maps to no "
                      "code) or `not in paper` (a sub-theme the paper does not "
                      "number)",
                      words=("canonical", "alias", "unknown", "not in paper")),
    })


_NO_TEST = "empty when fewer than two rows or columns are left (no test)"
TESTS = table(
    P.taxonomy.table("tests.csv"),
    "Chi-square tests of independence: does "
    "the mix of issue types or themes differ between projects or years? (Pearson, "
    "no continuity correction; all-zero rows and columns dropped first.)", {
        "test": text(MIX_TABLE),
        "variable": text("the table's rows: `type` (issue type) or "
                         "`final_label` (theme)"),
        "factor": text("the table's columns: `project` or `year`"),
        "n": count("issues in the table"),
        "rows": count("rows tested, after dropping rows without issues"),
        "columns": count("columns tested, after dropping columns without "
                         "issues"),
        "dropped": text("the rows and columns dropped because they hold no "
                        "issue, separated by `, `; empty when none",
                        nullable=True),
        "chi2": decimal(f"Pearson's chi-square statistic; {_NO_TEST}", low=0.0),
        "dof": count("degrees of freedom of the test (0 when there is no "
                     "test)"),
        "p_value": share(f"p-value of the test (0-1); {_NO_TEST}. With tens of "
                         "thousands of issues almost any difference is "
                         "significant: read cramers_v"),
        "cramers_v": decimal("Cramér's V, the effect size (0 = the same mix "
                             f"everywhere, 1 = completely different); {_NO_TEST}",
                             low=0.0),
        "min_expected": decimal("the smallest expected count of a cell under "
                                f"independence; {_NO_TEST}", low=0.0),
        "share_expected_below_5": share("share of cells whose expected count is "
                                        f"below 5 (0-1); {_NO_TEST}"),
    })


RESIDUALS = table(
    P.taxonomy.table("residuals.csv"),
    "The chi-square tests cell by cell: "
    "observed and expected issues and the standardized residual.", {
        "test": text(MIX_TABLE),
        "row": text("the cell's row: an issue type or a theme code"),
        "column": text("the cell's column: a project (folder name) or a year"),
        "observed": count("issues in the cell"),
        "expected": decimal("issues expected in the cell if the mix were the "
                            "same in every column (independence); empty when "
                            "there is no test", low=0.0),
        "std_residual": decimal("standardized (adjusted) residual of the cell: "
                                "beyond ±2 the cell is far from independence; "
                                "empty when there is no test"),
    })


SHARES = table(
    P.taxonomy.table("shares.csv"),
    "The four count tables of the tests in "
    "long form: issues per cell and their share of the column.", {
        "table": text(MIX_TABLE),
        "row": text("the cell's row: an issue type or a theme code"),
        "column": text("the cell's column: a project (folder name) or a year"),
        "issues": count("issues in the cell"),
        "share_percent": percent("the cell's issues as a percentage of its "
                                 "column's issues (0-100; 0 in an empty "
                                 "column)"),
    })


EXAMPLE_STATUS = ("in_release", "repository_not_in_release", "issue_not_in_release")


EXAMPLES = table(
    P.taxonomy.table("examples.csv"),
    "One row per issue report the paper cites as an example of a sub-theme "
    "(data/examples.yaml), looked up in the release.", {
        "ref": count("the paper's reference number ([44] ... [111])"),
        "url": text("the URL as the paper prints it"),
        "subthemes": text("the sub-theme(s) the paper cites it for, separated "
                          "by `, `"),
        "theme": text("the theme of those sub-themes"),
        "source": text("where the paper cites it", nullable=True),
        "repository": text("owner/name of the cited URL"),
        "kind": text("the cited page's kind: issues, pull, pulls or "
                     "discussions"),
        "number": text("the cited report's number"),
        "status": text("`in_release`, `repository_not_in_release` (the "
                       "repository is not one of the release's) or "
                       "`issue_not_in_release`", words=EXAMPLE_STATUS),
        "release_url": text("the matching report's URL in the release; empty "
                            "when not in it", nullable=True),
        "match_note": text("how it matched (a former repository name, another "
                           "kind of link, several rows) or why it is absent; "
                           "empty when nothing needs saying", nullable=True),
        "matched_as_printed": yes_no("in the release under the repository and "
                                     "kind of link as printed (not through a "
                                     "former name or another kind of link)",
                                     nullable=True),
        "project": text("the release's project folder; empty when not in it",
                        nullable=True),
        "year": count("the report's year in the release; empty when not in it",
                      nullable=True),
        "final_label": text("the release's final label; empty when not in it",
                            nullable=True),
        "theme_matches": yes_no("whether the final label is the cited theme; "
                                "empty when not in the release", nullable=True),
        "annotator_labels": text("the annotators' labels in column order "
                                 "(`–` for a missing rating); empty when not "
                                 "in the release", nullable=True),
        "annotators_citing_theme": count("annotators whose label is the cited "
                                         "theme; empty when not in the release",
                                         nullable=True),
        "annotators": count("annotator columns of the release"),
        "claim_id": text("the scorecard claim of the example "
                         "(`examples.ref<N>`), whose verdict the Taxonomy page "
                         "shows"),
    })


EMPTY_THEMES = table(
    P.taxonomy.table("empty_themes.csv"),
    "One row per taxonomy theme that is no report's final label: how often "
    "annotators chose it, and what of the paper rests on it.", {
        "code": text("the theme code"),
        "name": text("the theme's name"),
        "type": text("the theme's issue type"),
        "label_choices": count("annotator label cells with this theme"),
        "issues_chosen": count("reports on which at least one annotator chose "
                               "it"),
        "most_on_one_issue": count("the most annotators who chose it on one "
                                   "report"),
        "final_labels_when_chosen": text("the final labels of those reports, "
                                         "most frequent first, with counts",
                                         nullable=True),
        "findings": text("the points of the paper's findings that speak of it "
                         "(data/examples.yaml)", nullable=True),
        "examples": text("the paper's cited examples for it, as [ref]",
                         nullable=True),
        "rankings": text("the interviewees' rankings that place it",
                         nullable=True),
    })


SCHEMAS = TableSchemas.of(
    TYPES,
    THEMES,
    SUBTHEMES,
    DETAILS,
    SPELLINGS,
    TESTS,
    RESIDUALS,
    SHARES,
    EXAMPLES,
    EMPTY_THEMES)
