"""The includes of the Reproducibility page (``reproducibility.qmd``) that come from the
pipeline's outputs: the scorecard's verdicts (also on the overview page), the whole
scorecard, and the parameters with their seeds. (The build, versions and run-time blocks
describe one rendering and are written when the site is rendered, by
:mod:`analysis.report.site`.)"""

from __future__ import annotations

import pandas as pd

from analysis.core.claims import paper_statement
from analysis.core.config import load_yaml
from analysis.core.formatting import count, plural
from analysis.findings.compute import is_example
from analysis.report.generated import STATUS_HELP, STATUS_LABELS, callout
from analysis.report.htmlsafe import details_block, esc, html_table, linkify, raw_html_block
from analysis.report.pages.base import FD, SCORECARD, Include, Inputs, P, rel
from analysis.report.pages.overview import relations

FINDINGS_VARS = rel(P.findings.vars)
BY_SOURCE = FD("status_by_source.csv")
PARAMS = rel(P.params)


# The two scoreboards (the findings stage's ``SCOREBOARDS``), each with the prefix of its
# counts among the stage's vars and its heading.
BOARDS = (("printed", "printed", "The numbers the paper prints"),
          ("examples", "examples_cited", "The example reports the paper cites"))
# What each verdict means for a cited example (its final label against the cited theme).
EXAMPLE_HELP = {"exact": "the release's final label of the report is the cited theme",
                "rounding": "does not apply to a label",
                "differs": "the release labels the report with another theme",
                "not_reproducible": "the report is not in the release"}


def status_bar(n: dict[str, int], kind: str) -> str:
    """A bar of the claims per verdict, each part as wide as its share."""
    total = max(sum(n.values()), 1)
    bar = [f'<div class="statusbar" role="img" aria-label="{esc(kind)}: '
           + esc(", ".join(f"{n[s]} {STATUS_LABELS[s]}" for s in STATUS_LABELS)) + '">']
    bar.extend(f'<span class="st-{s}" style="width:{100 * n[s] / total:.3f}%" '
               f'title="{n[s]} {esc(STATUS_LABELS[s])}"></span>'
               for s in STATUS_LABELS if n[s])
    return "".join(bar) + "</div>"


def scoreboard(totals: dict, kind: str, claims_key: str, heading: str, page: str) -> str:
    """One scoreboard: its claims, a bar and a legend of its verdicts (``data-status``
    and ``data-claims`` carry the counts, so a check can add the boards up)."""
    n = {s: int(totals[f"{kind}_{s}"]) for s in STATUS_LABELS}
    meaning = EXAMPLE_HELP if kind == "examples" else STATUS_HELP
    legend = "".join(
        f'<li data-status="{s}"><span class="swatch st-{s}" aria-hidden="true"></span>'
        f'<a href="{page}#scorecard-{s.replace("_", "-")}"><strong>{count(n[s])} '
        f"{esc(STATUS_LABELS[s])}</strong></a>: {esc(meaning[s])}</li>"
        for s in STATUS_LABELS)
    return (f'<div class="scoreboard" data-kind="{kind}" '
            f'data-claims="{int(totals[claims_key])}"><p class="scoreboard-title"><strong>'
            f"{esc(heading)}: {count(int(totals[claims_key]))}</strong></p>"
            f'{status_bar(n, heading)}<ul class="status-legend">{legend}</ul></div>')


def scorecard_summary(totals: dict, by_source: pd.DataFrame,
                      target: str = "reproducibility.qmd") -> str:
    """The two scoreboards apart (the paper's printed numbers, the example reports it
    cites: the findings stage's vars), each a bar and a legend linking the full
    scorecard, then the claims per place in the paper, folded (``status_by_source``)."""
    page = target.replace(".qmd", ".html")
    boards = "".join(scoreboard(totals, kind, key, heading, page)
                     for kind, key, heading in BOARDS)
    lines = [raw_html_block(f'<div class="scoreboards">{boards}</div>')]
    shown = by_source[["source", "claims", *STATUS_LABELS]].rename(
        columns={"source": "where in the paper", **STATUS_LABELS})
    lines.append(details_block(f"The verdicts per place in the paper ({len(shown):,} places)",
                               html_table(shown, classes="table sortable compact cards")))
    return "\n".join(lines)


# A verdict as the verb of a sentence, for one claim and for several: "the 1 printed
# number that differs", "the 7 printed numbers that differ".
VERDICT_VERBS = {"exact": ("is exact", "are exact"),
                 "rounding": ("is within rounding", "are within rounding"),
                 "differs": ("differs", "differ"),
                 "not_reproducible": ("cannot be reproduced", "cannot be reproduced")}
# The two kinds of claim (the findings stage's scoreboards), in the singular and plural.
KIND_NAMES = (("printed", "printed number", "printed numbers"),
              ("examples", "cited example", "cited examples"))


def verdict_heading(label: str, n: dict[str, int]) -> str:
    """A verdict's heading with its count of each kind of claim, the same counts as the
    scoreboards above it: ``Exact: 122 printed numbers, 3 cited examples``."""
    return (f"{label[:1].upper()}{label[1:]}: "
            + ", ".join(plural(n[kind], one, many) for kind, one, many in KIND_NAMES))


def verdict_title(n: int, one: str, many: str, status: str) -> str:
    """The title of a folded list of claims, a sentence in number agreement: ``The 1
    printed number that differs``, ``The 7 printed numbers that differ``."""
    verb = VERDICT_VERBS[status][0 if int(n) == 1 else 1]
    return f"The {plural(n, one, many)} that {verb}"


def claims_list(rows: pd.DataFrame, table_id: str) -> str:
    """One folded list's table: each claim with the paper's statement, ours and the note."""
    rows = rows.assign(paper_value=[paper_statement(v, r) for v, r in zip(
        rows["paper_value"], relations(rows), strict=True)])
    shown = rows[["claim_id", "description", "paper_value", "reproduced_value", "note",
                  "source"]].rename(columns={
                      "claim_id": "claim", "description": "what", "paper_value": "paper",
                      "reproduced_value": "ours", "source": "where"})
    shown["claim"] = [esc(c).replace(".", ".<wbr>") for c in shown["claim"]]
    shown["note"] = shown["note"].map(linkify)
    return raw_html_block(html_table(shown, numeric=["paper", "ours"],
                                     classes="table sortable scorecard cards",
                                     raw_columns=("claim", "note"), table_id=table_id))


def scorecard_full(card: pd.DataFrame) -> str:
    """The whole scorecard, one section per verdict headed by its count of printed numbers
    and of cited examples (the scoreboards' counts: one set of counts on the page), each
    kind's list folded behind a sentence that names it (the page stays short)."""
    examples = is_example(card)
    out = []
    for s, label in STATUS_LABELS.items():
        mine = card["status"] == s
        parts = {"printed": card[mine & ~examples], "examples": card[mine & examples]}
        anchor = s.replace("_", "-")
        out.append(f"### {verdict_heading(label, {k: len(v) for k, v in parts.items()})} "
                   f"{{#scorecard-{anchor}}}\n")
        out.append(f"{STATUS_HELP[s].capitalize()}.\n")
        if not mine.any():
            out.append("No claims.\n")
            continue
        for kind, one, many in KIND_NAMES:
            if parts[kind].empty:
                continue
            block = claims_list(parts[kind], f"scorecard-table-{anchor}-{kind}")
            out.append(callout("note", verdict_title(len(parts[kind]), one, many, s), block,
                               collapse=True))
    return "\n".join(out)


def find_seeds(params: dict, prefix: str = "") -> dict[str, object]:
    """Every parameter whose name holds "seed", by its dotted path."""
    out = {}
    for key, value in (params or {}).items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(find_seeds(value, path + "."))
        elif "seed" in str(key).lower():
            out[path] = value
    return out


def params_block(params_text: str, seeds: dict[str, object]) -> str:
    """``params.yaml`` as used, and its seeds."""
    out = [raw_html_block(f'<pre class="params">{esc(params_text)}</pre>')]
    if seeds:
        out.append(raw_html_block("<p>Seeds: " + ", ".join(
            f"<code>{esc(k)}</code> = {esc(v)}" for k, v in sorted(seeds.items())) + ".</p>"))
    else:
        out.append("No stage of the pipeline draws random numbers yet, so `params.yaml` has "
                   "no seed; a stage that does takes its seed from there.\n")
    return "\n".join(out)


def params_include(i: Inputs) -> str:
    return params_block(i.text(PARAMS), find_seeds(load_yaml(i.path(PARAMS)) or {}))


INCLUDES: tuple[Include, ...] = (
    Include("scorecard_summary.md", (FINDINGS_VARS, BY_SOURCE),
            lambda i: scorecard_summary(i.json(FINDINGS_VARS), i.csv(BY_SOURCE))),
    Include("scorecard_full.md", (SCORECARD,), lambda i: scorecard_full(i.card)),
    Include("params.md", (PARAMS,), params_include),
)
