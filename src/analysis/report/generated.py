"""Blocks more than one page shows, and the includes the site step writes itself.

The status badges and callouts of the pages (:func:`status_badge`, :func:`callout`), and
what the site steps write besides the pages' includes (:mod:`analysis.report.pages`):
the notebooks' index and the pipeline's DAG, from the project's folders
(:mod:`analysis.report.generation`), and, when the site is rendered
(:mod:`analysis.report.site`), the environment, the build and its run record
(``build-info.js``). No pandas here: the render step imports this module. Everything
that holds data text is HTML with every piece escaped (:mod:`.htmlsafe`), wrapped in raw
``{=html}`` blocks; only fixed text (headings, callout titles) is Markdown.
"""

from __future__ import annotations

from analysis.report.htmlsafe import (
    check_template_text,
    details_block,
    esc,
    md_escape,
    raw_html_block,
    rows_table,
)

STATUS_LABELS = {"exact": "exact", "rounding": "within rounding", "differs": "differs",
                 "not_reproducible": "not reproducible"}
STATUS_HELP = {
    "exact": "our value, rounded to the paper's printed precision, equals the printed value",
    "rounding": "off by at most one unit in the paper's last printed digit",
    "differs": "anything else; both values are shown",
    "not_reproducible": "the released data cannot give this number; the reason is shown",
}
STATUS_MARK = {"exact": "✓", "rounding": "≈", "differs": "✗", "not_reproducible": "–"}


def callout(kind: str, title: str, body: str, collapse: bool | None = None) -> str:
    """A Quarto callout (``collapse``: None = not collapsible, True = closed, False = open).

    The title is Markdown, so it must be template text (checked): a title that quotes
    data belongs in :func:`.htmlsafe.details_block` instead.
    """
    attr = "" if collapse is None else f' collapse="{"true" if collapse else "false"}"'
    title = md_escape(check_template_text(title, "callout title"))
    return f"::: {{.callout-{kind}{attr}}}\n## {title}\n\n{body}\n:::\n"


def status_badge(status: str) -> str:
    """A verdict of the scorecard as a badge: its mark and its words."""
    return (f'<span class="status-badge st-{esc(status)}">{STATUS_MARK.get(status, "")} '
            f'{esc(STATUS_LABELS.get(status, status))}</span>')


# -- the environment, the build, the pipeline -----------------------------------------

def versions_table(versions: dict[str, str]) -> str:
    """The versions of the environment (:func:`analysis.report.site.environment`), by
    name."""
    rows = sorted(versions.items(), key=lambda kv: kv[0].lower())
    return raw_html_block(rows_table(["package", "version"], rows,
                                     classes="table compact versions"))


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
        out += details_block("Modified files", "<ul>" + "".join(
            f"<li><code>{esc(f)}</code></li>" for f in git["dirty_files"]) + "</ul>")
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
    var names = {setup: "set-up of the environment", fetch: "fetching the release",
                 ingest: "the ingest stage", stages: "the analysis stages",
                 render: "rendering the site"};
    var phases = (info.phases || []).map(function (p) {
      return names[p.phase] + " " + p.seconds.toFixed(1) + " s"; });
    box.appendChild(text("p", "This checkout's steps, each as it last ran, took " +
      info.total_seconds + " s together (warm caches: a step that found its work done, " +
      "such as a fetch of a release already here, takes almost nothing; a fresh clone's " +
      "measured time is on the evaluators' page): " + phases.join(", ") + ". Machine: " +
      (m.cpu || "an unknown CPU") + " (" + m.cores + " cores, " + m.memory_gib +
      " GiB memory), " + m.os + ", Python " + m.python + "; rendered by " +
      info.renderer + ". A step without a record here did not run in this checkout " +
      "(set-up is recorded by make venv, fetching by make report)."));
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


def dag_block(mermaid: str, how: str) -> str:
    """The pipeline's DAG as a numbered figure: a ``{mermaid}`` block, which Quarto draws
    (the preview shows its text), and where the text came from. The text is DVC's, from
    the stage names of ``dvc.yaml``: template text, never data."""
    lines = [check_template_text(line.strip(), "the pipeline's Mermaid text")
             for line in mermaid.strip().splitlines()]
    lines[1:1] = ["accTitle: The pipeline's stages",
                  "accDescr: A flow chart of the DVC stages in two boxes: the update loop's, "
                  "then the reproduction's, from ingest through clean and the analysis "
                  "stages to the scorecard and this report."]
    return ("::: {#fig-pipeline-dag}\n```{mermaid}\n" + "\n  ".join(lines) + "\n```\n\n"
            "The pipeline's stages and their order: an arrow means that the later stage "
            "reads an output of the earlier one. The update loop's stages, which make a "
            "team's batches of new labels into a study, are in a box of their own; the "
            "reproduction imports nothing from them.\n:::\n\n"
            + raw_html_block(f'<p class="figure-source">From <code>{esc(how)}</code>.</p>'))


# -- notebooks ------------------------------------------------------------------------

def notebooks_index(entries: list[dict]) -> str:
    """One line per executed notebook: link, title, stage and the artifacts it wrote."""
    if not entries:
        return "No executed notebook yet: run `dvc repro`.\n"
    out = []
    for e in entries:
        outs = ", ".join(f"<code>{esc(o)}</code>" for o in e["outs"]) or "none"
        out.append(f"## [{md_escape(check_template_text(e['stem'], 'notebook'))}]"
                   f"({e['href']})\n\n"
                   + raw_html_block(f"<p>{esc(e['title'])}. Stage <code>"
                                    f"{esc(e['stage'] or '?')}</code>; writes {outs}.</p>"))
    return "\n".join(out)
