"""The record of a batch's merge, kept in git beside the batch's records: what the merge
read, so that a change made afterwards is caught rather than taken in silently.

    merges/<batch>.json: {"batch", "sheets": {file: sha256}, "ratings": {url: {annotator:
    rating}}, "decided": [url, ...], "revisions": [{"reason", "changes": [...]}, ...]}

A sheet (or export) whose bytes changed since the merge is read again: re-saved by a
spreadsheet program with the same answers, it is taken as it is; an answer that changed
is one line naming the sheet, the report and the change, and what to do: restore the
sheet, or change it on purpose with ``--revise REASON``, which the record keeps (with the
changes it accepted). A report the adjudicators decided is said to be one: its decision
was made on the ratings it had.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import to_json_text


@dataclass(frozen=True)
class Change:
    """One annotator's answer to one report, other than the record's."""

    file: str  # the input that holds the annotator's answers now (as named)
    url: str
    annotator: str
    before: str
    after: str
    decided: bool


def marked(value: object) -> bool:
    """A mark of the table of annotations: True, or a non-empty text (``x``)."""
    return value is True or (isinstance(value, str) and bool(value.strip()))


def rating(label: object, excluded: object, unsure: object) -> str:
    """An annotator's answer as words: the code, ``excluded`` and/or ``unsure``."""
    words = ["" if label is None or pd.isna(label) else str(label).strip(),
             "excluded" if marked(excluded) else "", "unsure" if marked(unsure) else ""]
    return " ".join(w for w in words if w) or "none"


def ratings_of(table: pd.DataFrame) -> dict[str, dict[str, str]]:
    """Every report's answers by annotator, from a table of annotations (url, annotator,
    label, excluded, unsure: :mod:`analysis.update.labels.annotations`)."""
    out: dict[str, dict[str, str]] = {}
    for r in table.itertuples(index=False):
        out.setdefault(str(r.url), {})[str(r.annotator)] = rating(r.label, r.excluded,
                                                                   r.unsure)
    return {url: dict(sorted(by.items())) for url, by in sorted(out.items())}


def ledger(batch: str, sheets: dict[str, str], ratings: dict[str, dict[str, str]],
           decided: list[str], revisions: list[dict]) -> dict:
    """The record of one merge (see the module docstring)."""
    return {"batch": batch, "sheets": dict(sorted(sheets.items())), "ratings": ratings,
            "decided": sorted(decided), "revisions": revisions}


def read_ledger(path: Path) -> dict | None:
    """The record of the batch's last merge, None when there is none (a first merge) or
    it is not a record (untrusted: only its keys are read)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and isinstance(data.get("ratings"), dict) \
        and isinstance(data.get("sheets"), dict)
    return data if ok else None


def changes_since(previous: dict, ratings: dict[str, dict[str, str]],
                  file_of: dict[str, str]) -> list[Change]:
    """The answers that differ from the ``previous`` record's, report by report and
    annotator by annotator (``file_of``: each annotator's input now). A sheet re-saved
    with the same answers gives none; a report or annotator new to the batch is no change
    of an answer."""
    decided = set(previous.get("decided") or [])
    found = []
    for url, before in previous["ratings"].items():
        if not isinstance(before, dict) or url not in ratings:
            continue
        for who, was in before.items():
            now = ratings[url].get(who)
            if now is not None and now != was:
                found.append(Change(file_of.get(who, "?"), url, who, str(was), now,
                                    url in decided))
    return found


def change_lines(prog: str, changes: list[Change], record: str, rerun: str) -> list[str]:
    """One line a changed answer (sheet, report, before and after, what to do), then one
    line on the way to accept them on purpose (``rerun``: the merge's command)."""
    lines = []
    for c in changes:
        what = ("it was decided on the answers it had: restore the sheet, or re-decide it on "
                "purpose" if c.decided else "restore the sheet, or change it on purpose")
        lines.append(f"{prog}: {c.file}: {c.url}: {c.annotator}'s answer changed from "
                     f"{c.before} to {c.after} after the batch was merged ({record}) -> "
                     f"{what}")
    if changes:
        lines.append(f"{prog}: {len(changes)} answer(s) changed since the merge; nothing "
                     f"written. To restore: git checkout -- the sheet(s). To keep the "
                     f"change(s) on purpose (the record keeps the reason): {rerun} --revise "
                     "'WHY'")
    return lines


def write_ledger(path: Path, data: dict) -> None:
    """Write the record (the same merge gives the same bytes)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(to_json_text(data), encoding="utf-8")
