"""Pandera schemas of every CSV the pipeline writes, and the data dictionaries built from them.

The website offers each table for download with a data dictionary (column, type, meaning,
example). The meanings live here, as the ``description`` of every pandera column, next to
the checks, so documentation and data are checked together: the schemas are strict, and
:func:`data_dictionary` refuses a column without a description, so a stage cannot ship a
new column undocumented.

The schemas must accept the tables of *any* dump (other projects, years, annotators,
participants, missing values), so they are loose on purpose:

- a column has a *kind* (integer, decimal number, yes/no, text) that is checked on its
  values whatever dtype pandas gave them: a frame read with pandas' defaults (numbers,
  ``NaN`` for empty cells, booleans) and a frame read as text (``dtype=str,
  keep_default_na=False``, as the website reads them) validate alike, and an empty cell is
  a missing value in both; no dtype is imposed and nothing is coerced;
- columns whose *names* come from the data (years, issue types, rating categories,
  participant ids, annotators) are regex columns with one description each;
- value checks only where the writing code guarantees them: counts are >= 0, shares lie in
  [0, 1] or [0, 100] as the code writes them, p-values in [0, 1], and words from a fixed
  list (statuses, rules) are in that list.

:data:`TABLE_SCHEMAS` maps each CSV, by its path relative to the project root, to a
function building its schema; :func:`schema_for` looks one up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import PurePath

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis.core.claims import STATUSES
from analysis.core.paths import Paths
from analysis.core.schemas import ANNOTATOR_DESCRIPTION, ISSUE_DESCRIPTIONS, ISSUE_URL_PATTERN

# Tables by their path relative to the project root (analysis.core.paths).
P = Paths(PurePath("."))


def rel(path: PurePath) -> str:
    return PurePath(path).as_posix()


# A reader's words for the kinds of values (the ``type`` of a data dictionary).
INTEGER = "integer"
DECIMAL = "decimal number"
TEXT = "text"
YES_NO = "yes/no"
KINDS = (INTEGER, DECIMAL, TEXT, YES_NO)

# Words shared by many descriptions.
LEVEL = "level: agreement.confidence_level in params.yaml"
BOOT_HOW = ("agreement.bootstrap_resamples resamples of all issues, seed agreement.seed; "
            f"{LEVEL}")
BOOT = f"percentile bootstrap interval ({BOOT_HOW})"
ANALYTIC_HOW = ("Gwet's linearised standard error with a Student t interval, upper end capped "
                f"at 1; {LEVEL}")
ANALYTIC = f"analytic interval ({ANALYTIC_HOW})"
COHEN_CI = ("asymptotic normal interval kappa ± z × standard error (statsmodels' standard "
            f"error; {LEVEL})")
EMPTY_UNDEFINED = "empty when not defined (see note)"
CATEGORY = ("a rating category: a theme code of data/taxonomy.yaml (e.g. C.3), or a label "
            "outside the taxonomy found in the data")
ANNOTATOR = ("an annotator column of the issues table (`annotator_<n>`, from the label "
             "files' column Label<n>)")
MIX_TABLE = ("the count table: `type_by_project`, `type_by_year`, `theme_by_project` or "
             "`theme_by_year` (issue type or theme of the final label, by project or year)")
COMPARE_STATUSES = ("new", "removed", "changed", "unchanged")
PARTICIPANT_TYPE = ("`User` (LLM user) or `Developer` (DL framework developer), from the "
                    "role's prefix (interviews.groups in params.yaml); `Unknown` when no "
                    "prefix matches")
CODEBOOK_TYPE = ("`User` or `Developer`, as the codebook gives it (spelled canonically); "
                 "another value is kept as written")


# --------------------------------------------------------------------------- value checks


def present(values: pd.Series) -> pd.Series:
    """Cells that hold a value: neither missing (NaN, None) nor the empty string.

    Why: read with pandas' defaults an empty CSV cell is NaN; read as text it is ``""``.
    """
    return values.notna() & (values.astype(str) != "")


def _is_bool(value: object) -> bool:
    return isinstance(value, bool | np.bool_)


def as_numbers(values: pd.Series) -> pd.Series:
    """Each cell as a float (NaN where it is missing or not a number).

    Numbers read as text (``"12"``, ``"0.5"``, ``"1e-05"``) count as numbers; booleans do
    not, so a yes/no column cannot pass as a count.
    """
    if pd.api.types.is_bool_dtype(values.dtype):
        return pd.Series(np.nan, index=values.index)
    if pd.api.types.is_numeric_dtype(values.dtype):
        return pd.Series(values.to_numpy(dtype=float, na_value=np.nan), index=values.index)
    cells = values.where(present(values) & ~values.map(_is_bool))
    return pd.to_numeric(cells, errors="coerce").astype(float)


def _kind_ok(kind: str, values: pd.Series) -> pd.Series:
    """Per cell: the value is of ``kind`` (missing cells pass; any value is text)."""
    if kind == TEXT:
        return pd.Series(True, index=values.index)
    if kind == YES_NO:
        ok = values.map(lambda v: _is_bool(v) or str(v) in ("True", "False"))
    else:
        numbers = as_numbers(values)
        ok = numbers.notna()
        if kind == INTEGER:
            ok &= np.isfinite(numbers) & (numbers % 1 == 0)
    return ok | ~present(values)


def kind_check(kind: str) -> pa.Check:
    """Every value of the column is of ``kind`` (integer, decimal number, yes/no, text)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {KINDS}")
    return pa.Check(lambda s: _kind_ok(kind, s), name=f"values_are_{kind.replace(' ', '_')}",
                    error=f"a value that is not of the kind {kind!r}")


def range_check(low: float | None = None, high: float | None = None) -> pa.Check:
    """Every number of the column lies in [low, high] (an open end when None)."""
    def ok(s: pd.Series) -> pd.Series:
        numbers = as_numbers(s)
        inside = pd.Series(True, index=s.index)
        if low is not None:
            inside &= numbers >= low
        if high is not None:
            inside &= numbers <= high
        return inside | numbers.isna()

    return pa.Check(ok, name=f"in_range_{low}_{high}", error=f"a number outside [{low}, {high}]")


def one_of(words: Iterable[str]) -> pa.Check:
    """Every value of the column is one of ``words`` (compared as text)."""
    allowed = frozenset(str(w) for w in words)
    return pa.Check(lambda s: s.astype(str).isin(allowed) | ~present(s),
                    name="one_of", error=f"a value outside {sorted(allowed)}")


def matches(pattern: str) -> pa.Check:
    """Every value of the column matches the regular expression ``pattern``."""
    return pa.Check(lambda s: s.astype(str).str.match(pattern) | ~present(s),
                    name="matches", error=f"a value not matching {pattern}")


def no_empty_cells() -> pa.Check:
    """No cell of the column is the empty string: pandera's ``nullable=False`` catches NaN,
    but a frame read as text writes a missing value as ``""``."""
    return pa.Check(present, name="no_empty_cells",
                    error="an empty cell in a column that always has a value")


# --------------------------------------------------------------------------- columns


def column(kind: str, description: str, *, nullable: bool = False,
           checks: Iterable[pa.Check] = (), regex: bool = False) -> pa.Column:
    """A documented column of a reader's ``kind``: no dtype imposed, nothing coerced.

    ``nullable`` says whether a cell may be empty (a missing value); a regex column (whose
    names come from the data) is optional, as another dump may have none of them.
    """
    if not description.strip():
        raise ValueError("every column needs a description")
    all_checks = [kind_check(kind), *checks]
    if not nullable:
        all_checks.append(no_empty_cells())
    return pa.Column(None, all_checks, nullable=nullable, coerce=False, regex=regex,
                     required=not regex, description=description, metadata={"type": kind})


def text(description: str, *, nullable: bool = False, words: Iterable[str] | None = None,
         pattern: str | None = None) -> pa.Column:
    """Text, optionally limited to a fixed list of ``words`` or to a ``pattern``."""
    checks = [one_of(words)] if words is not None else []
    checks += [matches(pattern)] if pattern is not None else []
    return column(TEXT, description, nullable=nullable, checks=checks)


def count(description: str, *, nullable: bool = False, regex: bool = False,
          low: int = 0, high: int | None = None) -> pa.Column:
    """A whole number of things (issues, ratings, rows): an integer >= ``low``."""
    return column(INTEGER, description, nullable=nullable, regex=regex,
                  checks=[range_check(low, high)])


def integer(description: str, *, nullable: bool = False) -> pa.Column:
    """A whole number that may be negative (a change between runs)."""
    return column(INTEGER, description, nullable=nullable)


def decimal(description: str, *, nullable: bool = True, low: float | None = None,
            high: float | None = None) -> pa.Column:
    """A decimal number, checked against [low, high] only where the code guarantees it."""
    checks = [range_check(low, high)] if low is not None or high is not None else []
    return column(DECIMAL, description, nullable=nullable, checks=checks)


def share(description: str, *, nullable: bool = True, top: float = 1.0) -> pa.Column:
    """A share as the code writes it: in [0, 1], or in [0, 100] for percentages."""
    return decimal(description, nullable=nullable, low=0.0, high=top)


def percent(description: str, *, nullable: bool = False) -> pa.Column:
    """A percentage in [0, 100]."""
    return share(description, nullable=nullable, top=100.0)


def yes_no(description: str, *, nullable: bool = False) -> pa.Column:
    """True/False, written ``True`` or ``False``."""
    return column(YES_NO, description, nullable=nullable)


def table(name: str, description: str, columns: dict[str, pa.Column],
          checks: Iterable[pa.Check] = ()) -> pa.DataFrameSchema:
    """A strict schema (an undescribed column fails validation) named after its file."""
    return pa.DataFrameSchema(columns, checks=list(checks), name=name, description=description,
                              strict=True, coerce=False)


# --------------------------------------------------------------------------- clean, findings


def issues_csv() -> pa.DataFrameSchema:
    """``data/processed/clean/issues.csv``: the processed issues table of the clean stage.

    The meanings are :mod:`analysis.core.schemas`' (the parquet schema's); annotators are one
    regex column, as their number comes from the dump.
    """
    d = ISSUE_DESCRIPTIONS
    return table(rel(P.clean.processed_file("issues.csv")),
                 "One row per labelled issue kept by the clean "
                 "stage: project, URL, year, the annotators' labels, the final label, its "
                 "type and theme, and where the row comes from.", {
                     "project": text(d["project"]),
                     "project_name": text(d["project_name"]),
                     "kind": text(d["kind"]),
                     "host": text(d["host"]),
                     "issue_url": text(d["issue_url"], pattern=ISSUE_URL_PATTERN),
                     "year": count(d["year"], low=1970, high=2100),
                     "type": text(d["type"]),
                     "final_label": text(d["final_label"]),
                     "theme": text(d["theme"]),
                     r"^annotator_\d+$": column(TEXT, ANNOTATOR_DESCRIPTION, nullable=True,
                                                regex=True),
                     "n_ratings": count(d["n_ratings"]),
                     "source_file": text(d["source_file"]),
                     "source_line": count(d["source_line"], low=2),
                     "flags": text(d["flags"], nullable=True),
                 })


def rejected_csv() -> pa.DataFrameSchema:
    """``data/processed/clean/rejected.csv``: label rows and year-file lines set aside."""
    return table(rel(P.clean.processed_file("rejected.csv")),
                 "Every label-file row and year-file line the "
                 "clean stage set aside, with the rule that set it aside.", {
                     "source_file": text("the file the row or line comes from, relative to "
                                         "data/raw: a label file (`<Project>.csv`), a year "
                                         "file (`<Project>_<year>.txt`) or an "
                                         "excluded-candidates file "
                                         "(`<Project>_excluded.csv`)"),
                     "source_line": count("its line number in that file (counting from 1)",
                                          low=1),
                     "reason": text("why it was set aside: the name of a set-aside rule of "
                                    "analysis.clean.issues.RULES (e.g. no_year: the URL is in no "
                                    "year file; unlabelled_year_url: a year-file URL without "
                                    "a label row; label_row_set_aside: the line's label row "
                                    "was set aside)"),
                     "raw": text("the row or line exactly as written in the file; empty for "
                                 "a blank line", nullable=True),
                 })


def excluded_csv() -> pa.DataFrameSchema:
    """``data/processed/clean/excluded.csv``: the excluded candidates a dump records."""
    return table(rel(P.clean.processed_file("excluded.csv")),
                 "Every candidate the annotators all excluded as a false positive, as the "
                 "dump records it (`<Project>_excluded.csv`, written by `python -m "
                 "analysis.labels merge`); never counted as an issue. Empty for a dump that "
                 "records none (the paper's release).", {
                     "project": text("the project's folder name under `Issue Report/`"),
                     "issue_url": text("the candidate's URL", pattern=ISSUE_URL_PATTERN),
                     "created_at": text("when the issue was opened, as the file gives it",
                                        nullable=True),
                     "year": count("the year of created_at; empty when it is not a date",
                                   nullable=True, low=1970, high=2100),
                     "source_file": text("the excluded-candidates file, relative to data/raw"),
                     "source_line": count("its line number in that file (counting from 1)",
                                          low=2),
                 })


def exclusions_csv() -> pa.DataFrameSchema:
    """``data/processed/clean/exclusions.csv``: per project, what Table I's false-positive
    rate is computed from."""
    return table(rel(P.clean.processed_file("exclusions.csv")),
                 "Per project: whether the dump records its excluded candidates, and the "
                 "counts Table I's false-positive rate (excluded / candidates) is computed "
                 "from.", {
                     "project": text("the project's folder name under `Issue Report/`"),
                     "recorded": yes_no("True when the project folder has an "
                                        "excluded-candidates file (`<Project>_excluded.csv`); "
                                        "False for a dump that does not record exclusions "
                                        "(the paper's release: the rate is then the paper's "
                                        "own, shown as reported)"),
                     "label_rows": count("the label file's rows (blank lines not counted): "
                                         "candidates that were not excluded"),
                     "excluded": count("excluded candidates counted (set-aside lines of the "
                                       "file not included); empty when not recorded",
                                       nullable=True),
                     "candidates": count("label_rows + excluded: every candidate the "
                                         "annotators saw; empty when not recorded",
                                         nullable=True),
                 })


def scorecard_csv() -> pa.DataFrameSchema:
    """``report/tables/findings/scorecard.csv``: every number of the paper beside ours."""
    return table(rel(P.findings.scorecard),
                 "Every number the paper prints (data/claims.yaml) beside the value this run "
                 "reproduces, with a verdict.", {
                     "claim_id": text("the claim's id in data/claims.yaml: where the number "
                                      "is from, then what it counts (e.g. "
                                      "table1.pytorch.2023)"),
                     "description": text("what the number is, in words", nullable=True),
                     "paper_value": text("the value exactly as the paper prints it (e.g. "
                                         "38,742, 0.757 or 12.34%)"),
                     "reproduced_value": text("this run's value, printed with the paper's "
                                              "precision plus two more decimals; empty when "
                                              "not reproduced", nullable=True),
                     "status": text("`exact` (equal at the paper's printed precision; for "
                                    "an 'over N' claim, satisfied), `rounding` (off by at "
                                    "most one unit in the paper's last printed digit), "
                                    "`differs`, or `not_reproducible` (the released data "
                                    "cannot give this number)", words=STATUSES),
                     "note": text("where this run's value comes from, or why it cannot be "
                                  "reproduced; empty when there is nothing to add",
                                  nullable=True),
                     "source": text("where the paper prints the number (e.g. Table I, "
                                    "Section III.B)", nullable=True),
                     "relation": text("the comparator of the paper's statement: `=` (it "
                                      "states the value), `>`, `>=`, `<`, `<=` (a bound, "
                                      "e.g. 'over three' is `>` 3) or `~` (about)",
                                      words=("=", ">", ">=", "<", "<=", "~")),
                 })


def _status_columns() -> dict[str, pa.Column]:
    """The claims and the claims per verdict, as the findings stage counts them."""
    return {"claims": count("claims"),
            **{s: count(f"claims whose verdict is `{s}`") for s in STATUSES}}


def findings_status_by_source_csv() -> pa.DataFrameSchema:
    """``report/tables/findings/status_by_source.csv``: verdicts per place in the paper."""
    return table(rel(P.findings.table("status_by_source.csv")),
                 "The scorecard's verdicts per place in the paper, in the paper's order.", {
                     "source": text("where the paper prints the claims (the scorecard's "
                                    "source)", nullable=True),
                     "place": count("its place in the paper's order (1 first: the Abstract, "
                                    "then the sections in order, a table after its "
                                    "section's text); places the order cannot tell apart "
                                    "share one", low=1),
                     **_status_columns(),
                 })


def findings_status_by_group_csv() -> pa.DataFrameSchema:
    """``report/tables/findings/status_by_group.csv``: verdicts per claim group."""
    return table(rel(P.findings.table("status_by_group.csv")),
                 "The scorecard's verdicts per claim group (the first part of a claim's id: "
                 "the page that lists it).", {
                     "group": text("the claim group (e.g. taxonomy, agreement, examples)"),
                     **_status_columns(),
                     "folded": count("exact claims the group's page folds away (the "
                                     "sub-theme count of each theme)"),
                 })


def findings_claim_groups_csv() -> pa.DataFrameSchema:
    """``report/tables/findings/claim_groups.csv``: the group of every claim."""
    return table(rel(P.findings.table("claim_groups.csv")),
                 "Per claim of the scorecard: its group and whether its page folds it.", {
                     "claim_id": text("the claim's id in data/claims.yaml"),
                     "group": text("the first part of the id: the page that lists the claim"),
                     "folded": yes_no("True for an exact claim in a long run of similar ones "
                                      "(the sub-theme count of each theme), which the page "
                                      "lists in a folded box"),
                 })


def findings_challenges_csv() -> pa.DataFrameSchema:
    """``report/tables/findings/challenges.csv``: the reports each challenge rests on."""
    return table(rel(P.findings.table("challenges.csv")),
                 "Per challenge of Section V.A (data/challenges.yaml): the reports whose "
                 "final label is one of its themes; a theme may serve several challenges.", {
                     "challenge": count("the challenge's number in the paper", low=1),
                     "title": text("its title"),
                     "themes": text("its themes (our reading of the paper), separated by "
                                    "`, `"),
                     "issues": count("reports whose final label is one of them"),
                     "share_percent": percent("their share of all reports; empty without "
                                              "reports", nullable=True),
                     "highest_project": text("the project where that share of its reports "
                                             "is highest (display name); empty without "
                                             "projects", nullable=True),
                     "highest_share_percent": percent("that share", nullable=True),
                     "lowest_project": text("the project where it is lowest", nullable=True),
                     "lowest_share_percent": percent("that share", nullable=True),
                 })


def findings_dominant_csv() -> pa.DataFrameSchema:
    """``report/tables/findings/dominant.csv``: challenges that one theme dominates."""
    return table(rel(P.findings.table("dominant.csv")),
                 "The challenges of which one theme holds more than findings.dominant_share "
                 "percent of the reports (params.yaml), with what they keep without it.", {
                     "challenge": count("the challenge's number in the paper", low=1),
                     "title": text("its title"),
                     "theme": text("the theme that dominates it"),
                     "theme_issues": count("the theme's reports"),
                     "total": count("the challenge's reports"),
                     "share_percent": percent("theme_issues / total × 100"),
                     "without": count("the challenge's reports without the theme"),
                 })


# --------------------------------------------------------------------------- Table I


def table1_csv() -> pa.DataFrameSchema:
    """``report/tables/table1/counts.csv``: Table I of the paper, reproduced."""
    # issue types are the capitalised names of data/taxonomy.yaml (Question, Bug, ...)
    type_names = r"^(?!Total$)[A-Z][A-Za-z ]*$"
    return table(rel(P.table1.table("counts.csv")),
                 "Table I of the paper: issue reports per project by year and by issue type; "
                 "the last row (`Sum`) adds up all projects.", {
                     "project": text("the project's folder name under `Issue Report/` in the "
                                     "dump; `Sum` on the last row, which adds up all "
                                     "projects"),
                     "name": text("the project's display name (data/projects.yaml; the "
                                  "folder name when not listed there); `All projects` on "
                                  "the Sum row"),
                     "kind": text("`framework` (a DL framework) or `toolkit` (an LLM "
                                  "toolkit), from data/projects.yaml; `unknown` for a "
                                  "project not listed there; empty on the Sum row",
                                  nullable=True),
                     r"^\d{4}$": count("one column per year found in the dump (e.g. 2023): "
                                       "the project's issue reports from that year",
                                       regex=True),
                     type_names: count("one column per issue type (Question, Bug, "
                                       "Requirement): the project's issue reports whose "
                                       "final label is a theme of that type", regex=True),
                     "Total": count("all the project's issue reports (the sum of its type "
                                    "columns, and of its year columns)"),
                 })


def table1_false_positives_csv() -> pa.DataFrameSchema:
    """``report/tables/table1/false_positives.csv``: Table I's false-positive column."""
    return table(rel(P.table1.table("false_positives.csv")),
                 "Table I's false-positive column: per project, the share of candidates the "
                 "annotators excluded, computed where the dump records its excluded "
                 "candidates, else the paper's own rate (reported); the last row (`Sum`) "
                 "holds the average of the projects' rates.", {
                     "project": text("the project's folder name under `Issue Report/`; "
                                     "`Sum` on the last row"),
                     "name": text("the project's display name; `All projects` on the Sum "
                                  "row"),
                     "excluded": count("candidates all annotators excluded as false "
                                       "positives (data/processed/clean/exclusions.csv); "
                                       "empty when the rate is not computed; on the Sum "
                                       "row, the total over the computed projects",
                                       nullable=True),
                     "candidates": count("every candidate of the project (label rows + "
                                         "excluded); empty when the rate is not computed",
                                         nullable=True),
                     "false_positive_percent": percent(
                         "excluded / candidates × 100 when computed; the paper's printed "
                         "rate when reported; on the Sum row, the mean of the projects' "
                         "rates (computed ones when any, else reported); empty when none",
                         nullable=True),
                     "source": text("`computed` (from the dump's excluded candidates), "
                                    "`reported` (the paper's Table I: the release does not "
                                    "record its excluded reports) or `none`",
                                    words=("computed", "reported", "none")),
                 })


def table1_type_shares_csv() -> pa.DataFrameSchema:
    """``report/tables/table1/type_shares.csv``: the type mix of every row of Table I."""
    return table(rel(P.table1.table("type_shares.csv")),
                 "Per row of Table I (the Sum row too): the share of each issue type among "
                 "the row's issue reports.", {
                     "project": text("the project's folder name; `Sum` on the last row"),
                     r"^(?!Total$)[A-Z][A-Za-z ]*$": column(
                         DECIMAL, "one column per issue type (Question, Bug, Requirement): "
                         "the type's issue reports as a percentage of the row's (0 for a row "
                         "without reports)", regex=True, checks=[range_check(0.0, 100.0)]),
                 })


def table1_claims_csv() -> pa.DataFrameSchema:
    """``report/tables/table1/claims.csv``: the claim of the paper each cell of Table I is."""
    return table(rel(P.table1.table("claims.csv")),
                 "Per cell of Table I that the paper prints: its row, its column and the "
                 "scorecard claim that checks it.", {
                     "project": text("the row: a project's folder name, or `Sum`"),
                     "column": text("the column: a year, an issue type, `Total` (the Sum "
                                    "row's total) or `false_positive`"),
                     "claim_id": text("the claim's id in data/claims.yaml (e.g. "
                                      "table1.pytorch.2023)"),
                 })


# --------------------------------------------------------------------------- taxonomy

DETAILS_COMMA = ("details (symptoms, intents or expectations) of the released detail files, "
                 "counted by splitting on every comma as the paper counts")
DETAILS_PARENS = ("the same details counted without splitting at commas inside parentheses "
                  "(\"(e.g., a, b)\" stays one item)")


def taxonomy_types_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/types.csv``: the taxonomy's size per issue type."""
    return table(rel(P.taxonomy.table("types.csv")),
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


def taxonomy_themes_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/themes.csv``: one row per theme."""
    return table(rel(P.taxonomy.table("themes.csv")),
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


def taxonomy_subthemes_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/subthemes.csv``: one row per sub-theme."""
    return table(rel(P.taxonomy.table("subthemes.csv")),
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


def taxonomy_details_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/details.csv``: every detail item."""
    return table(rel(P.taxonomy.table("details.csv")),
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


def taxonomy_spellings_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/spellings.csv``: how the detail files spell names."""
    return table(rel(P.taxonomy.table("spellings.csv")),
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


def taxonomy_tests_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/tests.csv``: chi-square tests of the type and theme mix."""
    no_test = "empty when fewer than two rows or columns are left (no test)"
    return table(rel(P.taxonomy.table("tests.csv")),
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
                     "chi2": decimal(f"Pearson's chi-square statistic; {no_test}", low=0.0),
                     "dof": count("degrees of freedom of the test (0 when there is no "
                                  "test)"),
                     "p_value": share(f"p-value of the test (0-1); {no_test}. With tens of "
                                      "thousands of issues almost any difference is "
                                      "significant: read cramers_v"),
                     "cramers_v": decimal("Cramér's V, the effect size (0 = the same mix "
                                          f"everywhere, 1 = completely different); {no_test}",
                                          low=0.0),
                     "min_expected": decimal("the smallest expected count of a cell under "
                                             f"independence; {no_test}", low=0.0),
                     "share_expected_below_5": share("share of cells whose expected count is "
                                                     f"below 5 (0-1); {no_test}"),
                 })


def taxonomy_residuals_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/residuals.csv``: the tests cell by cell."""
    return table(rel(P.taxonomy.table("residuals.csv")),
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


def taxonomy_shares_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/shares.csv``: the count tables in long form."""
    return table(rel(P.taxonomy.table("shares.csv")),
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


# --------------------------------------------------------------------------- agreement


def _coefficient_columns(short: str, name: str, how: str,
                         analytic: bool = True) -> dict[str, pa.Column]:
    """A coefficient of the headline table (``short``: its column prefix, ``name``: what a
    reader calls it, ``how``: how it is computed) with its bootstrap and, if ``analytic``,
    its analytic interval."""
    cols = {
        short: decimal(f"{name} {how}; empty when not defined"),
        f"{short}_boot_low": decimal(f"lower end of the percentile bootstrap interval of "
                                     f"{name} ({BOOT_HOW})"),
        f"{short}_boot_high": decimal(f"upper end of the same bootstrap interval of {name}"),
    }
    if analytic:
        cols[f"{short}_ci_low"] = decimal(f"lower end of the analytic interval of {name} "
                                          f"({ANALYTIC_HOW})")
        cols[f"{short}_ci_high"] = decimal(f"upper end of the same analytic interval of {name}")
    return cols


def agreement_headline_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/headline.csv``: the paper's kappas beside ours."""
    return table(rel(P.agreement.table("headline.csv")),
                 "The paper's Fleiss' kappa per issue "
                 "type beside ours (Section III.B), with intervals, Krippendorff's alpha and "
                 "Gwet's AC1: one row per issue type and one for all issues.", {
                     "group": text("the issues of the row: an issue type (issues whose final "
                                   "label is a theme of that type) or `all issues`"),
                     "issues": count("issues in the group"),
                     "paper_kappa": decimal("the kappa the paper prints for this group "
                                            "(data/claims.yaml), as printed; empty when it "
                                            "prints none"),
                     "issues_kappa": count("issues the complete-rows Fleiss' kappa uses: "
                                           "those rated by every annotator"),
                     "issues_kappa_gen": count("issues the generalised Fleiss' kappa "
                                               "averages agreement over: those with two or "
                                               "more ratings"),
                     **_coefficient_columns("kappa", "Fleiss' kappa", "over all theme "
                                            "codes, complete rows (issues with a missing "
                                            "rating left out)"),
                     **_coefficient_columns("kappa_gen", "Gwet's generalised Fleiss' kappa",
                                            "over all theme codes (every issue with two or "
                                            "more ratings; the theme shares from every issue "
                                            "with a rating; as irrCAC's fleiss())"),
                     **_coefficient_columns("alpha", "Krippendorff's alpha", "(nominal; every "
                                            "rating used)"),
                     **_coefficient_columns("ac1", "Gwet's AC1", "assuming "
                                            "agreement.ac1_categories categories (params.yaml; "
                                            "every rating used)"),
                     **_coefficient_columns("type_kappa", "Fleiss' kappa on the issue type "
                                            "alone", "(each label replaced by its type: how "
                                            "far annotators agree on Question, Requirement "
                                            "or Bug)", analytic=False),
                     "observed": decimal("observed agreement behind Fleiss' kappa: the share "
                                         "of agreeing annotator pairs on an issue, averaged "
                                         "over the issues"),
                     "chance": decimal("chance agreement behind Fleiss' kappa: the sum of the "
                                       "squared shares of the theme codes in the group "
                                       "(kappa = (observed - chance) / (1 - chance))"),
                     "left_out": count("issues of the group left out of Fleiss' kappa "
                                       "because at least one rating is missing"),
                 })


def agreement_statistics_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/statistics.csv``: every coefficient, every group."""
    return table(rel(P.agreement.table("statistics.csv")),
                 "Every agreement coefficient for "
                 "all issues and for each issue type, project and year, with analytic and "
                 "bootstrap intervals: one row per group and coefficient.", {
                     "grouping": text("how the issues are grouped: `all`, `type` (issue type "
                                      "of the final label), `project` or `year`",
                                      words=("all", "type", "project", "year")),
                     "group": text("the group: `all issues`, an issue type, a project's "
                                   "folder name or a year"),
                     "statistic": text("the coefficient: `fleiss_kappa` (complete rows), "
                                       "`fleiss_kappa_generalised` (Gwet's generalised "
                                       "estimator, every issue with two or more ratings), "
                                       "`krippendorff_alpha` (nominal), `gwet_ac1`, or "
                                       "`fleiss_kappa_type` (Fleiss' kappa on the issue type "
                                       "alone, complete rows)",
                                       words=("fleiss_kappa", "fleiss_kappa_generalised",
                                              "krippendorff_alpha", "gwet_ac1",
                                              "fleiss_kappa_type")),
                     "level": text("the scale it is computed on: `theme` (theme codes) or "
                                   "`type` (issue types)", words=("theme", "type")),
                     "value": decimal(f"the coefficient's value; {EMPTY_UNDEFINED}"),
                     "observed": decimal("the observed agreement it is built from "
                                         "(coefficient = (observed - chance) / (1 - chance)); "
                                         "empty when it cannot be computed"),
                     "chance": decimal("the chance agreement it is built from; empty when it "
                                       "cannot be computed"),
                     "se": decimal("analytic standard error (Gwet's linearised variance, as "
                                   "the irrCAC package computes it); empty when not defined"),
                     "ci_low": decimal("lower end of the analytic interval: Student t with "
                                       "n - 1 degrees of freedom around the value, n the "
                                       "issues with a rating (issues_used for Fleiss' kappa) "
                                       f"({LEVEL}); empty when not defined"),
                     "ci_high": decimal("upper end of the same analytic interval, capped at "
                                        "1; empty when not defined"),
                     "boot_low": decimal(f"lower end of the {BOOT}; empty when not defined"),
                     "boot_high": decimal("upper end of the same bootstrap interval; empty "
                                          "when not defined"),
                     "issues": count("issues in the group"),
                     "issues_used": count("issues the coefficient uses: for Fleiss' kappa "
                                          "those rated by every annotator, for the "
                                          "generalised Fleiss' kappa and alpha those with two "
                                          "or more ratings, for AC1 those with at least one"),
                     "issues_left_out": count("issues of the group the coefficient leaves "
                                              "out"),
                     "note": text("why the coefficient is not defined, or how many bootstrap "
                                  "resamples were not; empty otherwise", nullable=True),
                 })


def agreement_categories_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/categories.csv``: agreement per theme code."""
    return table(rel(P.agreement.table("categories.csv")),
                 "Agreement per rating category: "
                 "Fleiss' per-category kappa with a bootstrap interval, the share of ratings "
                 "and the specific agreement, over the issues rated by every annotator.", {
                     "code": text(f"the category: {CATEGORY}"),
                     "type": text("the category's issue type; `unknown` for a label outside "
                                  "the taxonomy"),
                     "name": text("the theme's name; empty for a label outside the "
                                  "taxonomy", nullable=True),
                     "ratings": count("ratings of this category on the issues rated by "
                                      "every annotator"),
                     "share": share("this category's share of all those ratings (0-1)"),
                     "kappa": decimal("Fleiss' (1971) kappa of this category; empty when "
                                      "not defined (no rating, or every rating, in it)"),
                     "boot_low": decimal(f"lower end of the {BOOT}; empty when not defined"),
                     "boot_high": decimal("upper end of the same bootstrap interval; empty "
                                          "when not defined"),
                     "specific_agreement": share("agreeing annotator pairs among the pairs "
                                                 "that involve this category (0-1); empty "
                                                 "when it has no rating"),
                     "note": text("why the kappa is not defined; empty otherwise",
                                  nullable=True),
                 })


def agreement_grouping_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/grouping.csv``: how the type grouping moves kappa."""
    return table(rel(P.agreement.table("grouping.csv")),
                 "Fleiss' kappa per issue type under "
                 "three rules for deciding an issue's type, beside the paper's kappas: the "
                 "rule that matches all three is the paper's grouping.", {
                     "grouping": text("the rule's short name: `final label`, `first "
                                      "annotator` or `unanimous type`",
                                      words=("final label", "first annotator",
                                             "unanimous type")),
                     "rule": text("what the rule does, in words"),
                     "type": text("the issue type"),
                     "issues": count("issues the rule gives this type that every annotator "
                                     "rated (Fleiss' kappa uses only those)"),
                     "observed": decimal("observed agreement: the share of agreeing "
                                         "annotator pairs on an issue, averaged; empty when "
                                         "there are no issues"),
                     "chance": decimal("chance agreement: the sum of the squared shares of "
                                       "the theme codes; empty when there are no issues"),
                     "kappa": decimal("Fleiss' kappa over all theme codes for these issues "
                                      "(complete rows); empty when not defined"),
                     "issues_generalised": count("issues the rule gives this type that have "
                                                 "two or more ratings (the generalised "
                                                 "estimator averages over those)"),
                     "kappa_generalised": decimal("Gwet's generalised Fleiss' kappa over all "
                                                  "theme codes for the issues of this type; "
                                                  "empty when not defined"),
                     "paper_kappa": decimal("the kappa the paper prints for this type "
                                            "(data/claims.yaml); empty when it prints none"),
                     "matches_paper": yes_no("whether this kappa equals the paper's at the "
                                             "paper's printed precision"),
                 })


def _cohen_columns() -> dict[str, pa.Column]:
    """Cohen's kappa with its interval and note (pairwise and against the final label)."""
    return {
        "kappa": decimal(f"Cohen's kappa (statsmodels); {EMPTY_UNDEFINED}"),
        "ci_low": decimal(f"lower end of the {COHEN_CI}; empty when not defined"),
        "ci_high": decimal("upper end of the same interval; empty when not defined"),
        "note": text("why the kappa is not defined; empty otherwise", nullable=True),
    }


def agreement_pairwise_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/pairwise.csv``: Cohen's kappa between annotators."""
    return table(rel(P.agreement.table("pairwise.csv")),
                 "Cohen's kappa between every pair of "
                 "annotators; each pair is listed in both orders (for the heatmap).", {
                     "annotator_a": text(f"one annotator: {ANNOTATOR}"),
                     "annotator_b": text("the other annotator"),
                     "n": count("issues both annotators labelled"),
                     "agreement": share("share of those issues on which both gave the same "
                                        "label (0-1); empty when there are none"),
                     **_cohen_columns(),
                 })


def agreement_annotator_final_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/annotator_final.csv``: each annotator vs. the final label."""
    return table(rel(P.agreement.table("annotator_final.csv")),
                 "Each annotator against the "
                 "final label: raw agreement and Cohen's kappa.", {
                     "annotator": text(f"the annotator: {ANNOTATOR}"),
                     "n": count("issues the annotator labelled"),
                     "agreement": share("share of them on which the annotator's label equals "
                                        "the final label (0-1); empty when there are none"),
                     **_cohen_columns(),
                 })


def agreement_confusions_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/confusions.csv``: themes that annotators mix up."""
    return table(rel(P.agreement.table("confusions.csv")),
                 "Pairs of rating categories that "
                 "annotators gave to the same issue, most frequent first (each unordered "
                 "pair once).", {
                     "label_a": text(f"one category of the pair (the earlier on the rating "
                                     f"scale): {CATEGORY}"),
                     "label_b": text("the other category"),
                     "type_a": text("issue type of label_a (`unknown` outside the "
                                    "taxonomy)"),
                     "type_b": text("issue type of label_b (`unknown` outside the "
                                    "taxonomy)"),
                     "rater_pairs": count("pairs of annotators who, on the same issue, gave "
                                          "one label_a and the other label_b, summed over "
                                          "all issues"),
                     "issues": count("issues on which both labels were given"),
                     "share_of_disagreements": share("rater_pairs as a share of all "
                                                     "disagreeing annotator pairs (0-1)",
                                                     nullable=False),
                 })


def agreement_top_confusions_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/top_confusions.csv``: the pair annotators confused most."""
    return table(rel(P.agreement.table("top_confusions.csv")),
                 "The pair of rating categories annotators confused most often (the first "
                 "row of confusions.csv, ties by label): over all reports, and among the "
                 "pairs of two themes of each issue type.", {
                     "scope": text("`all` (every pair), or an issue type: the pairs whose "
                                   "two categories are of that type"),
                     "label_a": text(f"one category of the pair: {CATEGORY}"),
                     "label_b": text("the other category"),
                     "type_a": text("issue type of label_a (`unknown` outside the "
                                    "taxonomy)"),
                     "type_b": text("issue type of label_b"),
                     "rater_pairs": count("pairs of annotators who gave one label_a and the "
                                          "other label_b on the same issue, summed over all "
                                          "issues"),
                     "issues": count("issues on which both labels were given"),
                 })


def agreement_audit_final_by_project_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_final_by_project.csv``: labels equal to the final."""
    return table(rel(P.agreement.table("audit_final_by_project.csv")),
                 "How often each "
                 "annotator's label equals the final label, over all issues and per "
                 "project.", {
                     "stratum": text("`all` (every issue) or a project's folder name"),
                     "annotator": text(f"the annotator: {ANNOTATOR}"),
                     "rated": count("issues of the stratum the annotator labelled"),
                     "equal": count("of those, issues where the label equals the final "
                                    "label"),
                     "share": share("equal / rated (0-1); empty when rated is 0"),
                     "issues": count("issues of the stratum with at least one rating (the "
                                     "same on every row of the stratum)"),
                 })


DISSENT = ("a dissenting label is an annotator's label that differs from the final label; "
           "a missing rating is neither agreement nor dissent")


def agreement_audit_dissent_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_dissent.csv``: dissenters per issue."""
    independent = ("expected issues with that many dissenters if annotators erred "
                   "independently (a Poisson-binomial distribution per issue), each at")
    return table(rel(P.agreement.table("audit_dissent.csv")),
                 "Issues by the number of "
                 f"annotators dissenting from the final label, observed and expected under "
                 f"independent errors ({DISSENT}).", {
                     "dissenters": count("the number of annotators whose label differs from "
                                         "the final label (0 up to the number of "
                                         "annotators)"),
                     "observed": count("issues with exactly that many dissenters"),
                     "expected_pooled": decimal(f"{independent} their dissent rate over all "
                                                "issues", nullable=False, low=0.0),
                     "expected_by_project": decimal(f"{independent} their dissent rate in "
                                                    "the issue's project", nullable=False,
                                                    low=0.0),
                     "expected_by_project_majority": decimal(
                         "as expected_by_project, given that the final label is a strict "
                         "majority of the issue's ratings (as under a majority vote)",
                         nullable=False, low=0.0),
                 })


def agreement_audit_tests_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_tests.csv``: independence models tested."""
    return table(rel(P.agreement.table("audit_tests.csv")),
                 "Does dissent behave like "
                 "independent errors? One row per independence model: a chi-square test of "
                 "the dissent distribution, the variance ratio and the extremes.", {
                     "model": text("the independence model, in words"),
                     "column": text("the column of agreement_audit_dissent.csv holding the "
                                    "model's expected counts",
                                    words=("expected_pooled", "expected_by_project",
                                           "expected_by_project_majority")),
                     "chi2": decimal("Pearson's chi-square of observed against expected "
                                     "issues per number of dissenters (tail bins pooled "
                                     "until every expected count is at least 5; approximate, "
                                     "as the rates come from the same data); empty when "
                                     "fewer than two bins remain", low=0.0),
                     "dof": count("degrees of freedom: bins - 1 (0 when there is no test)"),
                     "p_value": share("p-value of the test (0-1); empty when there is no "
                                      "test"),
                     "bins": count("bins left after pooling"),
                     "variance_observed": decimal("variance of the number of dissenters per "
                                                  "issue, observed", low=0.0),
                     "variance_expected": decimal("the same variance under the model",
                                                  low=0.0),
                     "variance_ratio": decimal("variance_observed / variance_expected: above "
                                               "1, dissent gathers on some issues more than "
                                               "independent errors would; empty when the "
                                               "expected variance is 0", low=0.0),
                     "no_dissent_observed": count("issues on which every label equals the "
                                                  "final label, observed"),
                     "no_dissent_expected": decimal("the same, expected under the model",
                                                    low=0.0),
                     "max_observed": count("the most dissenters observed on one issue"),
                     "expected_above_max_observed": decimal("issues the model expects to "
                                                            "have more dissenters than ever "
                                                            "observed", low=0.0),
                 })


def agreement_audit_co_dissent_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_co_dissent.csv``: two annotators dissenting together."""
    return table(rel(P.agreement.table("audit_co_dissent.csv")),
                 "How often two annotators "
                 f"dissent from the final label on the same issue, against independence "
                 f"({DISSENT}).", {
                     "annotator_a": text(f"the first annotator of the pair: {ANNOTATOR}"),
                     "annotator_b": text("the second annotator of the pair (a later column)"),
                     "both_dissent": count("issues on which both dissent"),
                     "expected": decimal("issues on which both would dissent if each erred "
                                         "independently at their dissent rate in the issue's "
                                         "project", nullable=False, low=0.0),
                     "ratio": decimal("both_dissent / expected; empty when expected is 0",
                                      low=0.0),
                     "expected_majority": decimal("the same expectation, given that the final "
                                                  "label is a strict majority of the issue's "
                                                  "ratings", nullable=False, low=0.0),
                     "ratio_majority": decimal("both_dissent / expected_majority; empty when "
                                               "expected_majority is 0", low=0.0),
                 })


def _kappa_pair_columns(what: str) -> dict[str, pa.Column]:
    """Both Fleiss' kappa estimators of a sensitivity table, with the issues each uses and
    the change against all columns."""
    return {
        "type": text("the issue type of the final label, or `all issues`"),
        "issues": count(f"issues rated by every remaining annotator ({what}; the "
                        "complete-rows kappa uses those)"),
        "kappa": decimal("Fleiss' kappa over all theme codes, complete rows; empty when not "
                         "defined"),
        "issues_generalised": count("issues with two or more remaining ratings (the "
                                    "generalised kappa averages over those)"),
        "kappa_generalised": decimal("Gwet's generalised Fleiss' kappa; empty when not "
                                     "defined"),
        "change": decimal("kappa minus the complete-rows kappa with all columns; empty when "
                          "either is not defined"),
        "change_generalised": decimal("kappa_generalised minus the generalised kappa with "
                                      "all columns; empty when either is not defined"),
    }


def agreement_audit_leave_one_out_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_leave_one_out.csv``: each column left out."""
    return table(rel(P.agreement.table("audit_leave_one_out.csv")),
                 "Fleiss' kappa per issue type "
                 "and over all issues with every label column, then with each column left "
                 "out in turn: how much each kappa depends on each column.", {
                     "left_out": text(f"the label column left out ({ANNOTATOR}), or `none`"),
                     "annotators": count("label columns used"),
                     **_kappa_pair_columns("after leaving the column out"),
                 })


def agreement_audit_always_final_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_always_final.csv``: columns always equal to final."""
    return table(rel(P.agreement.table("audit_always_final.csv")),
                 "Label columns whose label "
                 "equals the final label on every report of a project they rated: one row per "
                 "project and column (no row when there is none).", {
                     "project": text("the project's folder name"),
                     "annotator": text(f"the label column: {ANNOTATOR}"),
                     "issues": count("reports of the project the column rated (all equal to "
                                     "the final label)", low=1),
                 })


def agreement_audit_sensitivity_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_sensitivity.csv``: kappas without those columns."""
    return table(rel(P.agreement.table("audit_sensitivity.csv")),
                 "Fleiss' kappa per issue type "
                 "without the label columns that equal the final label on every report of a "
                 "project (audit_always_final.csv): with all columns, with those ratings set "
                 "missing in those projects only, and with the columns left out everywhere; "
                 "empty when no column does.", {
                     "scenario": text("`all columns`, `without in those projects` or "
                                      "`without everywhere`",
                                      words=("all columns", "without in those projects",
                                             "without everywhere")),
                     "columns": text("the label columns left out (comma-separated); empty "
                                     "for `all columns`", nullable=True),
                     **_kappa_pair_columns("in the scenario"),
                 })


def categories_match_rows(frame: pd.DataFrame) -> bool:
    """The category columns of the targets table are its rows' final labels, in order
    (both are the rating scale), so no other column can pass as a category."""
    return [str(c) for c in frame.columns[1:]] == [str(v) for v in frame["final_label"]]


def agreement_audit_targets_csv(categories: Iterable[str] | None = None
                                ) -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_targets.csv``: where dissenting labels go.

    The category columns are named by the data: every label found, including labels
    outside the taxonomy, which may be any text. Given the ``categories`` (the table's
    ``final_label`` values, as :func:`schema_for` passes them) each is a column of its own,
    so any other column is undocumented; without them one pattern takes every name but
    ``final_label``, and a table-wide check ties the columns to the rows.
    """
    about = ("one column per rating category (theme codes such as A.1 to C.10, then any "
             "label outside the taxonomy), in the order of the rows: annotators' labels "
             "naming this category on issues whose final label is the row's, i.e. "
             "dissenting labels given instead of it (0 on the diagonal)")
    if categories is None:
        columns = {r"^(?!final_label$).+$": count(about, regex=True)}
    else:
        columns = {str(c): count(about) for c in categories}
    return table(rel(P.agreement.table("audit_targets.csv")),
                 "Where dissenting labels go: "
                 "for each final label (rows), how many dissenting labels named each "
                 "category (columns).", {
                     "final_label": text(f"the final label: {CATEGORY}"),
                     **columns,
                 }, checks=[pa.Check(categories_match_rows, name="columns_are_the_rows",
                                     error="the category columns differ from the rows")])


def agreement_audit_spread_csv() -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_spread.csv``: concentrated or even dissent."""
    return table(rel(P.agreement.table("audit_spread.csv")),
                 "For each final label: do its "
                 "dissenting labels gather on a few themes of the same issue type, or spread "
                 "evenly over them?", {
                     "final_label": text(f"the final label: {CATEGORY}"),
                     "type": text("its issue type (`unknown` outside the taxonomy)"),
                     "name": text("the theme's name; empty outside the taxonomy",
                                  nullable=True),
                     "dissenting_labels": count("annotators' labels that differ from this "
                                                "final label, on the issues that have it"),
                     "within_type": count("of those, labels naming another theme of the "
                                          "same issue type"),
                     "within_type_share": share("within_type / dissenting_labels (0-1); "
                                                "empty when there is no dissent"),
                     "alternatives": count("the other themes of the same type (the possible "
                                           "alternatives)"),
                     "top_alternative": text("the alternative that dissenting labels name "
                                             "most often; empty when none does",
                                             nullable=True),
                     "top_share": share("its share of the within-type dissenting labels "
                                        "(0-1); empty when none"),
                     "even_share": share("the share each alternative would get if dissent "
                                         "were spread evenly, 1 / alternatives (0-1); empty "
                                         "when there is no alternative"),
                     "evenness": decimal("normalised Shannon entropy of the within-type "
                                         "dissenting labels over the alternatives (1 = "
                                         "perfectly even, 0 = all on one); empty with fewer "
                                         "than two alternatives or no dissent", low=0.0),
                     "chi2": decimal("chi-square statistic of the test that every alternative "
                                     "is equally likely; empty when there is no within-type "
                                     "dissent or fewer than two alternatives", low=0.0),
                     "p_value": share("p-value of that test (0-1); empty when there is no "
                                      "test"),
                 })


# --------------------------------------------------------------------------- compare

BASELINE = ("the baseline: the committed snapshot of this pipeline's run on the paper's dump "
            "(compare.baseline in params.yaml)")


def _change_columns(thing: str) -> dict[str, pa.Column]:
    """Status, both runs' counts and the change, for one row of a compare table."""
    return {
        "status": text(f"`new` (only in the current run), `removed` (only in the baseline), "
                       f"`changed` or `unchanged` ({BASELINE})", words=COMPARE_STATUSES),
        "baseline": count(f"{thing} in the baseline (0 when new)"),
        "current": count(f"{thing} in the current run (0 when removed)"),
        "change": integer("current - baseline (negative when the current run has fewer)"),
        "change_percent": decimal("the change as a percentage of the baseline, rounded to 2 "
                                  "decimals; empty when the baseline has none"),
    }


def compare_projects_csv() -> pa.DataFrameSchema:
    """``report/tables/compare/projects.csv``: issues per project in both runs."""
    return table(rel(P.compare.table("projects.csv")),
                 "The current run against the baseline: "
                 "issues per project (Table I order).", {
                     "project": text("the project's folder name under `Issue Report/`"),
                     "name": text("the project's display name (data/projects.yaml; the "
                                  "folder name when not listed there)"),
                     **_change_columns("the project's issues"),
                 })


def compare_years_csv() -> pa.DataFrameSchema:
    """``report/tables/compare/years.csv``: issues per year in both runs."""
    return table(rel(P.compare.table("years.csv")),
                 "The current run against the baseline: "
                 "issues per year.", {
                     "year": count("a year of either run", low=1970, high=2100),
                     **_change_columns("issues from that year"),
                 })


def compare_types_csv() -> pa.DataFrameSchema:
    """``report/tables/compare/types.csv``: issues per type in both runs."""
    return table(rel(P.compare.table("types.csv")),
                 "The current run against the baseline: "
                 "issues per issue type, with each run's shares.", {
                     "type": text("the issue type (of the final label)"),
                     **_change_columns("issues of that type"),
                     "baseline_share": percent("the type's share of all issues of the "
                                               "baseline, in percent rounded to 2 decimals "
                                               "(0-100)"),
                     "current_share": percent("the type's share of all issues of the current "
                                              "run, in percent rounded to 2 decimals "
                                              "(0-100)"),
                 })


def compare_cells_csv() -> pa.DataFrameSchema:
    """``report/tables/compare/cells.csv``: every per-project year and type count."""
    return table(rel(P.compare.table("cells.csv")),
                 "The current run against the baseline, "
                 "cell by cell: per project, every year and issue-type count of either run.", {
                     "project": text("the project's folder name under `Issue Report/`"),
                     "dimension": text("`year` or `type`: what the key is",
                                       words=("year", "type")),
                     "key": text("the year (e.g. 2024) or the issue type (e.g. Bug)"),
                     **_change_columns("the project's issues of that year or type"),
                 })


def compare_kappa_csv() -> pa.DataFrameSchema:
    """``report/tables/compare/kappa.csv``: the headline kappas in both runs."""
    return table(rel(P.compare.table("kappa.csv")),
                 "The current run against the baseline: "
                 "Fleiss' kappa per issue type with its analytic interval, both from the "
                 "agreement stage.", {
                     "type": text("the issue type (of the final label)"),
                     "baseline": decimal("Fleiss' kappa of the type in the baseline snapshot "
                                         "(6 decimals); empty when it has none"),
                     "baseline_ci_low": decimal("lower end of its analytic interval in the "
                                                "baseline snapshot"),
                     "baseline_ci_high": decimal("upper end of that interval"),
                     "current": decimal("Fleiss' kappa of the type in this run, from the "
                                        "agreement stage (metrics/agreement.json; 6 "
                                        "decimals); empty when not defined or absent"),
                     "current_ci_low": decimal(f"lower end of its {ANALYTIC}"),
                     "current_ci_high": decimal("upper end of that interval"),
                     "change": decimal("current - baseline (6 decimals); empty when either "
                                       "is missing"),
                     "intervals_overlap": yes_no("whether the two runs' intervals overlap; "
                                                 "empty when an interval is missing",
                                                 nullable=True),
                     "current_source": text("where this run's kappa comes from; empty when "
                                            "the type is not in this run", nullable=True),
                 })


# --------------------------------------------------------------------------- keywords

KEYWORD_LIST = ("the keyword list: its variable name in upstream's filter_keywords without "
                "`_keywords` (e.g. pytorch)")
AUDIT_KINDS = ("exact_duplicate", "case_duplicate", "short_keyword", "contained_in_other",
               "merged_literals", "looks_merged", "non_word_edge", "ordinary_word")


def keywords_counts_csv() -> pa.DataFrameSchema:
    """``report/tables/keywords/counts.csv``: keywords per list."""
    return table(rel(P.keywords.table("counts.csv")),
                 "The keyword lists of Section III.A, "
                 "counted; no rows when the dump has no keyword file.", {
                     "list": text(KEYWORD_LIST),
                     "raw": count("entries as listed, repeats included"),
                     "distinct": count("distinct exact strings: the paper's count"),
                     "distinct_casefold": count("distinct keywords ignoring case"),
                     "claim_id": text("the scorecard claim that reproduces the list's count "
                                      "(`keywords.count.<list>`)"),
                 })


def keywords_lists_csv() -> pa.DataFrameSchema:
    """``report/tables/keywords/lists.csv``: every keyword entry."""
    return table(rel(P.keywords.table("lists.csv")),
                 "Every entry of every keyword list, in "
                 "file order.", {
                     "list": text(KEYWORD_LIST),
                     "position": count("the entry's position in its list (1 = first)", low=1),
                     "line": count("the line of filter_keywords the entry is on", low=1),
                     "keyword": text("the keyword exactly as written", nullable=True),
                     "counted": yes_no("yes for the first occurrence of this exact string in "
                                       "the list (it counts in the paper's count), no for a "
                                       "repeat"),
                     "distinct_casefold": yes_no("yes for the first occurrence of this "
                                                 "keyword ignoring case"),
                 })


def keywords_audit_csv() -> pa.DataFrameSchema:
    """``report/tables/keywords/audit.csv``: findings of the keyword audit."""
    return table(rel(P.keywords.table("audit.csv")),
                 "What the audit of the keyword lists "
                 "found, one row per finding.", {
                     "list": text(KEYWORD_LIST),
                     "keyword": text("the keyword the finding is about", nullable=True),
                     "kind": text("the finding: `exact_duplicate`, `case_duplicate` (the same "
                                  "keyword in another case), `short_keyword` (3 characters "
                                  "or fewer: matches inside words as a substring), "
                                  "`contained_in_other` (another keyword contains it on word "
                                  "boundaries), `merged_literals` (adjacent string literals "
                                  "that Python joins), `looks_merged` (reads like two "
                                  "keywords missing a comma), `non_word_edge` (begins or "
                                  "ends with a non-word character) or `ordinary_word` (an "
                                  "ordinary English or code word, data/ordinary_words.tsv)",
                                  words=AUDIT_KINDS),
                     "detail": text("the finding in words"),
                     "line": count("the line of filter_keywords where the keyword first "
                                   "appears", low=1),
                 })


# --------------------------------------------------------------------------- interviews

PARTICIPANT = ("the participant id as in the codebook (U1, U2 ... for users, D1 ... for "
               "developers)")
NODE = ("a taxonomy node linked in the codebook, normalised to a code such as C.3 (a code "
        "the taxonomy lacks, e.g. C.11, is kept)")
LEVEL_WORDS = ("the participant's experience level: Beginner, Intermediate or Advanced "
               "(canonical spelling; another value kept as written); empty when blank")
CONTEXT = ("the frameworks and hardware the participant works with (e.g. PyTorch + NVIDIA "
           "GPU); empty when blank")
PROMPT = "the interview topic the quote answers (e.g. Installation & Onboarding)"
QUOTE = "the participant's thematic quote"
INSIGHT = "the researchers' insight drawn from the quote"
ROLE_KEY = ("the role category of Section IV.A (the `key` of interviews.role_categories in "
            "params.yaml, e.g. student); `other` when no pattern matches")
ROLE_LABEL = ("the role category in words (its `label` in interviews.role_categories, e.g. "
              "professional engineer); `other` when no pattern matches")
NODE_TYPE = ("the node's issue type from its letter in data/taxonomy.yaml (A Question, "
             "B Requirement, C Bug); empty for an unknown letter")
THEME_NAME = "the theme's name; empty for a node outside the taxonomy"


def interviews_participants_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/participants.csv``: the published participant table."""
    return table(rel(P.interviews.table("participants.csv")),
                 "The interview participants of "
                 "the background sheet (Interviewee Background.xlsx) as published: no gender, "
                 "gender-neutral responsibilities.", {
                     "sheet_row": count("the participant's row number in the background "
                                        "sheet", low=1),
                     "type": text(PARTICIPANT_TYPE),
                     "role": text("the role without its group prefix, translated and spelled "
                                  "consistently (e.g. Software Engineer)"),
                     "role_category": text(ROLE_LABEL),
                     "experience": text("years of LLM experience as the sheet writes them "
                                        "(whitespace tidied); empty when blank", nullable=True),
                     "experience_years": decimal("that experience in years (months "
                                                 "converted: 8 months = 0.67), rounded to 2 "
                                                 "decimals; empty when it cannot be read"),
                     "responsibilities": text("the participant's responsibilities, gendered "
                                              "pronouns made neutral; empty when blank",
                                              nullable=True),
                 })


def interviews_groups_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/groups.csv``: participants per role category."""
    years = "years of LLM experience in the group, rounded to 4 decimals; empty when none " \
            "can be read"
    return table(rel(P.interviews.table("groups.csv")),
                 "Participants and their years of LLM "
                 "experience per type and role category (Section IV.A).", {
                     "type": text(PARTICIPANT_TYPE),
                     "role_category": text(ROLE_KEY),
                     "label": text(ROLE_LABEL),
                     "participants": count("participants of this type and category"),
                     "years_min": decimal(f"the fewest {years}"),
                     "years_mean": decimal(f"the mean {years}"),
                     "years_max": decimal(f"the most {years}"),
                     "roles": text("the distinct roles of the group, separated by `; `",
                                   nullable=True),
                 })


def interviews_codebook_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/codebook.csv``: the codebook as shown."""
    return table(rel(P.interviews.table("codebook.csv")),
                 "The interview codebook "
                 "(CodeBook.csv) as the website shows it: one row per participant.", {
                     "participant": text(PARTICIPANT),
                     "type": text(CODEBOOK_TYPE),
                     "experience_level": text(LEVEL_WORDS, nullable=True),
                     "framework_context": text(CONTEXT, nullable=True),
                     "prompt_category": text(PROMPT, nullable=True),
                     "nodes": text("the taxonomy nodes the quote is linked to, normalised "
                                   "(e.g. A.1, B.1) and separated by `, `; empty when none",
                                   nullable=True),
                     "quote": text(QUOTE, nullable=True),
                     "insight": text(INSIGHT, nullable=True),
                 })


def interviews_matrix_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/matrix.csv``: node x participant links.

    Participant ids are letters and a number (U1, D3, P-12), the form the interviews
    module sorts them by (:func:`analysis.interviews.codebook.participant_sort_key`); the
    pipeline's own column names never end in a number.
    """
    return table(rel(P.interviews.table("matrix.csv")),
                 "Which participant linked which "
                 "taxonomy node: a node x participant 0/1 matrix.", {
                     "node": text("the node: every theme code of the taxonomy, then the "
                                  "codes the codebook links that the taxonomy lacks (e.g. "
                                  "C.11)"),
                     r"^[A-Za-z]*[-_ ]?\d+$": count("one column per codebook participant (U1, U2 "
                                             "... users, then D1 ... developers): 1 if the "
                                             "participant linked the node, 0 if not",
                                             regex=True, high=1),
                 })


def interviews_theme_counts_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/theme_counts.csv``: links per node and group."""
    return table(rel(P.interviews.table("theme_counts.csv")),
                 "How many users and developers "
                 "linked each node, and as a percentage of their group.", {
                     "node": text(NODE),
                     "theme": text(THEME_NAME, nullable=True),
                     "issue_type": text(NODE_TYPE, nullable=True),
                     "in_taxonomy": yes_no("whether the node is a theme of data/taxonomy.yaml"),
                     "users": count("codebook users who linked the node"),
                     "users_percent": percent("users as a percentage of all codebook users, "
                                              "rounded to 2 decimals (0-100); empty when "
                                              "there are no users", nullable=True),
                     "developers": count("codebook developers who linked the node"),
                     "developers_percent": percent("developers as a percentage of all "
                                                   "codebook developers, rounded to 2 "
                                                   "decimals (0-100); empty when there are "
                                                   "no developers", nullable=True),
                     "total": count("users + developers"),
                 })


def interviews_quotes_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/quotes.csv``: quotes by node."""
    return table(rel(P.interviews.table("quotes.csv")),
                 "Every quote under every node it is "
                 "linked to (a quote with three nodes appears three times), in taxonomy "
                 "order.", {
                     "node": text(NODE),
                     "node_label": text("the node code and theme name (e.g. A.1 Unclear "
                                        "Installation Guidance), or the code and `(not in "
                                        "taxonomy)`"),
                     "in_taxonomy": yes_no("whether the node is a theme of data/taxonomy.yaml"),
                     "participant": text(PARTICIPANT),
                     "type": text(CODEBOOK_TYPE),
                     "experience_level": text(LEVEL_WORDS, nullable=True),
                     "framework_context": text(CONTEXT, nullable=True),
                     "prompt_category": text(PROMPT, nullable=True),
                     "quote": text(QUOTE, nullable=True),
                     "insight": text(INSIGHT, nullable=True),
                 })


def interviews_guideline_questions_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/guideline_questions.csv``: the protocol's questions."""
    return table(rel(P.interviews.table("guideline_questions.csv")),
                 "The questions of the "
                 "interview guideline (Interview GuideLine.md).", {
                     "part": text("the guideline part: the numeral of its `Part` heading "
                                  "(e.g. I)"),
                     "part_title": text("the part's title", nullable=True),
                     "audience": text("who is asked: `All`, or the audience of a `For ...:` "
                                      "heading (e.g. LLM Users)"),
                     "number": count("the question's number within its part and audience "
                                     "(1 = first)", low=1),
                     "question": text("the question's text (an indented example list under "
                                      "it appended)", nullable=True),
                 })


def interviews_background_processed_csv() -> pa.DataFrameSchema:
    """``data/processed/interviews/background.csv``: the background sheet, cleaned."""
    raw = "as written in the sheet; empty when blank or filled from a merged cell"
    return table(rel(P.interviews.processed_file("background.csv")),
                 "The background sheet cleaned: "
                 "one row per participant, each value as written and normalised (processed "
                 "data; genders are never published).", {
                     "sheet_row": count("the participant's row number in the sheet", low=1),
                     "type": text(PARTICIPANT_TYPE),
                     "role_raw": text(f"the role cell {raw}", nullable=True),
                     "role": text("the role, trimmed and translated (e.g. LLM User-Software "
                                  "Engineer)"),
                     "role_title": text("the role without its group prefix, spelled "
                                        "consistently (e.g. Software Engineer)",
                                        nullable=True),
                     "role_category": text(ROLE_KEY),
                     "role_category_label": text(ROLE_LABEL),
                     "gender_raw": text(f"the gender cell {raw}", nullable=True),
                     "gender": text("the gender in canonical spelling (Female or Male), "
                                    "another value as written; empty when blank. Never shown "
                                    "on the website", nullable=True),
                     "experience_raw": text(f"the experience cell {raw}", nullable=True),
                     "experience": text("the experience cell, whitespace tidied; empty when "
                                        "blank", nullable=True),
                     "experience_years": decimal("that experience in years (months "
                                                 "converted), not rounded; empty when it "
                                                 "cannot be read"),
                     "responsibilities_raw": text(f"the responsibilities cell {raw}",
                                                  nullable=True),
                     "responsibilities": text("the responsibilities, whitespace tidied "
                                              "(pronouns as written); empty when blank",
                                              nullable=True),
                     "flags": text("the anomalies noted on this row (rules of "
                                   "analysis.interviews.rules.RULES such as whitespace or "
                                   "experience_months), separated by `;`; empty when none",
                                   nullable=True),
                 })


def interviews_codebook_processed_csv() -> pa.DataFrameSchema:
    """``data/processed/interviews/codebook.csv``: the codebook, cleaned."""
    return table(rel(P.interviews.processed_file("codebook.csv")),
                 "The codebook cleaned: one row per "
                 "participant, with its linked nodes normalised.", {
                     "participant": text(PARTICIPANT),
                     "type": text(CODEBOOK_TYPE),
                     "experience_level": text(LEVEL_WORDS, nullable=True),
                     "framework_context": text(CONTEXT, nullable=True),
                     "prompt_category": text(PROMPT, nullable=True),
                     "quote": text(QUOTE, nullable=True),
                     "insight": text(INSIGHT, nullable=True),
                     "nodes": text("the linked nodes kept, normalised and separated by `, `; "
                                   "empty when none", nullable=True),
                     "nodes_raw": text("the linked-nodes cell as written", nullable=True),
                     "n_nodes": count("linked nodes kept"),
                     "line": count("the row's line in CodeBook.csv", low=1),
                     "flags": text("the anomalies noted on this row (rules of "
                                   "analysis.interviews.rules.RULES such as "
                                   "node_not_in_taxonomy), "
                                   "separated by `;`; empty when none", nullable=True),
                 })


def interviews_nodes_processed_csv() -> pa.DataFrameSchema:
    """``data/processed/interviews/nodes.csv``: one row per linked node."""
    return table(rel(P.interviews.processed_file("nodes.csv")),
                 "One row per participant and linked "
                 "taxonomy node of the codebook, in taxonomy order.", {
                     "participant": text(PARTICIPANT),
                     "type": text(CODEBOOK_TYPE),
                     "experience_level": text(LEVEL_WORDS, nullable=True),
                     "node": text(NODE),
                     "node_raw": text("the node as written in the codebook"),
                     "in_taxonomy": yes_no("whether the node is a theme of data/taxonomy.yaml"),
                     "theme": text(THEME_NAME, nullable=True),
                     "issue_type": text(NODE_TYPE, nullable=True),
                     "line": count("the row's line in CodeBook.csv", low=1),
                 })


def interviews_rejected_processed_csv() -> pa.DataFrameSchema:
    """``data/processed/interviews/rejected.csv``: interview rows and links set aside."""
    return table(rel(P.interviews.processed_file("rejected.csv")),
                 "Rows of the interview files and "
                 "node links set aside, with the reason.", {
                     "file": text("the file: the codebook (CodeBook.csv) or the background "
                                  "sheet"),
                     "line": count("the row's line (sheet row) in that file", low=1),
                     "column": text("the column at fault (role, participant or nodes); empty "
                                    "for a malformed row", nullable=True),
                     "value": text("the value set aside (a node as written); empty when the "
                                   "whole row is", nullable=True),
                     "reason": text("why: `no_role`, `malformed_row` (wrong number of "
                                    "fields), `missing_participant`, `node_malformed` (not a "
                                    "code like C.3) or `duplicate_node` (the same node twice "
                                    "in a row)",
                                    words=("no_role", "malformed_row", "missing_participant",
                                           "node_malformed", "duplicate_node")),
                 })


# --------------------------------------------------------------------------- lookup

# ------------------------------------------------ cited examples, empty themes, role mappings

EXAMPLE_STATUS = ("in_release", "repository_not_in_release", "issue_not_in_release")


def taxonomy_examples_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/examples.csv``: the paper's cited examples in the release."""
    return table(rel(P.taxonomy.table("examples.csv")),
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


def taxonomy_empty_themes_csv() -> pa.DataFrameSchema:
    """``report/tables/taxonomy/empty_themes.csv``: themes that no report carries."""
    return table(rel(P.taxonomy.table("empty_themes.csv")),
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


def explorer_release_examples_csv() -> pa.DataFrameSchema:
    """``report/tables/explorer/release_examples.csv``: a few reports of the release per
    theme."""
    return table(rel(P.explorer.table("release_examples.csv")),
                 "For each theme that is some report's final label, up to three reports on "
                 "which every annotator chose the final label and up to three on which some "
                 "annotator chose another, in the order of the SHA-256 of their URL.", {
                     "theme": text("the theme code (the reports' final label)"),
                     "name": text("the theme's name"),
                     "type": text("the theme's issue type"),
                     "agreement": text("`unanimous` (every annotator who labelled the report "
                                       "chose the final label) or `contested`",
                                       words=("unanimous", "contested")),
                     "rank": count("the report's place among the theme's reports of this "
                                   "agreement (1 = shown first)"),
                     "issue_url": text("the report's URL"),
                     "project": text("the project folder of the release"),
                     "year": count("the report's year"),
                     "final_label": text("the final label (the theme code)"),
                     "agreed": count("annotators whose label is the final label"),
                     "ratings": count("annotators who gave a label"),
                     "annotator_labels": text("the annotators' labels in column order, "
                                              "separated by `, `", nullable=True),
                 })


def interviews_roles_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/roles.csv``: each role of the sheet and its category."""
    return table(rel(P.interviews.table("roles.csv")),
                 "One row per distinct role of the background sheet: its category under "
                 "interviews.role_categories, and every category whose pattern it matches.", {
                     "type": text(PARTICIPANT_TYPE),
                     "role_raw": text("the role as the sheet spells it"),
                     "role_title": text("the role after translation and normalisation, "
                                        "without its group prefix"),
                     "participants": count("participants with this role"),
                     "category": text("the category it gets (the first matching pattern; "
                                      "`other` when none)"),
                     "matching": text("every category whose pattern matches the role, "
                                      "separated by `, `; empty when none", nullable=True),
                 })


def interviews_role_mappings_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/role_mappings.csv``: the counts every mapping gives."""
    return table(rel(P.interviews.table("role_mappings.csv")),
                 "Every assignment of participants to the categories their role matches "
                 "(one row per mapping and category): the counts of Section IV.A each "
                 "gives.", {
                     "mapping": count("the mapping's number (0: the one used, each role's "
                                      "first match)"),
                     "description": text("the roles assigned differently from mapping 0; "
                                         "empty for mapping 0", nullable=True),
                     "category": text("a role category key"),
                     "participants": count("participants in that category under the "
                                           "mapping"),
                 })


def interviews_role_claims_csv() -> pa.DataFrameSchema:
    """``report/tables/interviews/role_claims.csv``: the readings that give each role count."""
    return table(rel(P.interviews.table("role_claims.csv")),
                 "Per claim of Section IV.A that counts participants of role categories: "
                 "the paper's count, ours, and which readings of the roles give the paper's "
                 "count.", {
                     "claim_id": text("the claim's id in data/claims.yaml"),
                     "paper": text("the paper's count with its comparator (e.g. `>1`)"),
                     "ours": count("our count: the reading used (each role's first matching "
                                   "category)"),
                     "possible": text("every count the readings give, separated by `, `"),
                     "readings": text("the readings that give the paper's count: `the one "
                                      "used`, the roles assigned otherwise (as in "
                                      "role_mappings.csv), or `none`"),
                 })


TABLE_SCHEMAS: dict[str, Callable[[], pa.DataFrameSchema]] = {
    rel(P.clean.processed_file("issues.csv")): issues_csv,
    rel(P.clean.processed_file("rejected.csv")): rejected_csv,
    rel(P.clean.processed_file("excluded.csv")): excluded_csv,
    rel(P.clean.processed_file("exclusions.csv")): exclusions_csv,
    rel(P.interviews.processed_file("background.csv")): interviews_background_processed_csv,
    rel(P.interviews.processed_file("codebook.csv")): interviews_codebook_processed_csv,
    rel(P.interviews.processed_file("nodes.csv")): interviews_nodes_processed_csv,
    rel(P.interviews.processed_file("rejected.csv")): interviews_rejected_processed_csv,
    rel(P.findings.scorecard): scorecard_csv,
    rel(P.findings.table("status_by_source.csv")): findings_status_by_source_csv,
    rel(P.findings.table("status_by_group.csv")): findings_status_by_group_csv,
    rel(P.findings.table("claim_groups.csv")): findings_claim_groups_csv,
    rel(P.findings.table("challenges.csv")): findings_challenges_csv,
    rel(P.findings.table("dominant.csv")): findings_dominant_csv,
    rel(P.table1.table("counts.csv")): table1_csv,
    rel(P.table1.table("type_shares.csv")): table1_type_shares_csv,
    rel(P.table1.table("claims.csv")): table1_claims_csv,
    rel(P.table1.table("false_positives.csv")): table1_false_positives_csv,
    rel(P.taxonomy.table("types.csv")): taxonomy_types_csv,
    rel(P.taxonomy.table("themes.csv")): taxonomy_themes_csv,
    rel(P.taxonomy.table("subthemes.csv")): taxonomy_subthemes_csv,
    rel(P.taxonomy.table("details.csv")): taxonomy_details_csv,
    rel(P.taxonomy.table("spellings.csv")): taxonomy_spellings_csv,
    rel(P.taxonomy.table("tests.csv")): taxonomy_tests_csv,
    rel(P.taxonomy.table("residuals.csv")): taxonomy_residuals_csv,
    rel(P.taxonomy.table("shares.csv")): taxonomy_shares_csv,
    rel(P.taxonomy.table("examples.csv")): taxonomy_examples_csv,
    rel(P.taxonomy.table("empty_themes.csv")): taxonomy_empty_themes_csv,
    rel(P.explorer.table("release_examples.csv")): explorer_release_examples_csv,
    rel(P.agreement.table("headline.csv")): agreement_headline_csv,
    rel(P.agreement.table("statistics.csv")): agreement_statistics_csv,
    rel(P.agreement.table("categories.csv")): agreement_categories_csv,
    rel(P.agreement.table("grouping.csv")): agreement_grouping_csv,
    rel(P.agreement.table("pairwise.csv")): agreement_pairwise_csv,
    rel(P.agreement.table("annotator_final.csv")): agreement_annotator_final_csv,
    rel(P.agreement.table("confusions.csv")): agreement_confusions_csv,
    rel(P.agreement.table("top_confusions.csv")): agreement_top_confusions_csv,
    rel(P.agreement.table("audit_final_by_project.csv")): agreement_audit_final_by_project_csv,
    rel(P.agreement.table("audit_dissent.csv")): agreement_audit_dissent_csv,
    rel(P.agreement.table("audit_tests.csv")): agreement_audit_tests_csv,
    rel(P.agreement.table("audit_co_dissent.csv")): agreement_audit_co_dissent_csv,
    rel(P.agreement.table("audit_targets.csv")): agreement_audit_targets_csv,
    rel(P.agreement.table("audit_spread.csv")): agreement_audit_spread_csv,
    rel(P.agreement.table("audit_leave_one_out.csv")): agreement_audit_leave_one_out_csv,
    rel(P.agreement.table("audit_always_final.csv")): agreement_audit_always_final_csv,
    rel(P.agreement.table("audit_sensitivity.csv")): agreement_audit_sensitivity_csv,
    rel(P.compare.table("projects.csv")): compare_projects_csv,
    rel(P.compare.table("years.csv")): compare_years_csv,
    rel(P.compare.table("types.csv")): compare_types_csv,
    rel(P.compare.table("cells.csv")): compare_cells_csv,
    rel(P.compare.table("kappa.csv")): compare_kappa_csv,
    rel(P.keywords.table("counts.csv")): keywords_counts_csv,
    rel(P.keywords.table("lists.csv")): keywords_lists_csv,
    rel(P.keywords.table("audit.csv")): keywords_audit_csv,
    rel(P.interviews.table("participants.csv")): interviews_participants_csv,
    rel(P.interviews.table("groups.csv")): interviews_groups_csv,
    rel(P.interviews.table("codebook.csv")): interviews_codebook_csv,
    rel(P.interviews.table("matrix.csv")): interviews_matrix_csv,
    rel(P.interviews.table("theme_counts.csv")): interviews_theme_counts_csv,
    rel(P.interviews.table("quotes.csv")): interviews_quotes_csv,
    rel(P.interviews.table("guideline_questions.csv")): interviews_guideline_questions_csv,
    rel(P.interviews.table("roles.csv")): interviews_roles_csv,
    rel(P.interviews.table("role_mappings.csv")): interviews_role_mappings_csv,
    rel(P.interviews.table("role_claims.csv")): interviews_role_claims_csv,
}


def targets_from_frame(frame: pd.DataFrame) -> pa.DataFrameSchema | None:
    """The exact targets schema for a targets table at hand (None without its rows)."""
    if "final_label" not in frame.columns:
        return None
    return agreement_audit_targets_csv(frame["final_label"].astype(str))


# Tables whose schema is exact when the table itself is at hand (see schema_for).
FRAME_SCHEMAS: dict[str, Callable[[pd.DataFrame], pa.DataFrameSchema | None]] = {
    rel(P.agreement.table("audit_targets.csv")): targets_from_frame,
}


def schema_for(relpath: str | PurePath, frame: pd.DataFrame | None = None
               ) -> pa.DataFrameSchema | None:
    """The schema of a CSV given by its path relative to the project root, or None.

    With ``frame`` (the table as read), a table whose column names are listed in its own
    rows gets a schema naming exactly those columns (:data:`FRAME_SCHEMAS`); every other
    schema is the same with or without it.
    """
    key = PurePath(str(relpath).replace("\\", "/")).as_posix().removeprefix("./")
    if frame is not None and key in FRAME_SCHEMAS:
        schema = FRAME_SCHEMAS[key](frame)
        if schema is not None:
            return schema
    factory = TABLE_SCHEMAS.get(key)
    return factory() if factory is not None else None


# --------------------------------------------------------------------------- dictionary


class UndocumentedColumnError(ValueError):
    """A column of a table that its schema does not describe."""


def describing_column(schema: pa.DataFrameSchema, name: str) -> pa.Column | None:
    """The schema column that describes the table column ``name``: the column of that
    name, else the first regex column whose pattern matches it (as pandera matches)."""
    col = schema.columns.get(name)
    if col is not None and not col.regex:
        return col
    for key, col in schema.columns.items():
        if col.regex and pd.Index([name]).str.match(key)[0]:
            return col
    return None


def reader_type(col: pa.Column) -> str:
    """A reader's word for the column's values (``metadata['type']``, else from the dtype)."""
    kind = (col.metadata or {}).get("type")
    if kind:
        return str(kind)
    dtype = str(col.dtype).lower() if col.dtype is not None else ""
    if "bool" in dtype:
        return YES_NO
    if "int" in dtype:
        return INTEGER
    if "float" in dtype:
        return DECIMAL
    return TEXT


def first_example(values: pd.Series, kind: str) -> str:
    """The first non-empty value of a column as a string ('' if there is none).

    A whole number that pandas read as a float (because the column has empty cells) is
    shown without its ``.0`` when the column holds integers.
    """
    for value in values:
        if value is None or (not isinstance(value, str) and pd.isna(value)) or value == "":
            continue
        if kind == INTEGER and isinstance(value, float | np.floating) and value.is_integer():
            return str(int(value))
        return str(value)
    return ""


def data_dictionary(schema: pa.DataFrameSchema, frame: pd.DataFrame) -> pd.DataFrame:
    """The data dictionary of ``frame``: columns column, type, meaning, example, one row per
    column of the frame in its order.

    Raises :class:`UndocumentedColumnError` if a column has no description in ``schema``,
    so a table cannot ship a column nobody explained.
    """
    rows, missing = [], []
    for name in frame.columns:
        col = describing_column(schema, str(name))
        if col is None or not (col.description or "").strip():
            missing.append(str(name))
            continue
        kind = reader_type(col)
        rows.append({"column": str(name), "type": kind, "meaning": col.description,
                     "example": first_example(frame[name], kind)})
    if missing:
        raise UndocumentedColumnError(
            f"{schema.name or 'table'}: no description for column(s) {missing}; describe "
            "them in analysis.core.table_schemas")
    return pd.DataFrame(rows, columns=["column", "type", "meaning", "example"])
