"""The includes of the Table I page (``table1.qmd``): Table I with our value in every cell
beside the paper's, and the table as the stage wrote it."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import MISSING, count, is_missing, pct
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
    html = ('<p class="scroll-cue">The table is wider than the screen: scroll sideways in '
            "it for the years, types, total and false positives.</p>"
            f'<div class="table-wrap"><table class="table compare"><thead><tr>'
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
        n = (f'<span class="rate-n">{count(own["excluded"])} of '
             f'{count(own["candidates"])}</span>')
        extra = (f'<span class="paper-value">paper {esc(paper_value)}</span>'
                 if paper_value else "")
        return (f'<td class="num st-none" title="{esc(title)}">{esc(text)}{n}{extra}'
                "</td>")
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


# --- a study (the release extended with new labels): the study now, beside the paper's
# Table I (which is the release's); its tables are optional inputs, so the release's
# page is unchanged

STUDY = T1("study.csv")
BATCH_RATES = T1("false_positives_by_batch.csv")
RELEASE = "release"


def part_label(batch: str) -> str:
    """A column group's heading: the release, a batch, or the whole study."""
    if batch == "":
        return "The study"
    return "Release" if batch == RELEASE else f"Batch {batch}"


def part_columns(counts: pd.DataFrame, part: str) -> tuple[list[str], set[str]]:
    """The columns one part shows (its years and total; the whole study's types too) and
    the years it marks (a batch's year the release also covers)."""
    mine = counts[counts["batch"] == part]
    columns = list(dict.fromkeys(mine["column"]))
    years = [c for c in columns if c.isdigit()]
    types = [] if part else [c for c in columns if not c.isdigit() and c != "Total"]
    marked = set(mine.loc[mine["release_year"].astype(str).str.lower() == "true", "column"])
    return [*years, *types, "Total"], marked


YEAR_MARK = ('<span class="year-mark" title="a year the release also covers: these reports '
             "are the batch's own\">†</span>")


def study_table(counts: pd.DataFrame) -> str:
    """The study's Table I: per project, each part's years and total side by side (the
    release, each batch, then the whole study with its types); a batch's year that the
    release also covers is marked with a dagger, its reports the batch's own. Above it,
    Table I's line saying it scrolls sideways, shown while it is wider than its box (at
    1280 px too, when a study has many batches)."""
    counts = counts.assign(batch=counts["batch"].fillna("").astype(str),
                           column=counts["column"].astype(str),
                           project=counts["project"].astype(str))
    groups = [(part, *part_columns(counts, part)) for part in dict.fromkeys(counts["batch"])]
    cell = counts.set_index(["project", "batch", "column"])["issues"].to_dict()
    top = ['<th scope="col" rowspan="2">Project</th>'] + [
        f'<th scope="colgroup" colspan="{len(shown)}" class="part">'
        f"{esc(part_label(part))}</th>" for part, shown, _ in groups]
    sub = [f'<th scope="col" class="num">{esc(c)}{YEAR_MARK if c in marked else ""}</th>'
           for _, shown, marked in groups for c in shown]
    names = dict(zip(counts["project"], counts["name"], strict=True))
    rows = []
    for project in dict.fromkeys(counts["project"]):
        cells = [f'<th scope="row">{esc(names[project])}</th>'] + [
            f'<td class="num">{count(cell.get((project, part, c), 0))}</td>'
            for part, shown, _ in groups for c in shown]
        cls = ' class="sum"' if project == SUM else ""
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return ('<p class="scroll-cue">The table is wider than the screen: scroll sideways in it '
            "for each part's years and totals.</p>"
            f'<div class="table-wrap"><table class="table compare study wide"><thead>'
            f'<tr>{"".join(top)}</tr><tr>{"".join(sub)}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def batch_rates_table(rates: pd.DataFrame) -> str:
    """Each batch's false-positive rates: per project its n and Wilson interval, the
    batch's average of its own projects last."""
    shown = pd.DataFrame({
        "batch": rates["batch"].astype(str),
        "project": [("Average" if p == SUM else n) for p, n in
                    zip(rates["project"].astype(str), rates["name"], strict=True)],
        "excluded": rates["excluded"].map(count),
        "candidates (n)": rates["candidates"].map(count),
        "false positives": rates["false_positive_percent"].map(lambda x: pct(x, 2)),
        "95% interval (Wilson)": [interval_pct(lo, hi) for lo, hi in
                                  zip(rates["ci_low"], rates["ci_high"], strict=True)]})
    return html_table(shown, numeric=["excluded", "candidates (n)", "false positives",
                                      "95% interval (Wilson)"],
                      classes="table compact sortable")


def interval_pct(low: object, high: object) -> str:
    """An interval of percentages: ``12.3–45.6%``, or the missing mark."""
    if is_missing(low) or is_missing(high):
        return MISSING
    return f"{float(low):.1f}–{float(high):.1f}%"


def source_links(*tables: str) -> str:
    """The line under a section: the table1 notebook, and the tables' downloads."""
    files = ", ".join(f"[{t.removeprefix('report/')}](downloads/{t.removeprefix('report/')})"
                      for t in tables)
    return f"[Source: notebooks/02_table1](notebooks/02_table1.qmd){{.source-link}} ({files})"


def study_now(i: Inputs) -> str:
    """On a study: its Table I as it stands (release, each batch, total) and each batch's
    false-positive rates with their n and interval; nothing on the release alone."""
    counts = i.optional_csv(STUDY)
    if counts is None:
        return ""
    rates = i.optional_csv(BATCH_RATES)
    batches = [b for b in dict.fromkeys(counts["batch"].dropna().astype(str))
               if b != RELEASE]
    total = counts[(counts["project"].astype(str) == SUM) & (counts["column"] == "Total")
                   & counts["batch"].isna()]["issues"].sum()
    out = ["## The study now\n\n",
           f"This build reads a study: the release + {len(batches)} "
           f"batch{'es' if len(batches) != 1 else ''} of new labels "
           f"({esc(', '.join(batches))}), {count(total)} reports in all. Table I above, "
           "against the paper, counts the release's rows alone; here the release, each "
           "batch and the whole study stand side by side. Each batch has its own year "
           "columns: a year the release also covers (marked †) holds that batch's "
           "reports, never folded into the release's.\n\n",
           raw_html_block(study_table(counts)), "\n\n", source_links(STUDY), "\n"]
    if rates is not None and len(rates):
        out += ["\n### False positives per batch\n\n"
                "Each batch's own rate per project, excluded / candidates, with its n and "
                "Wilson's 95% interval; a batch's average is of its own projects' rates "
                "(as the paper averages them), never of two batches' candidates pooled. "
                "The release records no excluded candidates, so it has no row.\n\n",
                raw_html_block(batch_rates_table(rates)), "\n\n",
                source_links(BATCH_RATES), "\n"]
    return "".join(out)


INCLUDES: tuple[Include, ...] = (
    Include("table1_compare.md", (COUNTS, FALSE_POSITIVES, CLAIMS, VARS, SCORECARD, PROJECTS),
            table1_include),
    Include("tables/table1/counts.md", (COUNTS,), counts_table),
    Include("table1/study.md", (STUDY, BATCH_RATES), study_now,
            optional=(STUDY, BATCH_RATES)),
)
