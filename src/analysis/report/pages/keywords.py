"""The includes of the Keywords page (``keywords.qmd``): the paper's keyword counts beside
ours (with the scorecard's verdicts), the audit of the lists, and every list's entries."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import MISSING, count, yes_no
from analysis.report.generated import status_badge
from analysis.report.htmlsafe import details_block, esc, html_table
from analysis.report.pages.base import (
    KW,
    SCORECARD,
    Include,
    Inputs,
    code_list,
    table,
)

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
NO_PRINTED_VALUE = '<span class="status-badge st-none">no printed value</span>'


def keywords_counts(i: Inputs) -> str:
    """Per list: entries, distinct strings (the paper's count, beside the paper's value and
    the scorecard's verdict on the claim the keywords stage names) and distinct ignoring
    case."""
    c = i.csv(KW("counts.csv"))
    if c.empty:
        return "This dump has no keyword file (`filter_keywords`), so there is nothing to count.\n"
    card = i.card.set_index("claim_id")
    paper, verdict = [], []
    for cid in c["claim_id"]:
        if cid in card.index:
            paper.append(card.loc[cid, "paper_value"])
            verdict.append(status_badge(card.loc[cid, "status"]))
        else:
            paper.append(MISSING)
            verdict.append(NO_PRINTED_VALUE)
    shown = pd.DataFrame({
        "list": c["list"], "entries as listed": c["raw"].map(count),
        "distinct exact strings": c["distinct"].map(count),
        "paper": paper, "verdict": verdict,
        "distinct ignoring case": c["distinct_casefold"].map(count)})
    return table(shown, numeric=["entries as listed", "distinct exact strings", "paper",
                                 "distinct ignoring case"], classes="table compact",
                 raw=("verdict",))


def keywords_audit(i: Inputs) -> str:
    """The audit's findings by kind (what each means, every keyword it found), then every
    finding of each kind, collapsed."""
    a = i.csv(KW("audit.csv"))
    if a.empty:
        return "The audit found nothing.\n"
    found = set(a["kind"])
    kinds = [k for k in KEYWORD_KINDS if k in found] + sorted(found - set(KEYWORD_KINDS))
    parts = {k: a[a["kind"] == k] for k in kinds}
    summary = pd.DataFrame({
        "finding": kinds,
        "what it means": [KEYWORD_KINDS.get(k, "") for k in kinds],
        "findings": [count(len(parts[k])) for k in kinds],
        "keywords": [code_list(list(dict.fromkeys(parts[k]["keyword"].astype(str))))
                     for k in kinds]})
    out = [table(summary, numeric=["findings"], classes="table compact", raw=("keywords",))]
    for k in kinds:
        g = parts[k]
        shown = pd.DataFrame({"list": g["list"], "keyword": g["keyword"].astype(str),
                              "line": g["line"].map(count), "detail": g["detail"]})
        out.append(details_block(f"{k}: {len(g):,}", html_table(
            shown, numeric=["line"], classes="table sortable compact")))
    return "\n".join(out)


def keywords_lists(i: Inputs) -> str:
    """Every list's entries as chips (a repeated entry marked), with the list's entries and
    distinct strings as the keywords stage counted them."""
    k = i.csv(KW("lists.csv"))
    if k.empty:
        return "No keyword list.\n"
    c = i.csv(KW("counts.csv")).set_index("list")
    out = []
    for name in sorted(set(k["list"])):
        chips = []
        for r in k[k["list"] == name].itertuples(index=False):
            counted = yes_no(r.counted) == "yes"
            cls = "kw" if counted else "kw repeat"
            title = (f"line {count(r.line)}, entry {count(r.position)}"
                     + ("" if counted else ": repeats an earlier entry, not counted"))
            chips.append(f'<code class="{cls}" title="{esc(title)}">{esc(r.keyword)}</code>')
        out.append(details_block(
            f"{name}: {count(c.loc[name, 'raw'])} entries, "
            f"{count(c.loc[name, 'distinct'])} distinct",
            f'<p class="keywords">{" ".join(chips)}</p>'))
    return "\n".join(out)


INCLUDES: tuple[Include, ...] = (
    Include("keywords/counts.md", (KW("counts.csv"), SCORECARD), keywords_counts),
    Include("keywords/audit.md", (KW("audit.csv"),), keywords_audit),
    Include("keywords/lists.md", (KW("lists.csv"), KW("counts.csv")), keywords_lists),
)
