"""Generated includes: Markdown/HTML snippets the pages pull in with ``{{< include >}}``.

Each function returns the text of one include from pipeline outputs; nothing here is
typed by hand. Everything that holds data text is HTML with every piece escaped
(:mod:`.htmlsafe`), wrapped in raw ``{=html}`` blocks so that Quarto and pandoc pass it
through unchanged; only fixed text (headings, callout titles, links to pages) is
Markdown, so that both renderers number, link and rewrite it the same way. Long lists sit
in collapsed callouts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import yaml

from analysis.core.claims import paper_statement
from analysis.core.projects import Projects
from analysis.report.blocks import figure_block
from analysis.report.htmlsafe import (
    check_template_text,
    details_block,
    esc,
    html_table,
    md_escape,
    raw_html_block,
)
from analysis.report.variables import STATUS_LABELS, scorecard_counts

STATUS_HELP = {
    "exact": "our value, rounded to the paper's printed precision, equals the printed value",
    "rounding": "off by at most one unit in the paper's last printed digit",
    "differs": "anything else; both values are shown",
    "not_reproducible": "the released data cannot give this number; the reason is shown",
}
STATUS_MARK = {"exact": "✓", "rounding": "≈", "differs": "✗", "not_reproducible": "–"}
MAX_LISTED = 2000  # anomalies listed per kind on the page (all are in quality.json)


def callout(kind: str, title: str, body: str, collapse: bool | None = None) -> str:
    """A Quarto callout (``collapse``: None = not collapsible, True = closed, False = open).

    The title is Markdown, so it must be template text (checked): a title that quotes
    data belongs in :func:`.htmlsafe.details_block` instead.
    """
    attr = "" if collapse is None else f' collapse="{"true" if collapse else "false"}"'
    title = md_escape(check_template_text(title, "callout title"))
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
    page = target.replace(".qmd", ".html")
    legend = "".join(
        f'<li><span class="swatch st-{s}" aria-hidden="true"></span>'
        f'<a href="{page}#scorecard-{s.replace("_", "-")}"><strong>{counts[s]:,} '
        f"{esc(STATUS_LABELS[s])}</strong></a>: {esc(STATUS_HELP[s])}</li>"
        for s in STATUS_LABELS)
    lines.append(raw_html_block(f'<ul class="status-legend">{legend}</ul>'))
    by_source = (card.assign(n=1).pivot_table(index="source", columns="status", values="n",
                                              aggfunc="sum", fill_value=0)
                 .reindex(columns=list(STATUS_LABELS), fill_value=0))
    by_source.insert(0, "claims", by_source.sum(axis=1))
    by_source = by_source.reset_index()
    by_source = by_source.iloc[sorted(range(len(by_source)), key=lambda i: paper_order(
        by_source["source"].iloc[i]))]
    by_source = by_source.rename(columns={"source": "where in the paper", **STATUS_LABELS})
    lines.append(raw_html_block(html_table(by_source, classes="table sortable compact")))
    return "\n".join(lines)


ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}
# Where the paper prints each table, as a section, so that a table sorts with its section
TABLE_SECTIONS = {"Table I": "Section III.A"}


def paper_order(source: str) -> tuple:
    """A sort key that follows the paper: Abstract, then Sections I, II, III.A, III.B, ...
    (by their first place when a claim names several; a table sorts after the text of
    the section that prints it, unknown places last)."""
    first = re.sub(r"\s*\([^)]*\)", "", str(source)).split(";")[0].strip()
    if first == "Abstract":
        return (0,)
    table = first in TABLE_SECTIONS
    first = TABLE_SECTIONS.get(first, first)
    m = re.fullmatch(r"Section ([IVX]+)(?:\.([A-Z]))?(?:\.(\d+))?", first)
    if not m:
        return (99, first)
    return (ROMAN.get(m.group(1), 50), ord(m.group(2)) - 64 if m.group(2) else 0,
            int(m.group(3)) if m.group(3) else 0, 1 if table else 0)


def _relations(rows: pd.DataFrame) -> pd.Series:
    """The comparator of each claim (``=`` for a card written before it had one)."""
    return rows["relation"] if "relation" in rows else pd.Series("=", index=rows.index)


def scorecard_differs(card: pd.DataFrame) -> str:
    """Every claim whose verdict is ``differs``: the paper's value, ours, and why."""
    rows = card[card["status"] == "differs"]
    if rows.empty:
        return raw_html_block("<p>No number of the paper differs from ours.</p>")
    order = sorted(range(len(rows)), key=lambda i: (paper_order(rows["source"].iloc[i]), i))
    rows = rows.iloc[order]
    shown = pd.DataFrame({
        "what the paper says": [f'{esc(d)}<span class="claim-id">{esc(c)} · {esc(w)}</span>'
                                for d, c, w in zip(rows["description"], rows["claim_id"],
                                                   rows["source"], strict=True)],
        "paper": [esc(paper_statement(v, r)) for v, r in zip(
            rows["paper_value"], _relations(rows), strict=True)],
        "ours": rows["reproduced_value"].map(esc),
        "why": rows["note"].map(esc)})
    return raw_html_block(html_table(shown, numeric=["paper", "ours"], classes="table claims",
                                     raw_columns=tuple(shown.columns)))


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
        rows = rows.assign(paper_value=[paper_statement(v, r) for v, r in zip(
            rows["paper_value"], _relations(rows), strict=True)])
        shown = rows[["claim_id", "description", "paper_value", "reproduced_value", "note",
                      "source"]].rename(columns={
                          "claim_id": "claim", "description": "what", "paper_value": "paper",
                          "reproduced_value": "ours", "source": "where"})
        shown["claim"] = [esc(c).replace(".", ".<wbr>") for c in shown["claim"]]
        table = raw_html_block(html_table(shown, numeric=["paper", "ours"],
                                          classes="table sortable scorecard",
                                          raw_columns=("claim",),
                                          table_id=f"scorecard-table-{s.replace('_', '-')}"))
        if len(rows) > 15:
            out.append(callout("note", f"All {len(rows):,} {label} claims", table,
                               collapse=(s == "exact")))
        else:
            out.append(table)
    return "\n".join(out)


# -- Table I --------------------------------------------------------------------------

def table1_compare(table: pd.DataFrame, card: pd.DataFrame, projects: Projects,
                   false_positives: pd.DataFrame | None = None) -> str:
    """Table I with our value in every cell, marked against the paper's printed value.

    The false-positive column shows the rate computed from the dump's excluded candidates
    where the table1 stage computed one (``false_positives.csv``, source ``computed``),
    with the paper's rate under it, and the paper's own rate, marked reported, elsewhere.
    """
    claims = card.set_index("claim_id")
    years = [c for c in table.columns if str(c).isdigit()]
    types = [c for c in table.columns if c not in (*years, "project", "name", "kind", "Total")]
    fp = (false_positives.set_index("project") if false_positives is not None
          else pd.DataFrame(columns=["source", "false_positive_percent", "excluded",
                                     "candidates"]))
    computed = int((fp["source"].iloc[:-1] == "computed").sum()) if len(fp) else 0
    head = ["<th scope=\"col\">Project</th>"]
    head += [f'<th scope="col" class="num">{esc(c)}</th>' for c in (*years, *types, "Total")]
    head.append('<th scope="col" class="num">False positives'
                + ("" if computed else " (paper only)") + "</th>")
    rows = []
    for rec in table.to_dict("records"):
        key = "sum" if rec["project"] == "Sum" else rec["project"]
        paper_name = projects.get(str(rec["project"])).paper_name
        name = esc(rec["name"])
        if paper_name and paper_name != rec["name"]:
            name += f' <span class="paper-name">(paper: {esc(paper_name)})</span>'
        cells = [f'<th scope="row">{name}</th>']
        for col in (*years, *types):
            cells.append(_compare_cell(rec[col], claims, f"table1.{key}.{str(col).lower()}"))
        total_id = "table1.total_reports" if key == "sum" else ""
        cells.append(_compare_cell(rec["Total"], claims, total_id))
        fp_id = "table1.false_positive.average" if key == "sum" else f"table1.{key}.false_positive"
        paper_fp = claims.loc[fp_id, "paper_value"] if fp_id in claims.index else ""
        own = fp.loc[str(rec["project"])] if str(rec["project"]) in fp.index else None
        cells.append(_false_positive_cell(own, paper_fp, key == "sum"))
        cls = ' class="sum"' if key == "sum" else ""
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
                f"{esc(paper_value)} (reported)</td>")
    return '<td class="num st-reported">–</td>'


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
        body = html_table(shown, numeric=["line"])
        if len(group) > max_listed:
            body += (f"<p>The first {max_listed:,} of {len(group):,} are listed; "
                     "<code>quality.json</code> (Downloads) has all of them.</p>")
        out.append(details_block(f"{kind}: {len(group):,}", body))
    return "\n".join(out)


def quality_rules(quality: dict) -> str:
    rules = quality.get("rules", {})
    frame = pd.DataFrame([{"rule": k, "severity": v.get("severity", ""),
                           "action": v.get("action", ""), "what it means": v.get(
                               "description", "")} for k, v in sorted(rules.items())])
    return callout("note", f"The {len(frame):,} cleaning rules",
                   raw_html_block(html_table(frame, classes="table sortable")), collapse=True)


# -- provenance, environment ----------------------------------------------------------

def provenance_source(prov: dict) -> str:
    """Where the release was read from and the manifest it was checked against (paths the
    user chose: shown as escaped text)."""
    manifest = prov.get("manifest") or {}
    items = [f"<li>Read from: <code>{esc(prov.get('source', 'n/a'))}</code></li>",
             f"<li>Manifest: <code>{esc(manifest.get('path', 'none'))}</code></li>"]
    return raw_html_block(f'<ul class="provenance">{"".join(items)}</ul>')


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
        out.append(raw_html_block("<p>Files not in the manifest: " + ", ".join(
            f"<code>{esc(f)}</code>" for f in extra) + "</p>"))
    return "\n".join(out)


def params_block(params_text: str, seeds: dict[str, object]) -> str:
    out = [raw_html_block(f'<pre class="params">{esc(params_text)}</pre>')]
    if seeds:
        out.append(raw_html_block("<p>Seeds: " + ", ".join(
            f"<code>{esc(k)}</code> = {esc(v)}" for k, v in sorted(seeds.items())) + ".</p>"))
    else:
        out.append("No stage of the pipeline draws random numbers yet, so `params.yaml` has "
                   "no seed; a stage that does takes its seed from there.\n")
    return "\n".join(out)


def versions_table(versions: dict[str, str]) -> str:
    frame = pd.DataFrame(sorted(versions.items(), key=lambda kv: kv[0].lower()),
                         columns=["package", "version"])
    return raw_html_block(html_table(frame, numeric=[], classes="table compact versions"))


def build_info(git: dict, renderer: str) -> str:
    """Commit, branch, uncommitted changes and renderer of this build (escaped HTML)."""
    items = [f"<li>Commit: <code>{esc(git['commit'])}</code> on branch "
             f"<code>{esc(git['branch'])}</code></li>",
             f"<li>Tracked files modified when the site was built: "
             f"<strong>{esc(git['dirty'])}</strong>"
             + (f" ({len(git['dirty_files']):,} files)" if git["dirty_files"] else "")
             + "</li>", f"<li>Renderer: {esc(renderer)}</li>"]
    out = raw_html_block(f'<ul class="build">{"".join(items)}</ul>')
    if git["dirty_files"]:
        out += raw_html_block(
            '<details class="callout callout-note"><summary class="callout-title">Modified '
            'files</summary><div class="callout-body"><ul>'
            + "".join(f"<li><code>{esc(f)}</code></li>" for f in git["dirty_files"])
            + "</ul></div></details>")
    return out


def build_info_placeholder() -> str:
    """Where ``build-info.js`` writes the run times and the machine of this build."""
    return raw_html_block(
        '<div id="build-info" class="build-info"><noscript><p>Run times and hardware of '
        'this build are in <a href="build.json">build.json</a>.</p></noscript></div>'
        '<script src="build-info.js"></script>')


# Fills #build-info from the record the render step measured (the only file of the site
# that differs between two runs on the same input).
BUILD_INFO_JS = """// This build's run record, written by `python -m analysis.report render`.
(function () {
  var info = __DATA__;
  function text(tag, s) { var e = document.createElement(tag); e.textContent = s; return e; }
  function show() {
    var box = document.getElementById("build-info");
    if (!box) { return; }
    var m = info.machine || {};
    box.appendChild(text("p", "The pipeline's stages took " + info.total_seconds +
      " s in all when each last ran, on " + (m.cpu || "an unknown CPU") + " (" + m.cores +
      " cores, " + m.memory_gib + " GiB memory), " + m.os + ", Python " + m.python +
      "; rendered by " + info.renderer + "."));
    var table = document.createElement("table");
    table.className = "table compact";
    var head = table.createTHead().insertRow();
    head.appendChild(text("th", "stage"));
    var th = text("th", "seconds"); th.className = "num"; head.appendChild(th);
    var body = table.createTBody();
    info.stages.forEach(function (s) {
      var row = body.insertRow();
      row.appendChild(text("td", s.stage));
      var td = text("td", s.seconds.toFixed(1)); td.className = "num"; row.appendChild(td);
    });
    var wrap = document.createElement("div"); wrap.className = "table-wrap";
    wrap.appendChild(table); box.appendChild(wrap);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", show);
  } else { show(); }
})();
"""


def dag_block(mermaid: str, how: str, figure: str | None) -> str:
    out = []
    if figure:
        out.append(figure_block(
            "fig-pipeline-dag", figure,
            "The pipeline's stages and their order: an arrow means that the later stage "
            "reads an output of the earlier one (arrows implied by a longer path are left "
            "out; the Mermaid text below has them all).",
            "A flow chart of the DVC stages, from ingest through clean and the analysis "
            "stages to the scorecard and this report.", None))
    out.append(callout("note", "The DAG as Mermaid text",
                       raw_html_block(f"<p>From <code>{esc(how)}</code>.</p>"
                                      f'<pre class="mermaid-src">{esc(mermaid)}</pre>'),
                       collapse=True))
    return "\n".join(out)


# -- the study, its links, how to cite, the licence ----------------------------------------

def citation(path: Path) -> dict:
    """``CITATION.cff`` as a mapping (empty if the file is missing)."""
    if not path.is_file():
        return {}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def _link(href: str, text: str) -> str:
    ok = re.match(r"^https://[^\s\"'<>]+$", str(href or ""))
    return f'<a href="{esc(href)}">{esc(text)}</a>' if ok else esc(text)


def release_reference(cff: dict) -> dict:
    """The data reference of ``CITATION.cff`` (the upstream release)."""
    for ref in cff.get("references") or []:
        if ref.get("type") == "data":
            return ref
    return {}


def study_links(cff: dict, prov: dict) -> str:
    """Links to the paper, the upstream release at the pinned commit and this package."""
    paper = cff.get("preferred-citation") or {}
    ref = release_reference(cff)
    repo = ref.get("repository-code", "")
    commit = str(prov.get("commit") or ref.get("commit") or "")
    release = (f"{repo}/tree/{commit}" if repo and re.fullmatch(r"[0-9a-f]{40}", commit)
               else repo)
    own = cff.get("repository-code", "")
    placeholder = "REPLACE-ME" in own
    items = [
        f"<li>The paper: {_link(paper.get('url', ''), paper.get('title', 'the paper'))}"
        + (f" ({esc(_identifier(paper))})" if _identifier(paper) else "") + "</li>",
        f"<li>The authors' release: {_link(release, repo.replace('https://github.com/', ''))}"
        f" at commit <code>{esc(commit[:7] or 'unknown')}</code></li>",
        "<li>This package: " + _link(own, own or "not set")
        + (" (a placeholder: set <code>repository-code</code> in CITATION.cff)"
           if placeholder else "") + "</li>"]
    return raw_html_block(f'<ul class="study-links">{"".join(items)}</ul>')


def _identifier(work: dict) -> str:
    """The first identifier of a cited work (the arXiv id of the paper)."""
    return next((str(i.get("value")) for i in work.get("identifiers") or []
                 if i.get("value")), "")


def _authors(people: list[dict]) -> list[str]:
    out = []
    for p in people or []:
        if p.get("family-names"):
            out.append(f"{p['family-names']}, {p.get('given-names', '')}".strip(", "))
        elif p.get("name"):
            out.append(str(p["name"]))
    return out


def _bibtex(key: str, kind: str, fields: dict[str, str]) -> str:
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return f"@{kind}{{{key},\n{body}\n}}"


def how_to_cite(cff: dict) -> str:
    """A "How to cite" block built from ``CITATION.cff``: the study and this package."""
    if not cff:
        return "No `CITATION.cff` in this build.\n"
    paper = cff.get("preferred-citation") or {}
    paper_authors = _authors(paper.get("authors"))
    ident = _identifier(paper)
    pkg_authors = _authors(cff.get("authors"))
    texts = [
        f"{'; '.join(paper_authors)} ({paper.get('year', '')}). {paper.get('title', '')}. "
        f"{paper.get('journal', '')} {ident}. {paper.get('url', '')}",
        f"{'; '.join(pkg_authors)}. {cff.get('title', '')} (version {cff.get('version', '')})"
        f" [software]. {cff.get('repository-code', '')}"]
    bib = "\n\n".join([
        _bibtex("mu2025designing", "article", {
            "title": paper.get("title", ""), "author": " and ".join(paper_authors),
            "journal": f"{paper.get('journal', '')} {ident}".strip(),
            "year": str(paper.get("year", "")), "url": paper.get("url", "")}),
        _bibtex("reproduction_package", "software", {
            "title": cff.get("title", ""), "author": " and ".join(pkg_authors),
            "version": str(cff.get("version", "")), "url": cff.get("repository-code", ""),
            "license": cff.get("license", "")})])
    return raw_html_block(
        '<div class="cite"><p><strong>The study</strong></p>'
        f"<p>{esc(texts[0])}</p><p><strong>This reproduction package</strong></p>"
        f"<p>{esc(texts[1])}</p><details><summary>BibTeX</summary>"
        f'<pre class="bibtex">{esc(bib)}</pre></details>'
        "<p>Built from <code>CITATION.cff</code> in the repository.</p></div>")


def licence_block(path: Path) -> str:
    """The licence of the code (the first lines of ``LICENSE``, the full text folded)."""
    if not path.is_file():
        return "No `LICENSE` in this build.\n"
    text = path.read_text(encoding="utf-8").strip()
    first = text.splitlines()[0] if text else path.name
    return raw_html_block(
        f"<p>The code of this package is under the {esc(first)}. The released data are "
        "the study authors'; their repository states no licence, so the downloads on the "
        "Data page are offered for checking this reproduction only.</p>"
        f'<details><summary>{esc(first)}, full text</summary><pre class="licence">'
        f"{esc(text)}</pre></details>")


# -- notebooks ------------------------------------------------------------------------

def notebooks_index(entries: list[dict]) -> str:
    """One line per executed notebook: link, title, stage and the artifacts it wrote."""
    if not entries:
        return "No executed notebook yet: run `dvc repro`.\n"
    out = []
    for e in entries:
        outs = ", ".join(f"<code>{esc(o)}</code>" for o in e["outs"]) or "none"
        out.append(f"### [{md_escape(check_template_text(e['stem'], 'notebook'))}]"
                   f"({e['href']})\n\n"
                   + raw_html_block(f"<p>{esc(e['title'])}. Stage <code>"
                                    f"{esc(e['stage'] or '?')}</code>; writes {outs}.</p>"))
    return "\n".join(out)


def csv_table(path: Path) -> str:
    """Any ``report/tables/*.csv`` as an escaped, sortable HTML table."""
    frame = pd.read_csv(path, keep_default_na=False)
    return raw_html_block(html_table(frame, classes="table sortable compact"))


def load_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
