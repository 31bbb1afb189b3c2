"""The includes of the Taxonomy page (``taxonomy.qmd``): the paper's taxonomy claims beside
ours, the types and themes, the mix tests and their residuals, the browsable details with
the paper's cited examples, the themes no report carries, and the anomalies of the detail
files."""

from __future__ import annotations

import re

import pandas as pd

from analysis.core.examples import safe_issue_url
from analysis.core.formatting import MISSING, count, dec, decimal, pct, plural, pval, signed
from analysis.report.explorer import explorer_link
from analysis.report.generated import callout, status_badge
from analysis.report.htmlsafe import (
    SECTION_BODY,
    breakable,
    details_block,
    esc,
    headings_from,
    html_table,
    raw_html_block,
    sanitize_html,
)
from analysis.report.pages.base import (
    SCORECARD,
    TX,
    Include,
    Inputs,
    P,
    anomalies_include,
    claims_include,
    table,
)

TEST_NAMES = {"type_by_project": "issue type × project", "type_by_year": "issue type × year",
              "theme_by_project": "theme × project", "theme_by_year": "theme × year"}


def taxonomy_types(i: Inputs) -> str:
    """Themes, sub-themes, details and issues per issue type, with the total."""
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


def tree_text(themes: pd.DataFrame, subthemes: pd.DataFrame) -> str:
    """Fig. 2 as a text tree that folds: type, then each theme with its issues, then its
    sub-themes with their details (a sub-theme outside the paper's numbering marked).
    Readable at any width, where the drawn figure's small text is not (a phone)."""
    if themes.empty:
        return raw_html_block("<p>No theme in this build.</p>")
    out = ['<div class="tree-text">']
    for kind in dict.fromkeys(themes["type"].astype(str)):
        mine = themes[themes["type"].astype(str) == kind]
        out.append(f'<details class="tree-type"><summary><strong>{esc(kind)}</strong> · '
                   f"{plural(len(mine), 'theme')}, {plural(mine['issues'].sum(), 'issue')}"
                   "</summary><ul>")
        for t in mine.itertuples(index=False):
            subs = subthemes[subthemes["theme_code"].astype(str) == str(t.code)]
            items = "".join(
                f"<li><code>{esc(r.code)}</code> {esc(r.name)} · "
                f"{plural(r.details, 'detail')}"
                + ("" if yes(r.in_paper) else
                   ' <span class="note-inline">not in the paper\'s numbering</span>')
                + "</li>" for r in subs.itertuples(index=False))
            out.append(f"<li><details><summary><code>{esc(t.code)}</code> {esc(t.name)} · "
                       f"{plural(t.issues, 'issue')}, {plural(len(subs), 'sub-theme')}"
                       f"</summary><ul>{items}</ul></details></li>")
        out.append("</ul></details>")
    out.append("</div>")
    return raw_html_block("".join(out))


def yes(value: object) -> bool:
    """A yes/no cell of a stage's table as read (``True``, ``"True"``)."""
    return str(value) == "True"


def taxonomy_themes(i: Inputs) -> str:
    """Every theme: its sub-themes (against the paper's numbering), details, issues and
    shares; themes without issues muted."""
    t = i.csv(TX("themes.csv"))
    extra = t["subthemes_not_in_paper"].fillna("").astype(str)
    theme = [esc(n) + (f'<span class="note">with {esc(x)}, not in the paper\'s numbering'
                       "</span>" if x else "") for n, x in zip(t["name"], extra, strict=True)]
    code = [explorer_link(f"<code>{esc(c)}</code>", int(n), theme=c) if int(n) else esc(c)
            for c, n in zip(t["code"], t["issues"], strict=True)]
    shown = pd.DataFrame({
        "code": code, "theme": theme, "type": t["type"],
        "sub-themes": [f"{count(r)}" + (f" (paper {count(p)})" if r != p else "")
                       for r, p in zip(t["subthemes_released"], t["subthemes_paper"],
                                       strict=True)],
        "details": t["details"].map(count),
        "issues": t["issues"].map(count),
        "% of its type": t["issue_share_of_type"].map(pct),
        "% of all": t["issue_share_of_all"].map(pct)})
    cls = ["muted" if int(n) == 0 else "" for n in t["issues"]]
    return table(shown, numeric=["sub-themes", "details", "issues", "% of its type",
                                 "% of all"], row_classes=cls, raw=("code", "theme"))


def taxonomy_tests(i: Inputs) -> str:
    """The four chi-square tests of the type and theme mix by project and by year."""
    t = i.csv(TX("tests.csv"))
    shown = pd.DataFrame({
        "test": [TEST_NAMES.get(x, x) for x in t["test"]],
        "N": t["n"].map(count),
        "table": [f"{count(r)} × {count(c)}" for r, c in zip(t["rows"], t["columns"],
                                                              strict=True)],
        "χ²": t["chi2"].map(decimal),
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
    for test in dict.fromkeys(r["test"]):
        g = r[r["test"] == test].sort_values(["abs_r", "row", "column"],
                                              ascending=[False, True, True],
                                              kind="mergesort").head(top)
        shown = pd.DataFrame({
            "row": g["row"].astype(str), "column": g["column"].astype(str),
            "observed": g["observed"].map(count),
            "expected": g["expected"].map(decimal),
            "standardized residual": g["std_residual"].map(lambda x: signed(x, 1))})
        out.append(details_block(
            f"{TEST_NAMES.get(test, test)}: the {len(g):,} cells farthest from independence",
            html_table(shown, numeric=["observed", "expected", "standardized residual"],
                       classes="table sortable compact")))
    return "\n".join(out)


def issue_link(url: object, text: object) -> str:
    """An escaped link to a GitHub or Gitee issue; any other URL is shown as text only
    (the URL comes from data, so it is validated before it becomes an ``href``)."""
    safe = safe_issue_url(url)
    return (f'<a href="{esc(safe)}" rel="noopener">{breakable(text)}</a>' if safe
            else breakable(text))


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
    example reports the paper cites for it."""
    html = sanitize_html(i.text(TX("details.html")), fragment_tags=True)
    for code, block in sorted(example_items(i.csv(TX("examples.csv"))).items()):
        html = re.sub(rf"(<h4>{re.escape(code)} .*?</h4>)",
                      lambda m, b=block: m.group(1) + b, html, count=1, flags=re.S)
    return raw_html_block(headings_from(html, SECTION_BODY))


EXAMPLE_STATUS = {"in_release": "yes", "repository_not_in_release": "no (repository not studied)",
                  "issue_not_in_release": "no (report absent)"}


def example_verdicts(examples: pd.DataFrame, card: pd.DataFrame) -> list[str]:
    """The scorecard's verdict on each cited example (the claim the taxonomy stage names
    in ``claim_id``), as a badge; none where the scorecard has no such claim."""
    status = dict(zip(card["claim_id"], card["status"], strict=True))
    return [status_badge(status[c]) if c in status else "" for c in examples["claim_id"]]


def taxonomy_examples(i: Inputs) -> str:
    """Every example report the paper cites: the link, the sub-theme it is cited for, whether
    the release holds it, the release's final label and annotators' labels, and the
    scorecard's verdict."""
    e = i.csv(TX("examples.csv")).fillna("")
    if e.empty:
        return "The paper's examples are not listed in this build (`data/examples.yaml`).\n"
    where = []
    for r in e.itertuples(index=False):
        text = issue_link(r.url, f"{r.repository}/{r.kind}/{r.number}")
        if r.release_url and r.release_url != r.url:
            text += ('<span class="note">in the release as '
                     f"{issue_link(r.release_url, r.release_url)}</span>")
        if r.release_url:
            link = explorer_link("in the explorer", text=r.release_url)
            text += f'<span class="note">{link}</span>'

        where.append(text)
    shown = pd.DataFrame({
        "ref": [f"[{count(x)}]" for x in e["ref"]], "report": where,
        "cited for": e["subthemes"].map(esc),
        "in the release": [esc(EXAMPLE_STATUS.get(s, s)) for s in e["status"]],
        "final label": e["final_label"].map(lambda x: esc(x) or MISSING),
        "annotators' labels": e["annotator_labels"].map(lambda x: esc(x) or MISSING),
        "check": example_verdicts(e, i.card),
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
            lambda x: x or MISSING),
        "the paper's findings": t["findings"].map(lambda x: x or MISSING),
        "cited examples": t["examples"].map(lambda x: x or MISSING),
        "interview rankings": t["rankings"].map(lambda x: x or MISSING)})
    return table(shown, numeric=[], classes="table compact")


INCLUDES: tuple[Include, ...] = (
    claims_include("taxonomy", "taxonomy"),
    Include("taxonomy/types.md", (TX("types.csv"),), taxonomy_types),
    Include("taxonomy/themes.md", (TX("themes.csv"),), taxonomy_themes),
    Include("taxonomy/tree_text.md", (TX("themes.csv"), TX("subthemes.csv")),
            lambda i: tree_text(i.csv(TX("themes.csv")), i.csv(TX("subthemes.csv")))),
    Include("taxonomy/tests.md", (TX("tests.csv"),), taxonomy_tests),
    Include("taxonomy/residuals.md", (TX("residuals.csv"),), taxonomy_residuals),
    Include("taxonomy/details.md", (TX("details.html"), TX("examples.csv")),
            taxonomy_details),
    Include("taxonomy/examples.md", (TX("examples.csv"), SCORECARD), taxonomy_examples),
    Include("taxonomy/empty_themes.md", (TX("empty_themes.csv"),), empty_themes_table),
    anomalies_include("taxonomy/anomalies.md", P.taxonomy.quality),
)
