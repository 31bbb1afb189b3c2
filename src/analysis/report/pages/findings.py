"""The includes of the Findings page (``findings.qmd``): the issue types per project, the
themes of each type, the pair of bug themes annotators confused most, the themes the
interviews link, and how many reports each challenge rests on (the findings stage's
coverage and dominance)."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import MISSING, count, is_missing, pct
from analysis.report.htmlsafe import esc, html_table, md_escape, raw_html_block
from analysis.report.pages.base import (
    AG,
    FD,
    IV,
    T1,
    TX,
    Include,
    Inputs,
    P,
    rel,
    table,
)

FINDINGS_VARS = rel(P.findings.vars)


def type_by_project(counts: pd.DataFrame, shares: pd.DataFrame) -> str:
    """Issues per project and type with the share of each type within the project (the
    table1 stage's ``counts`` and ``type_shares``, rows in the same order)."""
    years = [c for c in counts.columns if str(c).isdigit()]
    types = [c for c in counts.columns if c not in (*years, "project", "name", "kind", "Total")]
    shown = pd.DataFrame({"project": counts["name"], "kind": counts["kind"].fillna("")})
    for t in types:
        shown[t] = [f"{count(n)} ({pct(s)})" for n, s in zip(counts[t], shares[t],
                                                             strict=True)]
    shown["Total"] = counts["Total"].map(count)
    return raw_html_block(html_table(shown, numeric=[*types, "Total"],
                                     classes="table sortable compact"))


def themes_of_type(kind: str) -> Include:
    """The include ``findings/themes_<kind>.md``: the themes of one issue type."""
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
    return Include(f"findings/themes_{kind.lower()}.md", (TX("themes.csv"),), make)


def bug_confusion(top: pd.DataFrame) -> str:
    """The pair of bug themes the annotators confused most often (Finding 3 is about bugs),
    beside the most confused pair over all reports and its type (the agreement stage's
    ``top_confusions``)."""
    overall = top[top["scope"] == "all"]
    if overall.empty:
        return raw_html_block("<p>The annotators confused no pair of themes.</p>")
    t = overall.iloc[0]
    same = t["type_a"] if t["type_a"] == t["type_b"] else ""
    text = (f"Over all reports, the pair of themes the annotators confused most often is "
            f"{t['label_a']} and {t['label_b']} ({count(t['rater_pairs'])} pairs of "
            f"annotators on {count(t['issues'])} reports)"
            + (f", two {str(same).lower()} themes. " if same else ". "))
    bugs = top[top["scope"] == "Bug"]
    if bugs.empty:
        text += "No pair of bug themes was confused."
    else:
        b = bugs.iloc[0]
        text += (f"Among bug themes, the pair confused most often is {b['label_a']} and "
                 f"{b['label_b']} ({count(b['rater_pairs'])} pairs of annotators on "
                 f"{count(b['issues'])} reports).")
    return raw_html_block(f"<p>{esc(text)}</p>")


def share_in(project: object, share: object) -> str:
    """``<project> (<share>)``, or the missing mark when no project has the challenge."""
    return MISSING if is_missing(project) else f"{project} ({pct(share)})"


def findings_challenges(cov: pd.DataFrame) -> str:
    """Per challenge (the findings stage's ``challenges``): its themes, the reports whose
    final label is one of them, their share, and the projects where it is highest and
    lowest."""
    shown = pd.DataFrame({
        "challenge (Section V.A)": [f"{n}. {t}" for n, t in zip(cov["challenge"],
                                                                cov["title"], strict=True)],
        "themes (our reading)": cov["themes"],
        "issues": cov["issues"].map(count), "% of all issues": cov["share_percent"].map(pct),
        "highest share in": [share_in(p, s) for p, s in zip(
            cov["highest_project"], cov["highest_share_percent"], strict=True)],
        "lowest share in": [share_in(p, s) for p, s in zip(
            cov["lowest_project"], cov["lowest_share_percent"], strict=True)]})
    return table(shown, numeric=["issues", "% of all issues"], classes="table compact")


def findings_dominant(d: pd.DataFrame, threshold: float) -> str:
    """One sensitivity line per challenge that a single theme dominates (the findings
    stage's ``dominant``, at its ``threshold`` percent)."""
    lead = (f"A theme dominates a challenge when it holds more than {threshold:.0f}% of "
            "the challenge's reports. ")
    if d.empty:
        return raw_html_block(f"<p>{esc(lead)}No challenge is dominated by one theme.</p>")
    items = "".join(
        f"<li>{esc(f'{r.challenge}. {r.title}')}: {esc(r.theme)} has {count(r.theme_issues)} "
        f"of its {count(r.total)} reports ({pct(r.share_percent)}); without {esc(r.theme)} "
        f"the challenge rests on {count(r.without)} reports.</li>"
        for r in d.itertuples(index=False))
    return raw_html_block(f"<p>{esc(lead)}Sensitivity:</p><ul>{items}</ul>")


def findings_interview_themes(i: Inputs) -> str:
    """The themes at least one participant links, with the users and developers who do."""
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


INCLUDES: tuple[Include, ...] = (
    Include("type_by_project.md", (T1("counts.csv"), T1("type_shares.csv")),
            lambda i: type_by_project(i.csv(T1("counts.csv")), i.csv(T1("type_shares.csv")))),
    themes_of_type("Question"),
    themes_of_type("Requirement"),
    themes_of_type("Bug"),
    Include("findings/bug_confusion.md", (AG("top_confusions.csv"),),
            lambda i: bug_confusion(i.csv(AG("top_confusions.csv")))),
    Include("findings/challenges.md", (FD("challenges.csv"),),
            lambda i: findings_challenges(i.csv(FD("challenges.csv")))),
    Include("findings/dominant.md", (FD("dominant.csv"), FINDINGS_VARS),
            lambda i: findings_dominant(i.csv(FD("dominant.csv")),
                                        float(i.json(FINDINGS_VARS)["dominant_share"]))),
    Include("findings/interview_themes.md", (IV("theme_counts.csv"),),
            findings_interview_themes),
)
