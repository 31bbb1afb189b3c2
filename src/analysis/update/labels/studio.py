"""Label Studio, the annotation tool, as the other route to a batch: what a project is
made of, and its export read back into the table of annotations.

A project made from a selection (``python -m analysis.update.labels studio create``, over Label
Studio's HTTP API: :mod:`analysis.update.labels.studio_api`) holds

- the labelling configuration (:func:`label_config`), generated from the codebook
  (:mod:`analysis.update.labels.codebook`): the issue (its title, then a header line with the
  link, the project, the creation date, its labels and the keywords it matched, then its
  body, Markdown rendered as HTML with raw HTML left as text and images shown as links,
  never loaded), one required choice among
  the themes (each with its definition and sub-themes as its hint, stored as its code),
  ``excluded`` and ``unsure``, an optional confidence (low, medium, high) and a comment;
- the codebook as the project's instructions (shown before labelling);
- one task per candidate (:func:`tasks`): the candidate's fields, the selection's
  identifier and the team (each annotator's name, e-mail and user id), so that an export
  says whose annotations it holds and of which selection.

Every annotator sees every task (``maximum_annotations`` = the team's size, overlap 100%),
each in an order of their own (Label Studio's uniform sampling). The project's data
manager opens on a view (:func:`hidden_columns`) that lists each task by its title, link,
project and date: the issue's HTML and Markdown (which the labelling page shows rendered),
its labels, the selection's digest and the team stay out of the list, where Label Studio
would show them as raw text.

Its export is read by :mod:`analysis.update.labels.studio_export`.
"""

from __future__ import annotations

import hashlib
import html
from xml.sax.saxutils import quoteattr

import pandas as pd

from analysis.update.labels.codebook import CONFIDENCE, EXCLUDED, UNSURE, Codebook
from analysis.update.labels.studio_export import (  # noqa: F401 (the export's names, here too)
    COMMENT,
    CONFIDENCE_NAME,
    EXPORT_FIX,
    ISSUE,
    KIND,
    MAX_ANNOTATIONS,
    MAX_LEAD_SECONDS,
    MAX_TASK_BYTES,
    MAX_TASKS,
    THEME,
    is_export,
    looks_like_json,
    read_export,
)


def label_config(codebook: Codebook) -> str:
    """The project's labelling configuration (see the module docstring), the same text
    for the same codebook."""
    choices = [f'    <Choice value={quoteattr(f"{code} {codebook.entry(code).name}")} '
               f'alias={quoteattr(code)} hint={quoteattr(codebook.hint(code))}/>'
               for code in codebook.theme_codes]
    choices += [f'    <Choice value={quoteattr(code)} alias={quoteattr(code)} '
                f'hint={quoteattr(codebook.hint(code))}/>' for code in (EXCLUDED, UNSURE)]
    confidence = "\n".join(f'    <Choice value="{c}"/>' for c in CONFIDENCE)
    return "\n".join([
        "<View>",
        '  <Header value="$title"/>',
        f'  <HyperText name="{ISSUE}" value="$issue_html" clickableLinks="true"/>',
        '  <Header value="Theme: a code, excluded or unsure (hover a choice for its '
        'definition; the instructions hold the codebook)" size="5"/>',
        f'  <Choices name="{THEME}" toName="{ISSUE}" choice="single-radio" required="true" '
        'requiredMessage="Choose a theme, excluded or unsure" showInline="false">',
        *choices,
        "  </Choices>",
        '  <Header value="Confidence (optional)" size="5"/>',
        f'  <Choices name="{CONFIDENCE_NAME}" toName="{ISSUE}" choice="single-radio" '
        'showInline="true">',
        confidence,
        "  </Choices>",
        '  <Header value="Comment (optional)" size="5"/>',
        f'  <TextArea name="{COMMENT}" toName="{ISSUE}" rows="2" maxSubmissions="1" '
        'editable="true"/>',
        "</View>"])


def markdown_html(text: str) -> str:
    """An issue's Markdown body as HTML; raw HTML in it stays text (escaped), links other
    than web addresses are not made, and an image is shown as a link to it
    (:func:`image_as_link`), never loaded."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False})
    md.add_render_rule("image", image_as_link)
    return md.render(text or "")


def image_as_link(self, tokens, idx, options, env) -> str:
    """An image of untrusted Markdown as a link (``image: <alt text>``) to a web address,
    or as its text for any other: opening a task loads nothing from elsewhere (a tracking
    pixel would tell its server the annotator's address and when they looked)."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = html.escape("".join(t.content for t in (token.children or []) if t.content)
                      or src)
    if src.lower().startswith(("https://", "http://")):
        return (f'<a href="{html.escape(src)}" target="_blank" rel="noopener noreferrer '
                f'nofollow">image: {alt}</a>')
    return f"[image: {alt}]"


def issue_html(row: pd.Series) -> str:
    """What a task shows of its issue: a header line (the link, the project, the
    creation date, the labels, the keywords), then the body."""
    url = html.escape(row["url"])
    facts = [html.escape(row["project"]), f"opened {html.escape(row['created_at'])}"]
    if row.get("labels"):
        facts.append("labels: " + html.escape(row["labels"].replace(";", ", ")))
    keywords = ";".join(k for k in (row.get("keywords_title", ""),
                                    row.get("keywords_body", "")) if k)
    if keywords:
        facts.append("keywords: " + html.escape(", ".join(dict.fromkeys(
            keywords.split(";")))))
    head = (f'<p><a href="{url}" target="_blank" rel="noopener noreferrer">{url}</a><br>'
            + " · ".join(facts) + "</p><hr>")
    return head + markdown_html(row.get("body", ""))


def tasks(candidates: pd.DataFrame, selection: str, team: list[dict]) -> list[dict]:
    """One task per candidate (checked candidates: :func:`~analysis.update.labels.sheets.
    check_candidates`), in the selection's order."""
    out = []
    for _, row in candidates.iterrows():
        out.append({"data": {
            "url": row["url"], "project": row["project"], "created_at": row["created_at"],
            "title": row["title"], "body": row.get("body", ""),
            "labels": row.get("labels", ""), "issue_html": issue_html(row),
            "selection": selection, "annotators": team}})
    return out


# The task data the data manager's view shows, in the task list and in the list beside
# the editor (the others are hidden: :func:`hidden_columns`)
SHOWN_DATA = {"explore": ("title", "url", "project", "created_at"), "labeling": ("title",)}
VIEW_TITLE = "Issues"


def column_key(column: dict) -> str:
    """A data-manager column's key, as Label Studio's frontend names it in a view's
    ``hiddenColumns``: ``tasks:id``, or ``tasks:data.title`` for a task's data."""
    parent = f"{column['parent']}." if column.get("parent") else ""
    return f"{column.get('target', 'tasks')}:{parent}{column['id']}"


def hidden_columns(columns: list[dict], shown: dict[str, tuple[str, ...]] = SHOWN_DATA
                   ) -> dict[str, list[str]]:
    """A view's ``hiddenColumns`` (``explore``: the task list, ``labeling``: the list beside
    the editor) from the project's data-manager columns (``GET /api/dm/columns/``): every
    field of the task data but those ``shown`` in that list, and the other columns Label
    Studio hides there by default (a view's list replaces the defaults)."""
    hidden: dict[str, list[str]] = {mode: [] for mode in shown}
    for column in columns:
        if column.get("children"):  # a group (the task data): shown as its fields are
            continue
        for mode, keys in hidden.items():
            if column.get("parent") == "data":
                hide = column["id"] not in shown[mode]
            else:
                hide = (column.get("visibility_defaults") or {}).get(mode) is False
            if hide:
                keys.append(column_key(column))
    return hidden


def config_digest(config: str) -> str:
    return hashlib.sha256(config.encode("utf-8")).hexdigest()
