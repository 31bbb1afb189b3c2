"""The includes of the Interviews page (``interviews.qmd``): the paper's interview claims
beside ours, the participants and their groups, how the roles are read, the themes the
codebook links, the quotes, the guideline and the anomalies of the interview files."""

from __future__ import annotations

import re

import pandas as pd

from analysis.core.formatting import count, dec, is_missing, pct, yes_no
from analysis.report.htmlsafe import (
    SECTION_BODY,
    esc,
    headings_from,
    raw_html_block,
    sanitize_html,
)
from analysis.report.markdown import pandoc_markdown_to_html
from analysis.report.pages.base import (
    IV,
    Include,
    Inputs,
    P,
    anomalies_include,
    claims_include,
    rel,
    table,
)

VARS = rel(P.interviews.vars)


def interviews_participants(i: Inputs) -> str:
    """Every participant of the background sheet: role, category and experience."""
    p = i.csv(IV("participants.csv"))
    role = [esc(r) + (f'<span class="note">{esc(x)}</span>' if isinstance(x, str) and x
                      else "")
            for r, x in zip(p["role"], p["responsibilities"], strict=True)]
    experience = []
    for written, years in zip(p["experience"], p["experience_years"], strict=True):
        text = "" if is_missing(written) else str(written)
        if not is_missing(years) and not text.lower().startswith(f"{float(years):g} year"):
            text += f" ({dec(years, 2)} years)"
        experience.append(text)
    shown = pd.DataFrame({
        "sheet row": p["sheet_row"].map(count), "type": p["type"],
        "role and responsibilities": role, "category (Section IV.A)": p["role_category"],
        "experience": experience})
    return table(shown, numeric=["sheet row"], classes="table sortable compact participants cards",
                 raw=("role and responsibilities",))


def interviews_groups(i: Inputs) -> str:
    """The role categories: participants and their years of experience."""
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


def both_groups(counts: pd.DataFrame, column: str) -> list[str]:
    """``<participants> (<share of the group>)`` of every row, for ``column`` (users or
    developers)."""
    return [f"{count(n)} ({pct(p, 1)})" for n, p in zip(
        counts[column], counts[f"{column}_percent"], strict=True)]


def theme_name(theme: object) -> str:
    """The theme a codebook node is, or a note that the taxonomy has none."""
    return theme if isinstance(theme, str) and theme else "(not in the taxonomy)"


def interviews_theme_counts(i: Inputs) -> str:
    """Every codebook node: its theme, and the users and developers who link it."""
    c = i.csv(IV("theme_counts.csv"))
    shown = pd.DataFrame({
        "node": c["node"], "theme": c["theme"].map(theme_name),
        "type": c["issue_type"].fillna("").astype(str),
        "users": both_groups(c, "users"), "developers": both_groups(c, "developers"),
        "participants": c["total"].map(count)})
    cls = ["st-differs" if yes_no(x) == "no" else ("muted" if int(t) == 0 else "")
           for x, t in zip(c["in_taxonomy"], c["total"], strict=True)]
    return table(shown, numeric=["users", "developers", "participants"], row_classes=cls)


def interviews_quotes(i: Inputs) -> str:
    """The quotes by theme (the stage's quotes.html, sanitised)."""
    html = headings_from(i.text(IV("quotes.html")), SECTION_BODY)
    return raw_html_block('<div class="interview-quotes">'
                          + sanitize_html(html, fragment_tags=True) + "</div>")


def interviews_guideline(i: Inputs) -> str:
    """The guideline (Markdown written by the interviews stage) as sanitised HTML, its
    headings moved below the page's own, its "generated from" comment left out."""
    text = re.sub(r"<!--.*?-->", "", i.text(IV("guideline.md")), flags=re.S)
    body = headings_from(pandoc_markdown_to_html(text), SECTION_BODY)
    return raw_html_block('<div class="guideline">'
                          + sanitize_html(body, fragment_tags=True) + "</div>")


def interviews_roles(i: Inputs) -> str:
    """The role mapping (raw role -> category) and, per role claim, which readings of the
    roles give the paper's count (the interviews stage's ``role_claims``)."""
    r = i.csv(IV("roles.csv")).fillna("")
    roles = pd.DataFrame({
        "group": r["type"], "role (words translated by interviews.translations)":
        r["role_title"],
        "participants": r["participants"].map(count), "category": r["category"],
        "patterns it matches": r["matching"].map(lambda x: x or "none")})
    out = [table(roles, numeric=["participants"], classes="table compact")]
    m = pd.read_csv(i.path(IV("role_claims.csv")), dtype=str, keep_default_na=False)
    if not m.empty:
        n = int(i.json(VARS)["interviews_role_readings"])
        readings = role_readings(i.csv(IV("role_mappings.csv")))
        by_reading = m["by_reading"].str.split("; ")
        shown = pd.DataFrame({
            "claim": m["claim_id"], "paper": m["paper"].map(count), "ours": m["ours"].map(count),
            **{f"reading {r}": by_reading.str[r - 1].fillna("") for r in readings["reading"]},
            "readings that give the paper's count": m["readings"]})
        out.append(raw_html_block(
            f"<p>A reading assigns each participant one of the categories whose pattern "
            f"their role matches; the roles allow {n:,} readings. Every verdict uses "
            "reading 1 (each role in its first matching category); the scorecard's note of "
            "a count that another reading changes says so.</p>"))
        out.append(table(readings, numeric=["reading"], classes="table compact"))
        out.append(table(shown, numeric=["paper", "ours", *(f"reading {r}" for r in
                                                            readings["reading"])],
                         classes="table compact"))
    return "\n".join(out)


def role_readings(mappings: pd.DataFrame) -> pd.DataFrame:
    """The readings of the roles (the interviews stage's ``role_mappings``), numbered from
    1, each with what it assigns otherwise than reading 1, the verdicts' reading."""
    first = mappings.drop_duplicates("mapping")
    return pd.DataFrame({
        "reading": [int(x) + 1 for x in first["mapping"]],
        "how the roles are read": [
            "each role in its first matching category (the one every verdict uses)"
            if int(x) == 0 else str(d) for x, d in
            zip(first["mapping"], first["description"].fillna(""), strict=True)]})


INCLUDES: tuple[Include, ...] = (
    claims_include("interviews", "interviews"),
    Include("interviews/participants.md", (IV("participants.csv"),),
            interviews_participants),
    Include("interviews/groups.md", (IV("groups.csv"),), interviews_groups),
    Include("interviews/theme_counts.md", (IV("theme_counts.csv"),),
            interviews_theme_counts),
    Include("interviews/quotes.md", (IV("quotes.html"),), interviews_quotes),
    Include("interviews/guideline.md", (IV("guideline.md"),), interviews_guideline),
    Include("interviews/roles.md", (IV("roles.csv"), IV("role_claims.csv"),
                                     IV("role_mappings.csv"), VARS),
            interviews_roles),
    anomalies_include("interviews/anomalies.md", P.interviews.quality),
)
