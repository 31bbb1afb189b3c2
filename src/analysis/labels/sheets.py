"""Blank labelling sheets, one per annotator, for the candidates of a selection."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

SHEET_COLUMNS = ["project", "url", "created_at", "title", "label", "excluded"]


def write_blank_sheets(out: Path, candidates: pd.DataFrame, annotators: int) -> list[Path]:
    """Write ``<out>/sheets/annotator_<k>.csv`` for k = 1..``annotators``: every candidate
    (project, url, created_at, title) with blank ``label`` and ``excluded`` columns."""
    folder = Path(out) / "sheets"
    folder.mkdir(parents=True, exist_ok=True)
    sheet = candidates.loc[:, ["project", "url", "created_at", "title"]].copy()
    sheet["label"] = ""
    sheet["excluded"] = ""
    paths = []
    for k in range(1, annotators + 1):
        path = folder / f"annotator_{k}.csv"
        sheet.to_csv(path, index=False, lineterminator="\n", encoding="utf-8")
        paths.append(path)
    return paths
