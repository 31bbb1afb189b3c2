"""A Label Studio export read back into the table of annotations (the merge reads
it; the project and its tasks are :mod:`analysis.update.labels.studio`).

The export (JSON, as ``studio export`` downloads it, each task with its ``annotations[]``
and each annotation's ``completed_by``, expanded or a user id, and ``lead_time``) is read
by :func:`read_export` into the same table a sheet gives, one row per (annotator, task):
the theme's code (or excluded, unsure), the confidence, the comment and the lead time in
seconds. A cancelled (skipped) annotation is counted, per annotator, and never taken as a
label. The export is read task by task (:mod:`analysis.core.jsonstream`), never whole,
within :data:`MAX_EXPORT_BYTES`, :data:`MAX_TASKS`, :data:`MAX_ANNOTATIONS` and
:data:`MAX_TASK_BYTES` a task; what is kept is the table's rows. An export past a limit
or that is no JSON list of tasks is refused in one line. Problems are one line each
(file, task, what, what to do), the first few of each kind and how many more: an
annotation of someone outside the team, two annotations of one annotator on a task, an
annotation of another shape than Label Studio's (not an object, a result that is no list
of objects, a lead time that is no number of seconds), without a theme, with two, or
with a choice the configuration does not have, a task given twice, a task no one
annotated.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from analysis.core.dumpfiles import OPEN_FLAGS
from analysis.core.errors import InputError
from analysis.core.jsonstream import ItemReader, json_items
from analysis.core.sizes import MAX_EXPORT_BYTES, MiB, size_text
from analysis.core.textsafe import visible
from analysis.update.labels.annotations import COLUMNS, Read, Source, answer
from analysis.update.labels.checks import MAX_LISTED, most_counted
from analysis.update.labels.codebook import CONFIDENCE, EXCLUDED, UNSURE

THEME, CONFIDENCE_NAME, COMMENT, ISSUE = "theme", "confidence", "comment", "issue"
KIND = "label-studio"
# An export is read task by task, within these limits: far above a study's (10,000 tasks
# of 4,000-character bodies with three annotations each are about 150 MB), below what
# takes a machine's memory or minutes (docs/guarantees.md).
MAX_TASKS = 500_000
MAX_ANNOTATIONS = 1_000_000
MAX_TASK_BYTES = 16 * MiB  # characters of one task's JSON
MAX_LEAD_SECONDS = 10 ** 9  # about 30 years
EXPORT_FIX = ("give the JSON export of the project `studio create` made (python -m "
              "analysis.update.labels studio export writes it)")
SPLIT_FIX = "label the candidates in several batches (a project each)"
FIX_ANNOTATION = "correct the annotation in Label Studio, then export again"
TEAM_PROBLEM = ("the tasks do not name one team (data.annotators: each annotator's name, "
                "e-mail and user id)")


def is_export(path: Path) -> bool:
    """Whether a file is a JSON document (a Label Studio export; a sheet never is); it is
    opened without following a link or waiting (a FIFO is no export)."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return False
    try:
        head = os.read(fd, 64)
    except OSError:
        return False
    finally:
        os.close(fd)
    return looks_like_json(head)


def looks_like_json(head: bytes) -> bool:
    """Whether a file's first bytes start a JSON document (a list or an object)."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"[", b"{"))


@contextmanager
def open_export(path: Path, name: str) -> Iterator[ItemReader]:
    """An export opened once, as a regular file (never through a link, never a FIFO),
    within :data:`MAX_EXPORT_BYTES`, to be read task by task."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError as exc:
        raise InputError(f"cannot open the export ({exc.strerror}; a link is not "
                         "followed)", file=name, fix=EXPORT_FIX) from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError("not a regular file", file=name, fix=EXPORT_FIX)
        if info.st_size > MAX_EXPORT_BYTES:
            raise InputError(f"the export is over the limit of {size_text(MAX_EXPORT_BYTES)}",
                             file=name, fix="export the project's tasks in parts (--ids), "
                             "or merge them as sheets")
        os.set_blocking(fd, True)
        yield ItemReader(handle, name, EXPORT_FIX)


def valid_team(team: object) -> bool:
    """Whether ``data.annotators`` names a team: a list of annotators, each with a name."""
    return isinstance(team, list) and bool(team) and all(
        isinstance(m, dict) and isinstance(m.get("name"), str) and m["name"] for m in team)


class Team:
    """The team the tasks name (``data.annotators``), to tell an annotation's annotator
    from its ``completed_by`` (a user id, or the user expanded: id, e-mail)."""

    def __init__(self, members: list[dict]):
        self.members = members
        self.names = [m["name"] for m in members]
        self.by_email = {str(m.get("email") or "").casefold(): m["name"]
                         for m in reversed(members) if m.get("email")}
        self.by_id = {m.get("id"): m["name"] for m in reversed(members)
                      if isinstance(m.get("id"), int) and not isinstance(m.get("id"), bool)}

    def who(self, completed_by: object) -> str | None:
        """The annotator's name, or None when it is no one of the team."""
        if isinstance(completed_by, dict):
            email = completed_by.get("email")
            if isinstance(email, str) and email and email.casefold() in self.by_email:
                return self.by_email[email.casefold()]
            completed_by = completed_by.get("id")
        if not isinstance(completed_by, int) or isinstance(completed_by, bool):
            return None
        return self.by_id.get(completed_by)


def result_items(result: object) -> dict[str, list[dict]] | str:
    """An annotation's result by control (``from_name`` -> its items' values), or what is
    wrong with its shape: a list of objects, each value an object."""
    if result is None:
        return {}
    if not isinstance(result, list):
        return f"a result that is {kind_of(result)}, not a list"
    found: dict[str, list[dict]] = {}
    for item in result:
        if not isinstance(item, dict):
            return f"a result item that is {kind_of(item)}, not an object"
        value = item.get("value")
        if not isinstance(value, dict):
            return f"a result value that is {kind_of(value)}, not an object"
        found.setdefault(str(item.get("from_name")), []).append(value)
    return found


def kind_of(value: object) -> str:
    """What a JSON value is, for a message (``a number``, ``a text``...)."""
    return {dict: "an object", list: "a list", str: "a text", bool: "true or false",
            int: "a number", float: "a number", type(None): "null"}.get(type(value),
                                                                        "something else")


def one_choice(values: list[dict], control: str) -> str | None:
    """The one choice of a choices control (``""`` when it has none); None when it has
    several, or its choices are not a list of texts."""
    if not values:
        return ""
    choices = values[0].get("choices") if len(values) == 1 else None
    if not isinstance(choices, list) or len(choices) > 1:
        return None
    if not choices:
        return ""
    return choices[0] if isinstance(choices[0], str) else None


def text_value(values: list[dict]) -> str | None:
    """The text of a text area (lines joined); None when it is not text."""
    texts = []
    for value in values:
        text = value.get("text") or []
        text = [text] if isinstance(text, str) else text
        if not isinstance(text, list) or not all(isinstance(t, str) for t in text):
            return None
        texts += text
    return "\n".join(texts)


def lead_seconds(lead: object) -> int | None | bool:
    """An annotation's ``lead_time`` as whole seconds; None when there is none, False
    when it is no number of seconds (a text, negative, too large)."""
    if lead is None:
        return None
    if isinstance(lead, bool) or not isinstance(lead, int | float) or not \
            0 <= lead <= MAX_LEAD_SECONDS:
        return False
    return round(lead)


def annotation_answer(annotation: dict, codes: set[str] | None
                      ) -> tuple[tuple | None, str | None]:
    """One annotation's answer (theme, confidence, comment, seconds), or the problem."""
    items = result_items(annotation.get("result"))
    if isinstance(items, str):
        return None, items
    themes = items.get(THEME, [])
    if len(themes) > 1:
        return None, f"{len(themes)} theme results in one annotation (keep one)"
    theme = one_choice(themes, THEME)
    if not theme:
        return None, "an annotation without a theme (choose a theme, excluded or unsure)"
    if theme not in (EXCLUDED, UNSURE) and codes is not None and theme not in codes:
        return None, f"the choice {visible(theme[:80])!r} is not a theme code of the taxonomy"
    confidence = one_choice(items.get(CONFIDENCE_NAME, []), CONFIDENCE_NAME)
    comment = text_value(items.get(COMMENT, []))
    seconds = lead_seconds(annotation.get("lead_time"))
    if confidence is None or comment is None:
        return None, "a confidence or a comment of another shape than Label Studio's"
    if seconds is False:
        lead = annotation.get("lead_time")
        return None, f"a lead time that is no number of seconds ({kind_of(lead)})"
    return (theme, confidence if confidence in CONFIDENCE else "", comment, seconds), None


@functools.lru_cache(maxsize=1024)
def theme_answer(theme: str) -> tuple[str, bool, bool]:
    """A theme choice as the table's label, excluded, unsure (:func:`~analysis.update.labels.
    annotations.answer`), once per choice: an export holds few distinct ones."""
    found = answer(theme, theme == EXCLUDED)
    return found["label"], found["excluded"], found["unsure"]


class Problems:
    """Problems of one export by kind: the first :data:`MAX_LISTED` of each kept, the
    rest counted (a million bad annotations are not a million messages in memory)."""

    def __init__(self, name: str):
        self.name, self.kept, self.counts = name, defaultdict(list), Counter()

    def add(self, kind: str, where: str, text: str, fix: str) -> None:
        self.counts[kind] += 1
        if self.counts[kind] <= MAX_LISTED:
            self.kept[kind].append(InputError(f"{where}: {text}", file=self.name, fix=fix))

    def lines(self) -> list[InputError]:
        out = []
        for kind, found in self.kept.items():
            out += found
            rest = self.counts[kind] - len(found)
            if rest:
                out.append(InputError(f"{rest:,} more problems of the same kind ({kind})",
                                      file=self.name, fix="see the messages above"))
        return out


class ExportTable:
    """The rows of an export, built task by task as it is read (see :func:`read_export`),
    one list per column."""

    def __init__(self, name: str, codes: set[str] | None):
        self.name, self.codes = name, codes
        self.team: list[dict] | None = None
        self.rows: list[tuple] = []
        self.problems = Problems(name)
        self.cancelled, self.outsiders, self.selections = Counter(), Counter(), Counter()
        self.ids: set = set()
        self.urls: set[str] = set()
        self.tasks = self.annotations = 0

    def refuse(self, text: str, fix: str = EXPORT_FIX) -> InputError:
        return InputError(text, file=self.name, fix=fix)

    def add_task(self, task: object) -> None:
        """One task of the export: its shape checked, its annotations made rows."""
        self.tasks += 1
        if self.tasks > MAX_TASKS:
            raise self.refuse(f"more than {MAX_TASKS:,} tasks", fix=SPLIT_FIX)
        annotations = task.get("annotations") if isinstance(task, dict) else None
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict) \
                or not isinstance(annotations if annotations is not None else [], list):
            raise self.refuse(f"task {self.tasks:,} of the list is not a Label Studio task "
                              "(an object with its data and annotations)")
        data = task["data"]
        if self.team is None:
            if not valid_team(data.get("annotators")):
                raise self.refuse(TEAM_PROBLEM, fix="export a project that `studio create` "
                                  "made")
            self.team = Team(data["annotators"])
        elif data.get("annotators") != self.team.members:
            raise self.refuse(TEAM_PROBLEM, fix="export a project that `studio create` made")
        issue = {k: str(data.get(k, "")) for k in ("url", "project", "created_at", "title")}
        issue["url"] = issue["url"].strip()
        where = visible(f"task {str(task.get('id'))[:40]} ({issue['url'][:200]})")
        self.selections[str(data.get("selection", ""))] += 1
        if not self.distinct(task.get("id"), issue["url"], where):
            return
        self.add_annotations(annotations or [], issue, where,
                             visible(f"task {task.get('id')}"[:60]),
                             str(data.get("selection", "")))

    def distinct(self, task_id: object, url: str, where: str) -> bool:
        """Whether a task is the first of its id and of its issue (else a problem)."""
        key = task_id if isinstance(task_id, int) else json.dumps(task_id)[:100]
        if key in self.ids or url in self.urls:
            self.problems.add("duplicate", where, "a second task of the same id or issue",
                              "export the project again (each task once)")
            return False
        self.ids.add(key)
        self.urls.add(url)
        return True

    def add_annotations(self, annotations: list, issue: dict, where: str, short: str,
                        selection: str) -> None:
        done = set()
        for annotation in annotations:
            self.annotations += 1
            if self.annotations > MAX_ANNOTATIONS:
                raise self.refuse(f"more than {MAX_ANNOTATIONS:,} annotations", fix=SPLIT_FIX)
            if not isinstance(annotation, dict):
                self.problems.add("shape", where, f"an annotation that is "
                                  f"{kind_of(annotation)}, not an object", FIX_ANNOTATION)
                continue
            annotator = self.team.who(annotation.get("completed_by"))
            if annotator is None:
                self.outsiders[visible(json.dumps(annotation.get("completed_by"),
                                                  sort_keys=True)[:100])] += 1
                continue
            if annotation.get("was_cancelled"):
                self.cancelled[annotator] += 1
                continue
            if annotator in done:
                self.problems.add("twice", where, f"two annotations by {annotator}",
                                  "delete one in Label Studio (keep the annotator's answer), "
                                  "then export again")
                continue
            done.add(annotator)
            found, wrong = annotation_answer(annotation, self.codes)
            if wrong:
                self.problems.add("result", where, f"{wrong} (by {annotator})", FIX_ANNOTATION)
                continue
            theme, confidence, comment, seconds = found
            label, excluded, unsure = theme_answer(theme)
            self.rows.append((issue["url"], issue["project"], issue["created_at"],
                              issue["title"], annotator, label, excluded, unsure,
                              confidence, comment, seconds, selection, short))
        if not done:
            self.problems.add("none", where, "no annotation", "label it in Label Studio "
                              "(every annotator), then export again")

    def read(self, sha256: str) -> Read:
        """The table, the source and the problems of the whole export."""
        if self.team is None:
            raise self.refuse("the export holds no task")
        names = self.team.names
        problems = self.problems.lines()
        if self.outsiders:
            shown = ", ".join(sorted(self.outsiders)[:MAX_LISTED])
            problems.append(self.refuse(
                f"{sum(self.outsiders.values()):,} annotation(s) by someone outside the "
                f"team ({', '.join(names)}): {shown}", fix="delete them in Label Studio (or "
                "make another project for them), then export again"))
        table = pd.DataFrame.from_records(self.rows, columns=COLUMNS) if self.rows else \
            pd.DataFrame(columns=COLUMNS)
        table = table.astype(object)
        cancelled = self.cancelled
        notes = ([f"{sum(cancelled.values()):,} skipped (cancelled) annotation(s) counted, "
                  "not taken as labels: " + ", ".join(f"{a} {n}" for a, n in
                                                      sorted(cancelled.items()))]
                 if cancelled else [])
        facts = {"tasks": self.tasks, "annotations": len(table),
                 "cancelled": {a: cancelled.get(a, 0) for a in names}}
        selection = most_counted(self.selections)
        source = Source(self.name, KIND, sha256, names, selection, facts, notes)
        return Read(source, table, problems=problems)


def read_export(path: Path, name: str | None = None, codes: set[str] | None = None) -> Read:
    """A Label Studio export as annotations (see the module docstring), read task by task
    within the limits (:data:`MAX_EXPORT_BYTES`, :data:`MAX_TASKS`,
    :data:`MAX_ANNOTATIONS`, :data:`MAX_TASK_BYTES` a task)."""
    name = name or str(path)
    table = ExportTable(name, codes)
    with open_export(Path(path), name) as reader:
        for task in json_items(reader, MAX_TASK_BYTES, "a Label Studio export (a JSON "
                               "list of tasks, as studio export writes it)"):
            table.add_task(task)
        return table.read(reader.sha256)
