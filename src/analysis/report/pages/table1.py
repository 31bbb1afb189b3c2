"""The includes of the Table I page (``table1.qmd``): Table I with our value in every cell
beside the paper's, and the table as the stage wrote it."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import MISSING, count
from analysis.core.projects import Projects
from analysis.report.explorer import explorer_href
from analysis.report.generated import STATUS_LABELS, STATUS_MARK, status_badge
from analysis.report.htmlsafe import esc, html_table, raw_html_block
from analysis.report.pages.base import SCORECARD, T1, Include, Inputs, P, rel

COUNTS = T1("counts.csv")
FALSE_POSITIVES = T1("false_positives.csv")
CLAIMS = T1("claims.csv")
VARS = rel(P.table1.vars)
PROJECTS = rel(P.projects_file)
SUM = "Sum"  # the project of Table I's Sum row


def claim_ids(claims: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(project, column) -> the id of the claim the table1 stage says the cell is."""
    return {(str(p), str(c)): str(i) for p, c, i in zip(
        claims["project"], claims["column"], claims["claim_id"], strict=True)}


def table1_compare(table: pd.DataFrame, card: pd.DataFrame, projects: Projects,
                   false_positives: pd.DataFrame, ids: dict[tuple[str, str], str],
                   computed: int) -> str:
    """Table I with our value in every cell, marked against the paper's printed value
    (``ids``: the claim of each cell, as the table1 stage wrote them).

    The false-positive column shows the rate computed from the dump's excluded candidates
    where the table1 stage computed one (``source`` ``computed``; ``computed``: for how
    many projects), with the paper's rate under it, and the paper's own rate, marked
    reported, elsewhere.
    """
    claims = card.set_index("claim_id")
    years = [c for c in table.columns if str(c).isdigit()]
    types = [c for c in table.columns if c not in (*years, "project", "name", "kind", "Total")]
    fp = false_positives.set_index("project")
    head = ["<th scope=\"col\">Project</th>"]
    head += [f'<th scope="col" class="num">{esc(c)}</th>' for c in (*years, *types, "Total")]
    head.append('<th scope="col" class="num">False positives'
                + ("" if computed else " (paper only)") + "</th>")
    rows = []
    for rec in table.to_dict("records"):
        project = str(rec["project"])
        total = project == SUM
        paper_name = projects.get(project).paper_name
        name = esc(rec["name"])
        if paper_name and paper_name != rec["name"]:
            name += f' <span class="paper-name">(paper: {esc(paper_name)})</span>'
        cells = [f'<th scope="row">{name}</th>']
        for col in (*years, *types, "Total"):
            cells.append(_compare_cell(rec[col], claims, ids.get((project, str(col)), ""),
                                       _cell_href(project, str(col), years)))
        fp_id = ids.get((project, "false_positive"), "")
        paper_fp = claims.loc[fp_id, "paper_value"] if fp_id in claims.index else ""
        own = fp.loc[project] if project in fp.index else None
        cells.append(_false_positive_cell(own, paper_fp, total))
        cls = ' class="sum"' if total else ""
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    html = (f'<div class="table-wrap"><table class="table compare"><thead><tr>'
            f'{"".join(head)}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    legend = ('<p class="legend">' + " ".join(status_badge(s) for s in STATUS_LABELS)
              + ' <span class="status-badge st-none">no printed value</span></p>')
    if computed:
        note = (f"<p>False positives: computed for {computed:,} project(s) from the "
                "excluded candidates the dump records (excluded / candidates), with the "
                "paper's rate under ours; <em>reported</em> marks the paper's own rate "
                "where the dump records none. The Sum row is the average of the computed "
                "rates.</p>")
    else:
        note = ("<p>False positives: the paper's own rates (<em>reported</em>): this dump "
                "does not record the candidates its annotators excluded, so no rate can "
                "be computed.</p>")
    return raw_html_block(html + legend + note)


def _false_positive_cell(own, paper_value: str, total: bool) -> str:
    """One false-positive cell: our computed rate (with the paper's under it), or the
    paper's own, marked reported."""
    if own is not None and own["source"] == "computed":
        rate = f"{float(own['false_positive_percent']):.2f}%"
        text = f"Average: {rate}" if total else rate
        title = (f"computed: {own['excluded']} excluded of {own['candidates']} candidates"
                 + (f" · paper: {paper_value}" if paper_value else ""))
        extra = (f'<span class="paper-value">paper {esc(paper_value)}</span>'
                 if paper_value else "")
        return f'<td class="num st-none" title="{esc(title)}">{esc(text)}{extra}</td>'
    if paper_value:
        return (f'<td class="num st-reported" title="reported by the paper, not computed">'
                f'{esc(paper_value)}<span class="reported-mark">(reported)</span></td>')
    return f'<td class="num st-reported">{MISSING}</td>'


def _cell_href(project: str, column: str, years: list) -> str:
    """The issue explorer's view of one cell of Table I: the project (none for the Sum
    row) and the cell's year or type (none for the Total column)."""
    filters = {"project": "" if project == SUM else project}
    if column in map(str, years):
        filters["year"] = column
    elif column != "Total":
        filters["type"] = column.lower()
    return explorer_href(**filters)


def _compare_cell(value, claims: pd.DataFrame, claim_id: str, href: str = "") -> str:
    """One count of Table I, marked against the paper's value of its claim (if any), linked
    to its issues in the explorer when ``href`` is given."""
    ours = count(value)
    if href:
        ours = f'<a class="explorer-link" href="{esc(href)}">{ours}</a>'

    if not claim_id or claim_id not in claims.index:
        return f'<td class="num st-none" title="no printed value in the paper">{ours}</td>'
    row = claims.loc[claim_id]
    status = row["status"]
    title = (f"paper: {row['paper_value']} · ours: {row['reproduced_value'] or 'n/a'} · "
             f"{STATUS_LABELS.get(status, status)}")
    extra = ""
    if status != "exact":
        extra = f'<span class="paper-value">paper {esc(row["paper_value"])}</span>'
    return (f'<td class="num st-{esc(status)}" title="{esc(title)}">'
            f'{ours}<span class="verdict-mark" aria-hidden="true">'
            f'{STATUS_MARK.get(status, "")}</span>'
            f"{extra}</td>")


def table1_include(i: Inputs) -> str:
    return table1_compare(
        pd.read_csv(i.path(COUNTS), keep_default_na=False), i.card, Projects.load(i.path(PROJECTS)),
        pd.read_csv(i.path(FALSE_POSITIVES), keep_default_na=False, dtype={"project": str}),
        claim_ids(pd.read_csv(i.path(CLAIMS), keep_default_na=False, dtype=str)),
        int(i.json(VARS)["false_positive_computed_projects"]))


def counts_table(i: Inputs) -> str:
    """Table I as the stage wrote it (``counts.csv``), as an escaped, sortable table."""
    frame = pd.read_csv(i.path(COUNTS), keep_default_na=False)
    return raw_html_block(html_table(frame, classes="table sortable compact"))


INCLUDES: tuple[Include, ...] = (
    Include("table1_compare.md", (COUNTS, FALSE_POSITIVES, CLAIMS, VARS, SCORECARD, PROJECTS),
            table1_include),
    Include("tables/table1/counts.md", (COUNTS,), counts_table),
)
