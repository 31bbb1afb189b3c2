"""The includes that lead into the issue explorer (``issues.qmd``) from other pages: the
contested reports per project (Agreement page) and a few reports of the release per theme
beside the paper's cited examples (Taxonomy page). Both read what the stages
wrote (the explorer stage's ``explorer.json`` summary and ``release_examples.csv``)
and only format it."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import MISSING, count
from analysis.report.explorer import example_view, explorer_href, explorer_link
from analysis.report.htmlsafe import esc, raw_html_block
from analysis.report.pages.base import TX, Include, Inputs, P, table, tables_of
from analysis.report.pages.taxonomy import issue_link

EX = tables_of(P.explorer)
EXPLORER = EX("explorer.json")
RELEASE_EXAMPLES = EX("release_examples.csv")
EXAMPLES = TX("examples.csv")



def contested_by_project(i: Inputs) -> str:
    """Per project: its labelled reports, the contested and the unanimous ones, each count
    a link to those reports in the explorer."""
    data = i.json(EXPLORER)
    s = data["summary"]
    names = dict(zip(data["projects"], data["project_names"], strict=True))
    rows = [{"project": esc(names.get(p, p)),
             "reports": explorer_link(count(s["issues_by_project"][p]), project=p),
             "contested": explorer_link(count(s["contested_by_project"][p]), project=p,
                                        agreement="contested"),
             "unanimous": explorer_link(count(s["unanimous_by_project"][p]), project=p,
                                        agreement="unanimous")}
            for p in data["projects"]]  # Table I's order (the summary's keys are sorted)
    frame = pd.DataFrame(rows, columns=["project", "reports", "contested", "unanimous"])
    return table(frame, numeric=["reports", "contested", "unanimous"],
                 classes="table compact", raw=tuple(frame.columns))


def example_paragraph(i: Inputs) -> str:
    """The explorer page's example of a shared view: a link to the view
    (:func:`~analysis.report.explorer.example_view`, one that shows issues of this build)
    with its address and what it shows."""
    view = example_view(i.json(EXPLORER))
    if view is None:
        return "No issue is labelled in this build, so there is no view to show.\n"
    href = explorer_href(**view)
    what = (f"{esc(view['project'])}'s reports whose final theme is "
            f"<code>{esc(view['theme'])}</code>")
    if view.get("text"):
        what += f" and where an annotator chose <code>{esc(view['text'])}</code>"
    return raw_html_block(
        f'<p>For example, <a class="explorer-link" href="{esc(href)}"><code>{esc(href)}'
        f"</code></a> shows {what} (capitals do not matter).</p>")


def _report_items(group: pd.DataFrame) -> str:
    items = []
    for r in group.itertuples(index=False):
        repo = str(r.issue_url).split("://", 1)[-1].split("/", 1)[-1]
        items.append(f"{issue_link(r.issue_url, repo)} <small>({int(r.year)}; "
                     f"{count(r.agreed)} of {count(r.ratings)} agreed)</small>")
    return "<br>".join(items) or MISSING


def cited_refs(cited: pd.DataFrame) -> str:
    """The paper's reference numbers of a theme's cited examples: those in the release
    link to their row in the explorer, the others say they are not in it."""
    out = []
    for r in cited.itertuples(index=False):
        ref = f"[{count(r.ref)}]"
        out.append(explorer_link(ref, text=r.release_url) if r.status == "in_release"
                   and r.release_url else f"{ref} <small>not in the release</small>")
    return ", ".join(out) or "none"


def release_examples(i: Inputs) -> str:
    """One row per theme with reports: the paper's cited examples of the theme (and how
    many of them the release holds), then the release's unanimous and contested examples
    the taxonomy stage chose, each theme linked to all its reports in the explorer."""
    ex = i.csv(RELEASE_EXAMPLES).fillna("")
    if ex.empty:
        return "No theme has a report in this build.\n"
    cited = i.csv(EXAMPLES).fillna("")
    rows = []
    for theme in dict.fromkeys(ex["theme"]):
        group = ex[ex["theme"] == theme]
        rows.append({
            "theme": explorer_link(f"<code>{esc(theme)}</code> {esc(group['name'].iloc[0])}",
                                   theme=theme),
            "cited in the paper": cited_refs(cited[cited["theme"] == theme]),
            "unanimous": _report_items(group[group["agreement"] == "unanimous"]),
            "contested": _report_items(group[group["agreement"] == "contested"])
            + "<br>" + explorer_link("all contested", theme=theme, agreement="contested")})
    frame = pd.DataFrame(rows, columns=["theme", "cited in the paper", "unanimous",
                                        "contested"])
    return table(frame, numeric=[], classes="table compact release-examples",
                 raw=tuple(frame.columns))


INCLUDES: tuple[Include, ...] = (
    Include("agreement/contested.md", (EXPLORER,), contested_by_project),
    Include("issues/example.md", (EXPLORER,), example_paragraph),
    Include("taxonomy/release_examples.md", (RELEASE_EXAMPLES, EXAMPLES), release_examples),
)
