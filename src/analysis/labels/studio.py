"""Label Studio, the annotation tool, as the other route to a batch: what a project is
made of, and its export read back into the table of annotations.

A project made from a selection (``python -m analysis.labels studio create``, over Label
Studio's HTTP API: :mod:`analysis.labels.studio_api`) holds

- the labelling configuration (:func:`label_config`), generated from the codebook
  (:mod:`analysis.labels.codebook`): the issue (its title, then a header line with the
  link, the project, the creation date, its labels and the keywords it matched, then its
  body, Markdown rendered as HTML with raw HTML left as text), one required choice among
  the themes (each with its definition and sub-themes as its hint, stored as its code),
  ``excluded`` and ``unsure``, an optional confidence (low, medium, high) and a comment;
- the codebook as the project's instructions (shown before labelling);
- one task per candidate (:func:`tasks`): the candidate's fields, the selection's
  identifier and the team (each annotator's name, e-mail and user id), so that an export
  says whose annotations it holds and of which selection.

Every annotator sees every task (``maximum_annotations`` = the team's size, overlap 100%),
each in an order of their own (Label Studio's uniform sampling).

The export (JSON, as ``studio export`` downloads it, each task with its ``annotations[]``
and each annotation's ``completed_by``, expanded or a user id, and ``lead_time``) is read
by :func:`read_export` into the same table a sheet gives, one row per (annotator, task):
the theme's code (or excluded, unsure), the confidence, the comment and the lead time in
seconds. A cancelled (skipped) annotation is counted, per annotator, and never taken as a
label. Problems are one line each (file, task, what, what to do): an export of another
shape, an annotation of someone outside the team, two annotations of one annotator on a
task, an annotation without a theme or with a choice the configuration does not have, a
task no one annotated.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections import Counter, defaultdict
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pandas as pd

from analysis.core.batchfiles import read_record_file
from analysis.core.dumpfiles import open_dump_file, plain_file
from analysis.core.errors import InputError
from analysis.core.sizes import MAX_EXPORT_BYTES, size_text
from analysis.labels.annotations import COLUMNS, Read, Source, answer
from analysis.labels.checks import MAX_LISTED, capped, most_common
from analysis.labels.codebook import CONFIDENCE, EXCLUDED, UNSURE, Codebook

THEME, CONFIDENCE_NAME, COMMENT, ISSUE = "theme", "confidence", "comment", "issue"
KIND = "label-studio"
EXPORT_FIX = ("give the JSON export of the project `studio create` made (python -m "
              "analysis.labels studio export writes it)")


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
        f'  <Choices name="{THEME}" toName="{ISSUE}" choice="single" required="true" '
        'requiredMessage="Choose a theme, excluded or unsure" showInline="false">',
        *choices,
        "  </Choices>",
        '  <Header value="Confidence (optional)" size="5"/>',
        f'  <Choices name="{CONFIDENCE_NAME}" toName="{ISSUE}" choice="single" '
        'showInline="true">',
        confidence,
        "  </Choices>",
        '  <Header value="Comment (optional)" size="5"/>',
        f'  <TextArea name="{COMMENT}" toName="{ISSUE}" rows="2" maxSubmissions="1" '
        'editable="true"/>',
        "</View>"])


def markdown_html(text: str) -> str:
    """An issue's Markdown body as HTML; raw HTML in it stays text (escaped), and links
    other than web addresses are not made."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).render(text or "")


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
    """One task per candidate (checked candidates: :func:`~analysis.labels.sheets.
    check_candidates`), in the selection's order."""
    out = []
    for _, row in candidates.iterrows():
        out.append({"data": {
            "url": row["url"], "project": row["project"], "created_at": row["created_at"],
            "title": row["title"], "body": row.get("body", ""),
            "labels": row.get("labels", ""), "issue_html": issue_html(row),
            "selection": selection, "annotators": team}})
    return out


def config_digest(config: str) -> str:
    return hashlib.sha256(config.encode("utf-8")).hexdigest()


def is_export(path: Path, raw: bytes | None = None) -> bool:
    """Whether a file (or its bytes, ``raw``) is a JSON document (a Label Studio export;
    a sheet never is)."""
    try:
        head = raw[:64] if raw is not None else read_head(path)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"[", b"{"))


def read_head(path: Path) -> bytes:
    """The first bytes of a regular file, opened without following links or waiting."""
    item = plain_file(Path(path))
    with open_dump_file(Path(path).name, item, "labels", str(path)) as handle:
        return handle.read(64)


def export_bytes(path: Path, name: str) -> bytes:
    """The bytes of an export file named by a path, read as a batch's records are (a
    regular file, not followed through a link), never past :data:`MAX_EXPORT_BYTES`."""
    try:
        raw = read_record_file(Path(path), "labels", MAX_EXPORT_BYTES, name)
    except OSError as exc:
        raise InputError(f"cannot read the export ({exc.strerror})", file=name,
                         fix="check the path and the file's permissions") from exc
    if raw is None:
        raise InputError(f"an export is read whole, and this one is over the limit of "
                         f"{size_text(MAX_EXPORT_BYTES)}", file=name,
                         fix="export the project's tasks in parts (--ids), or merge them "
                             "as sheets")
    return raw


def load_export(path: Path, name: str, raw: bytes | None = None) -> list[dict]:
    """The tasks of an export file (``raw``: its bytes, when read already), each an
    object with ``data`` and ``annotations``; anything else is one message."""
    raw = export_bytes(path, name) if raw is None else raw
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"not a JSON file ({exc})", file=name, fix=EXPORT_FIX) from exc
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        data = data["tasks"]
    if not isinstance(data, list) or not all(
            isinstance(t, dict) and isinstance(t.get("data"), dict)
            and isinstance(t.get("annotations", []), list) for t in data):
        raise InputError("not a Label Studio export (a list of tasks, each with its data "
                         "and annotations)", file=name, fix=EXPORT_FIX)
    if not data:
        raise InputError("the export holds no task", file=name, fix=EXPORT_FIX)
    return data


def team_of(tasks_: list[dict], name: str) -> list[dict]:
    """The team the tasks name (``data.annotators``: name, e-mail, user id), the same on
    every task."""
    teams = {json.dumps(t["data"].get("annotators"), sort_keys=True) for t in tasks_}
    team = tasks_[0]["data"].get("annotators")
    if len(teams) > 1 or not isinstance(team, list) or not team or not all(
            isinstance(m, dict) and isinstance(m.get("name"), str) for m in team):
        raise InputError("the tasks do not name one team (data.annotators: each "
                         "annotator's name, e-mail and user id)", file=name,
                         fix="export a project that `studio create` made")
    return team


def who(completed_by: object, team: list[dict]) -> str | None:
    """The annotator's name of an annotation's ``completed_by`` (a user id, or the user
    expanded: id, email), or None when it is no one of the team."""
    if isinstance(completed_by, dict):
        email = str(completed_by.get("email") or "").casefold()
        for member in team:
            if email and str(member.get("email") or "").casefold() == email:
                return member["name"]
        completed_by = completed_by.get("id")
    for member in team:
        if completed_by is not None and member.get("id") == completed_by:
            return member["name"]
    return None


def choices_of(result: list, control: str) -> list[str]:
    """The choices an annotation's result holds for one control."""
    for item in result:
        if isinstance(item, dict) and item.get("from_name") == control:
            value = item.get("value") or {}
            found = value.get("choices") or []
            return [str(c) for c in found] if isinstance(found, list) else []
    return []


def text_of(result: list, control: str) -> str:
    """The text an annotation's result holds for a text area (lines joined)."""
    for item in result:
        if isinstance(item, dict) and item.get("from_name") == control:
            text = (item.get("value") or {}).get("text") or []
            return "\n".join(str(t) for t in text) if isinstance(text, list) else str(text)
    return ""


def annotation_row(task: dict, annotation: dict, annotator: str, codes: set[str] | None
                   ) -> tuple[dict | None, str | None]:
    """One annotation as a row of the table, or the problem with it."""
    result = annotation.get("result") or []
    themes = choices_of(result, THEME)
    if len(themes) != 1:
        return None, "an annotation without a theme (choose a theme, excluded or unsure)"
    theme = themes[0]
    if theme not in (EXCLUDED, UNSURE) and codes is not None and theme not in codes:
        return None, f"the choice {theme!r} is not a theme code of the taxonomy"
    confidence = (choices_of(result, CONFIDENCE_NAME) or [""])[0]
    lead = annotation.get("lead_time")
    data = task["data"]
    return {"url": str(data.get("url", "")).strip(), "project": str(data.get("project", "")),
            "created_at": str(data.get("created_at", "")), "title": str(data.get("title", "")),
            "annotator": annotator, **answer(theme, theme == EXCLUDED),
            "confidence": confidence if confidence in CONFIDENCE else "",
            "comment": text_of(result, COMMENT),
            "seconds": round(lead) if isinstance(lead, int | float) and lead >= 0 else None,
            "selection": str(data.get("selection", "")), "where": f"task {task.get('id')}"}, None


def read_export(path: Path, name: str | None = None, codes: set[str] | None = None,
                raw: bytes | None = None) -> Read:
    """A Label Studio export as annotations (see the module docstring; ``raw``: its
    bytes, when read already: the file is read once)."""
    name = name or str(path)
    raw = export_bytes(Path(path), name) if raw is None else raw
    tasks_ = load_export(Path(path), name, raw)
    team = team_of(tasks_, name)
    names = [m["name"] for m in team]
    rows, kinds = [], defaultdict(list)
    cancelled, outsiders = Counter(), Counter()

    def problem(kind: str, task: dict, text: str, fix: str) -> None:
        kinds[kind].append(InputError(f"task {task.get('id')} ({task['data'].get('url')}): "
                                      f"{text}", file=name, fix=fix))

    for task in tasks_:
        done = set()
        for annotation in task.get("annotations") or []:
            annotator = who(annotation.get("completed_by"), team)
            if annotator is None:
                outsiders[json.dumps(annotation.get("completed_by"), sort_keys=True)] += 1
                continue
            if annotation.get("was_cancelled"):
                cancelled[annotator] += 1
                continue
            if annotator in done:
                problem("twice", task, f"two annotations by {annotator}", "delete one in "
                        "Label Studio (keep the annotator's answer), then export again")
                continue
            done.add(annotator)
            row, wrong = annotation_row(task, annotation, annotator, codes)
            if wrong:
                problem("result", task, f"{wrong} (by {annotator})", "correct the annotation "
                        "in Label Studio, then export again")
            else:
                rows.append(row)
        if not done:
            problem("none", task, "no annotation", "label it in Label Studio (every "
                    "annotator), then export again")
    problems = [p for kind, found in kinds.items()
                for p in capped(found, name, f"problems of the same kind ({kind})")]
    if outsiders:
        shown = ", ".join(sorted(outsiders)[:MAX_LISTED])
        problems.append(InputError(f"{sum(outsiders.values()):,} annotation(s) by someone "
                                   f"outside the team ({', '.join(names)}): {shown}",
                                   file=name, fix="delete them in Label Studio (or make "
                                   "another project for them), then export again"))
    table = pd.DataFrame(rows, columns=COLUMNS, dtype=object)
    notes = ([f"{sum(cancelled.values()):,} skipped (cancelled) annotation(s) counted, not "
              "taken as labels: " + ", ".join(f"{a} {n}" for a, n in sorted(cancelled.items()))]
             if cancelled else [])
    facts = {"tasks": len(tasks_), "annotations": len(rows),
             "cancelled": {a: cancelled.get(a, 0) for a in names}}
    source = Source(name, KIND, hashlib.sha256(raw).hexdigest(), names,
                    most_common(pd.Series([str(t["data"].get("selection", ""))
                                           for t in tasks_], dtype=object)), facts, notes)
    return Read(source, table, problems=problems)
