"""The includes of the Data page (``data.qmd``): where the release was read from and its
file hashes (the ingest stage's provenance record), and the clean stage's quality report:
row accounting, anomalies and rules."""

from __future__ import annotations

import pandas as pd

from analysis.report.generated import callout
from analysis.report.htmlsafe import esc, hash_html, html_table, raw_html_block
from analysis.report.pages.base import Include, P, anomalies_include, rel

PROVENANCE = rel(P.provenance)
QUALITY = rel(P.clean.quality)


def quality_accounting(quality: dict) -> str:
    """Rows in, kept and set aside, per role and per file (whether each file balances is
    the clean stage's verdict), and the rows set aside by reason."""
    roles = pd.DataFrame([{"rows of": role, **v} for role, v in
                          quality.get("accounting", {}).items()])
    if roles.empty:
        roles = pd.DataFrame(columns=["rows of", "input", "kept", "set_aside"])
    roles = roles.rename(columns={"set_aside": "set aside"})
    columns = ["file", "role", "input", "kept", "set_aside", "balanced"]
    files = pd.DataFrame(quality.get("files", []), columns=columns)
    files = files.rename(columns={"set_aside": "set aside"})
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


def quality_rules(quality: dict) -> str:
    """Every cleaning rule: its kind, how severe it is and what is done."""
    rules = quality.get("rules", {})
    frame = pd.DataFrame([{"rule": k, "severity": v.get("severity", ""),
                           "action": v.get("action", ""), "what it means": v.get(
                               "description", "")} for k, v in sorted(rules.items())])
    return callout("note", f"The {len(frame):,} cleaning rules",
                   raw_html_block(html_table(frame, classes="table sortable")), collapse=True)


def provenance_source(prov: dict) -> str:
    """Where the release was read from and the manifest it was checked against (paths the
    user chose: shown as escaped text)."""
    manifest = prov.get("manifest") or {}
    items = [f"<li>Read from: <code>{esc(prov.get('source', 'n/a'))}</code></li>",
             f"<li>Manifest: <code>{esc(manifest.get('path', 'none'))}</code></li>"]
    return raw_html_block(f'<ul class="provenance">{"".join(items)}</ul>')


def provenance_files(prov: dict) -> str:
    """The SHA-256 of every ingested file, and whether the manifest lists it."""
    files = pd.DataFrame([{"file": k, "bytes": v.get("bytes", 0), "sha256": v.get("sha256", ""),
                           "in manifest": v.get("in_manifest")}
                          for k, v in sorted(prov.get("files", {}).items())])
    if files.empty:
        return "No file was ingested.\n"
    files["in manifest"] = files["in manifest"].map(
        lambda v: "n/a" if v is None else ("yes" if v else "no"))
    files["file"] = files["file"].map(lambda f: f"<code>{esc(f)}</code>")
    files["sha256"] = files["sha256"].map(hash_html)
    out = [callout("note", f"SHA-256 of the {len(files):,} ingested files",
                   raw_html_block(html_table(files, numeric=["bytes"],
                                             classes="table sortable hashes cards",
                                             raw_columns=("file", "sha256"))),
                   collapse=True)]
    extra = prov.get("not_in_manifest") or []
    if extra:
        out.append(raw_html_block("<p>Files not in the manifest: " + ", ".join(
            f"<code>{esc(f)}</code>" for f in extra) + "</p>"))
    return "\n".join(out)


INCLUDES: tuple[Include, ...] = (
    Include("provenance_source.md", (PROVENANCE,), lambda i: provenance_source(
        i.json(PROVENANCE))),
    Include("provenance_files.md", (PROVENANCE,), lambda i: provenance_files(
        i.json(PROVENANCE))),
    Include("quality_accounting.md", (QUALITY,), lambda i: quality_accounting(
        i.json(QUALITY))),
    anomalies_include("quality_anomalies.md", P.clean.quality),
    Include("quality_rules.md", (QUALITY,), lambda i: quality_rules(i.json(QUALITY))),
)
