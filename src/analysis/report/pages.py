"""Includes for the result pages: Taxonomy, Agreement, Interviews, Keywords, What changed
and Findings.

Each include is declared once in :data:`INCLUDES` with the artifacts it reads (paths
relative to the project root) and the function that writes it. The ``report`` stage
writes every include into ``report/_generated/`` (a page pulls one in with
``{{< include _generated/<name> >}}``), and the tests check that every input of an
include a page uses is a dependency of the ``report`` stage. When an input is missing
(its stage has not run), the include says so instead of failing, so every page renders.

The functions only select, format and escape what the analysis stages computed: numbers
are printed at the precision a reader needs (kappas to three decimals, shares as
percentages), every piece of data text is escaped (:mod:`.htmlsafe`), and HTML fragments
written by the stages are sanitised again before they reach a page.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from analysis.core.claims import judge, paper_statement
from analysis.core.config import load_yaml
from analysis.core.examples import safe_issue_url
from analysis.core.paths import Paths
from analysis.core.projects import Projects
from analysis.report.generated import STATUS_MARK, callout, quality_anomalies, status_badge
from analysis.report.htmlsafe import (
    details_block,
    esc,
    html_table,
    md_escape,
    raw_html_block,
    sanitize_html,
)
from analysis.report.markdown import pandoc_markdown_to_html
from analysis.report.variables import STATUS_LABELS

# Inputs by their path relative to the project root (from analysis.core.paths).
P = Paths(Path("."))


def rel(path: Path) -> str:
    return path.as_posix()


SCORECARD = rel(P.findings.scorecard)
CHALLENGES = rel(P.challenges_file)
PROJECTS = rel(P.projects_file)


def TX(name: str) -> str:  # noqa: N802 - a table of the taxonomy stage
    return rel(P.taxonomy.table(name))


def AG(name: str) -> str:  # noqa: N802
    return rel(P.agreement.table(name))


def IV(name: str) -> str:  # noqa: N802
    return rel(P.interviews.table(name))


def KW(name: str) -> str:  # noqa: N802
    return rel(P.keywords.table(name))


def CP(name: str) -> str:  # noqa: N802
    return rel(P.compare.table(name))


# -- reading the artifacts ----------------------------------------------------------------

class Missing(Exception):
    """An input of an include does not exist (its stage has not run)."""


@dataclass
class Inputs:
    """The artifacts, by path relative to the project root (the scorecard is read once)."""

    root: Path

    def path(self, rel: str) -> Path:
        p = self.root / rel
        if not p.is_file():
            raise Missing(rel)
        return p

    def csv(self, rel: str) -> pd.DataFrame:
        return pd.read_csv(self.path(rel), keep_default_na=False, na_values=[""])

    def json(self, rel: str) -> dict:
        return json.loads(self.path(rel).read_text(encoding="utf-8"))

    def text(self, rel: str) -> str:
        return self.path(rel).read_text(encoding="utf-8")

    @cached_property
    def card(self) -> pd.DataFrame:
        return pd.read_csv(self.path(SCORECARD), dtype=str, keep_default_na=False)


@dataclass(frozen=True)
class Include:
    name: str                      # path under report/_generated/
    inputs: tuple[str, ...]        # artifacts it reads, relative to the project root
    make: Callable[[Inputs], str]  # the include's Markdown


def missing_note(rel: str) -> str:
    return (f"*Not available in this build: `{rel.replace('`', '')}` was not written (run "
            "`dvc repro`; the stage that writes it may not have run).*\n")


def write_all(root: Path) -> dict[str, str]:
    """name -> text of every include (a note where an input is missing)."""
    inputs = Inputs(root)
    out = {}
    for inc in INCLUDES:
        try:
            for rel in inc.inputs:
                inputs.path(rel)
            out[inc.name] = inc.make(inputs)
        except Missing as exc:
            out[inc.name] = missing_note(str(exc))
    return out


# -- formatting ---------------------------------------------------------------------------

def _isnan(x: object) -> bool:
    return x is None or x == "" or (isinstance(x, float) and math.isnan(x))


def dec(x: object, digits: int = 3) -> str:
    """A coefficient: ``0.512``; missing -> an en dash."""
    if _isnan(x):
        return "–"
    try:
        return f"{float(x):.{digits}f}"
    except (TypeError, ValueError):
        return str(x)


def count(x: object) -> str:
    if _isnan(x):
        return "–"
    try:
        return f"{int(float(x)):,}"
    except (TypeError, ValueError):
        return str(x)


def pct(x: object, digits: int = 1, fraction: bool = False) -> str:
    """A share as a percentage (``fraction``: the value is 0-1, else already percent)."""
    if _isnan(x):
        return "–"
    v = float(x) * (100 if fraction else 1)
    return f"{v:.{digits}f}%"


def pval(p: object) -> str:
    if _isnan(p):
        return "–"
    p = float(p)
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def interval(lo: object, hi: object, digits: int = 3) -> str:
    if _isnan(lo) or _isnan(hi):
        return "–"
    return f"{float(lo):.{digits}f}–{float(hi):.{digits}f}"


def yes_no(x: object) -> str:
    if isinstance(x, str):
        return "yes" if x.strip().lower() in ("true", "yes", "1") else "no"
    return "yes" if bool(x) else "no"


def table(frame: pd.DataFrame, numeric: list[str], classes: str = "table sortable compact",
          raw: tuple[str, ...] = (), row_classes: list[str] | None = None) -> str:
    """An escaped HTML table (cells already formatted as text) as a raw block."""
    return raw_html_block(html_table(frame, numeric=numeric, classes=classes,
                                     raw_columns=raw, row_classes=row_classes))


def code_list(items: list[str]) -> str:
    return " ".join(f"<code>{esc(i)}</code>" for i in items)


# -- the paper's claims beside ours ----------------------------------------------------

def claims_table(card: pd.DataFrame, prefixes: tuple[str, ...],
                 detail_prefixes: tuple[str, ...] = ()) -> str:
    """The scorecard rows whose id starts with one of ``prefixes``: what the paper says
    (with the claim id and where), the paper's value, ours, the verdict and the note.

    Rows that are not exact are highlighted. Exact rows whose id starts with one of
    ``detail_prefixes`` (long runs of similar claims) go into a collapsed list below.
    """
    rows = card[card["claim_id"].str.startswith(prefixes)]
    if rows.empty:
        return "No number of the paper is checked here.\n"

    def frame(r: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
        what = [f'{esc(d)}<span class="claim-id">{esc(c)} · {esc(w)}</span>'
                for d, c, w in zip(r["description"], r["claim_id"], r["source"], strict=True)]
        shown = pd.DataFrame({
            "what the paper says": what, "paper": [
                esc(paper_statement(v, rel_)) for v, rel_ in zip(
                    r["paper_value"], r.get("relation", pd.Series("=", index=r.index)),
                    strict=True)],
            "ours": r["reproduced_value"].map(lambda v: esc(v) if v != "" else "–"),
            "verdict": [status_badge(s) for s in r["status"]], "note": r["note"].map(esc)})
        return shown, [f"st-{s}" if s != "exact" else "" for s in r["status"]]

    counts = rows["status"].value_counts()
    summary = ", ".join(f"{int(counts[s]):,} {STATUS_LABELS[s]}" for s in STATUS_LABELS
                        if s in counts)
    detail = rows["claim_id"].str.startswith(detail_prefixes) & (rows["status"] == "exact") \
        if detail_prefixes else pd.Series(False, index=rows.index)
    raw = ("what the paper says", "paper", "ours", "verdict", "note")
    shown, cls = frame(rows[~detail])
    out = (f"{len(rows):,} numbers of the paper are checked here: {summary}.\n\n"
           + table(shown, numeric=["paper", "ours"], classes="table claims", raw=raw,
                   row_classes=cls))
    if detail.any():
        more, more_cls = frame(rows[detail])
        out += callout("note", f"{int(detail.sum()):,} more, all exact",
                       table(more, numeric=["paper", "ours"], classes="table claims", raw=raw,
                             row_classes=more_cls), collapse=True)
    return out


def _claims(prefixes: tuple[str, ...], detail: tuple[str, ...] = ()
            ) -> Callable[[Inputs], str]:
    return lambda i: claims_table(i.card, prefixes, detail)


# -- Taxonomy -----------------------------------------------------------------------------

def taxonomy_types(i: Inputs) -> str:
    t = i.csv(TX("types.csv"))
    shown = pd.DataFrame({
        "type": t["type"], "themes": t["themes"].map(count),
        "themes with issues": t["themes_with_issues"].map(count),
        "sub-themes (paper)": t["subthemes_paper"].map(count),
        "sub-themes (released)": t["subthemes_released"].map(count),
        "details (split on commas)": t["details"].map(count),
        "details (parentheses kept)": t["details_parentheses"].map(count),
        "issues": t["issues"].map(count)})
    cls = ["sum" if x == "Total" else "" for x in t["type"]]
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact",
                 row_classes=cls)


def taxonomy_themes(i: Inputs) -> str:
    t = i.csv(TX("themes.csv"))
    extra = t["subthemes_not_in_paper"].fillna("").astype(str)
    theme = [esc(n) + (f'<span class="note">with {esc(x)}, not in the paper\'s numbering'
                       "</span>" if x else "") for n, x in zip(t["name"], extra, strict=True)]
    shown = pd.DataFrame({
        "code": t["code"], "theme": theme, "type": t["type"],
        "sub-themes": [f"{count(r)}" + (f" (paper {count(p)})" if r != p else "")
                       for r, p in zip(t["subthemes_released"], t["subthemes_paper"],
                                       strict=True)],
        "details": t["details"].map(count),
        "issues": t["issues"].map(count),
        "% of its type": t["issue_share_of_type"].map(pct),
        "% of all": t["issue_share_of_all"].map(pct)})
    cls = ["muted" if int(n) == 0 else "" for n in t["issues"]]
    return table(shown, numeric=["sub-themes", "details", "issues", "% of its type",
                                 "% of all"], row_classes=cls, raw=("theme",))


TEST_NAMES = {"type_by_project": "issue type × project", "type_by_year": "issue type × year",
              "theme_by_project": "theme × project", "theme_by_year": "theme × year"}


def taxonomy_tests(i: Inputs) -> str:
    t = i.csv(TX("tests.csv"))
    shown = pd.DataFrame({
        "test": [TEST_NAMES.get(x, x) for x in t["test"]],
        "N": t["n"].map(count),
        "table": [f"{count(r)} × {count(c)}" for r, c in zip(t["rows"], t["columns"],
                                                              strict=True)],
        "χ²": [f"{float(x):,.1f}" for x in t["chi2"]],
        "df": t["dof"].map(count),
        "p": t["p_value"].map(pval),
        "Cramér's V": t["cramers_v"].map(dec),
        "smallest expected count": t["min_expected"].map(lambda x: dec(x, 1)),
        "cells expected < 5": t["share_expected_below_5"].map(
            lambda x: pct(x, fraction=True)),
        "left out (no issue)": t["dropped"].fillna("").astype(str)})
    return table(shown, numeric=["N", "χ²", "df", "p", "Cramér's V",
                                 "smallest expected count", "cells expected < 5"],
                 classes="table compact")


def taxonomy_residuals(i: Inputs, top: int = 12) -> str:
    """The cells farthest from independence in each test (largest |standardized residual|)."""
    r = i.csv(TX("residuals.csv"))
    if r.empty:
        return "No residuals.\n"
    r = r.assign(abs_r=r["std_residual"].abs())
    out = []
    for test, g in r.groupby("test", sort=False):
        g = g.sort_values(["abs_r", "row", "column"], ascending=[False, True, True],
                          kind="mergesort").head(top)
        shown = pd.DataFrame({
            "row": g["row"].astype(str), "column": g["column"].astype(str),
            "observed": g["observed"].map(count),
            "expected": g["expected"].map(lambda x: f"{float(x):,.1f}"),
            "standardized residual": g["std_residual"].map(lambda x: f"{float(x):+.1f}")})
        out.append(details_block(
            f"{TEST_NAMES.get(test, test)}: the {len(g):,} cells farthest from independence",
            html_table(shown, numeric=["observed", "expected", "standardized residual"],
                       classes="table sortable compact")))
    return "\n".join(out)


def issue_link(url: object, text: object) -> str:
    """An escaped link to a GitHub or Gitee issue; any other URL is shown as text only
    (the URL comes from data, so it is validated before it becomes an ``href``)."""
    safe = safe_issue_url(url)
    return (f'<a href="{esc(safe)}" rel="noopener">{esc(text)}</a>' if safe
            else esc(text))


def example_verdict(status: str, matches: object) -> str:
    """The check of one cited example as a badge: same theme, another theme, not in the
    release."""
    if status != "in_release":
        return status_badge("not_reproducible")
    return status_badge("exact" if yes_no(matches) == "yes" else "differs")


def example_items(examples: pd.DataFrame) -> dict[str, str]:
    """Sub-theme code -> an HTML line listing the paper's cited examples for it, each linked
    and followed by what the release says of it."""
    out: dict[str, list[str]] = {}
    for r in examples.itertuples(index=False):
        label = (f"final label {r.final_label}" if r.status == "in_release"
                 else "not in the release")
        item = (f"[{count(r.ref)}] {issue_link(r.url, f'{r.repository}/{r.kind}/{r.number}')}"
                f" ({esc(label)})")
        for code in str(r.subthemes).split(", "):
            out.setdefault(code, []).append(item)
    return {code: ('<p class="cited-examples"><small>Cited in the paper: '
                   + "; ".join(items) + "</small></p>") for code, items in out.items()}


def taxonomy_details(i: Inputs) -> str:
    """The browsable taxonomy (the stage's details.html, sanitised), each sub-theme with the
    example reports the paper cites for it (links built here)."""
    html = sanitize_html(i.text(TX("details.html")), fragment_tags=True)
    try:
        examples = i.csv(TX("examples.csv"))
    except Missing:
        examples = pd.DataFrame(columns=["ref", "url", "subthemes", "status"])
    for code, block in sorted(example_items(examples).items()):
        html = re.sub(rf"(<h4>{re.escape(code)} .*?</h4>)",
                      lambda m, b=block: m.group(1) + b, html, count=1, flags=re.S)
    return raw_html_block(html)


def taxonomy_examples(i: Inputs) -> str:
    """Every example report the paper cites: the link, the sub-theme it is cited for, whether
    the release holds it, the release's final label and annotators' labels, and the check."""
    e = i.csv(TX("examples.csv")).fillna("")
    if e.empty:
        return "The paper's examples are not listed in this build (`data/examples.yaml`).\n"
    where = []
    for r in e.itertuples(index=False):
        text = issue_link(r.url, f"{r.repository}/{r.kind}/{r.number}")
        if r.release_url and r.release_url != r.url:
            text += ('<span class="note">in the release as '
                     f"{issue_link(r.release_url, r.release_url)}</span>")
        where.append(text)
    status = {"in_release": "yes", "repository_not_in_release": "no (repository not studied)",
              "issue_not_in_release": "no (report absent)"}
    shown = pd.DataFrame({
        "ref": [f"[{count(x)}]" for x in e["ref"]], "report": where,
        "cited for": e["subthemes"].map(esc),
        "in the release": [esc(status.get(s, s)) for s in e["status"]],
        "final label": e["final_label"].map(lambda x: esc(x) or "–"),
        "annotators' labels": e["annotator_labels"].map(lambda x: esc(x) or "–"),
        "check": [example_verdict(s, m) for s, m in zip(e["status"], e["theme_matches"],
                                                        strict=True)],
        "note": e["match_note"].map(esc)})
    body = table(shown, numeric=[], classes="table sortable compact",
                 raw=tuple(shown.columns))
    return callout("note", f"All {len(e):,} cited examples", body, collapse=True)


def empty_themes_table(i: Inputs) -> str:
    """The themes no report carries as its final label: how often annotators chose them and
    what of the paper rests on them."""
    t = i.csv(TX("empty_themes.csv")).fillna("")
    if t.empty:
        return raw_html_block("<p>Every theme is the final label of at least one report.</p>")
    shown = pd.DataFrame({
        "theme": [f"{c} {n}" for c, n in zip(t["code"], t["name"], strict=True)],
        "annotators chose it": [
            f"{count(a)} times on {count(b)} reports (at most {count(m)} of the annotators "
            "on one report)" for a, b, m in zip(t["label_choices"], t["issues_chosen"],
                                                 t["most_on_one_issue"], strict=True)],
        "final labels of those reports": t["final_labels_when_chosen"].map(
            lambda x: x or "–"),
        "the paper's findings": t["findings"].map(lambda x: x or "–"),
        "cited examples": t["examples"].map(lambda x: x or "–"),
        "interview rankings": t["rankings"].map(lambda x: x or "–")})
    return table(shown, numeric=[], classes="table compact")


def taxonomy_anomalies(i: Inputs) -> str:
    return quality_anomalies(i.json(QT))


# -- Agreement ----------------------------------------------------------------------------

def _intervals(frame: pd.DataFrame, prefix: str, kind: str) -> list[str]:
    """``kind`` ("ci": analytic, "boot": bootstrap) intervals of the coefficient ``prefix``."""
    return [interval(a, b) for a, b in zip(frame[f"{prefix}_{kind}_low"],
                                           frame[f"{prefix}_{kind}_high"], strict=True)]


def agreement_headline(i: Inputs) -> str:
    """Fleiss' kappa per group by both estimators, each with the issues it uses and its
    analytic and bootstrap intervals, named as such."""
    h = i.csv(AG("headline.csv"))
    shown = pd.DataFrame({
        "group (type of the final label)": h["group"], "issues": h["issues"].map(count),
        "paper's κ": h["paper_kappa"].map(dec),
        "Fleiss' κ, complete rows": h["kappa"].map(dec),
        "issues it uses": h["issues_kappa"].map(count),
        "analytic interval": _intervals(h, "kappa", "ci"),
        "bootstrap interval": _intervals(h, "kappa", "boot"),
        "Fleiss' κ, Gwet's generalised": h["kappa_gen"].map(dec),
        "issues it uses ": h["issues_kappa_gen"].map(count),
        "analytic interval ": _intervals(h, "kappa_gen", "ci"),
        "bootstrap interval ": _intervals(h, "kappa_gen", "boot")})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_coefficients(i: Inputs) -> str:
    """The other coefficients per group, with their bootstrap intervals, and the observed
    and chance agreement behind the complete-rows Fleiss' kappa."""
    h = i.csv(AG("headline.csv"))
    shown = pd.DataFrame({
        "group (type of the final label)": h["group"],
        "Krippendorff's α": h["alpha"].map(dec),
        "α bootstrap interval": _intervals(h, "alpha", "boot"),
        "Gwet's AC1": h["ac1"].map(dec),
        "AC1 bootstrap interval": _intervals(h, "ac1", "boot"),
        "observed agreement": h["observed"].map(dec),
        "chance agreement": h["chance"].map(dec),
        "κ on the type only (complete rows)": h["type_kappa"].map(dec)})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_grouping(i: Inputs) -> str:
    g = i.csv(AG("grouping.csv"))
    shown = pd.DataFrame({
        "issues grouped by": g["grouping"], "type": g["type"],
        "issues": g["issues"].map(count),
        "observed": g["observed"].map(dec), "chance": g["chance"].map(dec),
        "Fleiss' κ, complete rows": g["kappa"].map(dec),
        "Fleiss' κ, Gwet's generalised": g["kappa_generalised"].map(dec),
        "its issues": g["issues_generalised"].map(count),
        "paper's κ": g["paper_kappa"].map(dec),
        "same as the paper's": [
            f"{STATUS_MARK['exact']} yes" if yes_no(x) == "yes" else f"{STATUS_MARK['differs']} no"
            for x in g["matches_paper"]]})
    rules = g.drop_duplicates("grouping")[["grouping", "rule"]]
    legend = "".join(f"<li><strong>{esc(a)}</strong>: {esc(b)}</li>"
                     for a, b in zip(rules["grouping"], rules["rule"], strict=True))
    return (table(shown, numeric=["issues", "observed", "chance", "Fleiss' κ, complete rows",
                                  "Fleiss' κ, Gwet's generalised", "its issues", "paper's κ"],
                  classes="table compact")
            + raw_html_block(f'<ul class="legend">{legend}</ul>'))


def agreement_categories(i: Inputs) -> str:
    c = i.csv(AG("categories.csv"))
    shown = pd.DataFrame({
        "code": c["code"], "theme": c["name"], "type": c["type"],
        "ratings": c["ratings"].map(count),
        "κ for the theme (complete rows)": c["kappa"].map(dec),
        "bootstrap interval": [interval(a, b) for a, b in zip(c["boot_low"], c["boot_high"],
                                                         strict=True)],
        "specific agreement": c["specific_agreement"].map(dec),
        "note": c["note"].fillna("").astype(str)})
    return table(shown, numeric=["ratings", "κ for the theme (complete rows)",
                                 "bootstrap interval",
                                 "specific agreement"])


def agreement_groups(i: Inputs) -> str:
    """Fleiss' kappa per project and per year, by both estimators with their issues."""
    s = i.csv(AG("statistics.csv"))
    keys = ["grouping", "group"]
    by = s[s["grouping"].isin(["project", "year"])]
    full = by[by["statistic"] == "fleiss_kappa"]
    gen = by[by["statistic"] == "fleiss_kappa_generalised"][
        [*keys, "value", "issues_used", "ci_low", "ci_high"]]
    s = full.merge(gen, on=keys, how="left", suffixes=("", "_gen"), sort=False)
    shown = pd.DataFrame({
        "by": s["grouping"], "group": s["group"].astype(str),
        "issues": s["issues"].map(count),
        "Fleiss' κ, complete rows": s["value"].map(dec),
        "issues it uses": s["issues_used"].map(count),
        "bootstrap interval": [interval(a, b) for a, b in zip(s["boot_low"], s["boot_high"],
                                                         strict=True)],
        "Fleiss' κ, Gwet's generalised": s["value_gen"].map(dec),
        "issues it uses ": s["issues_used_gen"].map(count),
        "analytic interval": [interval(a, b) for a, b in zip(s["ci_low_gen"], s["ci_high_gen"],
                                                        strict=True)],
        "observed": s["observed"].map(dec), "chance": s["chance"].map(dec),
        "note": s["note"].fillna("").astype(str)})
    return table(shown, numeric=[c for c in shown.columns if c not in ("by", "group", "note")])


def agreement_leave_one_out(i: Inputs) -> str:
    """One row per label column left out, one column per issue type: the complete-rows
    Fleiss' kappa and its change against all columns (the generalised one where ratings
    are missing is in the CSV)."""
    t = i.csv(AG("audit_leave_one_out.csv"))
    types = list(dict.fromkeys(t["type"].astype(str)))
    rows = []
    for left, part in t.groupby("left_out", sort=False):
        row = {"label column left out": "none (all columns)" if left == "none"
               else _annotator(left)}
        cells = dict(zip(part["type"].astype(str), zip(part["kappa"], part["change"],
                                                          strict=True), strict=True))
        for ty in types:
            kappa, change = cells.get(ty, (None, None))
            row[ty] = dec(kappa) if left == "none" or _isnan(change) \
                else f"{dec(kappa)} ({float(change):+.3f})"
        rows.append(row)
    shown = pd.DataFrame(rows)
    return table(shown, numeric=types, classes="table compact")


SCENARIOS = {"all columns": "all label columns",
             "without in those projects": "without the column(s) in those projects only",
             "without everywhere": "without the column(s) in every project"}


def agreement_sensitivity(i: Inputs) -> str:
    """The per-type kappas without the columns that always equal the final label in a
    project: both estimators, with the issues each uses."""
    t = i.csv(AG("audit_sensitivity.csv"))
    if t.empty:
        return "No label column equals the final label on every report of a project.\n"
    shown = pd.DataFrame({
        "label columns": t["scenario"].map(lambda x: SCENARIOS.get(str(x), str(x))),
        "type": t["type"].astype(str),
        "Fleiss' κ, complete rows": t["kappa"].map(dec),
        "issues it uses": t["issues"].map(count),
        "change": t["change"].map(lambda x: "–" if _isnan(x) else f"{float(x):+.3f}"),
        "Fleiss' κ, Gwet's generalised": t["kappa_generalised"].map(dec),
        "issues it uses ": t["issues_generalised"].map(count),
        "change ": t["change_generalised"].map(
            lambda x: "–" if _isnan(x) else f"{float(x):+.3f}")})
    return table(shown, numeric=list(shown.columns[2:]), classes="table compact")


def _annotator(name: object) -> str:
    return str(name).replace("annotator_", "annotator ")


def agreement_versus_final(i: Inputs) -> str:
    a = i.csv(AG("annotator_final.csv"))
    shown = pd.DataFrame({
        "label column": a["annotator"].map(_annotator), "issues": a["n"].map(count),
        "equal to the final label": a["agreement"].map(lambda x: pct(x, fraction=True)),
        "Cohen's κ with the final label": a["kappa"].map(dec),
        "asymptotic interval": [interval(x, y) for x, y in zip(a["ci_low"], a["ci_high"],
                                                        strict=True)]})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_confusions(i: Inputs, top: int = 12) -> str:
    c = i.csv(AG("confusions.csv"))
    if c.empty:
        return "No two annotators ever disagreed.\n"

    def frame(rows: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame({
            "themes": [f"{a} / {b}" for a, b in zip(rows["label_a"], rows["label_b"],
                                                    strict=True)],
            "types": [a if a == b else f"{a} / {b}" for a, b in zip(
                rows["type_a"], rows["type_b"], strict=True)],
            "annotator pairs": rows["rater_pairs"].map(count),
            "issues": rows["issues"].map(count),
            "share of all disagreeing pairs": rows["share_of_disagreements"].map(
                lambda x: pct(x, fraction=True))})

    num = ["annotator pairs", "issues", "share of all disagreeing pairs"]
    out = table(frame(c.head(top)), numeric=num)
    if len(c) > top:
        out += callout("note", f"All {len(c):,} pairs of themes annotators confused",
                       table(frame(c), numeric=num), collapse=True)
    return out


def agreement_audit_final(i: Inputs) -> str:
    f = i.csv(AG("audit_final_by_project.csv"))
    wide = f.pivot_table(index="stratum", columns="annotator", values="share",
                         aggfunc="first", sort=False)
    rated = f.groupby("stratum", sort=False)["rated"].max()
    order = ["all"] + [s for s in wide.index if s != "all"]
    wide = wide.reindex(order)
    cols = list(dict.fromkeys(f["annotator"]))
    shown = pd.DataFrame({"project": ["all projects" if s == "all" else s for s in order],
                          "issues": [count(rated[s]) for s in order]})
    cells = {}
    for c in cols:
        cells[_annotator(c)] = [
            f'<span class="{"full" if v == 1.0 else ""}">{esc(pct(v, fraction=True))}</span>'
            for v in wide[c]]
    shown = pd.concat([shown, pd.DataFrame(cells)], axis=1)
    cls = ["sum" if s == "all" else "" for s in order]
    return table(shown, numeric=list(shown.columns[1:]), raw=tuple(cells),
                 classes="table sortable compact audit", row_classes=cls)


def agreement_audit_dissent(i: Inputs) -> str:
    d = i.csv(AG("audit_dissent.csv"))
    shown = pd.DataFrame({
        "annotators dissenting": d["dissenters"].map(count),
        "issues observed": d["observed"].map(count),
        "expected, rates per project, final label a majority":
            d["expected_by_project_majority"].map(lambda x: f"{float(x):,.1f}"),
        "expected, rates per project": d["expected_by_project"].map(
            lambda x: f"{float(x):,.1f}"),
        "expected, one rate per annotator": d["expected_pooled"].map(
            lambda x: f"{float(x):,.1f}")})
    return table(shown, numeric=list(shown.columns), classes="table compact")


def agreement_audit_tests(i: Inputs) -> str:
    t = i.csv(AG("audit_tests.csv"))
    shown = pd.DataFrame({
        "model of independent annotators": t["model"],
        "χ²": [f"{float(x):,.1f}" for x in t["chi2"]], "df": t["dof"].map(count),
        "p": t["p_value"].map(pval),
        "variance observed / expected": t["variance_ratio"].map(dec),
        "issues without dissent, observed": t["no_dissent_observed"].map(count),
        "expected": t["no_dissent_expected"].map(lambda x: f"{float(x):,.1f}"),
        "issues expected beyond the most dissent observed":
            t["expected_above_max_observed"].map(lambda x: f"{float(x):,.1f}")})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_audit_spread(i: Inputs) -> str:
    s = i.csv(AG("audit_spread.csv"))
    shown = pd.DataFrame({
        "final theme": s["final_label"], "type": s["type"],
        "dissenting labels": s["dissenting_labels"].map(count),
        "within the type": s["within_type_share"].map(lambda x: pct(x, fraction=True)),
        "most frequent other theme": s["top_alternative"].fillna("").astype(str),
        "its share": s["top_share"].map(lambda x: pct(x, fraction=True)),
        "even share": s["even_share"].map(lambda x: pct(x, fraction=True)),
        "evenness": s["evenness"].map(dec),
        "χ² p (even within the type)": s["p_value"].map(pval)})
    return table(shown, numeric=["dissenting labels", "within the type", "its share",
                                 "even share", "evenness", "χ² p (even within the type)"])


def agreement_audit_co_dissent(i: Inputs) -> str:
    c = i.csv(AG("audit_co_dissent.csv"))
    shown = pd.DataFrame({
        "label columns": [f"{_annotator(a)} & {_annotator(b)}" for a, b in zip(
            c["annotator_a"], c["annotator_b"], strict=True)],
        "issues both dissent": c["both_dissent"].map(count),
        "expected (independent)": c["expected"].map(lambda x: f"{float(x):,.1f}"),
        "ratio": c["ratio"].map(lambda x: dec(x, 2)),
        "expected (final label a majority)": c["expected_majority"].map(
            lambda x: f"{float(x):,.1f}"),
        "ratio ": c["ratio_majority"].map(lambda x: dec(x, 2))})
    return table(shown, numeric=list(shown.columns[1:]))


# -- Interviews ---------------------------------------------------------------------------

def interviews_participants(i: Inputs) -> str:
    p = i.csv(IV("participants.csv"))
    role = [esc(r) + (f'<span class="note">{esc(x)}</span>' if isinstance(x, str) and x
                      else "")
            for r, x in zip(p["role"], p["responsibilities"], strict=True)]
    experience = []
    for written, years in zip(p["experience"], p["experience_years"], strict=True):
        text = "" if _isnan(written) else str(written)
        if not _isnan(years) and not text.lower().startswith(f"{float(years):g} year"):
            text += f" ({dec(years, 2)} years)"
        experience.append(text)
    shown = pd.DataFrame({
        "sheet row": p["sheet_row"].map(count), "type": p["type"],
        "role and responsibilities": role, "category (Section IV.A)": p["role_category"],
        "experience": experience})
    return table(shown, numeric=["sheet row"], classes="table sortable compact participants",
                 raw=("role and responsibilities",))


def interviews_groups(i: Inputs) -> str:
    g = i.csv(IV("groups.csv"))
    shown = pd.DataFrame({
        "type": g["type"], "category": g["label"],
        "participants": g["participants"].map(count),
        "years (least–most)": [f"{dec(a, 1)}–{dec(b, 1)}" for a, b in zip(
            g["years_min"], g["years_max"], strict=True)],
        "mean years": g["years_mean"].map(lambda x: dec(x, 2)),
        "roles in the sheet": g["roles"].fillna("").astype(str)})
    return table(shown, numeric=["participants", "years (least–most)", "mean years"],
                 classes="table compact")


def interviews_theme_counts(i: Inputs) -> str:
    c = i.csv(IV("theme_counts.csv"))
    shown = pd.DataFrame({
        "node": c["node"],
        "theme": [t if isinstance(t, str) and t else "(not in the taxonomy)"
                  for t in c["theme"]],
        "type": c["issue_type"].fillna("").astype(str),
        "users": [f"{count(n)} ({pct(p, 1)})" for n, p in zip(c["users"], c["users_percent"],
                                                              strict=True)],
        "developers": [f"{count(n)} ({pct(p, 1)})" for n, p in zip(
            c["developers"], c["developers_percent"], strict=True)],
        "participants": c["total"].map(count)})
    cls = ["st-differs" if yes_no(x) == "no" else ("muted" if int(t) == 0 else "")
           for x, t in zip(c["in_taxonomy"], c["total"], strict=True)]
    return table(shown, numeric=["users", "developers", "participants"], row_classes=cls)


def interviews_quotes(i: Inputs) -> str:
    html = i.text(IV("quotes.html"))
    return raw_html_block('<div class="interview-quotes">'
                          + sanitize_html(html, fragment_tags=True) + "</div>")


def interviews_guideline(i: Inputs) -> str:
    """The guideline (Markdown written by the interviews stage) as sanitised HTML, its
    headings moved below the page's own, its "generated from" comment left out."""
    text = re.sub(r"<!--.*?-->", "", i.text(IV("guideline.md")), flags=re.S)
    body = pandoc_markdown_to_html(text, shift_headings=2)
    return raw_html_block('<div class="guideline">'
                          + sanitize_html(body, fragment_tags=True) + "</div>")


def interviews_anomalies(i: Inputs) -> str:
    return quality_anomalies(i.json(QI))


# -- Keywords -----------------------------------------------------------------------------

KEYWORD_KINDS = {
    "exact_duplicate": "the same string is listed more than once",
    "case_duplicate": "the same keyword in another letter case",
    "short_keyword": "three characters or fewer: as a substring it matches inside other "
                     "words",
    "contained_in_other": "every match of a longer keyword is also a match of this one",
    "looks_merged": "reads as two keywords joined by a missing comma",
    "merged_literals": "two adjacent string literals, which Python joins",
    "non_word_edge": "does not start and end with a letter or digit",
    "ordinary_word": "an ordinary English or code word: matches text unrelated to LLMs",
}


def keywords_counts(i: Inputs) -> str:
    c = i.csv(KW("counts.csv"))
    if c.empty:
        return "This dump has no keyword file (`filter_keywords`), so there is nothing to count.\n"
    card = i.card.set_index("claim_id")
    paper, verdict = [], []
    for name in c["list"]:
        cid = f"keywords.count.{name}"
        if cid in card.index:
            paper.append(card.loc[cid, "paper_value"])
            verdict.append(status_badge(card.loc[cid, "status"]))
        else:
            paper.append("–")
            verdict.append('<span class="status-badge st-none">no printed value</span>')
    shown = pd.DataFrame({
        "list": c["list"], "entries as listed": c["raw"].map(count),
        "distinct exact strings": c["distinct"].map(count),
        "paper": paper, "verdict": verdict,
        "distinct ignoring case": c["distinct_casefold"].map(count)})
    return table(shown, numeric=["entries as listed", "distinct exact strings", "paper",
                                 "distinct ignoring case"], classes="table compact",
                 raw=("verdict",))


def keywords_audit(i: Inputs) -> str:
    a = i.csv(KW("audit.csv"))
    if a.empty:
        return "The audit found nothing.\n"
    kinds = list(dict.fromkeys([k for k in KEYWORD_KINDS if k in set(a["kind"])]
                               + sorted(set(a["kind"]) - set(KEYWORD_KINDS))))
    summary = pd.DataFrame({
        "finding": kinds,
        "what it means": [KEYWORD_KINDS.get(k, "") for k in kinds],
        "findings": [count((a["kind"] == k).sum()) for k in kinds],
        "keywords": [code_list(list(dict.fromkeys(a.loc[a["kind"] == k, "keyword"]
                                                  .astype(str)))[:10]) for k in kinds]})
    out = [table(summary, numeric=["findings"], classes="table compact", raw=("keywords",))]
    for k in kinds:
        g = a[a["kind"] == k]
        shown = pd.DataFrame({"list": g["list"], "keyword": g["keyword"].astype(str),
                              "line": g["line"].map(count), "detail": g["detail"]})
        out.append(details_block(f"{k}: {len(g):,}", html_table(
            shown, numeric=["line"], classes="table sortable compact")))
    return "\n".join(out)


def keywords_lists(i: Inputs) -> str:
    k = i.csv(KW("lists.csv"))
    if k.empty:
        return "No keyword list.\n"
    out = []
    for name, g in k.groupby("list", sort=True):
        chips = []
        for r in g.itertuples(index=False):
            counted = yes_no(r.counted) == "yes"
            cls = "kw" if counted else "kw repeat"
            title = (f"line {count(r.line)}, entry {count(r.position)}"
                     + ("" if counted else ": repeats an earlier entry, not counted"))
            chips.append(f'<code class="{cls}" title="{esc(title)}">{esc(r.keyword)}</code>')
        counted = int(g["counted"].map(yes_no).eq("yes").sum())
        out.append(details_block(f"{name}: {len(g):,} entries, {counted:,} distinct",
                                 f'<p class="keywords">{" ".join(chips)}</p>'))
    return "\n".join(out)


# -- What changed -------------------------------------------------------------------------

def _status(s: object) -> str:
    s = str(s)
    cls = {"new": "st-exact", "removed": "st-differs", "changed": "st-rounding"}.get(s,
                                                                                    "st-none")
    return f'<span class="status-badge {cls}">{esc(s)}</span>'


def _change(x: object) -> str:
    if _isnan(x):
        return "–"
    v = float(x)
    return f"{v:+,.0f}" if v.is_integer() else f"{v:+,.3f}"


def _change_pct(x: object) -> str:
    return "–" if _isnan(x) else f"{float(x):+.1f}%"


def _counts_frame(f: pd.DataFrame, key: str, label: str) -> pd.DataFrame:
    return pd.DataFrame({
        label: f[key].astype(str), "status": [_status(s) for s in f["status"]],
        "baseline": f["baseline"].map(count), "current": f["current"].map(count),
        "change": f["change"].map(_change), "change %": f["change_percent"].map(_change_pct)})


def compare_projects(i: Inputs) -> str:
    f = i.csv(CP("projects.csv"))
    f = f.assign(label=[n if isinstance(n, str) and n else p for n, p in zip(
        f["name"], f["project"], strict=True)])
    shown = _counts_frame(f, "label", "project")
    return table(shown, numeric=["baseline", "current", "change", "change %"],
                 raw=("status",))


def compare_years(i: Inputs) -> str:
    shown = _counts_frame(i.csv(CP("years.csv")), "year", "year")
    return table(shown, numeric=["baseline", "current", "change", "change %"],
                 classes="table compact", raw=("status",))


def compare_types(i: Inputs) -> str:
    f = i.csv(CP("types.csv"))
    shown = _counts_frame(f, "type", "type")
    shown["share, baseline"] = f["baseline_share"].map(pct)
    shown["share, current"] = f["current_share"].map(pct)
    return table(shown, numeric=["baseline", "current", "change", "change %",
                                 "share, baseline", "share, current"],
                 classes="table compact", raw=("status",))


def compare_kappa(i: Inputs) -> str:
    k = i.csv(CP("kappa.csv"))
    shown = pd.DataFrame({
        "type": k["type"],
        "baseline κ": k["baseline"].map(dec),
        "baseline analytic interval": [interval(a, b) for a, b in zip(k["baseline_ci_low"],
                                                        k["baseline_ci_high"], strict=True)],
        "current κ": k["current"].map(dec),
        "current analytic interval": [interval(a, b) for a, b in zip(k["current_ci_low"],
                                                       k["current_ci_high"], strict=True)],
        "change": k["change"].map(lambda x: "–" if _isnan(x) else f"{float(x):+.3f}"),
        "intervals overlap": k["intervals_overlap"].map(
            lambda x: "–" if _isnan(x) else yes_no(x))})
    return table(shown, numeric=list(shown.columns[1:-1]), classes="table compact")


def compare_cells(i: Inputs) -> str:
    c = i.csv(CP("cells.csv"))
    changed = c[c["status"] != "unchanged"]
    if changed.empty:
        return (f"None of the {len(c):,} project × year and project × type counts "
                "changed.\n")
    shown = pd.DataFrame({
        "project": changed["project"].astype(str), "by": changed["dimension"],
        "year or type": changed["key"].astype(str),
        "status": [_status(s) for s in changed["status"]],
        "baseline": changed["baseline"].map(count), "current": changed["current"].map(count),
        "change": changed["change"].map(_change),
        "change %": changed["change_percent"].map(_change_pct)})
    body = table(shown, numeric=["baseline", "current", "change", "change %"],
                 raw=("status",))
    return callout("note", f"The {len(changed):,} of {len(c):,} counts that changed", body,
                   collapse=len(changed) > 15)


# -- Findings -----------------------------------------------------------------------------

def themes_of_type(kind: str) -> Callable[[Inputs], str]:
    def make(i: Inputs) -> str:
        t = i.csv(TX("themes.csv"))
        t = t[t["type"] == kind]
        if t.empty:
            return f"No {md_escape(kind.lower())} theme in this build.\n"
        shown = pd.DataFrame({
            "code": t["code"], "theme": t["name"],
            "issues": t["issues"].map(count),
            f"% of {kind.lower()}s": t["issue_share_of_type"].map(pct),
            "% of all issues": t["issue_share_of_all"].map(pct),
            "sub-themes": t["subthemes_released"].map(count),
            "details": t["details"].map(count)})
        cls = ["muted" if int(n) == 0 else "" for n in t["issues"]]
        return table(shown, numeric=list(shown.columns[2:]), classes="table sortable compact",
                     row_classes=cls)
    return make


def challenge_coverage(themes: pd.DataFrame, shares: pd.DataFrame,
                       challenges: list[dict], names: dict[str, str]) -> pd.DataFrame:
    """Per challenge: its themes (our reading of Section V.A), the issues whose final label
    is one of them, their share of all issues, and the projects where the share is highest
    and lowest. Sums of counts the taxonomy stage wrote; nothing else is computed."""
    total = int(themes["issues"].sum())
    tp = shares[shares["table"] == "theme_by_project"]
    per_project = tp.groupby("column")["issues"].sum()
    rows = []
    for ch in challenges:
        codes = [str(c) for c in ch["themes"]]
        n = int(themes.loc[themes["code"].isin(codes), "issues"].sum())
        by_p = (tp[tp["row"].isin(codes)].groupby("column")["issues"].sum()
                .reindex(per_project.index, fill_value=0))
        share_p = (100 * by_p / per_project.where(per_project > 0)).dropna()
        hi = share_p.sort_values(ascending=False, kind="mergesort")
        rows.append({
            "challenge": f"{ch['number']}. {ch['title']}", "themes": ", ".join(codes),
            "issues": n, "share": 100 * n / total if total else float("nan"),
            "highest": (f"{names.get(hi.index[0], hi.index[0])} ({hi.iloc[0]:.1f}%)"
                        if len(hi) else "–"),
            "lowest": (f"{names.get(hi.index[-1], hi.index[-1])} ({hi.iloc[-1]:.1f}%)"
                       if len(hi) else "–")})
    return pd.DataFrame(rows, columns=["challenge", "themes", "issues", "share", "highest",
                                       "lowest"])


DOMINANT_SHARE = 50.0  # a theme "dominates" a challenge above this % of its reports


def dominant_themes(themes: pd.DataFrame, challenges: list[dict],
                    threshold: float = DOMINANT_SHARE) -> pd.DataFrame:
    """Per challenge, the theme that holds more than ``threshold`` % of the challenge's
    reports (at most one can), with the challenge's total without it: how much the
    challenge's count rests on one theme."""
    issues = themes.set_index("code")["issues"]
    rows = []
    for ch in challenges:
        codes = [str(c) for c in ch["themes"]]
        counts = issues.reindex(codes).fillna(0).astype(int)
        total = int(counts.sum())
        if not total:
            continue
        top = counts.sort_values(ascending=False, kind="mergesort")
        share = 100 * top.iloc[0] / total
        if share > threshold:
            rows.append({"challenge": f"{ch['number']}. {ch['title']}", "theme": top.index[0],
                         "theme_issues": int(top.iloc[0]), "total": total, "share": share,
                         "without": total - int(top.iloc[0])})
    return pd.DataFrame(rows, columns=["challenge", "theme", "theme_issues", "total", "share",
                                       "without"])


def findings_dominant(i: Inputs) -> str:
    """One sensitivity line per challenge that a single theme dominates."""
    themes = i.csv(TX("themes.csv"))
    challenges = (load_yaml(i.path(CHALLENGES)) or {}).get("challenges", [])
    d = dominant_themes(themes, challenges)
    lead = (f"A theme dominates a challenge when it holds more than {DOMINANT_SHARE:.0f}% of "
            "the challenge's reports. ")
    if d.empty:
        return raw_html_block(f"<p>{esc(lead)}No challenge is dominated by one theme.</p>")
    items = "".join(
        f"<li>{esc(r.challenge)}: {esc(r.theme)} has {count(r.theme_issues)} of its "
        f"{count(r.total)} reports ({pct(r.share)}); without {esc(r.theme)} the challenge "
        f"rests on {count(r.without)} reports.</li>" for r in d.itertuples(index=False))
    return raw_html_block(f"<p>{esc(lead)}Sensitivity:</p><ul>{items}</ul>")


def bug_confusion(i: Inputs) -> str:
    """The pair of bug themes the annotators confused most often (Finding 3 is about bugs),
    beside the most confused pair over all reports and its type."""
    c = i.csv(AG("confusions.csv"))
    if c.empty:
        return raw_html_block("<p>The annotators confused no pair of themes.</p>")
    c = c.sort_values(["rater_pairs", "label_a", "label_b"], ascending=[False, True, True],
                      kind="mergesort")
    top = c.iloc[0]
    same = top["type_a"] if top["type_a"] == top["type_b"] else ""
    text = (f"Over all reports, the pair of themes the annotators confused most often is "
            f"{top['label_a']} and {top['label_b']} ({count(top['rater_pairs'])} pairs of "
            f"annotators on {count(top['issues'])} reports)"
            + (f", two {str(same).lower()} themes. " if same else ". "))
    bugs = c[(c["type_a"] == "Bug") & (c["type_b"] == "Bug")]
    if bugs.empty:
        text += "No pair of bug themes was confused."
    else:
        b = bugs.iloc[0]
        text += (f"Among bug themes, the pair confused most often is {b['label_a']} and "
                 f"{b['label_b']} ({count(b['rater_pairs'])} pairs of annotators on "
                 f"{count(b['issues'])} reports).")
    return raw_html_block(f"<p>{esc(text)}</p>")


ROLE_CLAIMS = {  # claim id -> the role categories it counts (params.yaml keys)
    "interviews.users.engineers.count": ("engineer",),
    "interviews.users.students.count": ("student",),
    "interviews.developers.managers.count": ("manager",),
    "interviews.developers.feature_engineers.count": ("training", "inference"),
    "interviews.developers.training.count": ("training",),
    "interviews.developers.inference.count": ("inference",),
    "interviews.developers.deployment.count": ("deployment",),
}


def role_claim_mappings(mappings: pd.DataFrame, card: pd.DataFrame) -> pd.DataFrame:
    """For every role claim: the paper's count, ours (mapping 0), the counts the other
    readings of the roles give, and the readings that give the paper's count."""
    claims = card.set_index("claim_id")
    totals = mappings.pivot_table(index="mapping", columns="category", values="participants",
                                  aggfunc="sum", fill_value=0)
    desc = mappings.drop_duplicates("mapping").set_index("mapping")["description"].fillna("")
    rows = []
    for cid, keys in ROLE_CLAIMS.items():
        if cid not in claims.index:
            continue
        printed = str(claims.loc[cid, "paper_value"])
        relation = str(claims.loc[cid, "relation"] or "=")
        got = totals.reindex(columns=list(keys), fill_value=0).sum(axis=1)
        # a reading gives the paper's count when the claim's own verdict would be exact
        hits = [m for m in got.index
                if judge(printed, float(got[m]), relation, "count") == "exact"]
        rows.append({
            "claim": cid, "paper": paper_statement(printed, relation),
            "ours": int(got.get(0, 0)),
            "possible": ", ".join(str(v) for v in sorted(set(int(x) for x in got))),
            "readings": ("the one used" if 0 in hits else "; ".join(
                desc[m] for m in hits) if hits else "none")})
    return pd.DataFrame(rows, columns=["claim", "paper", "ours", "possible", "readings"])


def interviews_roles(i: Inputs) -> str:
    """The role mapping (raw role -> category) and, per role claim, which readings of the
    roles give the paper's count."""
    r = i.csv(IV("roles.csv")).fillna("")
    roles = pd.DataFrame({
        "group": r["type"], "role as the sheet spells it": r["role_raw"],
        "participants": r["participants"].map(count), "category": r["category"],
        "patterns it matches": r["matching"].map(lambda x: x or "none")})
    out = [table(roles, numeric=["participants"], classes="table compact")]
    m = role_claim_mappings(i.csv(IV("role_mappings.csv")), i.card)
    if not m.empty:
        n = int(i.csv(IV("role_mappings.csv"))["mapping"].nunique())
        shown = pd.DataFrame({
            "claim": m["claim"], "paper": m["paper"].map(count), "ours": m["ours"].map(count),
            f"counts the {n} readings give": m["possible"],
            "readings that give the paper's count": m["readings"]})
        out.append(raw_html_block(
            f"<p>A reading assigns each participant one of the categories whose pattern "
            f"their role matches; the roles allow {n:,} readings (the one used takes each "
            "role's first match).</p>"))
        out.append(table(shown, numeric=["paper", "ours"], classes="table compact"))
    return "\n".join(out)


def findings_challenges(i: Inputs) -> str:
    themes = i.csv(TX("themes.csv"))
    shares = i.csv(TX("shares.csv"))
    challenges = (load_yaml(i.path(CHALLENGES)) or {}).get("challenges", [])
    projects = Projects.load(i.path(PROJECTS))
    cov = challenge_coverage(themes, shares, challenges,
                             projects.names(shares["column"].astype(str).unique()))
    shown = pd.DataFrame({
        "challenge (Section V.A)": cov["challenge"], "themes (our reading)": cov["themes"],
        "issues": cov["issues"].map(count), "% of all issues": cov["share"].map(pct),
        "highest share in": cov["highest"], "lowest share in": cov["lowest"]})
    return table(shown, numeric=["issues", "% of all issues"], classes="table compact")


def findings_interview_themes(i: Inputs) -> str:
    c = i.csv(IV("theme_counts.csv"))
    c = c[c["total"] > 0]
    shown = pd.DataFrame({
        "node": c["node"],
        "theme": [t if isinstance(t, str) and t else "(not in the taxonomy)"
                  for t in c["theme"]],
        "users": [f"{count(n)} ({pct(p, 1)})" for n, p in zip(c["users"], c["users_percent"],
                                                              strict=True)],
        "developers": [f"{count(n)} ({pct(p, 1)})" for n, p in zip(
            c["developers"], c["developers_percent"], strict=True)]})
    return table(shown, numeric=["users", "developers"])


# -- the registry ---------------------------------------------------------------------------

QT = rel(P.taxonomy.quality)
QI = rel(P.interviews.quality)

INCLUDES: tuple[Include, ...] = (
    Include("taxonomy/claims.md", (SCORECARD,),
            _claims(("taxonomy.",), ("taxonomy.subthemes.A", "taxonomy.subthemes.B",
                                     "taxonomy.subthemes.C"))),
    Include("taxonomy/types.md", (TX("types.csv"),), taxonomy_types),
    Include("taxonomy/themes.md", (TX("themes.csv"),), taxonomy_themes),
    Include("taxonomy/tests.md", (TX("tests.csv"),), taxonomy_tests),
    Include("taxonomy/residuals.md", (TX("residuals.csv"),), taxonomy_residuals),
    Include("taxonomy/details.md", (TX("details.html"), TX("examples.csv")),
            taxonomy_details),
    Include("taxonomy/examples.md", (TX("examples.csv"),), taxonomy_examples),
    Include("taxonomy/empty_themes.md", (TX("empty_themes.csv"),), empty_themes_table),
    Include("findings/dominant.md", (TX("themes.csv"), CHALLENGES), findings_dominant),
    Include("findings/bug_confusion.md", (AG("confusions.csv"),), bug_confusion),
    Include("interviews/roles.md", (IV("roles.csv"), IV("role_mappings.csv"), SCORECARD),
            interviews_roles),
    Include("taxonomy/anomalies.md", (QT,), taxonomy_anomalies),
    Include("agreement/claims.md", (SCORECARD,), _claims(("agreement.",))),
    Include("agreement/headline.md", (AG("headline.csv"),), agreement_headline),
    Include("agreement/coefficients.md", (AG("headline.csv"),), agreement_coefficients),
    Include("agreement/leave_one_out.md", (AG("audit_leave_one_out.csv"),),
            agreement_leave_one_out),
    Include("agreement/sensitivity.md", (AG("audit_sensitivity.csv"),),
            agreement_sensitivity),
    Include("agreement/grouping.md", (AG("grouping.csv"),), agreement_grouping),
    Include("agreement/categories.md", (AG("categories.csv"),),
            agreement_categories),
    Include("agreement/groups.md", (AG("statistics.csv"),), agreement_groups),
    Include("agreement/versus_final.md", (AG("annotator_final.csv"),),
            agreement_versus_final),
    Include("agreement/confusions.md", (AG("confusions.csv"),),
            agreement_confusions),
    Include("agreement/audit_final.md", (AG("audit_final_by_project.csv"),),
            agreement_audit_final),
    Include("agreement/audit_dissent.md", (AG("audit_dissent.csv"),),
            agreement_audit_dissent),
    Include("agreement/audit_tests.md", (AG("audit_tests.csv"),),
            agreement_audit_tests),
    Include("agreement/audit_spread.md", (AG("audit_spread.csv"),),
            agreement_audit_spread),
    Include("agreement/audit_co_dissent.md", (AG("audit_co_dissent.csv"),),
            agreement_audit_co_dissent),
    Include("interviews/claims.md", (SCORECARD,), _claims(("interviews.",))),
    Include("interviews/participants.md", (IV("participants.csv"),),
            interviews_participants),
    Include("interviews/groups.md", (IV("groups.csv"),), interviews_groups),
    Include("interviews/theme_counts.md", (IV("theme_counts.csv"),),
            interviews_theme_counts),
    Include("interviews/quotes.md", (IV("quotes.html"),), interviews_quotes),
    Include("interviews/guideline.md", (IV("guideline.md"),),
            interviews_guideline),
    Include("interviews/anomalies.md", (QI,), interviews_anomalies),
    Include("keywords/claims.md", (SCORECARD,), _claims(("keywords.",))),
    Include("keywords/counts.md", (KW("counts.csv"), SCORECARD), keywords_counts),
    Include("keywords/audit.md", (KW("audit.csv"),), keywords_audit),
    Include("keywords/lists.md", (KW("lists.csv"),), keywords_lists),
    Include("compare/projects.md", (CP("projects.csv"),), compare_projects),
    Include("compare/years.md", (CP("years.csv"),), compare_years),
    Include("compare/types.md", (CP("types.csv"),), compare_types),
    Include("compare/kappa.md", (CP("kappa.csv"),), compare_kappa),
    Include("compare/cells.md", (CP("cells.csv"),), compare_cells),
    Include("findings/themes_question.md", (TX("themes.csv"),),
            themes_of_type("Question")),
    Include("findings/themes_requirement.md", (TX("themes.csv"),),
            themes_of_type("Requirement")),
    Include("findings/themes_bug.md", (TX("themes.csv"),), themes_of_type("Bug")),
    Include("findings/challenges.md", (TX("themes.csv"), TX("shares.csv"),
                                       CHALLENGES, PROJECTS),
            findings_challenges),
    Include("findings/interview_themes.md", (IV("theme_counts.csv"),),
            findings_interview_themes),
)
