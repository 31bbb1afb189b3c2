"""Label Studio exports as ``studio export`` downloads them, made up: a team, tasks of
synthetic issues, each annotator's annotation with its result and lead time."""

from __future__ import annotations

import json
from pathlib import Path

TEAM = [{"name": "alice", "email": "alice@localhost", "id": 1},
        {"name": "bob", "email": "bob@localhost", "id": 2},
        {"name": "chen", "email": "chen@localhost", "id": 3}]
URL = "https://github.com/pytorch/pytorch/issues/{}"


def result(theme: str, confidence: str = "", comment: str = "") -> list[dict]:
    """An annotation's result as Label Studio's editor submits it."""
    items = [{"from_name": "theme", "to_name": "issue", "type": "choices",
              "value": {"choices": [theme]}}]
    if confidence:
        items.append({"from_name": "confidence", "to_name": "issue", "type": "choices",
                      "value": {"choices": [confidence]}})
    if comment:
        items.append({"from_name": "comment", "to_name": "issue", "type": "textarea",
                      "value": {"text": [comment]}})
    return items


def annotation(member: dict, theme: str = "C.3", lead_time: float = 60.0, **extra) -> dict:
    return {"id": member["id"] * 10, "completed_by": {"id": member["id"],
                                                      "email": member["email"]},
            "result": result(theme), "was_cancelled": False, "lead_time": lead_time, **extra}


def task(number: int, team: list[dict] = TEAM, theme: str = "C.3") -> dict:
    """Issue ``number``'s task, annotated by the whole team with ``theme``."""
    return {"id": number, "data": {
        "url": URL.format(number), "project": "PyTorch", "created_at": "2024-03-01",
        "title": f"issue {number}", "body": "", "labels": "", "issue_html": "<p></p>",
        "selection": "sel-1", "annotators": team},
        "annotations": [annotation(m, theme) for m in team]}


def export_tasks(n: int, team: list[dict] = TEAM) -> list[dict]:
    return [task(k, team) for k in range(1, n + 1)]


def write_export(path: Path, tasks: list[dict] | str | bytes) -> Path:
    """Write tasks (or a document as it is) where ``studio export`` writes them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = tasks if isinstance(tasks, str | bytes) else json.dumps(tasks)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def write_large_export(path: Path, tasks: int, team: list[dict] = TEAM) -> Path:
    """An export of ``tasks`` tasks written one at a time (memory stays small)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("[")
        for k in range(1, tasks + 1):
            handle.write(("," if k > 1 else "") + json.dumps(task(k, team)))
        handle.write("]")
    return path
