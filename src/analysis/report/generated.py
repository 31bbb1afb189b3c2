"""Generated includes: Markdown/HTML snippets the pages pull in with ``{{< include >}}``.

Each function returns the text of one include from pipeline outputs; nothing here is
typed by hand. Tables built from data are HTML with every cell escaped
(:mod:`.htmlsafe`), wrapped in raw ``{=html}`` blocks so that Quarto and pandoc pass them
through unchanged; headings and links are Markdown so that both renderers number, link
and rewrite them the same way. Long lists sit in collapsed callouts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .htmlsafe import esc, html_table, md_escape, raw_html_block
from .variables import STATUS_LABELS, scorecard_counts

STATUS_HELP = {
    "exact": "our value, rounded to the paper's printed precision, equals the printed value",
    "rounding": "off by at most one unit in the paper's last printed digit",
    "differs": "anything else; both values are shown",
    "not_reproducible": "the released data cannot give this number; the reason is shown",
}
STATUS_MARK = {"exact": "✓", "rounding": "≈", "differs": "✗", "not_reproducible": "–"}
MAX_LISTED = 2000  # anomalies listed per kind on the page (all are in quality.json)


def callout(kind: str, title: str, body: str, collapse: bool | None = None) -> str:
    """A Quarto callout (``collapse``: None = not collapsible, True = closed, False = open)."""
    attr = "" if collapse is None else f' collapse="{"true" if collapse else "false"}"'
    return f"::: {{.callout-{kind}{attr}}}\n## {title}\n\n{body}\n:::\n"


def status_badge(status: str) -> str:
    return (f'<span class="status-badge st-{esc(status)}">{STATUS_MARK.get(status, "")} '
            f'{esc(STATUS_LABELS.get(status, status))}</span>')


# -- scorecard ------------------------------------------------------------------------

def scorecard_summary(card: pd.DataFrame, target: str = "reproducibility.qmd") -> str:
    """Counts per status with links to the full scorecard, and claims per source."""
    counts = scorecard_counts(card)
    total = max(counts["claims"], 1)
    bar = ['<div class="statusbar" role="img" aria-label="'
           + esc(", ".join(f"{counts[s]} {STATUS_LABELS[s]}" for s in STATUS_LABELS)) + '">']
    for s in STATUS_LABELS:
        if counts[s]:
            bar.append(f'<span class="st-{s}" style="width:{100 * counts[s] / total:.3f}%" '
                       f'title="{counts[s]} {esc(STATUS_LABELS[s])}"></span>')
    bar.append("</div>")
    lines = [raw_html_block("".join(bar))]
    for s in STATUS_LABELS:
        anchor = f"scorecard-{s.replace('_', '-')}"
        lines.append(f"- [**{counts[s]:,} {STATUS_LABELS[s]}**]({target}#{anchor}): "
                     f"{STATUS_HELP[s]}")
    lines.append("")
    by_source = (card.assign(n=1).pivot_table(index="source", columns="status", values="n",
                                              aggfunc="sum", fill_value=0)
                 .reindex(columns=list(STATUS_LABELS), fill_value=0))
    by_source.insert(0, "claims", by_source.sum(axis=1))
    by_source = by_source.sort_values(["claims"], ascending=False, kind="mergesort")
    by_source = by_source.reset_index().rename(columns={"source": "where in the paper",
                                                        **STATUS_LABELS})
    lines.append(raw_html_block(html_table(by_source, classes="table sortable compact")))
    return "\n".join(lines)


def scorecard_full(card: pd.DataFrame) -> str:
    """The whole scorecard, one section per status (long lists collapsed)."""
    out = []
    for s, label in STATUS_LABELS.items():
        rows = card[card["status"] == s]
        out.append(f"### {label.capitalize()}: {len(rows):,} claims "
                   f"{{#scorecard-{s.replace('_', '-')}}}\n")
        out.append(f"{STATUS_HELP[s].capitalize()}.\n")
        if rows.empty:
            out.append("No claims.\n")
            continue
        shown = rows[["claim_id", "description", "paper_value", "reproduced_value", "note",
                      "source"]].rename(columns={
                          "claim_id": "claim", "description": "what", "paper_value": "paper",
                          "reproduced_value": "ours", "source": "where"})
        table = raw_html_block(html_table(shown, numeric=["paper", "ours"],
                                          classes="table sortable scorecard",
                                          table_id=f"scorecard-table-{s.replace('_', '-')}"))
        if len(rows) > 15:
            out.append(callout("note", f"All {len(rows):,} {label} claims", table,
                               collapse=(s == "exact")))
        else:
            out.append(table)
    return "\n".join(out)


# -- Table I --------------------------------------------------------------------------

def table1_compare(table: pd.DataFrame, card: pd.DataFrame, projects_meta: dict) -> str:
    """Table I with our value in every cell, marked against the paper's printed value."""
    claims = card.set_index("claim_id")
    years = [c for c in table.columns if str(c).isdigit()]
    types = [c for c in table.columns if c not in (*years, "project", "name", "kind", "Total")]
    head = ["<th scope=\"col\">Project</th>"]
    head += [f'<th scope="col" class="num">{esc(c)}</th>' for c in (*years, *types, "Total")]
    head.append('<th scope="col" class="num">False positives (paper only)</th>')
    rows = []
    for rec in table.to_dict("records"):
        key = "sum" if rec["project"] == "Sum" else rec["project"]
        meta = projects_meta.get(rec["project"]) or {}
        name = esc(rec["name"])
        if meta.get("paper_name") and meta["paper_name"] != rec["name"]:
            name += f' <span class="paper-name">(paper: {esc(meta["paper_name"])})</span>'
        cells = [f'<th scope="row">{name}</th>']
        for col in (*years, *types):
            cells.append(_compare_cell(rec[col], claims, f"table1.{key}.{str(col).lower()}"))
        total_id = "table1.total_reports" if key == "sum" else ""
        cells.append(_compare_cell(rec["Total"], claims, total_id))
        fp_id = "table1.false_positive.average" if key == "sum" else f"table1.{key}.false_positive"
        fp = claims.loc[fp_id, "paper_value"] if fp_id in claims.index else ""
        cells.append(f'<td class="num st-reported">{esc(fp) or "–"}</td>')
        cls = ' class="sum"' if key == "sum" else ""
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    html = (f'<table class="table compare"><thead><tr>{"".join(head)}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')
    legend = ('<p class="legend">' + " ".join(status_badge(s) for s in STATUS_LABELS)
              + ' <span class="status-badge st-none">no printed value</span></p>')
    return raw_html_block(html + legend)


def _compare_cell(value, claims: pd.DataFrame, claim_id: str) -> str:
    ours = f"{int(value):,}"
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
            f'{ours}<span class="mark" aria-hidden="true">{STATUS_MARK.get(status, "")}</span>'
            f"{extra}</td>")


def type_by_project(table: pd.DataFrame) -> str:
    """Issues per project and type with the share of each type within the project."""
    years = [c for c in table.columns if str(c).isdigit()]
    types = [c for c in table.columns if c not in (*years, "project", "name", "kind", "Total")]
    shown = pd.DataFrame({"project": table["name"], "kind": table["kind"].fillna("")})
    for t in types:
        total = table["Total"].where(table["Total"] > 0, 1)
        shown[t] = [f"{int(n):,} ({100 * n / d:.1f}%)" for n, d in zip(table[t], total,
                                                                         strict=True)]
    shown["Total"] = [f"{int(n):,}" for n in table["Total"]]
    return raw_html_block(html_table(shown, numeric=[*types, "Total"],
                                     classes="table sortable compact"))


# -- data quality ---------------------------------------------------------------------

def quality_accounting(quality: dict) -> str:
    """Rows in, kept and set aside, per role and per file."""
    roles = pd.DataFrame([{"rows of": role, **v} for role, v in
                          quality.get("accounting", {}).items()])
    if roles.empty:
        roles = pd.DataFrame(columns=["rows of", "input", "kept", "set_aside"])
    roles = roles.rename(columns={"set_aside": "set aside"})
    files = pd.DataFrame(quality.get("files", []))
    if files.empty:
        files = pd.DataFrame(columns=["file", "role", "input", "kept", "set_aside"])
    files = files[["file", "role", "input", "kept", "set_aside"]].rename(
        columns={"set_aside": "set aside"})
    files["balanced"] = files["input"] == files["kept"] + files["set aside"]
    out = [raw_html_block(html_table(roles, classes="table compact"))]
    out.append(callout("note", f"Per file ({len(files):,} files)",
                       raw_html_block(html_table(files)), collapse=True))
    rejected = quality.get("rejected_by_reason", {})
    if rejected:
        frame = pd.DataFrame(sorted(rejected.items()), columns=["reason", "rows set aside"])
        out.append("Rows set aside, by reason (all of them are in `rejected.csv`):\n")
        out.append(raw_html_block(html_table(frame, classes="table compact")))
    else:
        out.append("No row was set aside.\n")
    return "\n".join(out)


def quality_anomalies(quality: dict, max_listed: int = MAX_LISTED) -> str:
    """Every anomaly, grouped by kind and counted; each kind's list collapsed."""
    anomalies = quality.get("anomalies", [])
    rules = quality.get("rules", {})
    if not anomalies:
        return "No anomaly was found.\n"
    frame = pd.DataFrame(anomalies)
    counts = frame.groupby("kind").size()
    summary = pd.DataFrame([{
        "kind": kind, "count": int(n),
        "severity": rules.get(kind, {}).get("severity", ""),
        "action": ", ".join(sorted(frame.loc[frame["kind"] == kind, "action"].dropna()
                                   .astype(str).unique())),
        "rule": rules.get(kind, {}).get("description", ""),
    } for kind, n in counts.items()])
    out = [raw_html_block(html_table(summary, numeric=["count"],
                                     classes="table sortable anomalies"))]
    for kind, group in frame.groupby("kind", sort=True):
        group = group.sort_values(["file", "line"], na_position="first", kind="mergesort")
        shown = group.head(max_listed)[["file", "line", "column", "message", "action"]].copy()
        shown["line"] = shown["line"].map(lambda v: "" if v is None or v != v else int(v))
        shown["column"] = shown["column"].fillna("")
        body = raw_html_block(html_table(shown, numeric=["line"]))
        if len(group) > max_listed:
            body += (f"\nThe first {max_listed:,} of {len(group):,} are listed; "
                     "`quality.json` (Downloads) has all of them.\n")
        out.append(callout("note", f"{md_escape(kind)}: {len(group):,}", body, collapse=True))
    return "\n".join(out)


def quality_rules(quality: dict) -> str:
    rules = quality.get("rules", {})
    frame = pd.DataFrame([{"rule": k, "severity": v.get("severity", ""),
                           "action": v.get("action", ""), "what it means": v.get(
                               "description", "")} for k, v in sorted(rules.items())])
    return callout("note", f"The {len(frame):,} cleaning rules",
                   raw_html_block(html_table(frame, classes="table sortable")), collapse=True)


# -- provenance, downloads, environment -----------------------------------------------

def provenance_files(prov: dict) -> str:
    files = pd.DataFrame([{"file": k, "bytes": v.get("bytes", 0), "sha256": v.get("sha256", ""),
                           "in manifest": v.get("in_manifest")}
                          for k, v in sorted(prov.get("files", {}).items())])
    if files.empty:
        return "No file was ingested.\n"
    files["in manifest"] = files["in manifest"].map(
        lambda v: "n/a" if v is None else ("yes" if v else "no"))
    out = [callout("note", f"SHA-256 of the {len(files):,} ingested files",
                   raw_html_block(html_table(files, numeric=["bytes"],
                                             classes="table sortable hashes")),
                   collapse=True)]
    extra = prov.get("not_in_manifest") or []
    if extra:
        out.append("Files not in the manifest: " + ", ".join(f"`{md_escape(f)}`"
                                                            for f in extra) + "\n")
    return "\n".join(out)


def downloads(entries: Iterable[tuple[str, str, int, str]]) -> str:
    """Links to the processed tables copied into the site: (name, what, bytes, sha256)."""
    rows = []
    for name, what, size, digest in entries:
        rows.append(f'<tr><td><a href="downloads/{esc(name)}" download>{esc(name)}</a></td>'
                    f'<td>{esc(what)}</td><td class="num">{size:,}</td>'
                    f'<td class="hash">{esc(digest[:16])}…</td></tr>')
    return raw_html_block('<table class="table compact downloads"><thead><tr>'
                          '<th scope="col">file</th><th scope="col">what it holds</th>'
                          '<th scope="col" class="num">bytes</th><th scope="col">SHA-256</th>'
                          f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def params_block(params_text: str, seeds: dict[str, object]) -> str:
    out = [raw_html_block(f'<pre class="params">{esc(params_text)}</pre>')]
    if seeds:
        out.append("Seeds: " + ", ".join(f"`{md_escape(k)}` = {md_escape(v)}"
                                          for k, v in sorted(seeds.items())) + ".\n")
    else:
        out.append("No stage of the pipeline draws random numbers yet, so `params.yaml` has "
                   "no seed; a stage that does takes its seed from there.\n")
    return "\n".join(out)


def versions_table(versions: dict[str, str]) -> str:
    frame = pd.DataFrame(sorted(versions.items(), key=lambda kv: kv[0].lower()),
                         columns=["package", "version"])
    return raw_html_block(html_table(frame, numeric=[], classes="table compact versions"))


def build_info(git: dict, renderer: str) -> str:
    out = [f"- Commit: `{md_escape(git['commit'])}` on branch `{md_escape(git['branch'])}`",
           f"- Tracked files modified when the site was built: **{md_escape(git['dirty'])}**"
           + (f" ({len(git['dirty_files']):,} files)" if git["dirty_files"] else ""),
           f"- Renderer: {md_escape(renderer)}", ""]
    if git["dirty_files"]:
        out.append(callout("note", "Modified files", "\n".join(
            f"- `{md_escape(f)}`" for f in git["dirty_files"]) + "\n", collapse=True))
    return "\n".join(out)


def dag_block(mermaid: str, how: str, figure: str | None) -> str:
    out = []
    if figure:
        out.append(f"![The pipeline's stages and their order: an arrow means that the later "
                   f"stage reads an output of the earlier one (arrows implied by a longer path "
                   f"are left out; the Mermaid text below has them all).]({figure})"
                   '{fig-alt="A flow chart of the DVC stages, from ingest through clean and '
                   'the analysis stages to the scorecard and this report."}\n')
    out.append(callout("note", f"The DAG as Mermaid text (`{how}`)",
                       raw_html_block(f'<pre class="mermaid-src">{esc(mermaid)}</pre>'),
                       collapse=True))
    return "\n".join(out)


# -- notebooks ------------------------------------------------------------------------

def notebooks_index(entries: list[dict]) -> str:
    """One line per executed notebook: link, title, stage and the artifacts it wrote."""
    if not entries:
        return "No executed notebook yet: run `dvc repro`.\n"
    out = []
    for e in entries:
        outs = ", ".join(f"`{md_escape(o)}`" for o in e["outs"]) or "none"
        out.append(f"### [{md_escape(e['stem'])}]({e['href']})\n\n"
                   f"{md_escape(e['title'])}. Stage `{md_escape(e['stage'] or '?')}`; "
                   f"writes {outs}.\n")
    return "\n".join(out)


def csv_table(path: Path) -> str:
    """Any ``report/tables/*.csv`` as an escaped, sortable HTML table."""
    frame = pd.read_csv(path, keep_default_na=False)
    return raw_html_block(html_table(frame, classes="table sortable compact"))


def load_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
